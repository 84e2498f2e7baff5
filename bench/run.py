"""`make bench`: load, growth and page-quality figures of the tracker, in one run.

    .venv/bin/python bench/run.py            # the full run (10 s per load test)
    .venv/bin/python bench/run.py --quick    # 3 s per load test, one Lighthouse pass
    .venv/bin/python bench/run.py --profile  # also pyinstrument profiles (bench/out/)
    .venv/bin/python bench/run.py --only lighthouse   # just Lighthouse, both languages

What it does, on a fresh SQLite database in a temporary folder:

1. Makes the games (in-process, through the ORM, under bench.settings): one
   points game of 6 players with 50 deals for the GET endpoints, 64 empty
   games for the deal saves, 12 games of 50 deals for the table cycle, and
   games of 10, 100 and 1,000 deals for the growth figures.
2. Times the game page of the 10/100/1,000-deal games in-process (Django's
   test client, the median of several renders) with a breakdown of where the
   time goes; runs bench/hands.py.
3. Starts gunicorn (sync workers) on 127.0.0.1 with the production settings
   plus one baseline view (bench/settings.py, bench/urls.py), and a second
   one whose cache never finds a rendered page (BENCH_FRESH=1, bench/fresh.py)
   for the fresh figures, and loads them from other processes: wrk
   (installed from Debian when missing, as root) for the GET endpoints and,
   with bench/deal_save.lua, the deal saves; bench/table_cycle.py for the
   table cycle. Each test runs --duration seconds at --connections
   connections.
4. Runs Lighthouse 12.2.3 (npm, into bench/node_modules) with Debian's
   chromium, mobile preset, on the home page, the new-game page, a game
   screen and a view link, each in English and in Hindi (Accept-Language: hi,
   the lines labelled "(hi)").
5. Prints a summary with PASS/FAIL per target.

Every figure is one line on stdout (and in bench/out/run.log); the raw
outputs (wrk, Lighthouse JSON, gunicorn's log) are kept in bench/out/.
Exits 0 whether or not a target is met (it is a measurement), non-zero when
the benchmark itself broke.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import random
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = BENCH / "out"
PYTHON = sys.executable
BIN = Path(PYTHON).parent
LIGHTHOUSE_VERSION = "12.2.3"
SECRET_KEY = "bench-only-not-a-secret-" + "0123456789abcdef" * 3
PLAYERS = ["Asha", "Ravi", "Meena", "Kiran", "Divya", "Arjun"]
DEALS_SHOWN = 50  # deals in the game the GET endpoints load
GROWTH = (10, 100, 1000)

# Targets: ratio of requests/second to the baseline's, in the same run.
# "cache-hit": the page of a revision some worker rendered already; "fresh":
# a revision no worker has rendered (the first request after a save).
RATIO_TARGETS = {
    "scoreboard-fragment": 0.60,
    "unchanged-poll": 0.90,
    "full-page": 0.40,
    "fresh-fragment": 0.35,
    "fresh-page": 0.20,
    "deal-save": 0.25,
}
LABELS = {"scoreboard-fragment": " (cache-hit)", "full-page": " (cache-hit)"}
CYCLE_CPU_MS = 20.0  # table-cycle: server CPU for 1 save + 6 polls that see it
SAVE_GAMES = 64  # games the deal saves go round (more than connections: rarely two on one)
TABLES = 12  # games at the table-cycle load at once, 4 editing phones and 2 watchers each
RENDER_1000_MS = 50.0
GROWTH_SLOPE_MAX = 1.10  # log-log slope from 100 to 1,000 deals: 1.0 is linear
LIGHTHOUSE_TARGETS = {"performance": 100, "accessibility": 100, "best-practices": 100}
FIRST_LOAD_KB = 40.0


# Every request asks for compressed answers, as a browser does.
BROWSER_ENCODING = "Accept-Encoding: gzip, deflate, br"


class Broken(Exception):
    """The benchmark itself could not run (not a missed target)."""


# ------------------------------------------------------------------ output

_log = None


def say(line=""):
    print(line, flush=True)
    if _log is not None:
        _log.write(line + "\n")
        _log.flush()


def run(cmd, **kwargs):
    kwargs.setdefault("cwd", ROOT)
    return subprocess.run(cmd, **kwargs)


# ------------------------------------------------------------------ set-up


def bench_env(database_url, cache_dir):
    """The environment of the server and of this process: production settings,
    plain HTTP on the loopback, a database and a cache folder of the benchmark's
    own (or the Redis that CACHE_URL names, when it is set)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "HTTPS", "SECURE_SSL_REDIRECT", "BEHIND_PROXY", "CONN_MAX_AGE")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=database_url,
        DEBUG="0",
        HTTPS="off",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        GAMES_PER_HOUR="1000000",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(ROOT),
        CACHE_DIR=str(cache_dir),
    )
    return env


