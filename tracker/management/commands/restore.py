import json

from django.core.management.base import BaseCommand, CommandError

from tracker import backup

from .import_game import one_line


class Command(BaseCommand):
    help = "Bring back every table and game of a backup DIR, with the same links (empty database)."

    def add_arguments(self, parser):
        parser.add_argument("dir", help="a folder written by `manage.py backup`")

    def handle(self, *args, dir, **options):
        try:
            made = backup.restore(dir)
        except backup.BackupError as error:
            raise CommandError(one_line(str(error))) from None
        self.stdout.write(json.dumps({"tables": made[0], "games": made[1]}))
