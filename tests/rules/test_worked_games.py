"""Hand-worked games for the rules engine: every expected figure is worked out by
hand from ../shared/docs/rules.md and written out, never asked of the engine.

Only the engine's public face is used (rules.replay, rules.new_game,
rules.apply, state.document(), rules.RuleError), so these tests hold however
the engine is laid out. Each test is named after the rule it pins down; many
were written to kill a wrong engine that `make mutants` (scripts/mutants.py)
found the other tests let pass.
"""

import pytest

from tests.events import END, deal, sit_in, sit_out
from tracker import rules


def rejoin(name):
    return {"type": "rejoin", "player": name}


def split(method="drops", **shares):
    event = {"type": "split", "method": method}
    if shares:
        event["shares"] = shares
    return event


def play(fmt, table, players, history, first_dealer=None):
    """The state document after `history`."""
    return rules.replay(fmt, table, list(players), history, first_dealer).document()


def seats(doc, *keys):
    """{name: (key, ...)} of every player in the document, or {name: value} for one key."""
    if len(keys) == 1:
        return {p["name"]: p[keys[0]] for p in doc["players"]}
    return {p["name"]: tuple(p[k] for k in keys) for p in doc["players"]}


def refusal(fmt, table, players, history):
    with pytest.raises(rules.RuleError) as caught:
        rules.replay(fmt, table, list(players), history)
    return caught.value


# ---------------------------------------------------------------- the five wrong engines


def test_split_leftover_unit_goes_to_share_that_lost_most():
    # Entry 5, whole rupees, three players: pot 15. Totals 20 / 60 / 80 leave drops
    # left 4 / 2 / 1 in 101 pool. Excess over the lowest (1): 3 / 1 / 0, which at 5
    # each would be 20, more than the pot: each excess drop is worth 15 / 4 = 3.75.
    # Shares 11.25 / 3.75 / 0 round down to 11 / 3 / 0; the rupee left goes to the
    # share that lost the most in rounding (B's 0.75, not A's 0.25 or C's 0).
    history = [deal("B", A=20, C=80), deal("A", B=60, C=0)]
    table = {"entry_fee": "5", "money_unit": "1"}
    before = play("pool", table, "ABC", history)
    assert seats(before, "total", "drops_left") == {"A": (20, 4), "B": (60, 2), "C": (80, 1)}
    assert before["pot"] == "15.00"
    doc = play("pool", table, "ABC", [*history, split("drops")])
    assert doc["split"] == {"A": "11.00", "B": "4.00", "C": "0.00"}
    assert doc["status"] == "finished"


def test_rounding_tie_goes_to_earliest_seat():
    # Entry 11, whole rupees, three players: pot 33. C goes out; A and B are level
    # on 40. Equal shares of 16.5 round down to 16 and 16, both lose 0.5, the totals
    # are level: the rupee left goes to the earliest seat, A.
    history = [deal("A", B=40, C=80), deal("B", A=40, C=80)]
    table = {"entry_fee": "11", "money_unit": "1", "rejoin": False}
    doc = play("pool", table, "ABC", [*history, split("equal")])
    assert seats(doc, "total", "status") == {
        "A": (40, "in"),
        "B": (40, "in"),
        "C": (160, "out"),
    }
    assert doc["split"] == {"A": "17.00", "B": "16.00"}


def test_rejoin_allowed_when_highest_equals_cutoff():
    # 101 pool, cutoff 79 (101 - 20 - 2). B goes out on 110; the highest total still
    # in is C's 79, equal to the cutoff: B may rejoin, at 80, with one drop left.
    history = [deal("A", B=80, C=79, D=10), deal("A", B=30, C=0, D=0)]
    table = {"entry_fee": "10"}
    before = play("pool", table, "ABCD", history)
    assert before["can_rejoin"] == ["B"]
    doc = play("pool", table, "ABCD", [*history, rejoin("B")])
    assert seats(doc, "total", "status", "drops_left", "rejoins")["B"] == (80, "in", 1, 1)
    assert doc["pot"] == "50.00"
    # One more point and it is above the cutoff.
    higher = [deal("A", B=80, C=80, D=10), deal("A", B=30, C=0, D=0)]
    assert play("pool", table, "ABCD", higher)["can_rejoin"] == []
    error = refusal("pool", table, "ABCD", [*higher, rejoin("B")])
    assert str(error) == (
        "history[2] (rejoin): player: B cannot rejoin: "
        "the highest total still in is 80, above the rejoin cutoff 79"
    )


