"""The game as CSV and back (tracker.sheet): pure, no database."""

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import example_paths, input_part, load_example
from tests.events import deal
from tests.histories import game as random_game
from tracker import rules
from tracker.documents import game_json
from tracker.documents.game_csv import guard, load_csv, read_csv, unguard, write_csv

PLAYERS = ["Asha", "Ravi", "Meena", "Kiran"]


def make(fmt, history, *, players=PLAYERS, game_rules=None, name="Family game", first=None):
    doc = {
        "schema": game_json.SCHEMA,
        "name": name,
        "format": fmt,
        "rules": game_rules or {},
        "players": players,
        "history": history,
    }
    if first:
        doc["first_dealer"] = first
    return game_json.read(doc)


def round_trip(game, state):
    text = write_csv(game, state)
    back = read_csv(text)
    assert back == game
    again, _ = game_json.read(back)
    assert again == game
    assert load_csv(text)[0] == game
    return text


def table(text):
    return list(csv.reader(io.StringIO(text, newline="")))


def to_text(rows):
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


# A pool game with every kind of pool event: drops, an elimination, a rejoin, a custom split.
POOL = [
    deal("Asha", Ravi=34, Meena="first_drop", Kiran="middle_drop"),
    deal("Ravi", Asha=10, Meena=30, Kiran=80),
    {"type": "rejoin", "player": "Kiran"},
    deal("Meena", Asha=5, Ravi=80, Kiran=2),
    {
        "type": "split",
        "method": "custom",
        "shares": {"Asha": "100", "Meena": "100.50", "Kiran": "49.50"},
    },
]


def pool_game():
    return make("pool", POOL, game_rules={"entry_fee": "50"}, name="Sunday pool at Nani's")


# Its rules as rows 6 to 18 of the sheet: the entry fee it was given, every other
# rule at its pool 101 default (rules.md), in pool's order (game-json.md).
POOL_RULE_ROWS = [
    ["rule pool_limit", "101"],
    ["rule out_at", "reach"],
    ["rule first_drop", "20"],
    ["rule middle_drop", "40"],
    ["rule full_count", "80"],
    ["rule wrong_show", "80"],
    ["rule ace_value", "10"],
    ["rule entry_fee", "50"],
    ["rule rejoin", "true"],
    ["rule rejoin_cutoff", "79"],
    ["rule max_rejoins", "none"],
    ["rule max_drops", "none"],
    ["rule money_unit", "0.01"],
]


# ---------------------------------------------------------------- round trips


def test_round_trip_pool_with_rejoin_and_custom_split():
    round_trip(*pool_game())


@pytest.mark.parametrize("method", [None, "drops", "equal"])
def test_round_trip_pool_splits(method):
    split = {"type": "split"} if method is None else {"type": "split", "method": method}
    history = [
        deal("Asha", Ravi=80, Meena=80, Kiran=80),
        deal("Asha", Ravi=10, Meena=30, Kiran=40),
        split,
    ]
    game, state = make("pool", history, game_rules={"entry_fee": "25", "money_unit": "1"})
    text = round_trip(game, state)
    row = table(text)[-1]
    assert row[:5] == ["split", "", "", "", method or ""]
    # The shares the engine worked out are shown in the result columns.
    assert row[5:9] == ["" if share is None else f"{share:.2f}" for share in _shares(state)]


def _shares(state):
    return [state.split.get(p.name) for p in state.players]


def test_round_trip_pool_exceed_and_max_drops():
    game_rules = {"pool_limit": 201, "out_at": "exceed", "max_drops": 2, "max_rejoins": 1}
    history = [
        deal("Ravi", Asha="first_drop", Meena="wrong_show", Kiran="full_count"),
        deal("Asha", Ravi="middle_drop", Meena=0, Kiran=79),
    ]
    round_trip(*make("pool", history, game_rules=game_rules, first="Meena"))


