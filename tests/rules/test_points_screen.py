"""What the game screen shows of a points session, straight from the format object.

A points session (rules.md "Points rummy") is replayed through the engine,
then `FORMATS["points"]` is asked for what the board prints: each player's
balance and money cells, the Sits out / Left badges, the column heads, the
line under the title, who leads, the deal form's result buttons. The money is
laid out as a family reads it (the rupee sign, the Indian grouping). Every
expected figure is worked out by hand in the comments. No database.
"""

import pytest

from tests.events import deal
from tracker.rules import FORMATS, replay
from tracker.rules.money_format import format_money, indian_grouping, plays_for_money

POINTS = FORMATS["points"]


def session(history, table=None, players=("Asha", "Ravi", "Meena")):
    return replay(
        "points", {"point_value": "0.25"} if table is None else table, list(players), history
    )


# Points at 0.25 a point, Asha deals first.
# Deal 1: Ravi wins; Asha 10, Meena first drop 20: Ravi +30, Asha -10, Meena -20.
# Deal 2: Meena wins; Asha 15, Ravi 5: Meena +20, so Asha -25, Ravi +25, Meena 0.
TWO_DEALS = [deal("Ravi", Asha=10, Meena="first_drop"), deal("Meena", Asha=15, Ravi=5)]


def board(state):
    return {p.name: POINTS.cells(state, p, {}) for p in state.players}


def test_the_board_shows_each_balance_with_its_sign_and_its_money():
    state = session(TWO_DEALS)
    # Money = balance x 0.25: -25 -> -6.25, +25 -> 6.25, 0 -> 0.00.
    assert board(state) == {
        "Asha": [{"text": "-25"}, {"text": "-₹6.25"}],
        "Ravi": [{"text": "+25"}, {"text": "₹6.25"}],
        "Meena": [{"text": "0"}, {"text": "₹0.00"}],
    }


def test_a_balance_of_one_point_shows_plus_one_in_whole_rupees():
    # Aces worth 1, so a loser may score 1 (rules.md). Ravi wins; Asha 1, Meena 0:
    # Ravi +1, Asha -1. Whole rupees at 1 a point: the money has no paise.
    table = {"point_value": "1", "money_unit": "1", "ace_value": 1}
    state = session([deal("Ravi", Asha=1, Meena=0)], table)
    assert board(state) == {
        "Asha": [{"text": "-1"}, {"text": "-₹1"}],
        "Ravi": [{"text": "+1"}, {"text": "₹1"}],
        "Meena": [{"text": "0"}, {"text": "₹0"}],
    }


def test_a_session_for_fun_shows_the_points_with_no_rupee_sign():
    state = session(TWO_DEALS, {"point_value": "0"})
    # No money column and no "0.00 a point" (issue 26.12).
    assert board(state)["Asha"] == [{"text": "-25"}]
    assert POINTS.meta(state, 0) == " · for fun"
    assert state.settlement == []


def test_the_line_under_the_title_gives_the_point_value():
    assert POINTS.meta(session([]), 0) == " · ₹0.25 a point"
    whole = session([], {"point_value": "2", "money_unit": "1"})
    assert POINTS.meta(whole, 0) == " · ₹2 a point"


def test_the_column_heads():
    assert POINTS.columns(session([])) == ["Balance (points)", "Money"]


def test_sitting_out_and_leaving_get_their_badge():
    # Kiran, a fourth seat, keeps two dealt in (Ravi and Kiran) after Asha leaves.
    history = [
        deal("Ravi", Asha=10, Meena=20, Kiran=5),
        {"type": "sit_out", "player": "Meena"},
        {"type": "leave", "player": "Asha"},
    ]
    state = session(history, players=("Asha", "Ravi", "Meena", "Kiran"))
    assert {p.name: POINTS.badges(state, p) for p in state.players} == {
        "Asha": [("Left", "")],
        "Ravi": [],
        "Meena": [("Sits out", "")],
        "Kiran": [],
    }


def test_the_leader_is_the_top_balance_and_nobody_leads_at_all_square():
    assert session([]).leaders == []
    assert session(TWO_DEALS).leaders == ["Ravi"]
    # Ravi wins with Asha 10; Meena wins with Asha 10: Ravi +10, Meena +10, Asha -20.
    level = session([deal("Ravi", Asha=10, Meena=0), deal("Meena", Asha=10, Ravi=0)])
    assert level.leaders == ["Ravi", "Meena"]
    # Back to all square: Asha wins 10 from each. Nobody leads.
    square = session(
        [
            deal("Ravi", Asha=10, Meena=0),
            deal("Meena", Asha=10, Ravi=0),
            deal("Asha", Ravi=10, Meena=10),
        ]
    )
    assert [p.balance for p in square.players] == [0, 0, 0]
    assert square.leaders == []


