"""People come and go (rules.md): joins, sit-outs, leaves, through the rules engine.

The two worked games are tests/examples/13-*.json and 14-*.json; every figure
below is worked out by hand in the comments, not by the engine.
"""

import csv
import io
import json

import pytest
from django.core.management import CommandError

from tests.commands.call import import_file, run
from tests.conftest import input_part, load_example, our_example_paths
from tests.events import deal, join, leave, sit_in, sit_out
from tracker import rules
from tracker.documents import game_json
from tracker.documents.game_csv import load_csv, read_csv, write_csv
from tracker.models import Event, Game
from tracker.rules import RuleError, replay

pytestmark = pytest.mark.both_databases


def refusal(fmt, players, history, table=None, first=None):
    with pytest.raises(RuleError) as caught:
        replay(fmt, table or {}, list(players), history, first)
    return caught.value


# ------------------------------------------------------------ the worked points session

# Points at 2 a point. Seats Asha, Ravi, Meena, Kiran; Asha deals first.
POINTS = load_example(our_example_paths()[0])


def points_after(count):
    doc = POINTS
    return replay("points", doc["rules"], doc["players"], doc["history"][:count], "Asha")


def balances(state):
    return {p.name: p.balance for p in state.players}


def test_the_points_session_deal_by_deal():
    # Deal 1, Asha deals: Ravi wins; Asha first drop 20, Meena 35, Kiran 10.
    #   Ravi +65; Asha -20, Meena -35, Kiran -10.
    assert balances(points_after(1)) == {"Asha": -20, "Ravi": 65, "Meena": -35, "Kiran": -10}
    # Deal 2, Ravi deals: Meena wins; Asha 12, Ravi middle drop 40, Kiran 25: Meena +77.
    state = points_after(2)
    assert balances(state) == {"Asha": -32, "Ravi": 25, "Meena": 42, "Kiran": -35}
    assert state.next_dealer == "Meena"
    # Dev joins after Ravi: seats Asha 1, Ravi 2, Dev 3, Meena 4, Kiran 5; Dev at 0,
    # and as the seat after Ravi (the last dealer) Dev deals deal 3.
    state = points_after(3)
    assert [(p.seat, p.name, p.balance) for p in state.players] == [
        (1, "Asha", -32),
        (2, "Ravi", 25),
        (3, "Dev", 0),
        (4, "Meena", 42),
        (5, "Kiran", -35),
    ]
    assert state.next_dealer == "Dev"
    # Deal 3: Dev wins; Asha 30, Ravi 0, Meena full count 80, Kiran 15: Dev +125.
    state = points_after(4)
    assert balances(state) == {"Asha": -62, "Ravi": 25, "Dev": 125, "Meena": -38, "Kiran": -50}
    # Meena sits out deals 4 and 5: the deal after Dev skips her, so Kiran deals.
    state = points_after(5)
    assert state.players[3].status == "sitting_out"
    assert [p.name for p in state.in_players] == ["Asha", "Ravi", "Dev", "Kiran"]
    assert state.next_dealer == "Kiran"
    # Deal 4: Asha wins; Ravi 22, Dev 18, Kiran wrong show 80: Asha +120.
    # Deal 5, Asha deals: Kiran wins; Asha 9, Ravi first drop 20, Dev 40: Kiran +69.
    state = points_after(7)
    assert balances(state) == {"Asha": 49, "Ravi": -17, "Dev": 67, "Meena": -38, "Kiran": -61}
    assert state.next_dealer == "Ravi"  # Meena keeps her balance, -38, while away
    # Meena back in for deal 6, Ravi deals: Meena wins; Asha 5, Ravi 14, Dev 40, Kiran 2: +61.
    state = points_after(9)
    assert balances(state) == {"Asha": 44, "Ravi": -31, "Dev": 27, "Meena": 23, "Kiran": -63}
    # Kiran goes home after deal 6; deal 7 is dealt by Dev (after Ravi), Kiran not dealt in.
    state = points_after(10)
    assert state.players[4].status == "left"
    assert state.next_dealer == "Dev"
    assert [p.name for p in state.in_players] == ["Asha", "Ravi", "Dev", "Meena"]


