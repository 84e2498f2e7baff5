"""What a Pool game's screen shows, from the Pool format object (tracker/rules/pool.py).

The scoreboard's columns, cells, badges and row classes, the line under the
game's name, the chart's limit line, the must-play warning, the refusals of a
join or rejoin and the family table's money, each for a small game replayed
through the engine. Every expected figure is worked out
by hand from shared/docs/rules.md (or taken from shared/docs/examples/) in
the comments; none is computed by the code under test. No database.
"""

from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, load_example
from tests.events import deal
from tracker.rules import FORMATS, RuleError, apply, replay

POOL = FORMATS["pool"]


def rejoin(name):
    return {"type": "rejoin", "player": name}


def join(name):
    return {"type": "join", "player": name}


def pool(players, history, **rules):
    return replay("pool", rules, list(players), history)


def example(stem):
    doc = load_example(Path(EXAMPLES) / f"{stem}.json")
    return replay(doc["format"], doc["rules"], doc["players"], doc["history"], doc["first_dealer"])


def board(state):
    """Each player's cells, as the scoreboard lays them out."""
    return {p.name: POOL.cells(state, p, None) for p in state.players}


def elimination():
    """shared/docs/examples/01: Pool 101, entry 50, four players, three deals.

    Asha 12 + 20 = 32, Ravi 34 + 40 = 74, Meena 20 + 2 = 22, Kiran 40 + 41 + 20
    = 101: out (reach). Drops left (100 - total) // 20: Asha 3, Ravi 1, Meena 3.
    """
    return example("01-pool-101-elimination")


def ravi_must_play():
    """Pool 101, no entry fee. Ravi 80 + 5 = 85: (100 - 85) // 20 = 0 drops left.

    Asha 0 + 10 = 10: 90 // 20 = 4 drops left; Meena 30: 70 // 20 = 3.
    """
    return pool(
        ("Asha", "Ravi", "Meena"),
        [deal("Asha", Ravi=80, Meena=30), deal("Meena", Asha=10, Ravi=5)],
    )


def b_rejoins_twice(upto=None):
    """Pool 101, entry 10, A B C. B goes out, rejoins, goes out, rejoins, goes out.

    Deal 1: B 80, C 30. Deal 2: B 80 + 25 = 105, out; C 40. H = 40 (A 0, C 40),
    B rejoins at 41. Deal 3: A 20, B 41 + 60 = 101, out. H = 40 (A 20, C 40),
    B rejoins at 41 again. Deal 4: B 41 + 80 = 121, out; C 45.
    """
    history = [
        deal("A", B=80, C=30),
        deal("A", B=25, C=10),
        rejoin("B"),
        deal("C", A=20, B=60),
        rejoin("B"),
        deal("A", B=80, C=5),
    ]
    return pool(("A", "B", "C"), history[:upto], entry_fee="10")


# ------------------------------------------------------------ the scoreboard


def test_pool_board_shows_each_total_and_drops_left_and_a_dash_for_the_player_out():
    state = elimination()
    assert POOL.columns(state) == ["Total", "Drops left"]
    assert board(state) == {
        "Asha": [{"text": "32"}, {"text": "3"}],
        "Ravi": [{"text": "74"}, {"text": "1"}],
        "Meena": [{"text": "22"}, {"text": "3"}],
        "Kiran": [{"text": "101"}, {"text": "\u2013"}],  # out: no drops, no must-play badge
    }
    assert [POOL.row_classes(state, p) for p in state.players] == [[], [], [], []]


def test_pool_board_marks_the_player_out_at_101_with_the_sum_that_put_them_out():
    state = elimination()
    kiran = state.player("Kiran")
    # Kiran's last deal: 81 + 20 = 101, and 101 reaches the limit 101.
    assert POOL.why_out(state, kiran) == "81 + 20 = 101 ≥ 101"
    assert POOL.badges(state, kiran) == [("Out: 81 + 20 = 101 ≥ 101", "")]
    out_badge = POOL.badges(state, kiran)[0][0]
    assert (out_badge.template, out_badge.params) == (
        "Out: %(why)s",
        {"why": "81 + 20 = 101 ≥ 101"},
    )
    assert POOL.why_out(state, state.player("Asha")) is None
    assert POOL.badges(state, state.player("Asha")) == []


