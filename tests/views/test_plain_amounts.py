"""An entry fee or a point value is a plain amount, digits 0-9 (issue 27, item 8).

`1E+5` was stored as typed, `-0` showed the pot as -0.00, and `+5`, `1_0`,
Arabic-Indic or full-width digits were taken as amounts. The rules engine now
refuses them, so the new-game form, a game document (page and command) and a
CSV sheet all refuse the same values with the same words, and nothing is made.
"""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from tests.views.test_games import HTMX, text
from tracker.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

NOT_PLAIN = ["1E+5", "-0", "+5", "1_0", "\u0661\u0660", "\uff15", "5 0"]
WORDS = "must be a plain amount such as 0.25, digits 0-9"


def game_doc(rules):
    return {
        "schema": "rummy-tracker.game/1",
        "name": "Sunday",
        "format": "pool",
        "rules": rules,
        "players": ["Asha", "Ravi"],
        "first_dealer": "Asha",
        "history": [],
    }


@pytest.mark.parametrize("typed", NOT_PLAIN)
def test_the_new_game_form_refuses_an_entry_fee_that_is_not_plain(client, typed):
    data = {"format": "pool-101", "rules_for": "pool-101", "player": ["Asha", "Ravi"]}
    data.update(dealer="0", entry_fee=typed)
    for headers in ({}, HTMX):
        response = client.post("/new/", data, **headers)
        assert response.status_code == 422
        assert f"Entry fee {WORDS}" in text(response)
    assert Game.objects.count() == 0


@pytest.mark.parametrize("typed", ["1E+5", "-0", "\uff15"])
def test_the_point_value_typed_beside_points_is_refused_the_same_way(client, typed):
    data = {"format": "points", "rules_for": "points", "player": ["Asha", "Ravi"]}
    data.update(dealer="0", point_value=typed)
    response = client.post("/new/", data)
    assert response.status_code == 422
    assert f"Point value {WORDS}" in text(response)
    assert Game.objects.count() == 0


def test_the_form_says_what_an_amount_is_beside_the_box(client):
    for fmt, box in (("pool-101", "entry_fee"), ("points", "point_value")):
        page = client.post("/new/", {"format": fmt, "rules_for": fmt, "action": "refresh"})
        shown = text(page)
        assert f'aria-describedby="help-{box}"' in shown
        assert "A plain amount such as 0.25, digits 0-9" in shown


def test_plain_amounts_are_kept_as_typed_in_whole_units(client):
    data = {"format": "pool-101", "rules_for": "pool-101", "player": ["Asha", "Ravi"]}
    data.update(dealer="0", entry_fee=" 12.50 ")
    response = client.post("/new/", data)
    assert response.status_code == 302
    assert Game.objects.get().rules["entry_fee"] == "12.50"


@pytest.mark.parametrize("typed", NOT_PLAIN)
def test_a_game_document_with_such_a_fee_imports_nothing(client, tmp_path, typed):
    doc = json.dumps(game_doc({"entry_fee": typed})).encode()
    upload = SimpleUploadedFile("game.json", doc, content_type="application/json")
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 422
    assert f"entry fee {WORDS}" in text(response)
    (tmp_path / "game.json").write_bytes(doc)
    with pytest.raises(CommandError, match=f"rules.entry_fee: entry fee {WORDS}"):
        call_command("import_game", str(tmp_path / "game.json"))
    assert Game.objects.count() == 0


def test_a_csv_sheet_with_such_a_fee_imports_nothing(client):
    sheet = Game.create("pool", {"entry_fee": "50"}, ["Asha", "Ravi"]).as_csv()
    assert sheet.count("\r\nrule entry_fee,50\r\n") == 1
    sheet = sheet.replace("\r\nrule entry_fee,50\r\n", "\r\nrule entry_fee,1E+5\r\n")
    Game.objects.all().delete()
    upload = SimpleUploadedFile("game.csv", sheet.encode(), content_type="text/csv")
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 422
    assert f"entry fee {WORDS}" in text(response)
    assert Game.objects.count() == 0