def random_history(rng, deals, names=PLAYERS):
    """`deals` deals of a points game: a winner, points or a drop for the rest."""
    history = []
    for _ in range(deals):
        winner = rng.choice(names)
        results = {}
        for name in names:
            if name == winner:
                continue
            roll = rng.random()
            if roll < 0.1:
                results[name] = "first_drop"
            elif roll < 0.2:
                results[name] = "middle_drop"
            elif roll < 0.23:
                results[name] = "full_count"
            else:
                results[name] = rng.randint(2, 80)
        history.append({"type": "deal", "winner": winner, "results": results})
    return history


def make_games():
    from tracker.models import Game

    rng = random.Random(13)

    def game(deals, name):
        made = Game.create("points", {}, PLAYERS, None, name, random_history(rng, deals))
        return {
            "id": made.pk,
            "edit": made.edit_token,
            "view": made.view_token,
            "revision": made.revision,
            "deals": deals,
        }

    return {
        "shown": game(DEALS_SHOWN, f"Bench: {DEALS_SHOWN} deals"),
        "saves": [game(0, f"Bench: saves {i + 1}") for i in range(SAVE_GAMES)],
        "tables": [game(DEALS_SHOWN, f"Bench: table {i + 1}") for i in range(TABLES)],
        "growth": {n: game(n, f"Bench: {n} deals") for n in GROWTH},
    }


def machine_busy(seconds=2.0):
    """The share of the machine's CPU in use over a moment."""

    def sample():
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:9]]
        return sum(values), values[3] + values[4]

    total, idle = sample()
    time.sleep(seconds)
    total2, idle2 = sample()
    return 100 * (1 - (idle2 - idle) / max(1, total2 - total))


def wait_quiet(limit, busy_max=25.0):
    """Wait up to `limit` seconds for a machine others are not using (before the server starts)."""
    began = time.monotonic()
    busy = machine_busy()
    while busy > busy_max and time.monotonic() - began < limit:
        busy = machine_busy(5.0)
    waited = time.monotonic() - began
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    note = "" if busy <= busy_max else f"; still busy after {waited:.0f} s: figures are noisy"
    return f"machine before the load tests: {busy:.0f} % CPU busy (load average {load}){note}"


def machine_line():
    import sqlite3

    import django

    gunicorn = run([str(BIN / "gunicorn"), "--version"], capture_output=True, text=True)
    return (
        f"machine: {os.cpu_count()} cores {platform.machine()}, "
        f"{platform.freedesktop_os_release().get('PRETTY_NAME', platform.system())}, "
        f"Python {platform.python_version()}, Django {django.get_version()}, "
        f"SQLite {sqlite3.sqlite_version}, {(gunicorn.stdout or gunicorn.stderr).strip()}"
    )


# ------------------------------------------------------------------ growth


def median_ms(fn, repeat, warm=2):
    """The median CPU time of this process for one call of fn, in ms.

    CPU time, not the clock: other engineers' test runs on the same 2 cores
    stretch the clock, not the work. On a quiet machine the two agree.
    """
    for _ in range(warm):
        fn()
    times = []
    for _ in range(repeat):
        began = time.process_time()
        fn()
        times.append(time.process_time() - began)
    return statistics.median(times) * 1000


def growth(games, quick):
    """The game page of 10/100/1,000-deal games, in-process, and where its time goes."""
    from django.core.cache import cache
    from django.db import connection
    from django.template.loader import render_to_string
    from django.test import Client, RequestFactory

    from tracker import views
    from tracker.models import Game

    client = Client()
    factory = RequestFactory()
    figures = {}
    for n, made in games["growth"].items():
        url = f"/g/{made['edit']}/"
        response = client.get(url)
        if response.status_code != 200 or f"{n} deals played".encode() not in response.content:
            raise Broken(f"the {n}-deal game page answered {response.status_code}")
        repeat = {10: 30, 100: 20, 1000: 9}[n] // (3 if quick else 1) or 3

        def cold(url=url, found=cache.get):
            # Cold: nothing the app keeps in its cache (pages, states) is found.
            cache.get = lambda *args, **kwargs: None
            try:
                return client.get(url)
            finally:
                cache.get = found

        page = median_ms(cold, repeat)

        # The same work, step by step: read, replay, lay out, render the template.
        game = Game.by_link(made["edit"], True)
        request = factory.get(url)
        names, history = game.seat_names(), game.history()
        state = game.replay(history, names)
        context = views._game_context(game, state, True)
        steps = {
            "read": lambda game=game: (game.seat_names(), game.history()),
            "replay": lambda game=game, h=history, p=names: game.replay(h, p),
            "lay out": lambda game=game, s=state: views._game_context(game, s, True),
            "template": lambda c=context, r=request: render_to_string("tracker/game.html", c, r),
        }
        parts = {name: median_ms(fn, repeat) for name, fn in steps.items()}
        figures[n] = {"page_ms": page, "parts": parts, "bytes": len(response.content)}
        say(
            f"render {n} deals: {page:.1f} ms  (read {parts['read']:.1f}, "
            f"replay {parts['replay']:.1f}, lay out {parts['lay out']:.1f}, "
            f"template {parts['template']:.1f} ms; page {len(response.content) / 1024:.1f} KB)"
        )
    connection.close()
    t10, t100, t1000 = (figures[n]["page_ms"] for n in GROWTH)
    slope = math.log(t1000 / t100) / math.log(10)
    say(
        f"growth 10->100 deals: x{t100 / t10:.2f}; 100->1000 deals: x{t1000 / t100:.2f} "
        f"(log-log slope {slope:.2f}; 1.00 is linear)"
    )
    per_deal = (t1000 - t100) / 900 * 1000
    say(f"growth per added deal (100->1000): {per_deal:.1f} us")
    return {"figures": figures, "slope": slope, "t1000": t1000}


