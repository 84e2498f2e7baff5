"""What the Basic Rummy screens show, from hand-worked games (rules.md, "Basic Rummy").

The game screen, the new-game form, the chart and the lists of games ask the
format object (tracker/rules/basic.py) for their words and figures; these
tests replay small games through the engine and check, word for word, what
a family reads there. Every figure is worked out by hand in the comment
beside it. No database: `make mutants` runs this file.
"""

from decimal import Decimal

import pytest

from tests.events import deal
from tracker.rules import FORMATS, RuleError, apply, normalize_rules, replay

BASIC = FORMATS["basic"]
P3 = ["Asha", "Ravi", "Meena"]
P4 = ["Asha", "Ravi", "Meena", "Kiran"]


def two_deals_to_100():
    """Winner collects, double, to 100 (the defaults), two deals played."""
    return replay(
        "basic",
        {},
        P3,
        [
            deal("Ravi", Asha=12, Meena=25),  # Ravi collects 12 + 25 = 37
            deal("Meena", True, Asha=8, Ravi=15),  # rummy, double: (8 + 15) x 2 = 46 to Meena
        ],
    )


def level_after_two_deals():
    """Winner collects, 2 deals (and the target 100): Ravi and Kiran level on 30."""
    return replay(
        "basic",
        {"deal_count": 2, "going_rummy": "off"},
        P4,
        [
            deal("Ravi", Asha=10, Meena=5, Kiran=15),  # Ravi 10 + 5 + 15 = 30
            deal("Kiran", Asha=10, Ravi=12, Meena=8),  # Kiran 10 + 12 + 8 = 30
        ],
    )


# ------------------------------------------------------------ the game's name


@pytest.mark.parametrize(
    ("table", "name"),
    [
        ({}, "Basic Rummy to 100"),  # the default target, no number of deals
        ({"target": 250}, "Basic Rummy to 250"),
        ({"target": None, "deal_count": 10}, "Basic Rummy, 10 deals"),
        ({"target": None, "deal_count": 1}, "Basic Rummy, 1 deal"),  # one deal: no "s"
        ({"target": 150, "deal_count": 10}, "Basic Rummy to 150 or 10 deals"),
        ({"target": 150, "deal_count": 1}, "Basic Rummy to 150 or 1 deal"),
    ],
)
def test_a_new_basic_game_is_named_after_how_it_ends(table, name):
    table_rules = normalize_rules("basic", table)
    assert BASIC.default_name(table_rules) == name
    # The table's list of games labels it the same way.
    assert BASIC.listing_label(table_rules) == name


# ------------------------------------------------------------ the line under the name


@pytest.mark.parametrize(
    ("table", "line"),
    [
        ({}, " · to 100 · winner collects"),
        ({"scoring": "penalty", "target": 50}, " · to 50 · penalty"),
        ({"target": None, "deal_count": 10}, " · 10 deals · winner collects"),
        ({"target": None, "deal_count": 1}, " · 1 deal · winner collects"),  # one deal: no "s"
        ({"target": 150, "deal_count": 10}, " · to 150 or 10 deals · winner collects"),
        ({"target": 150, "deal_count": 1}, " · to 150 or 1 deal · winner collects"),
        ({"scoring": "penalty", "target": 200, "deal_count": 6}, " · to 200 or 6 deals · penalty"),
    ],
)
def test_the_game_screen_says_how_the_game_ends_and_who_adds_the_counts(table, line):
    state = replay("basic", table, P3, [])
    assert BASIC.meta(state, Decimal(0)) == line


# ------------------------------------------------------------ the scoreboard


def test_the_scoreboard_leader_is_the_highest_total_while_the_game_goes_on():
    state = two_deals_to_100()
    # Asha 0, Ravi 37, Meena 46: Meena is in front, nobody has reached 100.
    assert state.status == "in_progress"
    assert state.leaders == ["Meena"]
    assert [p.name for p in state.tied] == ["Meena"]


