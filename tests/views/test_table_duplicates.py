"""The same game imported into a table twice is not counted twice: the upload
says so and imports nothing unless "Import it again" is ticked."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.views.test_games import post_deal, text
from tests.views.test_tables import make_table, version
from tracker.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]


def upload(client, table, name, content, **extra):
    data = {"file": SimpleUploadedFile(name, content), "version": version(table), **extra}
    return client.post(f"/t/{table.edit_token}/upload/", data)


def finished_pool():
    game = Game.create("pool", {"entry_fee": "5"}, ["Asha", "Ravi"], name="Diwali pool")
    client = Client()
    post_deal(client, game, "Ravi", Asha=80)
    post_deal(client, game, "Ravi", Asha=80)
    return client.get(f"/g/{game.edit_token}/game.json").content


def money(client, table):
    document = json.loads(client.get(f"/t/{table.edit_token}/table.json").content)
    return {m["name"]: m["money"] for m in document["stats"]["members"] if m["games"]}


@pytest.mark.parametrize("kind", ["json", "csv"])
def test_a_game_uploaded_twice_is_refused_the_second_time_and_counted_once(kind):
    client = Client()
    table = make_table(client)
    saved = finished_pool()
    if kind == "csv":
        game = Game.objects.get()
        saved = client.get(f"/g/{game.edit_token}/game.csv").content
    assert upload(client, table, f"g.{kind}", saved).status_code == 302
    response = upload(client, table, f"g.{kind}", saved)
    assert response.status_code == 422
    page = text(response)
    assert "This game is already in the table (“Diwali pool”), so nothing was imported." in page
    assert 'name="again"' in page
    assert table.games.count() == 1
    # Ravi won the pot of 10 having paid 5: +5; Asha paid 5: -5. Once, not twice.
    assert money(client, table) == {"Asha": "-5.00", "Ravi": "5.00"}


def test_ticking_import_it_again_adds_the_game_a_second_time():
    client = Client()
    table = make_table(client)
    saved = finished_pool()
    upload(client, table, "g.json", saved)
    assert upload(client, table, "g.json", saved, again="on").status_code == 302
    assert table.games.count() == 2
    assert money(client, table) == {"Asha": "-10.00", "Ravi": "10.00"}


def test_a_table_document_whose_games_are_here_already_is_refused_naming_them():
    client = Client()
    table = make_table(client)
    upload(client, table, "g.json", finished_pool())
    exported = client.get(f"/t/{table.edit_token}/table.json").content
    response = upload(client, table, "t.json", exported)
    assert response.status_code == 422
    assert "already in the table (“Diwali pool”)" in text(response)
    assert table.games.count() == 1


def test_the_same_players_with_another_history_is_another_game():
    client = Client()
    table = make_table(client)
    saved = json.loads(finished_pool())
    upload(client, table, "g.json", json.dumps(saved).encode())
    saved["history"][0]["results"]["Asha"] = 79
    saved.pop("state")
    assert upload(client, table, "g.json", json.dumps(saved).encode()).status_code == 302
    assert table.games.count() == 2
