"""The engine's comings and goings, word for word, and the table rules it refuses.

People come and go (rules.md "People come and go"): a join, a sit-out, a
return and a leave, each refused with the words a family reads beside the box
(`str(error)`: the event, the field, then the message), and each accepted one
leaving the seats, the dealer's turn and the history row a family sees. Every
figure is worked out by hand in the comments. Public engine API only, no
database.
"""

import pytest

from tests.events import END, deal, join, leave, sit_in, sit_out
from tracker import rules
from tracker.rules import RuleError, replay


def refused(fmt, players, history, table=None, first=None):
    with pytest.raises(RuleError) as caught:
        replay(fmt, table or {}, list(players), history, first)
    return caught.value


def seats(state):
    return [(p.seat, p.name, p.status) for p in state.players]


def row_of(row):
    """What the history screen shows of a join, sit-out, return or leave."""
    return (row.index, row.type, row.player, row.after, row.start_total)


# ------------------------------------------------------------ the table rules


@pytest.mark.parametrize("table", [[], ["point_value"], "1", 5, [("point_value", "1")]])
def test_table_rules_that_are_not_an_object_are_refused_by_name(table):
    # A list or a string of rules used to fail inside dict() with Python's own words.
    with pytest.raises(RuleError) as caught:
        rules.normalize_rules("points", table)
    assert str(caught.value) == "rules: rules must be an object"
    with pytest.raises(RuleError) as caught:
        replay("points", table, ["A", "B"], [])
    assert str(caught.value) == "rules: rules must be an object"


def test_no_table_rules_at_all_are_the_defaults():
    # rules.md: 20 / 40 / 80 / 80, aces 10, one a point, money in paise.
    want = {
        "point_value": "1",
        "first_drop": 20,
        "middle_drop": 40,
        "full_count": 80,
        "wrong_show": 80,
        "ace_value": 10,
        "money_unit": "0.01",
    }
    assert rules.normalize_rules("points") == want
    assert rules.normalize_rules("points", None) == want
    assert rules.normalize_rules("points", {}) == want


def test_the_table_rules_given_are_not_changed_by_filling_in_defaults():
    given = {"point_value": "2"}
    rules.normalize_rules("points", given)
    assert given == {"point_value": "2"}


def test_every_table_rule_has_a_name_a_family_reads():
    # A refusal names the rule in words, never by its key with underscores.
    keys = set(rules.CARD_RULES)
    for spec in rules.FORMATS.values():
        keys |= set(spec.rule_keys)
    assert all("_" not in rules.RULE_LABELS[key] for key in keys)


@pytest.mark.parametrize(
    ("fmt", "table", "said"),
    [
        ("points", {"point_value": "-1"}, "rules.point_value: point value must not be negative"),
        ("pool", {"max_drops": -1}, "rules.max_drops: most drops must not be negative"),
        ("pool", {"rejoin": "yes"}, "rules.rejoin: rejoin must be true or false"),
        ("points", {"ace_value": 5}, "rules.ace_value: ace value must be 10 or 1"),
        ("points", {"first_drop": "x"}, "rules.first_drop: first drop must be a whole number"),
    ],
)
def test_a_table_rule_out_of_range_is_refused_by_its_name(fmt, table, said):
    with pytest.raises(RuleError) as caught:
        rules.normalize_rules(fmt, table)
    assert str(caught.value) == said


@pytest.mark.parametrize("fmt", [None, 7, "rummy", "", ["pool"], {"format": "pool"}])
def test_an_unknown_format_is_refused(fmt):
    with pytest.raises(RuleError) as caught:
        rules.normalize_rules(fmt, {})
    assert str(caught.value) == "format: format must be pool, deals, points or basic"


def test_a_new_game_is_of_its_format():
    state = replay("points", {}, ["A", "B"], [])
    assert (state.format, state.spec.name) == ("points", "points")
    assert state.document()["players"][0] == {
        "name": "A",
        "seat": 1,
        "total": 0,
        "status": "in",
        "balance": 0,
        "amount": "0.00",
    }


