"""The rules engine against shared/docs/rules.md: worked numbers, whole games, refusals."""

from decimal import Decimal

import pytest

from tests.conftest import example_paths, load_example
from tests.events import deal
from tracker import rules
from tracker.rules import RuleError, replay
from tracker.rules.money import _zero_sum_groups


def pool(history, players=("A", "B", "C", "D"), **table):
    return replay("pool", table, list(players), history)


# ------------------------------------------------------------ worked examples


def test_all_twelve_worked_examples_are_here():
    assert len(example_paths()) == 12


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_worked_example_state(path):
    doc = load_example(path)
    state = replay(doc["format"], doc["rules"], doc["players"], doc["history"], doc["first_dealer"])
    got = state.document()
    want = doc["state"]
    if "settlement" in want:
        # Another set of payments is right too, if it is as short and clears every balance.
        got_pay, want_pay = got.pop("settlement"), want.pop("settlement")
        assert len(got_pay) == len(want_pay)
        owed = {p["name"]: Decimal(p["amount"]) for p in got["players"]}
        for pay in got_pay:
            owed[pay["from"]] += Decimal(pay["amount"])
            owed[pay["to"]] -= Decimal(pay["amount"])
        assert set(owed.values()) == {0}
    assert got == want
    assert rules.normalize_rules(doc["format"], doc["rules"]) == doc["rules"]


# ------------------------------------------------------------ worked numbers


@pytest.mark.parametrize(("total", "left"), [(0, 5), (39, 3), (61, 1), (85, 0), (100, 0)])
def test_drops_left_in_101_pool(total, left):
    # Get a player to `total` with point results only.
    history, rest = [], total
    while rest:
        step = min(rest, 80) if rest != 1 else 1
        if rest - step == 1:
            step -= 2
        history.append(deal("A", B=step))
        rest -= step
    state = pool(history, players=("A", "B"))
    assert state.player("B").total == total
    assert state.player("B").drops_left == left


@pytest.mark.parametrize(
    ("limit", "out_at", "cutoff"), [(101, "reach", 79), (201, "reach", 174), (61, "reach", 44)]
)
def test_default_rejoin_cutoffs(limit, out_at, cutoff):
    assert rules.normalize_rules("pool", {"pool_limit": limit})["rejoin_cutoff"] == cutoff


@pytest.mark.parametrize(
    ("limit", "values"),
    [
        (61, (15, 30, 60, 60)),
        (201, (25, 50, 80, 80)),
        (101, (20, 40, 80, 80)),
        (150, (20, 40, 80, 80)),
    ],
)
def test_drop_defaults_follow_the_pool_limit(limit, values):
    got = rules.normalize_rules("pool", {"pool_limit": limit})
    assert (got["first_drop"], got["middle_drop"], got["full_count"], got["wrong_show"]) == values


def test_deals_chips_default_to_80_per_deal():
    for count, chips in [(2, 160), (3, 240), (6, 480)]:
        assert rules.normalize_rules("deals", {"deal_count": count})["starting_chips"] == chips


def test_split_example_of_rules_md_adds_up_to_the_pot():
    # Entry 25, six players, pot 150; three left with drops left 3 / 1 / 0.
    state = replay(
        "pool",
        {"entry_fee": "25", "rejoin": False},
        ["A", "B", "C", "D", "E", "F"],
        [
            deal("B", A=39, C=80, D=80, E=80, F=80),
            deal("A", B=61, C=19, D=80, E=80, F=80),
        ],
    )
    assert [p.drops_left for p in state.in_players] == [3, 1, 0]
    shares = state.split_shares("drops")
    assert shares == {"A": Decimal("91.67"), "B": Decimal("41.67"), "C": Decimal("16.66")}
    assert sum(shares.values()) == state.pot == Decimal(150)


def test_equal_split_in_whole_rupees_gives_the_odd_rupee_to_the_lower_total():
    state = pool(
        [deal("A", B=40, C=80), deal("B", A=10, C=80)],
        players=("A", "B", "C"),
        entry_fee="11",
        money_unit="1",
        rejoin=False,
    )
    assert state.pot == Decimal(33)
    assert state.split_shares("equal") == {"A": Decimal(17), "B": Decimal(16)}


# ------------------------------------------------------------ whole games


