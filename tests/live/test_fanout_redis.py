"""Pushed updates through Redis: several servers, one real `redis-server`.

Two `make run` servers (tracker/asgi.py, gunicorn's ASGI worker) share one
database and one Redis (REDIS_URL), as two machines behind one name would; each
has a LIVE_DIR of its own, so nothing reaches the other but through Redis. A
deal saved on either reaches the streams held on both, and still does after
Redis restarts under the open streams (pub/sub drops what it sends while a
subscriber is away: the workers subscribe again and read the revisions held).
"""

import pytest

from tests.servers.fixtures import redis_fixture  # noqa: F401 (the fixture)
from tests.servers.gunicorn import live_database
from tests.servers.gunicorn import points_game_doc as game_doc
from tests.servers.redis import (
    redis_servers,
    redis_skip_reason,
    restart,
    subscribers,
)
from tests.servers.stream import EventStream, deals_reach_both, save_deal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(redis_skip_reason() is not None, reason=str(redis_skip_reason())),
]


@pytest.fixture(scope="module")
def live_db(tmp_path_factory):
    with live_database("sqlite", tmp_path_factory.mktemp("stream-redis-db")) as db:
        yield db


def test_a_deal_saved_on_either_server_reaches_the_streams_on_both(live_db, redis, tmp_path):
    game = live_db.import_game(game_doc(name="Two servers", deals=1))
    one_server, two_server = redis_servers(live_db, redis[0], tmp_path)
    with one_server as one, two_server as two:
        deals_reach_both(one, two, game, each=3)


def test_streams_held_through_a_redis_restart_still_hear_the_next_change(live_db, redis, tmp_path):
    redis_url, folder = redis
    game = live_db.import_game(game_doc(name="Restart", deals=1))
    one_server, two_server = redis_servers(live_db, redis_url, tmp_path, workers=1)
    with (
        one_server as one,
        two_server as two,
        EventStream(one.port, f"/w/{game['view_token']}/stream") as watching,
        EventStream(two.port, f"/g/{game['edit_token']}/stream") as editing,
    ):
        assert watching.next_revision() == editing.next_revision() == 1
        restart(redis_url, folder)
        # Both workers subscribe again by themselves (events, not a fixed wait): each
        # stream says "poll" while its worker hears nothing, then the revision again.
        for stream in (watching, editing):
            assert stream.next_event(timeout=30) == ("poll", 1)
            assert stream.next_event(timeout=30) == ("message", 1)
        assert subscribers(redis_url) == 2
        assert save_deal(one, game["edit_token"], 10_001) == 2
        assert watching.next_revision(timeout=10) == 2
        assert editing.next_revision(timeout=10) == 2
