"""Figures taken in this process with Django's test client, no server between:
the game screen's render as a game grows (and where its time goes), the SQL
queries a request makes at 5 and at 500 deals, the hand calculator, the family
table's page, and (--profile) pyinstrument profiles of the measured requests.

Times are the median CPU time of this process (user + system): other work on
a shared machine stretches the clock more than the work.
"""

from __future__ import annotations

import math
import random
import statistics
import time

from bench.games import PLAYERS, deal_form
from bench.report import OUT, Broken, say

HTMX = {"HTTP_HX_REQUEST": "true"}


def median_ms(fn, repeat, warm=2):
    for _ in range(warm):
        fn()
    times = []
    for _ in range(repeat):
        began = time.process_time()
        fn()
        times.append(time.process_time() - began)
    return statistics.median(times) * 1000


def render_growth(games, quick):
    """The game screen (edit link) of 10, 100 and 1,000-deal games: {deals: ms}, slope."""
    from django.template.loader import render_to_string
    from django.test import Client, RequestFactory

    from tracker.models import Game
    from tracker.views.games import game_context

    client = Client()
    request = RequestFactory().get("/")
    times = {}
    for deals, made in games["growth"].items():
        url = f"/g/{made['edit']}/"
        page = client.get(url)
        if page.status_code != 200 or f"{deals} deals played".encode() not in page.content:
            raise Broken(f"the {deals}-deal game page answered {page.status_code}")
        repeat = max(3, {10: 30, 100: 20, 1000: 9}[deals] // (3 if quick else 1))
        times[deals] = median_ms(lambda url=url: client.get(url), repeat)
        # The same work step by step: read the rows, replay, lay out, the template.
        game = Game.by_link(made["edit"], True)
        names, history = game.seat_names(), game.history()
        state = game.replay(history, names)
        context = game_context(game, state, True)
        steps = {
            "read": lambda g=game: (g.seat_names(), g.history()),
            "replay": lambda g=game, h=history, n=names: g.replay(h, n),
            "lay out": lambda g=game, s=state: game_context(g, s, True),
            "template": lambda c=context: render_to_string("tracker/game.html", c, request),
        }
        parts = ", ".join(f"{name} {median_ms(fn, repeat):.1f}" for name, fn in steps.items())
        say(
            f"render {deals} deals: {times[deals]:.1f} ms  ({parts} ms; "
            f"page {len(page.content) / 1024:.1f} KB)"
        )
    slope = math.log(times[1000] / times[100]) / math.log(10)
    say(f"growth 100 -> 1,000 deals: x{times[1000] / times[100]:.2f} (log-log slope {slope:.2f})")
    return {"ms": times, "slope": slope}


def _phone_requests(phone, made, rng):
    """The requests a phone makes of one game, as callables."""
    edit, view, revision = f"/g/{made['edit']}/", f"/w/{made['view']}/", made["revision"]
    return {
        "game page": lambda: phone.get(edit),
        "view link": lambda: phone.get(view),
        "live fragment": lambda: phone.get(f"{view}live/?v=0", **HTMX),
        "unchanged poll": lambda: phone.get(f"{view}live/?v={revision}", **HTMX),
        "deal save": lambda: phone.post(f"{edit}deal/", deal_form(rng, revision), **HTMX),
    }


def query_counts(games):
    """SQL queries of each request a phone makes, on a game of 5 and of 500 deals."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    rng = random.Random(5)
    counts = {}
    for deals, made in games["queries"].items():
        phone = Client()
        phone.get(f"/g/{made['edit']}/")  # the session made, as a phone that opened it before
        for name, ask in _phone_requests(phone, made, rng).items():
            with CaptureQueriesContext(connection) as queries:
                answer = ask()
            if answer.status_code not in (200, 204):
                raise Broken(f"{name}, {deals} deals: answered {answer.status_code}")
            counts.setdefault(name, {})[deals] = len(queries)
    for name, by_deals in counts.items():
        say(f"queries {name}: " + ", ".join(f"{n} at {d} deals" for d, n in by_deals.items()))
    return counts


def hands():
    """The hand calculator: {label: (hands a second, p50 ms, p99 ms)} (bench/hands.py)."""
    from bench import hands

    return hands.measure(say)


def table_page(quick):
    """The family table's page with 200 games of 30 deals (bench/table.py)."""
    from bench import table

    return table.measure(say, quick)


def profiles(games, count):
    """pyinstrument profiles of the measured requests, in-process: bench/out/profile-*.txt."""
    from django.test import Client
    from pyinstrument import Profiler

    from tracker.models import Game

    shown = games["shown"]
    phone = Client()
    rng = random.Random(7)
    saving = {"game": None, "version": 0}

    def save():
        if saving["version"] % 60 == 0:  # a fresh game now and then, as the load test's
            saving["game"], saving["version"] = Game.create("points", {}, PLAYERS), 0
        url = f"/g/{saving['game'].edit_token}/deal/"
        answer = phone.post(url, deal_form(rng, saving["version"]), **HTMX)
        if answer.status_code != 200:
            raise Broken(f"profile: the deal save answered {answer.status_code}")
        saving["version"] += 1

    asked = {
        "baseline": lambda: phone.get("/bench/baseline/"),
        "fresh-fragment": lambda: phone.get(f"/w/{shown['view']}/live/?v=0", **HTMX),
        "fresh-page": lambda: phone.get(f"/g/{shown['edit']}/"),
        "deal-save": save,
    }
    for name, ask in asked.items():
        for _ in range(5):
            ask()
        profiler = Profiler(interval=0.0005)
        began = time.perf_counter()
        with profiler:
            for _ in range(count):
                ask()
        each = (time.perf_counter() - began) / count * 1000
        (OUT / f"profile-{name}.txt").write_text(profiler.output_text(color=False))
        (OUT / f"profile-{name}.html").write_text(profiler.output_html())
        say(f"profile {name}: {each:.2f} ms a request in-process -> bench/out/profile-{name}.txt")