def test_max_drops_count_starts_afresh_after_rejoin():
    # Most drops 2. B takes a first drop (20) and a middle drop (40): none left. B
    # goes out on 140; C and D have 6, so B rejoins at 7, where 101 pool leaves
    # (100 - 7) // 20 = 4 drops, but most drops allows 2, counted afresh from the
    # rejoin. B then drops once more: 1 left.
    history = [
        deal("A", B="first_drop", C=2, D=2),
        deal("A", B="middle_drop", C=2, D=2),
        deal("A", B=80, C=2, D=2),
    ]
    table = {"max_drops": 2}
    out = play("pool", table, "ABCD", history)
    assert seats(out, "total", "status", "drops_left")["B"] == (140, "out", 0)
    back = play("pool", table, "ABCD", [*history, rejoin("B")])
    assert seats(back, "total", "status", "drops_left")["B"] == (7, "in", 2)
    again = [*history, rejoin("B"), deal("A", B="first_drop", C=2, D=2)]
    assert seats(play("pool", table, "ABCD", again), "total", "drops_left")["B"] == (27, 1)
    # The second drop since the rejoin is allowed, the third refused.
    twice = [*again, deal("A", B="middle_drop", C=2, D=2)]
    assert seats(play("pool", table, "ABCD", twice), "total", "drops_left")["B"] == (67, 0)
    error = refusal("pool", table, "ABCD", [*twice, deal("A", B="first_drop", C=2, D=2)])
    assert error.for_player == "B: has taken 2 drops, the most this table allows"


def test_tie_breaker_winner_is_the_deals_winner():
    # Deals, best of 2, 160 chips each. After two deals A and B have 165, C 150: a
    # tie-breaker between A and B. B wins it and A scores 0: the chips stay level
    # (165 / 165), but B won the deal outright, so B wins the game.
    history = [deal("A", B=30, C=10), deal("B", A=35, C=0)]
    tied = play("deals", {"deal_count": 2}, "ABC", history)
    assert (tied["status"], tied["winner"], tied["deals_left"]) == ("in_progress", None, 0)
    assert seats(tied, "chips") == {"A": 165, "B": 165, "C": 150}
    doc = play("deals", {"deal_count": 2}, "ABC", [*history, deal("B", A=0)])
    assert (doc["status"], doc["winner"]) == ("finished", "B")
    assert seats(doc, "chips") == {"A": 165, "B": 165, "C": 150}


# ---------------------------------------------------------------- the history rows


def test_each_event_is_one_row_with_the_figures_after_it():
    # Pool 101, entry 10. Deal 1 (A deals): B 80, C 2, D a first drop (20). Deal 2 (B
    # deals): B 30 more, out on 110. B rejoins at 23, one more than D's 22.
    state = rules.new_game("pool", {"entry_fee": "10"}, ["A", "B", "C", "D"])
    first = rules.apply(state, deal("A", B=80, C=2, D="first_drop"))
    assert (first.index, first.type, first.number, first.dealer, first.winner) == (
        0,
        "deal",
        1,
        "A",
        "A",
    )
    assert first.results == {"B": 80, "C": 2, "D": "first_drop"}
    assert first.points == {"B": 80, "C": 2, "D": 20}
    assert first.totals == {"A": 0, "B": 80, "C": 2, "D": 20}
    assert (first.went_out, first.tie_breaker) == ([], False)
    second = rules.apply(state, deal("A", B=30, C=2, D=2))
    assert (second.index, second.number, second.dealer, second.went_out) == (1, 2, "B", ["B"])
    assert second.totals == {"A": 0, "B": 110, "C": 4, "D": 22}
    back = rules.apply(state, rejoin("B"))
    assert (back.index, back.type, back.player, back.start_total) == (2, "rejoin", "B", 23)
    assert back.totals == {"A": 0, "B": 23, "C": 4, "D": 22}
    # B dealt deal 2, so C deals deal 3.
    third = rules.apply(state, deal("A", B=2, C=2, D=2))
    assert (third.index, third.number, third.dealer) == (3, 3, "C")
    assert state.document()["pot"] == "50.00"


def test_a_second_rejoin_counts_twice_and_adds_a_second_entry():
    # B out on 110, back at 21 (C and D have 20), out again on 101, back at 23.
    history = [
        deal("A", B=80, C=10, D=10),
        deal("A", B=30, C=10, D=10),
        rejoin("B"),
        deal("A", B=80, C=2, D=2),
        rejoin("B"),
    ]
    doc = play("pool", {"entry_fee": "10"}, "ABCD", history)
    assert seats(doc, "total", "status", "rejoins")["B"] == (23, "in", 2)
    assert doc["pot"] == "60.00"