def hands():
    done = run([PYTHON, str(BENCH / "hands.py")], capture_output=True, text=True, timeout=600)
    for line in done.stdout.splitlines():
        say(line)
    if done.returncode != 0:
        raise Broken(f"bench/hands.py exited {done.returncode}: {done.stderr[-500:]}")
    (OUT / "hands.txt").write_text(done.stdout)


# ------------------------------------------------------------------ the server


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def gunicorn(env, workers, log_name="gunicorn.log"):
    port = free_port()
    log = OUT / log_name
    cmd = [
        str(BIN / "gunicorn"),
        "tracker.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--worker-class",
        "sync",
        "--error-logfile",
        str(log),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise Broken(f"gunicorn exited {process.returncode}: see {log}")
            try:
                with urllib.request.urlopen(f"{base}/bench/baseline/", timeout=5) as r:
                    if r.status == 200:
                        break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise Broken(f"gunicorn did not answer in 60 s: see {log}")
            time.sleep(0.2)
        yield port, process.pid
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


# ------------------------------------------------------------------ CPU accounting


def children_of(pid):
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def jiffies_of(pid):
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime


class CpuMeter:
    """How busy the machine was while a test ran, and how much of it was not us.

    Other sessions may run test suites on the same 2 cores: their share is
    printed beside each figure, so a noisy figure can be told from a slow one.
    """

    def __init__(self, *server_pids):
        self.server_pids = server_pids
        self.tick = os.sysconf("SC_CLK_TCK")

    def snapshot(self):
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:9]]
        total, idle = sum(values), values[3] + values[4]
        ours = sum(server_jiffies(pid) for pid in self.server_pids)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # wrk, table_cycle.py once done
        me = resource.getrusage(resource.RUSAGE_SELF)
        ours += (kids.ru_utime + kids.ru_stime + me.ru_utime + me.ru_stime) * self.tick
        return total, total - idle, ours

    @contextlib.contextmanager
    def measure(self, figure):
        before = self.snapshot()
        yield
        after = self.snapshot()
        total = max(1, after[0] - before[0])
        busy = (after[1] - before[1]) / total * 100
        others = max(0.0, busy - (after[2] - before[2]) / total * 100)
        figure["cpu_busy"], figure["cpu_others"] = busy, others
        figure["cpu_ours_s"] = (after[2] - before[2]) / self.tick


