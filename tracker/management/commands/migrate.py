"""Django's migrate, one at a time per database.

`make run` migrates before it serves, so several servers started at once on a
fresh database would each apply the same migrations (and all but one fail on
a table that exists). Here each takes a lock first: PostgreSQL's advisory
lock, or a file lock beside a SQLite database. The first migrates; the others
wait, then find nothing left to do (`make migrate` alone does the same). An
app's command of the same name is Django's documented way to change one.
"""

import contextlib
import fcntl
import os

from django.core.management.commands import migrate
from django.db import connections

LOCK = 0x72756D6D79  # any number of our own: "rummy"


@contextlib.contextmanager
def migrating_alone(connection):
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK])
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK])
        return
    name = str(connection.settings_dict["NAME"])
    if connection.vendor != "sqlite" or name in ("", ":memory:") or "mode=memory" in name:
        yield
        return
    # Private as the database beside it (settings.private_file); closing it unlocks.
    lock = os.open(f"{name}.migrate-lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)


class Command(migrate.Command):
    def handle(self, *args, **options):
        with migrating_alone(connections[options["database"]]):
            return super().handle(*args, **options)
