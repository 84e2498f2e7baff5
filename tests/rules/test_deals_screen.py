"""What the Deals screens show, from hand-worked games (rules.md, "Deals rummy").

The game screen, the chart and the lists of games ask the format object
(tracker/rules/deals.py) for their words and figures; these tests replay
small games through the engine and check, word for word, what a family
reads there. The games are the worked examples 09 and 10 of
shared/docs/examples/ (and a best of 3); every figure is worked out by hand
in the comment beside it. No database: `make mutants` runs this file.
"""

from decimal import Decimal

import pytest

from tests.events import deal
from tracker.rules import FORMATS, normalize_rules, replay

DEALS = FORMATS["deals"]
ABC = ["A", "B", "C"]


# Example 09, deals best of 2: 160 chips each (80 x 2).
BEST_OF_2 = [
    deal("A", B=30, C="middle_drop"),  # A takes 30 + 40 = 70: A 230, B 130, C 120
    deal("B", A=25, C=80),  # B takes 25 + 80 = 105: A 205, B 235, C 40; B wins
]
# Example 10, deals best of 2 with a tie-breaker.
TIED = [
    deal("A", B=30, C=10),  # A 160 + 40 = 200, B 130, C 150
    deal("B", A=35, C=0),  # B 130 + 35 = 165, A 200 - 35 = 165, C 150: A and B level
]


def best_of_2(history):
    return replay("deals", {"deal_count": 2}, ABC, history)


# ------------------------------------------------------------ the line under the name


def test_the_game_screen_counts_down_the_deals_left():
    state = replay("deals", {"deal_count": 3}, ABC, [])
    assert DEALS.meta(state, Decimal(0)) == " · best of 3 · 3 deals left"
    state = replay("deals", {"deal_count": 3}, ABC, BEST_OF_2[:1])
    assert DEALS.meta(state, Decimal(0)) == " · best of 3 · 2 deals left"
    state = replay("deals", {"deal_count": 3}, ABC, BEST_OF_2)
    assert DEALS.meta(state, Decimal(0)) == " · best of 3 · 1 deal left"  # one deal: no "s"


def test_after_the_last_deal_the_game_screen_says_no_deals_are_left():
    state = best_of_2(BEST_OF_2)
    assert state.winner == "B"
    assert DEALS.meta(state, Decimal(0)) == " · best of 2 · 0 deals left"


def test_in_a_tie_breaker_the_game_screen_says_tie_breaker():
    state = best_of_2(TIED)
    assert state.tie_breaker
    assert DEALS.meta(state, Decimal(0)) == " · best of 2 · tie-breaker"


def test_the_tie_breaker_note_names_the_players_level_on_chips():
    state = best_of_2(TIED)
    assert DEALS.tie_breaker_note(state) == (
        "Tie-breaker! A and B are level on chips and play on until one wins a deal."
    )


# ------------------------------------------------------------ the scoreboard


def test_the_scoreboard_shows_chips_then_points():
    state = best_of_2(BEST_OF_2[:1])
    assert DEALS.columns(state) == ["Chips", "Points"]
    # After deal 1: A 230 chips and 0 points; B 130 and 30; C 120 and 40 (a middle drop).
    assert [DEALS.cells(state, p, {}) for p in state.players] == [
        [{"text": "230"}, {"text": "0"}],
        [{"text": "130"}, {"text": "30"}],
        [{"text": "120"}, {"text": "40"}],
    ]


# ------------------------------------------------------------ the chart and the lists


@pytest.mark.parametrize(
    ("table", "start"),
    [
        ({"deal_count": 2}, 160),  # 80 x 2
        ({"deal_count": 6}, 480),  # 80 x 6
        ({"deal_count": 3, "starting_chips": 100}, 100),  # as the table set it
    ],
)
def test_the_chart_starts_every_line_at_the_starting_chips(table, start):
    assert DEALS.chart_start(normalize_rules("deals", table)) == start


@pytest.mark.parametrize(("count", "label"), [(2, "Deals, best of 2"), (6, "Deals, best of 6")])
def test_the_list_of_games_labels_a_deals_game_by_its_number_of_deals(count, label):
    assert DEALS.listing_label(normalize_rules("deals", {"deal_count": count})) == label


# ------------------------------------------------------------ played for money


def test_while_deals_for_money_are_played_the_line_says_the_prize():
    # Best of 3, an entry fee of 50 each, three players: the winner takes 3 x 50.
    state = replay("deals", {"deal_count": 3, "entry_fee": "50"}, ABC, [])
    assert DEALS.meta(state, Decimal(0)) == " · best of 3 · 3 deals left · prize ₹150.00"


def test_once_the_game_is_won_the_line_says_no_prize():
    state = replay("deals", {"deal_count": 2, "entry_fee": "50"}, ABC, BEST_OF_2)
    assert DEALS.meta(state, Decimal(0)) == " · best of 2 · 0 deals left"


def test_at_the_end_every_other_player_pays_the_winner_the_entry_fee():
    # Example 09 for an entry fee of 50: B wins, so A and C pay B 50 each.
    state = replay("deals", {"deal_count": 2, "entry_fee": "50"}, ABC, BEST_OF_2)
    assert state.settlement == [("A", "B", Decimal(50)), ("C", "B", Decimal(50))]


def test_nobody_pays_before_the_end_nor_in_a_game_played_for_fun():
    playing = replay("deals", {"deal_count": 2, "entry_fee": "50"}, ABC, BEST_OF_2[:1])
    assert playing.settlement == []
    assert best_of_2(BEST_OF_2).settlement == []  # won by B, but no entry fee


def test_a_game_left_unnamed_is_named_by_its_number_of_deals():
    assert DEALS.default_name({"deal_count": 3}) == "Deals, best of 3"
