"""Pushed updates (issue 30): `make bench`'s `push` figures, each beside the issue's target.

    .venv/bin/python bench/push.py                  # on its own: about 10 minutes
    .venv/bin/python bench/push.py --quick          # shorter windows, 2,000 streams
    .venv/bin/python bench/push.py --only streams   # or browser, endpoints, phones: that part alone

bench/run.py calls main() after its own figures, on its database; on its own
it makes one (bench/server.py). The servers are started as the tests start
them (tests/servers/gunicorn.py): `make run`'s tracker/asgi.py on gunicorn's ASGI
worker, 2 x cores + 1 workers, the embedded fan-out (Unix datagrams in a
folder of this run's, no extra server), and for comparison tracker/wsgi.py on
the sync worker. The phones are bench/phones.py, in this process (asyncio, raw
sockets): they share the 2 cores with the server, so the figures are what one
2-core machine does with both. The issue's targets:

1. plain endpoints: the one-row baseline, the unchanged poll and a fresh page
   by wrk, and the deal save by this process's phones (the two workers taking
   turns, as every save makes its game longer), on the sync worker and on the
   ASGI worker: each ASGI figure as a share of the sync worker's (>= 0.85).
2. 1,000 phones (167 tables of 6: 4 editing, 2 watching), a deal a table
   every 2 minutes: the server's CPU with every phone polling every 2 s as
   today (the sync worker; and for comparison on the ASGI worker), and with
   every phone holding a stream and fetching its board after an event (<= 1/8
   of polling today: a floor, issue 36). Everything the server does counts: the saves, the polls
   or the events, the fetches, the heartbeats.
3. 10,000 streams held for 60 s (1,667 tables of 6): the server's memory per
   stream (RSS growth / streams, <= 32 KiB), none dropped, and with them held,
   save -> all 6 phones of a table told (the event received), p95 <= 100 ms and
   p99 <= 250 ms; and the fan-out alone, from the save's commit (its event's
   created_at) to all 6 told, p95 <= 2 x a bare ASGI broadcast's, from its
   broadcast (bench/push_bare.py) holding as many streams on the same workers.
4. In Chromium, one scorer and five watchers (bench/watchers.py): from the
   save's post to every watcher's board showing the deal, p95 <= 100 ms.

Every load is bounded in time; the open-files limit is raised by this process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import games as bench_games
from bench import load, phones, report, server, tools, watchers
from bench.phones import PHONES
from bench.report import Broken, judge, say

TARGETS = {
    "latency_p95_ms": 100.0,
    "latency_p99_ms": 250.0,
    "bare_factor": 2.0,
    "streams": 10_000,
    "kib_per_stream": 32.0,
    "cpu_share": 1 / 8,
    "endpoint_share": 0.85,
    "board_p95_ms": 100.0,
}
BARE = ("bench.push_bare:application", "--worker-class", "asgi")
PHONE_TABLES = 167  # 1,002 phones
SAVE_EVERY = 0.5  # seconds between the saves timed while the streams are held
CONNECTIONS = 16  # wrk's and the deal saves', as the load tests
WATCHED_DEALS = 20  # deals timed in Chromium, on a game 10 deals in
QUIET_WAIT = 120  # seconds to wait for the other sessions to leave the CPU


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def csrf_cookie(live, game):
    """(the Cookie header's value, the form's token) a phone gets with the game page."""
    cookie, token = load.csrf_pair(live.port, f"/g/{game['edit']}/")
    return f"csrftoken={cookie}", token


def resync_revisions(tables):
    """Each game's revision as stored: a run cut off at its end may still have saved."""
    from django.db import connections

    from tracker.models import Game

    found = dict(
        Game.objects.filter(pk__in=[t["id"] for t in tables]).values_list("pk", "revision")
    )
    for table in tables:
        table["revision"] = found[table["id"]]
    connections.close_all()


# -- 1. plain endpoints