def fetch(port, path, headers=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# ------------------------------------------------------------------ wrk


def apt_install(package):
    if os.geteuid() != 0:
        return f"{package} is missing and this is not root: apt-get install -y {package}"
    say(f"installing Debian's {package} (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", package]
    done = run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        run(["apt-get", "update", "-q"], env=env, capture_output=True)
        done = run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not shutil.which(package):
        return f"apt-get install {package} failed: {done.stderr.strip()[-300:]}"
    return None


def ensure_wrk():
    if shutil.which("wrk"):
        return shutil.which("wrk")
    problem = apt_install("wrk")
    if problem:
        raise Broken(problem)
    return shutil.which("wrk")


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def to_ms(text):
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not match:
        raise Broken(f"cannot read wrk's latency {text!r}")
    return float(match.group(1)) * UNITS[match.group(2)]


def wrk(name, port, path, seconds, connections, headers=(), script=None, script_args=()):
    threads = min(2, connections)
    cmd = [
        shutil.which("wrk"),
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--timeout",
        "10s",
        "--latency",
    ]
    for header in (BROWSER_ENCODING, *headers):
        cmd += ["-H", header]
    if script:
        cmd += ["-s", str(script)]
    cmd.append(f"http://127.0.0.1:{port}{path}")
    if script_args:
        cmd += ["--", *(str(a) for a in script_args)]
    done = run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    (OUT / f"wrk-{name}.txt").write_text(" ".join(cmd) + "\n\n" + done.stdout + done.stderr)
    if done.returncode != 0:
        raise Broken(f"wrk exited {done.returncode}: {done.stderr.strip()[-300:]}")
    text = done.stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p50 = re.search(r"^\s+50%\s+(\S+)", text, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M)
    count = re.search(r"(\d+) requests in", text)
    if not (rps and p50 and p99 and count):
        raise Broken(f"cannot read wrk's output: see bench/out/wrk-{name}.txt")
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    bad_lua = re.search(r"bad answers: (\d+)", text)  # bench/deal_save.lua: not 2xx
    errors = int(bad.group(1)) if bad else 0
    if bad_lua:
        errors = max(errors, int(bad_lua.group(1)))
    socket_errors = re.search(r"Socket errors: (.*)", text)
    return {
        "rps": float(rps.group(1)),
        "p50": to_ms(p50.group(1)),
        "p99": to_ms(p99.group(1)),
        "requests": int(count.group(1)),
        "errors": errors,
        "socket_errors": socket_errors.group(1) if socket_errors else "",
        "tool": f"wrk -t{threads} -c{connections} -d{seconds}s",
    }


def csrf_pair(port, path):
    """(the CSRF cookie, the form's token) a browser gets with a game page."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
        cookies = r.headers.get_all("Set-Cookie") or []
        body = r.read().decode()
    cookie = next(
        (c.split(";", 1)[0].split("=", 1)[1] for c in cookies if c.startswith("csrftoken=")), None
    )
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    if not cookie or not token:
        raise Broken(f"GET {path}: no CSRF cookie or form token")
    return cookie, token.group(1)


def deal_save(name, port, games, seconds, connections):
    """Deals posted by wrk (bench/deal_save.lua), round-robin over the save games."""
    cookie, token = csrf_pair(port, f"/g/{games[0]['edit']}/")
    config = OUT / "deal-save-config.txt"
    from tracker.models import Game

    # Each game's revision now (the warm-up saved deals too): the version the
    # first post of each game sends.
    revisions = dict(
        Game.objects.filter(pk__in=[g["id"] for g in games]).values_list("pk", "revision")
    )
    lines = [f"{g['edit']} {revisions[g['id']]}" for g in games]
    config.write_text("\n".join([cookie, token, *lines]) + "\n")
    threads = min(2, connections)
    if len(games) < 2 * connections:
        raise Broken("deal-save: fewer than two games a connection; posts would meet and be stale")
    figure = wrk(
        name,
        port,
        "/",
        seconds,
        connections,
        script=BENCH / "deal_save.lua",
        script_args=(config, threads),
    )
    figure["tool"] += f" -s bench/deal_save.lua ({len(games)} games)"
    return figure


def server_jiffies(pid):
    return sum(jiffies_of(p) for p in [pid, *children_of(pid)])


def table_cycle(port, server_pid, games, seconds):
    """bench/table_cycle.py against the server; the server's own CPU per cycle."""
    config = {
        "host": "127.0.0.1",
        "port": port,
        "games": [
            {"edit": g["edit"], "view": g["view"], "events": g["deals"], "revision": g["revision"]}
            for g in games
        ],
        "duration": seconds,
        "seed": 13,
    }
    path = OUT / "table-cycle-config.json"
    path.write_text(json.dumps(config))
    cmd = [PYTHON, str(BENCH / "table_cycle.py"), str(path)]
    process = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready = process.stdout.readline().strip()
        if ready != "ready":
            raise Broken(
                f"bench/table_cycle.py did not start: {ready} {process.stderr.read()[-500:]}"
            )
        tick = os.sysconf("SC_CLK_TCK")
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:9]]
        machine_before = (sum(values), values[3] + values[4])
        before = server_jiffies(server_pid)
        process.stdin.write("go\n")
        process.stdin.flush()
        out, err = process.communicate(timeout=seconds + 180)
        after = server_jiffies(server_pid)
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:9]]
        total = max(1, sum(values) - machine_before[0])
        busy = 100 * (1 - (values[3] + values[4] - machine_before[1]) / total)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    (OUT / "table-cycle.json").write_text(out + err)
    if process.returncode != 0 or not out.strip():
        raise Broken(f"bench/table_cycle.py exited {process.returncode}: {err[-500:]}")
    result = json.loads(out.strip().splitlines()[-1])
    cycles = result["cycles"]
    if not cycles:
        raise Broken(f"table-cycle: no cycle finished: {result}")
    result["server_cpu_s"] = (after - before) / tick
    result["cpu_ms_per_cycle"] = result["server_cpu_s"] * 1000 / cycles
    result["cpu_busy"] = busy
    say(
        f"load table-cycle: {result['cycles_per_s']:.1f} cycles/s, "
        f"{result['cpu_ms_per_cycle']:.1f} ms server CPU per cycle (1 save + 6 polls)  "
        f"[{cycles} cycles of {len(games)} games in {result['seconds']:.1f} s, "
        f"{result['requests']} requests {result['statuses']}, "
        f"server CPU {result['server_cpu_s']:.1f} s from /proc (gunicorn master + workers); "
        f"CPU {busy:.0f} % busy"
        + (f"; errors: {'; '.join(result['errors'][:3])}" if result["errors"] else "")
        + "]"
    )
    return result