def test_pool_elimination_down_to_one_winner_with_dealer_skipping_the_out():
    state = pool(
        [
            deal("A", B=80, C=50, D=80),  # dealt by A
            deal("A", B=30, C=20, D="first_drop"),  # dealt by B: B out at 110, D on 100
        ]
    )
    assert [p.total for p in state.players] == [0, 110, 70, 100]
    assert [p.status for p in state.players] == ["in", "out", "in", "in"]
    assert [r.dealer for r in state.rows] == ["A", "B"]
    assert state.next_dealer == "C"
    state = pool(
        [
            deal("A", B=80, C=50, D=80),
            deal("A", B=30, C=20, D="first_drop"),
            deal("C", A=2, D=5),  # dealt by C: D out at 105
            deal("A", C="full_count"),  # dealt by A (D is out): C out at 150
        ]
    )
    assert [r.dealer for r in state.rows] == ["A", "B", "C", "A"]
    assert state.status == "finished"
    assert state.winner == "A"
    assert state.next_dealer is None
    with pytest.raises(RuleError, match="the game is over"):
        rules.apply(state, deal("A", C=10))


def test_out_at_exceed_keeps_a_player_on_the_limit():
    history = [deal("A", B=80, C=2), deal("A", B=21, C=2)]
    assert pool(history, players=("A", "B", "C"), out_at="exceed").player("B").status == "in"
    assert pool(history, players=("A", "B", "C"), out_at="reach").player("B").status == "out"


def test_rejoin_starts_at_highest_plus_one_and_grows_the_pot():
    history = [deal("A", B=80, C=10, D=40), deal("C", A=30, B=25, D=20)]
    state = pool(history, entry_fee="50")
    assert state.player("B").status == "out"
    assert state.can_rejoin == ["B"]
    assert state.rejoin_total() == 61  # D has 60, the highest still in
    state = pool([*history, {"type": "rejoin", "player": "B"}], entry_fee="50")
    b = state.player("B")
    assert (b.status, b.total, b.rejoins, b.drops_left) == ("in", 61, 1, 1)
    assert state.pot == Decimal(250)
    # B dealt deal 2, so C deals next; B is dealt in again.
    assert state.next_dealer == "C"


def test_rejoin_refused_above_the_cutoff_and_when_off_and_past_the_most():
    history = [deal("A", B=80, C=80, D=10), deal("D", A=80, B=25, C=5)]
    state = pool(history)
    assert state.player("B").status == "out"
    assert state.can_rejoin == []
    with pytest.raises(RuleError, match="above the rejoin cutoff 79"):
        pool([*history, {"type": "rejoin", "player": "B"}])
    low = [deal("A", B=80, C=10, D=10), deal("C", A=10, B=30, D=10)]
    with pytest.raises(RuleError, match="rejoins are off"):
        pool([*low, {"type": "rejoin", "player": "B"}], rejoin=False)
    twice = [*low, {"type": "rejoin", "player": "B"}, deal("C", A=2, B=80, D=2)]
    assert pool(twice).player("B").status == "out"
    with pytest.raises(RuleError, match="the most this table allows"):
        pool([*twice, {"type": "rejoin", "player": "B"}], max_rejoins=1)
    with pytest.raises(RuleError, match="C is still in"):
        pool([*low, {"type": "rejoin", "player": "C"}])


def test_deals_tie_breaker_only_among_tied_leaders():
    game = {"deal_count": 2}
    history = [deal("A", B=30, C=10), deal("B", A=35, C=0)]
    state = replay("deals", game, ["A", "B", "C"], history)
    assert state.status == "in_progress"
    assert state.tie_breaker
    assert [p.name for p in state.in_players] == ["A", "B"]
    assert state.deals_left == 0
    with pytest.raises(RuleError, match="C is not in the tie-breaker"):
        replay("deals", game, ["A", "B", "C"], [*history, deal("A", B=5, C=5)])
    state = replay("deals", game, ["A", "B", "C"], [*history, deal("B", A=15)])
    assert (state.status, state.winner) == ("finished", "B")
    assert sum(p.chips for p in state.players) == 480


def test_deals_chips_never_go_below_zero():
    state = replay("deals", {"deal_count": 3, "starting_chips": 50}, ["A", "B"], [deal("A", B=80)])
    assert [p.chips for p in state.players] == [100, 0]
    assert state.player("B").total == 80


def test_deals_without_drops_refuses_a_drop():
    with pytest.raises(RuleError, match="drops are off"):
        replay("deals", {"drops_allowed": False}, ["A", "B"], [deal("A", B="first_drop")])


