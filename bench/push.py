"""The pushed updates' figures (bench/README.md), on `make run`'s server: the phones
are bench/phones.py, in this process; the floor is the bare ASGI broadcast below."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import os
import random
import resource
import socket
import time
from pathlib import Path

from bench import phones, shared
from bench.shared import ASGI, SYNC, Broken, gunicorn, judge, say

PARTS = ("browser", "phones", "streams")
BARE = ("bench.push:application", "--worker-class", "asgi")


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(db, quick, only):
    parts = [part for part in PARTS if part in only]
    if not parts:
        return
    streams, window = (2000, 20) if quick else (10_000, 60)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if "streams" in parts and hard < streams + 1000:
        raise Broken(f"the open-files limit is {hard}: {streams} streams need more")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the servers inherit it
    rng = random.Random(30)
    tables = (
        shared.many_games(rng, 167, 3, "Push: phones") if "phones" in parts else []
    )  # 1,002 phones
    held = shared.many_games(rng, -(-streams // 6), 3, "Push: held") if "streams" in parts else []
    watched = shared.points_game(random.Random(36), 10, "Push: watched")
    from django.db import connections

    connections.close_all()
    say(f"\npush: {shared.WORKERS} workers, SQLite, embedded fan-out; the phones share the cores")
    shared.wait_quiet(120, "the push figures")
    if "browser" in parts:
        watched_boards(db, watched)
    if "phones" in parts:
        thousand_phones(db, tables, window)
    if "streams" in parts:
        held_streams(db, held, 20 if quick else 60)


def watched_boards(db, game, deals=20):
    """Chromium: from the save's post to the last of 5 watchers' boards showing it."""
    from bench import watchers

    with gunicorn(db, ASGI) as live:
        got = watchers.measure(live.port, game, deals)

    say(
        "push Chromium: "
        + "; ".join(
            f"{what} p50 {percentile(got[key], 0.5):.0f}, p95 {percentile(got[key], 0.95):.0f} ms"
            for key, what in (
                ("answered", "the save answered"),
                ("told", "a watcher told"),
                ("told_to_shown", "told -> its board"),
                ("told_to_boarded", "told -> the board's event"),
                ("boarded_to_shown", "that event -> its board shown"),
            )
            if got[key]
        )
    )
    last = got["sent_to_all"]
    judge(
        f"push: tap Save -> all 5 watchers' boards, Chromium, p50 / p95 of {deals} deals",
        f"{percentile(last, 0.5):.0f} / {percentile(last, 0.95):.0f} ms",
        "p95 <= 100 ms",
        percentile(last, 0.95) <= 100,
    )


def stored_revisions(tables):
    """Each game's revision as stored: a run cut off at its end may still have saved."""
    from django.db import connections

    from tracker.models import Game

    found = dict(
        Game.objects.filter(pk__in=[t["id"] for t in tables]).values_list("pk", "revision")
    )
    for table in tables:
        table["revision"] = found[table["id"]]
    connections.close_all()


def thousand_phones(db, tables, window):
    """Server CPU-s a minute with the phones polling every 2 s as today (the sync worker)
    and pushed: pushed judged against an eighth of today's."""
    got = {}
    for name, mode, app in (
        ("polling today", "polling", SYNC),
        ("pushed", "pushed", ASGI),
    ):
        with gunicorn(db, app) as live:
            got[name] = it = asyncio.run(phones.tables_playing(live, tables, mode, window))
        stored_revisions(tables)
        polled = (
            f", {it['cpu_per_minute_at_rate']:.2f} at a poll every 2 s a phone "
            f"({it['polls_per_s']:.0f} polls/s served)"
        )
        say(
            f"push 1000 phones {name}: {it['cpu_per_minute']:.2f} server CPU-s a minute"
            + (polled if mode == "polling" else "")
            + f"  [{it['saves']} deals in {window} s, {it['behind']} phones behind, "
            f"{it['dropped']} streams dropped, errors: {it['errors'][:3]}]"
        )
    today = got["polling today"]["cpu_per_minute_at_rate"]
    pushed = got["pushed"]["cpu_per_minute"]
    judge(
        "push: 1,000 phones, server CPU pushed / polling today",
        f"{pushed / today:.3f} ({pushed:.2f} / {today:.2f} CPU-s a minute); "
        f"{got['pushed']['behind']} phones behind",
        "<= 1/8 (0.125), none behind",
        pushed <= today / 8 and not got["pushed"]["behind"],
    )


