"""A replayed state as the shared cache keeps it: pickled, read back, played on.

The web pages keep each revision's state (views._keep_state) and every
worker reads it back instead of replaying the history. What it reads back
must be the same game: the same figures, the same rows, and the next deal
scored as if nothing had been kept. The figures are the worked examples'
own (shared/docs/examples), not the engine's. Public engine API only, no
database.
"""

import dataclasses
import pickle

import pytest

from tracker.rules import GameState, apply, replay
from tracker.rules.state import KEPT_ROWS

from .conftest import example_paths, input_part, load_example
from .events import deal, sit_in, sit_out


def replayed(doc, upto=None):
    game = input_part(doc)
    history = game["history"] if upto is None else game["history"][:upto]
    return replay(game["format"], game["rules"], game["players"], history, game["first_dealer"])


def kept(state):
    return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))


def same_game(document, doc):
    """`document` has the worked example's figures; of the settlement, the same
    payments as the example's replay (another set as short is right too)."""
    want = dict(doc["state"])
    got = dict(document)
    if "settlement" in want:
        assert got.pop("settlement") == replayed(doc).document()["settlement"]
        want.pop("settlement")
    assert got == want


def fields(state):
    """The state's fields, every row read, its format object by name (an
    unpickled one is a copy)."""
    assert isinstance(state.rows, list)  # a kept state reads its older rows now
    found = dict(vars(state))
    found["spec"] = found["spec"].name
    return found


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_a_kept_state_reads_back_as_the_worked_example(path):
    doc = load_example(path)
    back = kept(replayed(doc))
    same_game(back.document(), doc)
    assert len(back.rows) == len(doc["history"])
    assert [row.index for row in back.rows] == list(range(len(doc["history"])))


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_the_last_event_played_on_a_kept_state_gives_the_worked_example(path):
    doc = load_example(path)
    back = kept(replayed(doc, upto=-1))
    apply(back, doc["history"][-1])
    same_game(back.document(), doc)


@pytest.mark.parametrize("upto", [0, 1, 2, None], ids=["no events", "one", "two", "all"])
def test_a_kept_state_is_the_same_state(upto):
    doc = load_example(example_paths()[0])
    state = replayed(doc, upto)
    back = kept(state)
    assert fields(back) == fields(state)
    assert back.rows == state.rows


def test_a_state_kept_with_every_row_as_its_values_still_reads_back():
    """A cache may still hold a state pickled before its older rows were kept apart."""
    doc = load_example(example_paths()[0])
    state = replayed(doc)
    before = dict(vars(state))
    before["rows"] = [dataclasses.astuple(row) for row in state.rows]
    old = GameState.__new__(GameState)
    old.__setstate__(before)  # what unpickling that form does
    assert fields(old) == fields(state)
    same_game(old.document(), doc)


def test_a_state_kept_with_its_rows_as_objects_still_reads_back():
    """A cache may still hold a state pickled before rows were kept as tuples."""
    doc = load_example(example_paths()[0])
    state = replayed(doc)
    old = GameState.__new__(GameState)
    old.__setstate__(dict(vars(state)))  # what unpickling the old form does
    assert fields(old) == fields(state)
    same_game(old.document(), doc)


def test_a_game_kept_and_read_back_after_every_deal_has_every_row():
    """As the pages do: each deal is played on the state kept for the revision
    before it, and the new state kept. Asha wins every deal and Ravi, Meena and
    Kiran lose 10, 20 and 30: after deal k the balances are +60k, -10k, -20k, -30k."""
    deals = 5 * KEPT_ROWS + 3  # the newest rows move to older runs four times
    state = replay("points", {}, ["Asha", "Ravi", "Meena", "Kiran"], [])
    for k in range(1, deals + 1):
        state = kept(state)
        assert "rows" not in vars(state) and state.row_count == k - 1
        apply(state, deal("Asha", Ravi=10, Meena=20, Kiran=30))
        assert "rows" not in vars(state)  # the deal was played without the older rows
        assert state.row_count == state.version == k
        assert state.recent_rows(1)[0].totals == {
            "Asha": 60 * k,
            "Ravi": -10 * k,
            "Meena": -20 * k,
            "Kiran": -30 * k,
        }
    back = kept(state)
    assert [row.number for row in back.recent_rows(12)] == list(range(deals - 11, deals + 1))
    assert "rows" not in vars(back)  # the newest twelve came without the older rows
    assert [row.index for row in back.rows] == list(range(deals))  # now every row is read
    assert [row.totals["Kiran"] for row in back.rows] == [-30 * k for k in range(1, deals + 1)]
    assert back.row_count == deals and len(back.recent_rows(deals + 5)) == deals
    assert back.recent_rows(0) == []
    assert [p.balance for p in back.players] == [60 * deals, -10 * deals, -20 * deals, -30 * deals]


def test_the_newest_rows_asked_for_beyond_those_kept_apart_reads_the_older_ones():
    history = [deal("Asha", Ravi=k) for k in range(2, 42)]
    back = kept(replay("points", {}, ["Asha", "Ravi"], history))
    assert len(vars(back)["_newest"]) < 40  # the older rows were kept apart
    assert [row.results["Ravi"] for row in back.recent_rows(40)] == list(range(2, 42))
    assert "rows" in vars(back)