def show_load(name, figure):
    extra = f", {figure['errors']} errors" if figure["errors"] else ""
    sock = figure.get("socket_errors", "")
    if sock and not re.fullmatch(r"connect 0, read 0, write 0, timeout 0", sock):
        extra += f" (socket errors: {sock})"
    if "cpu_busy" in figure:
        extra += f"; CPU {figure['cpu_busy']:.0f} % busy, {figure['cpu_others']:.0f} % not ours"
        extra += f"; {figure['per_cpu_s']:.0f} requests per CPU-second of ours"
    say(
        f"load {name}: {figure['rps']:.1f} req/s, p50 {figure['p50']:.1f} ms, "
        f"p99 {figure['p99']:.1f} ms  [{figure['requests']} requests, {figure['tool']}{extra}]"
    )


def load_tests(ports, games, seconds, connections, meter):
    """Every load figure: `ports` = {"main": (port, pid), "fresh": (port, pid)}."""
    port, server_pid = ports["main"]
    fresh_port = ports["fresh"][0]
    shown = games["shown"]
    htmx = ("HX-Request: true",)
    # What each GET answers, checked before it is timed: (server, path, headers, status, needle).
    fragment = f"/w/{shown['view']}/live/?v=0"
    checks = {
        "baseline": (port, "/bench/baseline/", (), 200, b"ok "),
        "scoreboard-fragment": (port, fragment, htmx, 200, b'id="history"'),
        "unchanged-poll": (
            port,
            f"/w/{shown['view']}/live/?v={shown['revision']}",
            htmx,
            204,
            b"",
        ),
        "full-page": (port, f"/g/{shown['edit']}/", (), 200, b'id="deal-entry"'),
        "fresh-fragment": (fresh_port, fragment, htmx, 200, b'id="history"'),
        "fresh-page": (fresh_port, f"/g/{shown['edit']}/", (), 200, b'id="deal-entry"'),
    }
    for name, (at, path, headers, status, needle) in checks.items():
        got, body = fetch(at, path, dict(h.split(": ", 1) for h in headers))
        if got != status or needle not in body:
            raise Broken(f"{name}: GET {path} answered {got}, not {status} with {needle!r}")
        size = f"{len(body) / 1024:.1f} KB" if body else "no body"
        server = "fresh server (no rendered page is found)" if at == fresh_port else "server"
        say(f"endpoint {name}{LABELS.get(name, '')}: GET {path} -> {got}, {size} [{server}]")
    say(
        f"endpoint deal-save: POST /g/<edit token>/deal/ -> 200, wrk + bench/deal_save.lua "
        f"round {len(games['saves'])} games"
    )
    say(
        f"endpoint table-cycle: {len(games['tables'])} games of {DEALS_SHOWN} deals, "
        "4 editing phones + 2 watchers each: 1 save, then 6 polls that must get the new board"
    )

    # Warm every worker's caches (templates, connections) before the clock runs.
    for name, (at, path, headers, _, _) in checks.items():
        wrk(f"warmup-{name}", at, path, 1, connections, headers)
    deal_save("warmup-deal-save", port, games["saves"], 2, connections)

    def timed(name, start):
        holder = {}
        with meter.measure(holder):
            figure = start()
        figure.update(holder)
        figure["per_cpu_s"] = figure["requests"] / max(0.01, figure["cpu_ours_s"])
        show_load(name + LABELS.get(name, ""), figure)
        return figure

    # The baseline runs first and again last; the ratios are to the mean of the
    # two, so a drift of the machine over the run weighs on no figure alone.
    figures = {}
    for name, (at, path, headers, _, _) in checks.items():
        figures[name] = timed(
            name,
            lambda n=name, a=at, p=path, h=headers: wrk(n, a, p, seconds, connections, h),
        )
    figures["deal-save"] = timed(
        "deal-save", lambda: deal_save("deal-save", port, games["saves"], seconds, connections)
    )
    cycle = table_cycle(port, server_pid, games["tables"], seconds)
    figures["baseline-again"] = timed(
        "baseline (again, last)",
        lambda: wrk("baseline-again", port, "/bench/baseline/", seconds, connections),
    )

    first, last = figures["baseline"]["rps"], figures["baseline-again"]["rps"]
    base = (first + last) / 2
    say(
        f"baseline for the ratios: {base:.1f} req/s (mean of first and last; "
        f"drift {abs(last - first) / base * 100:.1f} %)"
    )
    ratios = {}
    for name in RATIO_TARGETS:
        ratios[name] = figures[name]["rps"] / base
        bad = figures[name]["errors"]
        note = f"  (FAILED: {bad} answers not 2xx)" if bad else ""
        say(f"ratio {name}{LABELS.get(name, '')}: {ratios[name]:.3f}{note}")
    say(
        f"table-cycle: {cycle['cycles_per_s']:.1f} cycles/s, "
        f"server CPU per cycle: {cycle['cpu_ms_per_cycle']:.1f} ms"
    )
    # The same ratios per CPU-second spent by the server and the load generator:
    # steadier than requests/second when other processes share the machine.
    per_cpu = (figures["baseline"]["per_cpu_s"] + figures["baseline-again"]["per_cpu_s"]) / 2
    for name in RATIO_TARGETS:
        say(f"cpu-ratio {name}: {figures[name]['per_cpu_s'] / per_cpu:.2f}")
    return figures, ratios, cycle


