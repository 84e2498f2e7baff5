"""The phones of `make bench`, in this process (asyncio, raw sockets): kept-alive
HTTP/1.1 connections, the load tests' loop, streams of pushed updates, tables of
six phones (4 on the edit link, 2 on the view link) polling or pushed."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import random
import re
import time
import urllib.parse
from pathlib import Path

from bench.shared import Broken, deal_form, livegunicorn, server_cpu_s

PHONES, EDITING = 6, 4
HTMX = ("HX-Request: true",)
BROWSER = "Accept-Encoding: gzip, deflate, br"  # every request asks it, as a browser does
REVISION = re.compile(rb'data-revision="(\d+)"')
EVENT = re.compile(rb"data: (\d+)\n\n")
BOARD = re.compile(rb"event: board\n.*?data-revision=\"(\d+)\".*?\n\n", re.S)  # a view link's
BOARD_WITHIN_S = 1.5  # as static/tracker.js: a watcher's board not sent by then is fetched


class Connection:
    """One kept-alive HTTP/1.1 connection, opened again when the server closed it."""

    def __init__(self, port, cookie="", csrf=""):
        self.port, self.cookie, self.csrf = port, cookie, csrf
        self.reader = self.writer = None

    async def request(self, method, path, headers=(), body=b""):
        try:
            return await self._request(method, path, headers, body)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.close()
            return await self._request(method, path, headers, body)

    async def _request(self, method, path, headers, body):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", BROWSER, *headers]
        if self.cookie:
            lines.append(f"Cookie: {self.cookie}")
        if body:
            lines += [
                "Content-Type: application/x-www-form-urlencoded",
                f"Content-Length: {len(body)}",
            ]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = (await self.reader.readuntil(b"\r\n\r\n")).lower()
        length = re.search(rb"\r\ncontent-length: *(\d+)", head)
        content = await self.reader.readexactly(int(length[1])) if length else b""
        if b"\r\ntransfer-encoding: chunked" in head:
            while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
                content += (await self.reader.readexactly(size + 2))[:-2]
            await self.reader.readuntil(b"\r\n")
        if b"\r\ncontent-encoding: gzip" in head:
            content = gzip.decompress(content)
        if b"\r\nconnection: close" in head:
            self.close()
        return int(head.split(b" ", 2)[1]), content

    async def save(self, game, rng):
        """A random deal posted to `game` as the page's htmx form posts it (its version
        the game's revision, which moves on when it is saved): (status, answer)."""
        form = {**deal_form(rng, game["revision"]), "csrfmiddlewaretoken": self.csrf}
        body = urllib.parse.urlencode(form).encode()
        status, answer = await self.request("POST", f"/g/{game['edit']}/deal/", HTMX, body)
        game["revision"] += status == 200
        return status, answer

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def scorer(live, game):
    """A connection with the CSRF cookie and token a phone gets with the game page."""
    phone = live.browser()
    token, _ = livegunicorn.deal_form(phone.get(f"/g/{game['edit']}/").body)
    return Connection(live.port, f"csrftoken={phone.cookies['csrftoken']}", token)


async def load(port, seconds, connections, ask):
    """`connections` phones each asking `ask(connection, c, k)` (its k-th request; whether
    the answer was right) until `seconds` pass: {"rps", "requests", "errors"}."""
    counts = {"requests": 0, "errors": 0}
    deadline = time.monotonic() + seconds

    async def one(c):
        connection, k = Connection(port), 0
        while time.monotonic() < deadline:
            counts["errors"] += not await ask(connection, c, k)
            counts["requests"] += 1
            k += 1
        connection.close()

    began = time.monotonic()
    await asyncio.gather(*(one(c) for c in range(connections)))
    return {"rps": counts["requests"] / (time.monotonic() - began), **counts}


def asking(path, headers=()):
    async def ask(connection, c, k):
        status, _ = await connection.request("GET", path, headers)
        return 200 <= status < 300

    return ask


def saving(live, games, connections):
    """Deals saved: each connection goes round games of its own, posting once the last
    is answered, so none is stale."""
    rng, credentials = random.Random(5), scorer(live, games[0])

    async def ask(connection, c, k):
        connection.cookie, connection.csrf = credentials.cookie, credentials.csrf
        mine = games[c::connections]
        status, _ = await connection.save(mine[k % len(mine)], rng)
        return status == 200

    return ask


