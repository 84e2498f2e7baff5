"""`make bench`: what a family's phones ask of the tracker, each figure beside its
target with PASS or MISS, then the summary table (bench/README.md). Exits 0 whether
or not a target is met, 2 when the bench itself broke."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import phones, push, shared
from bench.shared import ASGI, OUT, ROOT, Broken, judge, say

PARTS = ("inprocess", "load", "lighthouse", *push.PARTS)
# Requests a second, as a share of the one-row baseline's in the same run (issue 28).
FLOORS = {"unchanged poll": 0.90, "fresh fragment": 0.12, "fresh page": 0.08, "deal save": 0.10}
CONNECTIONS = 16
ROUNDS = 5  # turns each load figure and the baseline take
LANGUAGES = ("en", "hi", "ta", "te")
CATEGORIES = ("performance", "accessibility", "best-practices")


def cpu_ms(ask, repeat, warm=2):
    """Median CPU ms of this process for `ask()`: others' work stretches it less than the clock."""
    for _ in range(warm):
        ask()
    times = []
    for _ in range(repeat):
        began = time.process_time()
        ask()
        times.append(time.process_time() - began)
    return statistics.median(times) * 1000


# -- in this process, with Django's test client


def in_process(games, quick):
    from django.test import Client

    client = Client()
    ms = {}
    for deals, game in games["growth"].items():
        url = f"/g/{game['edit']}/"
        page = client.get(url)
        if page.status_code != 200 or f"{deals} deals played".encode() not in page.content:
            raise Broken(f"the {deals}-deal game page answered {page.status_code}")
        repeat = max(3, {10: 30, 100: 20, 1000: 9}[deals] // (3 if quick else 1))
        ms[deals] = cpu_ms(lambda url=url: client.get(url), repeat)
        say(f"render {deals} deals: {ms[deals]:.1f} ms (page {len(page.content) / 1024:.1f} KB)")
    judge("render 1,000 deals cold", f"{ms[1000]:.1f} ms", "< 80 ms", ms[1000] < 80)
    slope = math.log(ms[1000] / ms[100]) / math.log(10)  # 1.0: grows as the deals do
    judge("growth 100 -> 1,000 deals", f"slope {slope:.2f}", "<= 1.10", slope <= 1.10)
    queries(games)
    hands()
    largest_table(quick)


def queries(games):
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    rng, counts = random.Random(5), {}
    for deals, game in games["queries"].items():
        phone, htmx = Client(), {"HTTP_HX_REQUEST": "true"}
        edit, view, revision = f"/g/{game['edit']}/", f"/w/{game['view']}/", game["revision"]
        phone.get(edit)  # its session made, as a phone that opened it before
        for name, method, path, data in (
            ("game page", phone.get, edit, {}),
            ("view link", phone.get, view, {}),
            ("live fragment", phone.get, f"{view}live/?v=0", htmx),
            ("unchanged poll", phone.get, f"{view}live/?v={revision}", htmx),
            (
                "deal save",
                phone.post,
                f"{edit}deal/",
                {"data": shared.deal_form(rng, revision), **htmx},
            ),
        ):
            with CaptureQueriesContext(connection) as done:
                status = method(path, **data).status_code
            if status not in (200, 204):
                raise Broken(f"{name}, {deals} deals: answered {status}")
            counts.setdefault(name, []).append(len(done))
    for name, (few, many) in counts.items():
        judge(f"SQL queries, {name} (5 / 500 deals)", f"{few} / {many}", "constant", few == many)


def hands():
    """2,000 random 13-card hands (the wild rank from a turned-up card) and 2,000 joker-heavy
    14-card hands, scored under the default house rules."""
    from tracker.rules.hand import RANKS, SUITS, score_hand

    rng = random.Random(13)
    shoe = [rank + suit for suit in SUITS for rank in RANKS] * 2 + ["PJ"] * 4

    def ordinary():
        *cards, up = rng.sample(shoe, 14)
        return cards, "PJ" if up == "PJ" else up[:-1]

    def joker_heavy():
        wild = rng.choice([*RANKS, "PJ"])
        rank = "A" if wild == "PJ" else wild
        jokers = ["PJ"] * 4 + [rank + suit for suit in SUITS] * 2
        others = [card for card in shoe if card != "PJ" and card[:-1] != rank]
        count = rng.randint(3, 6)
        return rng.sample(jokers, count) + rng.sample(others, 14 - count), wild

    for label, deal, target in (("13-card", ordinary, 1), ("14-card joker-heavy", joker_heavy, 10)):
        dealt = [deal() for _ in range(2000)]
        for cards, wild in dealt[:50]:  # warm up
            score_hand(cards, wild)
        seconds = []
        for cards, wild in dealt:
            began = time.process_time()
            score_hand(cards, wild)
            seconds.append(time.process_time() - began)
        p99 = statistics.quantiles(seconds, n=100, method="inclusive")[98] * 1000
        judge(f"hand calculator p99, {label}", f"{p99:.2f} ms", f"<= {target} ms", p99 <= target)


def largest_table(quick):
    """The most a table may hold, read through its view link, every game replayed."""
    from django.conf import settings
    from django.db import transaction
    from django.test import Client

    from tracker.models import Game, Table

    names, rng = [f"Player {n}" for n in range(1, 11)], random.Random(37)
    count, events = settings.GAMES_PER_TABLE, settings.EVENTS_PER_TABLE
    with transaction.atomic():
        table = Table.start("Bench: the largest table", names)
        for n in range(count):
            history = [
                shared.random_deal(rng, names)
                for _ in range(events // count + (n < events % count))
            ]
            Game.create("points", {}, names, history=history, table=table)
    client, token = Client(), table.view_token
    for what, url in (
        ("table.json", f"/tw/{token}/table.json"),
        ("table page, every game", f"/tw/{token}/?games=all"),
        ("money chart", f"/tw/{token}/money.svg"),
    ):
        if (status := client.get(url).status_code) != 200:
            raise Broken(f"{url} answered {status}")
        seconds = cpu_ms(lambda url=url: client.get(url), 3 if quick else 7, warm=0) / 1000
        figure = f"largest table allowed ({count} games, {events:,} events), {what}, CPU"
        judge(figure, f"{seconds:.2f} s", "<= 1 s", seconds <= 1)


# -- load tests: this process's phones on gunicorn's sync worker and `make run`'s ASGI worker


def load_tests(db, games, quick):
    """Requests a second of what a phone asks as a share of the one-row baseline's, on the
    sync worker; and each on the ASGI worker as a share of the sync worker's."""
    seconds, shown = (3 if quick else 10), games["shown"]
    fragment = f"/w/{shown['view']}/live/?v="
    gets = {
        "baseline": ("/bench/baseline/", (), 200, "ok "),
        "unchanged poll": (f"{fragment}{shown['revision']}", phones.HTMX, 204, ""),
        "fresh fragment": (f"{fragment}0", phones.HTMX, 200, 'id="history"'),
        "fresh page": (f"/g/{shown['edit']}/", (), 200, 'id="deal-entry"'),
    }
    with shared.gunicorn(db) as sync, shared.gunicorn(db, ASGI) as asgi:
        for (name, (path, headers, status, needle)), live in itertools.product(
            gets.items(), (sync, asgi)
        ):
            got = live.browser().get(path, headers=dict(h.split(": ") for h in headers))
            if got.status != status or needle not in got.body:
                raise Broken(f"{name}: GET {path} answered {got.status}, not {status}, {needle}")
        asks = {name: phones.asking(path, headers) for name, (path, headers, _, _) in gets.items()}
        asks["deal save"] = phones.saving(sync, games["saves"], CONNECTIONS)
        shared.wait_quiet(60, "the load tests")
        for ask, live in itertools.product(asks.values(), (sync, asgi)):  # every worker warm
            asyncio.run(phones.load(live.port, 1, CONNECTIONS, ask))
        # Rounds: every figure and the baseline take turns, a short slice each, so a
        # shared machine's speed drifting over the run weighs on each alike.
        names, rounds = ["baseline", *FLOORS], (2 if quick else ROUNDS)
        slice_s = seconds / rounds / 2  # a turn on a worker
        figures = {name: {"sync": Counter(), "asgi": Counter()} for name in names}
        (total, busy), ours = shared.machine_cpu(), shared.ours_cpu_s(sync, asgi)
        for _round, name in itertools.product(range(rounds), names):
            # Each save makes a game longer and its next save costlier: the workers take
            # turns, half the time each turn, so neither has the longer games alone.
            for kind, live in (("sync", sync), ("asgi", asgi), ("asgi", asgi), ("sync", sync)):
                before = shared.ours_cpu_s(live)
                got = asyncio.run(phones.load(live.port, slice_s, CONNECTIONS, asks[name]))
                figures[name][kind].update(
                    n=got["requests"],
                    bad=got["errors"],
                    s=got["requests"] / got["rps"],
                    cpu=shared.ours_cpu_s(live) - before,
                )
        (total2, busy2), ours = shared.machine_cpu(), shared.ours_cpu_s(sync, asgi) - ours
        share = (busy2 - busy) / max(1, total2 - total) * 100
        others = max(0, share - ours * os.sysconf("SC_CLK_TCK") / (total2 - total) * 100)
        say(
            f"load: {rounds} rounds of {seconds / rounds:.0f} s a figure "
            f"[CPU {share:.0f} % busy, {others:.0f} % not ours]"
        )
        for name in names:
            rps = {k: f["n"] / f["s"] for k, f in figures[name].items()}
            say(f"load {name}: sync worker {rps['sync']:.0f} req/s, ASGI worker {rps['asgi']:.0f}")

    def ratio(of, to, by="s"):  # requests a second (by="s") or a CPU-second (by="cpu")
        return (of["n"] / max(0.01, of[by])) / (to["n"] / max(0.01, to[by]))

    for name in FLOORS:
        got, baseline = figures[name]["sync"], figures["baseline"]["sync"]
        by = {u: ratio(got, baseline, u) for u in ("s", "cpu")}
        bad = f" ({got['bad']} answers not 2xx)" if got["bad"] else ""
        label = name + {"unchanged poll": " (204)", "fresh fragment": " (50 deals)"}.get(name, "")
        judge(
            label,
            f"{by['s']:.2f} (per CPU-second {by['cpu']:.2f}){bad}",
            f">= {FLOORS[name]}",
            by["s"] >= FLOORS[name] and not got["bad"],
        )
    for name in asks:
        sync, asgi = figures[name]["sync"], figures[name]["asgi"]
        bad = sync["bad"] + asgi["bad"]
        judge(
            f"push: {name}, ASGI worker / sync worker",
            f"{ratio(asgi, sync):.2f} (per CPU-second {ratio(asgi, sync, 'cpu'):.2f})"
            + (f"; {bad} not 2xx" if bad else ""),
            ">= 0.85",
            ratio(asgi, sync) >= 0.85 and not bad,
        )
    say(shared.load_line())


# -- Lighthouse, mobile, on the game screen in each language, as `make run` serves it


def lighthouse(db, games, quick):
    binary = ROOT / "bench" / "node_modules" / ".bin" / "lighthouse"
    shared.install("chromium")  # says why when chromium cannot be had
    chromium = shutil.which("chromium")
    if chromium is None or not shared.install("lighthouse"):
        judge("lighthouse", "not run (scripts/chromium.sh, lighthouse.sh said why)", "runs", False)
        return
    runs, path = (1 if quick else 3), f"/g/{games['shown']['edit']}/"
    versions = [
        subprocess.run([b, "--version"], capture_output=True, text=True).stdout.strip()
        for b in (binary, chromium)
    ]
    say(f"lighthouse {versions[0]}, {versions[1]}, mobile, median of {runs}")
    with shared.gunicorn(db, ASGI) as live:
        for language in LANGUAGES:
            page = live.browser().get(path, headers={"Accept-Language": language})
            served = re.search(r'<html lang="([^"]+)"', page.body)
            if page.status != 200 or not served:
                raise Broken(f"GET {path} (Accept-Language: {language}) answered {page.status}")
            passes = []
            for attempt in range(1, runs + 4):
                try:
                    passes.append(lighthouse_once(binary, chromium, live.url + path, language))
                except (Broken, subprocess.TimeoutExpired) as error:
                    # Chromium now and then loses the trace (NO_NAVSTART): try again.
                    say(f"lighthouse game screen {language}: try {attempt} failed: {error}")
                if len(passes) == runs:
                    break
            if not passes:
                judge(f"lighthouse game screen {language}", "no run finished", "runs", False)
                continue
            got = {k: int(statistics.median(p[0][k] for p in passes)) for k in CATEGORIES}
            below = sorted({audit for p in passes for audit in p[1]})
            if below:
                say(f"lighthouse game screen {language}: below full marks: {', '.join(below)}")
            where = language if served[1] == language else f"{language}, served in {served[1]}"
            judge(
                f"lighthouse game screen ({where}): accessibility / best practices",
                f"{got['accessibility']} / {got['best-practices']} "
                f"(performance {got['performance']})",
                "100 / 100",
                got["accessibility"] == got["best-practices"] == 100,
            )


def lighthouse_once(binary, chromium, url, language):
    """({category: score}, [audits below full marks]) of one Lighthouse run."""
    out = OUT / f"lighthouse-game-{language}.json"
    out.unlink(missing_ok=True)
    cmd = [
        str(binary),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        f"--extra-headers={json.dumps({'Accept-Language': language})}",
    ]
    env = {**os.environ, "CHROME_PATH": chromium}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not out.exists():
        raise Broken(f"lighthouse exited {done.returncode}: {done.stderr.strip()[-300:]}")
    report = json.loads(out.read_text())
    if report.get("runtimeError"):
        raise Broken(f"lighthouse: {report['runtimeError']}")
    categories = report["categories"].values()
    below = [
        ref["id"]
        for category in categories
        for ref in category["auditRefs"]
        if ref.get("weight") and report["audits"][ref["id"]].get("score") not in (None, 1)
    ]
    return {c["id"]: round(c["score"] * 100) for c in categories}, below


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short try (bench/README.md)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"some of {','.join(PARTS)}")
    args = parser.parse_args(argv)
    only = args.only.split(",")
    if set(only) - set(PARTS):
        parser.error(f"--only takes some of {','.join(PARTS)}")
    OUT.mkdir(parents=True, exist_ok=True)
    shared.LOG.append((OUT / "run.log").open("w"))
    for old in OUT.glob("gunicorn-*.log"):
        old.unlink()
    try:
        import uvloop  # the phones' event loop: less of the shared CPU than asyncio's own

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        with tempfile.TemporaryDirectory(prefix="rummy-bench-") as tmp, shared.database(tmp) as db:
            say(shared.machine_line())
            games = shared.make_games()
            if "inprocess" in only:
                in_process(games, args.quick)
            from django.db import connections

            connections.close_all()
            if "load" in only:
                load_tests(db, games, args.quick)
            if "lighthouse" in only:
                lighthouse(db, games, args.quick)
            push.measure(db, args.quick, only)
            if "Traceback" in "".join(p.read_text() for p in OUT.glob("gunicorn-*.log")):
                say("warning: gunicorn logged a traceback: see bench/out/gunicorn-*.log")
    except Broken as error:
        say(f"BENCHMARK BROKEN: {error}")
        shared.summary()
        return 2
    shared.summary()
    return 0


if __name__ == "__main__":
    sys.exit(main())
