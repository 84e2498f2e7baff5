import json

from django.core.management.base import BaseCommand, CommandError

from tracker import backup

from .import_game import one_line


class Command(BaseCommand):
    help = "Write every table and game into DIR: one JSON document each, and index.json."

    def add_arguments(self, parser):
        parser.add_argument("dir", help="a new or empty folder (made if missing, 0700)")

    def handle(self, *args, dir, **options):
        try:
            made = backup.write(dir)
        except backup.BackupError as error:
            raise CommandError(one_line(str(error))) from None
        except OSError as error:
            raise CommandError(one_line(f"cannot write {dir}: {error}")) from None
        self.stdout.write(json.dumps({"tables": made[0], "games": made[1], "dir": str(dir)}))