# ------------------------------------------------------------------ Lighthouse


def ensure_lighthouse():
    """The Lighthouse command, or (None, why not)."""
    binary = BENCH / "node_modules" / ".bin" / "lighthouse"
    npm = shutil.which("npm")
    if not binary.exists():
        if not npm:
            return None, "npm is missing (Debian: apt-get install -y npm)"
        say(f"installing lighthouse@{LIGHTHOUSE_VERSION} (npm, into bench/node_modules)")
        lock = (BENCH / "package-lock.json").exists()
        cmd = [npm, "ci" if lock else "install", "--no-audit", "--no-fund", "--loglevel=error"]
        done = run(cmd, cwd=BENCH, capture_output=True, text=True)
        if done.returncode != 0 or not binary.exists():
            return None, f"npm could not install lighthouse: {done.stderr.strip()[-300:]}"
    version = run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()
    if version != LIGHTHOUSE_VERSION:
        return None, f"bench/node_modules has lighthouse {version}, not {LIGHTHOUSE_VERSION}"
    if not shutil.which("chromium"):
        problem = apt_install("chromium")
        if problem:
            return None, problem
    return str(binary), None


# The languages each page is measured in: English (the browser's default) and
# Hindi, asked for as a Hindi phone asks (Accept-Language), not by the switch.
LIGHTHOUSE_LANGUAGES = {"": None, " (hi)": {"Accept-Language": "hi"}}