def test_the_points_session_dealers_and_settlement():
    state = points_after(len(POINTS["history"]))
    dealers = [row.dealer for row in state.rows if row.type == "deal"]
    assert dealers == ["Asha", "Ravi", "Dev", "Kiran", "Asha", "Ravi", "Dev"]
    # Deal 7: Ravi wins; Asha 16, Dev 0, Meena 24: Ravi +40. Then the family ends it.
    # Balances +28 +9 +27 -1 -63 (sum 0); at 2 a point 56, 18, 54, -2, -126.
    assert balances(state) == {"Asha": 28, "Ravi": 9, "Dev": 27, "Meena": -1, "Kiran": -63}
    # No smaller group sums to 0 (creditors 28, 9, 27 against debtors 1 and 63), so four
    # payments: Kiran, who left, pays Asha 56, Dev 54, Ravi 16; Meena pays Ravi 2.
    assert [(a, b, str(amount)) for a, b, amount in state.settlement] == [
        ("Kiran", "Asha", "56"),
        ("Kiran", "Dev", "54"),
        ("Kiran", "Ravi", "16"),
        ("Meena", "Ravi", "2"),
    ]
    assert state.finished and state.next_dealer is None


# ------------------------------------------------------------ the worked pool game

POOL = load_example(our_example_paths()[1])


def pool_after(count):
    doc = POOL
    return replay("pool", doc["rules"], doc["players"], doc["history"][:count], "Asha")


def test_the_pool_latecomer_joins_at_h_plus_one_and_the_pot_grows():
    # Pool 101, entry 50, seats Asha, Ravi, Meena: pot 3 x 50 = 150.
    # Deal 1, Asha deals: Asha wins; Ravi 30, Meena middle drop 40.
    state = pool_after(1)
    assert state.pot == 150
    assert state.spec.join_refusal(state) is None
    # H = 40 (Meena), at most the cutoff 79: Dev joins after Asha at 41; pot 4 x 50 = 200.
    state = pool_after(2)
    assert [(p.seat, p.name, p.total) for p in state.players] == [
        (1, "Asha", 0),
        (2, "Dev", 41),
        (3, "Ravi", 30),
        (4, "Meena", 40),
    ]
    assert state.pot == 200
    dev = state.player("Dev")
    assert (dev.rejoins, dev.drops_left) == (0, 2)  # (100 - 41) // 20 = 2
    assert state.next_dealer == "Dev"  # the seat after Asha, who dealt deal 1
    # Deal 2, Dev deals: Ravi wins; Asha 25, Dev first drop (61), Meena 61: Meena on 101, out.
    state = pool_after(3)
    assert state.player("Meena").status == "out"
    assert state.next_dealer == "Ravi"
    # Deal 3, Ravi deals: Dev wins; Asha 50 (75), Ravi 15 (45). Next the seat after Ravi:
    # Meena is out, so Asha.
    state = pool_after(4)
    assert [row.dealer for row in state.rows if row.type == "deal"] == ["Asha", "Dev", "Ravi"]
    assert state.next_dealer == "Asha"
    assert {p.name: p.total for p in state.players} == {
        "Asha": 75,
        "Dev": 61,
        "Ravi": 45,
        "Meena": 101,
    }
    # H = 75, so Meena may still rejoin at 76; the pot stays 200 until she does.
    assert state.can_rejoin == ["Meena"]
    assert state.pot == 200


def examples_with_a_join():
    return [
        path
        for path in our_example_paths()
        if any(event["type"] == "join" for event in load_example(path)["history"])
    ]


@pytest.mark.parametrize("path", examples_with_a_join(), ids=lambda p: p.stem)
def test_our_worked_examples_replay_to_their_state(path):
    doc = load_example(path)
    state = replay(doc["format"], doc["rules"], doc["players"], doc["history"], doc["first_dealer"])
    assert state.document() == doc["state"]
    assert rules.normalize_rules(doc["format"], doc["rules"]) == doc["rules"]
    # The input part keeps the starting seats; the state lists the joiner too.
    assert len(doc["state"]["players"]) == len(input_part(doc)["players"]) + 1


# ------------------------------------------------------------ more that the rules say


def test_a_pool_join_before_the_first_deal_starts_at_0():
    state = replay("pool", {"entry_fee": "10"}, ["A", "B"], [join("C", after="A")])
    assert [(p.name, p.seat, p.total) for p in state.players] == [
        ("A", 1, 0),
        ("C", 2, 0),
        ("B", 3, 0),
    ]
    assert state.pot == 30
    assert state.next_dealer == "A"


def test_a_pool_join_is_not_a_rejoin_and_max_rejoins_does_not_limit_it():
    table = {"max_rejoins": 0, "max_drops": 1}
    # A wins; B first drop (20). H = 20: C joins at 21 although no rejoins are allowed.
    state = replay("pool", table, ["A", "B"], [deal("A", B="first_drop"), join("C")])
    c = state.player("C")
    assert (c.total, c.rejoins, c.drops_taken) == (21, 0, 0)
    # A fresh max_drops count: C may drop once; B, who dropped, may not.
    assert (c.drops_left, state.player("B").drops_left) == (1, 0)