def test_in_penalty_the_scoreboard_leader_is_the_lowest_total():
    table = {"scoring": "penalty", "target": 50}
    state = replay("basic", table, P3, [deal("Asha", Ravi=14, Meena=9)])
    # Each loser adds their own count: Asha 0, Ravi 14, Meena 9: Asha is lowest.
    assert state.leaders == ["Asha"]
    state = replay(
        "basic", table, P3, [deal("Asha", Ravi=14, Meena=9), deal("Meena", Asha=9, Ravi=0)]
    )
    # Asha 0 + 9 = 9, level with Meena's 9 at the bottom (Ravi 14 + 0): both lead, in seat order.
    assert state.leaders == ["Asha", "Meena"]


def test_players_level_at_the_top_both_lead_before_the_end():
    state = replay("basic", {}, P3, [deal("Ravi", Asha=5, Meena=5), deal("Meena", Asha=4, Ravi=6)])
    # Ravi 5 + 5 = 10, Meena 4 + 6 = 10, Asha 0: Ravi and Meena lead, the game goes on.
    assert state.leaders == ["Ravi", "Meena"]
    assert not state.tie_breaker


def test_the_winner_alone_leads_once_the_game_is_over():
    state = two_deals_to_100()
    apply(state, deal("Ravi", Asha=30, Meena=40))  # Ravi 37 + 70 = 107 >= 100: Ravi wins
    assert state.leaders == ["Ravi"]
    assert state.settlement == []  # point value 0: for fun


def test_the_tie_breaker_note_names_the_level_players_and_their_total():
    state = level_after_two_deals()
    assert state.tie_breaker
    assert state.leaders == ["Ravi", "Kiran"]
    assert BASIC.tie_breaker_note(state) == (
        "Tie-breaker! Ravi and Kiran are level on 30 and play on until one is alone in front."
    )


def test_the_tie_breaker_note_of_three_level_players():
    history = [
        deal("Asha", Ravi=10, Meena=10, Kiran=0),  # Asha 20
        deal("Ravi", Asha=5, Meena=15, Kiran=0),  # Ravi 20
        deal("Meena", Asha=10, Ravi=10, Kiran=0),  # Meena 20: three level after 3 deals
    ]
    state = replay("basic", {"deal_count": 3}, P4, history)
    assert [p.name for p in state.tied] == ["Asha", "Ravi", "Meena"]
    assert BASIC.tie_breaker_note(state) == (
        "Tie-breaker! Asha and Ravi and Meena are level on 20 "
        "and play on until one is alone in front."
    )


def test_the_history_marks_a_rummy_deal_rummy_and_the_others_won():
    state = two_deals_to_100()
    assert [BASIC.won_label(row) for row in state.rows] == ["Won", "Rummy!"]


# ------------------------------------------------------------ the settlement


def test_before_the_end_the_settlement_box_says_who_will_pay():
    state = two_deals_to_100()
    assert BASIC.settlement_note(state) == "Playing for fun: nobody pays."  # point value 0
    state = replay("basic", {"point_value": "0.50"}, P3, [deal("Ravi", Asha=12, Meena=25)])
    assert BASIC.settlement_note(state) == (
        "When the game ends, each loser pays the winner the difference."
    )
    assert state.settlement == []  # Ravi 37: the game is not over, nobody pays yet


def test_at_one_rupee_a_point_each_loser_pays_the_winners_lead():
    table = {"target": 20, "point_value": "1", "money_unit": "1"}
    state = replay("basic", table, P3, [deal("Asha", Ravi=5, Meena=15)])
    # Asha collects 5 + 15 = 20 >= 20 and wins; Ravi and Meena have 0 and each pay
    # (20 - 0) x 1 = 20, listed in seat order when equal.
    assert state.winner == "Asha"
    assert BASIC.settlement_note(state) == (
        "When the game ends, each loser pays the winner the difference."
    )
    assert state.settlement == [("Ravi", "Asha", Decimal(20)), ("Meena", "Asha", Decimal(20))]


