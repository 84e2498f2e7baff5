"""The defaults of the format class (tracker/rules/base.py), through the formats that use them.

A format writes only what differs from `Format`; each test below picks a
format that does not override the default (checked with grep over
tracker/rules/) and checks what a family sees of it on that format's
screens. Expected figures are worked out by hand in the comments.
No database: `make mutants` runs this file.

Defaults that no format reaches are not tested here: `amount` (only points
reads state.amount, and overrides it) and `deals_left` (only deals reads
state.deals_left, and overrides it) are listed in tests/mutants-equivalent.txt;
`meta`, `standing` and `tie_breaker_note` are written by every format that
shows them, so the class leaves them to the format (NotImplementedError).
"""

from decimal import Decimal

import pytest

from tracker.rules import FORMATS, RuleError, apply, normalize_rules, replay

P3 = ["Asha", "Ravi", "Meena"]


def deal(winner, **results):
    return {"type": "deal", "winner": winner, "results": results}


def test_the_basic_scoreboard_shows_each_players_total_in_one_column():
    # Basic keeps the default columns and cells (pool, deals and points write their own).
    basic = FORMATS["basic"]
    history = [
        deal("Ravi", Asha=12, Meena=25),  # Ravi collects 12 + 25 = 37
        deal("Meena", Asha=8, Ravi=15),  # Meena collects 8 + 15 = 23
    ]
    state = replay("basic", {}, P3, history)
    assert basic.columns(state) == ["Total"]
    assert [basic.cells(state, p, {}) for p in state.players] == [
        [{"text": "0"}],
        [{"text": "37"}],
        [{"text": "23"}],
    ]


def test_a_new_player_cannot_join_a_basic_game_and_is_told_why():
    # Basic keeps the default refusal (pool, points and deals word their own).
    state = replay("basic", {}, P3, [deal("Ravi", Asha=12, Meena=25)])
    before = state.document()
    with pytest.raises(RuleError) as caught:
        apply(state, {"type": "join", "player": "Kiran"})
    assert caught.value.message == (
        "Kiran cannot join: only pool and points games take a new player mid-game"
    )
    assert caught.value.field == "type"
    assert state.document() == before and len(state.players) == 3


@pytest.mark.parametrize(
    ("fmt", "history"),
    [
        # Deals best of 2, example 09: B ends with 235 chips and wins.
        ("deals", [deal("A", B=30, C="middle_drop"), deal("B", A=25, C=80)]),
        # Basic to 100: A collects 60 + 45 = 105 and wins.
        ("basic", [deal("A", B=60, C=45)]),
    ],
)
def test_a_deals_or_basic_game_has_no_pot_so_the_game_over_line_names_only_the_winner(fmt, history):
    # Only pool has a pot (pool.py overrides pot); with 0 the banner is "B wins!".
    state = replay(fmt, {}, ["A", "B", "C"], history)
    assert state.finished
    assert state.pot == Decimal(0)


@pytest.mark.parametrize("fmt", ["deals", "points", "basic"])
def test_only_pool_offers_to_split_the_pot(fmt):
    # pool.py overrides can_split; the others never show "Split the pot".
    state = replay(fmt, {}, P3, [deal("Asha", Ravi=20, Meena=30)])
    assert state.can_split is False


@pytest.mark.parametrize("fmt", ["pool", "deals", "points"])
def test_only_basic_rummy_offers_the_went_rummy_mark_on_the_deal_form(fmt):
    # basic.py overrides rummy_mark; the 13-card formats have no such mark.
    assert FORMATS[fmt].rummy_mark(normalize_rules(fmt, {})) is False


def test_the_history_marks_every_deals_winner_won():
    # Deals keeps the default label of the winner's box (basic says "Rummy!" too).
    state = replay(
        "deals", {}, P3, [deal("Asha", Ravi=20, Meena=30), deal("Ravi", Asha=5, Meena=0)]
    )
    assert [FORMATS["deals"].won_label(row) for row in state.rows] == ["Won", "Won"]


def test_the_points_and_basic_charts_start_every_line_at_0():
    # Deals starts at the chips (deals.py overrides chart_start); the others at 0.
    assert FORMATS["points"].chart_start(normalize_rules("points", {})) == 0
    assert FORMATS["basic"].chart_start(normalize_rules("basic", {})) == 0


def test_a_points_session_where_nobody_owes_says_so():
    # Points keeps the default note (basic words its own). Ravi counts 0 in the
    # only deal: both balances stay 0, so there is no payment to list.
    points = FORMATS["points"]
    state = replay("points", {}, ["Asha", "Ravi"], [deal("Asha", Ravi=0)])
    assert state.settlement == []
    assert points.settlement_note(state) == "Nobody owes anything."
