"""Money on the screen: the rupee sign where the table plays for money, the Indian
grouping (1,00,000), digits 0-9; the CSV and JSON documents keep plain figures.

Every expected figure below is written out by hand.
"""

import json

import pytest

from tests.views.test_games import new_game, post_deal, text
from tracker.models import Game
from tracker.rules.money_format import format_money, indian_grouping, plays_for_money

pytestmark = pytest.mark.both_databases

POOL = {"entry_fee": "50", "money_unit": "0.01"}
WHOLE_RUPEES = {"entry_fee": "100", "money_unit": "1"}
POINTS = {"point_value": "0.25", "money_unit": "0.01"}
FOR_FUN = {"entry_fee": "0", "money_unit": "0.01"}


@pytest.mark.parametrize(
    "digits, grouped",
    [
        ("0", "0"),
        ("999", "999"),
        ("1000", "1,000"),
        ("99999", "99,999"),
        ("100000", "1,00,000"),
        ("1234567", "12,34,567"),
        ("10000000", "1,00,00,000"),
        ("123456789", "12,34,56,789"),
    ],
)
def test_indian_grouping(digits, grouped):
    assert indian_grouping(digits) == grouped


@pytest.mark.parametrize(
    "amount, rules, shown",
    [
        # A lakh or more: groups of two after the first three digits.
        ("100000", POOL, "₹1,00,000.00"),
        ("1234567.50", POOL, "₹12,34,567.50"),
        ("100000", WHOLE_RUPEES, "₹1,00,000"),
        ("1234567", WHOLE_RUPEES, "₹12,34,567"),
        # Below a lakh: as usual.
        ("99999", POOL, "₹99,999.00"),
        ("99999", WHOLE_RUPEES, "₹99,999"),
        ("250", POOL, "₹250.00"),
        ("83.34", POOL, "₹83.34"),
        ("11.75", POINTS, "₹11.75"),
        ("0", POOL, "₹0.00"),
        # Owed amounts keep their sign in front of the rupee sign.
        ("-11.75", POINTS, "-₹11.75"),
        ("-150000", POINTS, "-₹1,50,000.00"),
        # A table that plays for fun: no rupee sign, the same grouping.
        ("0", FOR_FUN, "0.00"),
        ("123456", {"point_value": "0"}, "1,23,456.00"),
        # A Decimal or an int reads the same as the engine's string.
        (250, POOL, "₹250.00"),
    ],
)
def test_format_money(amount, rules, shown):
    assert format_money(amount, rules) == shown


def test_digits_are_always_ascii():
    shown = format_money("1234567890.12", POOL)
    assert shown == "₹1,23,45,67,890.12"
    assert all(c in "₹,.0123456789" for c in shown)


def test_nothing_to_show_or_not_a_number():
    assert format_money(None, POOL) == ""
    assert format_money("", POOL) == ""
    assert format_money("n/a", POOL) == "n/a"


def test_plays_for_money():
    assert plays_for_money({"entry_fee": "50"})
    assert plays_for_money({"point_value": "0.25"})
    assert not plays_for_money({"entry_fee": "0"})
    assert not plays_for_money({"point_value": "0.00", "money_unit": "0.01"})
    assert not plays_for_money({})
    # A game document's figures may be numbers: 1 rupee a point is money.
    assert plays_for_money({"point_value": 1})
    # A rule that is not a number puts no money on the game; the other still counts.
    assert not plays_for_money({"point_value": True})
    assert not plays_for_money({"point_value": ["1"]})
    assert plays_for_money({"entry_fee": "abc", "point_value": "0.25"})


# ------------------------------------------------------------ on the pages


@pytest.mark.django_db
def test_pool_pot_and_rejoin_show_rupees(client):
    game = new_game(client, entry_fee="50")
    page = text(client.get(game.get_absolute_url()))
    # Four players at 50 each.
    assert "pot ₹200.00" in page
    post_deal(client, game, "Asha", Ravi=80, Meena=10, Kiran=40)
    post_deal(client, game, "Meena", Asha=30, Ravi=25, Kiran=20)
    page = text(client.get(game.get_absolute_url()))
    assert "Rejoin Ravi at 61 · pot ₹250.00" in page


@pytest.mark.django_db
def test_a_pot_of_lakhs_in_indian_grouping(client):
    # Three players at 40,000 each: a pot of 1,20,000; split equally, 40,000 each.
    game = new_game(client, players=("A", "B", "C"), entry_fee="40000")
    page = text(client.get(game.get_absolute_url()))
    assert "pot ₹1,20,000.00" in page
    page = text(client.get(f"/g/{game.edit_token}/split/?method=equal"))
    assert "Split the pot of ₹1,20,000.00" in page
    assert "₹40,000.00" in page
    response = client.post(
        f"/g/{game.edit_token}/split/", {"method": "equal", "confirm": "1", "version": "0"}
    )
    assert response.status_code == 302
    page = text(client.get(game.get_absolute_url()))
    assert "Game over: split the pot (A ₹40,000.00, B ₹40,000.00, C ₹40,000.00)." in page
    # The history's split line and the share column too.
    assert "Split equally: A ₹40,000.00, B ₹40,000.00, C ₹40,000.00" in page
    assert '<td class="num">₹40,000.00</td>' in page


@pytest.mark.django_db
def test_points_amounts_and_settlement_in_rupees(client):
    # 1,500 a point; Asha counts 80 to Ravi's win: Asha pays 1,20,000.
    game = new_game(client, fmt="points", players=("Asha", "Ravi"), point_value="1500")
    post_deal(client, game, "Ravi", Asha=80)
    page = text(client.get(game.get_absolute_url()))
    assert "₹1,500.00 a point" in page
    assert "Asha</strong> pays <strong>Ravi</strong> ₹1,20,000.00" in page
    assert '<td class="num">-₹1,20,000.00</td>' in page
    assert '<td class="num">₹1,20,000.00</td>' in page


@pytest.mark.django_db
def test_a_game_for_fun_shows_no_rupee_sign(client):
    game = new_game(client, players=("A", "B"))  # pool, entry fee 0
    page = text(client.get(game.get_absolute_url()))
    assert "Pool 101 · 0 deals played" in page  # no pot of nothing (issue 26.12)
    assert "₹" not in page


@pytest.mark.django_db
def test_documents_keep_plain_figures(client):
    game = new_game(client, players=("A", "B", "C"), entry_fee="40000")
    client.post(f"/g/{game.edit_token}/split/", {"method": "equal", "confirm": "1", "version": "0"})
    game = Game.objects.get(pk=game.pk)
    doc = json.loads(client.get(f"/g/{game.edit_token}/game.json").content)
    assert doc["state"]["pot"] == "120000.00"
    assert doc["state"]["split"] == {"A": "40000.00", "B": "40000.00", "C": "40000.00"}
    sheet = client.get(f"/g/{game.edit_token}/game.csv").content.decode("utf-8-sig")
    assert "₹" not in sheet and "1,20,000" not in sheet
