"""A replayed state as the shared cache keeps it: pickled, read back, played on.

The web pages keep each revision's state (views._keep_state) and every
worker reads it back instead of replaying the history. What it reads back
must be the same game: the same figures, the same rows, and the next deal
scored as if nothing had been kept. The figures are the worked examples'
own (shared/docs/examples), not the engine's. Public engine API only, no
database.
"""

import pickle

import pytest

from tracker.rules import GameState, apply, replay

from .conftest import example_paths, input_part, load_example


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
    """The state's fields, its format object by name (an unpickled one is a copy)."""
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


def test_a_state_kept_with_its_rows_as_objects_still_reads_back():
    """A cache may still hold a state pickled before rows were kept as tuples."""
    doc = load_example(example_paths()[0])
    state = replayed(doc)
    old = GameState.__new__(GameState)
    old.__setstate__(dict(vars(state)))  # what unpickling the old form does
    assert fields(old) == fields(state)
    same_game(old.document(), doc)
