"""Every refusal of the rules engine, word for word, and the edge the rule sits on.

A family reads these messages beside the box they typed in, so each is written
out here exactly as it must read (`str(error)`: the event, the field, then the
message, with the player's name in front when it is about one player), with
the player the form puts it beside. And for each limit of rules.md, the value
on the limit is accepted and the one past it refused. Public engine API only.
"""

from decimal import Decimal

import pytest

from tests.events import END
from tracker import rules
from tracker.rules import RuleError


def deal(winner, **results):
    return {"type": "deal", "winner": winner, "results": results}


def rejoin(name):
    return {"type": "rejoin", "player": name}


def custom(**shares):
    return {"type": "split", "method": "custom", "shares": shares}


def refused(fmt, table, players, history=(), first_dealer=None):
    with pytest.raises(RuleError) as caught:
        rules.replay(fmt, table, list(players), list(history), first_dealer)
    return str(caught.value), caught.value.player


# Pool 101, A B C D: A wins twice, B C D all out on 110.
OVER = [deal("A", B=80, C=80, D=80), deal("A", B=30, C=30, D=30)]
# Pool 101, A B C D: B out on 110, A 0, C 4, D 4.
B_OUT = [deal("A", B=80, C=2, D=2), deal("A", B=30, C=2, D=2)]
# Deals, best of 2, A B C: A and B level on 165 chips, C 150: a tie-breaker.
TIED = [deal("A", B=30, C=10), deal("B", A=35, C=0)]

