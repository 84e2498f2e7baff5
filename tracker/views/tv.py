"""The TV screen of a game's view link and of a table's view link.

A landscape scoreboard read from across the room, at the view link plus tv/.
It reads only: it is found by the view token and carries no other token.
Its board is the stored history replayed, fetched as the view link's is:
tracker.js follows the same stream (data-stream) and fetches `tv/live/`.
"""

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from .. import live as pushed
from .. import tables
from ..documents import stats
from ..models import Game
from ..screens import tv
from .common import HtmxHttpRequest, get_game_or_404, get_table_or_404
from .games import all_history, game_context


def _game_part(request, game, state):
    """What the TV shows of one game: the view link's context and the cards."""
    context = game_context(game, state, can_edit=False, all_events=all_history(request))
    context.update(tv.players(context["standings"], context["columns"], context["history"]))
    return context


@require_safe
def tv_page(request: HtmxHttpRequest, token: str, kind: str) -> HttpResponse:
    """The TV screen of a game's (kind "game") or a table's ("table") view link."""
    return render(request, "tracker/tv.html", _tv_context(request, token, kind))


@require_safe
def tv_live(request: HtmxHttpRequest, token: str, kind: str) -> HttpResponse:
    """The TV's poll: 204 while nothing changed, else its board afresh. A game's
    revision is read alone (None if no game has the link); a table, read once, is
    compared by its version with its games'."""
    if kind == "game":
        table, version = None, Game.revision_by_link(token, can_edit=False)
    else:
        table = get_table_or_404(token, can_edit=False)
        version = str(pushed.table_versions([table.pk])[table.pk])
    if version is not None and request.GET.get("v") == version:
        return _no_store(HttpResponse(status=204))
    if table is None:
        context = _tv_context(request, token, kind)
    else:
        context = _table_tv_context(request, table)
    return _no_store(render(request, "tracker/tv.html#board", context))


def _tv_context(request, token, kind):
    if kind == "game":
        return _game_tv_context(request, get_game_or_404(token, can_edit=False))
    return _table_tv_context(request, get_table_or_404(token, can_edit=False))


def _game_tv_context(request, game):
    state = game.state()
    context = _game_part(request, game, state)
    live_url = reverse("watch_tv_live", args=[game.view_token])
    context.update(
        {
            "tv_live_url": f"{live_url}?v={game.revision}",
            # Its stream tells the revision only: the TV fetches its own board.
            "stream_url": f"{game.get_view_url()}stream",
            "live": not state.finished,
            "version": game.revision,
            "said_for": f"g{game.pk}-{game.revision}",
            "watch_url": game.get_view_url(),
        }
    )
    return context


def _table_tv_context(request, table):
    """The table's standings, and the game being played (the newest one not
    finished), every game replayed."""
    version = pushed.table_versions([table.pk])[table.pk]
    found, games, summaries = tables.table_stats(table)
    playing = [g for g, s in zip(games, summaries, strict=True) if s["status"] != "finished"]
    playing = playing[-1] if playing else None
    context = {}
    said_for = f"t{table.pk}"
    if playing is not None:
        state = playing.state()
        context = _game_part(request, playing, state)
        said_for = f"g{playing.pk}-{playing.revision}"
    live_url = reverse("watch_table_tv_live", args=[table.view_token])
    context.update(
        {
            "table": table,
            "playing": playing,
            "table_stats": found["members"],
            "for_money_table": any(s["for_money"] for s in summaries),
            "money_rules": stats.money_rules(summaries),
            "tv_live_url": f"{live_url}?v={version}",
            "live": True,
            "version": version,
            "said_for": said_for,
            "stream_url": table.get_view_url() + "stream",
            "watch_url": table.get_view_url(),
        }
    )
    return context


def _no_store(response):
    response["Cache-Control"] = "no-store"
    return response
