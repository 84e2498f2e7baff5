"""backup then restore on an empty database: the same links and the same figures."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tracker import tables
from tracker.models import Game, Member, Table

from .test_stats import G1, G2, G3, G4, G5
from .test_table_document import table_doc
from .test_views import post_deal

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out)
    return json.loads(out.getvalue())


def everything():
    """Every link and every figure the database holds, as a family would see them."""
    return {
        "tables": {
            (t.edit_token, t.view_token, t.created_at): tables.export(t)
            for t in Table.objects.all()
        },
        "games": {
            (g.edit_token, g.view_token, g.table.view_token if g.table else None): g.as_document()
            for g in Game.objects.all()
        },
    }


def make_family_history():
    table = tables.import_document(table_doc([G1, G2, G3]))
    other = tables.import_document({**table_doc([G4, G5]), "name": "Cousins"})
    alone = Game.create("points", {}, ["Dev", "Lata"])
    client = Client()
    post_deal(client, alone, "Dev", Lata=25)
    # A corrected deal: the history, not the running total, is what comes back.
    deal = alone.events.get()
    alone.refresh_from_db()
    response = client.post(
        f"/g/{alone.edit_token}/event/{deal.serial}/",
        {"winner": "2", "r1": "points", "p1": "7", "version": str(alone.revision)},
    )
    assert response.status_code == 302
    return table, other, alone


def test_backup_then_restore_on_an_empty_database_gives_the_same_links_and_figures(tmp_path):
    table, other, alone = make_family_history()
    before = everything()
    assert alone.state().players[0].balance == -7
    made = run("backup", str(tmp_path))
    assert (made["tables"], made["games"]) == (2, 6)
    index = json.loads((tmp_path / "index.json").read_text())
    assert len(index["tables"]) == 2 and len(index["games"]) == 6
    for entry in index["tables"] + index["games"]:
        assert (tmp_path / entry["file"]).exists()
    saved = json.loads((tmp_path / index["tables"][0]["file"]).read_text())
    assert saved["schema"] == "rummy-tracker.table/1"
    # An empty database.
    Game.objects.all().delete()
    Table.objects.all().delete()
    assert Member.objects.count() == 0
    assert run("restore", str(tmp_path)) == {"tables": 2, "games": 6}
    assert everything() == before
    # The old links open the same pages.
    client = Client()
    page = client.get(table.get_view_url()).content.decode()
    assert all(g.get_view_url() in page for g in Table.by_link(table.view_token, False).games.all())
    assert client.get(f"/tw/{other.view_token}/").status_code == 200
    assert client.get(f"/g/{alone.edit_token}/").status_code == 200
    money = {
        m["name"]: m["money"]
        for m in tables.export(Table.by_link(table.view_token, False))["stats"]["members"]
    }
    # G1 + G2 + G3: Asha 30 - 20 - 50, Ravi -20 + 40, Meena -10 - 60, Kiran -20 + 110.
    assert money == {"Asha": "-40.00", "Ravi": "20.00", "Meena": "-70.00", "Kiran": "90.00"}


def test_restore_needs_an_empty_database(tmp_path):
    make_family_history()
    run("backup", str(tmp_path))
    with pytest.raises(CommandError, match="restore needs an empty database: it has 6 games"):
        run("restore", str(tmp_path))
    assert Game.objects.count() == 6


def test_a_damaged_backup_restores_nothing_and_names_the_file(tmp_path):
    make_family_history()
    run("backup", str(tmp_path))
    index = json.loads((tmp_path / "index.json").read_text())
    damaged = tmp_path / index["games"][-1]["file"]
    doc = json.loads(damaged.read_text())
    doc["history"][0]["results"] = {"Lata": 1}
    damaged.write_text(json.dumps(doc))
    Game.objects.all().delete()
    Table.objects.all().delete()
    with pytest.raises(CommandError) as refused:
        run("restore", str(tmp_path))
    message = str(refused.value)
    assert message.startswith(index["games"][-1]["file"] + ": history[0] (deal 1)")
    assert (Game.objects.count(), Table.objects.count(), Member.objects.count()) == (0, 0, 0)
    (tmp_path / "index.json").write_text("{nope")
    with pytest.raises(CommandError, match=r"index\.json: document: not a JSON document"):
        run("restore", str(tmp_path))
