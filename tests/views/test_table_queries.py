"""The table page and its stats read the same number of rows for 5 games as for 200."""

import random

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tracker.models import Game, Table

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata"]


def table_with_games(count, deals=3):
    table = Table.start(f"{count} games", NAMES)
    pick = random.Random(count)
    for n in range(count):
        seats = NAMES[: 2 + n % 5]
        history = []
        for _ in range(deals):
            winner = pick.choice(seats)
            results = {s: pick.choice([0, 2, 17, 40, "first_drop"]) for s in seats if s != winner}
            history.append({"type": "deal", "winner": winner, "results": results})
        if n % 2:
            history.append({"type": "end"})
        Game.create("points", {}, seats, history=history, table=table)
    return table


ACTIONS = {
    "table page": lambda t: t.get_absolute_url(),
    "view page": lambda t: t.get_view_url(),
    "games fragment": lambda t: t.get_absolute_url() + "?show=finished",
    "wins chart": lambda t: f"/t/{t.edit_token}/wins.svg",
    "money chart": lambda t: f"/tw/{t.view_token}/money.svg",
}
# Link, members, games; the seats and events of every game (each read replays them all).
QUERIES = 5
# The table's pages list its removed games and read the table's version: two more.
PAGES = ("table page", "view page", "games fragment")


def count(client, url):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured), [q["sql"] for q in captured.captured_queries]


@pytest.mark.parametrize("what", list(ACTIONS))
def test_queries_do_not_grow_with_the_games(what):
    counts = {}
    for games in (5, 200):
        table = table_with_games(games)
        client = Client()
        client.get(table.get_absolute_url())  # a returning phone
        url = ACTIONS[what](table)
        first, sql = count(client, url)
        again, _ = count(client, url)
        counts[games] = (first, again)
    more = 2 if what in PAGES else 0
    assert counts[5] == counts[200] == (QUERIES + more, QUERIES + more), (counts, sql)
