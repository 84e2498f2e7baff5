"""Several servers without surprises (issue 41), as docs/several-servers.md sets them up.

One real PostgreSQL database and one real `redis-server`, both made here (the
database beside the one DATABASE_URL names, dropped afterwards), migrated once;
two `make run` servers (tracker/asgi.py on gunicorn's ASGI worker) with one
SECRET_KEY, REDIS_URL naming the Redis, and each a LIVE_DIR of its own, so
nothing reaches the other but through the database and Redis. A watcher is a
view link's stream on the other server, read as a phone's EventSource reads it.
"""

import concurrent.futures
import threading
import time

import pytest

from tests.servers.fixtures import redis_fixture  # noqa: F401 (the fixture)
from tests.servers.gunicorn import (
    check_points_state,
    deal_fields,
    deal_form,
    live_database,
    points_game_doc,
    revision_of,
    run_manage,
)
from tests.servers.postgres import needs_postgres
from tests.servers.redis import (
    redis_servers,
    redis_skip_reason,
    stopped,
)
from tests.servers.stream import EventStream, save_deal

pytestmark = [
    pytest.mark.slow,
    *needs_postgres,
    pytest.mark.skipif(redis_skip_reason() is not None, reason=str(redis_skip_reason())),
]

CATCH_UP = 2.0  # seconds: a watcher is told of the deals saved while Redis was down


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    with live_database("postgres", tmp_path_factory.mktemp("several-db")) as db:
        yield db


@pytest.fixture(scope="module")
def servers(db, redis, tmp_path_factory):
    one, two = redis_servers(db, redis[0], tmp_path_factory.mktemp("several-logs"))
    with one as a, two as b:
        yield a, b


def pages(server, game):
    """What the phones on a game ask a server: the game screen, the view link, and
    the live part each polls (as if one deal behind)."""
    edit, view = game["edit_token"], game["view_token"]
    return [
        server.browser().get(f"/g/{edit}/"),
        server.browser().get(f"/w/{view}/"),
        server.browser().get(f"/w/{view}/live/?v=1", headers={"HX-Request": "true"}),
    ]


def deals_stored(db, game):
    return sum(1 for _, kind, _ in db.stored_events(game["id"])["events"] if kind == "deal")


def test_a_deal_saved_on_one_server_shows_on_the_others_watcher(db, servers):
    a, b = servers
    game = db.import_game(points_game_doc(name="Two servers", deals=1))
    phone = a.browser()
    token, version = deal_form(phone.get(f"/g/{game['edit_token']}/").body)
    with EventStream(b.port, f"/w/{game['view_token']}/stream") as watcher:
        assert watcher.next_revision() == 1
        saved = phone.post(f"/g/{game['edit_token']}/deal/", deal_fields(10_001, version), token)
        assert saved.status == 302
        assert watcher.next_revision(timeout=10) == 2
    assert revision_of(b.browser().get(f"/w/{game['view_token']}/").body) == 2
    # The phone's "Your games" (a cookie signed with the one SECRET_KEY) reads on B too.
    on_b = b.browser()
    on_b.cookies = dict(phone.cookies)
    assert "Two servers" in on_b.get("/").body


def test_redis_stopped_and_started_mid_game_fails_nothing_and_the_watcher_catches_up(
    db, redis, servers
):
    redis_url, folder = redis
    a, b = servers
    game = db.import_game(points_game_doc(name="Redis away", deals=1))
    with (
        EventStream(b.port, f"/w/{game['view_token']}/stream") as watcher,
        EventStream(a.port, f"/g/{game['edit_token']}/stream") as editor,
    ):
        assert watcher.next_revision() == editor.next_revision() == 1
        with stopped(redis_url, folder):
            # Each stream tells its page to poll: nothing is pushed meanwhile.
            assert watcher.next_event(timeout=10) == ("poll", 1)
            assert editor.next_event(timeout=10) == ("poll", 1)
            # A deal saved on each server: both stored, every page answered.
            assert save_deal(a, game["edit_token"], 10_001) == 2
            assert save_deal(b, game["edit_token"], 10_002) == 3
            for server in (a, b):
                answers = pages(server, game)
                assert [answer.status for answer in answers] == [200, 200, 200]
                assert [revision_of(answer.body) for answer in answers[:2]] == [3, 3]
        back = time.monotonic()  # Redis answers again
        assert watcher.next_revision(timeout=CATCH_UP) == 3
        assert editor.next_revision(timeout=CATCH_UP) == 3
        took = time.monotonic() - back
        print(f"both streams were told of the deals {took:.2f} s after Redis answered again")
        assert took < CATCH_UP
        # Pushed again: the next deal reaches the watcher with no poll.
        assert save_deal(a, game["edit_token"], 10_003) == 4
        assert watcher.next_revision(timeout=10) == 4
    assert deals_stored(db, game) == 4
    check_points_state(db.export_game(game["view_token"]))
    for server in (a, b):
        log = server.log_text()
        assert "Traceback" not in log
        # Logged once each way, not once a save.
        assert log.count("Redis unreachable") <= 1


def test_a_server_restarted_with_a_watcher_open_is_reconnected_to_and_caught_up(db, servers):
    a, b = servers
    game = db.import_game(points_game_doc(name="Restarted", deals=1))
    watcher = EventStream(b.port, f"/w/{game['view_token']}/stream")
    assert watcher.next_revision() == 1
    stopping = threading.Thread(target=b.stop)
    stopping.start()
    assert watcher.ended(timeout=30)  # its graceful timeout ends the stream
    watcher.close()
    stopping.join()
    assert save_deal(a, game["edit_token"], 10_001) == 2  # while B is down
    b.start(b.port)
    # The phone's EventSource opens the same URL again: the revision as it is now.
    with EventStream(b.port, f"/w/{game['view_token']}/stream") as watcher:
        assert watcher.next_revision() == 2
        assert save_deal(a, game["edit_token"], 10_002) == 3
        assert watcher.next_revision(timeout=10) == 3


def test_a_server_with_another_secret_key_is_refused(db):
    # make run migrates before it serves: with the database's key, nothing to do.
    assert run_manage(db.url, "migrate_in_turn").returncode == 0
    refused = run_manage(db.url, "migrate_in_turn", SECRET_KEY="another-" + "k" * 50)
    assert refused.returncode != 0
    assert "SECRET_KEY is not the key the other servers on this database use" in refused.stderr


def test_servers_started_at_once_on_a_fresh_database_migrate_in_turn(tmp_path):
    with live_database("postgres", tmp_path / "fresh", migrated=False) as fresh:
        # What two `make run` do first, at the same moment.
        with concurrent.futures.ThreadPoolExecutor(2) as starting:
            done = list(starting.map(lambda _: run_manage(fresh.url, "migrate_in_turn"), range(2)))
        for process in done:
            assert process.returncode == 0, process.stderr[-2000:]
