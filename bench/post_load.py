"""The deal-save load: N connections, each saving deals into a game of its own.

Run by bench/run.py in a process of its own (standard library only):

    python bench/post_load.py CONFIG.json

CONFIG: {"host", "port", "tokens": [edit token per connection], "seats",
"duration", "seed"}. Each connection first GETs its game page for the CSRF
cookie, the form's token and the version (the number of events), then posts
deals as the page's htmx form does (`HX-Request: true`) until the time is
up, counting the version up after every save. Prints one line of JSON:
requests, seconds, statuses, latencies' p50/p99 in ms, and any errors.
"""

import http.client
import json
import random
import re
import statistics
import sys
import threading
import time
import urllib.parse

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
VERSION_INPUT = re.compile(r'name="version" value="(\d+)"')


def csrf_cookie(response):
    for header, value in response.getheaders():
        if header.lower() == "set-cookie" and value.startswith("csrftoken="):
            return value.split(";", 1)[0].split("=", 1)[1]
    return None


class Connection(threading.Thread):
    def __init__(self, config, token, index, start_at, stop_at):
        super().__init__(daemon=True)
        self.config = config
        self.token = token
        self.rng = random.Random(config.get("seed", 13) * 1000 + index)
        self.start_at = start_at
        self.stop_at = stop_at
        self.latencies = []
        self.statuses = {}
        self.errors = []
        self.last_done = None

    def connect(self):
        return http.client.HTTPConnection(self.config["host"], self.config["port"], timeout=60)

    def run(self):
        try:
            self._run()
        except Exception as error:  # reported, never raised in a thread
            self.errors.append(f"{type(error).__name__}: {error}")

    def _run(self):
        conn = self.connect()
        page = f"/g/{self.token}/"
        conn.request("GET", page)
        response = conn.getresponse()
        body = response.read().decode()
        cookie = csrf_cookie(response)
        form_token = CSRF_INPUT.search(body)
        version = VERSION_INPUT.search(body)
        if response.status != 200 or not cookie or not form_token or not version:
            self.errors.append(f"game page {response.status}: no CSRF cookie, token or version")
            return
        version = int(version.group(1))
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept-Encoding": "gzip, deflate, br",  # as a browser asks
            "HX-Request": "true",
            "HX-Target": "game",
            "X-CSRFToken": form_token.group(1),
            "Cookie": f"csrftoken={cookie}",
        }
        seats = self.config["seats"]
        while time.monotonic() < self.start_at:
            time.sleep(0.001)
        while time.monotonic() < self.stop_at:
            body = urllib.parse.urlencode(self.deal(seats, version))
            began = time.monotonic()
            try:
                conn.request("POST", f"/g/{self.token}/deal/", body=body, headers=headers)
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as error:
                self.errors.append(f"{type(error).__name__}: {error}")
                conn.close()
                conn = self.connect()
                continue
            done = time.monotonic()
            self.latencies.append(done - began)
            self.last_done = done
            self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
            if response.status == 200:
                version += 1
            elif response.status == 409:  # should not happen: one writer per game
                version = None
                self.errors.append("409: the version went stale")
                return
        conn.close()

    def deal(self, seats, version):
        """A random deal as the form posts it: a winner, points or a drop for the rest."""
        winner = self.rng.randint(1, seats)
        form = {"version": str(version), "winner": str(winner)}
        for seat in range(1, seats + 1):
            if seat == winner:
                continue
            if self.rng.random() < 0.2:
                form[f"r{seat}"] = self.rng.choice(["first_drop", "middle_drop"])
                form[f"p{seat}"] = ""
            else:
                form[f"r{seat}"] = "points"
                form[f"p{seat}"] = str(self.rng.randint(2, 80))
        return form


def main(path):
    with open(path) as f:
        config = json.load(f)
    start_at = time.monotonic() + 0.5  # every connection has its form before the clock runs
    stop_at = start_at + config["duration"]
    threads = [
        Connection(config, token, i, start_at, stop_at) for i, token in enumerate(config["tokens"])
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(config["duration"] + 120)
    latencies = sorted(x for t in threads for x in t.latencies)
    statuses = {}
    for t in threads:
        for status, n in t.statuses.items():
            statuses[str(status)] = statuses.get(str(status), 0) + n
    ends = [t.last_done for t in threads if t.last_done is not None]
    seconds = (max(ends) - start_at) if ends else config["duration"]
    ok = statuses.get("200", 0)
    result = {
        "connections": len(threads),
        "requests": len(latencies),
        "ok": ok,
        "seconds": seconds,
        "rps": ok / seconds if seconds > 0 else 0.0,
        "statuses": statuses,
        "errors": [e for t in threads for e in t.errors][:20],
    }
    if len(latencies) >= 2:
        cuts = statistics.quantiles(latencies, n=100, method="inclusive")
        result["p50_ms"] = cuts[49] * 1000
        result["p99_ms"] = cuts[98] * 1000
        result["max_ms"] = latencies[-1] * 1000
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1])
