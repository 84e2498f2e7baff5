"""Which database the suite ran on, and how SQLite is set up.

`make test` runs the suite twice: on SQLite (no DATABASE_URL) and on
PostgreSQL (DATABASE_URL=postgres://...). These tests prove that each pass ran
on the database it names.
"""

import os
import sqlite3

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from django.db.utils import ConnectionHandler

from tests.servers.postgres import postgres_skip_reason

pytestmark = pytest.mark.both_databases

DATABASE_URL = os.environ.get("DATABASE_URL", "")
ENGINE = settings.DATABASES["default"]["ENGINE"]
on_sqlite = pytest.mark.skipif(
    ENGINE != "django.db.backends.sqlite3",
    reason="checks the SQLite settings; this run is not on SQLite",
)


def expected_vendor():
    if DATABASE_URL.startswith(("postgres://", "postgresql://", "pgsql://")):
        return "postgresql"
    if not DATABASE_URL or DATABASE_URL.startswith("sqlite:"):
        return "sqlite"
    pytest.skip(f"not a SQLite or PostgreSQL DATABASE_URL: {DATABASE_URL.split(':')[0]}")


@pytest.mark.django_db
def test_the_suite_runs_on_the_database_that_database_url_names():
    assert connection.vendor == expected_vendor()


@pytest.mark.postgres
@pytest.mark.skipif(postgres_skip_reason() is not None, reason=str(postgres_skip_reason()))
@pytest.mark.django_db
def test_the_postgresql_pass_runs_on_a_postgresql_server():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL ")
    assert connection.settings_dict["NAME"].startswith("test_")


@on_sqlite
def test_sqlite_is_set_up_for_several_writers():
    options = settings.DATABASES["default"]["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] >= 5
    pragmas = options["init_command"].replace(" ", "").lower()
    assert "journal_mode=wal" in pragmas
    assert "synchronous=normal" in pragmas


@on_sqlite
@pytest.mark.django_db
def test_the_test_database_gets_the_same_pragmas():
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        (journal_mode,) = cursor.fetchone()
    # pytest-django's SQLite test database is in memory, where WAL cannot be.
    want = "memory" if connection.is_in_memory_db() else "wal"
    assert journal_mode.lower() == want
    assert connection.transaction_mode == "IMMEDIATE"


@on_sqlite
@pytest.mark.django_db
def test_a_sqlite_file_runs_in_wal_and_takes_the_write_lock_at_begin(tmp_path):
    path = tmp_path / "wal.sqlite3"
    alias = "wal_check"
    file_db = {**settings.DATABASES["default"], "NAME": str(path)}
    wal = ConnectionHandler({"default": file_db, alias: file_db})[alias]
    connections[alias] = wal
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with wal.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0].lower() == "wal"
            cursor.execute("PRAGMA synchronous")
            assert cursor.fetchone()[0] == 1  # NORMAL
        with transaction.atomic(using=alias):
            # BEGIN IMMEDIATE took the write lock before any write: a second
            # writer is refused at once (it would wait `timeout` seconds in
            # the app), while readers go on.
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            other.execute("SELECT count(*) FROM sqlite_master").fetchone()
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    finally:
        other.close()
        wal.close()
        del connections[alias]