EVENT_REFUSALS = [
    # (format, table rules, players, history, str(error), error.player)
    ("pool", {}, "ABCD", [*OVER, deal("A", B=2)],
     "history[2] (deal 3): type: the game is over: no more deals", None),
    ("pool", {}, "ABCD", [*OVER, rejoin("B")],
     "history[2] (rejoin): player: B cannot rejoin: the game is over", None),
    ("pool", {}, "ABCD", [*OVER, {"type": "split", "method": "equal"}],
     "history[2] (split): type: the game is over", None),
    ("pool", {}, "ABCD", [deal("", B=2, C=2, D=2)],
     "history[0] (deal 1): winner: pick the one winner of the deal", None),
    ("pool", {}, "ABCD", [{"type": "deal", "winner": 7, "results": {}}],
     "history[0] (deal 1): winner: pick the one winner of the deal", None),
    ("pool", {}, "ABCD", [{"type": "deal", "results": {}}],
     "history[0] (deal 1): winner: pick the one winner of the deal", None),
    ("pool", {}, "ABCD", [deal("Zed", B=2, C=2, D=2)],
     "history[0] (deal 1): winner: Zed is not at this table", None),
    ("pool", {}, "ABCD", [*B_OUT, deal("B", A=2, C=2, D=2)],
     "history[2] (deal 3): winner: B is out, so cannot win", None),
    ("deals", {}, "ABC", [*TIED, deal("C", A=2, B=2)],
     "history[2] (deal 3): winner: C is not in the tie-breaker, so cannot win", None),
    ("pool", {}, "ABCD", [{"type": "deal", "winner": "A", "results": [2, 2, 2]}],
     "history[0] (deal 1): results: results must give every loser's result", None),
    ("pool", {}, "ABCD", [deal("A", A=0, B=2, C=2, D=2)],
     "history[0] (deal 1): results.A: A won the deal, so has no result: one winner only", "A"),
    ("pool", {}, "ABCD", [deal("A", B=2, C=2, D=2, Zed=2)],
     "history[0] (deal 1): results.Zed: Zed is not at this table", "Zed"),
    ("pool", {}, "ABCD", [*B_OUT, deal("A", B=2, C=2, D=2)],
     "history[2] (deal 3): results.B: B is out and has no result", "B"),
    ("deals", {}, "ABC", [*TIED, deal("A", B=5, C=5)],
     "history[2] (deal 3): results.C: C is not in the tie-breaker and has no result", "C"),
    ("pool", {}, "ABCD", [deal("A", B=2, C=2)],
     "history[0] (deal 1): results.D: D: result missing", "D"),
    ("pool", {}, "ABCD", [deal("A", B="lots", C=2, D=2)],
     "history[0] (deal 1): results.B: B: 'lots' is not a result: give points, first_drop, "
     "middle_drop, full_count or wrong_show", "B"),
    ("deals", {"drops_allowed": False}, "AB", [deal("A", B="middle_drop")],
     "history[0] (deal 1): results.B: B: drops are off at this table", "B"),
    ("pool", {"max_drops": 1}, "ABCD",
     [deal("A", B="first_drop", C=2, D=2), deal("A", B="middle_drop", C=2, D=2)],
     "history[1] (deal 2): results.B: B: has taken 1 drop, the most this table allows", "B"),
    ("pool", {}, "ABCD", [deal("A", B=2.5, C=2, D=2)],
     "history[0] (deal 1): results.B: B: points must be a whole number", "B"),
    ("pool", {}, "ABCD", [deal("A", B=True, C=2, D=2)],
     "history[0] (deal 1): results.B: B: points must be a whole number", "B"),
    ("pool", {}, "ABCD", [deal("A", B=81, C=2, D=2)],
     "history[0] (deal 1): results.B: B: points must be 0 or between 2 and 80", "B"),
    ("pool", {"ace_value": 1}, "ABCD", [deal("A", B=-1, C=2, D=2)],
     "history[0] (deal 1): results.B: B: points must be 0 or between 1 and 80", "B"),
    ("pool", {}, "ABCD", [{"type": "rejoin"}],
     "history[0] (rejoin): player: name the player who rejoins", None),
    ("pool", {}, "ABCD", [*B_OUT, rejoin("")],
     "history[2] (rejoin): player: name the player who rejoins", None),
    ("pool", {}, "ABCD", [*B_OUT, rejoin("Zed")],
     "history[2] (rejoin): player: Zed cannot rejoin: Zed is not at this table", None),
    ("pool", {}, "ABCD", [*B_OUT, rejoin("C")],
     "history[2] (rejoin): player: C cannot rejoin: C is still in", None),
    ("deals", {}, "AB", [rejoin("B")],
     "history[0] (rejoin): player: B cannot rejoin: only pool has rejoins", None),
    ("pool", {"rejoin": False}, "ABCD", [*B_OUT, rejoin("B")],
     "history[2] (rejoin): player: B cannot rejoin: rejoins are off at this table", None),
    ("pool", {"max_rejoins": 1}, "ABCD",
     [*B_OUT, rejoin("B"), deal("A", B=80, C=2, D=2), deal("A", B=20, C=2, D=2), rejoin("B")],
     "history[5] (rejoin): player: B cannot rejoin: B has rejoined 1 times, "
     "the most this table allows", None),
    # Cutoff 100: C still in on 100, so B would start at 101, out at once.
    ("pool", {"rejoin_cutoff": 100}, "ABCD",
     [deal("A", B=80, C=80, D=2), deal("A", B=30, C=20, D=2), rejoin("B")],
     "history[2] (rejoin): player: B cannot rejoin: B would start at 101, which is out", None),
    ("points", {}, "AB", [{"type": "split", "method": "equal"}],
     "history[0] (split): type: only pool games are split", None),
    ("pool", {}, "ABCD", [{"type": "split", "method": "drops"}],
     "history[0] (split): method: a split needs two or three players still in, not 4", None),
    ("pool", {}, "AB", [{"type": "split", "method": "sideways"}],
     "history[0] (split): method: split method must be drops, equal or custom", None),
    ("pool", {"entry_fee": "10"}, "AB",
     [{"type": "split", "method": "drops", "shares": {"A": "20", "B": "0"}}],
     "history[0] (split): shares: shares are typed only for a custom split", None),
    ("pool", {"entry_fee": "10"}, "AB", [{"type": "split", "method": "custom", "shares": "A"}],
     "history[0] (split): shares: a custom split needs a share for every player still in", None),
    ("pool", {"entry_fee": "10"}, "AB", [{"type": "split", "method": "custom"}],
     "history[0] (split): shares: a custom split needs a share for every player still in", None),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="20", B="0", Zed="0")],
     "history[0] (split): shares.Zed: Zed is not in the game, so has no share", "Zed"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="20")],
     "history[0] (split): shares.B: B: share missing", "B"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="lots", B="0")],
     "history[0] (split): shares.A: A: share must be a plain amount such as 0.25, digits 0-9", "A"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A=True, B="0")],
     "history[0] (split): shares.A: A: share must be a plain amount such as 0.25, digits 0-9", "A"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="Infinity", B="0")],
     "history[0] (split): shares.A: A: share must be a plain amount such as 0.25, digits 0-9", "A"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="30", B="-10")],
     "history[0] (split): shares.B: B: share must not be negative", "B"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="1000000.01", B="0")],
     "history[0] (split): shares.A: A: share must be at most 1000000", "A"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="19.995", B="0.005")],
     "history[0] (split): shares.A: A: share must be in whole money units of 0.01", "A"),
    ("pool", {"entry_fee": "10", "money_unit": "1"}, "AB", [custom(A="19.5", B="0.5")],
     "history[0] (split): shares.A: A: share must be in whole money units of 1", "A"),
    ("pool", {"entry_fee": "10"}, "AB", [custom(A="15", B="0")],
     "history[0] (split): shares: shares add up to 15.00, but the pot is 20.00", None),
    ("pool", {}, "AB", [END],
     "history[0] (end): type: only a points session is ended by the family", None),
    ("points", {}, "AB", [deal("A", B=2), END, END],
     "history[2] (end): type: the session has already ended", None),
    ("points", {}, "AB", [deal("A", B=2), END, deal("A", B=2)],
     "history[2] (deal 2): type: the game is over: no more deals", None),
    ("points", {}, "AB", [["deal", "A"]],
     "history[0] (event): type: an event must be an object", None),
    ("points", {}, "AB", [deal("A", B=2), {"type": "shuffle"}],
     "history[1] (event): type: type must be deal, rejoin, split, end, join, sit_out, sit_in "
     "or leave", None),
    ("points", {}, "AB", [{}],
     "history[0] (event): type: type must be deal, rejoin, split, end, join, sit_out, sit_in "
     "or leave", None),
    ("points", {}, "AB", [deal("A", B=2) | {"extra": 1}],
     "history[0] (deal 1): extra: extra does not belong in a deal", None),
    ("points", {}, "AB", [END | {"player": "A"}],
     "history[0] (end): player: player does not belong in a end", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("fmt", "table", "players", "history", "words", "player"),
    EVENT_REFUSALS,
    ids=[case[4].split(": ", 1)[0] + " " + case[4].rsplit(": ", 1)[-1] for case in EVENT_REFUSALS],
)
def test_an_event_refused_says_exactly_why(fmt, table, players, history, words, player):
    assert refused(fmt, table, players, history) == (words, player)