def test_round_trip_deals_with_a_tie_breaker():
    history = [deal("Asha", Ravi=30), deal("Ravi", Asha=30), deal("Asha", Ravi=2)]
    game, state = make(
        "deals", history, players=["Asha", "Ravi"], game_rules={"drops_allowed": False}
    )
    text = round_trip(game, state)
    assert table(text)[-1][:5] == ["deal", "3", "Asha", "Asha", "tie-breaker"]


def test_round_trip_points_with_negative_balances_and_an_end():
    history = [
        deal("Meena", Asha=12, Ravi="first_drop", Kiran="full_count"),
        deal("Asha", Ravi=0, Meena="wrong_show", Kiran=2),
        {"type": "end"},
    ]
    game, state = make("points", history, game_rules={"point_value": "0.25"})
    text = round_trip(game, state)
    rows = table(text)
    assert rows[-1][:13] == ["end", "", "", "", "", "", "", "", "", "70", "-20", "32", "-82"]


def test_round_trip_without_deals():
    for fmt in rules.FORMATS:
        game, state = make(fmt, [])
        text = round_trip(game, state)
        assert table(text)[-1][0] == "event"


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_round_trip_worked_examples(path):
    game, state = game_json.read(input_part(load_example(path)))
    round_trip(game, state)


# The project's own worked examples (joins, basic rummy) beside the shared ones.
OUR_EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.json"))


@pytest.mark.parametrize("path", [*example_paths(), *OUR_EXAMPLES], ids=lambda p: p.stem)
def test_the_money_columns_agree_with_each_examples_settlement(path):
    doc = load_example(path)
    game, state = game_json.read(input_part(doc))
    rows = table(round_trip(game, state))
    header = next(row for row in rows if row[:1] == ["event"])
    money_at = {
        cell.removesuffix(" money"): index
        for index, cell in enumerate(header)
        if cell.endswith(" money")
    }
    value = Decimal(game["rules"].get("point_value", "0"))
    if game["format"] not in ("points", "basic") or not value:
        assert not money_at
        return
    # Where the example's settlement (worked out by hand) leaves each player.
    net = {p["name"]: Decimal(0) for p in doc["state"]["players"]}
    for pay in doc["state"]["settlement"]:
        net[pay["from"]] -= Decimal(pay["amount"])
        net[pay["to"]] += Decimal(pay["amount"])
    last = {name: rows[-1][index] for name, index in money_at.items()}
    if game["format"] == "basic" and doc["state"]["status"] != "finished":
        assert set(last.values()) == {""}
    else:
        assert {name: Decimal(cell) for name, cell in last.items()} == net


@settings(max_examples=150, deadline=None)
@given(random_game())
def test_round_trip_random_histories(drawn):
    fmt, game_rules, players, first, history = drawn
    game, state = game_json.read(
        {
            "schema": game_json.SCHEMA,
            "format": fmt,
            "rules": game_rules,
            "players": players,
            "first_dealer": first,
            "history": history,
        }
    )
    round_trip(game, state)


# Any name a game can have: control characters are refused by the rules.
LETTERS = st.characters(blacklist_categories=("Cs", "Cc", "Cf"))


def _names():
    letters = LETTERS
    raw = st.text(letters, min_size=1, max_size=40).map(lambda s: " ".join(s.split())[:30].strip())
    name = raw.filter(bool)
    return st.lists(name, min_size=2, max_size=4, unique_by=str.casefold)


@settings(max_examples=150, deadline=None)
@given(_names(), st.text(LETTERS, max_size=80))
def test_round_trip_any_names(names, game_name):
    results = {n: "first_drop" for n in names if n != names[1]}
    history = [{"type": "deal", "winner": names[1], "results": results}, {"type": "end"}]
    game, state = make("points", history, players=names, name=game_name, first=names[-1])
    round_trip(game, state)


# ---------------------------------------------------------------- the layout