def test_pool_player_with_no_drops_left_gets_the_must_play_badge_and_row_class():
    state = ravi_must_play()
    assert board(state) == {
        "Asha": [{"text": "10"}, {"text": "4"}],
        "Ravi": [{"text": "85"}, {"text": "0", "badge": ("must play", "warn")}],
        "Meena": [{"text": "30"}, {"text": "3"}],
    }
    assert {p.name: POOL.row_classes(state, p) for p in state.players} == {
        "Asha": [],
        "Ravi": ["no-drops"],
        "Meena": [],
    }


def test_pool_winner_with_no_drops_left_is_not_told_to_play_once_the_game_is_over():
    # Asha 45 + 40 = 85 (no drops left) wins when Meena 5 + 80 + 20 = 105 goes out;
    # Ravi went out in deal 2 at 80 + 30 = 110.
    state = pool(
        ("Asha", "Ravi", "Meena"),
        [
            deal("Asha", Ravi=80, Meena=5),
            deal("Meena", Ravi=30, Asha=45),
            deal("Meena", Asha=40),
            deal("Asha", Meena=80),
            deal("Asha", Meena=20),
        ],
    )
    assert state.winner == "Asha"
    assert board(state) == {
        "Asha": [{"text": "85"}, {"text": "0"}],
        "Ravi": [{"text": "110"}, {"text": "\u2013"}],
        "Meena": [{"text": "105"}, {"text": "\u2013"}],
    }
    assert POOL.row_classes(state, state.player("Asha")) == []
    # Ravi's badge names deal 2, not one of the three deals after it.
    assert POOL.badges(state, state.player("Ravi")) == [("Out: 80 + 30 = 110 ≥ 101", "")]
    assert POOL.badges(state, state.player("Meena")) == [("Out: 85 + 20 = 105 ≥ 101", "")]


def test_pool_board_after_a_split_adds_each_share_and_a_dash_for_those_out():
    # shared/docs/examples/04: entry 25, pot 150, split by drops 91.67 / 41.67 / 16.66.
    state = example("04-pool-split-by-drops")
    assert POOL.columns(state) == ["Total", "Drops left", "Share"]
    assert board(state) == {
        "A": [{"text": "39"}, {"text": "3"}, {"text": "₹91.67"}],
        "B": [{"text": "61"}, {"text": "1"}, {"text": "₹41.67"}],
        # C has no drops left, but the game is over: no must-play badge.
        "C": [{"text": "99"}, {"text": "0"}, {"text": "₹16.66"}],
        "D": [{"text": "160"}, {"text": "\u2013"}, {"text": "\u2013"}],
        "E": [{"text": "160"}, {"text": "\u2013"}, {"text": "\u2013"}],
        "F": [{"text": "160"}, {"text": "\u2013"}, {"text": "\u2013"}],
    }
    assert POOL.row_classes(state, state.player("C")) == []
    assert POOL.badges(state, state.player("D")) == [("Out: 80 + 80 = 160 ≥ 101", "")]


def test_pool_share_in_whole_rupees_has_no_paise():
    # shared/docs/examples/06: money unit 1, pot 33 split equally: A 17, B 16.
    state = example("06-pool-201-exceed-whole-rupees")
    assert board(state)["A"] == [{"text": "40"}, {"text": "6"}, {"text": "₹17"}]
    assert board(state)["B"] == [{"text": "160"}, {"text": "1"}, {"text": "₹16"}]


def test_pool_rejoiner_is_badged_rejoined_then_rejoined_twice():
    once = b_rejoins_twice(upto=3)
    assert POOL.badges(once, once.player("B")) == [("Rejoined", "")]
    twice = b_rejoins_twice(upto=5)
    badge = POOL.badges(twice, twice.player("B"))
    assert badge == [("Rejoined ×2", "")]  # noqa: RUF001
    assert (badge[0][0].template, badge[0][0].params) == ("Rejoined ×%(n)s", {"n": 2})  # noqa: RUF001
    assert POOL.badges(twice, twice.player("A")) == []


