"""What one table may hold (issue 37, item 1): GAMES_PER_TABLE and
EVENTS_PER_TABLE, its removed games counted too. Every read of a table (its
page, stats, charts and document) replays all of its games, so these bound what
a view link can make the server do; bench/run.py (its inprocess part) times the largest table
they allow. A game, a deal or an import that would pass them is refused with
the limit named, and nothing is made. The limits are lowered here so a test
needs only a few deals."""

import json

import pytest

from tests.test_limits import points_doc, send
from tests.views.test_games import post_deal, text
from tests.views.test_tables import make_table, table_game, version
from tracker.models import Game, Table

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

FULL_EVENTS = "a table keeps at most 4 events across its games: start a new table for more"
FULL_GAMES = "a table keeps at most 2 games: start a new table for more"


@pytest.fixture
def small(settings):
    settings.GAMES_PER_TABLE = 2
    settings.EVENTS_PER_TABLE = 4
    settings.GAMES_PER_HOUR = 1000
    return settings


def table_doc(*deals):
    docs = [{**points_doc(n), "name": f"Evening {i}"} for i, n in enumerate(deals, start=1)]
    return {
        "schema": "rummy-tracker.table/1",
        "name": "Sunday",
        "members": ["Asha", "Ravi"],
        "games": docs,
    }


def test_a_deal_past_the_most_a_table_keeps_is_refused(client, small):
    table = make_table(client, members=["Asha", "Ravi"])
    first = table_game(client, table, ["Asha", "Ravi"], fmt="points")
    second = table_game(client, table, ["Asha", "Ravi"], fmt="points")
    for game in (first, first, first, second):
        assert post_deal(client, game, "Asha", Ravi=10).status_code == 302
    response = post_deal(client, second, "Asha", Ravi=10, htmx=True)
    assert response.status_code == 422
    assert FULL_EVENTS.capitalize() in text(response)
    assert (first.events.count(), second.events.count()) == (3, 1)
    # A game of no table is not held back by it.
    alone = Game.create("points", {}, ["Asha", "Ravi"])
    assert post_deal(client, alone, "Asha", Ravi=10).status_code == 302


def test_a_game_past_the_most_a_table_keeps_is_refused_removed_ones_counted(client, small):
    table = make_table(client, members=["Asha", "Ravi"])
    table_game(client, table, ["Asha", "Ravi"], fmt="points")
    removed = table_game(client, table, ["Asha", "Ravi"], fmt="points")
    removed.remove(removed.revision)
    data = {"format": "points", "rules_for": "points", "rules_shown": "1"}
    data["seat"] = [str(m.pk) for m in table.members.all()]
    data["version"] = version(table)
    response = client.post(f"/t/{table.edit_token}/new/", data)
    assert response.status_code == 422
    assert FULL_GAMES.capitalize() in text(response)
    assert table.games.count() == 2


def test_a_table_document_past_the_limits_is_refused_before_it_is_replayed(client, small):
    bad_first = table_doc(3, 2)
    bad_first["games"][0]["history"][0] = {"type": "deal", "winner": "Zed", "results": {}}
    for doc, words in ((table_doc(1, 1, 1), FULL_GAMES), (bad_first, FULL_EVENTS)):
        response = send(client, "/tables/import/", json.dumps(doc))
        assert response.status_code == 422
        assert words in text(response)
    assert (Table.objects.count(), Game.objects.count()) == (0, 0)


def test_an_upload_into_a_table_past_its_limits_is_refused(client, small):
    assert send(client, "/tables/import/", json.dumps(table_doc(3))).status_code == 302
    table = Table.objects.get()
    path = f"/t/{table.edit_token}/upload/"
    for doc in (points_doc(2), table_doc(2)):
        response = send(client, path, json.dumps(doc), version=str(table.revision))
        assert response.status_code == 422
        assert FULL_EVENTS in text(response)
    assert Game.objects.count() == 1
    # At the limit, it is taken.
    response = send(client, path, json.dumps(points_doc(1)), version=str(table.revision))
    assert response.status_code == 302
    assert Game.objects.count() == 2


def test_the_largest_table_allowed_is_read_whole_through_its_view_link(client, small):
    assert send(client, "/tables/import/", json.dumps(table_doc(3, 1))).status_code == 302
    table = Table.objects.get()
    doc = client.get(f"/tw/{table.view_token}/table.json").json()
    assert [len(g["history"]) for g in doc["games"]] == [3, 1]
    ravi = next(m for m in doc["stats"]["members"] if m["name"] == "Ravi")
    assert ravi["games"] == 2
    assert "2 games" in text(client.get(f"/tw/{table.view_token}/"))