def endpoints(db, env, games, seconds):
    """The ASGI worker's requests a second as a share of the sync worker's, endpoint by endpoint."""
    shown = games["shown"]
    runs = {
        "one-row baseline": ("/bench/baseline/", ()),
        "unchanged poll": (f"/w/{shown['view']}/live/?v={shown['revision']}", phones.HTMX),
        "fresh page": (f"/g/{shown['edit']}/", ()),
    }
    figures = {}
    with (
        server.gunicorn(db, server.WORKERS, server.SYNC, **env) as sync,
        server.gunicorn(db, server.WORKERS, server.ASGI, **env) as asgi,
    ):
        for name, (path, headers) in runs.items():
            for kind, live in (("sync", sync), ("asgi", asgi)):
                load.wrk(f"push-warm-{kind}", live.port, path, 1, CONNECTIONS, headers)
                before = load.server_cpu_s(live)
                named = f"push-{kind}-{name.replace(' ', '-')}"
                got = load.wrk(named, live.port, path, seconds, CONNECTIONS, headers)
                got["cpu"] = load.server_cpu_s(live) - before
                figures[(name, kind)] = got
        cookie, csrf = csrf_cookie(sync, games["saves"][0])
        saves = games["saves"]
        for live in (sync, asgi):
            asyncio.run(phones.save_load(live.port, saves, 1, CONNECTIONS, cookie, csrf))
        # Every save makes the games a deal longer, and a longer game's save costs
        # more: the two workers take turns (sync, ASGI, ASGI, sync), half the time
        # each turn, so neither is measured on the longer games alone.
        for kind, live in (("sync", sync), ("asgi", asgi), ("asgi", asgi), ("sync", sync)):
            before = load.server_cpu_s(live)
            got = asyncio.run(
                phones.save_load(live.port, saves, seconds / 2, CONNECTIONS, cookie, csrf)
            )
            got["cpu"] = load.server_cpu_s(live) - before
            got["took"] = got["requests"] / got["rps"]
            both = figures.setdefault(
                ("deal save", kind), {"requests": 0, "errors": 0, "cpu": 0, "took": 0}
            )
            for key in ("requests", "errors", "cpu", "took"):
                both[key] += got[key]
            both["rps"] = both["requests"] / both["took"]
    for name in (*runs, "deal save"):
        sync_fig, asgi_fig = figures[(name, "sync")], figures[(name, "asgi")]
        share = asgi_fig["rps"] / sync_fig["rps"]
        per_cpu = (asgi_fig["requests"] / max(0.01, asgi_fig["cpu"])) / (
            sync_fig["requests"] / max(0.01, sync_fig["cpu"])
        )
        bad = sync_fig["errors"] + asgi_fig["errors"]
        judge(
            f"push: {name}, ASGI worker / sync worker",
            f"{share:.2f} ({asgi_fig['rps']:.0f} / {sync_fig['rps']:.0f} req/s; per server "
            f"CPU-second {per_cpu:.2f})" + (f"; {bad} answers not 2xx" if bad else ""),
            f">= {TARGETS['endpoint_share']}",
            share >= TARGETS["endpoint_share"] and not bad,
        )


# -- 2. 1,000 phones


def thousand_phones(db, env, tables, window, rng):
    """Server CPU-s a minute for the phones polling as today (the sync worker), polling on
    the ASGI worker, and pushed; judged: pushed against an eighth of polling today."""
    results = {}
    runs = (
        ("polling today", "polling", server.SYNC),
        ("polling", "polling", server.ASGI),
        ("pushed", "pushed", server.ASGI),
    )
    asked = len(tables) * PHONES / 2  # a poll every 2 s a phone
    for name, mode, app in runs:
        with server.gunicorn(db, server.WORKERS, app, **env) as live:
            cookie, csrf = csrf_cookie(live, tables[0])
            got = asyncio.run(phones.tables_playing(live, tables, cookie, csrf, mode, window, rng))
        results[name] = got
        resync_revisions(tables)
        worker = "sync" if app is server.SYNC else "ASGI"
        if mode == "polling":
            ms = got["cpu_per_minute"] * 1000 / 60 / max(1, got["polls_per_s"])
            say(
                f"push 1000 phones {name} ({worker} worker): {got['polls_per_s']:.0f} polls/s "
                f"served of {asked:.0f} asked, {ms:.2f} ms CPU a poll: "
                f"{got['cpu_per_minute_at_rate']:.2f} CPU-s a minute at a poll every 2 s a phone"
            )
        say(
            f"push 1000 phones {name} ({worker} worker): {got['cpu_per_minute']:.2f} server "
            f"CPU-s a minute  [{len(tables) * PHONES} phones, {got['saves']} deals in {window} s, "
            f"{got['behind']} phones behind at the end, {got['dropped']} streams dropped, "
            f"{got['beats']} heartbeats"
            + (f"; errors: {got['errors'][:3]}" if got["errors"] else "")
            + "]"
        )
    today = results["polling today"]["cpu_per_minute_at_rate"]
    pushed = results["pushed"]["cpu_per_minute"]
    on_asgi = results["polling"]["cpu_per_minute_at_rate"]
    judge(
        "push: 1,000 phones, server CPU pushed / polling today",
        f"{pushed / today:.3f} ({pushed:.2f} / {today:.2f} CPU-s a minute; "
        f"{pushed / on_asgi:.3f} of polling on the ASGI worker); "
        f"{results['pushed']['behind']} phones behind",
        "<= 1/8 (0.125), none behind",
        pushed <= today * TARGETS["cpu_share"] and not results["pushed"]["behind"],
    )


