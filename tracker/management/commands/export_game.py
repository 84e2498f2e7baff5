from django.core.management.base import BaseCommand, CommandError

from tracker.documents import game_json
from tracker.models import Game


class Command(BaseCommand):
    help = "Print a game as its game document. GAME is its view token, edit token or id."

    def add_arguments(self, parser):
        parser.add_argument("game", help="the game's view token, edit token or database id")

    def handle(self, *args, game, **options):
        found = (
            Game.objects.filter(view_token=game).first()
            or Game.objects.filter(edit_token=game).first()
        )
        if found is None and game.isdigit():
            found = Game.objects.filter(pk=int(game)).first()
        if found is None:
            raise CommandError(f"no game with the token or id {game!r}")
        self.stdout.write(game_json.dumps(found.as_document()), ending="")