def held_streams(db, tables, hold):
    """A stream for each phone of `tables` held `hold` s, a deal saved every 0.5 s; the same
    in the bare broadcast on the same workers. Times are this process's monotonic clock;
    the commit is the saved event's created_at (time.time()), the bare's its send's."""
    with gunicorn(db, ASGI) as live:
        saver, rng = phones.scorer(live, tables[0]), random.Random(11)

        async def save(index):
            status, _ = await saver.save(tables[index], rng)
            if status != 200:
                raise Broken(f"a deal save answered {status}")
            return index, tables[index]["revision"]

        paths = [phones.stream_path(t, p) for t in tables for p in range(phones.PHONES)]
        app = asyncio.run(phones.hold_and_save(live, paths, hold, 0.5, save))
    from tracker.models import Event

    index_of = {table["id"]: index for index, table in enumerate(tables)}
    rows = Event.objects.filter(game_id__in=index_of).values_list("game_id", "serial", "created_at")
    commits = {(index_of[game], serial): at.timestamp() for game, serial, at in rows}
    began = {}
    with gunicorn(db, BARE) as live:
        connection, numbers = phones.Connection(live.port), [0] * len(tables)

        async def send(index):
            numbers[index] += 1
            status, body = await connection.request("GET", f"/send/{index}/{numbers[index]}")
            if status != 200:
                raise Broken(f"the bare broadcast answered {status}")
            began[(index, numbers[index])] = float(body)
            return index, numbers[index]

        paths = [f"/s/{i}" for i in range(len(tables)) for _ in range(phones.PHONES)]
        bare = asyncio.run(phones.hold_and_save(live, paths, hold, 0.5, send))
    offset = time.time() - time.monotonic()  # one machine's two clocks
    told = [(app["told"].get(key, math.inf) - at) * 1000 for key, (at, _) in app["sent"].items()]
    answered = [(done - at) * 1000 for at, done in app["sent"].values()]
    fanout, floor = (
        [(got["told"].get(key, math.inf) + offset - stamps[key]) * 1000 for key in got["sent"]]
        for got, stamps in ((app, commits), (bare, began))
    )
    for name, got in (("app", app), ("bare ASGI broadcast", bare)):
        say(
            f"push {name}: {got['streams']} streams opened in {got['opened_in']:.1f} s, held "
            f"{hold} s, {got['dropped']} dropped, {got['beats']:.1f} heartbeats each, "
            f"{got['kib_per_stream']:.1f} KiB a stream"
        )
    p95, p99 = percentile(told, 0.95), percentile(told, 0.99)
    say(
        f"push app: {len(told)} saves: answered p50 {percentile(answered, 0.5):.1f} ms; all 6 "
        f"told p50 {percentile(told, 0.5):.1f} ms; commit -> all 6 told p50 "
        f"{percentile(fanout, 0.5):.1f} ms, the bare broadcast's {percentile(floor, 0.5):.1f} ms"
    )
    judge(
        f"push: save -> all 6 phones told, p95 / p99, {app['streams']:,} streams held",
        f"{p95:.1f} / {p99:.1f} ms",
        "<= 100 / 250 ms",
        p95 <= 100 and p99 <= 250,
    )
    fanout, floor = percentile(fanout, 0.95), percentile(floor, 0.95)
    judge(
        "push: commit -> all 6 phones told, p95 / a bare ASGI broadcast's",
        f"{fanout / floor:.2f} ({fanout:.1f} / {floor:.1f} ms)",
        "<= 2",
        fanout <= 2 * floor,
    )
    judge(
        f"push: streams held {hold} s; memory a stream",
        f"{app['streams']:,}, {app['dropped']} dropped; {app['kib_per_stream']:.1f} KiB",
        ">= 10,000, none dropped; <= 32 KiB",
        app["streams"] >= 10_000 and not app["dropped"] and app["kib_per_stream"] <= 32,
    )


# -- the bare ASGI broadcast, served by gunicorn's ASGI worker: no Django, no database.
# GET /s/<n> holds a stream on channel n ("data: 0" at once, a heartbeat every 15 s as
# the app's); GET /send/<n>/<v> sends one Unix datagram to each worker's socket in
# BARE_DIR (as the app's embedded fan-out does), each worker then "data: <v>" to the
# streams of channel n; it answers time.time() when it began to.

FOLDER = Path(os.environ.get("BARE_DIR", "/tmp/rummy-bare"))
channels = {}  # n: the queues of its streams
beats = [set() for _ in range(15)]  # the queues given a heartbeat each second
listening = []


def listen():
    FOLDER.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = FOLDER / f"{os.getpid()}.sock"
    path.unlink(missing_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)

    def read():
        with contextlib.suppress(BlockingIOError):
            while True:
                n, v = sock.recv(64).split()
                for queue in channels.get(int(n), ()):
                    queue.put_nowait(v)

    async def beat():
        for second in itertools.count():
            await asyncio.sleep(1)
            for queue in beats[second % 15]:
                queue.put_nowait(None)

    asyncio.get_running_loop().add_reader(sock.fileno(), read)
    listening.extend([sock, asyncio.ensure_future(beat())])


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        return await send({"type": "lifespan.shutdown.complete"})
    if not listening:
        listen()
    parts = scope["path"].strip("/").split("/")
    if len(parts) != {"send": 3, "s": 2}.get(parts[0]):  # gunicorn's start-up check, say
        await send({"type": "http.response.start", "status": 404, "headers": []})
        return await send({"type": "http.response.body", "body": b""})
    if parts[0] == "send":
        began = time.time()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
            for path in FOLDER.glob("*.sock"):
                with contextlib.suppress(OSError):
                    sender.sendto(f"{parts[1]} {parts[2]}".encode(), str(path))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        return await send({"type": "http.response.body", "body": repr(began).encode()})
    queue, n = asyncio.Queue(), int(parts[1])
    channels.setdefault(n, set()).add(queue)
    beats[id(queue) % 15].add(queue)

    async def disconnect():
        while (await receive())["type"] != "http.disconnect":
            pass

    gone = asyncio.ensure_future(disconnect())
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")]
    try:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"data: 0\n\n", "more_body": True})
        while True:
            got = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({got, gone}, return_when=asyncio.FIRST_COMPLETED)
            if gone in done:
                got.cancel()
                return
            chunk = b":\n\n" if got.result() is None else b"data: " + got.result() + b"\n\n"
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    finally:
        channels[n].discard(queue)
        beats[id(queue) % 15].discard(queue)
        gone.cancel()
