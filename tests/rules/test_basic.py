"""Basic Rummy (format `basic`) against hand-worked games (rules.md, "Basic Rummy").

Every expected figure below was worked out by hand; the working is in the
comment beside it. The same games are kept as game documents under
tests/examples/, checked by hand too, and replayed and round-tripped here.
"""

import json
from pathlib import Path

import pytest

from tests.commands.call import run
from tests.events import deal
from tracker import rules
from tracker.documents import game_csv, game_json
from tracker.models import Event, Game
from tracker.rules import RuleError, replay

pytestmark = pytest.mark.both_databases

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("basic-*.json"))
P3 = ["Asha", "Ravi", "Meena"]
P4 = ["Asha", "Ravi", "Meena", "Kiran"]


def totals(state):
    return {p.name: p.total for p in state.players}


# ------------------------------------------------------------ table rules


def test_defaults_are_winner_collects_to_100_going_rummy_double_for_fun():
    assert rules.normalize_rules("basic", {}) == {
        "scoring": "winner_collects",
        "target": 100,
        "deal_count": None,
        "going_rummy": "double",
        "point_value": "0",
        "money_unit": "0.01",
    }


@pytest.mark.parametrize(
    ("table", "field", "words"),
    [
        ({"target": None}, "rules.target", "set a target or a number of deals"),
        ({"target": None, "deal_count": None}, "rules.target", "the game needs an end"),
        ({"target": 0}, "rules.target", "target must be at least 1"),
        ({"target": 10_001}, "rules.target", "target must be at most 10000"),
        ({"target": "100"}, "rules.target", "target must be a whole number"),
        ({"deal_count": 0}, "rules.deal_count", "number of deals must be at least 1"),
        ({"deal_count": 101}, "rules.deal_count", "number of deals must be at most 100"),
        ({"scoring": "lowest"}, "rules.scoring", "scoring must be winner_collects or penalty"),
        ({"going_rummy": "triple"}, "rules.going_rummy", "double or plus_10 or off"),
        ({"point_value": "-1"}, "rules.point_value", "point value must not be negative"),
        ({"point_value": "0.001"}, "rules.point_value", "more decimals than the money unit"),
        ({"first_drop": 20}, "rules.first_drop", "first_drop is not a rule of basic rummy"),
        ({"full_count": 80}, "rules.full_count", "is not a rule of basic rummy"),
        ({"ace_value": 1}, "rules.ace_value", "is not a rule of basic rummy"),
        ({"natural_wild": "joker"}, "rules.natural_wild", "is not a rule of basic rummy"),
    ],
)
def test_table_rules_refused(table, field, words):
    with pytest.raises(RuleError) as caught:
        rules.normalize_rules("basic", table)
    assert caught.value.field == field
    assert words in str(caught.value)


# ------------------------------------------------------------ hand-worked games


def test_winner_collects_double_to_the_target():
    history = [
        deal("Ravi", Asha=12, Meena=25),  # Ravi collects 12 + 25 = 37
        deal("Meena", True, Asha=8, Ravi=15),  # rummy, double: (8 + 15) x 2 = 46 to Meena
        deal("Ravi", Asha=30, Meena=40),  # Ravi 37 + 70 = 107 >= 100: the game ends
    ]
    state = replay("basic", {}, P3, history)
    assert totals(state) == {"Asha": 0, "Ravi": 107, "Meena": 46}
    assert state.rows[1].points == {"Asha": 16, "Ravi": 30}  # each count doubled
    assert state.status == "finished" and state.winner == "Ravi"
    assert state.next_dealer is None
    # Dealers: Asha, then the next seat each deal.
    assert [row.dealer for row in state.rows] == ["Asha", "Ravi", "Meena"]
    # Before the third deal nobody had reached 100: the game went on.
    before = replay("basic", {}, P3, history[:2])
    assert before.status == "in_progress" and before.next_dealer == "Meena"


def test_winner_collects_plus_10_after_a_number_of_deals_and_settles():
    table = {"target": None, "deal_count": 3, "going_rummy": "plus_10", "point_value": "0.50"}
    history = [
        deal("Asha", True, Ravi=5, Meena=0),  # rummy, +10 each: 15 + 10 = 25 to Asha
        deal("Meena", Asha=20, Ravi=7),  # 27 to Meena
        deal("Ravi", Asha=3, Meena=9),  # 12 to Ravi; 3 deals: highest total wins
    ]
    state = replay("basic", table, P3, history, "Ravi")
    assert totals(state) == {"Asha": 25, "Ravi": 12, "Meena": 27}
    assert state.winner == "Meena"
    # Each loser pays (27 - their total) x 0.50: Ravi 15 x 0.50 = 7.50, Asha 2 x 0.50 = 1.00.
    assert state.document()["settlement"] == [
        {"from": "Ravi", "to": "Meena", "amount": "7.50"},
        {"from": "Asha", "to": "Meena", "amount": "1.00"},
    ]
    # While the game is on, nobody pays yet.
    assert replay("basic", table, P3, history[:2], "Ravi").document()["settlement"] == []


