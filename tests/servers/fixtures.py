"""Fixtures of the real servers that several test modules share.

A module that uses one imports it by its function's name, which pytest then
finds in the module (`from tests.servers.fixtures import redis_fixture`, with
`# noqa: F401`); its tests ask for it by the fixture's name (`redis`). Each is
module-scoped: started once for the tests of a module, stopped after them.
"""

import pytest

from tests.servers.gunicorn import BACKENDS, live_database, live_server
from tests.servers.redis import redis_server, redis_skip_reason


@pytest.fixture(scope="module", params=BACKENDS, name="live_db")
def live_db_fixture(request, tmp_path_factory):
    """A migrated database for the tests of a module, on SQLite then on PostgreSQL."""
    with live_database(request.param, tmp_path_factory.mktemp(f"live-{request.param}")) as db:
        yield db


@pytest.fixture(scope="module", name="server")
def server_fixture(live_db, tmp_path_factory):
    """`gunicorn tracker.wsgi` with WORKERS workers on `live_db`."""
    with live_server(live_db, tmp_path_factory.mktemp("gunicorn")) as running:
        yield running


@pytest.fixture(scope="module", name="redis")
def redis_fixture(tmp_path_factory):
    """A redis-server for the tests of a module: (its URL, its folder)."""
    if redis_skip_reason() is not None:
        pytest.skip(redis_skip_reason())
    folder = tmp_path_factory.mktemp("redis")
    with redis_server(folder) as url:
        yield url, folder