# ------------------------------------------------------------ join: refused


def test_a_join_in_deals_is_refused_naming_the_joiner_or_a_new_player():
    error = refused("deals", ["A", "B"], [join("C")])
    assert str(error) == (
        "history[0] (join): type: C cannot join: "
        "every player's chips are fixed at the start of a deals game"
    )
    # No name given: the message still reads as a sentence.
    for nobody in (None, "", "   ", 7):
        error = refused("deals", ["A", "B"], [join(nobody)])
        assert str(error) == (
            "history[0] (join): type: A new player cannot join: "
            "every player's chips are fixed at the start of a deals game"
        )


def test_a_join_after_the_session_ended_is_refused():
    error = refused("points", ["A", "B"], [deal("A", B=5), END, join("C")])
    assert str(error) == "history[2] (join): type: C cannot join: the game is over"
    error = refused("points", ["A", "B"], [END, join("")])
    assert str(error) == "history[1] (join): type: A new player cannot join: the game is over"


@pytest.mark.parametrize("nobody", [None, "", "   ", 7])
def test_a_join_with_no_name_asks_for_one(nobody):
    error = refused("points", ["A", "B"], [join(nobody)])
    assert str(error) == "history[0] (join): player: name the player who joins"


def test_a_joiner_s_name_too_long_or_with_a_hidden_character_is_refused():
    error = refused("points", ["A", "B"], [join("x" * 31)])
    assert str(error) == (
        "history[0] (join): player: the new player's name is longer than 30 letters"
    )
    error = refused("points", ["A", "B"], [join("Dev\u0000")])
    assert str(error) == (
        "history[0] (join): player: the new player's name has a character that is not a letter"
    )
    # Thirty letters exactly is a name.
    assert replay("points", {}, ["A", "B"], [join("x" * 30)]).players[-1].name == "x" * 30


def test_a_joiner_with_a_seated_name_is_told_to_pick_another():
    error = refused("points", ["Asha", "Ravi"], [join(" asha ")])
    assert str(error) == (
        "history[0] (join): player: asha cannot join: Asha is already seated in this game, "
        "so the new player needs another name"
    )


def test_an_eleventh_seat_is_refused_with_the_gone_counted():
    names = [f"P{i}" for i in range(1, 11)]
    error = refused("points", names, [leave("P10"), join("New")])
    assert str(error) == (
        "history[1] (join): player: New cannot join: a game has at most 10 players, "
        "those who are out or gone included"
    )


@pytest.mark.parametrize(("after", "shown"), [("Zed", "'Zed'"), (3, "3"), ("", "''")])
def test_a_join_after_nobody_seated_is_refused(after, shown):
    error = refused("points", ["A", "B"], [join("C", after=after)])
    assert str(error) == (
        f"history[0] (join): after: after must name a player seated at this table, not {shown}"
    )


def test_a_pool_join_the_rejoin_rules_refuse_names_the_joiner():
    # Pool 101, A B C: A wins; B 80 (H = 80, above the cutoff 101 - 20 - 2 = 79).
    error = refused("pool", ["A", "B", "C"], [deal("A", B=80, C=5), join("D")])
    assert str(error) == (
        "history[1] (join): player: D cannot join: "
        "the highest total still in is 80, above the rejoin cutoff 79"
    )
    error = refused("pool", ["A", "B"], [join("C")], {"rejoin": False})
    assert str(error) == (
        "history[0] (join): player: C cannot join: "
        "rejoins are off at this table, so nobody joins mid-game"
    )


def test_a_refused_join_leaves_the_game_as_it_was():
    state = replay("points", {}, ["A", "B"], [deal("A", B=5)])
    for event in (join(""), join("a"), join("C", after="Zed")):
        with pytest.raises(RuleError):
            rules.apply(state, event)
        assert [p.name for p in state.players] == ["A", "B"]
        assert len(state.rows) == 1