def test_one_row_per_deal_and_a_column_per_player():
    game, state = pool_game()
    rows = table(write_csv(game, state))
    assert rows[0] == ["schema", "rummy-tracker.game/1"]
    assert rows[1] == ["game", "Sunday pool at Nani's"]
    assert rows[2] == ["format", "pool"]
    assert rows[3] == ["players", *PLAYERS]
    assert rows[4] == ["first dealer", "Asha"]
    assert rows[5:18] == POOL_RULE_ROWS
    assert rows[18] == []
    assert rows[19] == [
        "event", "deal", "dealer", "winner", "detail",
        "Asha result", "Ravi result", "Meena result", "Kiran result",
        "Asha total", "Ravi total", "Meena total", "Kiran total",
    ]  # fmt: skip
    assert rows[20:] == [
        ["deal", "1", "Asha", "Asha", "", "", "34", "first_drop", "middle_drop",
         "0", "34", "20", "40"],
        ["deal", "2", "Ravi", "Ravi", "out: Kiran", "10", "", "30", "80", "10", "34", "50", "120"],
        ["rejoin", "", "", "", "Kiran", "", "", "", "", "10", "34", "50", "51"],
        ["deal", "3", "Meena", "Meena", "out: Ravi", "5", "80", "", "2", "15", "114", "50", "53"],
        ["split", "", "", "", "custom", "100.00", "", "100.50", "49.50", "15", "114", "50", "53"],
    ]  # fmt: skip
    deal_rows = [row for row in rows[20:] if row[0] == "deal"]
    assert len(deal_rows) == 3
    assert all(len(row) == 5 + 2 * len(PLAYERS) for row in rows[19:])


def test_each_rule_is_a_row_read_back_as_the_rule_takes_it():
    text = write_csv(*make("pool", [], game_rules={"pool_limit": 201, "max_rejoins": 1}))
    assert table(text)[5:18] == [
        ["rule pool_limit", "201"],
        ["rule out_at", "reach"],
        ["rule first_drop", "25"],  # 201: drops 25/50, cap 80 (rules.md)
        ["rule middle_drop", "50"],
        ["rule full_count", "80"],
        ["rule wrong_show", "80"],
        ["rule ace_value", "10"],
        ["rule entry_fee", "0"],
        ["rule rejoin", "true"],
        ["rule rejoin_cutoff", "174"],
        ["rule max_rejoins", "1"],
        ["rule max_drops", "none"],
        ["rule money_unit", "0.01"],
    ]
    assert read_csv(text)["rules"] == {
        "pool_limit": 201,
        "out_at": "reach",
        "first_drop": 25,
        "middle_drop": 50,
        "full_count": 80,
        "wrong_show": 80,
        "ace_value": 10,
        "entry_fee": "0",
        "rejoin": True,
        "rejoin_cutoff": 174,
        "max_rejoins": 1,
        "max_drops": None,
        "money_unit": "0.01",
    }


def test_basic_rules_rows_and_a_table_that_changed_a_house_rule():
    game_rules = {"target": None, "deal_count": 5, "going_rummy": "off"}
    text = write_csv(*make("basic", [], game_rules=game_rules))
    assert table(text)[5:12] == [
        ["rule scoring", "winner_collects"],
        ["rule target", "none"],
        ["rule deal_count", "5"],
        ["rule going_rummy", "off"],
        ["rule point_value", "0"],
        ["rule money_unit", "0.01"],
        [],
    ]
    # The calculator's house rules a table changed follow the format's own.
    text = write_csv(*make("points", [], game_rules={"hand_count": "except_pure"}))
    assert table(text)[5:14] == [
        ["rule point_value", "1"],
        ["rule first_drop", "20"],
        ["rule middle_drop", "40"],
        ["rule full_count", "80"],
        ["rule wrong_show", "80"],
        ["rule ace_value", "10"],
        ["rule money_unit", "0.01"],
        ["rule hand_count", "except_pure"],
        [],
    ]


