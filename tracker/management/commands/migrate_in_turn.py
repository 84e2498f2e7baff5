"""`manage.py migrate_in_turn`: Django's migrate, one at a time per database.

`make run` migrates before it serves, so several servers started at once on a
fresh database would each apply the same migrations (and all but one fail on
a table that exists). Here each takes a lock first: PostgreSQL's advisory
lock, or a file lock beside a SQLite database. The first migrates; the others
wait, then find nothing left to do. Django's own migrate runs inside the
lock, as it is, with its checks (a SECRET_KEY not the database's is refused:
tracker/shared_key.py).
"""

import contextlib
import fcntl
import os

from django.core.management import BaseCommand, call_command
from django.db import DEFAULT_DB_ALIAS, connections

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


class Command(BaseCommand):
    help = "Migrate the database, one server at a time (make run and make migrate)."

    def add_arguments(self, parser):
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args, **options):
        database = options["database"]
        with migrating_alone(connections[database]):
            call_command(
                "migrate",
                database=database,
                interactive=False,
                skip_checks=False,
                verbosity=options["verbosity"],
                stdout=self.stdout,
                stderr=self.stderr,
            )
