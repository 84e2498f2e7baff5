"""backup then restore on an empty database: the same links and the same figures."""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tests.documents.test_stats import G1, G2, G3, G4, G5
from tests.documents.test_table_document import table_doc
from tests.events import deal
from tests.views.test_games import post_deal
from tracker import tables
from tracker.models import Game, Member, Table

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

HTMX = {"HTTP_HX_REQUEST": "true"}


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


# ---------------------------------------------------------------- kept private (issue 27, item 7)


def mode(path):
    return path.stat().st_mode & 0o777


def test_a_backup_is_readable_by_its_owner_alone(tmp_path):
    make_family_history()
    folder = tmp_path / "backup"
    run("backup", str(folder))
    assert mode(folder) == mode(folder / "tables") == mode(folder / "games") == 0o700
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert len(files) == 1 + 2 + 6  # index.json, the tables, the games
    assert {mode(p) for p in files} == {0o600}
    # An empty folder made beforehand (by mkdir, 0755) is taken and made private.
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o755)
    run("backup", str(empty))
    assert mode(empty) == 0o700 and mode(empty / "index.json") == 0o600


def test_a_backup_into_a_folder_with_files_is_refused_and_writes_nothing(tmp_path):
    make_family_history()
    (tmp_path / "old-notes.txt").write_text("kept")
    with pytest.raises(CommandError, match=r"is not empty: back up into a new or empty folder$"):
        run("backup", str(tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["old-notes.txt"]


def damaged_index(tmp_path, change):
    """A backup whose index.json `change` damaged, on an empty database."""
    make_family_history()
    run("backup", str(tmp_path))
    index = json.loads((tmp_path / "index.json").read_text())
    change(index)
    (tmp_path / "index.json").write_text(json.dumps(index))
    Game.objects.all().delete()
    Table.objects.all().delete()
    return index


def refused(tmp_path):
    """restore's one-line refusal; nothing was restored."""
    with pytest.raises(CommandError) as refusal:
        run("restore", str(tmp_path))
    assert (Game.objects.count(), Table.objects.count(), Member.objects.count()) == (0, 0, 0)
    message = str(refusal.value)
    assert len(message.splitlines()) == 1
    return message


def test_restore_takes_a_token_only_to_the_letter(tmp_path):
    index = damaged_index(
        tmp_path, lambda i: i["games"][0].update(edit_token=i["games"][0]["edit_token"] + "\n")
    )
    name = index["games"][0]["file"]
    assert refused(tmp_path) == f"index.json: {name}: edit_token is not a link's token"


def test_restore_refuses_an_entry_given_twice(tmp_path):
    index = damaged_index(tmp_path, lambda i: i["games"].append(dict(i["games"][0])))
    name = index["games"][0]["file"]
    assert refused(tmp_path) == (f"index.json: {name}: its file is given twice (also in {name})")


def test_restore_refuses_a_token_two_entries_share(tmp_path):
    def share(index):
        index["games"][1]["view_token"] = index["tables"][0]["view_token"]

    index = damaged_index(tmp_path, share)
    game, table = index["games"][1]["file"], index["tables"][0]["file"]
    assert refused(tmp_path) == (
        f"index.json: {game}: its view token is given twice (also in {table})"
    )


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("table", ["x"], "its table ['x'] is not a table of index.json"),
        ("table", "tables/999.json", "its table 'tables/999.json' is not a table of index.json"),
        ("created_from", 5, "created_from is not a keyed hash of an address"),
        (
            "created_at",
            "2026-12-01T10:00:00",
            "created_at is not a date and time with its time zone",
        ),
        (
            "updated_at",
            "2026-13-45T10:00:00+05:30",
            "updated_at is not a date and time with its time zone",
        ),
        ("view_token", None, "view_token is not a link's token"),
    ],
)
def test_restore_checks_the_types_of_every_entry(tmp_path, key, value, words):
    index = damaged_index(tmp_path, lambda i: i["games"][-1].update({key: value}))
    assert refused(tmp_path) == f"index.json: {index['games'][-1]['file']}: {words}"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda i: i.update(games={"x": 1}), "index.json: games must be a list"),
        (lambda i: i["tables"].append("tables/9.json"), "index.json: tables[2] must be an object"),
        (
            lambda i: i["games"][0].update(file="../x.json"),
            "index.json: games[0]: file '../x.json' is not a file of games/",
        ),
        (
            lambda i: i["games"][0].update(file="tables/1.json"),
            "index.json: games[0]: file 'tables/1.json' is not a file of games/",
        ),
        (
            lambda i: i["games"][0].update(secret=1),
            "index.json: games[0]: 'secret' is not part of an entry",
        ),
    ],
)
def test_restore_checks_the_shape_of_the_index(tmp_path, change, words):
    damaged_index(tmp_path, change)
    assert refused(tmp_path) == words


