"""The family table's page with 200 games of 30 deals each, timed in-process.

    .venv/bin/python bench/table.py            # on its own: a fresh SQLite database
    .venv/bin/python bench/table.py --quick    # fewer repeats

`make bench` calls `measure` beside its other in-process figures. With
Django's test client and the production settings it times the table page
(edit link) opened again, after a deal saved in one game, after the cache is
cleared (each replays every game: nothing is kept), and the money chart: the
median CPU time of this process, as bench/inprocess.py's figures.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

GAMES, DEALS = 200, 30
NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Divya", "Arjun", "Dev", "Lata"]


def _history(rng, seats):
    history = []
    for _ in range(DEALS):
        winner = rng.choice(seats)
        results = {
            name: rng.choice([0, 2, 5, 9, 17, 25, "first_drop", "middle_drop"])
            for name in seats
            if name != winner
        }
        history.append({"type": "deal", "winner": winner, "results": results})
    return [*history, {"type": "end"}]


def make_table():
    """A table of 8 members with 200 points games of 30 deals, 3 to 6 seats each."""
    from tracker.models import Game, Table

    rng = random.Random(11)
    table = Table.start("Bench: 200 games", NAMES)
    for n in range(GAMES):
        seats = sorted(rng.sample(NAMES, 3 + n % 4), key=NAMES.index)
        Game.create("points", {}, seats, history=_history(rng, seats), table=table)
    return table


def measure(say=print, quick=False):
    """The table page's times in ms: {"warm", "one_changed", "cold", "money_chart"}."""
    from django.core.cache import cache
    from django.test import Client

    from bench.inprocess import median_ms
    from tracker.models import Game

    began = time.perf_counter()
    table = make_table()
    say(f"table: made {GAMES} games of {DEALS} deals in {time.perf_counter() - began:.1f} s")
    client = Client()
    url = table.get_absolute_url()
    page = client.get(url)
    if page.status_code != 200 or f"{GAMES} games".encode() not in page.content:
        raise RuntimeError(f"the table page answered {page.status_code}")
    repeat = 5 if quick else 15
    game = Game.objects.filter(table=table).order_by("-pk").first()

    def one_changed():
        game.revision += 1  # as a saved deal does: this game is replayed again
        Game.objects.filter(pk=game.pk).update(revision=game.revision)
        return client.get(url)

    def cold():
        cache.clear()
        return client.get(url)

    figures = {
        "warm": median_ms(lambda: client.get(url), repeat),
        "one_changed": median_ms(one_changed, repeat),
        "cold": median_ms(cold, max(3, repeat // 3)),
        "money_chart": median_ms(lambda: client.get(f"/t/{table.edit_token}/money.svg"), repeat),
    }
    say(
        f"table page, {GAMES} games x {DEALS} deals: {figures['warm']:.1f} ms (one game "
        f"changed {figures['one_changed']:.1f} ms; nothing kept {figures['cold']:.0f} ms; "
        f"money chart {figures['money_chart']:.1f} ms; page {len(page.content) / 1024:.1f} KB)"
    )
    return figures


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench import server

    with tempfile.TemporaryDirectory(prefix="rummy-table-bench-") as tmp, server.database(tmp):
        measure(quick="--quick" in argv)


if __name__ == "__main__":
    main()
