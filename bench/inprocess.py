"""In-process CPU times of the game screen's parts, requests and one table cycle.

    .venv/bin/python bench/inprocess.py [--cycles N] [--cycle-only]

The figures of bench/README.md's tables "Making the fresh path fast" and "per
cycle, in-process CPU": a fresh SQLite database and cache folder in a temporary
folder, a 6-player Points game of 50 deals, and Django's test client. Every
figure is the median CPU time of this process (user + system), so other work
on a shared machine stretches it less than the clock. Not part of `make bench`.
--cycles sets the number of table cycles (80; the first 8 warm up), and
--cycle-only leaves out the parts and requests before them.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import run  # bench/run.py, beside this script

ROOT = Path(__file__).resolve().parent.parent


def median_ms(fn, repeat=60, warm=3):
    """bench/run.py's median CPU time of one call, with this script's repeats."""
    return run.median_ms(fn, repeat, warm)


def setup():
    tmp = Path(tempfile.mkdtemp(prefix="rummy-inprocess-"))
    os.environ.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=f"sqlite:///{tmp / 'bench.sqlite3'}",
        CACHE_DIR=str(tmp / "cache"),
        DEBUG="0",
        HTTPS="off",
        SECRET_KEY="bench-only-not-a-secret-" + "0123456789abcdef" * 3,
        ALLOWED_HOSTS="*",
        GAMES_PER_HOUR="1000000",
    )
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)


def deal_form(rng, revision, players):
    from bench.run import random_history

    deal = random_history(rng, 1, players)[0]
    form = {"version": str(revision), "winner": str(players.index(deal["winner"]) + 1)}
    for name, result in deal["results"].items():
        seat = players.index(name) + 1
        form[f"r{seat}"] = result if isinstance(result, str) else "points"
        form[f"p{seat}"] = "" if isinstance(result, str) else str(result)
    return urlencode(form)


def _timing(fn, name, into):
    """`fn`, adding the CPU time of each call to into[name] while into["on"]."""

    def timed(*args, **kwargs):
        if not into.get("on"):
            return fn(*args, **kwargs)
        began = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            into.setdefault(name, []).append(time.process_time() - began)

    return timed


def _save_parts():
    from django.db import connections

    from tracker import views
    from tracker.models import Game

    sqlite = type(connections["default"])
    return [
        (views, "_get_game_or_404"),  # the game row, by the link's key
        (views, "_state"),  # the state kept for the revision (a cache read)
        (Game, "add_event"),  # transaction: locked read, insert, revision bump, commit
        (sqlite, "_commit"),  # of which the SQLite COMMIT
        (views, "_keep_state"),  # the new state written to the cache
        (views, "_game_context"),  # laying out the answer
        (views, "render_to_string"),  # the template engine
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=80)
    parser.add_argument("--cycle-only", action="store_true")
    args = parser.parse_args()
    setup()
    from django.core.cache import cache
    from django.template.loader import render_to_string
    from django.test import Client, RequestFactory

    from bench.fresh import PAGE_KEYS
    from bench.run import PLAYERS, random_history
    from tracker import views
    from tracker.models import Game

    if not args.cycle_only:
        game = Game.create(
            "points", {}, PLAYERS, None, "In-process", random_history(random.Random(1), 50)
        )
        state = game.state()
        request = RequestFactory().get("/")
        print("part rendered (Django template engine), ms:")
        for link, can_edit in (("view", False), ("edit", True)):
            context = views._game_context(game, state, can_edit, oob=True)
            parts = ["board", "history", "live"] + (["deal-form", "game"] if can_edit else [])
            for part in parts:
                ms = median_ms(
                    lambda p=part, c=context: render_to_string(f"tracker/game.html#{p}", c, request)
                )
                print(f"  {link} {part}: {ms:.2f}")
            ms = median_ms(lambda c=context: render_to_string("tracker/game.html", c, request))
            print(f"  {link} page: {ms:.2f}")

        found = cache.get

        def pages_missing(key, *args, **kwargs):
            return None if key.startswith(PAGE_KEYS) else found(key, *args, **kwargs)

        htmx, plain = Client(HTTP_HX_REQUEST="true"), Client()
        fragment = f"/w/{game.view_token}/live/?v=0"
        page = f"/g/{game.edit_token}/"
        print("request (test client), ms:")
        print(f"  baseline: {median_ms(lambda: plain.get('/bench/baseline/')):.2f}")
        print(f"  fragment, cache-hit: {median_ms(lambda: htmx.get(fragment)):.2f}")
        print(f"  page, cache-hit: {median_ms(lambda: plain.get(page)):.2f}")
        for name, get in (("fresh", pages_missing), ("cold", lambda *a, **k: None)):
            cache.get = get
            try:
                print(f"  fragment, {name}: {median_ms(lambda: htmx.get(fragment)):.2f}")
                print(f"  page, {name}: {median_ms(lambda: plain.get(page)):.2f}")
            finally:
                cache.get = found

    # One table cycle: a save by one of 4 editing phones, then 4 edit-link and 2 view-link polls.
    tables = [
        Game.create("points", {}, PLAYERS, None, f"Table {i}", random_history(random.Random(i), 50))
        for i in range(4)
    ]
    editors = [Client(HTTP_HX_REQUEST="true") for _ in range(4)]
    watchers = [Client(HTTP_HX_REQUEST="true") for _ in range(2)]
    for phone in editors:
        phone.get(f"/g/{tables[0].edit_token}/")
    seen = {t.pk: (t.events.count(), t.revision) for t in tables}
    rng = random.Random(3)
    cycles, parts = [], {}

    def timed(name, fn):
        began = time.process_time()
        response = fn()
        parts.setdefault(name, []).append(time.process_time() - began)
        return response

    # What a save spends, part by part: each part's CPU time per save.
    save_parts = {}
    for owner, name in _save_parts():
        setattr(owner, name, _timing(getattr(owner, name), name, save_parts))
    skip = 8  # the first cycles warm up

    for n in range(args.cycles):
        table = tables[n % len(tables)]
        events, revision = seen[table.pk]
        began = time.process_time()
        save_parts["on"] = n >= skip
        saved = timed(
            "save",
            lambda t=table, e=revision, saver=editors[n % 4]: saver.post(
                f"/g/{t.edit_token}/deal/",
                deal_form(rng, e, PLAYERS),
                content_type="application/x-www-form-urlencoded",
            ),
        )
        save_parts["on"] = False
        assert saved.status_code == 200, saved.status_code
        polls = [(f"edit {i}", p, f"/g/{table.edit_token}/live/") for i, p in enumerate(editors)]
        polls += [(f"view {i}", p, f"/w/{table.view_token}/live/") for i, p in enumerate(watchers)]
        for name, phone, url in polls:
            board = timed(name, lambda p=phone, u=url, r=revision: p.get(f"{u}?v={r}"))
            assert f'data-revision="{revision + 1}"' in board.content.decode(), name
        cycles.append(time.process_time() - began)
        seen[table.pk] = (events + 1, revision + 1)
    print(
        f"table cycle, median of {len(cycles) - skip}: "
        f"{statistics.median(cycles[skip:]) * 1000:.1f} ms"
    )
    print(
        "  " + ", ".join(f"{k} {statistics.median(v[skip:]) * 1000:.2f}" for k, v in parts.items())
    )
    del save_parts["on"]
    counted = len(cycles) - skip
    print(f"the save's parts, CPU ms per save (mean of {counted}; the whole save's median above):")
    print("  " + ", ".join(f"{k} {sum(v) / counted * 1000:.2f}" for k, v in save_parts.items()))


if __name__ == "__main__":
    main()
