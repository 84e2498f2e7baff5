"""Pushed updates (issue 30): `make bench`'s `push NAME: X` lines, measured side by side.

    .venv/bin/python bench/push.py            # the full run, about 8 minutes
    .venv/bin/python bench/push.py --quick    # shorter windows, 2,000 streams

On a fresh SQLite database in a temporary folder (bench.settings: the
production settings plus /bench/baseline/), with `make run`'s server:
tracker/asgi.py on gunicorn's ASGI worker, 2 x cores + 1 workers, the embedded
fan-out (Unix datagrams, no extra server). Everything on 127.0.0.1; the load
generator is this process (asyncio, raw sockets) and shares the 2 cores with
the server: the figures are what one 2-core machine does with both.

1. plain endpoints: the one-row baseline, the unchanged poll, a fresh page and
   the deal save, by wrk, on the sync worker and on the ASGI worker in turn:
   each ASGI figure as a share of the sync worker's (>= 0.85).
2. 1,000 phones (167 tables of 6: 4 editing, 2 watching), a deal a table
   every 2 minutes: the server's CPU with every phone polling every 2 s as
   today (the sync worker; and for comparison on the ASGI worker), and with
   every phone holding a stream and fetching its board after an event (<= 1/15
   of polling today). Everything the server does counts: the saves, the polls
   or the events, the fetches, the heartbeats.
3. 10,000 streams held for 60 s (1,667 tables of 6): the server's memory per
   stream (RSS growth / streams, <= 32 KiB), none dropped, and with them held,
   save -> all 6 phones of a table told (the event received), p95 <= 100 ms and
   p99 <= 250 ms, and p95 <= 2 x a bare ASGI broadcast (bench/push_bare.py)
   holding as many streams on the same workers.

Every load is bounded in time; the open-files limit is raised by this process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import run as base  # noqa: E402

OUT = base.OUT
BIN = base.BIN
WORKERS = 2 * (os.cpu_count() or 1) + 1  # as `make run`
ASGI = ["tracker.asgi:application", "--worker-class", "asgi"]
SYNC = ["tracker.wsgi:application", "--worker-class", "sync"]
BARE = ["bench.push_bare:application", "--worker-class", "asgi"]
PHONES = 6  # a table: 4 editing phones, 2 watching
EDITING = 4
TARGETS = {
    "latency_p95_ms": 100.0,
    "latency_p99_ms": 250.0,
    "bare_factor": 2.0,
    "streams": 10_000,
    "kib_per_stream": 32.0,
    "cpu_share": 1 / 15,
    "endpoint_share": 0.85,
}
HTMX = ("HX-Request: true",)
SAVE_EVERY = 0.5  # seconds between the saves timed while the streams are held

_log = None


def say(line=""):
    print(line, flush=True)
    if _log is not None:
        _log.write(line + "\n")
        _log.flush()


# ------------------------------------------------------------------ servers


def rss_kib(pids):
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def cpu_seconds(pid):
    return sum(base.jiffies_of(p) for p in [pid, *base.children_of(pid)]) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def server(env, app, log_name, ready="/bench/baseline/", workers=WORKERS):
    """gunicorn on 127.0.0.1 and a free port: (port, master pid), answering."""
    port = base.free_port()
    cmd = [
        str(BIN / "gunicorn"),
        *app,
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--graceful-timeout",
        "3",
        "--error-logfile",
        str(OUT / log_name),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                raise base.Broken(f"gunicorn {app[0]} exited: see bench/out/{log_name}")
            try:
                status, _ = base.fetch(port, ready)
                if status < 500 and len(base.children_of(process.pid)) == workers:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise base.Broken(f"gunicorn {app[0]} did not answer in 90 s")
            time.sleep(0.2)
        yield port, process.pid
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


# ------------------------------------------------------------------ an HTTP client


class Connection:
    """One kept-alive HTTP/1.1 connection, one request at a time."""

    def __init__(self, port, cookie=""):
        self.port = port
        self.cookie = cookie
        self.reader = self.writer = None

    async def request(self, method, path, headers=(), body=b""):
        """(status, body). A kept-alive connection the server closed meanwhile (its
        keep-alive timeout) is opened again, as a browser does."""
        try:
            return await self._request(method, path, headers, body)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.close()
            return await self._request(method, path, headers, body)

    async def _request(self, method, path, headers, body):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", *headers]
        if self.cookie:
            lines.append(f"Cookie: {self.cookie}")
        if body:
            lines.append("Content-Type: application/x-www-form-urlencoded")
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        fields = {}
        for line in head.split(b"\r\n")[1:]:
            if b":" in line:
                name, value = line.split(b":", 1)
                fields[name.strip().lower()] = value.strip()
        if b"content-length" in fields:
            content = await self.reader.readexactly(int(fields[b"content-length"]))
        elif fields.get(b"transfer-encoding", b"").lower() == b"chunked":
            content = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                content += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
        else:
            content = b""
        if fields.get(b"connection", b"").lower() == b"close":
            self.close()
        return status, content

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


EVENT = re.compile(rb"data: (\d+)\n\n")
BEAT = b"\r\n:\n\n"


class Stream:
    """One phone's stream: calls `heard(revision, when)` for each event."""

    def __init__(self, port, path, heard=None):
        self.port, self.path, self.heard = port, path, heard
        self.beats = 0
        self.events = 0
        self.closed = False
        self.opened = asyncio.get_running_loop().create_future()
        self.task = None

    async def run(self):
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError as error:
            self.closed = True
            if not self.opened.done():
                self.opened.set_exception(error)
            return
        try:
            writer.write(
                f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Accept: text/event-stream\r\n\r\n".encode()
            )
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise base.Broken(f"{self.path}: {head[:80]!r}")
            buffer = b""
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                now = time.monotonic()
                buffer += data
                self.beats += buffer.count(BEAT)
                for found in EVENT.finditer(buffer):
                    self.events += 1
                    if not self.opened.done():
                        self.opened.set_result(int(found[1]))
                    elif self.heard is not None:
                        self.heard(int(found[1]), now)
                end = buffer.rfind(b"\n\n")
                buffer = buffer[end + 2 :] if end >= 0 else buffer
        except (OSError, asyncio.IncompleteReadError, base.Broken) as error:
            if not self.opened.done():
                self.opened.set_exception(error)
        finally:
            self.closed = True
            writer.close()

    def start(self):
        self.task = asyncio.ensure_future(self.run())
        return self.opened


