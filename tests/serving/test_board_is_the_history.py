"""What a phone is shown is the stored history replayed by the running code,
however the history came to be what it is: two phones saving while a third
fetches, a correction made outside the app, a restart onto changed code."""

import re
import shutil
import threading

import pytest
from django.db import connection
from django.test import Client

from tests.events import deal
from tests.servers.gunicorn import ROOT, deal_form, ensure_static_files, live_database, live_server
from tests.views.test_games import post_deal
from tracker.models import Game

pytestmark = pytest.mark.both_databases

HTMX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Asha", "Ravi", "Meena"]


def board_revision_and_deals(html):
    """The revision a board says it is at, and the deals it says were played."""
    revision = int(re.search(r'data-revision="(\d+)"', html)[1])
    played = int(re.search(r"(\d+) deals? played", html)[1])
    return revision, played


@pytest.mark.django_db(transaction=True)
def test_a_board_fetched_while_two_phones_save_says_the_revision_it_shows():
    """A watcher's fetch has read the game's row (revision 2) when two phones
    save deals 3 and 4; it then reads the history. The board it is sent shows 4
    deals and says revision 4, so its next poll asks from where it really is."""
    history = [deal("Asha", Ravi=20, Meena=30), deal("Ravi", Asha=10, Meena=15)]
    game = Game.create("pool", {"pool_limit": 101}, NAMES, history=history)
    savers = [Client(), Client()]

    def two_saves():
        try:
            for phone, winner in zip(savers, ("Meena", "Asha"), strict=True):
                game.refresh_from_db()
                others = {name: 5 for name in NAMES if name != winner}
                assert post_deal(phone, game, winner, **others).status_code == 302
        finally:
            connection.close()  # this thread's own: left open, the test database cannot be dropped

    saved = []

    def saves_first(execute, sql, params, many, context):
        # The fetch's first read of the events: the two saves land just before it.
        if not saved and "tracker_event" in sql:
            saved.append(True)
            other = threading.Thread(target=two_saves)
            other.start()
            other.join()
        return execute(sql, params, many, context)

    watcher = Client()
    with connection.execute_wrapper(saves_first):
        answer = watcher.get(f"/w/{game.view_token}/live/?v=0", **HTMX)
    assert saved and answer.status_code == 200
    assert board_revision_and_deals(answer.content.decode()) == (4, 4)
    game.refresh_from_db()
    assert game.revision == 4


# The app as `make run` serves it.
ASGI = ("tracker.asgi:application", "--worker-class", "asgi")


def release_of(root, to):
    """A copy of the app's code, templates, translations and static files."""
    to.mkdir()
    for part in ("manage.py", "tracker", "templates", "static", "staticfiles", "locale"):
        source = root / part
        if source.is_dir():
            shutil.copytree(source, to / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, to / part)
    return to


def changed(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.slow
def test_a_restart_onto_a_changed_template_and_rule_shows_what_the_new_code_makes(tmp_path):
    """A game played on one release; the server restarted onto a release whose
    deal form and title read differently and whose pool rule counts a loser's
    points twice. Every page shows what the new code makes of the stored
    history: pool 101, deal 1 Asha won, Ravi 20, Meena 30; deal 2 Ravi won,
    Asha 10, Meena 15; deal 3 (saved on the first release) Meena won, Asha 5,
    Ravi 5: Asha 15, Ravi 25, Meena 45; counted twice, 30, 50 and 90."""
    ensure_static_files()
    app = release_of(ROOT, tmp_path / "app")
    history = [deal("Asha", Ravi=20, Meena=30), deal("Ravi", Asha=10, Meena=15)]
    doc = {
        "schema": "rummy-tracker.game/1",
        "name": "Deploy night",
        "format": "pool",
        "rules": {"pool_limit": 101},
        "players": NAMES,
        "first_dealer": "Asha",
        "history": history,
    }
    with live_database("sqlite", tmp_path / "db") as db:
        made = db.import_game(doc)
        edit, view = f"/g/{made['edit_token']}/", f"/w/{made['view_token']}/"
        with live_server(db, tmp_path / "logs", workers=1, app=ASGI, root=app) as server:
            phone = server.browser()
            token, version = deal_form(phone.get(edit).body)
            fields = {"winner": "3", "r1": "points", "p1": "5", "r2": "points", "p2": "5"}
            saved = phone.post(f"{edit}deal/", {**fields, "version": version}, token)
            assert saved.status == 302
            for path in (edit, view, f"{view}live/?v=0"):
                assert scores(server.browser().get(path).body) == {
                    "Asha": 15,
                    "Ravi": 25,
                    "Meena": 45,
                }
        changed(app / "tracker/rules/thirteen.py", "p.total += value", "p.total += 2 * value")
        changed(app / "templates/tracker/deal_fields.html", "</fieldset>", "</fieldset><!--r2-->")
        changed(
            app / "templates/tracker/game.html",
            "{{ game.shown_name }}</h1>",
            "{{ game.shown_name }} ·</h1>",
        )
        with live_server(db, tmp_path / "logs", workers=1, app=ASGI, root=app) as server:
            for path in (edit, view, f"{view}live/?v=0", f"{edit}live/?v=0"):
                page = server.browser().get(path).body
                assert scores(page) == {"Asha": 30, "Ravi": 50, "Meena": 90}, path
                assert "Deploy night ·</h1>" in page
            assert "<!--r2-->" in server.browser().get(edit).body


def scores(html):
    """Each player's total on the scoreboard."""
    board = html[html.index('class="scoreboard"') :]
    return {
        name: int(total)
        for name, total in re.findall(
            r'<th scope="row">(Asha|Ravi|Meena)\b.*?<td class="num">(\d+)</td>', board, re.S
        )
    }


def table_page_version(client, table):
    page = client.get(table.get_view_url()).content.decode()
    return int(re.search(r'<div id="table"[^>]* data-revision="(\d+)"', page)[1])


@pytest.mark.django_db
def test_a_table_pages_version_never_comes_back_to_one_a_page_has_shown():
    """A table page asleep (a phone locked, a TV off) asks its stream for the
    version when it wakes, and fetches the page only if it differs. A game
    removed, then deals saved in another game, must never bring the version
    back to the one it showed before the removal: the table's figures changed."""
    from tracker.models import Table

    table = Table.start("Sunday", NAMES)
    kept = Game.create("points", {}, NAMES, table=table)
    stray = Game.create(
        "points", {}, NAMES, history=[deal("Asha", Ravi=2, Meena=2)] * 3, table=table
    )
    client = Client()
    shown = [table_page_version(client, table)]
    stray.refresh_from_db()
    stray.remove(stray.revision)
    shown.append(table_page_version(client, table))
    for _ in range(6):
        kept.refresh_from_db()
        assert post_deal(client, kept, "Ravi", Asha=2, Meena=3).status_code == 302
        shown.append(table_page_version(client, table))
    assert shown == sorted(set(shown)), shown  # each one new, growing
