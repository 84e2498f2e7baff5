"""The game as CSV and back (tracker.sheet): pure, no database."""

import csv
import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker import rules
from tracker.documents import game_json
from tracker.documents.game_csv import guard, load_csv, read_csv, unguard, write_csv

from .conftest import example_paths, input_part, load_example
from .events import deal
from .histories import game as random_game

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
    assert rows[-1] == ["end", "", "", "", "", "", "", "", "", "70", "-20", "32", "-82"]


def test_round_trip_without_deals():
    for fmt in rules.FORMATS:
        game, state = make(fmt, [])
        text = round_trip(game, state)
        assert table(text)[-1][0] == "event"


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_round_trip_worked_examples(path):
    game, state = game_json.read(input_part(load_example(path)))
    round_trip(game, state)


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
    assert rows[3][0] == "rules" and json.loads(rows[3][1]) == game["rules"]
    assert rows[4] == ["players", *PLAYERS]
    assert rows[5] == ["first dealer", "Asha"]
    assert rows[6] == []
    assert rows[7] == [
        "event", "deal", "dealer", "winner", "detail",
        "Asha result", "Ravi result", "Meena result", "Kiran result",
        "Asha total", "Ravi total", "Meena total", "Kiran total",
    ]  # fmt: skip
    assert rows[8:] == [
        ["deal", "1", "Asha", "Asha", "", "", "34", "first_drop", "middle_drop",
         "0", "34", "20", "40"],
        ["deal", "2", "Ravi", "Ravi", "out: Kiran", "10", "", "30", "80", "10", "34", "50", "120"],
        ["rejoin", "", "", "", "Kiran", "", "", "", "", "10", "34", "50", "51"],
        ["deal", "3", "Meena", "Meena", "out: Ravi", "5", "80", "", "2", "15", "114", "50", "53"],
        ["split", "", "", "", "custom", "100", "", "100.50", "49.50", "15", "114", "50", "53"],
    ]  # fmt: skip
    deal_rows = [row for row in rows[8:] if row[0] == "deal"]
    assert len(deal_rows) == 3
    assert all(len(row) == 5 + 2 * len(PLAYERS) for row in rows[7:])


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
        (4, "B", "{pool_limit: 101}", "row 4, column B: the rules are not JSON"),
        (4, "B", "[1, 2]", "row 4, column B: the rules must be a JSON object"),
        (2, "C", "Sunday", "row 2, column C: game takes one value"),
        (8, "N", "bonus", "row 8, column N: 'bonus' is not a column"),
        (8, "G", "Asha result", "row 8, column G: 'Asha result' is a column twice"),
        (9, "G", "3x4", "row 9, column G (Ravi result): '3x4' is not a result"),
        (9, "G", "12.5", "row 9, column G (Ravi result): '12.5' is not a result"),
        (9, "H", "drop", "row 9, column H (Meena result): 'drop' is not a result"),
        (9, "K", "thirty", "row 9, column K (Ravi total): 'thirty' is not a whole number"),
        (10, "B", "two", "row 10, column B (deal): 'two' is not a whole number"),
        (9, "A", "deals", "row 9, column A (event): 'deals' is not an event"),
        (9, "A", "", "row 9, column A (event): the event is missing"),
        (9, "D", "", "row 9, column D (winner): a deal needs its winner"),
        (9, "N", "7", "row 9, column N: this cell is past the last column"),
        (11, "E", "", "row 11, column E (detail): a rejoin row names the player"),
        (11, "D", "Kiran", "row 11, column D (winner): a rejoin row has no winner"),
        (11, "F", "20", "row 11, column F (Asha result): a rejoin row has no results"),
        (13, "E", "half", "row 13, column E (detail): 'half' is not a split method"),
        (13, "F", "lots", "row 13, column F (Asha result): 'lots' is not an amount"),
        (5, "C", "", "row 5, column C: a player needs a name"),
        (5, "D", "asha", "row 5, column D: asha is in the players row twice"),
    ],
)
def test_malformed_cells_are_refused_naming_row_and_column(row, column, value, words):
    assert words in refused(edit(good(), row, column, value))


def test_a_missing_result_column_is_refused():
    rows = table(good())
    rows = [row[:6] + row[7:] if len(row) > 6 else row for row in rows]
    rows[4] = ["players", *PLAYERS]
    assert "row 8: the 'Ravi result' column is missing" in refused(to_text(rows))


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
    assert "row 10, column E (detail): an end row has no detail" in refused(
        edit(text, 10, "E", "x")
    )
    assert "row 10, column G (Ravi result): an end row has no results" in refused(
        edit(text, 10, "G", "5")
    )


def test_load_csv_names_the_row_of_a_refused_event():
    text = edit(good(), 9, "G", "1")  # a 1 when aces are worth 10
    with pytest.raises(rules.RuleError) as caught:
        load_csv(text)
    assert str(caught.value) == (
        "row 9 (deal 1), column G (Ravi result): points must be 0 or between 2 and 80"
    )
    text = edit(good(), 9, "D", "Zoya")
    with pytest.raises(rules.RuleError, match=r"^row 9 \(deal 1\), column D \(winner\): Zoya"):
        load_csv(text)
    text = edit(good(), 11, "E", "Asha")
    with pytest.raises(rules.RuleError, match=r"^row 11 \(rejoin\), column E \(detail\): Asha"):
        load_csv(text)


def test_load_csv_names_the_row_of_a_refused_setting():
    game, _ = pool_game()
    bad_rules = json.dumps({**game["rules"], "first_drop": 0})
    with pytest.raises(rules.RuleError, match=r"^row 4, column B: rules.first_drop: "):
        load_csv(edit(good(), 4, "B", bad_rules))
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
    assert rows[4] == [
        "players",
        "'=SUM(A1:A9)",
        "'+91 Ravi",
        "'-Meena",
        "'@Kiran",
        "''=quoted",
        "'Tis",
    ]
    assert rows[5] == ["first dealer", "'@Kiran"]
    assert rows[7][5] == "'=SUM(A1:A9) result"
    assert rows[8][2:4] == ["'@Kiran", "'=SUM(A1:A9)"]
    assert rows[9][4] == "out: -Meena"
    assert rows[10][4] == "'-Meena"
    # No cell starts a formula, except numbers.
    for row in rows:
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@"):
                assert re.fullmatch(r"-[0-9]+", cell)


@given(st.text())
def test_guard_is_undone_by_unguard(text):
    cell = guard(text)
    assert unguard(cell) == text
    assert not cell.startswith(("=", "+", "-", "@"))