async def open_streams(streams, at_once=200):
    gate = asyncio.Semaphore(at_once)

    async def one(stream):
        async with gate:
            return await stream.start()

    return await asyncio.gather(*(one(s) for s in streams))


async def close_streams(streams):
    for stream in streams:
        if stream.task is not None:
            stream.task.cancel()
    await asyncio.gather(*(s.task for s in streams if s.task), return_exceptions=True)


# ------------------------------------------------------------------ games and deals


def make_tables(count, rng, deals=3):
    """`count` points games of six players: {"id", "edit", "view", "revision"}."""
    from django.db import transaction

    from tracker.models import Game

    made = []
    with transaction.atomic():
        for i in range(count):
            history = base.random_history(rng, deals)
            game = Game.create("points", {}, base.PLAYERS, None, f"Push {i + 1}", history)
            made.append(
                {"id": game.pk, "edit": game.edit_token, "view": game.view_token, "revision": deals}
            )
    return made


def deal_form(rng, version, csrf):
    deal = base.random_history(rng, 1)[0]
    form = {"version": str(version), "csrfmiddlewaretoken": csrf}
    form["winner"] = str(base.PLAYERS.index(deal["winner"]) + 1)
    for name, result in deal["results"].items():
        seat = base.PLAYERS.index(name) + 1
        form[f"r{seat}"] = result if isinstance(result, str) else "points"
        form[f"p{seat}"] = "" if isinstance(result, str) else str(result)
    return urllib.parse.urlencode(form).encode()


