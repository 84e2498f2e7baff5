"""A family evening, round three (issue 38): what a Tamil-speaking family tripped over."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tracker.models import Game

from .test_tables import finish_pool, make_table, table_game, version
from .test_views import revision, text

pytestmark = pytest.mark.django_db


def upload(client, table, name, content, **extra):
    data = {"file": SimpleUploadedFile(name, content), "version": version(table), **extra}
    return client.post(f"/t/{table.edit_token}/upload/", data)


def money(client, table):
    document = json.loads(client.get(f"/t/{table.edit_token}/table.json").content)
    return {m["name"]: m["money"] for m in document["stats"]["members"] if m["games"]}


# ---------------------------------------------------------------- 4. one game, counted once


def removed_and_imported_again(client, kind="json"):
    """A finished pool of Asha and Ravi, saved to a file, removed, and its file
    imported into the table again (accepted: the game was removed)."""
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"], entry_fee="10")
    finish_pool(client, game, "Asha", "Ravi")
    saved = client.get(f"/g/{game.edit_token}/game.{kind}").content
    client.post(f"/g/{game.edit_token}/remove/", {"version": str(revision(game))})
    assert upload(client, table, f"g.{kind}", saved).status_code == 302
    return table, game, saved


@pytest.mark.parametrize("kind", ["json", "csv"])
def test_a_game_put_back_after_its_file_was_imported_is_refused_and_counted_once(kind):
    client = Client()
    table, game, _ = removed_and_imported_again(client, kind)
    response = client.post(f"/g/{game.edit_token}/put-back/")
    assert response["Location"] == table.get_absolute_url()
    page = text(client.get(response["Location"]))
    assert "This game is already in the table (“Pool 101”), so it was not put back" in page
    assert table.games.kept().count() == 1
    assert Game.objects.get(pk=game.pk).removed_at is not None
    # Asha won the pot of 20 having paid 10: +10; Ravi paid 10: -10. Once, not twice.
    assert money(client, table) == {"Asha": "10.00", "Ravi": "-10.00"}
    # Still under Removed, to be put back once the copy is removed.
    assert 'id="removed"' in page


def test_the_copy_removed_the_game_is_put_back():
    client = Client()
    table, game, _ = removed_and_imported_again(client)
    copy = table.games.kept().get()
    client.post(f"/g/{copy.edit_token}/remove/", {"version": str(revision(copy))})
    assert client.post(f"/g/{game.edit_token}/put-back/")["Location"] == game.get_absolute_url()
    assert list(table.games.kept()) == [Game.objects.get(pk=game.pk)]
    assert money(client, table) == {"Asha": "10.00", "Ravi": "-10.00"}


def test_refusals_of_a_second_copy_name_the_game_in_the_readers_language():
    english = Client()
    table, game, saved = removed_and_imported_again(english)
    tamil = Client(HTTP_ACCEPT_LANGUAGE="ta")
    page = text(tamil.get(tamil.post(f"/g/{game.edit_token}/put-back/")["Location"]))
    assert "(“பூல் 101”)" in page and "Pool 101" not in page
    refused = text(upload(tamil, table, "g.json", saved))
    assert "ஏற்கனவே டேபிளில் உள்ளது (“பூல் 101”)" in refused
    exported = tamil.get(f"/t/{table.edit_token}/table.json").content
    refused = text(upload(tamil, table, "t.json", exported))
    assert "ஏற்கனவே டேபிளில் உள்ளது (“பூல் 101”)" in refused
    assert 'name="again"' in refused
    assert table.games.kept().count() == 1