# ------------------------------------------------------------ join: accepted


def test_a_points_joiner_gets_a_history_row_and_starts_at_0():
    # A wins deal 1; B 5: A +5, B -5. C joins after A at balance 0.
    state = replay("points", {}, ["A", "B"], [deal("A", B=5), join("C", after="A")])
    assert row_of(state.rows[1]) == (1, "join", "C", "A", 0)
    assert state.rows[1].totals == {"A": 5, "C": 0, "B": -5}
    assert seats(state) == [(1, "A", "in"), (2, "C", "in"), (3, "B", "in")]
    # Joined after the last seat: after stays empty in the row.
    state = replay("points", {}, ["A", "B"], [join("C")])
    assert row_of(state.rows[0]) == (0, "join", "C", None, 0)


def test_a_pool_joiner_gets_h_plus_one_in_the_history_row():
    # Pool 101: A wins; B 30, C 45: H = 45, so D starts at 46 (rules.md).
    state = replay("pool", {}, ["A", "B", "C"], [deal("A", B=30, C=45), join("D", after="B")])
    assert row_of(state.rows[1]) == (1, "join", "D", "B", 46)
    assert [(p.seat, p.name, p.total) for p in state.players] == [
        (1, "A", 0),
        (2, "B", 30),
        (3, "D", 46),
        (4, "C", 45),
    ]


def test_a_join_before_the_dealer_s_seat_keeps_the_turn_with_the_next_player():
    # Points A B C: A deals deal 1, B deals deal 2. D joins after A, before B:
    # seats A 1, D 2, B 3, C 4; B (now seat 3) dealt last, so C deals next, then A, then D.
    history = [deal("A", B=5, C=5), deal("A", B=5, C=5), join("D", after="A")]
    state = replay("points", {}, ["A", "B", "C"], history)
    assert [p.name for p in state.players] == ["A", "D", "B", "C"]
    assert state.next_dealer == "C"
    for _ in range(3):
        history.append(deal("A", B=5, C=5, D=5))
    state = replay("points", {}, ["A", "B", "C"], history)
    assert [row.dealer for row in state.rows if row.type == "deal"] == ["A", "B", "C", "A", "D"]


def test_a_join_before_any_deal_leaves_the_first_dealer_to_deal():
    # First dealer B; C joins after A, before B: seats A 1, C 2, B 3. B still deals
    # deal 1; after B (seat 3) comes seat 1, A, for deal 2; then C.
    history = [join("C", after="A"), deal("A", B=5, C=5), deal("A", B=5, C=5)]
    state = replay("points", {}, ["A", "B"], history, "B")
    assert [row.dealer for row in state.rows if row.type == "deal"] == ["B", "A"]
    assert state.next_dealer == "C"


# ------------------------------------------------------------ sit out, back in, leave


def test_sitting_out_coming_back_and_leaving_each_get_a_history_row():
    history = [sit_out("C"), deal("A", B=5), sit_in("C"), leave("B")]
    state = replay("points", {}, ["A", "B", "C"], history)
    assert [row_of(row) for row in state.rows if row.type != "deal"] == [
        (0, "sit_out", "C", None, None),
        (2, "sit_in", "C", None, None),
        (3, "leave", "B", None, None),
    ]
    # A +5, B -5, C sat the deal out at 0; B keeps -5 after leaving.
    assert state.rows[3].totals == {"A": 5, "B": -5, "C": 0}
    assert seats(state) == [(1, "A", "in"), (2, "B", "left"), (3, "C", "in")]


