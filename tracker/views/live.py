"""What a phone asks after it is told (or suspects) that a game moved on.

A saved change moves the game's revision (tracker/models.py); once it is
committed, tracker/live/ tells every stream on the game (tracker/asgi.py). A
phone told, or polling where it holds no stream, asks `live` for its board:
204 while it shows the revision the game is at, else the parts a change
moves, the stored history replayed by the code that is running. The save's
own answer is the same part (views/changes.py).
"""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..models import Game, Table
from .common import HtmxHttpRequest, get_game_or_404
from .games import game_context


@require_safe
def live(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    """The poll of the scoreboard: 204 while nothing changed, else the new board
    (and out of band the history and a fresh deal form)."""
    revision = Game.revision_by_link(token, can_edit)
    if revision is not None and request.GET.get("v") == revision:
        response = HttpResponse(status=204)
    else:
        game = get_game_or_404(token, can_edit)
        response = live_part(request, game, game.state(), can_edit)
    response["Cache-Control"] = "no-store"
    return response


def live_part(request, game, state, can_edit, **extra):
    """The parts of the game screen that a change moves: the board, and out of
    band the history and, on the edit link, the deal form."""
    context = game_context(request, game, state, can_edit, oob=True, **extra)
    return render(request, "tracker/game.html#live", context)


@require_safe
def no_stream(request: HtmxHttpRequest, kind: str, token: str) -> HttpResponse:
    """A stream's address where no streams are served (tracker/asgi.py serves them
    on `make run`'s ASGI worker; not on `runserver` or the sync worker): 204 for
    a link that leads somewhere, so the page's EventSource stops without an error
    and the page keeps polling; 404 as a stream answers a wrong link."""
    model = Table if kind in ("t", "tw") else Game
    if model.by_link(token, can_edit=kind in ("g", "t")) is None:
        raise Http404("No game or table has that link.")
    return HttpResponse(status=204)
