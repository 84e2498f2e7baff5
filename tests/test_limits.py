"""Limits a family never reaches, the same through every way in (issue 27, item 1).

Events in a game's history (EVENTS_PER_GAME), games in a table document
(GAMES_PER_TABLE_FILE) and the size of an uploaded file are counted before
anything is replayed, through the deal form, the import page, the commands
and a table document, page or command. Each refusal says which limit, and
nothing is made. The limits are lowered here so a test needs only a few deals.
"""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from tests.documents.test_stats import G1, G2, G3
from tests.documents.test_table_document import table_doc
from tests.views.test_games import post_deal, text
from tracker.models import Game, Table

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

PLAYERS = ["Asha", "Ravi"]


def points_doc(deals, first_bad=False):
    """A Points game of `deals` deals (Points never ends by itself)."""
    history = [{"type": "deal", "winner": "Asha", "results": {"Ravi": 10}}] * deals
    if first_bad and history:
        history = [{"type": "deal", "winner": "Zed", "results": {}}, *history[1:]]
    return {
        "schema": "rummy-tracker.game/1",
        "name": "Evening",
        "format": "points",
        "rules": {"point_value": "1"},
        "players": PLAYERS,
        "first_dealer": "Asha",
        "history": history,
    }


def send(client, path, content, name="saved.json", **data):
    data["file"] = SimpleUploadedFile(name, content.encode(), content_type="application/json")
    return client.post(path, data)


def command(tmp_path, name, doc):
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CommandError) as refused:
        call_command(name, str(path), stdout=io.StringIO())
    return str(refused.value)


@pytest.fixture
def limits(settings):
    settings.EVENTS_PER_GAME = 5
    settings.GAMES_PER_TABLE_FILE = 2
    settings.GAMES_PER_HOUR = 1000
    return settings


# ------------------------------------------------------------ events in a game


def test_the_deal_form_refuses_a_deal_past_the_most_a_game_keeps(client, limits):
    game = Game.create("points", {}, PLAYERS)
    for _ in range(5):
        assert post_deal(client, game, "Asha", Ravi=10).status_code == 302
    response = post_deal(client, game, "Asha", Ravi=10, htmx=True)
    assert response.status_code == 422
    assert "This game keeps 5 events, the most a game keeps: start a new game" in text(response)
    assert game.events.count() == 5


LONG = "the history has 6 events: a game keeps at most 5"


def test_every_way_in_refuses_a_history_past_the_limit(client, limits, tmp_path):
    doc = points_doc(6)
    # The import page, as JSON and as the CSV the tracker writes.
    response = send(client, "/import/", json.dumps(doc))
    assert response.status_code == 422
    assert LONG in text(response)
    sheet = Game.import_document(points_doc(5)).as_csv()
    Game.objects.all().delete()
    row = sheet.strip().splitlines()[-1]
    response = send(client, "/import/", sheet + row.replace(",5,", ",6,", 1), name="game.csv")
    assert response.status_code == 422
    assert LONG in text(response)
    # The command.
    assert command(tmp_path, "import_game", doc) == f"history: {LONG}"
    # A table document, through its page and its command: the game is named.
    table = table_doc([G1])
    table["games"].append(doc)
    table["members"] += PLAYERS
    response = send(client, "/tables/import/", json.dumps(table))
    assert response.status_code == 422
    assert f"game 2 (Evening): history: {LONG}" in text(response)
    assert command(tmp_path, "import_table", table) == f"game 2 (Evening): history: {LONG}"
    assert (Game.objects.count(), Table.objects.count()) == (0, 0)


def test_a_long_history_is_refused_before_any_of_it_is_replayed(client, limits):
    response = send(client, "/import/", json.dumps(points_doc(6, first_bad=True)))
    assert response.status_code == 422
    assert LONG in text(response)  # not the first deal's unknown winner
    assert Game.objects.count() == 0


def test_a_history_at_the_limit_is_taken(client, limits):
    assert send(client, "/import/", json.dumps(points_doc(5))).status_code == 302
    assert Game.objects.get().events.count() == 5


# ------------------------------------------------------------ games in a table document


def test_every_way_in_refuses_a_table_document_past_the_limit(client, limits, tmp_path):
    doc = table_doc([G1, G2, G3])
    words = "the file has 3 games: a table document holds at most 2"
    response = send(client, "/tables/import/", json.dumps(doc))
    assert response.status_code == 422
    assert words in text(response)
    assert command(tmp_path, "import_table", doc) == words
    # Into a table that is there already.
    assert send(client, "/tables/import/", json.dumps(table_doc([G1]))).status_code == 302
    table = Table.objects.get()
    path = f"/t/{table.edit_token}/upload/"
    response = send(client, path, json.dumps(doc), version=str(table.revision))
    assert response.status_code == 422
    assert words in text(response)
    assert (Table.objects.count(), Game.objects.count()) == (1, 1)


# ------------------------------------------------------------ the size of a file


def test_a_file_past_its_size_is_refused_unread(client, settings):
    settings.GAME_FILE_MAX_BYTES = 1000
    settings.TABLE_FILE_MAX_BYTES = 1000
    response = send(client, "/import/", json.dumps(points_doc(20)))
    assert response.status_code == 422
    assert "That file is too big to be a game." in text(response)
    response = send(client, "/tables/import/", json.dumps(table_doc([G1, G2])))
    assert response.status_code == 422
    assert "That file is too big." in text(response)
    assert (Table.objects.count(), Game.objects.count()) == (0, 0)


# ------------------------------------------------------------ names and members, as before


def test_names_and_members_are_limited_the_same_through_every_way_in(client, tmp_path):
    long_name = "x" * 31
    doc = {**points_doc(0), "players": ["Asha", long_name]}
    words = "name is longer than 30 letters"
    assert words in text(send(client, "/import/", json.dumps(doc)))
    assert command(tmp_path, "import_game", doc) == f"players[1]: player 2's {words}"
    form = {"format": "points", "rules_for": "points", "player": ["Asha", long_name]}
    assert "longer than 30 letters" in text(client.post("/new/", {**form, "dealer": "0"}))
    many = {**table_doc([G1]), "members": [f"Member {n}" for n in range(31)]}
    assert "A table has at most 30 members" in text(
        send(client, "/tables/import/", json.dumps(many))
    )
    assert "A table has at most 30 members" in command(tmp_path, "import_table", many)
    assert (Table.objects.count(), Game.objects.count()) == (0, 0)
