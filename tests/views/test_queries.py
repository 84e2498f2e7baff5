"""The number of SQL queries does not grow with the length of a game."""

import random

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tracker.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

HTMX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata"]


def points_game(deals):
    pick = random.Random(deals)
    history = []
    for _ in range(deals):
        winner = pick.choice(NAMES)
        results = {n: pick.choice([0, 2, 17, 40, "first_drop"]) for n in NAMES if n != winner}
        history.append({"type": "deal", "winner": winner, "results": results})
    return Game.create("points", {}, NAMES, history=history)


def queries(action):
    with CaptureQueriesContext(connection) as captured:
        response = action()
    assert response.status_code < 400, response.status_code
    return len(captured), [q["sql"] for q in captured.captured_queries]


def deal_post(client, game):
    data = {"winner": "1", "version": str(game.events.count())}
    for seat in range(2, 7):
        data[f"r{seat}"], data[f"p{seat}"] = "points", "5"
    return lambda: client.post(f"/g/{game.edit_token}/deal/", data, **HTMX)


ACTIONS = {
    "game page": lambda client, game: lambda: client.get(game.get_absolute_url()),
    "view page": lambda client, game: lambda: client.get(game.get_view_url()),
    "fragment": lambda client, game: lambda: client.get(f"/w/{game.view_token}/live/?v=0", **HTMX),
    "unchanged poll": lambda client, game: (
        lambda: client.get(f"/w/{game.view_token}/live/?v={game.revision}", **HTMX)
    ),
    "deal save": deal_post,
}


@pytest.mark.parametrize("what", list(ACTIONS))
def test_queries_do_not_grow_with_the_history(what):
    counts = {}
    for deals in (5, 500):
        game = points_game(deals)
        client = Client()
        client.get(game.get_absolute_url())  # a returning phone: session already set
        counts[deals], sql = queries(ACTIONS[what](client, game))
    assert counts[5] == counts[500], sql


# The budget of each: a change that adds a query shows up here.
BUDGET = {"game page": 4, "view page": 4, "fragment": 5, "unchanged poll": 1, "deal save": 11}


@pytest.mark.parametrize("what", list(ACTIONS))
def test_query_budget(what, django_assert_max_num_queries):
    game = points_game(5)
    client = Client()
    client.get(game.get_absolute_url())
    action = ACTIONS[what](client, game)
    with django_assert_max_num_queries(BUDGET[what]):
        action()