def test_a_hand_made_rule_row_may_be_worded_as_a_family_types_it():
    text = to_text(
        [
            ["schema", "rummy-tracker.game/1"],
            ["format", "pool"],
            ["players", "Asha", "Ravi"],
            ["Rule Pool Limit", "201"],
            ["rule rejoin", "FALSE"],  # as a spreadsheet saves it
            ["rule max_drops", ""],
            ["event", "winner", "detail", "Asha result", "Ravi result"],
        ]
    )
    game, _ = load_csv(text)
    assert game["rules"]["pool_limit"] == 201
    assert game["rules"]["first_drop"] == 25  # the 201 default, no row for it
    assert game["rules"]["rejoin"] is False
    assert game["rules"]["max_drops"] is None


# ---------------------------------------------------------------- the money columns


def test_a_points_sheet_has_each_players_money_after_every_event():
    history = [
        deal("Meena", Asha=12, Ravi="first_drop", Kiran="full_count"),
        deal("Asha", Ravi=0, Meena="wrong_show", Kiran=2),
        {"type": "end"},
    ]
    game, state = make("points", history, game_rules={"point_value": "0.25"})
    rows = table(round_trip(game, state))
    assert rows[13][-4:] == ["Asha money", "Ravi money", "Meena money", "Kiran money"]
    # Deal 1: Meena wins 12 + 20 + 80 = 112 points; balances -12, -20, 112, -80.
    # At 0.25 a point: -3.00, -5.00, 28.00, -20.00.
    # Deal 2: Asha wins 0 + 80 + 2 = 82: balances 70, -20, 32, -82,
    # in money 17.50, -5.00, 8.00, -20.50 (they add up to 0). The end changes nothing.
    assert [row[-4:] for row in rows[14:]] == [
        ["-3.00", "-5.00", "28.00", "-20.00"],
        ["17.50", "-5.00", "8.00", "-20.50"],
        ["17.50", "-5.00", "8.00", "-20.50"],
    ]
    assert [len(row) for row in rows[13:]] == [5 + 3 * 4] * 4


def test_a_basic_sheet_has_the_money_on_the_row_that_ends_the_game():
    history = [
        deal("Asha", Ravi=10, Meena=20),
        deal("Ravi", Asha=5, Meena=15),
        deal("Asha", Ravi=8, Meena=12),
    ]
    game_rules = {"target": 50, "point_value": "0.25"}
    game, state = make("basic", history, players=["Asha", "Ravi", "Meena"], game_rules=game_rules)
    rows = table(round_trip(game, state))
    assert rows[12][-3:] == ["Asha money", "Ravi money", "Meena money"]
    # Winner collects: Asha 30, Ravi 20, then Asha 30 + 8 + 12 = 50 reaches the
    # target and wins. Each loser pays the difference x 0.25: Ravi (50 - 20) x 0.25
    # = 7.50, Meena (50 - 0) x 0.25 = 12.50; Asha gets 20.00. Before the end
    # nobody has paid anything.
    assert [row[-6:] for row in rows[13:]] == [
        ["30", "0", "0", "", "", ""],
        ["30", "20", "0", "", "", ""],
        ["50", "20", "0", "20.00", "-7.50", "-12.50"],
    ]


def test_a_basic_sheet_in_penalty_scoring_pays_by_the_lowest_total():
    history = [deal("Asha", Ravi=30, Meena=60), deal("Ravi", Asha=25, Meena=50)]
    game_rules = {"scoring": "penalty", "target": 100, "point_value": "2", "money_unit": "1"}
    game, state = make("basic", history, players=["Asha", "Ravi", "Meena"], game_rules=game_rules)
    rows = table(round_trip(game, state))
    # Penalty: each loser adds their own count: Asha 25, Ravi 30, Meena 110 reaches
    # 100 and ends it; the lowest, Asha, wins. Ravi pays (30 - 25) x 2 = 10,
    # Meena (110 - 25) x 2 = 170; Asha gets 180. Money is written with two places.
    assert rows[-1][-6:] == ["25", "30", "110", "180.00", "-10.00", "-170.00"]