def test_a_history_that_is_not_a_list_is_refused():
    with pytest.raises(RuleError) as caught:
        rules.replay("points", {}, ["A", "B"], "deal")
    assert str(caught.value) == "history: history must be a list of events"


def test_an_event_key_that_is_not_text_is_named():
    # From Python (a JSON document only has text keys): still a message, not a crash.
    state = rules.new_game("points", {}, ["A", "B"])
    with pytest.raises(RuleError) as caught:
        rules.apply(state, {"type": "end", 7: "x", "z": 1})
    assert str(caught.value) == "history[0] (end): 7: 7 does not belong in a end"


SETUP_REFUSALS = [
    # (format, table rules, players, first dealer, str(error))
    ("cards", {}, "AB", None, "format: format must be pool, deals, points or basic"),
    ("pool", {"deal_count": 3}, "AB", None,
     "rules.deal_count: deal_count is not a rule of pool rummy"),
    ("pool", {7: 1, "zz": 2}, "AB", None, "rules.7: 7 is not a rule of pool rummy"),
    ("pool", {"pool_limit": None}, "AB", None,
     "rules.pool_limit: pool limit must be a whole number"),
    ("pool", {"first_drop": "20"}, "AB", None,
     "rules.first_drop: first drop must be a whole number"),
    ("pool", {"first_drop": True}, "AB", None,
     "rules.first_drop: first drop must be a whole number"),
    ("pool", {"first_drop": 0}, "AB", None,
     "rules.first_drop: first drop must be at least 1 in pool"),
    ("deals", {"first_drop": -1}, "AB", None, "rules.first_drop: first drop must not be negative"),
    ("points", {"wrong_show": -1}, "AB", None, "rules.wrong_show: wrong show must not be negative"),
    ("pool", {"middle_drop": 10}, "AB", None,
     "rules.middle_drop: middle drop must not be less than the first drop"),
    ("pool", {"full_count": 30}, "AB", None,
     "rules.full_count: full count must not be less than the middle drop"),
    ("pool", {"wrong_show": 90}, "AB", None,
     "rules.wrong_show: wrong show must not be more than the full count"),
    ("pool", {"pool_limit": 19}, "AB", None, "rules.pool_limit: pool limit must be at least 20"),
    ("pool", {"pool_limit": 10_001}, "AB", None,
     "rules.pool_limit: pool limit must be at most 10000"),
    ("deals", {"deal_count": 0}, "AB", None,
     "rules.deal_count: number of deals must be at least 1"),
    ("deals", {"starting_chips": 1_000_001}, "AB", None,
     "rules.starting_chips: starting chips must be at most 1000000"),
    ("pool", {"rejoin": "yes"}, "AB", None, "rules.rejoin: rejoin must be true or false"),
    ("deals", {"drops_allowed": 1}, "AB", None,
     "rules.drops_allowed: drops allowed must be true or false"),
    ("pool", {"entry_fee": []}, "AB", None,
     'rules.entry_fee: entry fee must be a plain amount such as 0.25, digits 0-9'),
    ("pool", {"entry_fee": True}, "AB", None,
     'rules.entry_fee: entry fee must be a plain amount such as 0.25, digits 0-9'),
    ("pool", {"entry_fee": "abc"}, "AB", None,
     'rules.entry_fee: entry fee must be a plain amount such as 0.25, digits 0-9'),
    ("points", {"point_value": "NaN"}, "AB", None,
     'rules.point_value: point value must be a plain amount such as 0.25, digits 0-9'),
    # Only plain amounts, digits 0-9 (issue 27): what Decimal() takes besides is refused.
    ("pool", {"entry_fee": "1E+5"}, "AB", None,
     "rules.entry_fee: entry fee must be a plain amount such as 0.25, digits 0-9"),
    ("deals", {"entry_fee": "-0"}, "AB", None,
     "rules.entry_fee: entry fee must be a plain amount such as 0.25, digits 0-9"),
    ("points", {"point_value": "+5"}, "AB", None,
     "rules.point_value: point value must be a plain amount such as 0.25, digits 0-9"),
    ("basic", {"point_value": "1_0"}, "AB", None,
     "rules.point_value: point value must be a plain amount such as 0.25, digits 0-9"),
    ("pool", {"entry_fee": "\u0661\u0660"}, "AB", None,
     "rules.entry_fee: entry fee must be a plain amount such as 0.25, digits 0-9"),
    ("points", {"point_value": "\uff15"}, "AB", None,
     "rules.point_value: point value must be a plain amount such as 0.25, digits 0-9"),
    ("pool", {"entry_fee": "1000000.01"}, "AB", None,
     "rules.entry_fee: entry fee must be at most 1000000"),
    ("pool", {"entry_fee": "-5"}, "AB", None, "rules.entry_fee: entry fee must not be negative"),
    ("pool", {"entry_fee": "2.5", "money_unit": "1"}, "AB", None,
     "rules.entry_fee: entry fee has more decimals than the money unit 1"),
    ("pool", {"money_unit": True}, "AB", None, "rules.money_unit: money unit must be 0.01 or 1"),
    ("pool", {"money_unit": 0.5}, "AB", None, "rules.money_unit: money unit must be 0.01 or 1"),
    ("pool", {"ace_value": 11}, "AB", None, "rules.ace_value: ace value must be 10 or 1"),
    ("pool", {"out_at": "touch"}, "AB", None, "rules.out_at: out at must be reach or exceed"),
    ("pool", {"rejoin_cutoff": 101}, "AB", None,
     "rules.rejoin_cutoff: rejoin cutoff must be below 101, the total that puts a player out"),
    ("pool", {"max_drops": -1}, "AB", None, "rules.max_drops: most drops must not be negative"),
    # A limit no family reaches, so the game's CSV sheet can carry it back.
    ("pool", {"max_drops": 1001}, "AB", None, "rules.max_drops: most drops must be at most 1000"),
    ("pool", {"max_rejoins": 1001}, "AB", None,
     "rules.max_rejoins: most rejoins must be at most 1000"),
    ("pool", {"hand_count": "some"}, "AB", None,
     "rules.hand_count: a loser counts must be all or except_pure or groups_excluded"),
    ("pool", {}, "AB", "Zed", "first_dealer: Zed is not one of the players"),
    ("pool", {}, "AB", None, None),  # players as a string: see below
    ("pool", {}, ["A"], None, "players: a game needs at least 2 players"),
    ("pool", {}, [f"P{i}" for i in range(11)], None, "players: a game has at most 10 players"),
    ("pool", {}, ["A", " "], None, "players[1]: player 2 needs a name"),
    ("pool", {}, ["A", None], None, "players[1]: player 2 needs a name"),
    ("pool", {}, ["A", "x" * 31], None, "players[1]: player 2's name is longer than 30 letters"),
    ("pool", {}, ["A", "B\u200bC"], None,
     "players[1]: player 2's name has a character that is not a letter"),
    ("pool", {}, ["A", "B\ud800"], None,
     "players[1]: player 2's name has a character that is not a letter"),
    ("pool", {}, ["Asha", "B", "ASHA"], None,
     "players[2]: ASHA is at the table twice: names must differ"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "table", "players", "first", "words"), SETUP_REFUSALS)
