"""The load figures: requests a second of what a phone asks, under wrk, each
divided by the one-row baseline's in the same run, and the table cycle.

Each endpoint's answer is checked once before it is timed; any answer that is
not 2xx during a test fails its figure. The baseline runs before and after each
figure, and each ratio divides by the mean of the two beside it, so a drift of a
shared machine over the run weighs on no figure alone. Beside each figure: how
busy the CPU was, and how much of it was not this benchmark (other sessions').
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.report import OUT, ROOT, Broken, load_line, say
from bench.server import server_pids

BENCH = ROOT / "bench"
HTMX = ("HX-Request: true",)
BROWSER_ENCODING = "Accept-Encoding: gzip, deflate, br"  # every request, as a browser asks


# -- CPU: the machine's, and the share of it that is ours


def _jiffies(pid):
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime


def _machine():
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    return sum(values), sum(values) - values[3] - values[4]  # total, busy


@contextlib.contextmanager
def cpu_meter(server, into):
    """into["busy"], into["others"]: % of the machine busy, and busy but not us;
    into["ours_s"]: CPU seconds of the server, wrk and this process."""
    tick = os.sysconf("SC_CLK_TCK")

    def ours():
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # wrk, once it has ended
        me = resource.getrusage(resource.RUSAGE_SELF)
        used = kids.ru_utime + kids.ru_stime + me.ru_utime + me.ru_stime
        return sum(_jiffies(p) for p in server_pids(server)) + used * tick

    total, busy, us = *_machine(), ours()
    yield
    total2, busy2, us2 = *_machine(), ours()
    span = max(1, total2 - total)
    into["busy"] = (busy2 - busy) / span * 100
    into["others"] = max(0.0, into["busy"] - (us2 - us) / span * 100)
    into["ours_s"] = (us2 - us) / tick


def server_cpu_s(server):
    """CPU seconds gunicorn's master and workers have used so far."""
    return sum(_jiffies(p) for p in server_pids(server)) / os.sysconf("SC_CLK_TCK")


def wait_quiet(limit, busy_max=25.0, before="the load tests"):
    """Wait up to `limit` seconds for the other sessions to leave the CPU; say how busy it was."""
    deadline = time.monotonic() + limit
    while True:
        total, busy = _machine()
        time.sleep(2)
        total2, busy2 = _machine()
        share = (busy2 - busy) / max(1, total2 - total) * 100
        if share <= busy_max or time.monotonic() > deadline:
            break
    still = "" if share <= busy_max else f" after waiting {limit} s: figures are noisy"
    say(f"machine before {before}: {share:.0f} % CPU busy{still}; {load_line()}")


# -- wrk


