"""Properties that hold for every history the rules allow."""

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings

from tests.histories import BASIC, game
from tracker import rules
from tracker.documents import game_csv, game_json

# Hundreds of generated histories each: `make test-fast` leaves them out.
pytestmark = pytest.mark.slow


@settings(max_examples=300, deadline=None)
@given(game())
def test_figures_hold_for_any_history(generated):
    fmt, game_rules, players, first, history = generated
    state = rules.replay(fmt, game_rules, players, history, first)
    if fmt == "points":
        assert sum(p.balance for p in state.players) == 0
        assert sum(state.amount(p) for p in state.players) == 0
        # The settlement clears every balance.
        owed = {p.name: state.amount(p) for p in state.players}
        for debtor, creditor, amount in state.settlement:
            assert amount > 0
            owed[debtor] += amount
            owed[creditor] -= amount
        assert set(owed.values()) <= {Decimal(0)}
        assert len(state.settlement) < len(state.players)
        # Everyone ever seated is in the state, joiners included, and at least two stay dealt in.
        assert [p.seat for p in state.players] == list(range(1, len(state.players) + 1))
        if not state.finished:
            assert len(state.in_players) >= 2
    if fmt == "deals":
        assert sum(p.chips for p in state.players) == game_rules["starting_chips"] * len(players)
        assert all(p.chips >= 0 for p in state.players)
    if fmt == "pool":
        assert all(p.drops_left >= 0 for p in state.players)
        assert sum(1 for p in state.players if p.is_in) >= 1
        if state.split:
            assert sum(state.split.values()) == state.pot
            assert all(share >= 0 for share in state.split.values())
    assert all(p.total >= 0 for p in state.players)


def prefixes_score_as_the_running_state(generated):
    """Replaying the first n events gives the state the game had after n events."""
    fmt, game_rules, players, first, history = generated
    running = rules.new_game(fmt, game_rules, players, first)
    for count, event in enumerate(history, start=1):
        rules.apply(running, event)
        prefix = rules.replay(fmt, game_rules, players, history[:count], first)
        assert prefix.document() == running.document()
        assert prefix.rows[-1].totals == running.rows[-1].totals


@settings(max_examples=150, deadline=None)
@given(game())
def test_a_prefix_scores_the_same_as_the_state_after_that_many_events(generated):
    prefixes_score_as_the_running_state(generated)


@settings(max_examples=200, deadline=None)
@given(game(max_events=30, formats=["points", "pool"]))
def test_people_coming_and_going_keep_the_figures_whole(generated):
    fmt, game_rules, players, first, history = generated
    state = rules.replay(fmt, game_rules, players, history, first)
    joined = [e["player"] for e in history if e["type"] == "join"]
    assert [p.name for p in state.players if p.name not in joined] == players
    assert sorted(p.name for p in state.players if p.name in joined) == sorted(joined)
    if fmt == "points":
        # Balances sum to zero with joins, sit-outs and leaves; who left is still settled.
        assert sum(p.balance for p in state.players) == 0
        owed = {p.name: state.amount(p) for p in state.players}
        for debtor, creditor, amount in state.settlement:
            owed[debtor] += amount
            owed[creditor] -= amount
        assert set(owed.values()) <= {Decimal(0)}
        away = {p.name for p in state.players if p.status in ("sitting_out", "left")}
        for row in state.rows:
            if row.type == "deal":
                assert row.dealer == row.winner or row.dealer in row.results
    else:
        # One entry fee per seat at the start, per joiner and per rejoin in the history.
        entries = len(players) + len(joined) + sum(e["type"] == "rejoin" for e in history)
        assert state.pot == Decimal(game_rules["entry_fee"]) * entries
    if not state.finished:
        dealer = state.player(state.next_dealer)
        assert dealer in state.in_players
        if fmt == "points":
            assert dealer.name not in away


