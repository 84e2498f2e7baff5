"""The games a bench run measures, made through the ORM as an import makes them:
6-player Points games (a game that never ends by itself, so every deal saves)."""

from __future__ import annotations

import random

PLAYERS = ["Asha", "Ravi", "Meena", "Kiran", "Divya", "Arjun"]
SHOWN = 50  # deals in the game the load tests and Lighthouse open
GROWTH = (10, 100, 1000)  # deals in the games rendered in-process
QUERIES = (5, 500)  # deals in the games whose SQL queries are counted
SAVE_GAMES = 64  # games the deal saves go round: more than connections, rarely two on one
TABLES = 12  # games at the table-cycle load at once


def random_history(rng, deals, names=PLAYERS):
    """`deals` deals of a points game: a winner, then points or a drop for each other player."""
    history = []
    for _ in range(deals):
        winner = rng.choice(names)
        results = {}
        for name in names:
            if name == winner:
                continue
            roll = rng.random()
            if roll < 0.1:
                results[name] = "first_drop"
            elif roll < 0.2:
                results[name] = "middle_drop"
            elif roll < 0.23:
                results[name] = "full_count"
            else:
                results[name] = rng.randint(2, 80)
        history.append({"type": "deal", "winner": winner, "results": results})
    return history


def deal_form(rng, version, names=PLAYERS):
    """The deal form's fields for one random deal, made against `version`."""
    deal = random_history(rng, 1, names)[0]
    form = {"version": str(version), "winner": str(names.index(deal["winner"]) + 1)}
    for name, result in deal["results"].items():
        seat = names.index(name) + 1
        form[f"r{seat}"] = result if isinstance(result, str) else "points"
        form[f"p{seat}"] = "" if isinstance(result, str) else str(result)
    return form


def points_game(rng, deals, name):
    """A game of `deals` random deals, as {"id", "edit", "view", "revision", "deals"}."""
    from tracker.models import Game

    made = Game.create("points", {}, PLAYERS, None, name, random_history(rng, deals))
    return {
        "id": made.pk,
        "edit": made.edit_token,
        "view": made.view_token,
        "revision": made.revision,
        "deals": deals,
    }


def many_games(rng, count, deals, name):
    """`count` games of `deals` deals, named "NAME 1" to "NAME count", in one transaction."""
    from django.db import transaction

    with transaction.atomic():
        return [points_game(rng, deals, f"{name} {i + 1}") for i in range(count)]


def make_games():
    """Every game a run needs (bench/push.py makes its own, with many_games)."""
    rng = random.Random(13)
    return {
        "shown": points_game(rng, SHOWN, f"Bench: {SHOWN} deals"),
        "saves": many_games(rng, SAVE_GAMES, 0, "Bench: saves"),
        "tables": many_games(rng, TABLES, SHOWN, "Bench: table"),
        "growth": {n: points_game(rng, n, f"Bench: {n} deals") for n in GROWTH},
        "queries": {n: points_game(rng, n, f"Bench: queries {n} deals") for n in QUERIES},
    }
