"""The phones bench/push.py plays, in one asyncio process: kept-alive HTTP/1.1
connections, the streams of pushed updates, tables of six phones polling or
pushed, saves timed until every phone of the table is told.

A table's phones are those a family has out: 4 on the edit link, 2 on the view
link. Its page polls its board every 2 s as today, or holds a stream and
fetches its board when the stream says a deal was saved, as tracker/live's
pages do.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import statistics
import time
import urllib.parse
from pathlib import Path

from bench.games import deal_form
from bench.load import server_cpu_s
from bench.report import Broken

PHONES = 6  # a table: 4 editing phones, 2 watching
EDITING = 4
HTMX = ("HX-Request: true",)


# -- an HTTP client and a stream


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
                raise Broken(f"{self.path}: {head[:80]!r}")
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
        except (OSError, asyncio.IncompleteReadError, Broken) as error:
            if not self.opened.done():
                self.opened.set_exception(error)
        finally:
            self.closed = True
            writer.close()

    def start(self):
        self.task = asyncio.ensure_future(self.run())
        return self.opened


async def open_streams(streams, at_once=200):
    """Open every stream, `at_once` at a time; each one's first event (its revision)."""
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


# -- what a phone sends and reads


def save_body(rng, version, csrf):
    """The deal form's post for a random deal, made against `version`, as htmx sends it."""
    return urllib.parse.urlencode({**deal_form(rng, version), "csrfmiddlewaretoken": csrf}).encode()


def phone_paths(table, phone):
    """(the page's board poll path without ?v, the stream path) of phone 0-5 of a table."""
    link, token = ("g", table["edit"]) if phone < EDITING else ("w", table["view"])
    return f"/{link}/{token}/live/", f"/{link}/{token}/stream"


REVISION = re.compile(rb'data-revision="(\d+)"')


def shown_in(content, otherwise):
    """The revision a board fragment shows (`otherwise` when it says none)."""
    found = REVISION.search(content)
    return int(found[1]) if found else otherwise


# -- deals saved as fast as the server takes them


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
            body = save_body(rng, game["revision"], csrf)
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


# -- tables of phones, polling or pushed


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

    async def open_page(self, phone):
        """The phone opens its game page, as every phone does before its board is
        polled or its stream held: the page's parts are made for it then."""
        poll, _ = phone_paths(self.game, phone)
        status, _ = await self.connections[phone].request("GET", poll.removesuffix("live/"))
        if status != 200:
            self.errors.append(f"page {status}")

    async def save(self, connection):
        body = save_body(self.rng, self.revision, self.csrf)
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


async def tables_playing(server, tables, cookie, csrf, mode, seconds, rng):
    """Server CPU-seconds a minute for the tables' phones, polling or pushed, a
    deal a table every 2 minutes. Every phone has opened its game page first,
    before the clock runs. Everything the server does then counts: the saves,
    the polls or the events, the fetches, the heartbeats."""
    port = server.port
    period = 120.0  # a deal a table every 2 minutes, the tables spread over it
    made = []
    for i, game in enumerate(tables):
        first = period * i / len(tables)
        times = [first + k * period for k in range(int(seconds // period) + 2)]
        made.append(Table(game, port, cookie, csrf, random.Random(rng.random()), times))
    gate = asyncio.Semaphore(50)

    async def open_page(table, phone):
        async with gate:
            await table.open_page(phone)

    await asyncio.gather(*(open_page(t, p) for t in made for p in range(PHONES)))
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
    before = server_cpu_s(server)
    await asyncio.sleep(seconds)
    used = server_cpu_s(server) - before
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


# -- streams held while deals are saved


async def hold_and_save(server, tables, hold, saves_every, send_save, stream_path):
    """Open a stream per phone of `tables`, hold them `hold` s while `send_save`
    saves a deal at a table every `saves_every` s: the workers' memory a stream,
    the streams dropped, each save's time until all 6 phones of its table were told."""
    port, pids = server.port, server.worker_pids()
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
    latencies, first, answered, all_told = [], [], [], {}
    for key, at in send_save.sent_at.items():
        told = arrivals.get(key, [])
        if len(told) == PHONES:
            latencies.append((max(told) - at) * 1000)
            first.append((min(told) - at) * 1000)
            all_told[key] = max(told)
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
        "all_told": all_told,  # (table index, revision): when its sixth phone was told
        "beats": beats,
    }


def from_the_commit(all_told, committed):
    """ms from each save's commit (`committed`: {key: time.time()}) to its sixth phone told
    (`all_told`: {key: time.monotonic()}); a save whose phones were not all told: inf."""
    offset = time.time() - time.monotonic()  # one machine's two clocks
    return [(all_told.get(key, float("inf")) + offset - at) * 1000 for key, at in committed.items()]


class AppSaves:
    """Deals saved through the app, one table after another: the revision each makes."""

    def __init__(self, port, tables, cookie, csrf):
        self.tables, self.csrf = tables, csrf
        self.connection = Connection(port, cookie)
        self.rng = random.Random(11)
        self.sent_at, self.answered_at = {}, {}

    async def __call__(self, index):
        table = self.tables[index]
        body = save_body(self.rng, table["revision"], self.csrf)
        sent = time.monotonic()
        status, _ = await self.connection.request("POST", f"/g/{table['edit']}/deal/", HTMX, body)
        if status != 200:
            raise Broken(f"a deal save answered {status}")
        table["revision"] += 1
        self.sent_at[(index, table["revision"])] = sent
        self.answered_at[(index, table["revision"])] = time.monotonic()
        return table["revision"]

    def committed(self):
        """{(table index, revision): time.time()} of each save's commit, as stored: its
        event's created_at, set as the row is written in the save's transaction, just
        before the game's revision is updated and the transaction commits."""
        from django.db import connections

        from tracker.models import Event

        index_of = {self.tables[index]["id"]: index for index, _ in self.sent_at}
        rows = Event.objects.filter(game_id__in=index_of).values_list(
            "game_id", "serial", "created_at"
        )
        found = {(index_of[game], serial): at.timestamp() for game, serial, at in rows}
        connections.close_all()
        return {key: found[key] for key in self.sent_at}


class BareSaves:
    """The bare broadcast's "save": tell channel `index` its next number."""

    def __init__(self, port, count):
        self.connection = Connection(port)
        self.numbers = [0] * count
        self.sent_at, self.answered_at, self.began_at = {}, {}, {}

    async def __call__(self, index):
        self.numbers[index] += 1
        sent = time.monotonic()
        status, began = await self.connection.request("GET", f"/send/{index}/{self.numbers[index]}")
        if status != 200:
            raise Broken(f"the bare broadcast answered {status}")
        self.sent_at[(index, self.numbers[index])] = sent
        self.answered_at[(index, self.numbers[index])] = time.monotonic()
        self.began_at[(index, self.numbers[index])] = float(began)
        return self.numbers[index]

    def committed(self):
        """{(channel, number): time.time()} when the server began to broadcast each."""
        return self.began_at


def rss_kib(pids):
    """The resident memory of these processes (Linux /proc), KiB."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total
