import json

from django.core.management.base import BaseCommand, CommandError

from tracker import tables
from tracker.documents import game_json
from tracker.rules import RuleError

from .import_game import one_line, read_text


class Command(BaseCommand):
    help = "Create a table and its games from a table document (shared/docs/tables.md)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="path of the JSON document, or - for standard input")

    def handle(self, *args, file, **options):
        text = read_text(file)
        try:
            table = tables.import_document(game_json.loads(text))
        except (RuleError, tables.TableError) as error:
            raise CommandError(one_line(str(error))) from None
        line = {
            "id": table.pk,
            "edit_url": table.get_absolute_url(),
            "view_url": table.get_view_url(),
        }
        self.stdout.write(json.dumps(line))