class Stream:
    """One phone's stream of pushed updates: `heard(revision, when)` for each event, and
    `sent_board(revision)` for each board a view link's stream sends."""

    def __init__(self, port, path, heard, sent_board=None):
        self.port, self.path, self.heard, self.sent_board = port, path, heard, sent_board
        self.beats, self.closed, self.task = 0, False, None
        self.opened = asyncio.get_running_loop().create_future()  # its first event

    async def run(self):
        writer = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            writer.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise Broken(f"{self.path}: {head[:80]!r}")
            buffer = b""
            while data := await reader.read(65536):
                now = time.monotonic()
                buffer += data
                self.beats += buffer.count(b"\r\n:\n\n")
                for found in EVENT.finditer(buffer):
                    if not self.opened.done():
                        self.opened.set_result(int(found[1]))
                    else:
                        self.heard(int(found[1]), now)
                if self.sent_board is not None:
                    for found in BOARD.finditer(buffer):
                        self.sent_board(int(found[1]))
                buffer = buffer[buffer.rfind(b"\n\n") + 2 :] if b"\n\n" in buffer else buffer
        except (OSError, asyncio.IncompleteReadError, Broken) as error:
            if not self.opened.done():
                self.opened.set_exception(error)
        finally:
            self.closed = True
            if writer is not None:
                writer.close()

    @staticmethod
    async def open_all(streams, at_once=200):
        gate = asyncio.Semaphore(at_once)

        async def one(stream):
            async with gate:
                stream.task = asyncio.ensure_future(stream.run())
                return await stream.opened

        return await asyncio.gather(*(one(s) for s in streams))

    @staticmethod
    async def close_all(streams):
        tasks = [s.task for s in streams if s.task]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def link(game, phone):
    """The page of phone 0-5 of a table: the edit link for 4, the view link for 2."""
    return f"/g/{game['edit']}/" if phone < EDITING else f"/w/{game['view']}/"


def stream_path(game, phone):
    """The stream the page of phone 0-5 opens: a view link's asks for its board."""
    return f"{link(game, phone)}stream" + ("" if phone < EDITING else "?board=latest")


class Table:
    """Six phones on one game; phone 0 also saves a deal at `save_times` (its own connection)."""

    def __init__(self, game, saver, save_times):
        self.game, self.saver, self.save_times = game, saver, save_times
        self.first, self.rng = game["revision"], random.Random(save_times[0])
        self.shown = [self.first] * PHONES
        self.latest = [self.first] * PHONES  # what each phone's stream said
        self.wake = [asyncio.Event() for _ in range(PHONES)]
        self.boarded = [asyncio.Event() for _ in range(PHONES)]  # a board came in the stream
        self.connections = [Connection(saver.port) for _ in range(PHONES)]
        self.saving, self.polls, self.until, self.errors = False, 0, float("inf"), []

    async def fetch(self, phone):
        path = f"{link(self.game, phone)}live/?v={self.shown[phone]}"
        status, body = await self.connections[phone].request("GET", path, HTMX)
        if status == 200 and (found := REVISION.search(body)):
            self.shown[phone] = int(found[1])
        elif status != 204:
            self.errors.append(f"fetch {status}")
        self.polls += time.monotonic() <= self.until

    async def saves(self, began):
        for at in self.save_times:
            if began + at >= self.until:
                return
            await asyncio.sleep(max(0.0, began + at - time.monotonic()))
            self.saving = True
            status, _ = await self.saver.save(self.game, self.rng)
            self.saving = False
            if status != 200:
                self.errors.append(f"save {status}")
            self.shown[0] = self.game["revision"]  # its answer is the new board
            self.wake[0].set()

    async def polling(self, phone, began):
        """Today's page: a poll every 2 s."""
        tick = began + random.random() * 2
        while tick < self.until:
            await asyncio.sleep(max(0.0, tick - time.monotonic()))
            await self.fetch(phone)
            tick += 2

    async def pushed(self, phone):
        """A stream's page: its board fetched when the stream says it moved, until shown;
        a view link's is sent in the stream, and fetched only if it does not come."""
        while await self.wake[phone].wait():
            self.wake[phone].clear()
            if phone >= EDITING and self.latest[phone] > self.shown[phone]:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.boarded[phone].wait(), BOARD_WITHIN_S)
                self.boarded[phone].clear()
            while self.latest[phone] > self.shown[phone] and not (phone == 0 and self.saving):
                before = self.shown[phone]
                await self.fetch(phone)
                if self.shown[phone] == before:
                    break

    def heard(self, phone):
        def on_event(revision, when):
            self.latest[phone] = max(self.latest[phone], revision)
            self.wake[phone].set()

        return on_event

    def sent_board(self, phone):
        def on_board(revision):
            self.shown[phone] = max(self.shown[phone], revision)
            if self.shown[phone] >= self.latest[phone]:
                self.boarded[phone].set()

        return on_board