def test_a_game_refused_at_the_start_says_exactly_why(fmt, table, players, first, words):
    if words is None:  # the seats as one string, not a list
        players, words = "AB", "players: players must be a list of names"
    else:
        players = list(players)
    with pytest.raises(RuleError) as caught:
        rules.new_game(fmt, table, players, first)
    assert (str(caught.value), caught.value.player, caught.value.event) == (words, None, None)


def test_a_rule_error_reads_event_label_field_and_player_in_that_order():
    error = RuleError("share missing", field="shares.Ravi", event=3, player="Ravi", label="split")
    assert (error.message, error.field, error.event, error.player, error.label) == (
        "share missing",
        "shares.Ravi",
        3,
        "Ravi",
        "split",
    )
    assert str(error) == "history[3] (split): shares.Ravi: Ravi: share missing"
    assert str(RuleError("no label", event=0)) == "history[0]: no label"
    assert str(RuleError("Ravi is out", player="Ravi")) == "Ravi is out"


# ---------------------------------------------------------------- on the limit


def test_each_limit_of_the_table_rules_is_allowed_on_the_limit():
    pool = rules.new_game(
        "pool",
        {"pool_limit": 10_000, "entry_fee": "1000000", "first_drop": 1, "middle_drop": 80},
        ["A", "B"],
    )
    assert (pool.rules["pool_limit"], pool.rules["entry_fee"]) == (10_000, "1000000")
    assert (pool.rules["first_drop"], pool.rules["middle_drop"], pool.rules["full_count"]) == (
        1,
        80,
        80,
    )
    deals = rules.new_game("deals", {"deal_count": 100, "starting_chips": 1_000_000}, ["A", "B"])
    assert deals.document()["players"][0]["chips"] == 1_000_000
    assert rules.new_game("pool", {"pool_limit": 20}, ["A", "B"]).rules["pool_limit"] == 20
    most = rules.new_game("pool", {"max_drops": 1000, "max_rejoins": 1000}, ["A", "B"]).rules
    assert (most["max_drops"], most["max_rejoins"]) == (1000, 1000)


