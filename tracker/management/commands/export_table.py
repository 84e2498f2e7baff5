from django.core.management.base import BaseCommand, CommandError

from tracker import tables
from tracker.documents import game_json
from tracker.models import Table


def find_table(token):
    """A table by its view token, edit token or database id."""
    found = Table.by_link(token, False) or Table.by_link(token, True)
    if found is None and token.isdigit():
        found = Table.objects.filter(pk=int(token)).first()
    return found


class Command(BaseCommand):
    help = "Print a table as its table document. TABLE is its view token, edit token or id."

    def add_arguments(self, parser):
        parser.add_argument("table", help="the table's view token, edit token or database id")

    def handle(self, *args, table, **options):
        found = find_table(table)
        if found is None:
            raise CommandError(f"no table with the token or id {table!r}")
        self.stdout.write(game_json.dumps(tables.export(found)), ending="")