def test_deals_rows_show_chips_and_the_tie_breaker_deal():
    state = rules.new_game("deals", {"deal_count": 2}, ["A", "B", "C"])
    first = rules.apply(state, deal("A", B=30, C=10))
    assert first.totals == {"A": 200, "B": 130, "C": 150}
    rules.apply(state, deal("B", A=35, C=0))
    assert state.tie_breaker
    extra = rules.apply(state, deal("A", B=5))
    assert (extra.number, extra.tie_breaker, extra.totals) == (
        3,
        True,
        {"A": 170, "B": 160, "C": 150},
    )
    # Over: no tie-breaker any more, A has won it.
    assert state.tie_breaker is False
    assert (state.document()["status"], state.document()["winner"]) == ("finished", "A")


def test_points_rows_show_balances_and_the_end():
    state = rules.new_game("points", {"point_value": "0.5"}, ["A", "B", "C"])
    first = rules.apply(state, deal("B", A=10, C="first_drop"))
    assert first.totals == {"A": -10, "B": 30, "C": -20}
    end = rules.apply(state, END)
    assert (end.index, end.type, end.totals) == (1, "end", {"A": -10, "B": 30, "C": -20})
    doc = state.document()
    assert doc["status"] == "finished"
    assert seats(doc, "amount") == {"A": "-5.00", "B": "15.00", "C": "-10.00"}


def test_the_history_screen_shows_the_newest_rows_oldest_first_and_counts_them_all():
    # Points: Asha wins each of 40 deals and Ravi, Meena and Kiran lose 10, 20 and
    # 30, so after deal k the balances are +60k, -10k, -20k and -30k.
    history = [deal("Asha", Ravi=10, Meena=20, Kiran=30) for _ in range(40)]
    state = rules.replay("points", {}, ["Asha", "Ravi", "Meena", "Kiran"], history)
    assert state.row_count == state.version == 40  # "Show all 40 events"
    newest = state.recent_rows(12)  # deals 29 to 40, the oldest first
    assert [row.number for row in newest] == list(range(29, 41))
    # Deal 29: 60 x 29 = 1740, 10 x 29 = 290, 20 x 29 = 580, 30 x 29 = 870.
    assert newest[0].totals == {"Asha": 1740, "Ravi": -290, "Meena": -580, "Kiran": -870}
    # Deal 40: 60 x 40 = 2400, 400, 800, 1200.
    assert newest[-1].totals == {"Asha": 2400, "Ravi": -400, "Meena": -800, "Kiran": -1200}
    assert [row.number for row in state.recent_rows(1)] == [40]
    assert [row.number for row in state.recent_rows(45)] == list(range(1, 41))  # all 40
    assert state.recent_rows(0) == []


def test_the_newest_deals_are_counted_back_to_the_last_other_event():
    # The game screen adds a saved deal's row alone only when the rows it shows
    # are all deals: how many of the newest rows, back from the last, are deals.
    state = rules.new_game("points", {}, ["Asha", "Ravi", "Meena"])
    assert state.newest_deals == 0  # no rows yet
    rules.apply(state, deal("Asha", Ravi=10, Meena=20))
    rules.apply(state, deal("Ravi", Asha=5, Meena=5))
    assert state.newest_deals == 2
    rules.apply(state, sit_out("Meena"))  # not a deal: none since
    assert state.newest_deals == 0
    rules.apply(state, deal("Asha", Ravi=30))
    assert state.newest_deals == 1  # deal, sit-out, deal, deal: one back to the sit-out
    rules.apply(state, sit_in("Meena"))
    rules.apply(state, deal("Meena", Asha=2, Ravi=3))
    rules.apply(state, deal("Meena", Asha=4, Ravi=6))
    assert state.newest_deals == 2


def test_a_split_row_keeps_the_method_and_the_shares():
    history = [deal("B", A=20, C=80), deal("A", B=60, C=0)]
    state = rules.replay("pool", {"entry_fee": "5", "money_unit": "1"}, ["A", "B", "C"], history)
    row = rules.apply(state, split("equal"))
    # Pot 15 shared by three: 5 each.
    assert (row.index, row.type, row.results) == (2, "split", {"method": "equal"})
    assert {name: str(share) for name, share in row.shares.items()} == {
        "A": "5",
        "B": "5",
        "C": "5",
    }
