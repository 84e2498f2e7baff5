"""What a phone asks after it is told (or suspects) that a game moved on.

A saved change moves the game's revision (tracker/models.py); once it is
committed, tracker/live/ tells every stream on the game (tracker/asgi.py). A
phone told, or polling where it holds no stream, asks `live` for its board:
204 while it shows the revision the game is at, else the parts a change
moves, the stored history replayed by the code that is running. The save's
own answer is the same part (views/changes.py).

A view link's stream sends its watchers that part itself (`watch_board`), made
once a revision in each worker for the phones of one language and theme: a
watcher's board shows the deal without a request of its own. Nothing in it is
out of band: the page swaps the board at once, then the deals below it once
the board is drawn (static/tracker.js).
"""

import logging

from django.db import close_old_connections
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.views.decorators.http import require_safe

from ..context_processors import chosen_theme
from ..models import Game, Table
from .common import HtmxHttpRequest, get_game_or_404
from .games import all_history, game_context

log = logging.getLogger(__name__)

# The header of `no_stream`'s 204 that tells tracker/asgi.py how a view link's
# stream is to be sent its board: "<language> <theme or -> <all or latest>" (rows).
# It is read there and never sent on.
BOARD_FOR = "X-Board-For"


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
    context = game_context(game, state, can_edit, all_history(request), oob=True, **extra)
    return render(request, "tracker/game.html#live", context)


def watch_board(game_id, board_for):
    """The view link's live part of the game as it is now (its board and deals, none
    of it out of band), for a stream whose `no_stream` said `board_for`, or None
    (the game gone; it could not be made: the page then fetches it). Runs on
    Django's thread, outside a request."""
    close_old_connections()
    language, theme, rows = board_for.split()
    try:
        game = Game.objects.filter(pk=game_id, removed_at=None).first()
        if game is None:
            return None
        state = game.state()
        with translation.override(language):
            context = game_context(game, state, False, rows == "all")
            context["theme"] = "" if theme == "-" else theme
            return render_to_string("tracker/game.html#live", context)
    except Exception:  # the phone fetches its board instead, as without the stream's
        log.exception("live: could not make the board of game %s", game_id)
        return None


@require_safe
def no_stream(request: HtmxHttpRequest, kind: str, token: str) -> HttpResponse:
    """A stream's address where no streams are served (tracker/asgi.py serves them
    on `make run`'s ASGI worker; not on `runserver` or the sync worker): 204 for
    a link that leads somewhere, so the page's EventSource stops without an error
    and the page keeps polling; 404 as a stream answers a wrong link."""
    model = Table if kind in ("t", "tw") else Game
    if model.by_link(token, can_edit=kind in ("g", "t")) is None:
        raise Http404("No game or table has that link.")
    response = HttpResponse(status=204)
    rows = request.GET.get("board")  # a view link's game screen asks for its board
    if kind == "w" and rows in ("latest", "all"):
        response[BOARD_FOR] = f"{request.LANGUAGE_CODE} {chosen_theme(request) or '-'} {rows}"
    return response
