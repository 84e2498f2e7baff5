from django.http import Http404
from django.shortcuts import render

from .models import Game


def _get_game_or_404(**token):
    try:
        return Game.objects.get(**token)
    except Game.DoesNotExist:
        raise Http404("No game has that link.") from None


def home(request):
    return render(request, "tracker/home.html")


def game(request, token):
    game = _get_game_or_404(edit_token=token)
    return render(request, "tracker/game.html", {"game": game, "state": game.state()})


def watch(request, token):
    game = _get_game_or_404(view_token=token)
    return render(request, "tracker/game.html", {"game": game, "state": game.state()})
