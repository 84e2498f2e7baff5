"""Properties that hold for every history the rules allow."""

from decimal import Decimal

from hypothesis import given, settings

from tracker import rules

from .histories import game


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


@settings(max_examples=150, deadline=None)
@given(game())
def test_a_prefix_scores_the_same_as_the_state_after_that_many_events(generated):
    fmt, game_rules, players, first, history = generated
    running = rules.new_game(fmt, game_rules, players, first)
    for count, event in enumerate(history, start=1):
        rules.apply(running, event)
        prefix = rules.replay(fmt, game_rules, players, history[:count], first)
        assert prefix.document() == running.document()
        assert prefix.rows[-1].totals == running.rows[-1].totals


BAD_EVENTS = [
    {"type": "deal", "winner": "Nobody", "results": {}},
    {"type": "deal", "winner": "Asha", "results": {"Ravi": 1}},
    {"type": "deal", "winner": "Asha", "results": {"Ravi": "first_drop", "Zed": 5}},
    {"type": "rejoin", "player": "Zed"},
    {"type": "split", "method": "custom", "shares": {"Asha": "-1"}},
    {"type": "split", "method": "sideways"},
    {"type": "shuffle"},
]


@settings(max_examples=150, deadline=None)
@given(game())
def test_a_refused_event_leaves_the_state_as_it_was(generated):
    fmt, game_rules, players, first, history = generated
    state = rules.replay(fmt, game_rules, players, history, first)
    before = state.document()
    rows = len(state.rows)
    for event in BAD_EVENTS:
        try:
            rules.apply(state, event)
        except rules.RuleError:
            pass
        else:  # pragma: no cover - every one of them is refused
            raise AssertionError(f"accepted {event}")
        assert state.document() == before
        assert len(state.rows) == rows