def test_points_settlement_needs_fewer_payments_than_greedy():
    # Balances +9 -5 -7 -4 -9 +16: largest debtor to largest creditor takes 5 payments.
    state = replay(
        "points",
        {},
        ["A", "B", "C", "D", "E", "F"],
        [deal("F", A=0, B=5, C=7, D=4, E=0), deal("A", B=0, C=0, D=0, E=9, F=0)],
    )
    assert [p.balance for p in state.players] == [9, -5, -7, -4, -9, 16]
    assert len(state.settlement) == 4
    left = {p.name: p.balance for p in state.players}
    for debtor, creditor, amount in state.settlement:
        left[debtor] += amount
        left[creditor] -= amount
    assert set(left.values()) == {0}


@pytest.mark.parametrize(
    ("balances", "fewest"),
    [
        ({"a": 5, "b": -5}, 1),
        ({"a": 3, "b": 3, "c": -3, "d": -3}, 2),
        ({"a": 10, "b": -4, "c": -6, "d": 7, "e": -7}, 3),
        ({"a": 1, "b": 2, "c": 3, "d": -6, "e": 4, "f": -4, "g": 5, "h": -5}, 5),
        ({"a": 0, "b": 0}, 0),
        # -3 + 12 - 9 and 7 + 4 - 2 - 9 each clear: 2 + 3 payments, not 6.
        ({"a": 7, "b": -3, "c": 4, "d": -9, "e": -2, "f": -9, "g": 12}, 5),
    ],
)
def test_fewest_payments(balances, fewest):
    payments = rules.fewest_payments(balances)
    assert len(payments) == fewest
    left = dict(balances)
    for debtor, creditor, amount in payments:
        assert amount > 0
        left[debtor] += amount
        left[creditor] -= amount
    assert set(left.values()) == {0}


def test_fewest_payments_refuses_balances_that_do_not_clear():
    with pytest.raises(ValueError, match=r"^balances must sum to zero$"):
        rules.fewest_payments({"a": 5, "b": -4})


def test_points_end_and_no_deal_after():
    state = replay("points", {"point_value": "0.25"}, ["A", "B"], [deal("A", B=40)])
    assert state.amount(state.player("A")) == Decimal(10)
    with pytest.raises(RuleError, match="the game is over"):
        replay("points", {}, ["A", "B"], [deal("A", B=40), {"type": "end"}, deal("A", B=2)])


def test_max_drops_counts_first_and_middle_drops():
    history = [deal("A", B="first_drop", C=2, D=2), deal("A", B="middle_drop", C=2, D=2)]
    state = pool(history, max_drops=2)
    assert state.player("B").drops_left == 0
    with pytest.raises(RuleError, match="B: has taken 2 drops"):
        pool([*history, deal("A", B="first_drop", C=2, D=2)], max_drops=2)


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("history", "field", "words"),
    [
        ([{"type": "deal", "results": {"B": 2}}], "winner", "pick the one winner"),
        ([deal("A", A=0, B=2, C=2, D=2)], "results.A", "one winner only"),
        ([deal("A", B=2, C=2)], "results.D", "D: result missing"),
        ([deal("A", B=1, C=2, D=2)], "results.B", "B: points must be 0 or between 2 and 80"),
        ([deal("A", B=81, C=2, D=2)], "results.B", "between 2 and 80"),
        ([deal("A", B=-3, C=2, D=2)], "results.B", "between 2 and 80"),
        ([deal("A", B="lots", C=2, D=2)], "results.B", "is not a result"),
        ([deal("A", B=2.5, C=2, D=2)], "results.B", "whole number"),
        ([deal("A", B=True, C=2, D=2)], "results.B", "whole number"),
        ([deal("Zed", B=2, C=2, D=2)], "winner", "Zed is not at this table"),
        ([deal("A", B=2, C=2, D=2, Zed=2)], "results.Zed", "not at this table"),
        (
            [deal("A", B=80, C=2, D=2), deal("A", B=30, C=2, D=2), deal("A", B=2, C=2, D=2)],
            "results.B",
            "B is out and has no result",
        ),
        ([{"type": "rejoin", "player": "B"}], "player", "B cannot rejoin: B is still in"),
        ([{"type": "split", "method": "drops"}], "method", "two or three players still in"),
        ([{"type": "end"}], "type", "only a points session"),
        ([{"type": "shuffle"}], "type", "type must be deal"),
        ([deal("A", B=2, C=2, D=2) | {"extra": 1}], "extra", "does not belong"),
    ],
)
def test_refusals_name_the_event_and_the_field(history, field, words):
    with pytest.raises(RuleError) as caught:
        pool(history)
    error = caught.value
    assert error.field == field
    assert error.event == len(history) - 1
    assert words in str(error)
    assert str(error).startswith(f"history[{len(history) - 1}]")
    if error.player:  # the name is said once, however the message begins
        assert not error.for_player.startswith(f"{error.player}: {error.player} ")


