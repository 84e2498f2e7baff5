import json
import sys

from django.core.management.base import BaseCommand, CommandError

from tracker.documents import game_json
from tracker.models import Game
from tracker.rules import RuleError

# Every character str.splitlines() breaks at, shown as its escape (\n, \u2028, ...).
ONE_LINE = str.maketrans({c: repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"})


def one_line(message):
    """A message on one line, whatever names or keys it quotes."""
    return message.translate(ONE_LINE)


def read_text(file):
    """The text of a document file, or of standard input for "-"; one line if it cannot."""
    try:
        if file == "-":
            return sys.stdin.read()
        with open(file, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(one_line(f"cannot read {file}: {error}")) from None


class Command(BaseCommand):
    help = "Create a game from a game document (shared/docs/game-json.md); '-' reads stdin."

    def add_arguments(self, parser):
        parser.add_argument("file", help="path of the JSON document, or - for standard input")

    def handle(self, *args, file, **options):
        text = read_text(file)
        try:
            game = Game.import_document(game_json.loads(text))
        except RuleError as error:
            raise CommandError(one_line(str(error))) from None
        line = {"id": game.pk, "edit_url": game.get_absolute_url(), "view_url": game.get_view_url()}
        self.stdout.write(json.dumps(line))