# -- 3. 10,000 streams


def held_streams(db, env, tables, hold):
    """10,000 streams held, saves timed until every phone of the table is told, in the app
    and in a bare ASGI broadcast on the same workers; judged on the app's, against both."""
    results = {}
    with server.gunicorn(db, server.WORKERS, server.ASGI, **env) as live:
        cookie, csrf = csrf_cookie(live, tables[0])
        saves = phones.AppSaves(live.port, tables, cookie, csrf)
        results["app"] = asyncio.run(
            phones.hold_and_save(
                live,
                tables,
                hold,
                SAVE_EVERY,
                saves,
                lambda index, table, phone: phones.phone_paths(table, phone)[1],
            )
        )
    results["app"]["fanout"] = phones.from_the_commit(results["app"]["all_told"], saves.committed())
    with server.gunicorn(db, server.WORKERS, BARE, **env) as live:
        bare = phones.BareSaves(live.port, len(tables))
        results["bare"] = asyncio.run(
            phones.hold_and_save(
                live, tables, hold, SAVE_EVERY, bare, lambda index, table, phone: f"/s/{index}"
            )
        )
    results["bare"]["fanout"] = phones.from_the_commit(
        results["bare"]["all_told"], bare.committed()
    )
    for name, label in (("app", "app"), ("bare", "bare ASGI broadcast")):
        got = results[name]
        lat, first, answered = got["latencies"], got["first"], got["answered"]
        fanout = got["fanout"]
        say(
            f"push {label}: {got['streams']} streams opened in {got['opened_in']:.1f} s, "
            f"held {hold} s, {got['dropped']} dropped, {got['beats']:.1f} heartbeats each; "
            f"workers' RSS {got['rss_mib']:.0f} MiB, {got['kib_per_stream']:.1f} KiB a "
            f"stream; {len(lat)} saves -> all 6 phones told: p50 {percentile(lat, 0.5):.1f} ms, "
            f"p95 {percentile(lat, 0.95):.1f} ms, p99 {percentile(lat, 0.99):.1f} ms (the "
            f"first phone told: p50 {percentile(first, 0.5):.1f}, p95 "
            f"{percentile(first, 0.95):.1f}; the save answered: p50 "
            f"{percentile(answered, 0.5):.1f}, p95 {percentile(answered, 0.95):.1f} ms); "
            f"from the {'commit' if name == 'app' else 'broadcast'} to all 6 told: p50 "
            f"{percentile(fanout, 0.5):.1f}, p95 {percentile(fanout, 0.95):.1f} ms"
        )
    app = results["app"]
    p95, p99 = percentile(app["latencies"], 0.95), percentile(app["latencies"], 0.99)
    judge(
        f"push: save -> all 6 phones told, p95 / p99, {app['streams']:,} streams held",
        f"{p95:.1f} / {p99:.1f} ms",
        f"<= {TARGETS['latency_p95_ms']:.0f} / {TARGETS['latency_p99_ms']:.0f} ms",
        p95 <= TARGETS["latency_p95_ms"] and p99 <= TARGETS["latency_p99_ms"],
    )
    fanout = percentile(app["fanout"], 0.95)
    floor = percentile(results["bare"]["fanout"], 0.95)
    judge(
        "push: commit -> all 6 phones told, p95 / a bare ASGI broadcast's",
        f"{fanout / floor:.2f} ({fanout:.1f} / {floor:.1f} ms)",
        f"<= {TARGETS['bare_factor']:.0f}",
        fanout <= TARGETS["bare_factor"] * floor,
    )
    judge(
        f"push: streams held {hold} s",
        f"{app['streams']:,}, {app['dropped']} dropped",
        f">= {TARGETS['streams']:,}, none dropped",
        app["streams"] >= TARGETS["streams"] and app["dropped"] == 0,
    )
    judge(
        "push: server memory a stream",
        f"{app['kib_per_stream']:.1f} KiB",
        f"<= {TARGETS['kib_per_stream']:.0f} KiB",
        app["kib_per_stream"] <= TARGETS["kib_per_stream"],
    )


# -- 4. tap Save -> every watcher's board, in Chromium