def test_pool_player_out_a_third_time_shows_the_last_deal_that_put_them_out():
    state = b_rejoins_twice()
    # Deal 4: 41 + 80 = 121 (not deal 2's 80 + 25 = 105 or deal 3's 41 + 60 = 101).
    assert POOL.badges(state, state.player("B")) == [
        ("Out: 41 + 80 = 121 ≥ 101", ""),
        ("Rejoined ×2", ""),  # noqa: RUF001
    ]


# ------------------------------------------------------------ the line under the name


def test_pool_meta_gives_the_limit_and_the_pot_in_rupees():
    # Entry 50 x 4 players = 200.
    assert POOL.meta(elimination(), elimination().pot) == " 101 · pot ₹200.00"
    # Entry 10 x (3 players + 2 rejoins) = 50.
    state = b_rejoins_twice()
    assert POOL.meta(state, state.pot) == " 101 · pot ₹50.00"


def test_pool_meta_for_fun_has_no_rupee_sign_and_whole_rupees_no_paise():
    state = ravi_must_play()  # entry fee 0: playing for fun
    assert POOL.meta(state, state.pot) == " 101"  # no pot of nothing (issue 26.12)
    whole = example("06-pool-201-exceed-whole-rupees")  # entry 11 x 3 = 33, unit 1
    meta = POOL.meta(whole, whole.pot)
    assert meta == " 201 · pot ₹33"
    assert (meta.template, meta.params) == (
        " %(limit)s · pot %(pot)s",
        {"limit": 201, "pot": "₹33"},
    )


def test_pool_chart_draws_the_limit_and_says_where_a_player_is_out():
    line = POOL.chart_line(elimination().rules)
    assert line == (101, "Pool limit 101: out at 101", "limit 101")
    # out_at exceed: 201 is still in, 202 is out.
    line = POOL.chart_line(example("06-pool-201-exceed-whole-rupees").rules)
    assert line == (201, "Pool limit 201: out at 202", "limit 201")
    assert (line[1].template, line[2].template) == (
        "Pool limit %(limit)s: out at %(out)s",
        "limit %(limit)s",
    )


def test_pool_game_is_named_after_its_limit():
    assert POOL.default_name({"pool_limit": 151}) == "Pool 151"
    label = POOL.listing_label({"pool_limit": 151})
    assert (label, label.template) == ("Pool 151", "Pool %(limit)s")


# ------------------------------------------------------------ who leads


def test_pool_leader_is_the_lowest_total_still_in():
    assert POOL.leaders(elimination()) == ["Meena"]  # 22, below Asha 32 and Ravi 74


def test_pool_players_level_on_the_lowest_total_all_lead():
    # A 0 + 10 = 10, B 10 + 0 = 10, C 20 + 5 = 25.
    state = pool(("A", "B", "C"), [deal("A", B=10, C=20), deal("B", A=10, C=5)])
    assert POOL.leaders(state) == ["A", "B"]


# ------------------------------------------------------------ the must-play warning


def test_pool_drop_for_a_player_who_must_play_warns_with_the_sum_that_puts_them_out():
    state = ravi_must_play()
    ravi = state.player("Ravi")
    assert POOL.drop_warning(state, ravi, "first_drop") == (
        "Ravi has no drops left (must play): a drop puts Ravi out "
        "(85 + 20 = 105 ≥ 101). Save again to give the drop."
    )
    assert POOL.drop_warning(state, ravi, "middle_drop") == (
        "Ravi has no drops left (must play): a drop puts Ravi out "
        "(85 + 40 = 125 ≥ 101). Save again to give the drop."
    )


def test_pool_player_with_a_drop_left_is_not_warned_even_if_a_middle_drop_puts_them_out():
    # Ravi 74: (100 - 74) // 20 = 1 drop left, so not in compulsory play, though a
    # middle drop would make 74 + 40 = 114.
    state = elimination()
    assert POOL.drop_warning(state, state.player("Ravi"), "middle_drop") is None


