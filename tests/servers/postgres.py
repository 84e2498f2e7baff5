"""A PostgreSQL database of a test's own, beside the one DATABASE_URL names.

`postgres_database()` creates one with a unique name on the server of this
run's DATABASE_URL, yields its URL and drops it afterwards; the live servers
(tests/servers/gunicorn.py) run on it. Where this run is not on PostgreSQL the
tests that need it skip, saying why (`needs_postgres`), by the same rule as
the `postgres` marker's hook in tests/conftest.py; scripts/postgres.sh sets up
a server for `make test-postgres`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
import urllib.parse

import pytest

DATABASE_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = DATABASE_URL.startswith(("postgres://", "postgresql://", "pgsql://"))


def postgres_skip_reason():
    """Why a test that needs PostgreSQL cannot run, or None."""
    if os.environ.get("TRACKER_POSTGRES_SKIP"):
        return os.environ["TRACKER_POSTGRES_SKIP"]
    if not ON_POSTGRES:
        return "needs PostgreSQL: DATABASE_URL=postgres://... (`make test-postgres` sets one up)"
    return None


needs_postgres = [
    pytest.mark.postgres,
    pytest.mark.skipif(postgres_skip_reason() is not None, reason=str(postgres_skip_reason())),
]


def connect(url):
    """A connection to the database `url` names, in autocommit (for CREATE and DROP DATABASE)."""
    import dj_database_url
    import psycopg

    db = dj_database_url.parse(url)
    return psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"] or None,
        password=db["PASSWORD"] or None,
        host=db["HOST"] or None,
        port=db["PORT"] or None,
        connect_timeout=10,
        autocommit=True,
    )


@contextlib.contextmanager
def postgres_database():
    """An empty database of its own: yields its URL; dropped at the end."""
    if not ON_POSTGRES:
        pytest.skip(str(postgres_skip_reason()))
    name = f"tracker_live_{os.getpid()}_{secrets.token_hex(4)}"
    with connect(DATABASE_URL) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urllib.parse.urlsplit(DATABASE_URL)._replace(path=f"/{name}").geturl()
    finally:
        _drop_database(name)


def _drop_database(name, tries=40):
    """DROP DATABASE ... WITH (FORCE), which ends the live servers' connections. It
    cannot end a superuser's process: an autovacuum worker busy on the database after
    a test's many writes refuses it (InsufficientPrivilege). That worker ends in a
    moment, so the drop is tried again; a database still busy after ~10 s is left for
    the next `make test` (its name is unique) rather than failing a test that passed."""
    import psycopg

    for _ in range(tries):
        try:
            with connect(DATABASE_URL) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except (psycopg.errors.InsufficientPrivilege, psycopg.errors.ObjectInUse):
            time.sleep(0.25)
    print(f"live database {name} still in use by a superuser's process: left in place")