def test_a_row_added_to_a_state_with_every_row_read_is_kept_with_them():
    history = [deal("Asha", Ravi=k) for k in range(2, 22)]
    state = kept(replay("points", {}, ["Asha", "Ravi"], history))
    assert len(state.rows) == 20  # every row read
    apply(state, deal("Ravi", Asha=7))
    back = kept(state)
    assert back.row_count == 21 and back.recent_rows(1)[0].winner == "Ravi"
    assert [row.number for row in back.rows] == list(range(1, 22))


def test_a_state_without_rows_answers_no_other_missing_attribute():
    state = kept(replay("points", {}, ["Asha", "Ravi"], []))
    with pytest.raises(AttributeError, match="no_such_thing"):
        state.no_such_thing  # noqa: B018
    with pytest.raises(AttributeError, match=r"^rows$"):
        GameState.__new__(GameState).rows  # noqa: B018


def test_the_newest_rows_read_back_are_kept_again_as_the_bytes_they_were_read_as():
    """A deal played on a state read back pickles its own row only: the newest
    rows read back are kept again as the same bytes, in their order."""
    history = [deal("Asha", Ravi=k) for k in range(2, 2 + KEPT_ROWS + 3)]
    back = kept(replay("points", {}, ["Asha", "Ravi"], history))
    read = vars(back)["_newest_kept"]
    assert len(read) == KEPT_ROWS and all(isinstance(row, bytes) for row in read)
    apply(back, deal("Ravi", Asha=7))
    kept_again = back.__getstate__()
    assert "_newest_kept" not in kept_again  # the bytes are kept once, as the newest rows
    again = kept_again["_newest"]
    assert again[:-1] == list(read) and all(a is b for a, b in zip(again, read, strict=False))
    assert pickle.loads(again[-1])[2] == KEPT_ROWS + 4  # the new deal's own row: its number
    assert [row.results for row in kept(back).rows][-2:] == [{"Ravi": 16}, {"Asha": 7}]


def test_a_state_kept_with_its_newest_rows_as_values_still_reads_back():
    """A cache may still hold a state pickled before each newest row was pickled
    on its own: its newest rows as the tuples of their values."""
    history = [deal("Asha", Ravi=k) for k in range(2, 2 + 2 * KEPT_ROWS + 5)]
    state = replay("points", {}, ["Asha", "Ravi"], history)
    before = state.__getstate__()
    before["_newest"] = [pickle.loads(row) for row in before["_newest"]]
    old = GameState.__new__(GameState)
    old.__setstate__(before)  # what unpickling that form does
    assert "_newest_kept" not in vars(old)
    apply(old, deal("Ravi", Asha=3))
    back = kept(old)
    assert [row.results.get("Ravi") for row in back.rows][:-1] == list(range(2, 2 + len(history)))
    assert back.recent_rows(1)[0].results == {"Asha": 3}
    assert fields(kept(state)) == fields(state)


def test_a_state_read_back_unpickles_only_the_newest_rows_asked_for():
    """A watcher's board asks for the newest twelve rows, a save for its own
    row: the other newest rows stay as the bytes they were read back as."""
    history = [deal("Asha", Ravi=k) for k in range(2, 2 + KEPT_ROWS + 8)]
    back = kept(replay("points", {}, ["Asha", "Ravi"], history))
    newest = vars(back)["_newest"]
    assert len(newest) == KEPT_ROWS and all(isinstance(row, bytes) for row in newest)
    assert [row.results for row in back.recent_rows(2)] == [{"Ravi": 20}, {"Ravi": 21}]
    assert [isinstance(row, bytes) for row in newest] == [True] * (KEPT_ROWS - 2) + [False] * 2
    assert [row.number for row in back.recent_rows(KEPT_ROWS)] == list(range(9, 21))
    assert not any(isinstance(row, bytes) for row in newest)
    again = kept(back)  # kept again after some rows were read: the same rows
    assert [row.results["Ravi"] for row in again.rows] == list(range(2, 22))
    half = kept(kept(replay("points", {}, ["Asha", "Ravi"], history[:-1])))
    apply(half, history[-1])  # a deal played without a row read, then every row read
    assert [row.results["Ravi"] for row in half.rows] == list(range(2, 22))


def test_a_state_counts_its_newest_deals_through_other_events_and_keeping():
    """How many of the newest rows are deals, back from the last: the game screen
    answers a deal with a step only when the rows it shows are all deals."""
    players = ["Asha", "Ravi", "Meena"]
    state = replay("points", {}, players, [])
    assert state.newest_deals == 0
    apply(state, deal("Asha", Ravi=10, Meena=20))
    apply(state, deal("Ravi", Asha=5, Meena=5))
    assert state.newest_deals == 2
    apply(state, sit_out("Meena"))  # not a deal: the count starts again
    assert state.newest_deals == 0
    apply(state, deal("Asha", Ravi=30))
    state = kept(state)
    assert state.newest_deals == 1
    apply(state, sit_in("Meena"))
    apply(state, deal("Meena", Asha=2, Ravi=3))
    apply(state, deal("Meena", Asha=4, Ravi=6))
    assert kept(state).newest_deals == 2
    again = replay("points", {}, players, [deal("Asha", Ravi=k, Meena=k) for k in range(2, 40)])
    assert again.newest_deals == 38 and kept(again).newest_deals == 38
    older = kept(again).__getstate__()
    del older["newest_deals"]  # a state kept before its deals were counted
    read = GameState.__new__(GameState)
    read.__setstate__(older)
    assert read.newest_deals == 0  # as far as it can tell: not all deals