def test_no_money_columns_in_pool_deals_or_a_game_played_for_fun():
    for fmt, game_rules in [
        ("pool", {"entry_fee": "50"}),
        ("deals", {"entry_fee": "50"}),
        ("points", {"point_value": "0"}),
        ("basic", {}),  # point value 0 by default
    ]:
        game, state = make(fmt, [deal("Asha", Ravi=20, Meena=20, Kiran=20)], game_rules=game_rules)
        header = next(row for row in table(round_trip(game, state)) if row[:1] == ["event"])
        assert header[-1] == "Kiran total", fmt


def test_results_come_back_as_ints_and_words():
    game, state = pool_game()
    first = read_csv(write_csv(game, state))["history"][0]["results"]
    assert first == {"Ravi": 34, "Meena": "first_drop", "Kiran": "middle_drop"}
    assert type(first["Ravi"]) is int


def test_a_hand_made_file_may_leave_out_what_the_tracker_works_out():
    text = to_text(
        [
            ["schema", "rummy-tracker.game/1"],
            ["format", "points"],
            ["players", "Asha", "Ravi"],
            ["event", "winner", "detail", "Asha result", "Ravi result"],
            ["deal", "Asha", "", "", "First drop"],
            ["deal", "Ravi", "", " 12 ", ""],
        ]
    )
    game, state = load_csv("\ufeff" + text + ",,,,\r\n")
    assert game["history"] == [deal("Asha", Ravi="first_drop"), deal("Ravi", Asha=12)]
    assert game["name"] == "Points rummy"
    assert [p.balance for p in state.players] == [8, -8]


def test_spreadsheet_padding_is_ignored():
    game, state = pool_game()
    rows = table(write_csv(game, state))
    padded = [row + [""] * (16 - len(row)) for row in rows]
    assert read_csv(to_text(padded)) == game


# ---------------------------------------------------------------- refusals


def edit(text, row, column, value):
    """Set the cell at a 1-based row and a column letter."""
    rows = table(text)
    cells = rows[row - 1]
    index = ord(column) - ord("A")
    cells.extend([""] * (index + 1 - len(cells)))
    cells[index] = value
    return to_text(rows)


def refused(text):
    with pytest.raises(rules.RuleError) as caught:
        read_csv(text)
    message = str(caught.value)
    assert "\n" not in message
    return message


def good():
    return write_csv(*pool_game())


@pytest.mark.parametrize(
    ("row", "column", "value", "words"),
    [
        (1, "B", "rummy-tracker.game/2", "row 1, column B: schema must be"),
        (3, "A", "colour", "row 3, column A: 'colour' is not a key"),
        (6, "A", "rule", "row 6, column A: 'rule' is not a key"),
        (6, "A", "rule_", "row 6, column A: 'rule_' is not a key"),
        (13, "A", "rule pool_limit", "row 13, column A: 'rule pool_limit' is given twice"),
        (13, "C", "60", "row 13, column C: rule entry_fee takes one value, in column B"),
        (2, "C", "Sunday", "row 2, column C: game takes one value"),
        (20, "N", "bonus", "row 20, column N: 'bonus' is not a column"),
        (20, "G", "Asha result", "row 20, column G: 'Asha result' is a column twice"),
        (21, "G", "3x4", "row 21, column G (Ravi result): '3x4' is not a result"),
        (21, "G", "12.5", "row 21, column G (Ravi result): '12.5' is not a result"),
        (21, "H", "drop", "row 21, column H (Meena result): 'drop' is not a result"),
        (21, "K", "thirty", "row 21, column K (Ravi total): 'thirty' is not a whole number"),
        (22, "B", "two", "row 22, column B (deal): 'two' is not a whole number"),
        (21, "A", "deals", "row 21, column A (event): 'deals' is not an event"),
        (21, "A", "", "row 21, column A (event): the event is missing"),
        (21, "D", "", "row 21, column D (winner): a deal needs its winner"),
        (21, "N", "7", "row 21, column N: this cell is past the last column"),
        (23, "E", "", "row 23, column E (detail): a rejoin row names the player"),
        (23, "D", "Kiran", "row 23, column D (winner): a rejoin row has no winner"),
        (23, "F", "20", "row 23, column F (Asha result): a rejoin row has no results"),
        (25, "E", "half", "row 25, column E (detail): 'half' is not a split method"),
        (25, "F", "lots", "row 25, column F (Asha result): 'lots' is not an amount"),
        (4, "C", "", "row 4, column C: a player needs a name"),
        (4, "D", "asha", "row 4, column D: asha is in the players row twice"),
    ],
)
def test_malformed_cells_are_refused_naming_row_and_column(row, column, value, words):
    assert words in refused(edit(good(), row, column, value))