def phone_paths(table, phone):
    """(the page's board poll path without ?v, the stream path) of phone 0-5 of a table."""
    link, token = ("g", table["edit"]) if phone < EDITING else ("w", table["view"])
    return f"/{link}/{token}/live/", f"/{link}/{token}/stream"


REVISION = re.compile(rb'data-revision="(\d+)"')


def shown_in(content, otherwise):
    found = REVISION.search(content)
    return int(found[1]) if found else otherwise


# ------------------------------------------------------------------ 1. plain endpoints


def endpoints(env, games, seconds, connections):
    """The ASGI worker's req/s as a share of the sync worker's, endpoint by endpoint."""
    shown = games["shown"]
    fresh_env = {**env, "BENCH_FRESH": "1"}
    figures = {}
    with (
        server(env, SYNC, "push-sync.log") as sync,
        server(fresh_env, SYNC, "push-sync-fresh.log") as sync_fresh,
        server(env, ASGI, "push-asgi.log") as asgi,
        server(fresh_env, ASGI, "push-asgi-fresh.log") as asgi_fresh,
    ):
        runs = {
            "one-row baseline": (False, "/bench/baseline/", ()),
            "unchanged poll": (False, f"/w/{shown['view']}/live/?v={shown['revision']}", HTMX),
            "fresh page": (True, f"/g/{shown['edit']}/", ()),
        }
        for name, (fresh, path, headers) in runs.items():
            for kind, (port, pid) in (
                ("sync", sync_fresh if fresh else sync),
                ("asgi", asgi_fresh if fresh else asgi),
            ):
                base.wrk(f"push-warm-{kind}", port, path, 1, connections, headers)
                before = cpu_seconds(pid)
                got = base.wrk(f"push-{kind}-{name}", port, path, seconds, connections, headers)
                got["cpu"] = cpu_seconds(pid) - before
                figures[(name, kind)] = got
        cookie, csrf = csrf_for(sync[0], games["saves"][0])
        for kind, (port, pid) in (("sync", sync), ("asgi", asgi)):
            asyncio.run(save_load(port, games["saves"], 1, connections, cookie, csrf))
            before = cpu_seconds(pid)
            got = asyncio.run(save_load(port, games["saves"], seconds, connections, cookie, csrf))
            got["cpu"] = cpu_seconds(pid) - before
            figures[("deal save", kind)] = got
    shares = {}
    for name in ("one-row baseline", "unchanged poll", "fresh page", "deal save"):
        sync_fig, asgi_fig = figures[(name, "sync")], figures[(name, "asgi")]
        share = asgi_fig["rps"] / sync_fig["rps"]
        per_cpu = (asgi_fig["requests"] / max(0.01, asgi_fig["cpu"])) / (
            sync_fig["requests"] / max(0.01, sync_fig["cpu"])
        )
        bad = sync_fig["errors"] + asgi_fig["errors"]
        shares[name] = (share, bad)
        say(
            f"push endpoint {name}: ASGI worker {asgi_fig['rps']:.0f} req/s, sync worker "
            f"{sync_fig['rps']:.0f} req/s: {share:.2f} of the sync worker's (per server "
            f"CPU-second: {per_cpu:.2f}){f'; {bad} answers not 2xx' if bad else ''}"
        )
    return shares