def test_one_point_is_allowed_only_when_an_ace_is_worth_one():
    assert pool([deal("A", B=1, C=2, D=2)], ace_value=1).player("B").total == 1


def test_custom_split_refusals():
    three = [deal("A", B=80, C=80, D=80), deal("A", B=30, C=2, D=2)]
    base = pool(three, entry_fee="10", rejoin=False)
    assert [p.name for p in base.in_players] == ["A", "C", "D"]
    cases = [
        ({"A": "20", "C": "10", "D": "5"}, "shares add up to 35.00, but the pot is 40.00"),
        ({"A": "50", "C": "-10", "D": "0"}, "share must not be negative"),
        ({"A": "20.005", "C": "10", "D": "9.995"}, "whole money units"),
        ({"A": "20", "C": "20"}, "D: share missing"),
        ({"A": "20", "C": "20", "D": "0", "B": "0"}, "B is not in the game"),
    ]
    for shares, words in cases:
        with pytest.raises(RuleError, match=words):
            pool([*three, {"type": "split", "method": "custom", "shares": shares}], entry_fee="10")
    done = pool(
        [*three, {"type": "split", "method": "custom", "shares": {"A": "25", "C": "15", "D": "0"}}],
        entry_fee="10",
    )
    assert done.finished and done.split == {
        "A": Decimal(25),
        "C": Decimal(15),
        "D": Decimal(0),
    }


@pytest.mark.parametrize(
    ("fmt", "table", "field", "words"),
    [
        ("pool", {"first_drop": 0}, "rules.first_drop", "at least 1 in pool"),
        ("pool", {"middle_drop": 10}, "rules.middle_drop", "not be less than the first drop"),
        ("pool", {"full_count": 30}, "rules.full_count", "not be less than the middle drop"),
        ("pool", {"full_count": 201}, "rules.full_count", "at most 200"),
        ("pool", {"wrong_show": 90}, "rules.wrong_show", "not be more than the full count"),
        ("pool", {"pool_limit": 19}, "rules.pool_limit", "at least 20"),
        ("pool", {"pool_limit": 10_001}, "rules.pool_limit", "at most 10000"),
        ("pool", {"rejoin_cutoff": 101}, "rules.rejoin_cutoff", "below 101"),
        ("pool", {"rejoin_cutoff": -1}, "rules.rejoin_cutoff", "not be negative"),
        ("pool", {"max_rejoins": -1}, "rules.max_rejoins", "not be negative"),
        ("pool", {"max_drops": -2}, "rules.max_drops", "not be negative"),
        ("pool", {"entry_fee": "-5"}, "rules.entry_fee", "not be negative"),
        ("pool", {"entry_fee": "2.5", "money_unit": "1"}, "rules.entry_fee", "more decimals"),
        ("pool", {"entry_fee": "abc"}, "rules.entry_fee", "must be a plain amount"),
        ("pool", {"out_at": "touch"}, "rules.out_at", "reach or exceed"),
        ("pool", {"ace_value": 11}, "rules.ace_value", "10 or 1"),
        ("pool", {"deal_count": 3}, "rules.deal_count", "not a rule of pool"),
        ("deals", {"deal_count": 0}, "rules.deal_count", "at least 1"),
        ("deals", {"deal_count": 101}, "rules.deal_count", "at most 100"),
        ("deals", {"starting_chips": -1}, "rules.starting_chips", "not be negative"),
        ("deals", {"first_drop": 0, "middle_drop": 0}, None, None),
        ("points", {"point_value": "-1"}, "rules.point_value", "not be negative"),
        ("points", {"point_value": "0.125"}, "rules.point_value", "more decimals"),
        ("points", {"money_unit": "0.5"}, "rules.money_unit", "0.01 or 1"),
        ("cards", {}, "format", "pool, deals, points or basic"),
    ],
)
def test_table_rules_out_of_range(fmt, table, field, words):
    if words is None:
        rules.normalize_rules(fmt, table)  # in range: no refusal
        return
    with pytest.raises(RuleError) as caught:
        rules.normalize_rules(fmt, table)
    assert caught.value.field == field
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("players", "words"),
    [
        (["A"], "at least 2 players"),
        ([f"P{i}" for i in range(11)], "at most 10 players"),
        (["Asha", "asha"], "asha is at the table twice"),
        (["Asha", "  "], "player 2 needs a name"),
        (["Asha", "x" * 10_000], "longer than 30 letters"),
        (["Asha", 7], "player 2 needs a name"),
    ],
)
def test_player_refusals(players, words):
    with pytest.raises(RuleError, match=words):
        rules.check_players(players)