def test_the_sheet_has_money_only_on_the_row_that_ends_the_game():
    table = {"target": 40, "point_value": "1", "money_unit": "1"}
    # Asha collects 5 + 15 = 20, Ravi 5 + 5 = 10, then Asha 10 + 10 = 40 >= 40 and
    # wins: Ravi (10) pays 40 - 10 = 30, Meena (0) pays 40: Asha +70.
    history = [
        deal("Asha", Ravi=5, Meena=15),
        deal("Ravi", Asha=5, Meena=5),
        deal("Asha", Ravi=10, Meena=10),
    ]
    assert BASIC.money_rows(replay("basic", table, P3, history)) == [
        {},
        {},
        {"Asha": "70.00", "Ravi": "-30.00", "Meena": "-40.00"},
    ]
    assert BASIC.money_rows(replay("basic", table, P3, history[:1])) == [{}]  # not over yet
    assert BASIC.money_rows(two_deals_to_100()) is None  # point value 0: for fun


# ------------------------------------------------------------ the chart


def test_the_chart_draws_the_target_as_a_dashed_line():
    assert BASIC.chart_line(normalize_rules("basic", {"target": 150})) == (
        150,
        "Target 150: the game ends there",
        "target 150",
    )


def test_the_chart_has_no_target_line_when_only_the_number_of_deals_ends_the_game():
    assert BASIC.chart_line(normalize_rules("basic", {"target": None, "deal_count": 10})) is None


# ------------------------------------------------------------ the deal form


@pytest.mark.parametrize(
    ("going_rummy", "offered"), [("double", True), ("plus_10", True), ("off", False)]
)
def test_the_deal_form_offers_the_went_rummy_mark_unless_going_rummy_is_off(going_rummy, offered):
    assert BASIC.rummy_mark(normalize_rules("basic", {"going_rummy": going_rummy})) is offered


# ------------------------------------------------------------ refusals, word for word


def refusal(state, event):
    """The refusal of `event`, with the state checked unchanged."""
    before = state.document()
    with pytest.raises(RuleError) as caught:
        apply(state, event)
    assert state.document() == before
    return caught.value


def test_a_game_with_neither_a_target_nor_a_number_of_deals_is_refused():
    with pytest.raises(RuleError) as caught:
        normalize_rules("basic", {"target": None})
    assert caught.value.field == "rules.target"
    assert caught.value.message == (
        "set a target or a number of deals (or both): the game needs an end"
    )


def test_a_drop_word_is_refused_beside_the_players_box_with_the_counts_allowed():
    state = replay("basic", {}, P3, [])
    error = refusal(state, deal("Asha", Ravi="first_drop", Meena=2))
    assert (error.field, error.player) == ("results.Ravi", "Ravi")
    assert error.for_player == (
        "Ravi: 'first_drop' is not a count: give the points of the cards left in hand, 0 to 999"
    )


def test_a_count_with_a_fraction_is_refused_beside_the_players_box():
    state = replay("basic", {}, P3, [])
    error = refusal(state, deal("Asha", Ravi=2, Meena=2.5))
    assert (error.field, error.player) == ("results.Meena", "Meena")
    assert error.for_player == "Meena: count must be a whole number"


def test_a_count_over_999_is_refused_beside_the_players_box():
    state = replay("basic", {}, P3, [])
    error = refusal(state, deal("Asha", Ravi=1000, Meena=2))
    assert (error.field, error.player) == ("results.Ravi", "Ravi")
    assert error.for_player == "Ravi: count must be between 0 and 999"


def test_a_rummy_mark_that_is_not_true_or_false_is_refused():
    state = replay("basic", {}, P3, [])
    error = refusal(state, {**deal("Asha", Ravi=1, Meena=2), "rummy": "yes"})
    assert (error.field, error.message) == ("rummy", "rummy must be true or false")


def test_a_rummy_deal_is_refused_where_going_rummy_is_off():
    state = replay("basic", {"going_rummy": "off"}, P3, [])
    error = refusal(state, deal("Asha", True, Ravi=1, Meena=2))
    assert (error.field, error.message) == (
        "rummy",
        "going rummy is off at this table: the deal cannot be marked rummy",
    )