def _ms(text):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip()).groups()
    return float(number) * {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(name, port, path, seconds, connections, headers=(), script=None, script_args=()):
    """One wrk run: {"rps", "p50", "p99", "requests", "errors"}; its output in bench/out/."""
    threads = min(2, connections)
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    cmd.append("--latency")
    for header in (BROWSER_ENCODING, *headers):
        cmd += ["-H", header]
    if script:
        cmd += ["-s", str(script)]
    cmd.append(f"http://127.0.0.1:{port}{path}")
    if script_args:
        cmd += ["--", *(str(a) for a in script_args)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    (OUT / f"wrk-{name}.txt").write_text(" ".join(cmd) + "\n\n" + done.stdout + done.stderr)
    text = done.stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p50 = re.search(r"^\s+50%\s+(\S+)", text, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M)
    count = re.search(r"(\d+) requests in", text)
    if done.returncode != 0 or not (rps and p50 and p99 and count):
        raise Broken(f"wrk {name} exited {done.returncode}: see bench/out/wrk-{name}.txt")
    # wrk's own count of answers not 2xx or 3xx; bench/deal_save.lua counts those not 2xx.
    bad = re.findall(r"(?:Non-2xx or 3xx responses|bad answers): (\d+)", text)
    return {
        "rps": float(rps.group(1)),
        "p50": _ms(p50.group(1)),
        "p99": _ms(p99.group(1)),
        "requests": int(count.group(1)),
        "errors": max((int(b) for b in bad), default=0),
    }


def fetch(port, path, headers=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def csrf_pair(port, path):
    """(the CSRF cookie, the form's token) a phone gets with the game page at `path`."""
    status, headers, body = fetch(port, path)
    cookie = re.search(r"csrftoken=([^;]+)", " ".join(headers.get_all("Set-Cookie") or []))
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    if status != 200 or not cookie or not token:
        raise Broken(f"GET {path} answered {status} without a CSRF cookie or token")
    return cookie.group(1), token.group(1).decode()


def deal_save(name, port, saves, seconds, connections):
    """Deals posted by wrk (bench/deal_save.lua), each thread round its own share of games."""
    from tracker.models import Game

    cookie, token = csrf_pair(port, f"/g/{saves[0]['edit']}/")
    # Each game's revision now (the warm-up saved deals too): the first post's version.
    revisions = dict(
        Game.objects.filter(pk__in=[g["id"] for g in saves]).values_list("pk", "revision")
    )
    lines = [f"{g['edit']} {revisions[g['id']]}" for g in saves]
    config = OUT / "deal-save-config.txt"
    config.write_text("\n".join([cookie, token, *lines]) + "\n")
    if len(saves) < 2 * connections:
        raise Broken("deal-save: fewer than two games a connection; posts would meet and be stale")
    script_args = (config, min(2, connections))
    return wrk(name, port, "/", seconds, connections, (), BENCH / "deal_save.lua", script_args)


# -- the runs


def endpoints(games):
    """What each GET figure asks and what it must answer: name: (path, headers, status, needle)."""
    shown = games["shown"]
    fragment = f"/w/{shown['view']}/live/?v="
    return {
        "baseline": ("/bench/baseline/", (), 200, b"ok "),
        "unchanged-poll": (f"{fragment}{shown['revision']}", HTMX, 204, b""),
        "fresh-fragment": (f"{fragment}0", HTMX, 200, b'id="history"'),
        "fresh-page": (f"/g/{shown['edit']}/", (), 200, b'id="deal-entry"'),
    }


def load_tests(server, games, seconds, connections):
    """Every load figure: {name: figure}, the ratios to the baseline (by requests a
    second, and by requests per CPU-second of ours), the table cycle."""
    port = server.port
    asked = endpoints(games)
    for name, (path, headers, status, needle) in asked.items():
        got, _, body = fetch(port, path, dict(h.split(": ", 1) for h in headers))
        if got != status or needle not in body:
            raise Broken(f"{name}: GET {path} answered {got}, not {status} with {needle!r}")
        size = f"{len(body) / 1024:.1f} KB" if body else "no body"
        say(f"endpoint {name}: GET {path} -> {got}, {size}")
    say("endpoint deal-save: POST /g/<edit>/deal/ (htmx, CSRF) by wrk + bench/deal_save.lua")

    # Warm every worker (templates compiled, connections open) before the clock runs.
    for name, (path, headers, _, _) in asked.items():
        wrk(f"warmup-{name}", port, path, 1, connections, headers)
    deal_save("warmup-deal-save", port, games["saves"], 2, connections)

    def timed(name, start):
        cpu = {}
        with cpu_meter(server, cpu):
            figure = start()
        figure.update(cpu)
        errors = f", {figure['errors']} answers not 2xx" if figure["errors"] else ""
        say(
            f"load {name}: {figure['rps']:.0f} req/s, p50 {figure['p50']:.1f} ms, "
            f"p99 {figure['p99']:.1f} ms  [{figure['requests']} requests{errors}; CPU "
            f"{cpu['busy']:.0f} % busy, {cpu['others']:.0f} % not ours]"
        )
        return figure

    runs = {
        name: lambda n=name, p=path, h=headers: wrk(n, port, p, seconds, connections, h)
        for name, (path, headers, _, _) in asked.items()
        if name != "baseline"
    }
    runs["deal-save"] = lambda: deal_save("deal-save", port, games["saves"], seconds, connections)

    def baseline(n):
        path = asked["baseline"][0]
        return timed("baseline", lambda: wrk(f"baseline-{n}", port, path, seconds, connections))

    def per_cpu(figure):
        return figure["requests"] / max(0.01, figure["ours_s"])

    # The baseline runs before and after each figure, which is divided by the mean
    # of the two beside it: a shared machine's load drifts over a run.
    baselines = [baseline(1)]
    figures, ratios, cpu_ratios = {}, {}, {}
    for name, start in runs.items():
        figures[name] = timed(name, start)
        baselines.append(baseline(len(baselines) + 1))
        before, after = baselines[-2:]
        ratios[name] = figures[name]["rps"] / ((before["rps"] + after["rps"]) / 2)
        # The same by requests per CPU-second of ours: steadier when other sessions
        # take the CPU, so a busy machine shows as one.
        cpu_ratios[name] = per_cpu(figures[name]) / ((per_cpu(before) + per_cpu(after)) / 2)
    rates = [b["rps"] for b in baselines]
    say(f"baseline: {min(rates):.0f} to {max(rates):.0f} req/s over {len(rates)} runs")
    cycle = table_cycle(server, games["tables"], seconds)
    return figures, ratios, cpu_ratios, cycle


def table_cycle(server, tables, seconds):
    """bench/table_cycle.py: 1 save and 6 polls that must see it, at each of 12 tables.

    The figure is the server's CPU milliseconds a cycle (gunicorn's master and
    workers, from /proc), not counting what the phones' threads spend.
    """
    config = {
        "host": "127.0.0.1",
        "port": server.port,
        "games": [
            {"edit": g["edit"], "view": g["view"], "events": g["deals"], "revision": g["revision"]}
            for g in tables
        ],
        "duration": seconds,
        "seed": 13,
    }
    path = OUT / "table-cycle-config.json"
    path.write_text(json.dumps(config))
    cmd = [sys.executable, str(BENCH / "table_cycle.py"), str(path)]
    pipes = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process = subprocess.Popen(cmd, cwd=ROOT, text=True, **pipes)
    try:
        if process.stdout.readline().strip() != "ready":
            raise Broken(f"bench/table_cycle.py did not start: {process.stderr.read()[-500:]}")
        cpu = {}
        with cpu_meter(server, cpu):
            before = server_cpu_s(server)
            process.stdin.write("go\n")
            process.stdin.flush()
            out, err = process.communicate(timeout=seconds + 180)
            after = server_cpu_s(server)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    if process.returncode != 0 or not out.strip():
        raise Broken(f"bench/table_cycle.py exited {process.returncode}: {err[-500:]}")
    result = json.loads(out.strip().splitlines()[-1])
    if not result["cycles"]:
        raise Broken(f"table-cycle: no cycle finished: {result}")
    result["cpu_ms"] = (after - before) * 1000 / result["cycles"]
    errors = f"; errors: {'; '.join(result['errors'][:3])}" if result["errors"] else ""
    say(
        f"load table-cycle: {result['cycles_per_s']:.1f} cycles/s, {result['cpu_ms']:.1f} ms "
        f"server CPU a cycle  [{len(tables)} tables, {result['requests']} requests "
        f"{result['statuses']}; CPU {cpu['busy']:.0f} % busy, {cpu['others']:.0f} % not ours"
        f"{errors}]"
    )
    return result