def test_a_missing_result_column_is_refused():
    rows = table(good())
    rows = [row[:6] + row[7:] if len(row) > 6 else row for row in rows]
    assert rows[3] == ["players", *PLAYERS]
    assert "row 20: the 'Ravi result' column is missing" in refused(to_text(rows))


def test_files_that_are_not_ours_are_refused():
    assert "row 1: not a game CSV of this tracker" in refused("name,score\r\nAsha,3\r\n")
    assert "row 1: the file is empty" in refused("")
    assert "row 1: the file is empty" in refused("\r\n,,\r\n")
    message = refused("schema,rummy-tracker.game/1\r\nformat,pool\r\nplayers,A,B\r\n")
    assert "the table of events is missing" in message
    message = refused("schema,rummy-tracker.game/1\r\nevent,winner,detail\r\n")
    assert "row 2: the players row must come before the table" in message
    assert "not a CSV file" in refused('schema,rummy-tracker.game/1\r\ngame,"Sunday\r\n')
    with pytest.raises(rules.RuleError, match="a game CSV is text"):
        read_csv(b"schema,rummy-tracker.game/1")


def test_end_rows_take_nothing_more():
    game, state = make("points", [deal("Asha", Ravi=5, Meena=5, Kiran=5), {"type": "end"}])
    text = write_csv(game, state)
    assert "row 16, column E (detail): an end row has no detail" in refused(
        edit(text, 16, "E", "x")
    )
    assert "row 16, column G (Ravi result): an end row has no results" in refused(
        edit(text, 16, "G", "5")
    )


def test_a_money_cell_must_be_an_amount():
    game, state = make("points", [deal("Asha", Ravi=5, Meena=5, Kiran=5)])
    text = write_csv(game, state)
    assert table(text)[13][13] == "Asha money"  # row 14, column N
    assert "row 15, column N (Asha money): 'lots' is not an amount" in refused(
        edit(text, 15, "N", "lots")
    )
    # The money is worked out again from the history: a changed amount is ignored.
    assert read_csv(edit(text, 15, "N", "1000")) == game


def test_load_csv_names_the_row_of_a_refused_event():
    text = edit(good(), 21, "G", "1")  # a 1 when aces are worth 10
    with pytest.raises(rules.RuleError) as caught:
        load_csv(text)
    assert str(caught.value) == (
        "row 21 (deal 1), column G (Ravi result): points must be 0 or between 2 and 80"
    )
    text = edit(good(), 21, "D", "Zoya")
    with pytest.raises(rules.RuleError, match=r"^row 21 \(deal 1\), column D \(winner\): Zoya"):
        load_csv(text)
    text = edit(good(), 23, "E", "Asha")
    with pytest.raises(rules.RuleError, match=r"^row 23 \(rejoin\), column E \(detail\): Asha"):
        load_csv(text)


def load_refused(text):
    with pytest.raises(rules.RuleError) as caught:
        load_csv(text)
    return str(caught.value)


