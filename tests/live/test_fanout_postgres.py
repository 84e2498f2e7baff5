"""Pushed updates through PostgreSQL's NOTIFY/LISTEN (LIVE_FANOUT=postgres).

Two `make run` servers on one PostgreSQL database and no Redis, each with a
LIVE_DIR of its own: a deal saved on either reaches the streams held on both,
through the database's notifications alone.
"""

import tempfile
from pathlib import Path

import pytest

from tests.servers.gunicorn import ASGI, live_database, live_server, needs_postgres, points_game_doc
from tests.servers.stream import EventStream, save_deal

pytestmark = [pytest.mark.slow, *needs_postgres]


def test_a_deal_saved_on_either_server_reaches_both_through_notify(tmp_path):
    with live_database("postgres", tmp_path / "db") as db:
        game = db.import_game(points_game_doc(name="Notified", deals=1))
        running = []
        for name in ("one", "two"):
            folder = tempfile.mkdtemp(prefix=f"live-{name}-", dir="/tmp")
            env = {"LIVE_FANOUT": "postgres", "LIVE_DIR": folder, "REDIS_URL": ""}
            running.append(live_server(db, tmp_path / name, workers=2, env=env, app=ASGI))
        with running[0] as one, running[1] as two:
            streams = [
                EventStream(server.port, f"/{link}/{game[token]}/stream")
                for server in (one, two)
                for link, token in (("g", "edit_token"), ("w", "view_token"))
            ]
            try:
                assert all(stream.next_revision() == 1 for stream in streams)
                assert save_deal(two, game["edit_token"], 10_001) == 2
                assert all(stream.next_revision(timeout=10) == 2 for stream in streams)
                assert save_deal(one, game["edit_token"], 10_002) == 3
                assert all(stream.next_revision(timeout=10) == 3 for stream in streams)
            finally:
                for stream in streams:
                    stream.close()
            for server in (one, two):
                assert "Traceback" not in server.log_text()
                assert not list(Path(server.env["LIVE_DIR"]).glob("*.sock"))
