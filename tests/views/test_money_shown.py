"""Money where the family plays for it, and none where it plays for fun
(issue 26, items 11 to 13)."""

import json

import pytest
from django.test import Client

from tests.views.test_games import new_game, post_deal, text
from tests.views.test_people import deal_form, post
from tests.views.test_tables import make_table, table_game
from tracker.models import Game

pytestmark = pytest.mark.django_db


def board(client, game):
    page = text(client.get(game.get_absolute_url()))
    return page[
        page.index('id="board"') : page.index('id="deal-entry"')
        if 'id="deal-entry"' in page
        else None
    ]


def test_deals_with_an_entry_fee_shows_the_prize_and_who_won_how_much():
    client = Client()
    game = new_game(client, fmt="deals-2", players=("Asha", "Ravi", "Meena"), entry_fee="50")
    # Three players at 50 each: the winner collects 150.
    assert "best of 2 · 2 deals left · prize ₹150.00" in board(client, game)
    post_deal(client, game, "Asha", Ravi=20, Meena=30)
    post_deal(client, game, "Asha", Ravi=10, Meena=40)
    page = text(client.get(game.get_absolute_url()))
    # Asha won both deals: Ravi and Meena pay her 50 each, 100 in all; with her
    # own 50 that is the prize of 150, and the banner says which figure is which.
    assert "Asha wins the prize of ₹150.00: ₹100.00 more than the ₹50.00 entry fee!" in page
    assert "<strong>Ravi</strong> pays <strong>Asha</strong> ₹50.00" in page
    assert "<strong>Meena</strong> pays <strong>Asha</strong> ₹50.00" in page
    assert "· prize" not in page  # the prize still to win is gone from the line


def test_deals_for_fun_shows_no_prize():
    client = Client()
    game = new_game(client, fmt="deals-2", players=("Asha", "Ravi"))
    assert "prize" not in board(client, game)
    post_deal(client, game, "Asha", Ravi=20)
    post_deal(client, game, "Asha", Ravi=10)
    page = text(client.get(game.get_absolute_url()))
    assert "Asha wins!" in page and "Settle up" not in page


@pytest.mark.parametrize("fmt", ["pool-101", "pool-201", "points", "deals-2", "basic-100"])
def test_a_game_for_fun_shows_no_pot_and_no_money(fmt):
    client = Client()
    extra = {"point_value": "0"} if fmt == "points" else {}
    game = new_game(client, fmt=fmt, players=("Asha", "Ravi", "Meena"), **extra)
    post_deal(client, game, "Asha", Ravi=20, Meena=30)
    page = text(client.get(game.get_absolute_url()))
    assert "₹" not in page
    assert "0.00" not in page
    assert " pot " not in page.lower()


def test_points_for_fun_has_no_money_column():
    client = Client()
    game = new_game(client, fmt="points", players=("Asha", "Ravi"), point_value="0")
    page = board(client, game)
    assert "for fun" in page and ">Money<" not in page and "a point" not in page


def test_a_table_that_plays_for_fun_shows_no_money_and_no_settle_up():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"])
    post_deal(client, game, "Asha", Ravi=80)
    post_deal(client, game, "Asha", Ravi=80)
    page = text(client.get(table.get_absolute_url()))
    assert ">Money<" not in page and "Settle up" not in page and "0.00" not in page


def wins(client, table):
    document = json.loads(client.get(f"/t/{table.edit_token}/table.json").content)
    return {m["name"]: m["wins"] for m in document["stats"]["members"]}


def end_points_session(client, game, *deals):
    for winner, results in deals:
        response = client.post(f"/g/{game.edit_token}/deal/", deal_form(game, winner, **results))
        assert response.status_code == 302
    assert post(client, game, "end").status_code == 302


def test_a_points_sessions_top_balance_counts_as_its_winner_in_the_tables_wins():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi", "Meena"], fmt="points")
    # Asha +60 -10 = +50; Ravi -20 +42 = +22; Meena -40 -32 = -72: Asha alone on top.
    end_points_session(
        client,
        game,
        ("Asha", {"Ravi": 20, "Meena": 40}),
        ("Ravi", {"Asha": 10, "Meena": 32}),
    )
    assert Game.objects.get(pk=game.pk).state().winner is None  # the session has none itself
    assert wins(client, table) == {"Asha": 1, "Ravi": 0, "Meena": 0, "Kiran": 0}


def test_a_points_session_level_at_the_top_has_no_winner():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"], fmt="points")
    # Asha +20 then -20: level at 0 with Ravi.
    end_points_session(client, game, ("Asha", {"Ravi": 20}), ("Ravi", {"Asha": 20}))
    assert wins(client, table) == {"Asha": 0, "Ravi": 0, "Meena": 0, "Kiran": 0}