def test_winner_collects_off_tie_breaker_among_the_level_players():
    table = {"deal_count": 2, "going_rummy": "off"}  # target 100 too: 2 deals come first
    history = [
        deal("Ravi", Asha=10, Meena=5, Kiran=15),  # Ravi 30
        deal("Kiran", Asha=10, Ravi=12, Meena=8),  # Kiran 30: level with Ravi after 2 deals
    ]
    state = replay("basic", table, P4, history)
    assert totals(state) == {"Asha": 0, "Ravi": 30, "Meena": 0, "Kiran": 30}
    assert state.status == "in_progress" and state.tie_breaker
    assert [p.name for p in state.in_players] == ["Ravi", "Kiran"]
    # Ravi dealt deal 2; the next of Ravi and Kiran after seat 2 is Kiran.
    assert state.next_dealer == "Kiran"
    doc = state.document()
    assert doc["tie_breaker"] is True and doc["deals_played"] == 2
    # Only the level players play: Asha has no result in the tie-breaker.
    with pytest.raises(RuleError, match="Asha is not in the tie-breaker and has no result"):
        rules.apply(state, deal("Ravi", Kiran=0, Asha=3))
    # Tie-breaker 1: Ravi wins, Kiran counts 0: Ravi 30 + 0, still level.
    rules.apply(state, deal("Ravi", Kiran=0))
    assert state.tie_breaker and state.next_dealer == "Ravi"  # after seat 4, back to seat 2
    # Tie-breaker 2: Kiran wins, Ravi 9: Kiran 39, alone in front.
    rules.apply(state, deal("Kiran", Ravi=9))
    assert totals(state) == {"Asha": 0, "Ravi": 30, "Meena": 0, "Kiran": 39}
    assert state.winner == "Kiran" and state.deals_played == 4
    assert "tie_breaker" not in state.document()
    # The going-rummy mark is refused at this table, with the field named.
    with pytest.raises(RuleError) as caught:
        replay("basic", table, P4, [deal("Ravi", True, Asha=1, Meena=2, Kiran=3)])
    assert caught.value.field == "rummy" and "going rummy is off" in str(caught.value)


def test_penalty_double_to_the_target_lowest_wins_and_settles():
    table = {"scoring": "penalty", "target": 50, "point_value": "2", "money_unit": "1"}
    history = [
        deal("Asha", Ravi=14, Meena=9),  # Ravi 14, Meena 9, the winner adds 0
        deal("Ravi", True, Asha=11, Meena=6),  # double: Asha 22, Meena 9 + 12 = 21
        deal("Meena", Asha=30, Ravi=20),  # Asha 52 >= 50: ends; Ravi 34; Meena 21 lowest
    ]
    state = replay("basic", table, P3, history, "Meena")
    assert totals(state) == {"Asha": 52, "Ravi": 34, "Meena": 21}
    assert state.winner == "Meena"
    # Each loser pays (their total - 21) x 2: Asha 31 x 2 = 62, Ravi 13 x 2 = 26.
    assert state.document()["settlement"] == [
        {"from": "Asha", "to": "Meena", "amount": "62.00"},
        {"from": "Ravi", "to": "Meena", "amount": "26.00"},
    ]
    assert [row.dealer for row in state.rows] == ["Meena", "Asha", "Ravi"]


def test_penalty_plus_10_tie_breaker_at_the_bottom():
    table = {"scoring": "penalty", "target": 60, "going_rummy": "plus_10"}
    history = [
        deal("Asha", Ravi=20, Meena=10, Kiran=25),  # R 20, M 10, K 25
        deal("Meena", True, Asha=5, Ravi=12, Kiran=0),  # +10: A 15, R 42, K 35
        deal("Kiran", Asha=0, Ravi=20, Meena=5),  # A 15, R 62 >= 60: ends; M 15
    ]
    state = replay("basic", table, P4, history)
    # Asha and Meena are level lowest at 15: they play a tie-breaker.
    assert totals(state) == {"Asha": 15, "Ravi": 62, "Meena": 15, "Kiran": 35}
    assert state.tie_breaker and [p.name for p in state.in_players] == ["Asha", "Meena"]
    # Meena dealt deal 3 (seat 3); the next of seats 1 and 3 after seat 3 is Asha.
    assert state.next_dealer == "Asha"
    rules.apply(state, deal("Meena", Asha=7))  # Asha 22: Meena alone lowest
    assert state.winner == "Meena" and state.deals_played == 4
    assert totals(state)["Asha"] == 22
    assert state.document()["settlement"] == []  # point value 0: for fun


def test_penalty_off_after_a_number_of_deals_settles_in_quarters():
    table = {"scoring": "penalty", "target": None, "deal_count": 2, "going_rummy": "off"}
    table["point_value"] = "0.25"
    history = [deal("Asha", Ravi=33), deal("Ravi", Asha=18)]  # Ravi 33, Asha 18
    state = replay("basic", table, ["Asha", "Ravi"], history, "Ravi")
    assert state.winner == "Asha"
    # Ravi pays (33 - 18) x 0.25 = 3.75.
    assert state.document()["settlement"] == [{"from": "Ravi", "to": "Asha", "amount": "3.75"}]


