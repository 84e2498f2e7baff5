"""The largest table the limits allow, read through its view link, timed in-process.

    .venv/bin/python bench/table_limit.py      # on its own: a fresh SQLite database

GAMES_PER_TABLE games of 10 players holding EVENTS_PER_TABLE events between
them (the most a table may hold: every read costs a little a game and a little
an event), made through the ORM. With Django's test client and the production
settings it times what anyone holding the view link may ask again and again,
each read replaying every game (nothing is kept): the table document
(`table.json`), the table page with every game listed and its money chart. Each figure is the median
CPU time of this process, in seconds; the target is 1 s each (issue 37).
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

NAMES = [f"Player {n}" for n in range(1, 11)]  # the most a game seats
TARGET_S = 1.0


def _history(rng, deals):
    history = []
    for _ in range(deals):
        winner = rng.choice(NAMES)
        results = {n: rng.choice([2, 17, 40, 80, "first_drop"]) for n in NAMES if n != winner}
        history.append({"type": "deal", "winner": winner, "results": results})
    return history


def make_table():
    """The largest table allowed: Points games (they never end by themselves)."""
    from django.conf import settings
    from django.db import transaction

    from tracker.models import Game, Table

    rng = random.Random(37)
    games, events = settings.GAMES_PER_TABLE, settings.EVENTS_PER_TABLE
    with transaction.atomic():
        table = Table.start("Bench: the largest table", NAMES)
        for n in range(games):
            deals = events // games + (n < events % games)
            Game.create("points", {}, NAMES, history=_history(rng, deals), table=table)
    return table


def measure(say=print, quick=False):
    """{"json", "page", "money_chart"}: median CPU seconds of each read."""
    from django.conf import settings
    from django.test import Client

    from bench.inprocess import median_ms

    began = time.perf_counter()
    table = make_table()
    say(
        f"largest table: {settings.GAMES_PER_TABLE} games, {settings.EVENTS_PER_TABLE} events "
        f"of 10 players, made in {time.perf_counter() - began:.1f} s"
    )
    client = Client()
    urls = {
        "json": f"/tw/{table.view_token}/table.json",
        "page": f"/tw/{table.view_token}/?games=all",  # every game listed: the most a page shows
        "money_chart": f"/tw/{table.view_token}/money.svg",
    }
    sizes = {}
    for key, url in urls.items():
        response = client.get(url)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        sizes[key] = len(response.content)
    repeat = 3 if quick else 7
    figures = {
        key: median_ms(lambda url=url: client.get(url), repeat, warm=1) / 1000
        for key, url in urls.items()
    }
    say(
        f"largest table, CPU a read: table.json {figures['json']:.2f} s "
        f"({sizes['json'] / 1e6:.1f} MB); page {figures['page']:.2f} s; "
        f"money chart {figures['money_chart']:.2f} s"
    )
    return figures


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench import server

    with tempfile.TemporaryDirectory(prefix="rummy-table-limit-") as tmp, server.database(tmp):
        figures = measure(quick="--quick" in argv)
    missed = [key for key, seconds in figures.items() if seconds > TARGET_S]
    print(
        f"target <= {TARGET_S:.0f} s each: " + ("MISS " + ", ".join(missed) if missed else "PASS")
    )


if __name__ == "__main__":
    main()
