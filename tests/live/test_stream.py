"""Pushed updates on the embedded default: `make run`'s server (tracker/asgi.py on
gunicorn's ASGI worker), several workers, SQLite, no extra server.

Each phone's stream is read off a plain socket (tests/servers/stream.py). A deal
saved through one worker reaches the streams held by every worker; a view
link's stream carries revisions only; a wrong link is 404 with no stream; a
deleted game's stream ends; stopping the server ends every stream within its
graceful timeout.
"""

import re
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.servers.gunicorn import (
    ASGI,
    PYTHON,
    ROOT,
    live_database,
    live_server,
    points_game_doc,
    server_env,
)
from tests.servers.stream import EventStream, save_deal

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live_db(tmp_path_factory):
    with live_database("sqlite", tmp_path_factory.mktemp("stream-db")) as db:
        yield db


@pytest.fixture(scope="module")
def live_dir():
    # A short path: a Unix socket's path is at most 107 bytes.
    with tempfile.TemporaryDirectory(prefix="live-", dir="/tmp") as folder:
        yield folder


@pytest.fixture(scope="module")
def server(live_db, live_dir, tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("stream-server")
    # The tests open many streams from one address, until the kernel has handed them
    # to several workers: more than the per-address limit of one worker may go to one.
    env = {"LIVE_DIR": live_dir, "REDIS_URL": "", "STREAMS_PER_ADDRESS": "500"}
    with live_server(live_db, log_dir, workers=4, env=env, app=ASGI) as running:
        yield running
    assert "Traceback" not in running.log_text()


def test_a_deal_saved_through_one_worker_reaches_the_streams_held_by_every_worker(
    server, live_db, live_dir
):
    game = live_db.import_game(points_game_doc(name="Streams", deals=2))
    paths = [f"/g/{game['edit_token']}/stream", f"/w/{game['view_token']}/stream"]
    streams = []
    try:
        # Each worker holding a stream listens on a socket of its own in LIVE_DIR:
        # streams are opened until at least two workers hold some (which worker
        # takes a connection is the kernel's choice).
        while len(streams) < 16 or len(list(Path(live_dir).glob("*.sock"))) < 2:
            assert len(streams) < 400, "every stream went to one worker"
            stream = EventStream(server.port, paths[len(streams) % 2])
            streams.append(stream)
            assert stream.status == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.headers["x-accel-buffering"] == "no"
            assert stream.next_revision() == 2  # at once: the revision now
        began = time.monotonic()
        assert save_deal(server, game["edit_token"], 10_002) == 3
        for stream in streams:
            assert stream.next_revision(timeout=10) == 3
        took = time.monotonic() - began
        print(f"{len(streams)} streams on several workers told of deal 3 within {took:.3f} s")
        assert save_deal(server, game["edit_token"], 10_003) == 4
        assert all(stream.next_revision(timeout=10) == 4 for stream in streams)
    finally:
        for stream in streams:
            stream.close()
    # The board the stream announced is the one the page fetches.
    answer = server.browser().get(
        f"/w/{game['view_token']}/live/?v=3", headers={"HX-Request": "true"}
    )
    assert answer.status == 200 and "4 deals played" in answer.body
    unchanged = server.browser().get(
        f"/w/{game['view_token']}/live/?v=4", headers={"HX-Request": "true"}
    )
    assert unchanged.status == 204


EVENT_LINE = re.compile(rb"(retry: \d+|data: \d+|:|)")
EVENT = re.compile(rb"^data: ", re.MULTILINE)  # an event, in a body


@pytest.mark.parametrize("link", ["g", "w"])
def test_a_scorers_and_a_tvs_stream_carry_revisions_only(server, live_db, link):
    game = live_db.import_game(points_game_doc(name="Scored", deals=1))
    token = game["edit_token" if link == "g" else "view_token"]
    with EventStream(server.port, f"/{link}/{token}/stream") as scoring:
        assert scoring.next_revision() == 1
        save_deal(server, game["edit_token"], 10_001)
        assert scoring.next_revision(timeout=10) == 2
        body = scoring.body
    # Nothing but the reconnect delay, revisions and heartbeat comments: the scorer's
    # phone fetches its board and a deal form of its own, the TV its own screen.
    for line in body.split(b"\n"):
        assert EVENT_LINE.fullmatch(line), line


def test_a_watcher_is_sent_the_new_board_in_their_language_and_never_the_edit_link(server, live_db):
    game = live_db.import_game(points_game_doc(name="Watched", deals=1))
    hindi_dark = [("Accept-Language", "hi"), ("Cookie", "theme=dark")]
    path = f"/w/{game['view_token']}/stream?board=latest"  # as the view link's page opens it
    with EventStream(server.port, path, headers=hindi_dark) as watching:
        assert watching.next_revision() == 1
        save_deal(server, game["edit_token"], 10_001)
        assert watching.next_revision(timeout=10) == 2
        name, board = watching.next_event(timeout=10)
        received = watching.raw
    assert name == "board"
    assert 'id="board"' in board and 'data-revision="2"' in board
    assert "2 डील हुईं" in board  # "2 deals played", in Hindi
    assert "theme=dark" in board  # its chart drawn in the theme this phone chose
    assert game["edit_token"].encode() not in received
    # The same board and deals the page would fetch, had they not been sent (the page
    # swaps the board at once, then the deals: none of it is out of band here).
    fetched = server.browser().get(
        f"/w/{game['view_token']}/live/?v=1",
        headers={"HX-Request": "true", "Accept-Language": "hi", "Cookie": "theme=dark"},
    )
    assert fetched.status == 200
    assert 'id="history"' in board and "डील्स" in board  # the deals below it, "Deals" in Hindi
    assert lines(board) == lines(fetched.body.replace(' hx-swap-oob="true"', ""))


def lines(html):
    """The lines of some HTML, without their indentation (the stream's reader here drops it)."""
    return [line.strip() for line in html.splitlines() if line.strip()]


def test_a_wrong_or_unknown_link_is_404_and_no_stream(server, live_db):
    game = live_db.import_game(points_game_doc(name="Links", deals=0))
    wrong = [
        f"/w/{game['edit_token']}/stream",  # an edit token on the view link
        f"/g/{game['view_token']}/stream",  # a view token on the edit link
        f"/g/{game['edit_token'][:-2]}xx/stream",
        "/g/no-such-game-at-all-here/stream",
        f"/t/{game['edit_token']}/stream",  # a game's token is no table's
        "/tw/short/stream",
    ]
    for path in wrong:
        with EventStream(server.port, path) as answer:
            assert answer.status == 404, path
            assert not answer.headers["content-type"].startswith("text/event-stream")
            assert answer.ended(timeout=10)
            assert not EVENT.search(answer.body)


def manage_with(live_db, live_dir, code):
    """`manage.py shell -c code` on the live database, telling the servers' workers."""
    done = subprocess.run(
        [PYTHON, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=server_env(live_db.url, LIVE_DIR=live_dir, REDIS_URL=""),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_deleted_game_ends_its_streams(server, live_db, live_dir):
    game = live_db.import_game(points_game_doc(name="Deleted", deals=1))
    with (
        EventStream(server.port, f"/g/{game['edit_token']}/stream") as editing,
        EventStream(server.port, f"/w/{game['view_token']}/stream") as watching,
    ):
        assert editing.next_revision() == watching.next_revision() == 1
        manage_with(
            live_db,
            live_dir,
            f"from tracker.models import Game; Game.objects.get(pk={game['id']}).delete()",
        )
        assert editing.ended(timeout=10)
        assert watching.ended(timeout=10)
    with EventStream(server.port, f"/w/{game['view_token']}/stream") as again:
        assert again.status == 404


def test_a_table_page_hears_of_a_member_added_and_of_a_deal_in_its_games(server, live_db, live_dir):
    made = manage_with(
        live_db,
        live_dir,
        "from tracker.models import Game, Table\n"
        "table = Table.start('Sunday', ['Asha', 'Ravi', 'Meena', 'Kiran'])\n"
        "game = Game.create('points', {}, ['Asha', 'Ravi', 'Meena', 'Kiran'], table=table)\n"
        "print(table.edit_token, table.view_token, game.edit_token)\n",
    )
    edit, view, game_edit = made.split()[-3:]
    phone = server.browser()
    page = phone.get(f"/t/{edit}/")
    shown = int(re.search(r'id="table" data-stream="[^"]+" data-revision="(\d+)"', page.body)[1])
    with (
        EventStream(server.port, f"/t/{edit}/stream") as editing,
        EventStream(server.port, f"/tw/{view}/stream") as watching,
    ):
        assert editing.next_revision() == watching.next_revision() == shown
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)[1]
        member_form = page.body[page.body.index('class="add-member"') :]
        version = re.search(r'name="version" value="(\d+)"', member_form)[1]
        added = phone.post(f"/t/{edit}/members/", {"name": "Divya", "version": version}, token)
        assert added.status == 302
        after_member = editing.next_revision(timeout=10)
        assert after_member > shown and watching.next_revision(timeout=10) == after_member
        save_deal(server, game_edit, 10_000)  # the first deal of the table's game
        after_deal = editing.next_revision(timeout=10)
        assert after_deal == after_member + 1
        assert watching.next_revision(timeout=10) == after_deal
    # The page now shows the version its stream said last.
    page = server.browser().get(f"/tw/{view}/")
    assert f'data-revision="{after_deal}"' in page.body


def test_stopping_the_server_with_streams_open_ends_within_its_graceful_timeout(
    live_db, live_dir, tmp_path
):
    game = live_db.import_game(points_game_doc(name="Stopping", deals=0))
    env = {"LIVE_DIR": live_dir, "REDIS_URL": ""}
    graceful = 2
    with live_server(
        live_db, tmp_path, workers=2, env=env, app=ASGI, graceful_timeout=graceful
    ) as stopping:
        streams = [EventStream(stopping.port, f"/w/{game['view_token']}/stream") for _ in range(6)]
        for stream in streams:
            assert stream.next_revision() == 0
        began = time.monotonic()
        stopping.process.terminate()
        stopping.process.wait(timeout=graceful + 15)
        took = time.monotonic() - began
        for stream in streams:
            assert stream.ended(timeout=5)
            stream.close()
        print(f"stopped with 6 streams open in {took:.2f} s (graceful timeout {graceful} s)")
        assert took < graceful + 3