def test_the_rejoin_cutoff_is_never_below_zero():
    # Limit 20, first drop 19: 20 - 19 - 2 is -1, so the cutoff is 0.
    table = {"pool_limit": 20, "first_drop": 19}
    assert rules.new_game("pool", table, ["A", "B"]).rules["rejoin_cutoff"] == 0
    assert rules.new_game("pool", {"pool_limit": 201}, ["A", "B"]).rules["rejoin_cutoff"] == 174


@pytest.mark.parametrize(("unit", "stored"), [(1, "1"), (1.0, "1"), (0.01, "0.01"), ("1", "1")])
def test_a_money_unit_given_as_a_number_is_kept_as_text(unit, stored):
    assert rules.new_game("pool", {"money_unit": unit}, ["A", "B"]).rules["money_unit"] == stored


def test_ten_players_and_thirty_letter_names_are_allowed():
    names = [f"Player {i}" for i in range(1, 10)] + ["x" * 30]
    doc = rules.new_game("points", {}, names).document()
    assert [p["name"] for p in doc["players"]] == names
    assert [p["seat"] for p in doc["players"]] == list(range(1, 11))


def test_names_are_trimmed_and_their_spaces_collapsed():
    doc = rules.new_game("points", {}, ["  Asha   Rani ", "Ravi\tK"]).document()
    assert [p["name"] for p in doc["players"]] == ["Asha Rani", "Ravi K"]


