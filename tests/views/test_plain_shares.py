"""A split's share is a plain amount, as an entry fee is (issue 37, item 2).

`1E+2`, full-width, Arabic-Indic, Devanagari or Tamil digits, `+100` and
`1_00` were taken as shares, through the split form, a game document and a
CSV sheet, and stored as sent. The engine now reads a share as it reads an
entry fee (digits 0-9, at most one point), everywhere a share is read; a share
taken is stored in one form, as money is written ("100.00"), however it was sent.
"""

import importlib
import json

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.views.test_games import new_game, text
from tracker.models import Event, Game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

NOT_PLAIN = [
    "1E+2",
    "\uff11\uff10\uff10",  # full-width 100
    "\u0661\u0660\u0660",  # Arabic-Indic 100
    "\u0967\u0966\u0966",  # Devanagari 100
    "\u0be7\u0be6\u0be6",  # Tamil 100
    "+100",
    "1_00",
]
WORDS = "Share must be a plain amount such as 0.25, digits 0-9"


def split_form(game, a, b):
    return {"method": "custom", "confirm": "1", "version": str(game.revision), "s1": a, "s2": b}


def pool_doc(a, b):
    return {
        "schema": "rummy-tracker.game/1",
        "name": "Sunday",
        "format": "pool",
        "rules": {"entry_fee": "100"},
        "players": ["Asha", "Ravi"],
        "first_dealer": "Asha",
        "history": [{"type": "split", "method": "custom", "shares": {"Asha": a, "Ravi": b}}],
    }


def upload(client, content, name):
    data = {"file": SimpleUploadedFile(name, content.encode(), content_type="text/plain")}
    return client.post("/import/", data)


@pytest.mark.parametrize("typed", NOT_PLAIN)
def test_the_split_form_refuses_a_share_that_is_not_plain_beside_its_box(client, typed):
    game = new_game(client, players=("Asha", "Ravi"), entry_fee="100")
    response = client.post(f"/g/{game.edit_token}/split/", split_form(game, typed, "100"))
    assert response.status_code == 422
    page = text(response)
    assert WORDS in page
    assert "Check the shares marked above" in page
    assert game.events.count() == 0


@pytest.mark.parametrize("typed", NOT_PLAIN)
def test_a_game_document_or_csv_with_such_a_share_imports_nothing(client, typed):
    response = upload(client, json.dumps(pool_doc(typed, "100")), "game.json")
    assert response.status_code == 422
    assert "share must be a plain amount such as 0.25, digits 0-9" in text(response)
    sheet = Game.import_document(pool_doc("100", "100")).as_csv()
    Game.objects.all().delete()
    lines = sheet.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("split,"))
    lines[at] = lines[at].replace("100.00", typed, 1)
    response = upload(client, "\n".join(lines) + "\n", "game.csv")
    assert response.status_code == 422
    assert "is not an amount such as 120 or 62.50" in text(response)
    assert Game.objects.count() == 0


def test_a_share_is_stored_as_money_is_written_however_it_was_sent(client):
    game = new_game(client, players=("Asha", "Ravi"), entry_fee="100")
    response = client.post(f"/g/{game.edit_token}/split/", split_form(game, "100.000", " 100 "))
    assert response.status_code == 302
    stored = Event.objects.get(game=game).data["shares"]
    assert stored == {"Asha": "100.00", "Ravi": "100.00"}
    response = upload(client, json.dumps(pool_doc("120.5", 79.5)), "game.json")
    assert response.status_code == 302
    imported = Game.objects.latest("pk")
    assert imported.as_document()["history"][0]["shares"] == {"Asha": "120.50", "Ravi": "79.50"}


def test_a_game_stored_with_such_a_share_still_opens_after_the_upgrade(client):
    game = Game.import_document(pool_doc("100", "100"))
    Event.objects.filter(game=game).update(
        data={"method": "custom", "shares": {"Asha": "1E+2", "Ravi": "\u0967\u0966\u0966"}}
    )
    migration = importlib.import_module("tracker.migrations.0014_plain_shares")
    migration.plain_shares(apps, None)
    assert Event.objects.get(game=game).data["shares"] == {"Asha": "100.00", "Ravi": "100.00"}
    page = client.get(game.get_absolute_url())
    assert page.status_code == 200
    assert game.as_document()["state"]["split"] == {"Asha": "100.00", "Ravi": "100.00"}