@pytest.mark.parametrize(
    ("row", "column", "value", "message"),
    [
        (8, "B", "0", "row 8, column B (rule first_drop): first drop must be at least 1 in pool"),
        (6, "B", "101.5", "row 6, column B (rule pool_limit): pool limit must be a whole number"),
        (6, "B", "none", "row 6, column B (rule pool_limit): pool limit must be a whole number"),
        (14, "B", "yes", "row 14, column B (rule rejoin): rejoin must be true or false"),
        (7, "B", "over", "row 7, column B (rule out_at): out at must be reach or exceed"),
        (
            13,
            "B",
            "1E+5",
            "row 13, column B (rule entry_fee): entry fee must be a plain amount such as 0.25, "
            "digits 0-9",
        ),
        (18, "B", "5", "row 18, column B (rule money_unit): money unit must be 0.01 or 1"),
        (6, "A", "rule colour", "row 6, column A: colour is not a rule of pool rummy"),
    ],
)
def test_load_csv_names_the_row_and_column_of_a_refused_rule(row, column, value, message):
    assert load_refused(edit(good(), row, column, value)) == message


def test_load_csv_names_the_row_of_a_refused_setting():
    long = "R" * 31
    text = to_text(
        [
            ["schema", "rummy-tracker.game/1"],
            ["format", "points"],
            ["players", "Asha", long],
            ["event", "winner", "detail", "Asha result", f"{long} result"],
        ]
    )
    with pytest.raises(rules.RuleError, match=r"^row 3, column C: players\[1\]: player 2's"):
        load_csv(text)
    with pytest.raises(rules.RuleError, match=r"^row 3, column B: format must be"):
        load_csv(edit(good(), 3, "B", "rummy"))


# ---------------------------------------------------------------- files saved before rule rows


# The pool game above as the tracker wrote it before the rules had a row each:
# every rule in one JSON cell on row 4, and no money columns.
OLD_POOL = (
    "schema,rummy-tracker.game/1\r\n"
    "game,Sunday pool at Nani's\r\n"
    "format,pool\r\n"
    'rules,"{""pool_limit"": 101, ""out_at"": ""reach"", ""first_drop"": 20, '
    '""middle_drop"": 40, ""full_count"": 80, ""wrong_show"": 80, ""ace_value"": 10, '
    '""entry_fee"": ""50"", ""rejoin"": true, ""rejoin_cutoff"": 79, ""max_rejoins"": null, '
    '""max_drops"": null, ""money_unit"": ""0.01""}"\r\n'
    "players,Asha,Ravi,Meena,Kiran\r\n"
    "first dealer,Asha\r\n"
    "\r\n"
    "event,deal,dealer,winner,detail,Asha result,Ravi result,Meena result,Kiran result,"
    "Asha total,Ravi total,Meena total,Kiran total\r\n"
    "deal,1,Asha,Asha,,,34,first_drop,middle_drop,0,34,20,40\r\n"
    "deal,2,Ravi,Ravi,out: Kiran,10,,30,80,10,34,50,120\r\n"
    "rejoin,,,,Kiran,,,,,10,34,50,51\r\n"
    "deal,3,Meena,Meena,out: Ravi,5,80,,2,15,114,50,53\r\n"
    "split,,,,custom,100,,100.50,49.50,15,114,50,53\r\n"
)

# A points game at 0.25 a point as the tracker wrote it then (rules partly given).
OLD_POINTS = (
    "schema,rummy-tracker.game/1\r\n"
    "game,Saturday points\r\n"
    "format,points\r\n"
    'rules,"{""point_value"": ""0.25""}"\r\n'
    "players,Asha,Ravi\r\n"
    "first dealer,Asha\r\n"
    "\r\n"
    "event,deal,dealer,winner,detail,Asha result,Ravi result,Asha total,Ravi total\r\n"
    "deal,1,Asha,Ravi,,40,,-40,40\r\n"
)


def test_a_file_saved_with_the_rules_in_one_cell_still_imports():
    game, state = load_csv(OLD_POOL)
    assert game == pool_game()[0]
    assert [p.total for p in state.players] == [15, 114, 50, 53]
    assert state.split == {"Asha": 100, "Meena": Decimal("100.50"), "Kiran": Decimal("49.50")}
    game, state = load_csv(OLD_POINTS)
    assert game["rules"]["point_value"] == "0.25"
    assert game["rules"]["first_drop"] == 20  # the default, filled in
    # Written again, it has a row per rule and the money: 40 points x 0.25 = 10.00.
    rows = table(write_csv(game, state))
    assert rows[5] == ["rule point_value", "0.25"]
    assert rows[-1][-2:] == ["-10.00", "10.00"]