def test_pool_points_or_a_full_count_or_a_drop_with_drops_left_give_no_warning():
    state = ravi_must_play()
    ravi, asha = state.player("Ravi"), state.player("Asha")
    assert POOL.drop_warning(state, ravi, 5) is None
    assert POOL.drop_warning(state, ravi, "full_count") is None
    assert POOL.drop_warning(state, ravi, "wrong_show") is None
    assert POOL.drop_warning(state, asha, "first_drop") is None  # 4 drops left


def test_pool_drop_that_lands_exactly_on_the_limit_warns():
    # B 61 + 20 = 81: (100 - 81) // 20 = 0 drops left; a first drop makes 101, out.
    state = pool(("A", "B"), [deal("A", B=61), deal("A", B=20)])
    assert POOL.drop_warning(state, state.player("B"), "first_drop") == (
        "B has no drops left (must play): a drop puts B out "
        "(81 + 20 = 101 ≥ 101). Save again to give the drop."
    )


def test_pool_player_who_is_out_gets_no_drop_warning():
    state = elimination()
    assert POOL.drop_warning(state, state.player("Kiran"), "first_drop") is None


def test_pool_drop_past_the_most_drops_is_refused_not_warned():
    # shared/docs/examples/08: Pool 201, max_drops 2; B took a first and a middle
    # drop (25 + 50 = 75): 0 drops left by the limit, though 75 + 25 = 100 < 201.
    state = example("08-pool-max-drops")
    b = state.player("B")
    assert POOL.cells(state, b, None) == [
        {"text": "75"},
        {"text": "0", "badge": ("must play", "warn")},
    ]
    assert POOL.drop_warning(state, b, "first_drop") is None
    with pytest.raises(RuleError) as refused:
        apply(state, deal("A", B="first_drop", C=10))
    assert refused.value.for_player == "B: has taken 2 drops, the most this table allows"


# ------------------------------------------------------------ coming back in


def c_out_with_b_on_100():
    """Pool 101 with the rejoin cutoff raised to 100 (the most it may be: below 101).

    Deal 1: B 80, C 80. Deal 2: B 80 + 20 = 100, still in; C 80 + 25 = 105, out.
    H = 100 (A 0, B 100) is at the cutoff, but a newcomer would start at 101: out.
    """
    return pool(
        ("A", "B", "C"),
        [deal("A", B=80, C=80), deal("A", B=20, C=25)],
        rejoin_cutoff=100,
    )


def refusal(state, event):
    with pytest.raises(RuleError) as refused:
        apply(state, event)
    return refused.value.message


def test_pool_rejoin_that_would_start_at_the_limit_is_refused():
    state = c_out_with_b_on_100()
    assert state.can_rejoin == []
    assert refusal(state, rejoin("C")) == "C cannot rejoin: C would start at 101, which is out"


def test_pool_join_that_would_start_at_the_limit_is_refused():
    state = c_out_with_b_on_100()
    assert refusal(state, join("Dev")) == ("Dev cannot join: they would start at 101, which is out")


def test_pool_table_without_rejoins_takes_no_newcomer():
    state = pool(("A", "B", "C"), [deal("A", B=10, C=20)], rejoin=False)
    assert refusal(state, join("Dev")) == (
        "Dev cannot join: rejoins are off at this table, so nobody joins mid-game"
    )


# ------------------------------------------------------------ the family table


def test_pool_money_on_the_family_table_counts_every_rejoin_paid_in():
    # b_rejoins_twice, then deal 5: C 45 + 80 = 125, out; A wins the pot.
    # Pot 10 x (3 + 2 rejoins) = 50. A: 50 - 10 = 40; B paid 10 x (1 + 2) = 30;
    # C paid 10.
    state = b_rejoins_twice()
    apply(state, deal("A", C=80))
    assert state.winner == "A"
    money = POOL.table_money(state.rules, state.document())
    assert money == {"A": Decimal("40"), "B": Decimal("-30"), "C": Decimal("-10")}