def test_restore_reads_no_file_through_a_symbolic_link(tmp_path):
    backup_dir = tmp_path / "backup"
    index = damaged_index(backup_dir, lambda i: None)
    outside = tmp_path / "elsewhere.json"
    name = index["games"][0]["file"]
    outside.write_bytes((backup_dir / name).read_bytes())
    (backup_dir / name).unlink()
    (backup_dir / name).symlink_to(outside)
    assert refused(backup_dir) == f"{name}: a symbolic link: a backup holds its files themselves"
    # A folder of the backup that is a link to another place is refused the same way.
    (backup_dir / name).unlink()
    (backup_dir / "games").rename(tmp_path / "games")
    (backup_dir / "games").symlink_to(tmp_path / "games")
    outside.rename(tmp_path / name)
    assert refused(backup_dir).endswith(": a symbolic link: a backup holds its files themselves")


def test_the_secret_key_and_the_database_are_made_0600(tmp_path):
    from tracker.settings import local_secret_key

    key = tmp_path / ".secret_key"
    assert len(local_secret_key(key)) > 40
    assert mode(key) == 0o600
    key.chmod(0o644)  # one made before
    local_secret_key(key)
    assert mode(key) == 0o600
    database = tmp_path / "db.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "SECRET_KEY": "x" * 50}
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert mode(database) == 0o600
    assert {mode(p) for p in tmp_path.glob("db.sqlite3*")} == {0o600}


def test_a_restore_after_an_undo_shows_every_phone_the_deal_saved_after_it(tmp_path):
    """Deal 3 saved (a phone shows it), then undone; a backup; the database lost
    and restored; another deal 3 saved. The saving phone and the phone still
    showing the undone deal are both shown the new deal 3, never the undone one.
    Pool 101: deal 1 Asha won, Ravi 20, Meena 30; deal 2 Ravi won, Asha 10,
    Meena 15. The undone deal 3: Meena won, Asha 40, Ravi 25 (Asha 50, Ravi 45,
    Meena 45). The new deal 3: Asha won, Ravi 5, Meena 26: Asha 10, Ravi 25, Meena 71."""
    history = [deal("Asha", Ravi=20, Meena=30), deal("Ravi", Asha=10, Meena=15)]
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"], history=history)
    client, other_phone = Client(), Client()
    assert post_deal(client, game, "Meena", Asha=40, Ravi=25).status_code == 302
    game.refresh_from_db()
    shown = game.revision  # the other phone's board: the deal about to be undone
    board = other_phone.get(f"/g/{game.edit_token}/live/?v=0", **HTMX).content.decode()
    assert re.search(r"Meena.*?<td class=\"num\">45</td>", board, re.S)
    undone = game.events.order_by("position").last()
    undo = f"/g/{game.edit_token}/event/{undone.serial}/delete/"
    assert client.post(undo, {"version": str(game.revision)}).status_code == 302
    run("backup", str(tmp_path))
    Game.objects.all().delete()
    run("restore", str(tmp_path))
    game = Game.by_link(game.edit_token, can_edit=True)
    saved = post_deal(client, game, "Asha", htmx=True, Ravi=5, Meena=26)
    assert saved.status_code == 200
    polled = other_phone.get(f"/g/{game.edit_token}/live/?v={shown}", **HTMX)
    assert polled.status_code == 200
    for html in (saved.content.decode(), polled.content.decode()):
        standings = {
            name: int(total)
            for name, total in re.findall(
                r'<th scope="row">(Asha|Ravi|Meena)\b.*?<td class="num">(\d+)</td>', html, re.S
            )
        }
        assert standings == {"Asha": 10, "Ravi": 25, "Meena": 71}


# ---------------------------------------------------------------- files it reads (issue 37, item 3)


def test_restore_refuses_a_file_that_is_not_a_regular_file_without_waiting(tmp_path):
    index = damaged_index(tmp_path, lambda i: None)
    name = index["games"][0]["file"]
    fifo = tmp_path / name
    fifo.unlink()
    os.mkfifo(fifo)

    def unblock():  # before the fix, restore waited on the FIFO for a writer: let it go
        with contextlib.suppress(OSError):  # nobody was reading it
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    guard = threading.Timer(10, unblock)
    guard.start()
    try:
        assert refused(tmp_path) == f"{name}: not a regular file: a backup holds plain files only"
    finally:
        guard.cancel()


def test_restore_refuses_a_file_past_its_size_before_reading_it(tmp_path, settings):
    index = damaged_index(tmp_path, lambda i: None)
    for part, limit in (("games", "GAME_FILE_MAX_BYTES"), ("tables", "TABLE_FILE_MAX_BYTES")):
        sizes = {e["file"]: (tmp_path / e["file"]).stat().st_size for e in index[part]}
        largest = max(sizes.values())
        first = next(name for name, size in sizes.items() if size == largest)
        setattr(settings, limit, largest - 1)
        words = f"{first}: {largest} bytes: a backup's file holds at most {largest - 1}"
        assert refused(tmp_path) == words
        setattr(settings, limit, largest)
    size = (tmp_path / "index.json").stat().st_size
    settings.BACKUP_INDEX_MAX_BYTES = 1000
    assert refused(tmp_path) == f"index.json: {size} bytes: a backup's file holds at most 1000"