def watched_boards(db, env, game, deals):
    """One scorer and five watchers in Chromium (bench/watchers.py): from the save's
    post to every watcher's board showing the deal."""
    with server.gunicorn(db, server.WORKERS, server.ASGI, **env) as live:
        got = watchers.measure(live.port, game, deals)

    def p50_95(name):
        return f"p50 {percentile(got[name], 0.5):.0f}, p95 {percentile(got[name], 0.95):.0f} ms"

    say(
        f"push Chromium, 1 scorer and {watchers.WATCHERS} watchers, {deals} deals: the save "
        f"answered {p50_95('answered')}; a watcher told {p50_95('told')}; told -> its board "
        f"{p50_95('told_to_shown')} (told -> board asked {p50_95('told_to_asked')}; asked -> "
        f"first byte {p50_95('asked_to_byte')}; first byte -> shown {p50_95('byte_to_shown')}); "
        f"each watcher's board {p50_95('sent_to_each')} (all from the save's post)"
    )
    last = got["sent_to_all"]
    p95 = percentile(last, 0.95)
    judge(
        f"push: tap Save -> all {watchers.WATCHERS} watchers' boards show it, Chromium, "
        f"p50 / p95 of {deals} deals",
        f"{percentile(last, 0.5):.0f} / {p95:.0f} ms",
        f"p95 <= {TARGETS['board_p95_ms']:.0f} ms",
        p95 <= TARGETS["board_p95_ms"],
    )


# -- main


def measure(args, db):
    """Every push figure, on `db` (bench/server.py's), judged into the summary."""
    streams_wanted = args.streams or (2000 if args.quick else TARGETS["streams"])
    hold = args.hold or (20 if args.quick else 60)
    window = args.window or (20 if args.quick else 60)
    seconds = args.duration or (3 if args.quick else 10)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < streams_wanted + 1000:
        raise Broken(f"the open-files limit is {hard}: {streams_wanted} streams need more")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the servers inherit it
    if tools.wrk() is None:
        raise Broken("wrk is needed for the push endpoints")
    try:
        import uvloop  # the phones' event loop: less of the shared CPU than asyncio's own

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    from django.db import connections

    rng = random.Random(30)
    only = args.only
    games = {
        "shown": bench_games.points_game(rng, bench_games.SHOWN, "Push: shown"),
        "saves": bench_games.many_games(rng, bench_games.SAVE_GAMES, 0, "Push: saves"),
        "phones": bench_games.many_games(rng, PHONE_TABLES, 3, "Push: phones"),
        "held": [],
        "watched": bench_games.points_game(random.Random(36), 10, "Push: watched"),
    }
    if only in (None, "streams"):
        games["held"] = bench_games.many_games(rng, -(-streams_wanted // PHONES), 3, "Push: held")
    connections.close_all()
    # The embedded fan-out (sockets in the run's LIVE_DIR) even where the environment
    # names a Redis; the bare broadcast's sockets beside it.
    bare_dir = Path(os.environ["LIVE_DIR"]).with_name("bare")
    # Every phone here is 127.0.0.1: no cap on the streams of one address.
    env = {"BARE_DIR": str(bare_dir), "REDIS_URL": "", "STREAMS_PER_ADDRESS": "1000000"}
    say(
        f"push: {server.WORKERS} workers, SQLite, embedded fan-out; the phones (this "
        f"process) share the {os.cpu_count()} cores"
    )
    load.wait_quiet(QUIET_WAIT, before="the push figures")
    if only in (None, "browser"):
        watched_boards(db, env, games["watched"], args.deals or WATCHED_DEALS)
    if only in (None, "endpoints"):
        endpoints(db, env, games, seconds)
    if only in (None, "phones"):
        thousand_phones(db, env, games["phones"], window, rng)
    if only in (None, "streams"):
        held_streams(db, env, games["held"], hold)
    say(report.load_line())


def main(argv=None, db=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--streams", type=int, help="streams held (default 10,000; quick 2,000)")
    parser.add_argument("--hold", type=int, help="seconds they are held (default 60; quick 20)")
    parser.add_argument("--window", type=int, help="seconds of each 1,000-phone run (60; 20)")
    parser.add_argument("--duration", type=int, help="seconds of each wrk run (10; 3)")
    parser.add_argument("--deals", type=int, help="deals timed in Chromium (20)")
    parser.add_argument("--only", choices=["browser", "endpoints", "phones", "streams"])
    args = parser.parse_args(argv)
    if db is not None:  # bench/run.py's: it reports a break and prints the summary
        measure(args, db)
        return 0
    report.open_log("push.log")
    report.forget_server_logs()
    try:
        with tempfile.TemporaryDirectory(prefix="rummy-bench-") as tmp, server.database(tmp) as db:
            say(report.machine_line())
            say(report.load_line())
            measure(args, db)
            report.check_server_logs()
    except Broken as error:
        say(f"BENCHMARK BROKEN: {error}")
        report.summary()
        return 2
    report.summary()
    return 0


if __name__ == "__main__":
    sys.exit(main())