def test_a_sitting_out_player_may_leave_even_with_only_two_dealt_in():
    # A B C; C sits out, two are dealt in. C's leave takes nobody from the deal.
    state = replay("points", {}, ["A", "B", "C"], [sit_out("C"), leave("C")])
    assert seats(state) == [(1, "A", "in"), (2, "B", "in"), (3, "C", "left")]
    # But one of the two dealt in may not leave or sit out.
    error = refused("points", ["A", "B", "C"], [sit_out("C"), leave("A")])
    assert str(error) == (
        "history[1] (leave): player: A cannot leave: at least two players must stay dealt in"
    )
    error = refused("points", ["A", "B", "C"], [sit_out("C"), sit_out("B")])
    assert str(error) == (
        "history[1] (sit_out): player: B cannot sit out: at least two players must stay dealt in"
    )


def test_with_three_dealt_in_one_may_sit_out_and_another_then_leave():
    state = replay("points", {}, ["A", "B", "C", "D"], [sit_out("D"), leave("C")])
    assert seats(state) == [
        (1, "A", "in"),
        (2, "B", "in"),
        (3, "C", "left"),
        (4, "D", "sitting_out"),
    ]


@pytest.mark.parametrize(
    ("history", "said"),
    [
        ([END, sit_out("C")], "history[1] (sit_out): type: the session has ended"),
        ([END, sit_in("C")], "history[1] (sit_in): type: the session has ended"),
        ([{"type": "leave"}], "history[0] (leave): player: name the player"),
        ([{"type": "sit_out", "player": ""}], "history[0] (sit_out): player: name the player"),
        ([{"type": "sit_out", "player": 7}], "history[0] (sit_out): player: name the player"),
        ([sit_out("Zed")], "history[0] (sit_out): player: Zed is not at this table"),
        ([sit_out("C"), sit_out("C")], "history[1] (sit_out): player: C already sits out"),
        ([sit_in("C")], "history[0] (sit_in): player: C is already in"),
        ([leave("C"), leave("C")], "history[1] (leave): player: C has already left"),
        ([leave("C"), sit_out("C")], "history[1] (sit_out): player: C has already left"),
        (
            [leave("C"), sit_in("C")],
            "history[1] (sit_in): player: C has left and cannot sit back in "
            "(they can join again under another name)",
        ),
        (
            [{"type": "sit_in", "player": "C", "after": "A"}],
            "history[0] (sit_in): after: after does not belong in a sit_in",
        ),
    ],
)
def test_comings_and_goings_refused_word_for_word(history, said):
    assert str(refused("points", ["A", "B", "C"], history)) == said


@pytest.mark.parametrize("kind", ["sit_out", "sit_in", "leave"])
def test_pool_has_no_sit_outs_and_says_so(kind):
    error = refused("pool", ["A", "B", "C"], [{"type": kind, "player": "C"}])
    assert str(error) == (
        f"history[0] ({kind}): type: "
        "players sit out, come back in and leave only in points, not in pool"
    )


# ------------------------------------------------------------ names in a sentence


def test_names_in_a_sentence_are_joined_with_and_for_the_translation():
    # The deal form and the tie-breaker note: "Asha and Ravi are level ...".
    assert rules.table.and_list([]) == ""
    assert rules.table.and_list(["Asha"]) == "Asha"
    two = rules.table.and_list(["Asha", "Ravi"])
    assert (two, two.template, two.params) == (
        "Asha and Ravi",
        "%(first)s and %(last)s",
        {"first": "Asha", "last": "Ravi"},
    )
    three = rules.table.and_list(["Asha", "Ravi", "Meena"])
    assert (three, three.params) == (
        "Asha and Ravi and Meena",
        {"first": "Asha and Ravi", "last": "Meena"},
    )


def test_a_refusal_keeps_its_words_and_the_names_apart_for_the_translation():
    # The Hindi page translates the words and puts the name back in its place.
    error = refused("points", ["A", "B"], [deal("Zed", A=5)])
    assert (error.template, error.params, error.message) == (
        "%(name)s is not at this table",
        {"name": "Zed"},
        "Zed is not at this table",
    )