BAD_EVENTS = [
    {"type": "deal", "winner": "Nobody", "results": {}},
    {"type": "deal", "winner": "Asha", "results": {"Ravi": 1}},
    {"type": "deal", "winner": "Asha", "results": {"Ravi": "first_drop", "Zed": 5}},
    {"type": "rejoin", "player": "Zed"},
    {"type": "split", "method": "custom", "shares": {"Asha": "-1"}},
    {"type": "split", "method": "sideways"},
    {"type": "shuffle"},
    {"type": "join", "player": "asha"},
    {"type": "join", "player": "Zed", "after": "Nobody"},
    {"type": "sit_in", "player": "Zed"},
]


def each_is_refused_and_changes_nothing(generated, events):
    """Every one of `events` is refused after the generated history, and leaves its
    state (document and rows) as it was."""
    fmt, game_rules, players, first, history = generated
    state = rules.replay(fmt, game_rules, players, history, first)
    before = state.document()
    rows = len(state.rows)
    for event in events:
        try:
            rules.apply(state, event)
        except rules.RuleError:
            pass
        else:  # pragma: no cover - every one of them is refused
            raise AssertionError(f"accepted {event}")
        assert state.document() == before
        assert len(state.rows) == rows


@settings(max_examples=150, deadline=None)
@given(game())
def test_a_refused_event_leaves_the_state_as_it_was(generated):
    each_is_refused_and_changes_nothing(generated, BAD_EVENTS)


# ---------------------------------------------------------------- Basic Rummy


@settings(max_examples=200, deadline=None)
@given(game(formats=BASIC))
def test_basic_totals_never_fall(generated):
    """In winner_collects only the winner's total moves, and only up; in penalty only
    the losers' totals move, and only up. The tie-breaker plays only the level players."""
    fmt, game_rules, players, first, history = generated
    state = rules.new_game(fmt, game_rules, players, first)
    for event in history:
        before = {p.name: p.total for p in state.players}
        playing = {p.name for p in state.in_players}
        rules.apply(state, event)
        after = {p.name: p.total for p in state.players}
        assert all(after[name] >= before[name] for name in before)
        moved = {name for name in before if after[name] != before[name]}
        if game_rules["scoring"] == "winner_collects":
            assert moved <= {event["winner"]}
        else:
            assert event["winner"] not in moved
        assert moved <= playing
    assert all(p.status == "in" for p in state.players)
    if state.finished:
        totals = [p.total for p in state.players]
        best = max(totals) if game_rules["scoring"] == "winner_collects" else min(totals)
        assert [p.name for p in state.players if p.total == best] == [state.winner]
        paid = state.settlement
        assert all(to == state.winner and amount > 0 for _, to, amount in paid)
        if game_rules["point_value"] == "0":
            assert paid == []


@settings(max_examples=100, deadline=None)
@given(game(formats=BASIC))
def test_basic_prefix_scores_the_same_as_the_state_after_that_many_events(generated):
    prefixes_score_as_the_running_state(generated)


@settings(max_examples=100, deadline=None)
@given(game(formats=BASIC))
def test_basic_export_import_export_is_stable(generated):
    fmt, game_rules, players, first, history = generated
    doc = {
        "schema": game_json.SCHEMA,
        "name": "Random basic",
        "format": fmt,
        "rules": game_rules,
        "players": players,
        "first_dealer": first,
        "history": history,
    }
    exported = game_json.write(*game_json.read(doc))
    text = json.loads(game_json.dumps(exported))
    again = game_json.write(*game_json.read(text))
    assert again == exported
    # And through the CSV.
    game_doc, state = game_json.read(doc)
    assert game_csv.load_csv(game_csv.write_csv(game_doc, state))[0] == game_doc


BAD_BASIC_EVENTS = [
    {"type": "deal", "winner": "Nobody", "results": {}},
    {"type": "deal", "winner": "Asha", "results": {"Ravi": "first_drop"}},
    {"type": "deal", "winner": "Asha", "results": {"Ravi": 1000}},
    {"type": "deal", "winner": "Asha", "results": {"Ravi": 5}, "rummy": "yes"},
    {"type": "rejoin", "player": "Ravi"},
    {"type": "end"},
]


@settings(max_examples=100, deadline=None)
@given(game(formats=BASIC))
def test_basic_refused_event_leaves_the_state_as_it_was(generated):
    each_is_refused_and_changes_nothing(generated, BAD_BASIC_EVENTS)
