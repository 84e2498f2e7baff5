"""The game document through storage and the two commands."""

import json

import pytest
from django.core.management import CommandError
from hypothesis import HealthCheck, given, settings

from tests.commands.call import import_file, run
from tests.conftest import example_paths, input_part, load_example
from tests.histories import game as random_game
from tracker.documents import game_json
from tracker.models import Event, Game

pytestmark = pytest.mark.both_databases


@pytest.mark.django_db
@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_import_then_export_gives_back_the_example(path, tmp_path):
    doc = load_example(path)
    line = import_file(tmp_path, input_part(doc))
    game = Game.objects.get(pk=line["id"])
    assert line["edit_url"] == f"/g/{game.edit_token}/"
    assert line["view_url"] == f"/w/{game.view_token}/"
    assert game.events.count() == len(doc["history"])
    exported = json.loads(run("export_game", game.view_token))
    want = load_example(path)
    if "settlement" in want["state"]:
        assert len(exported["state"].pop("settlement")) == len(want["state"].pop("settlement"))
    assert exported == want
    # The edit token and the id find the same game.
    assert run("export_game", game.edit_token) == run("export_game", str(game.pk))


@pytest.mark.django_db
def test_missing_rules_are_filled_in_on_export(tmp_path):
    doc = {
        "schema": game_json.SCHEMA,
        "name": "Quick 201",
        "format": "pool",
        "rules": {"pool_limit": 201},
        "players": ["Asha", "Ravi"],
        "history": [{"type": "deal", "winner": "Asha", "results": {"Ravi": "first_drop"}}],
    }
    line = import_file(tmp_path, doc)
    exported = json.loads(run("export_game", str(line["id"])))
    assert exported["rules"]["first_drop"] == 25
    assert exported["rules"]["rejoin_cutoff"] == 174
    assert exported["first_dealer"] == "Asha"
    assert exported["state"]["players"][1]["total"] == 25


BAD_DOCUMENTS = [
    ({"schema": "other"}, "schema must be"),
    ({"rules": {"first_drop": 0}}, "rules.first_drop: first drop must be at least 1 in pool"),
    ({"players": ["Asha"]}, "players: a game needs at least 2 players"),
    ({"players": ["Asha", "ASHA"]}, "ASHA is at the table twice"),
    (
        {"history": [{"type": "deal", "winner": "Asha", "results": {"Ravi": 1}}]},
        "history[0] (deal 1): results.Ravi: Ravi: points must be 0 or between 2 and 80",
    ),
    (
        {"history": [{"type": "deal", "winner": "Asha", "results": {"Ravi": 5}}, {"type": "end"}]},
        "history[1] (end): type: only a points session is ended by the family",
    ),
    (
        {
            "history": [
                {"type": "deal", "winner": "Asha", "results": {"Ravi": 80}},
                {"type": "deal", "winner": "Asha", "results": {"Ravi": 80}},
                {"type": "deal", "winner": "Asha", "results": {"Ravi": 5}},
            ]
        },
        "history[2] (deal 3): type: the game is over: no more deals",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("change", "words"), BAD_DOCUMENTS)
def test_import_refuses_a_bad_document_and_creates_nothing(tmp_path, change, words):
    doc = {
        "schema": game_json.SCHEMA,
        "name": "Bad",
        "format": "pool",
        "players": ["Asha", "Ravi"],
        "history": [],
        **change,
    }
    with pytest.raises(CommandError) as caught:
        import_file(tmp_path, doc)
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)
    assert Game.objects.count() == 0
    assert Event.objects.count() == 0


@pytest.mark.django_db
def test_import_refuses_what_is_not_json(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("{not json")
    with pytest.raises(CommandError, match="not a JSON document"):
        run("import_game", str(path))
    with pytest.raises(CommandError, match="cannot read"):
        run("import_game", str(tmp_path / "missing.json"))
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_export_of_an_unknown_game():
    with pytest.raises(CommandError, match="no game with the token or id"):
        run("export_game", "nope")


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(random_game(max_events=15))
def test_export_import_export_gives_the_same_document(generated):
    fmt, game_rules, players, first, history = generated
    game = Game.create(fmt, game_rules, players, first, name="Random", history=history)
    first_export = game.as_document()
    again = Game.import_document(json.loads(json.dumps(first_export)))
    assert again.as_document() == first_export
    assert again.edit_token != game.edit_token
    # The history is stored as given, event for event: read the Event rows back.
    assert [{"type": e.type, **e.data} for e in game.events.order_by("position")] == history
    assert first_export["history"] == history


@pytest.mark.django_db
def test_tokens_are_long_and_distinct():
    game = Game.create("points", {}, ["A", "B"])
    assert len(game.edit_token) >= 32 and len(game.view_token) >= 32
    assert game.edit_token != game.view_token


def test_tokens_never_start_with_a_dash(monkeypatch):
    from tracker import models

    made = iter(["-starts-with-a-dash-xxxxxxxxxxxxxxx", "fine-token-xxxxxxxxxxxxxxxxxxxxxxxx"])
    monkeypatch.setattr(models.secrets, "token_urlsafe", lambda n: next(made))
    assert models.new_token() == "fine-token-xxxxxxxxxxxxxxxxxxxxxxxx"