def test_a_joiner_seated_right_after_the_dealer_deals_next_and_the_rotation_goes_on():
    # A deals deal 1; D joins after A, so D deals deal 2, then B, then C, then A.
    history = [deal("A", B=5, C=5), join("D", after="A")]
    for winner in ("A", "A", "A"):
        history.append(deal(winner, B=5, C=5, D=5))
    state = replay("points", {}, ["A", "B", "C"], history)
    assert [row.dealer for row in state.rows if row.type == "deal"] == ["A", "D", "B", "C"]
    assert state.next_dealer == "A"


def test_a_first_dealer_who_sits_out_the_first_deal_passes_it_to_the_next_seat():
    state = replay("points", {}, ["A", "B", "C"], [sit_out("B")], "B")
    assert state.next_dealer == "C"


def test_a_player_who_left_can_join_again_under_another_name_and_stays_in_the_settlement():
    history = [deal("A", B=10, C=20), leave("C"), join("C two")]
    state = replay("points", {"point_value": "1"}, ["A", "B", "C"], history)
    assert balances(state) == {"A": 30, "B": -10, "C": -20, "C two": 0}
    assert [(a, b, int(m)) for a, b, m in state.settlement] == [("C", "A", 20), ("B", "A", 10)]


def test_a_joiner_s_name_is_trimmed_as_a_seat_s():
    state = replay("points", {}, ["A", "B"], [join("  Dev   Kumar ")])
    assert state.players[-1].name == "Dev Kumar"


# ------------------------------------------------------------ refusals (rules.md "Bad input")


def test_a_join_in_deals_is_refused():
    error = refusal("deals", ["A", "B"], [join("C")])
    assert error.field == "type"
    assert error.event == 0 and error.label == "join"
    assert "C cannot join: every player's chips are fixed at the start" in error.message


@pytest.mark.parametrize("name", ["asha", "ASHA", " Asha "])
def test_a_joiner_s_name_already_at_the_table_is_refused_ignoring_case(name):
    error = refusal("points", ["Asha", "Ravi"], [join(name)])
    assert error.field == "player"
    assert "Asha is already seated in this game" in error.message


def test_a_joiner_may_not_take_the_name_of_a_player_who_left_or_is_out():
    error = refusal("points", ["A", "B", "C"], [leave("C"), join("c")])
    assert "C is already seated" in error.message
    error = refusal(
        "pool", ["A", "B", "C"], [deal("A", B=80, C=20), deal("A", B=30, C=5), join("b")]
    )
    assert "B is already seated" in error.message


@pytest.mark.parametrize("name", ["", "   ", None, 7, "x" * 31, "Dev\u0000"])
def test_a_joiner_needs_a_name_as_a_seat_does(name):
    error = refusal("points", ["A", "B"], [join(name)])
    assert error.field == "player"


def test_an_eleventh_player_is_refused_out_and_gone_included():
    names = [f"P{i}" for i in range(1, 10)]
    history = [leave("P9"), join("New")]  # ten seated, one of them gone
    assert len(replay("points", {}, names, history).players) == 10
    error = refusal("points", names, [*history, join("Eleven")])
    assert error.field == "player" and error.event == 2
    assert "at most 10 players" in error.message


def test_a_pool_join_above_the_rejoin_cutoff_is_refused():
    # A wins; B 80: H = 80, above the cutoff 79.
    error = refusal("pool", ["A", "B", "C"], [deal("A", B=80, C=5), join("D")])
    assert error.field == "player" and error.event == 1
    assert (
        error.message
        == "D cannot join: the highest total still in is 80, above the rejoin cutoff 79"
    )
    # At 79 exactly the join is allowed: D starts at 80.
    state = replay("pool", {}, ["A", "B", "C"], [deal("A", B=79, C=5), join("D")])
    assert state.player("D").total == 80


def test_a_pool_join_with_rejoins_off_is_refused():
    error = refusal("pool", ["A", "B"], [join("C")], {"rejoin": False})
    assert error.field == "player"
    assert "rejoins are off at this table" in error.message


def test_a_pool_join_needs_two_players_still_in_and_a_game_going_on():
    # B goes out, A alone: the game is over.
    error = refusal("pool", ["A", "B"], [deal("A", B=80), deal("A", B=30), join("C")])
    assert error.field == "type" and "the game is over" in error.message


def test_a_join_after_an_unknown_player_is_refused():
    error = refusal("points", ["A", "B"], [join("C", after="Zed")])
    assert error.field == "after"
    assert "after must name a player seated at this table" in error.message