def test_a_count_of_0_and_999_are_counts():
    # Winner collects 0 + 999 = 999 >= 100: over in one deal.
    state = replay("basic", {}, P3, [deal("Asha", Ravi=0, Meena=999)])
    assert totals(state) == {"Asha": 999, "Ravi": 0, "Meena": 0}
    assert state.winner == "Asha"


# ------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("event", "field", "words"),
    [
        (deal("Asha", Ravi=1000, Meena=2), "results.Ravi", "count must be between 0 and 999"),
        (deal("Asha", Ravi=-1, Meena=2), "results.Ravi", "count must be between 0 and 999"),
        (deal("Asha", Ravi=2.5, Meena=2), "results.Ravi", "count must be a whole number"),
        (deal("Asha", Ravi=True, Meena=2), "results.Ravi", "count must be a whole number"),
        (deal("Asha", Ravi="first_drop", Meena=2), "results.Ravi", "is not a count"),
        (deal("Asha", Ravi="full_count", Meena=2), "results.Ravi", "is not a count"),
        (deal("Asha", Ravi=5), "results.Meena", "result missing"),
        ({**deal("Asha", Ravi=1, Meena=2), "rummy": "yes"}, "rummy", "true or false"),
    ],
)
def test_refused_deals_name_the_field_and_change_nothing(event, field, words):
    state = replay("basic", {}, P3, [deal("Ravi", Asha=4, Meena=6)])
    before = state.document()
    with pytest.raises(RuleError) as caught:
        rules.apply(state, event)
    assert caught.value.field == field
    assert words in str(caught.value)
    assert state.document() == before and len(state.rows) == 1


def test_a_deal_after_the_end_is_refused():
    state = replay("basic", {"target": 10}, P3, [deal("Asha", Ravi=4, Meena=6)])
    assert state.winner == "Asha"  # 10 reaches the target
    with pytest.raises(RuleError, match="the game is over: no more deals"):
        rules.apply(state, deal("Ravi", Asha=1, Meena=2))


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"type": "rejoin", "player": "Ravi"}, "only pool has rejoins"),
        ({"type": "split", "method": "equal"}, "only pool games are split"),
        ({"type": "end"}, "only a points session is ended by the family"),
    ],
)
def test_events_of_other_formats_are_refused(event, words):
    with pytest.raises(RuleError, match=words):
        replay("basic", {}, P3, [event])


def test_a_rummy_mark_in_another_format_is_refused():
    with pytest.raises(RuleError, match="rummy does not belong in a deal"):
        replay("points", {}, P3, [deal("Asha", True, Ravi=10, Meena=20)])


# ------------------------------------------------------------ worked example documents


def input_part(doc):
    return {key: value for key, value in doc.items() if key != "state"}


def test_there_is_an_example_for_every_scoring_and_going_rummy_setting():
    seen = set()
    for path in EXAMPLES:
        doc = json.loads(path.read_text())
        seen.add((doc["rules"]["scoring"], doc["rules"]["going_rummy"]))
    assert seen == {
        (scoring, mark)
        for scoring in ("winner_collects", "penalty")
        for mark in ("double", "plus_10", "off")
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_replays_to_its_state(path):
    doc = json.loads(path.read_text())
    game, state = game_json.read(input_part(doc))
    assert state.document() == doc["state"]
    assert game_json.write(game, state) == doc


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_round_trips_through_csv(path):
    doc = json.loads(path.read_text())
    game, state = game_json.read(input_part(doc))
    again, again_state = game_csv.load_csv(game_csv.write_csv(game, state))
    assert again == game
    assert again_state.document() == doc["state"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_import_then_export_with_the_commands(path, tmp_path):
    doc = json.loads(path.read_text())
    source = tmp_path / "game.json"
    source.write_text(json.dumps(input_part(doc)))
    line = json.loads(run("import_game", str(source)))
    game = Game.objects.get(pk=line["id"])
    assert game.events.count() == len(doc["history"])
    exported = json.loads(run("export_game", game.view_token))
    assert exported == doc
    # And once more: the export imports to the same document.
    source.write_text(json.dumps(exported))
    again = json.loads(run("import_game", str(source)))
    assert json.loads(run("export_game", str(again["id"]))) == doc


@pytest.mark.django_db
def test_import_refuses_a_basic_document_and_creates_nothing(tmp_path):
    doc = json.loads(EXAMPLES[0].read_text())
    doc["history"][1]["results"]["Asha"] = "middle_drop"
    source = tmp_path / "game.json"
    source.write_text(json.dumps(input_part(doc)))
    with pytest.raises(Exception) as caught:
        run("import_game", str(source))
    assert "history[1] (deal 2): results.Asha" in str(caught.value)
    assert Game.objects.count() == 0 and Event.objects.count() == 0
