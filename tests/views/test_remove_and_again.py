"""A game removed by mistake can be put back for 30 days; a finished game is
played again from its own screen, named apart; a game of a table leads back
to it (issue 26, items 7 to 10)."""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.views.test_games import HTMX, new_game, revision, text
from tests.views.test_tables import finish_pool, make_table, member_ids, table_game, version
from tracker.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]


def money(client, table):
    document = json.loads(client.get(f"/t/{table.edit_token}/table.json").content)
    return {m["name"]: m["money"] for m in document["stats"]["members"]}, document


def test_a_removed_game_leaves_the_tables_stats_and_comes_back_when_put_back():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"], entry_fee="10", name="Sunday pool")
    finish_pool(client, game, "Asha", "Ravi")
    # Asha won the pot of 20 having paid 10: +10; Ravi -10.
    assert money(client, table)[0]["Asha"] == "10.00"

    removed = client.post(f"/g/{game.edit_token}/remove/", {"version": str(revision(game))})
    assert removed["Location"] == table.get_absolute_url()
    figures, document = money(client, table)
    assert figures["Asha"] == "0.00" and figures["Ravi"] == "0.00"
    assert document["games"] == []
    page = text(client.get(table.get_absolute_url()))
    assert "Removed “Sunday pool”: it can be put back from Removed until" in page
    removed_part = page[page.index('id="removed"') :]
    assert "Sunday pool" in removed_part and "Put back" in removed_part

    for link in (game.get_absolute_url(), game.get_view_url(), f"/w/{game.view_token}/game.json"):
        gone = client.get(link)
        assert gone.status_code == 410, link
        assert "“Sunday pool” was removed" in text(gone)
    assert "Put it back" in text(client.get(game.get_absolute_url()))
    assert "Put it back" not in text(client.get(game.get_view_url()))

    assert client.post(f"/g/{game.edit_token}/put-back/")["Location"] == game.get_absolute_url()
    assert client.get(game.get_absolute_url()).status_code == 200
    assert money(client, table)[0]["Asha"] == "10.00"
    assert 'id="removed"' not in text(client.get(table.get_absolute_url()))


def test_a_game_is_removed_from_the_tables_list_and_a_poll_of_it_reloads_the_page():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"])
    page = text(client.get(table.get_absolute_url()))
    assert f'action="/g/{game.edit_token}/remove/"' in page
    client.post(f"/g/{game.edit_token}/remove/", {"version": str(revision(game))})
    poll = client.get(f"/w/{game.view_token}/live/?v=0", **HTMX)
    assert poll.status_code == 410 and poll["HX-Refresh"] == "true"
    assert table.games.kept().count() == 0


def test_a_removal_made_against_an_older_version_removes_nothing():
    client = Client()
    game = new_game(client)
    response = client.post(f"/g/{game.edit_token}/remove/", {"version": "7"})
    assert response.status_code == 409
    assert Game.objects.get(pk=game.pk).removed_at is None


def test_a_game_without_a_table_is_put_back_from_the_home_page():
    client = Client()
    game = new_game(client, name="Stray start")
    assert client.post(f"/g/{game.edit_token}/remove/", {"version": "0"})["Location"] == "/"
    home = text(client.get("/"))
    games_part = home[home.index('id="your-games"') : home.index('id="removed"')]
    assert "Stray start" not in games_part
    assert "Put back Stray start" in home[home.index('id="removed"') :]
    client.post(f"/g/{game.edit_token}/put-back/")
    assert 'id="removed"' not in text(client.get("/"))


def test_thirty_days_after_its_removal_a_game_is_gone():
    client = Client()
    old = new_game(client, name="Old mistake")
    client.post(f"/g/{old.edit_token}/remove/", {"version": "0"})
    Game.objects.filter(pk=old.pk).update(removed_at=timezone.now() - timedelta(days=31))
    assert client.get(old.get_absolute_url()).status_code == 404
    assert client.post(f"/g/{old.edit_token}/put-back/").status_code == 404
    # The next removal deletes it.
    other = new_game(client, name="Another")
    client.post(f"/g/{other.edit_token}/remove/", {"version": "0"})
    assert not Game.objects.filter(pk=old.pk).exists()
    assert Game.objects.filter(pk=other.pk).exists()


def test_a_finished_game_is_played_again_from_its_own_screen_once_and_named_apart():
    client = Client()
    game = new_game(client, players=("Asha", "Ravi"), name="Diwali pool")
    finish_pool(client, game, "Asha", "Ravi")
    page = text(client.get(game.get_absolute_url()))
    assert f'action="/g/{game.edit_token}/again/"' in page
    made = client.post(f"/g/{game.edit_token}/again/")
    again = Game.objects.get(edit_token=made["Location"].split("/")[2])
    assert again.name == "Diwali pool 2"
    assert again.seat_names() == ["Asha", "Ravi"]
    # Asha (seat 1) dealt first; Ravi deals first now.
    assert again.state().next_dealer == "Ravi"
    # A second tap goes to the same next game, and the finished one links to it.
    assert client.post(f"/g/{game.edit_token}/again/")["Location"] == again.get_absolute_url()
    assert "Next game: Diwali pool 2" in text(client.get(game.get_absolute_url()))
    finish_pool(client, again, "Ravi", "Asha")
    third = client.post(f"/g/{again.edit_token}/again/")
    assert Game.objects.get(edit_token=third["Location"].split("/")[2]).name == "Diwali pool 3"


def test_a_game_still_being_played_is_not_played_again():
    client = Client()
    game = new_game(client)
    response = client.post(f"/g/{game.edit_token}/again/", follow=True)
    assert "That game is still being played." in text(response)
    assert Game.objects.count() == 1


def test_a_tables_game_leads_back_to_it_and_its_view_link_to_the_tables_view_link():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"])
    assert f'<a href="{table.get_absolute_url()}">← Nani&#x27;s table</a>' in text(
        client.get(game.get_absolute_url())
    )
    watched = text(client.get(game.get_view_url()))
    assert f'<a href="{table.get_view_url()}">' in watched
    assert table.edit_token not in watched


def test_new_game_from_a_table_ticks_the_players_of_its_last_game():
    client = Client()
    table = make_table(client, members=["Asha", "Ravi", "Meena", "Kiran", "Dev"])
    table_game(client, table, ["Ravi", "Kiran", "Dev"])
    page = text(client.get(f"/t/{table.edit_token}/new/"))
    ticked = {
        pk
        for pk in member_ids(table, "Asha", "Ravi", "Meena", "Kiran", "Dev")
        if f'name="seat" value="{pk}" checked' in page
    }
    assert ticked == set(member_ids(table, "Ravi", "Kiran", "Dev"))


def test_play_again_from_the_tables_list_names_the_game_apart():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Meena"], name="Sunday pool")
    finish_pool(client, game, "Asha", "Meena")
    response = client.post(f"/t/{table.edit_token}/again/{game.pk}/", {"version": version(table)})
    again = Game.objects.get(edit_token=response["Location"].split("/")[2])
    assert again.name == "Sunday pool 2" and again.table == table