def test_a_sit_out_that_leaves_fewer_than_two_dealt_in_is_refused():
    error = refusal("points", ["A", "B", "C"], [sit_out("A"), sit_out("B")])
    assert error.field == "player" and error.event == 1 and error.label == "sit_out"
    assert error.message == "B cannot sit out: at least two players must stay dealt in"
    error = refusal("points", ["A", "B"], [leave("A")])
    assert error.message == "A cannot leave: at least two players must stay dealt in"


def test_a_result_for_a_player_sitting_out_or_gone_is_refused():
    history = [sit_out("C"), leave("D")]
    error = refusal("points", ["A", "B", "C", "D"], [*history, deal("A", B=5, C=5)])
    assert error.field == "results.C" and error.event == 2
    assert error.message == "C sits out and has no result"
    error = refusal("points", ["A", "B", "C", "D"], [*history, deal("A", B=5, D=5)])
    assert error.message == "D has left and has no result"
    error = refusal("points", ["A", "B", "C", "D"], [*history, deal("C", A=5, B=5)])
    assert error.field == "winner" and error.message == "C sits out, so cannot win"


def test_a_sit_in_after_a_leave_is_refused():
    error = refusal("points", ["A", "B", "C"], [leave("C"), sit_in("C")])
    assert error.field == "player"
    assert error.message.startswith("C has left and cannot sit back in")


@pytest.mark.parametrize(
    ("history", "words"),
    [
        ([sit_out("C"), sit_out("C")], "C already sits out"),
        ([sit_in("C")], "C is already in"),
        ([leave("C"), leave("C")], "C has already left"),
        ([sit_out("Zed")], "Zed is not at this table"),
        ([{"type": "sit_out"}], "name the player"),
        ([{"type": "end"}, sit_out("C")], "the session has ended"),
        ([{"type": "end"}, join("D")], "D cannot join: the game is over"),
        ([{"type": "leave", "player": "C", "after": "A"}], "after does not belong in a leave"),
    ],
)
def test_other_comings_and_goings_that_are_refused(history, words):
    error = refusal("points", ["A", "B", "C"], history)
    assert words in error.message


@pytest.mark.parametrize("fmt", ["pool", "deals"])
@pytest.mark.parametrize("kind", ["sit_out", "sit_in", "leave"])
def test_only_points_has_sit_outs_and_leaves(fmt, kind):
    error = refusal(fmt, ["A", "B", "C"], [{"type": kind, "player": "C"}])
    assert error.field == "type"
    assert f"only in points, not in {fmt}" in error.message


def test_an_edit_that_makes_a_later_join_impossible_is_refused_naming_it():
    # H was 60 when C joined; edited to 80 it is above the cutoff 79: the join (event 1) fails.
    history = [deal("A", B=60), join("C")]
    assert replay("pool", {}, ["A", "B"], history).player("C").total == 61
    error = refusal("pool", ["A", "B"], [deal("A", B=80), join("C")])
    assert error.event == 1 and error.label == "join"


def test_a_refused_join_or_sit_out_changes_nothing():
    state = replay("points", {}, ["A", "B", "C"], [deal("A", B=5, C=5)])
    before = state.document()
    for event in (join("a"), sit_out("Zed"), sit_in("A"), join("D", after="Zed")):
        with pytest.raises(RuleError):
            rules.apply(state, event)
        assert state.document() == before
        assert len(state.rows) == 1


# ------------------------------------------------------------ the documents and the command


@pytest.mark.django_db
@pytest.mark.parametrize("path", our_example_paths(), ids=lambda p: p.stem)
def test_our_examples_import_and_export_round_trip(path, tmp_path):
    doc = load_example(path)
    line = import_file(tmp_path, input_part(doc))
    game = Game.objects.get(pk=line["id"])
    # The stored seats are the seats at the start; the joiner is an event.
    assert game.seat_names() == doc["players"]
    exported = json.loads(run("export_game", game.view_token))
    assert exported == doc
    again = Game.import_document(exported)
    assert again.as_document() == exported


@pytest.mark.parametrize("path", examples_with_a_join(), ids=lambda p: p.stem)
def test_our_examples_round_trip_through_the_csv(path):
    game, state = game_json.read(input_part(load_example(path)))
    text = write_csv(game, state)
    header = next(row for row in csv.reader(io.StringIO(text)) if row and row[0] == "event")
    assert header[5] == "after"
    assert "Dev result" in header and "Dev total" in header
    assert read_csv(text) == game
    again, again_state = load_csv(text)
    assert again == game
    assert again_state.document() == load_example(path)["state"]


