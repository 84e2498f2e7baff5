"""The table-cycle load: games at the table, each with 4 scoring phones and 2 watchers.

Run by bench/load.py in a process of its own (standard library only):

    python bench/table_cycle.py CONFIG.json

CONFIG: {"host", "port", "games": [{"edit", "view", "events", "revision"}],
"duration", "seed"}. One thread a game. It prints "ready" once every phone
has its page, and starts the cycles on a line from stdin. Each editing phone first GETs the
game page for its own CSRF cookie and token. Then, cycle after cycle until
the time is up, one editing phone (in turn) saves a deal as the page's htmx
form does (with the version: the revision it shows), and each of the six
phones then polls once with the revision it had, as its `every 2s` poll
does: the four editors on the edit link's live URL, the two watchers on the
view link's. Every poll must answer 200 with the board of the new revision;
a stale or wrong answer is counted as an error. Prints one line of JSON:
cycles, seconds, requests, statuses, errors.
"""

import gzip
import http.client
import json
import random
import re
import sys
import threading
import time
import urllib.parse

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
REVISION = re.compile(r'data-revision="(\d+)"')
SEATS = 6


class Phone:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.cookie = None
        self.token = None

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            send = {"Accept-Encoding": "gzip, deflate, br", **(headers or {})}
            if self.cookie:
                send["Cookie"] = f"csrftoken={self.cookie}"
            conn.request(method, path, body=body, headers=send)
            response = conn.getresponse()
            raw = response.read()
            if (response.getheader("Content-Encoding") or "").lower() == "gzip":
                raw = gzip.decompress(raw)
            text = raw.decode("utf-8", errors="replace")
            for header, value in response.getheaders():
                if header.lower() == "set-cookie" and value.startswith("csrftoken="):
                    self.cookie = value.split(";", 1)[0].split("=", 1)[1]
            return response.status, text
        finally:
            conn.close()


class Table(threading.Thread):
    def __init__(self, config, game, index, ready, go):
        super().__init__(daemon=True)
        self.config, self.game = config, game
        self.rng = random.Random(config.get("seed", 13) * 1000 + index)
        self.ready, self.go = ready, go
        self.stop_at = None
        self.cycles = 0
        self.requests = 0
        self.statuses = {}
        self.errors = []
        self.last_done = None

    def count(self, status):
        self.requests += 1
        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1

    def run(self):
        try:
            self._run()
        except Exception as error:  # reported, never raised in a thread
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            self.ready.set()

    def _run(self):
        host, port = self.config["host"], self.config["port"]
        edit, view = self.game["edit"], self.game["view"]
        editors = [Phone(host, port) for _ in range(4)]
        watchers = [Phone(host, port) for _ in range(2)]
        for phone in editors:
            status, page = phone.request("GET", f"/g/{edit}/")
            token = CSRF_INPUT.search(page)
            if status != 200 or not phone.cookie or not token:
                self.errors.append(f"game page {status}: no CSRF cookie or token")
                return
            phone.token = token.group(1)
        events, revision = self.game["events"], self.game["revision"]
        htmx = {"HX-Request": "true"}
        self.ready.set()
        self.go.wait()
        while time.monotonic() < self.stop_at:
            saver = editors[self.cycles % len(editors)]
            body = urllib.parse.urlencode(self.deal(revision))
            headers = {
                **htmx,
                "HX-Target": "game",
                "Content-Type": "application/x-www-form-urlencoded",
                "X-CSRFToken": saver.token,
            }
            status, page = saver.request("POST", f"/g/{edit}/deal/", body, headers)
            self.count(status)
            if status != 200 or f'data-revision="{revision + 1}"' not in page:
                self.errors.append(f"save answered {status} without revision {revision + 1}")
                return
            for phone, path in [
                *((p, f"/g/{edit}/live/?v={revision}") for p in editors),
                *((p, f"/w/{view}/live/?v={revision}") for p in watchers),
            ]:
                status, board = phone.request("GET", path, headers=htmx)
                self.count(status)
                found = REVISION.search(board)
                if status != 200 or not found or int(found.group(1)) != revision + 1:
                    got = found.group(1) if found else None
                    self.errors.append(f"poll {path[:3]} answered {status}, revision {got}")
                    return
            events += 1
            revision += 1
            self.cycles += 1
            self.last_done = time.monotonic()

    def deal(self, revision):
        winner = self.rng.randint(1, SEATS)
        form = {"version": str(revision), "winner": str(winner)}
        for seat in range(1, SEATS + 1):
            if seat == winner:
                continue
            if self.rng.random() < 0.2:
                form[f"r{seat}"], form[f"p{seat}"] = "first_drop", ""
            else:
                form[f"r{seat}"], form[f"p{seat}"] = "points", str(self.rng.randint(2, 80))
        return form


def main(path):
    """Open every phone's page, print "ready", wait for a line on stdin, then run.

    bench/load.py reads the server's CPU time between "ready" and the end, so
    the pages opened before the first cycle are not counted in a cycle.
    """
    with open(path) as f:
        config = json.load(f)
    go = threading.Event()
    tables = []
    for i, game in enumerate(config["games"]):
        tables.append(Table(config, game, i, threading.Event(), go))
        tables[-1].start()
    for t in tables:
        t.ready.wait(120)
    print("ready", flush=True)
    sys.stdin.readline()
    start_at = time.monotonic()
    for t in tables:
        t.stop_at = start_at + config["duration"]
    go.set()
    for t in tables:
        t.join(config["duration"] + 120)
    ends = [t.last_done for t in tables if t.last_done is not None]
    seconds = (max(ends) - start_at) if ends else config["duration"]
    statuses = {}
    for t in tables:
        for status, n in t.statuses.items():
            statuses[status] = statuses.get(status, 0) + n
    cycles = sum(t.cycles for t in tables)
    result = {
        "games": len(tables),
        "cycles": cycles,
        "seconds": seconds,
        "cycles_per_s": cycles / seconds if seconds > 0 else 0.0,
        "requests": sum(t.requests for t in tables),
        "statuses": statuses,
        "errors": [e for t in tables for e in t.errors][:20],
    }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
