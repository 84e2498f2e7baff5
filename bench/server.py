"""The database and the servers of a bench run, from the helper the tests use
(tests/servers/gunicorn.py): a migrated SQLite database in a temporary folder, and
gunicorn with bench.settings, the production settings plus one baseline view
(bench/urls.py): tracker/wsgi.py on the sync worker (the load tests), or
`make run`'s tracker/asgi.py on gunicorn's ASGI worker, which also serves the
pushed updates' streams (Lighthouse, bench/push.py)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from bench.report import OUT, ROOT

sys.path.insert(0, str(ROOT))

from tests.servers import gunicorn as livegunicorn

SETTINGS = "bench.settings"
WORKERS = 2 * (os.cpu_count() or 1) + 1  # as `make run`
SYNC = ("tracker.wsgi:application", "--worker-class", "sync")
ASGI = livegunicorn.ASGI  # `make run`'s: tracker/asgi.py on tracker.serving.Worker


@contextlib.contextmanager
def database(tmp):
    """A migrated database in `tmp`, with this process set up to use it through the ORM.

    This process takes the servers' environment (livegunicorn.server_env), so
    what it makes and counts in-process is what the servers read.
    """
    with livegunicorn.live_database("sqlite", tmp) as db:
        env = livegunicorn.server_env(
            db.url,
            DJANGO_SETTINGS_MODULE=SETTINGS,
            ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
            LIVE_DIR=str(Path(tmp) / "live"),  # the pushed updates' sockets (tracker/live)
        )
        os.environ.update(env)
        livegunicorn.ensure_static_files()  # the manifest every page names its files by
        import django

        django.setup()
        yield db


@contextlib.contextmanager
def gunicorn(db, workers=WORKERS, app=SYNC, **env):
    """`app` on 127.0.0.1 under gunicorn, `env` added to its environment;
    `.port`, `.process.pid`, `.worker_pids()`. Its log: bench/out/gunicorn-*.log."""
    env = {
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LIVE_DIR": os.environ["LIVE_DIR"],
        **env,
    }
    with livegunicorn.live_server(db, OUT, workers, env, app) as server:
        yield server


def server_pids(server):
    return [server.process.pid, *server.worker_pids()]