def test_the_csv_rows_of_a_join_and_a_sit_out():
    game, state = game_json.read(
        {
            "schema": game_json.SCHEMA,
            "format": "points",
            "players": ["Asha", "Ravi"],
            "history": [deal("Asha", Ravi=30), join("Dev", "Asha"), sit_out("Ravi"), leave("Ravi")],
        }
    )
    rows = [row for row in csv.reader(io.StringIO(write_csv(game, state))) if row]
    assert rows[3] == ["players", "Asha", "Ravi"]
    table = rows[rows.index(next(r for r in rows if r[0] == "event")) :]
    results = ["Asha result", "Dev result", "Ravi result"]
    totals = ["Asha total", "Dev total", "Ravi total"]
    money = ["Asha money", "Dev money", "Ravi money"]
    assert table[0][5:] == ["after", *results, *totals, *money]
    # Dev's cells are blank before Dev joined. At 1 a point (the default) a
    # balance of 30 is 30.00.
    assert table[1] == [
        "deal", "1", "Asha", "Asha", "", "", "", "", "30", "30", "", "-30", "30.00", "", "-30.00",
    ]  # fmt: skip
    assert table[2] == [
        "join", "", "", "", "Dev", "Asha", "", "", "", "30", "0", "-30", "30.00", "0.00", "-30.00",
    ]  # fmt: skip
    assert table[3] == [
        "sit_out", "", "", "", "Ravi", "", "", "", "", "30", "0", "-30", "30.00", "0.00", "-30.00",
    ]  # fmt: skip
    assert table[4][:6] == ["leave", "", "", "", "Ravi", ""]


def test_a_csv_column_for_a_player_nobody_seats_is_refused():
    game, state = game_json.read(
        {
            "schema": game_json.SCHEMA,
            "format": "points",
            "players": ["Asha", "Ravi"],
            "history": [join("Dev")],
        }
    )
    # The join row turned into another event: nobody seats Dev, whose columns stay.
    text = write_csv(game, state).replace("\r\njoin,,,,Dev,", "\r\nsit_out,,,,Ravi,")
    with pytest.raises(RuleError, match="'Dev result' is not a column of this game"):
        read_csv(text)


def test_a_csv_join_refused_by_the_rules_names_its_row_and_column():
    game, state = game_json.read(
        {"schema": game_json.SCHEMA, "format": "deals", "players": ["Asha", "Ravi"], "history": []}
    )
    text = write_csv(game, state) + "join,,,,Dev\r\n"
    with pytest.raises(RuleError) as caught:
        load_csv(text)
    # Rows 1-5 the game and seats, 6-15 the 10 rules of deals, 17 the header.
    assert str(caught.value).startswith("row 18 (join), column A (event): Dev cannot join")


IMPORT_REFUSALS = [
    ("deals", ["A", "B"], [join("C")], "history[0] (join): type: C cannot join"),
    ("points", ["A", "B"], [join("a")], "history[0] (join): player: a cannot join: A is already"),
    (
        "points",
        [f"P{i}" for i in range(10)],
        [join("Eleven")],
        "player: Eleven cannot join: a game has at most 10 players",
    ),
    (
        "pool",
        ["A", "B", "C"],
        [deal("A", B=80, C=5), join("D")],
        "history[1] (join): player: D cannot join: the highest total still in is 80",
    ),
    ("points", ["A", "B", "C"], [sit_out("A"), sit_out("B")], "history[1] (sit_out): player:"),
    (
        "points",
        ["A", "B", "C"],
        [sit_out("C"), deal("A", B=5, C=5)],
        "history[1] (deal 1): results.C: C sits out and has no result",
    ),
    ("points", ["A", "B", "C"], [leave("C"), sit_in("C")], "player: C has left and cannot"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("fmt", "players", "history", "words"), IMPORT_REFUSALS)
def test_the_import_command_refuses_what_the_rules_refuse(tmp_path, fmt, players, history, words):
    doc = {"schema": game_json.SCHEMA, "format": fmt, "players": players, "history": history}
    with pytest.raises(CommandError) as caught:
        import_file(tmp_path, doc)
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)
    assert Game.objects.count() == 0 and Event.objects.count() == 0


@pytest.mark.django_db
def test_the_import_command_refuses_a_pool_join_with_rejoins_off(tmp_path):
    doc = {
        "schema": game_json.SCHEMA,
        "format": "pool",
        "rules": {"rejoin": False},
        "players": ["A", "B"],
        "history": [join("C")],
    }
    with pytest.raises(CommandError, match="rejoins are off at this table"):
        import_file(tmp_path, doc)
    assert Game.objects.count() == 0