@pytest.mark.parametrize(
    ("row", "column", "value", "words"),
    [
        (4, "B", "{pool_limit: 101}", "row 4, column B: the rules are not JSON"),
        (4, "B", "[1, 2]", "row 4, column B: the rules must be a JSON object"),
    ],
)
def test_a_bad_rules_cell_is_refused_naming_row_and_column(row, column, value, words):
    assert words in refused(edit(OLD_POOL, row, column, value))


def test_a_rule_given_in_the_rules_cell_and_again_is_refused():
    text = OLD_POOL.replace("players,", "rules,{}\r\nplayers,")
    assert "row 5, column A: 'rules' is given twice" in refused(text)
    text = OLD_POOL.replace("players,", "rule entry_fee,60\r\nplayers,")
    assert "row 5, column A: 'rule entry_fee' is given twice" in refused(text)
    schema = "schema,rummy-tracker.game/1\r\n"
    text = OLD_POOL.replace(schema, schema + "rule rejoin,false\r\n")
    assert "row 5, column B: 'rule rejoin' is given twice" in refused(text)


def test_load_csv_names_the_rules_cell_of_a_refused_rule():
    game, _ = pool_game()
    bad_rules = json.dumps({**game["rules"], "first_drop": 0})
    with pytest.raises(rules.RuleError, match=r"^row 4, column B: rules.first_drop: "):
        load_csv(edit(OLD_POOL, 4, "B", bad_rules))


# ---------------------------------------------------------------- formula injection


def test_formula_injection_guard():
    names = ["=SUM(A1:A9)", "+91 Ravi", "-Meena", "@Kiran", "'=quoted", "'Tis"]
    history = [
        deal("=SUM(A1:A9)", **{n: 80 if n == "-Meena" else 2 for n in names[1:]}),
        deal("+91 Ravi", **{n: 30 if n == "-Meena" else 2 for n in names if n != "+91 Ravi"}),
        {"type": "rejoin", "player": "-Meena"},
    ]
    game, state = make(
        "pool", history, players=names, name='=HYPERLINK("http://x")', first="@Kiran"
    )
    text = round_trip(game, state)
    rows = table(text)
    assert rows[1] == ["game", '\'=HYPERLINK("http://x")']
    assert rows[3] == [
        "players",
        "'=SUM(A1:A9)",
        "'+91 Ravi",
        "'-Meena",
        "'@Kiran",
        "''=quoted",
        "'Tis",
    ]
    assert rows[4] == ["first dealer", "'@Kiran"]
    assert rows[19][5] == "'=SUM(A1:A9) result"  # the header, after 13 rule rows
    assert rows[20][2:4] == ["'@Kiran", "'=SUM(A1:A9)"]
    assert rows[21][4] == "out: -Meena"
    assert rows[22][4] == "'-Meena"
    # No cell starts a formula, except numbers.
    for row in rows:
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@"):
                assert re.fullmatch(r"-[0-9]+", cell)


def test_formula_injection_guard_in_the_money_columns():
    names = ["=Asha", "-Ravi"]
    history = [deal("=Asha", **{"-Ravi": 30}), deal("-Ravi", **{"=Asha": 10})]
    game, state = make("points", history, players=names, game_rules={"point_value": "0.50"})
    rows = table(round_trip(game, state))
    assert rows[13][-2:] == ["'=Asha money", "'-Ravi money"]
    # Balances 30 then 20 for =Asha: at 0.50, 15.00 then 10.00; -Ravi pays as much.
    assert [row[-2:] for row in rows[14:]] == [["15.00", "-15.00"], ["10.00", "-10.00"]]


@given(st.text())
def test_guard_is_undone_by_unguard(text):
    cell = guard(text)
    assert unguard(cell) == text
    assert not cell.startswith(("=", "+", "-", "@"))