def test_the_names_of_a_points_game():
    assert POINTS.default_name({"point_value": "0.25"}) == "Points rummy"
    # The family table's list names the money a point, as the game screen does.
    assert POINTS.listing_label({"point_value": "0.25"}) == "Points at ₹0.25"
    assert POINTS.listing_label({"point_value": "2", "money_unit": "1"}) == "Points at ₹2"
    assert POINTS.listing_label({"point_value": "0"}) == "Points at 0.00"  # for nothing


def test_the_family_table_ranks_a_points_seat_by_its_balance():
    assert POINTS.standing({}, {"name": "Asha", "balance": -25}, None) == (-25,)


def test_the_deal_form_offers_every_result_word_with_its_points():
    state = session([])
    assert POINTS.result_buttons(state.rules) == [
        ("first_drop", "First drop", 20),
        ("middle_drop", "Middle drop", 40),
        ("full_count", "Full count", 80),
        ("wrong_show", "Wrong show", 80),
    ]
    # A deals table with drops off: only the full count and the wrong show.
    deals = replay("deals", {"drops_allowed": False}, ["A", "B"], [])
    assert FORMATS["deals"].result_buttons(deals.rules) == [
        ("full_count", "Full count", 80),
        ("wrong_show", "Wrong show", 80),
    ]


# ------------------------------------------------------------ money as a family reads it


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        ("0.5", "₹0.50"),  # under a rupee, and not owed
        ("-1", "-₹1.00"),  # owed exactly one rupee
        ("-0.001", "₹0.00"),  # rounds to nothing: no minus sign
        ("Infinity", "Infinity"),  # not a figure: shown as it came
        ("NaN", "NaN"),
    ],
)
def test_money_near_zero_and_not_a_figure(amount, shown):
    assert format_money(amount, {"point_value": "1"}) == shown


def test_money_with_no_rules_is_in_paise_without_the_rupee_sign():
    assert format_money("1234.5") == "1,234.50"
    assert format_money("1234.5", {}) == "1,234.50"


def test_a_word_in_one_money_rule_does_not_hide_the_other():
    # The entry fee is not a number, the point value is: the table plays for money.
    assert plays_for_money({"entry_fee": "ten", "point_value": "1"})
    assert format_money("5", {"entry_fee": "ten", "point_value": "1"}) == "₹5.00"


def test_indian_grouping_of_short_figures():
    assert [indian_grouping(d) for d in ("", "7", "12", "123", "1234")] == [
        "",
        "7",
        "12",
        "123",
        "1,234",
    ]


def test_a_session_for_fun_heads_the_board_with_the_balance_alone():
    assert POINTS.columns(session([], {"point_value": "0"})) == ["Balance (points)"]
    assert POINTS.columns(session([])) == ["Balance (points)", "Money"]


def test_the_family_table_counts_the_best_balance_at_the_end_as_the_winner():
    # TWO_DEALS: Asha -25, Ravi +25, Meena 0; once ended, Ravi alone is best.
    ended = session([*TWO_DEALS, {"type": "end"}])
    assert POINTS.table_winner(ended.rules, ended.document()) == "Ravi"
    playing = session(TWO_DEALS)
    assert POINTS.table_winner(playing.rules, playing.document()) is None


def test_a_session_ended_level_at_the_top_has_no_winner_at_the_table():
    # Ravi wins deal 1 (Asha 10, Meena 20): Ravi +30, Asha -10, Meena -20.
    # Asha wins deal 2 (Ravi 10, Meena 20): Asha +20, Ravi +20, Meena -40.
    level = [deal("Ravi", Asha=10, Meena=20), deal("Asha", Ravi=10, Meena=20), {"type": "end"}]
    ended = session(level)
    assert [p.balance for p in ended.players] == [20, 20, -40]
    assert POINTS.table_winner(ended.rules, ended.document()) is None


def test_the_sheet_has_each_players_money_after_every_deal():
    # At 0.25 a point, money = balance x 0.25 after each deal:
    # deal 1: Ravi +30 -> 7.50, Asha -10 -> -2.50, Meena -20 -> -5.00;
    # deal 2: Asha -25 -> -6.25, Ravi +25 -> 6.25, Meena 0 -> 0.00.
    assert POINTS.money_rows(session(TWO_DEALS)) == [
        {"Asha": "-2.50", "Ravi": "7.50", "Meena": "-5.00"},
        {"Asha": "-6.25", "Ravi": "6.25", "Meena": "0.00"},
    ]
    assert POINTS.money_rows(session(TWO_DEALS, {"point_value": "0"})) is None  # for fun