def test_first_dealer_must_be_a_player():
    with pytest.raises(RuleError, match="Zed is not one of the players"):
        replay("pool", {}, ["A", "B"], [], first_dealer="Zed")


def test_card_house_rules_are_kept_only_where_the_table_changed_them():
    plain = rules.normalize_rules("points", {"natural_wild": "pure", "jokers_in_sets": True})
    assert "natural_wild" not in plain and "jokers_in_sets" not in plain
    assert rules.card_rules(plain) == {
        "natural_wild": "pure",
        "jokers_in_sets": True,
        "hand_count": "all",
    }
    house = rules.normalize_rules(
        "pool", {"natural_wild": "joker", "jokers_in_sets": False, "hand_count": "except_pure"}
    )
    assert rules.card_rules(house) == {
        "natural_wild": "joker",
        "jokers_in_sets": False,
        "hand_count": "except_pure",
    }
    with pytest.raises(RuleError, match="a loser counts must be all or except_pure"):
        rules.normalize_rules("pool", {"hand_count": "some"})
    with pytest.raises(RuleError, match="jokers in sets must be true or false"):
        rules.normalize_rules("deals", {"jokers_in_sets": "no"})


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"entry_fee": "1e-999999999"}, "must be a plain amount"),
        ({"entry_fee": "0." + "0" * 5000 + "1"}, "more decimals than the money unit"),
        ({"entry_fee": "1e30"}, "must be a plain amount"),
        ({"entry_fee": "1" + "0" * 30}, "at most 1000000"),
        ({"entry_fee": "NaN"}, "must be a plain amount"),
    ],
)
def test_money_out_of_all_proportion_is_refused(table, words):
    with pytest.raises(RuleError, match=words):
        rules.normalize_rules("pool", table)


def test_a_custom_share_out_of_all_proportion_is_refused():
    history = [{"type": "split", "method": "custom", "shares": {"A": "1" + "0" * 30, "B": "0"}}]
    with pytest.raises(RuleError, match="share must be at most 1000000"):
        pool(history, players=("A", "B"), entry_fee="10")


def test_names_with_control_characters_are_refused():
    with pytest.raises(RuleError, match="not a letter"):
        rules.check_players(["A\x00", "B"])


def _payments_by_the_rule(balances):
    """The fewest payments as written before `fewest_payments` was made quicker:
    every subset's sum one mask at a time, and each payer and payee found by
    `min`/`max` on (amount, place). The reference its payments must equal."""
    names = [name for name, b in balances.items() if b]
    values = [balances[name] for name in names]
    k = len(names)
    if not k:
        return []
    size = 1 << k
    sums = [0] * size
    for mask in range(1, size):
        low = (mask & -mask).bit_length() - 1
        sums[mask] = sums[mask & (mask - 1)] + values[low]
    split = 0 in sums[1 : size - 1]
    groups = _zero_sum_groups(size, sums) if split else [list(range(k))]
    payments = []
    for group in groups:
        owed = {names[i]: values[i] for i in group}
        while any(owed.values()):
            debtor = min(owed, key=lambda n: (owed[n], names.index(n)))
            creditor = max(owed, key=lambda n: (owed[n], -names.index(n)))
            amount = min(-owed[debtor], owed[creditor])
            payments.append((debtor, creditor, amount))
            owed[debtor] += amount
            owed[creditor] -= amount
    payments.sort(key=lambda pay: (-pay[2], names.index(pay[0])))
    return payments


def test_fewest_payments_are_the_same_payments_in_the_same_order_as_the_rule_says():
    """Who pays whom, how much and in what order, on 3,000 random tables of up to
    ten (small balances, so that groups clear among themselves, and large ones)."""
    import random

    rng = random.Random(12)
    names = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata", "Om", "Uma", "Zoya", "Anil"]
    for _ in range(3000):
        table = rng.sample(names, rng.randint(1, 10))
        spread = rng.choice([3, 10, 1000])
        values = [rng.randint(-spread, spread) for _ in table]
        values[-1] -= sum(values)
        balances = dict(zip(table, values, strict=True))
        assert rules.fewest_payments(balances) == _payments_by_the_rule(balances), balances
