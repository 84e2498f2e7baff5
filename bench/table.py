"""The family table's page with 200 games of 30 deals each, timed in-process.

    .venv/bin/python bench/table.py            # on its own: a fresh SQLite database
    .venv/bin/python bench/table.py --quick    # fewer repeats

`make bench` (bench/run.py) calls `measure` in the same run as the other
in-process figures. What it times, with Django's test client and the
production settings (bench.settings):

- the table page (edit link) when every game's replay is kept (a phone
  opening the table again), and after a deal saved in one game (one game
  replayed again): target under 100 ms;
- the first render with nothing kept (every game replayed once);
- the money chart;
- the baseline view (`/bench/baseline/`) the same way, and the ratio.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES, DEALS = 200, 30
TARGET_MS = 100.0
NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Divya", "Arjun", "Dev", "Lata"]


def _median_ms(fn, repeat, warm=1):
    for _ in range(warm):
        fn()
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def _history(rng, fmt, seats):
    history = []
    for _ in range(DEALS):
        winner = rng.choice(seats)
        results = {}
        for name in seats:
            if name != winner:
                results[name] = rng.choice([0, 2, 5, 9, 17, 25, "first_drop", "middle_drop"])
        history.append({"type": "deal", "winner": winner, "results": results})
    if fmt == "points":
        history.append({"type": "end"})
    return history


def make_table():
    """A table of 8 members with 200 points games of 30 deals, 3 to 6 seats each."""
    from tracker.models import Game, Table

    rng = random.Random(11)
    table = Table.start("Bench: 200 games", NAMES)
    for n in range(GAMES):
        seats = rng.sample(NAMES, 3 + n % 4)
        seats.sort(key=NAMES.index)
        Game.create("points", {}, seats, history=_history(rng, "points", seats), table=table)
    return table


def measure(say=print, quick=False):
    """Time the table page; returns the figures (ms) and whether the target was met."""
    from django.core.cache import cache
    from django.test import Client

    from tracker.models import Game

    began = time.perf_counter()
    table = make_table()
    say(f"table: made {GAMES} games of {DEALS} deals in {time.perf_counter() - began:.1f} s")
    client = Client()
    url = table.get_absolute_url()
    response = client.get(url)
    if response.status_code != 200 or f"{GAMES} games".encode() not in response.content:
        raise RuntimeError(f"the table page answered {response.status_code}")
    repeat = 5 if quick else 15

    def cold():
        cache.clear()
        return client.get(url)

    game = Game.objects.filter(table=table).order_by("-pk").first()

    def one_changed():
        game.revision += 1  # as a saved deal does: this game is replayed again
        Game.objects.filter(pk=game.pk).update(revision=game.revision)
        return client.get(url)

    figures = {
        "warm_ms": _median_ms(lambda: client.get(url), repeat),
        "one_game_changed_ms": _median_ms(one_changed, repeat),
        "cold_ms": _median_ms(cold, max(3, repeat // 3)),
        "money_chart_ms": _median_ms(
            lambda: client.get(f"/t/{table.edit_token}/money.svg"), repeat
        ),
        "baseline_ms": _median_ms(lambda: client.get("/bench/baseline/"), repeat * 4),
    }
    figures["ratio"] = figures["warm_ms"] / figures["baseline_ms"]
    figures["bytes"] = len(response.content)
    met = figures["warm_ms"] < TARGET_MS and figures["one_game_changed_ms"] < TARGET_MS
    say(
        f"table page, {GAMES} games x {DEALS} deals: {figures['warm_ms']:.1f} ms "
        f"(one game changed {figures['one_game_changed_ms']:.1f} ms; nothing kept "
        f"{figures['cold_ms']:.0f} ms; money chart {figures['money_chart_ms']:.1f} ms; "
        f"page {figures['bytes'] / 1024:.1f} KB)"
    )
    say(
        f"table page vs baseline view in-process: {figures['warm_ms']:.1f} / "
        f"{figures['baseline_ms']:.2f} ms = x{figures['ratio']:.1f}; target under "
        f"{TARGET_MS:.0f} ms: {'PASS' if met else 'FAIL'}"
    )
    figures["met"] = met
    return figures


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    tmp = Path(tempfile.mkdtemp(prefix="rummy-table-bench-"))
    os.environ.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=f"sqlite:///{tmp / 'bench.sqlite3'}",
        DEBUG="0",
        HTTPS="off",
        SECRET_KEY="bench-only-not-a-secret-" + "0123456789abcdef" * 3,
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
    )
    sys.path.insert(0, str(ROOT))
    warnings.filterwarnings("ignore", "No directory at")
    import django
    from django.core.management import call_command

    django.setup()
    from django.conf import settings

    # The test client asks over plain HTTP; serve static files plainly.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    call_command("migrate", "--noinput", verbosity=0)
    figures = measure(quick="--quick" in argv)
    return 0 if figures["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
