"""The hand calculator's pages: the standalone page and the count from the deal form."""

import re

import pytest

from tests.views.test_games import HTMX, text
from tracker.models import Game

pytestmark = pytest.mark.django_db

HAND_33 = "6S 7S 8S 6C 7C 8C 8D 8H 2H 3H 4H KD KS"


def test_standalone_calculator_counts_a_hand(client):
    page = text(client.get("/calculator/", {"cards": HAND_33}))
    assert "33 points" in page
    assert "Not a valid show" in page
    assert 'name="add" value="7H"' in page


def test_tapping_cards_builds_the_hand_one_card_at_a_time(client):
    cards = HAND_33.split()
    response = client.get("/calculator/", {"cards": " ".join(cards[:12]), "add": cards[12]}, **HTMX)
    page = text(response)
    assert "<html" not in page
    assert "33 points" in page
    assert f'name="cards" value="{HAND_33}"' in page
    # Take one out again: 12 cards, no answer yet.
    page = text(client.get("/calculator/", {"cards": HAND_33, "remove": "0"}))
    assert "points" not in page.split('class="calc-result"')[1].split("</div>")[0]


def test_a_third_copy_of_a_card_is_refused(client):
    page = text(client.get("/calculator/", {"cards": "7H 7H", "add": "7H"}))
    assert "7H appears 3 times: two decks hold at most 2" in page
    assert 'name="cards" value="7H 7H"' in page


def test_a_valid_show_with_a_wild_card(client):
    cards = "AS 2S 3S 4H 5H 6H 9C 9D 9S 5C 6C KD KC"  # K wild: KD KC make 5C 6C a run
    page = text(client.get("/calculator/", {"cards": cards, "wild": "K"}))
    assert "0 points" in page
    assert "Valid show" in page


def test_fourteen_cards_name_the_discard(client):
    cards = "AS 3S 4S 10S QS KS 8H 10H 10D AC 10C QC KC PJ"
    page = text(client.get("/calculator/", {"cards": cards}))
    assert re.search(r"discard <strong>8♥</strong>", page)
    assert "Valid show" in page


def test_count_from_the_deal_form_uses_the_table_rules(client):
    game = Game.create("pool", {"pool_limit": 61, "ace_value": 1}, ["Asha", "Ravi"])
    page = text(client.get(game.get_absolute_url()))
    assert f"/g/{game.edit_token}/count/2/" in page
    # An ace counts 1 at this table; the pool-61 full count caps at 60.
    hand = "AS AH AD 2C 4C 6C 8C 10C QC 3D 5D 7D 9D"
    response = client.get(f"/g/{game.edit_token}/count/2/", {"cards": hand}, **HTMX)
    page = text(response)
    assert "Count Ravi's cards" in page
    assert 'data-fill-seat="2"' in page
    points = int(re.search(r"Use (\d+) points", page).group(1))
    assert points == 60  # every card counts without a pure sequence, capped at 60
    assert client.get(f"/g/{game.edit_token}/count/9/").status_code == 404
    assert client.get(f"/g/{game.view_token}/count/2/").status_code == 404


def test_the_wild_card_is_kept_for_the_deal(client):
    game = Game.create("points", {}, ["Asha", "Ravi"])
    client.get(f"/g/{game.edit_token}/count/1/", {"wild": "5"}, **HTMX)
    page = text(client.get(f"/g/{game.edit_token}/count/2/", **HTMX))
    assert '<option value="5" selected>' in page
