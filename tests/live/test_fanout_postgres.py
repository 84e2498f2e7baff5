"""Pushed updates through PostgreSQL's NOTIFY/LISTEN (LIVE_FANOUT=postgres).

Two `make run` servers on one PostgreSQL database and no Redis, each with a
LIVE_DIR of its own: a deal saved on either reaches the streams held on both,
through the database's notifications alone.
"""

import pytest

from tests.servers.gunicorn import live_database, points_game_doc, two_servers
from tests.servers.postgres import needs_postgres
from tests.servers.stream import deals_reach_both

pytestmark = [pytest.mark.slow, *needs_postgres]


def test_a_deal_saved_on_either_server_reaches_both_through_notify(tmp_path):
    with live_database("postgres", tmp_path / "db") as db:
        game = db.import_game(points_game_doc(name="Notified", deals=1))
        env = {"LIVE_FANOUT": "postgres", "REDIS_URL": ""}
        one_server, two_server = two_servers(db, tmp_path, env)
        with one_server as one, two_server as two:
            deals_reach_both(one, two, game)