def lighthouse_once(binary, url, path, headers=None):
    env = {**os.environ, "CHROME_PATH": shutil.which("chromium")}
    cmd = [
        binary,
        url,
        "--quiet",
        "--output=json",
        f"--output-path={path}",
        "--only-categories=performance,accessibility,best-practices",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
    ]
    if headers:
        cmd.append(f"--extra-headers={json.dumps(headers)}")
    done = run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not path.exists():
        raise Broken(f"lighthouse {url} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    report = json.loads(path.read_text())
    if report.get("runtimeError"):
        raise Broken(f"lighthouse {url}: {report['runtimeError']}")
    scores = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
    weight = report["audits"]["total-byte-weight"]["numericValue"] / 1024
    failed = [
        audit_id
        for category in report["categories"].values()
        for ref in category["auditRefs"]
        if ref.get("weight")
        for audit_id in [ref["id"]]
        if (report["audits"][audit_id].get("score") is not None)
        and report["audits"][audit_id]["score"] < 1
    ]
    return scores, weight, failed


def lighthouse(port, games, runs):
    binary, problem = ensure_lighthouse()
    if problem:
        say(f"lighthouse: not run: {problem}")
        return None
    version = run(["chromium", "--version"], capture_output=True, text=True).stdout.strip()
    say(f"lighthouse {LIGHTHOUSE_VERSION}, {version}, mobile preset, median of {runs} run(s)")
    shown = games["shown"]
    pages = {
        "home": "/",
        "new-game": "/new/",
        "game-screen": f"/g/{shown['edit']}/",
        "view-link": f"/w/{shown['view']}/",
    }
    results = {}
    measured = [
        (page + language, path, headers)
        for language, headers in LIGHTHOUSE_LANGUAGES.items()
        for page, path in pages.items()
    ]
    for name, path, headers in measured:
        passes = []
        tries = 0
        while len(passes) < runs and tries < runs + 3:
            tries += 1
            slug = name.replace(" (hi)", "-hi")
            out = OUT / f"lighthouse-{slug}-{len(passes) + 1}.json"
            out.unlink(missing_ok=True)
            url = f"http://127.0.0.1:{port}{path}"
            try:
                passes.append(lighthouse_once(binary, url, out, headers))
            except (Broken, subprocess.TimeoutExpired) as error:
                # Chromium now and then loses the trace (NO_NAVSTART): try again.
                say(f"lighthouse {name}: try {tries} failed, retrying: {error}")
        if not passes:
            say(f"lighthouse {name}: no run finished")
            continue
        scores = {
            key: int(statistics.median(p[0][key] for p in passes)) for key in LIGHTHOUSE_TARGETS
        }
        weight = statistics.median(p[1] for p in passes)
        lowest = " ".join(f"{k} {min(p[0][k] for p in passes)}" for k in LIGHTHOUSE_TARGETS)
        failed = sorted({a for p in passes for a in p[2]})
        results[name] = {"scores": scores, "kb": weight}
        say(
            f"lighthouse {name}: performance {scores['performance']}, "
            f"accessibility {scores['accessibility']}, "
            f"best-practices {scores['best-practices']}; "
            f"transferred {weight:.1f} KB  [{path}; lowest: {lowest}]"
        )
        if failed:
            say(f"lighthouse {name}: audits below full marks: {', '.join(failed)}")
    return results


# ------------------------------------------------------------------ profiles


def profiles(games, count):
    """pyinstrument profiles of the measured endpoints, in-process (bench/out/profile-*)."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        say("profile: pyinstrument is missing (.venv/bin/pip install pyinstrument): skipped")
        return
    from django.db import connection
    from django.test import Client

    shown = games["shown"]
    client = Client(HTTP_HX_REQUEST="true")
    plain = Client()
    from tracker.models import Game

    rng = random.Random(7)
    version = [0]
    saving = [None]

    def save():
        # A fresh game every 60 deals: about what each connection of the load test saves.
        if version[0] % 60 == 0:
            saving[0] = Game.create("points", {}, PLAYERS, None, "Bench: profile saves")
            version[0] = 0
        save_game = saving[0]
        deal = random_history(rng, 1)[0]
        form = {"version": str(version[0]), "winner": str(PLAYERS.index(deal["winner"]) + 1)}
        for name, result in deal["results"].items():
            seat = PLAYERS.index(name) + 1
            kind = result if isinstance(result, str) else "points"
            form[f"r{seat}"] = kind
            form[f"p{seat}"] = "" if isinstance(result, str) else str(result)
        response = client.post(f"/g/{save_game.edit_token}/deal/", form)
        if response.status_code != 200:
            raise Broken(f"profile: deal save answered {response.status_code}")
        version[0] += 1

    from django.core.cache import cache

    from bench.fresh import PAGE_KEYS

    found = cache.get

    def fresh(fn):
        """fn as the fresh server answers it: no rendered page is found."""

        def call():
            cache.get = lambda key, *a, **k: (
                None if key.startswith(PAGE_KEYS) else found(key, *a, **k)
            )
            try:
                return fn()
            finally:
                cache.get = found

        return call

    fragment = lambda: client.get(f"/w/{shown['view']}/live/?v=0")  # noqa: E731
    page = lambda: plain.get(f"/g/{shown['edit']}/")  # noqa: E731
    targets = {
        "baseline": lambda: plain.get("/bench/baseline/"),
        "scoreboard-fragment": fragment,
        "full-page": page,
        "fresh-fragment": fresh(fragment),
        "fresh-page": fresh(page),
        "deal-save": save,
    }
    for name, fn in targets.items():
        for _ in range(5):
            fn()
        profiler = Profiler(interval=0.0005)
        began = time.perf_counter()
        profiler.start()
        for _ in range(count):
            fn()
        profiler.stop()
        each = (time.perf_counter() - began) / count * 1000
        text = profiler.output_text(unicode=False, color=False, show_all=False)
        (OUT / f"profile-{name}.txt").write_text(text)
        (OUT / f"profile-{name}.html").write_text(profiler.output_html())
        say(f"profile {name}: {each:.2f} ms a request in-process -> bench/out/profile-{name}.txt")
    connection.close()


# ------------------------------------------------------------------ summary


def summary(results):
    say()
    say("summary:")
    rows = []
    ratios = results.get("ratios") or {}
    load = results.get("load") or {}
    for name, target in RATIO_TARGETS.items() if "ratios" in results else ():
        label = name + LABELS.get(name, "")
        if name in ratios:
            bad = load.get(name, {}).get("errors", 0)
            ok = ratios[name] >= target and not bad
            note = f" ({bad} answers not 2xx)" if bad else ""
            rows.append((ok, f"ratio {label}: {ratios[name]:.3f} >= {target}{note}"))
        else:
            rows.append((None, f"ratio {label}: not measured"))
    cycle = results.get("cycle")
    if cycle:
        ms = cycle["cpu_ms_per_cycle"]
        bad = len(cycle["errors"])
        note = f" ({bad} wrong answers)" if bad else ""
        rows.append(
            (
                ms <= CYCLE_CPU_MS and not bad,
                f"table-cycle server CPU: {ms:.1f} ms <= {CYCLE_CPU_MS:.0f}{note}",
            )
        )
    grown = results.get("growth")
    if grown:
        t = grown["t1000"]
        rows.append((t < RENDER_1000_MS, f"render 1000 deals: {t:.1f} ms < {RENDER_1000_MS:.0f}"))
        s = grown["slope"]
        rows.append(
            (s <= GROWTH_SLOPE_MAX, f"growth 100->1000 slope {s:.2f} <= {GROWTH_SLOPE_MAX}")
        )
    pages = results.get("lighthouse")
    if pages is None:
        rows.append((None, "lighthouse: not run"))
    else:
        for page, found in pages.items():
            for key, target in LIGHTHOUSE_TARGETS.items():
                got = found["scores"][key]
                rows.append((got >= target, f"lighthouse {page} {key}: {got} >= {target}"))
        for page in ("game-screen", "view-link", "game-screen (hi)", "view-link (hi)"):
            if page in pages:
                kb = pages[page]["kb"]
                rows.append(
                    (kb < FIRST_LOAD_KB, f"{page} first load: {kb:.1f} KB < {FIRST_LOAD_KB:.0f}")
                )
    for ok, text in rows:
        say(f"{'PASS' if ok else ('FAIL' if ok is False else 'SKIP')} {text}")
    missed = sum(1 for ok, _ in rows if ok is False)
    say(f"targets: {sum(1 for ok, _ in rows if ok)} met, {missed} missed")


def push(quick):
    """bench/push.py: the pushed updates' `push NAME: X` lines (issue 30), on its own servers."""
    say()
    cmd = [PYTHON, str(BENCH / "push.py"), *(["--quick"] if quick else [])]
    done = run(cmd, capture_output=True, text=True, timeout=3600)
    for line in done.stdout.splitlines():
        say(line)
    if done.returncode != 0:
        say(f"push: bench/push.py exited {done.returncode}: {done.stderr.strip()[-500:]}")


# ------------------------------------------------------------------ main


def main(argv=None):
    global _log
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 s per load test, 1 Lighthouse run")
    parser.add_argument("--duration", type=int, help="seconds per load test (default 10; 3 quick)")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--workers",
        type=int,
        default=2 * (os.cpu_count() or 1) + 1,
        help="gunicorn sync workers (default: as `make run`, 2 x cores + 1)",
    )
    parser.add_argument("--lighthouse-runs", type=int, help="runs per page (default 3; 1 quick)")
    parser.add_argument("--no-lighthouse", action="store_true")
    parser.add_argument(
        "--only",
        choices=["lighthouse"],
        help="run just this part: lighthouse = the games, one server and Lighthouse",
    )
    parser.add_argument("--profile", action="store_true", help="pyinstrument profiles too")
    parser.add_argument(
        "--quiet-wait",
        type=int,
        default=120,
        help="seconds to wait for other processes to leave the CPU before the load tests",
    )
    args = parser.parse_args(argv)
    seconds = args.duration or (3 if args.quick else 10)
    runs = args.lighthouse_runs or (1 if args.quick else 3)

    OUT.mkdir(parents=True, exist_ok=True)
    _log = (OUT / "run.log").open("w")
    tmp = Path(tempfile.mkdtemp(prefix="rummy-bench-"))
    database_url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    env = bench_env(database_url, tmp / "cache")
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    results = {}
    try:
        import django
        from django.core.management import call_command

        django.setup()
        say(f"date: {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}")
        say(machine_line())
        from django.conf import settings

        cache = settings.CACHES["default"]
        say(
            f"setup: bench.settings (production settings + /bench/baseline/), DEBUG=0, "
            f"SQLite WAL at {tmp}, gunicorn {args.workers} sync workers, "
            f"{args.connections} connections, {seconds} s per load test, "
            f"shared cache {cache['BACKEND'].rsplit('.', 1)[1]} at {cache['LOCATION']}"
        )
        call_command("migrate", "--noinput", verbosity=0)
        call_command("collectstatic", "--noinput", "--clear", verbosity=0)
        games = make_games()
        from django.db import connections

        connections.close_all()

        if args.only == "lighthouse":
            say(wait_quiet(args.quiet_wait))
            with gunicorn(env, args.workers) as (port, _):
                results["lighthouse"] = lighthouse(port, games, runs)
            summary(results)
            (OUT / "results.json").write_text(json.dumps(results, indent=2, default=str))
            return 0

        say()
        results["growth"] = growth(games, args.quick)
        hands()
        results["table"] = __import__("bench.table", fromlist=["measure"]).measure(say, args.quick)
        if args.profile:
            profiles(games, 100 if args.quick else 400)
        connections.close_all()

        say()
        ensure_wrk()
        wrk_version = run(["wrk", "-v"], capture_output=True, text=True)
        say((wrk_version.stdout + wrk_version.stderr).strip().splitlines()[0])
        say(wait_quiet(args.quiet_wait))
        fresh_env = {**env, "BENCH_FRESH": "1"}
        with (
            gunicorn(env, args.workers) as (port, pid),
            gunicorn(fresh_env, args.workers, "gunicorn-fresh.log") as fresh,
        ):
            meter = CpuMeter(pid, fresh[1])
            ports = {"main": (port, pid), "fresh": fresh}
            figures, ratios, cycle = load_tests(ports, games, seconds, args.connections, meter)
            results["load"], results["ratios"], results["cycle"] = figures, ratios, cycle
            say()
            if args.no_lighthouse:
                say("lighthouse: not run (--no-lighthouse)")
                results["lighthouse"] = None
            else:
                results["lighthouse"] = lighthouse(port, games, runs)
        for name in ("gunicorn.log", "gunicorn-fresh.log"):
            log = OUT / name
            if log.exists() and "Traceback" in log.read_text():
                say(f"warning: gunicorn logged a traceback: see bench/out/{name}")
        summary(results)
        (OUT / "results.json").write_text(json.dumps(results, indent=2, default=str))
        push(args.quick)
        return 0
    except Broken as error:
        say(f"BENCHMARK BROKEN: {error}")
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        _log.close()


if __name__ == "__main__":
    sys.exit(main())