async def save_load(port, games, seconds, connections, cookie, csrf):
    """Deals posted as fast as the server takes them, as the page's htmx form posts them.

    Each connection has games of its own and posts its next deal once the last
    is answered, as a phone does: wrk's bench/deal_save.lua sends a game's next
    post whatever became of the last, which the ASGI worker (taking every
    connection's request at once) may not have saved yet: it would be stale."""
    rng = random.Random(5)
    counts = {"requests": 0, "errors": 0}
    deadline = time.monotonic() + seconds

    async def one(mine):
        connection = Connection(port, cookie)
        k = 0
        while time.monotonic() < deadline:
            game = mine[k % len(mine)]
            body = deal_form(rng, game["revision"], csrf)
            status, _ = await connection.request("POST", f"/g/{game['edit']}/deal/", HTMX, body)
            counts["requests"] += 1
            if status == 200:
                game["revision"] += 1
            else:
                counts["errors"] += 1
            k += 1
        connection.close()

    began = time.monotonic()
    await asyncio.gather(*(one(games[c::connections]) for c in range(connections)))
    took = time.monotonic() - began
    return {"rps": counts["requests"] / took, **counts}


# ------------------------------------------------------------------ 2. 1,000 phones


class Table:
    """A table of six phones on one game, scored by phone 0 at its times."""

    def __init__(self, game, port, cookie, csrf, rng, save_times):
        self.game = game
        self.port, self.cookie, self.csrf, self.rng = port, cookie, csrf, rng
        self.revision = game["revision"]
        self.save_times = save_times
        self.shown = [game["revision"]] * PHONES
        # One kept-alive connection a phone for its board, and one more for phone 0's saves.
        self.connections = [Connection(port, cookie) for _ in range(PHONES + 1)]
        self.saving = False
        self.fetching = set()
        self.busy = [False] * PHONES
        self.errors = []
        self.polls = 0  # polls answered before the window closed
        self.until = float("inf")

    async def save(self, connection):
        body = deal_form(self.rng, self.revision, self.csrf)
        self.saving = True
        try:
            status, content = await connection.request(
                "POST", f"/g/{self.game['edit']}/deal/", HTMX, body
            )
        finally:
            self.saving = False
        if status != 200:
            self.errors.append(f"save {status}")
            return
        self.revision += 1
        self.shown[0] = shown_in(content, self.revision)

    async def fetch(self, phone):
        poll, _ = phone_paths(self.game, phone)
        status, content = await self.connections[phone].request(
            "GET", f"{poll}?v={self.shown[phone]}", HTMX
        )
        if status == 200:
            self.shown[phone] = shown_in(content, self.shown[phone])
        elif status != 204:
            self.errors.append(f"fetch {status}")
        if time.monotonic() <= self.until:
            self.polls += 1

    async def fetch_until_shown(self, phone, latest):
        """As the page does: fetch the board, and again if the stream said more meanwhile."""
        self.busy[phone] = True
        try:
            while latest[phone] != self.shown[phone]:
                before = self.shown[phone]
                await self.fetch(phone)
                if self.shown[phone] == before:
                    break  # 204: nothing newer than what is shown
        finally:
            self.busy[phone] = False

    async def polling(self, phone, began, until):
        """Today's page: a poll every 2 s; phone 0 also saves at the table's times."""
        tick = began + random.random() * 2
        saves = list(self.save_times) if phone == 0 else []
        while True:
            now = time.monotonic()
            if saves and began + saves[0] <= tick:
                at = began + saves.pop(0)
                if at >= until:
                    return
                await asyncio.sleep(max(0.0, at - now))
                await self.save(self.connections[0])
                continue
            if tick >= until:
                return
            await asyncio.sleep(max(0.0, tick - now))
            await self.fetch(phone)
            tick += 2

    async def pushed(self, phone, began, until, latest):
        """A stream's page: phone 0 saves at the table's times; any phone fetches when told."""
        if phone != 0:
            return
        for offset in self.save_times:
            at = began + offset
            if at >= until:
                return
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            await self.save(self.connections[PHONES])
            if not self.busy[0]:
                await self.fetch_until_shown(0, latest)

    def heard(self, phone, latest):
        """The stream of `phone` said a revision: fetch the board unless it is shown."""

        def on_event(revision, when):
            latest[phone] = revision
            if revision == self.shown[phone] or self.busy[phone]:
                return
            if phone == 0 and self.saving:
                return  # its own save's answer brings the board
            task = asyncio.ensure_future(self.fetch_until_shown(phone, latest))
            self.fetching.add(task)
            task.add_done_callback(self.fetching.discard)

        return on_event

    def close(self):
        for connection in self.connections:
            connection.close()


