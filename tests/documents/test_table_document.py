"""The table document: export_table / import_table and the table page's download and upload."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError
from django.test import Client

from tests.commands.call import run
from tests.documents.test_stats import G1, G2, G3, G4, G5
from tests.views.test_games import text
from tracker import tables
from tracker.documents import game_json
from tracker.models import Event, Game, Member, Table

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

ROOT = Path(__file__).resolve().parents[2]


def input_part(doc):
    return {k: v for k, v in doc.items() if k != "state"}


def table_doc(games=(G1, G2, G3, G4, G5)):
    return {
        "schema": tables.SCHEMA,
        "name": "Nani's Sunday table",
        "members": ["Asha", "Ravi", "Meena", "Kiran"],
        "games": [input_part(g) for g in games],
    }


def test_import_then_export_gives_every_game_and_the_hand_worked_stats(tmp_path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table_doc()))
    line = run("import_table", str(path))
    assert len(line.splitlines()) == 1
    made = json.loads(line)
    table = Table.objects.get(pk=made["id"])
    assert made["edit_url"] == f"/t/{table.edit_token}/"
    assert made["view_url"] == f"/tw/{table.view_token}/"
    assert table.games.count() == 5 and Event.objects.count() == 5 + 3 + 3 + 3 + 1
    exported = json.loads(run("export_table", table.view_token))
    assert exported["schema"] == "rummy-tracker.table/1"
    assert exported["members"] == ["Asha", "Ravi", "Meena", "Kiran"]
    assert [g["name"] for g in exported["games"]] == [g["name"] for g in (G1, G2, G3, G4, G5)]
    assert exported["games"][0] == G1  # the whole game document, state and all
    money = {m["name"]: m["money"] for m in exported["stats"]["members"]}
    assert money == {"Asha": "-40.00", "Ravi": "25.00", "Meena": "-65.00", "Kiran": "80.00"}
    assert len(exported["stats"]["settlement"]) == 3
    # And on a fresh database: the same document, stats and all.
    Table.objects.all().delete()
    Game.objects.all().delete()
    path.write_text(json.dumps(exported))
    again = Table.objects.get(pk=json.loads(run("import_table", str(path)))["id"])
    assert json.loads(run("export_table", again.edit_token)) == exported
    assert again.edit_token != table.edit_token


def test_a_refused_game_creates_nothing_and_is_named_with_its_first_bad_event(tmp_path):
    bad = input_part(G2)
    bad["history"] = [*bad["history"][:1], {"type": "deal", "winner": "Asha", "results": {}}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(table_doc([G1, bad])))
    with pytest.raises(CommandError) as refused:
        run("import_table", str(path))
    message = str(refused.value)
    assert message.startswith("game 2 (Deals with a tie-breaker): history[1] (deal 2): ")
    assert "result missing" in message and "\n" not in message
    assert (Table.objects.count(), Game.objects.count(), Member.objects.count()) == (0, 0, 0)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{nope", "document: not a JSON document"),
        ("[1, 2]", "a table document is a JSON object"),
        ('{"schema": "rummy-tracker.game/1"}', 'schema must be "rummy-tracker.table/1"'),
        (
            json.dumps({**table_doc([G1]), "members": ["Asha", "asha"]}),
            "asha is a member twice: names must differ",
        ),
    ],
)
def test_import_table_refuses_bad_documents_in_one_line(tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError, match=words):
        run("import_table", str(path))
    assert Table.objects.count() == Game.objects.count() == 0


def test_the_commands_exit_non_zero_with_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{nope\n\n")
    done = subprocess.run(
        [sys.executable, "manage.py", "import_table", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "not a JSON document" in done.stderr
    with pytest.raises(CommandError, match="no table with the token or id"):
        run("export_table", "no-such-table-token-at-all")


def test_download_from_the_table_page_and_upload_as_a_new_table():
    client = Client()
    table = tables.import_document(table_doc())
    download = client.get(f"/tw/{table.view_token}/table.json")
    assert download["Content-Type"] == "application/json"
    assert 'filename="nanis-sunday-table.json"' in download["Content-Disposition"]
    upload = SimpleUploadedFile("table.json", download.content)
    response = client.post("/tables/import/", {"file": upload})
    assert response.status_code == 302
    copy = Table.objects.get(edit_token=response["Location"].split("/")[2])
    assert copy.pk != table.pk
    assert tables.export(copy)["stats"] == json.loads(download.content)["stats"]


def test_a_game_uploaded_into_a_table_makes_its_players_members():
    client = Client()
    table = Table.start("Small table", ["Asha", "Ravi"])
    # G3 seats Meena, Kiran and Asha: Meena and Kiran are not members yet.
    upload = SimpleUploadedFile("game.json", game_json.dumps(input_part(G3)).encode())
    response = client.post(f"/t/{table.edit_token}/upload/", {"file": upload, "version": "0"})
    assert response.status_code == 302
    assert table.member_names() == ["Asha", "Ravi", "Meena", "Kiran"]
    game = table.games.get()
    assert game.as_document() == G3
    assert Table.objects.get(pk=table.pk).revision == 1  # one change: the game and its players
    page = text(client.get(table.get_absolute_url()))
    assert "<strong>Meena</strong> pays <strong>Kiran</strong> ₹60.00" in page


def test_an_upload_the_engine_refuses_says_why_beside_the_field_and_changes_nothing():
    client = Client()
    table = Table.start("Small table", ["Asha", "Ravi"])
    bad = input_part(G1)
    bad["history"] = [{"type": "rejoin", "player": "Ravi"}]
    doc = {**table_doc([G2, bad]), "members": ["Asha", "Ravi"]}
    upload = SimpleUploadedFile("t.json", json.dumps(doc).encode())
    response = client.post(f"/t/{table.edit_token}/upload/", {"file": upload, "version": "0"})
    assert response.status_code == 422
    page = text(response)
    assert 'id="file-error"' in page
    assert "Not imported: game 2 (Pool with a rejoin): history[0] (rejoin)" in page
    for content in (b"{nope", b"\xff\xfe"):
        upload = SimpleUploadedFile("t.json", content)
        data = {"file": upload, "version": "0"}
        response = client.post(f"/t/{table.edit_token}/upload/", data)
        assert response.status_code == 422
        assert "not a JSON document" in text(response) or "not a text file" in text(response)
    assert table.member_names() == ["Asha", "Ravi"]
    assert Game.objects.count() == 0
    assert Table.objects.get(pk=table.pk).revision == 0