def test_no_first_dealer_or_a_blank_one_means_the_first_seat():
    assert rules.new_game("pool", {}, ["A", "B", "C"]).document()["next_dealer"] == "A"
    assert rules.new_game("pool", {}, ["A", "B", "C"], "").document()["next_dealer"] == "A"
    assert rules.new_game("pool", {}, ["A", "B", "C"], "C").document()["next_dealer"] == "C"


def test_a_custom_share_of_exactly_the_most_money_is_allowed():
    # Entry 500,000 for two: a pot of 1,000,000, all of it to A.
    state = rules.replay("pool", {"entry_fee": "500000"}, ["A", "B"], [custom(A="1000000", B="0")])
    assert state.document()["split"] == {"A": "1000000.00", "B": "0.00"}


def test_deals_defaults_two_deals_160_chips_and_drops_allowed():
    doc = rules.replay("deals", {}, ["A", "B"], [deal("A", B="first_drop")]).document()
    assert doc["deals_left"] == 1
    assert [p["chips"] for p in doc["players"]] == [180, 140]


def test_a_split_without_a_method_splits_by_drops():
    # As test_split_leftover_unit_goes_to_share_that_lost_most: 11 / 4 / 0.
    history = [deal("B", A=20, C=80), deal("A", B=60, C=0), {"type": "split"}]
    state = rules.replay("pool", {"entry_fee": "5", "money_unit": "1"}, ["A", "B", "C"], history)
    assert state.document()["split"] == {"A": "11.00", "B": "4.00", "C": "0.00"}
    assert state.rows[-1].results == {"method": "drops"}
    assert state.rows[-1].shares == {"A": Decimal(11), "B": Decimal(4), "C": Decimal(0)}