async def thousand_phones(port, pid, tables, cookie, csrf, mode, seconds, rng):
    """Server CPU-seconds a minute for the tables' phones, polling or pushed."""
    period = 120.0  # a deal a table every 2 minutes, the tables spread over it
    made = []
    for i, game in enumerate(tables):
        first = period * i / len(tables)
        times = [first + k * period for k in range(int(seconds // period) + 2)]
        made.append(Table(game, port, cookie, csrf, random.Random(rng.random()), times))
    streams = []
    latest = {}
    if mode == "pushed":
        for table in made:
            latest[id(table)] = [table.revision] * PHONES
            for phone in range(PHONES):
                _, path = phone_paths(table.game, phone)
                streams.append(Stream(port, path, table.heard(phone, latest[id(table)])))
        await open_streams(streams)
    began = time.monotonic() + 2  # every phone started before the clock runs
    until = began + seconds
    for table in made:
        table.until = until
    if mode == "polling":
        jobs = [t.polling(p, began, until) for t in made for p in range(PHONES)]
    else:
        jobs = [t.pushed(p, began, until, latest[id(t)]) for t in made for p in range(PHONES)]
    load = asyncio.ensure_future(asyncio.gather(*jobs))
    await asyncio.sleep(max(0.0, began - time.monotonic()))
    before = cpu_seconds(pid)
    await asyncio.sleep(seconds)
    used = cpu_seconds(pid) - before
    # What is still under way (a server that could not keep up: bounded all the same).
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(load, 15)
    if mode == "pushed":
        await asyncio.sleep(2)  # the fetches the last events asked for
        while any(t.fetching for t in made):
            await asyncio.sleep(0.1)
    behind = sum(1 for t in made for shown in t.shown if shown != t.revision)
    saves = sum(t.revision - t.game["revision"] for t in made)
    dropped = sum(1 for s in streams if s.closed)
    beats = sum(s.beats for s in streams)
    await close_streams(streams)
    for table in made:
        table.close()
        table.game["revision"] = table.revision
    errors = [e for t in made for e in t.errors]
    polls = sum(t.polls for t in made)
    wanted = len(made) * PHONES * seconds / 2  # a poll every 2 s a phone
    per_minute = used / seconds * 60
    return {
        "cpu_per_minute": per_minute,
        "polls_per_s": polls / seconds,
        # What polling costs at the rate the phones ask for: this machine, shared
        # with the load generator, may not serve every poll in time.
        "cpu_per_minute_at_rate": per_minute * wanted / polls if polls else per_minute,
        "saves": saves,
        "behind": behind,
        "dropped": dropped,
        "beats": beats,
        "errors": errors,
    }


# ------------------------------------------------------------------ 3. 10,000 streams


async def hold_and_save(port, pids, tables, hold, saves_every, send_save, stream_path):
    """Open a stream per phone of `tables`, hold them `hold` s while saves go out;
    (memory per stream KiB, dropped, the saves' latencies in ms, beats per stream)."""
    arrivals = {}  # (table index, revision): [arrival times]

    def heard(index):
        def on_event(revision, when):
            arrivals.setdefault((index, revision), []).append(when)

        return on_event

    streams = [
        Stream(port, stream_path(index, table, phone), heard(index))
        for index, table in enumerate(tables)
        for phone in range(PHONES)
    ]
    await asyncio.sleep(1)
    before = rss_kib(pids)
    began = time.monotonic()
    await open_streams(streams)
    opened_in = time.monotonic() - began
    await asyncio.sleep(3)  # settled
    after = rss_kib(pids)
    order = list(range(len(tables)))
    random.Random(7).shuffle(order)
    start = time.monotonic()
    count = 0
    while time.monotonic() - start < hold:
        index = order[count % len(order)]
        await send_save(index)
        count += 1
        await asyncio.sleep(max(0.0, start + count * saves_every - time.monotonic()))
    await asyncio.sleep(2)  # the last events
    latencies, first, answered = [], [], []
    for key, at in send_save.sent_at.items():
        told = arrivals.get(key, [])
        if len(told) == PHONES:
            latencies.append((max(told) - at) * 1000)
            first.append((min(told) - at) * 1000)
        else:
            latencies.append(float("inf"))
        answered.append((send_save.answered_at[key] - at) * 1000)
    dropped = sum(1 for s in streams if s.closed)
    beats = statistics.mean(s.beats for s in streams)
    await close_streams(streams)
    return {
        "streams": len(streams),
        "opened_in": opened_in,
        "kib_per_stream": (after - before) / len(streams),
        "rss_mib": after / 1024,
        "dropped": dropped,
        "latencies": latencies,
        "first": first,
        "answered": answered,
        "beats": beats,
    }


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class AppSaves:
    """Deals saved through the app, one table after another: the revision each makes."""

    def __init__(self, port, tables, cookie, csrf):
        self.tables, self.csrf = tables, csrf
        self.connection = Connection(port, cookie)
        self.rng = random.Random(11)
        self.sent_at, self.answered_at = {}, {}

    async def __call__(self, index):
        table = self.tables[index]
        body = deal_form(self.rng, table["revision"], self.csrf)
        sent = time.monotonic()
        status, _ = await self.connection.request("POST", f"/g/{table['edit']}/deal/", HTMX, body)
        if status != 200:
            raise base.Broken(f"a deal save answered {status}")
        table["revision"] += 1
        self.sent_at[(index, table["revision"])] = sent
        self.answered_at[(index, table["revision"])] = time.monotonic()
        return table["revision"]


class BareSaves:
    """The bare broadcast's "save": tell channel `index` its next number."""

    def __init__(self, port, count):
        self.connection = Connection(port)
        self.numbers = [0] * count
        self.sent_at, self.answered_at = {}, {}

    async def __call__(self, index):
        self.numbers[index] += 1
        sent = time.monotonic()
        status, _ = await self.connection.request("GET", f"/send/{index}/{self.numbers[index]}")
        if status != 204:
            raise base.Broken(f"the bare broadcast answered {status}")
        self.sent_at[(index, self.numbers[index])] = sent
        self.answered_at[(index, self.numbers[index])] = time.monotonic()
        return self.numbers[index]


def resync_revisions(tables):
    from django.db import connections

    from tracker.models import Game

    found = dict(
        Game.objects.filter(pk__in=[t["id"] for t in tables]).values_list("pk", "revision")
    )
    for table in tables:
        table["revision"] = found[table["id"]]
    connections.close_all()


# ------------------------------------------------------------------ main


def csrf_for(port, game):
    cookie, token = base.csrf_pair(port, f"/g/{game['edit']}/")
    return f"csrftoken={cookie}", token


def main(argv=None):
    global _log
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--streams", type=int, help="streams held (default 10,000; quick 2,000)")
    parser.add_argument("--hold", type=int, help="seconds they are held (default 60; quick 20)")
    parser.add_argument("--window", type=int, help="seconds of each 1,000-phone run (60; 20)")
    parser.add_argument("--duration", type=int, help="seconds of each wrk run (10; 3)")
    parser.add_argument("--only", choices=["endpoints", "phones", "streams"])
    args = parser.parse_args(argv)
    streams_wanted = args.streams or (2000 if args.quick else TARGETS["streams"])
    hold = args.hold or (20 if args.quick else 60)
    window = args.window or (20 if args.quick else 60)
    seconds = args.duration or (3 if args.quick else 10)

    OUT.mkdir(parents=True, exist_ok=True)
    _log = (OUT / "push.log").open("w")
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < streams_wanted + 1000:
        raise SystemExit(f"the open-files limit is {hard}: {streams_wanted} streams need more")
    tmp = Path(tempfile.mkdtemp(prefix="rummy-push-"))
    env = base.bench_env(f"sqlite:///{tmp / 'bench.sqlite3'}", tmp / "cache")
    env.update(LIVE_DIR=str(tmp / "live"), BARE_DIR=str(tmp / "bare"), CACHE_URL="", REDIS_URL="")
    os.environ.update(env)
    results = {}
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        try:
            import uvloop

            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        except ImportError:
            pass
        say(base.machine_line())
        say(
            f"push setup: {WORKERS} workers, SQLite WAL at {tmp}, embedded fan-out; the load "
            f"generator (this process) shares the {os.cpu_count()} cores"
        )
        call_command("migrate", "--noinput", verbosity=0)
        call_command("collectstatic", "--noinput", verbosity=0)
        rng = random.Random(30)
        tables_held = -(-streams_wanted // PHONES)
        games = {
            "shown": make_tables(1, rng, deals=base.DEALS_SHOWN)[0],
            "saves": make_tables(base.SAVE_GAMES, rng, deals=0),
            "phones": make_tables(167, rng),
            "held": make_tables(tables_held, rng) if args.only in (None, "streams") else [],
        }
        connections.close_all()
        base.ensure_wrk()
        say(base.wait_quiet(120))

        if args.only in (None, "endpoints"):
            results["endpoints"] = endpoints(env, games, seconds, 16)

        if args.only in (None, "phones"):
            # Polling as today (the sync worker), polling on the ASGI worker, and pushed.
            runs = (("polling", SYNC, "polling today"), ("polling", ASGI, "polling"))
            for mode, app, name in (*runs, ("pushed", ASGI, "pushed")):
                with server(env, app, f"push-phones-{mode}.log") as (port, pid):
                    cookie, csrf = csrf_for(port, games["phones"][0])
                    got = asyncio.run(
                        thousand_phones(port, pid, games["phones"], cookie, csrf, mode, window, rng)
                    )
                    results[name] = got
                    resync_revisions(games["phones"])  # saves a cut-off run still made
                    worker = "sync" if app is SYNC else "ASGI"
                    if mode == "polling":
                        say(
                            f"push 1000 phones {name} ({worker} worker): {got['polls_per_s']:.0f} "
                            f"polls/s served of 501 asked, "
                            f"{got['cpu_per_minute'] * 1000 / 60 / max(1, got['polls_per_s']):.2f} "
                            f"ms CPU a poll: {got['cpu_per_minute_at_rate']:.2f} CPU-s a minute "
                            "at a poll every 2 s a phone"
                        )
                    say(
                        f"push 1000 phones {name} ({worker} worker): "
                        f"{got['cpu_per_minute']:.2f} server CPU-s a "
                        f"minute  [{len(games['phones']) * PHONES} phones, {got['saves']} deals "
                        f"in {window} s, {got['behind']} phones behind at the end, "
                        f"{got['dropped']} streams dropped, {got['beats']} heartbeats"
                        + (f"; errors: {got['errors'][:3]}" if got["errors"] else "")
                        + "]"
                    )

        if args.only in (None, "streams"):
            pick = games["held"]
            with server(env, ASGI, "push-streams.log") as (port, pid):
                cookie, csrf = csrf_for(port, pick[0])
                saves = AppSaves(port, pick, cookie, csrf)
                got = asyncio.run(
                    hold_and_save(
                        port,
                        base.children_of(pid),
                        pick,
                        hold,
                        SAVE_EVERY,
                        saves,
                        lambda index, table, phone: phone_paths(table, phone)[1],
                    )
                )
                results["streams"] = got
            with server(env, BARE, "push-bare.log", ready="/send/0/0") as (port, pid):
                bare = BareSaves(port, len(pick))
                results["bare"] = asyncio.run(
                    hold_and_save(
                        port,
                        base.children_of(pid),
                        pick,
                        hold,
                        SAVE_EVERY,
                        bare,
                        lambda index, table, phone: f"/s/{index}",
                    )
                )
            for name in ("streams", "bare"):
                got = results[name]
                lat = got["latencies"]
                label = "app" if name == "streams" else "bare ASGI broadcast"
                say(
                    f"push {label}: {got['streams']} streams opened in {got['opened_in']:.1f} s, "
                    f"held {hold} s, {got['dropped']} dropped, {got['beats']:.1f} heartbeats each; "
                    f"workers' RSS {got['rss_mib']:.0f} MiB, {got['kib_per_stream']:.1f} KiB a "
                    f"stream; {len(lat)} saves -> all 6 phones told: p50 "
                    f"{percentile(lat, 0.5):.1f} ms, p95 {percentile(lat, 0.95):.1f} ms, p99 "
                    f"{percentile(lat, 0.99):.1f} ms (the first phone told: p50 "
                    f"{percentile(got['first'], 0.5):.1f}, "
                    f"p95 {percentile(got['first'], 0.95):.1f}; "
                    f"the save answered: p50 {percentile(got['answered'], 0.5):.1f}, p95 "
                    f"{percentile(got['answered'], 0.95):.1f} ms)"
                )
        summary(results)
        return 0
    except base.Broken as error:
        say(f"PUSH BENCHMARK BROKEN: {error}")
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        _log.close()


def summary(results):
    rows = []
    held = results.get("streams")
    bare = results.get("bare")
    if held:
        lat = held["latencies"]
        p95, p99 = percentile(lat, 0.95), percentile(lat, 0.99)
        rows.append(
            (
                p95 <= TARGETS["latency_p95_ms"] and p99 <= TARGETS["latency_p99_ms"],
                f"push save-to-6-phones p95/p99: {p95:.1f} / {p99:.1f} ms <= 100 / 250 "
                f"(with {held['streams']} streams held)",
            )
        )
        if bare:
            floor = percentile(bare["latencies"], 0.95)
            rows.append(
                (
                    p95 <= TARGETS["bare_factor"] * floor,
                    f"push save-to-6-phones p95 vs bare ASGI broadcast p95: {p95:.1f} <= 2 x "
                    f"{floor:.1f} ms",
                )
            )
        rows.append(
            (
                held["streams"] >= TARGETS["streams"] and held["dropped"] == 0,
                f"push streams held: {held['streams']} >= {TARGETS['streams']}, "
                f"{held['dropped']} dropped",
            )
        )
        rows.append(
            (
                held["kib_per_stream"] <= TARGETS["kib_per_stream"],
                f"push memory per stream: {held['kib_per_stream']:.1f} KiB <= 32",
            )
        )
    if "polling today" in results and "pushed" in results:
        today = results["polling today"]["cpu_per_minute_at_rate"]
        pushed = results["pushed"]["cpu_per_minute"]
        rows.append(
            (
                pushed <= today * TARGETS["cpu_share"] and not results["pushed"]["behind"],
                f"push 1000 phones CPU: pushed {pushed:.2f} <= polling today {today:.2f} / 15 = "
                f"{today / 15:.2f} CPU-s a minute (pushed/polling {pushed / today:.3f}; "
                f"pushed/polling on the ASGI worker "
                f"{pushed / results['polling']['cpu_per_minute_at_rate']:.3f})",
            )
        )
    for name, (share, bad) in (results.get("endpoints") or {}).items():
        rows.append(
            (
                share >= TARGETS["endpoint_share"] and not bad,
                f"push endpoint {name} under the ASGI worker: {share:.2f} of the sync "
                f"worker's >= 0.85",
            )
        )
    for ok, text in rows:
        say(f"{'PASS' if ok else 'FAIL'} {text}")
    met = sum(1 for ok, _ in rows if ok)
    say(f"push targets: {met} met, {len(rows) - met} missed")


if __name__ == "__main__":
    sys.exit(main())