async def tables_playing(server, games, mode, seconds):
    """Server CPU-s a minute for the tables' phones polling or pushed, a deal a table every
    2 minutes; every phone has opened its page before the clock runs."""
    saver = scorer(server, games[0])
    tables = []
    for i, game in enumerate(games):
        connection = Connection(server.port, saver.cookie, saver.csrf)
        tables.append(Table(game, connection, [120.0 * (i / len(games) + k) for k in range(9)]))
    gate = asyncio.Semaphore(50)

    async def open_page(table, phone):
        async with gate:
            status, _ = await table.connections[phone].request("GET", link(table.game, phone))
            if status != 200:
                table.errors.append(f"page {status}")

    await asyncio.gather(*(open_page(t, p) for t in tables for p in range(PHONES)))
    streams = []
    if mode == "pushed":
        for t in tables:
            streams += [
                Stream(server.port, stream_path(t.game, p), t.heard(p), t.sent_board(p))
                for p in range(PHONES)
            ]
        await Stream.open_all(streams)
    began = time.monotonic() + 2
    for t in tables:
        t.until = began + seconds
    phone = Table.polling if mode == "polling" else lambda t, p, _: t.pushed(p)
    jobs = [phone(t, p, began) for t in tables for p in range(PHONES)]
    running = [asyncio.ensure_future(job) for job in [*jobs, *(t.saves(began) for t in tables)]]
    await asyncio.sleep(max(0.0, began - time.monotonic()))
    before = server_cpu_s(server)
    await asyncio.sleep(seconds)
    used = server_cpu_s(server) - before
    await asyncio.sleep(5)  # the fetches the last events asked for
    for job in running:
        job.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    dropped = sum(s.closed for s in streams)
    await Stream.close_all(streams)
    for t in tables:
        for connection in [*t.connections, t.saver]:
            connection.close()
    polls = sum(t.polls for t in tables)
    per_minute = used / seconds * 60
    wanted = len(tables) * PHONES * seconds / 2  # a poll every 2 s a phone
    return {
        "cpu_per_minute": per_minute,
        "polls_per_s": polls / seconds,
        # Polling at the rate the phones ask: this shared machine may not serve every poll.
        "cpu_per_minute_at_rate": per_minute * wanted / polls if polls else per_minute,
        "saves": sum(t.game["revision"] - t.first for t in tables),
        "behind": sum(shown != t.game["revision"] for t in tables for shown in t.shown),
        "dropped": dropped,
        "errors": [e for t in tables for e in t.errors],
    }


async def hold_and_save(server, paths, hold, every, save):
    """A stream on each of `paths` (6 a table) held `hold` s while `save(index)` saves a deal
    at a table every `every` s: {"streams", "dropped", "kib_per_stream", "beats" (a stream's),
    "sent": {(index, revision) save() returned: (monotonic time sent, answered)}, "told":
    {(index, revision): when its sixth phone heard it}}."""
    arrivals = {}

    def heard(index):
        return lambda revision, when: arrivals.setdefault((index, revision), []).append(when)

    streams = [Stream(server.port, path, heard(i // PHONES)) for i, path in enumerate(paths)]
    await asyncio.sleep(1)
    before = rss_kib(server.worker_pids())
    began = time.monotonic()
    await Stream.open_all(streams)
    opened_in = time.monotonic() - began
    await asyncio.sleep(3)  # settled
    after = rss_kib(server.worker_pids())
    order = list(range(len(paths) // PHONES))
    random.Random(7).shuffle(order)
    start, count, sent = time.monotonic(), 0, {}
    while time.monotonic() - start < hold:
        at = time.monotonic()
        key = await save(order[count % len(order)])
        sent[key] = (at, time.monotonic())
        count += 1
        await asyncio.sleep(max(0.0, start + count * every - time.monotonic()))
    await asyncio.sleep(2)  # the last events
    dropped = sum(s.closed for s in streams)
    beats = sum(s.beats for s in streams) / len(streams)
    await Stream.close_all(streams)
    told = {key: max(at) for key, at in arrivals.items() if len(at) == PHONES}
    return {
        "streams": len(streams),
        "opened_in": opened_in,
        "dropped": dropped,
        "kib_per_stream": (after - before) / len(streams),
        "told": told,
        "sent": sent,
        "beats": beats,
    }


def rss_kib(pids):
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+)", status)[1])
    return total
