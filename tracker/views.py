"""Thin views: load the game, hand the change to the model and the engine, render.

Every form posts and redirects back (Post/Redirect/Get) without JavaScript;
an htmx request gets the re-rendered part of the same template instead.
"""

import functools
import hashlib
import hmac
import pickle
import time
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import get_language, gettext, gettext_lazy, gettext_noop
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from . import allowance, document, i18n, rules, scoreboard, share
from .calculator import Calculator
from .chart import running_totals_svg
from .csrf_token import masked_token
from .forms import (
    FORMAT_CHOICES,
    DealEntry,
    JoinEntry,
    NewGame,
    split_share_errors,
    split_shares_typed,
)
from .models import Event, Game, StaleHistory, token_key

YOUR_GAMES = "games"  # session key: the links this browser has opened
YOUR_GAMES_KEPT = 30


def _get_game_or_404(token, can_edit):
    game = Game.by_link(token, can_edit)
    if game is None:
        raise Http404("No game has that link.")
    return game


def _client_key(request):
    return allowance.client_key(request)


def _too_many_games(request, count=1):
    """New games per client per hour are limited, so a script cannot fill the database
    (tracker/allowance.py). Asked before a file is read; the charge made with the
    games themselves, inside their transaction, decides (allowance.Spent)."""
    return not allowance.has_room(_client_key(request), count)


TOO_MANY = gettext_lazy("Too many new games from this address in the last hour. Try again later.")


def _remember(request, game, can_edit):
    """Add the game to this browser's "your games" list."""
    kept = request.session.get(YOUR_GAMES, [])
    token = game.edit_token if can_edit else game.view_token
    entry = [token, can_edit]
    if entry in kept:
        return
    # An edit link outranks a view link of the same game.
    kept = [e for e in kept if e[0] != game.view_token] if can_edit else kept
    if not can_edit and [game.edit_token, True] in kept:
        return
    request.session[YOUR_GAMES] = [entry, *kept][:YOUR_GAMES_KEPT]


def _your_games(request, show):
    kept = request.session.get(YOUR_GAMES, [])
    edit = [t for t, e in kept if e]
    view = [t for t, e in kept if not e]
    games = Game.objects.filter(edit_token__in=edit) | Game.objects.filter(view_token__in=view)
    listed = []
    for game in games.prefetch_related("players", "events").order_by("-updated_at"):
        state = game.replay(
            [e.as_dict() for e in game.events.all()], [p.name for p in game.players.all()]
        )
        if show and state.status != show:
            continue
        url = game.get_absolute_url() if game.edit_token in edit else game.get_view_url()
        listed.append({"game": game, "state": state, "url": url})
    return listed


@require_GET
def home(request):
    show = request.GET.get("show", "")
    show = show if show in ("in_progress", "finished") else ""
    from .table_views import your_tables

    context = {"games": _your_games(request, show), "show": show, "tables": your_tables(request)}
    if request.htmx:
        return render(request, "tracker/home.html#your-games", context)
    return render(request, "tracker/home.html", context)


@require_http_methods(["GET", "POST"])
def new_game(request):
    if request.method == "GET":
        return render(
            request, "tracker/new_game.html", {"form": NewGame(), "formats": FORMAT_CHOICES}
        )
    form = NewGame(request.POST)
    action = request.POST.get("action", "")
    if action and form.edit_seats(action):
        # A seat or format button: show the form again, nothing is saved.
        template = "tracker/new_game.html#form" if request.htmx else "tracker/new_game.html"
        return render(request, template, {"form": form, "formats": FORMAT_CHOICES})
    fmt, table_rules = form.table_rules()
    names, dealer = form.seats()
    form.check_rules(fmt, table_rules)
    game = None
    status = 422
    if not form.errors and _too_many_games(request):
        form.errors["form"] = TOO_MANY
        status = 429
    if not form.errors:
        try:
            game = Game.create(
                fmt, table_rules, names, dealer, name=form.name, created_from=_client_key(request)
            )
        except rules.RuleError as error:
            form.add_error(error)
        except allowance.Spent:
            form.errors["form"] = TOO_MANY
            status = 429
    if game is None:
        template = "tracker/new_game.html#form" if request.htmx else "tracker/new_game.html"
        context = {"form": form, "formats": FORMAT_CHOICES}
        return render(request, template, context, status=status)
    _remember(request, game, can_edit=True)
    if request.htmx:
        return HttpResponseClientRedirect(game.get_absolute_url())
    return redirect(game)


def _game_context(
    game,
    state,
    can_edit,
    entry=None,
    all_events=False,
    join_entry=None,
    step=False,
    language=None,
    **extra,
):
    """What the game screen shows. `step`: only the newest event of the history,
    for the answer that adds it to a history already shown (`_is_step`).
    `language`: the active one, when the caller has read it (a thread-local)."""
    language = language or get_language()
    say = scoreboard.say_in(language)
    if can_edit and entry is None and not state.finished:
        entry = DealEntry(state, state.in_players, say=say)
    limit = None if all_events else scoreboard.RECENT
    fee = Decimal(state.rules.get("entry_fee", "0"))
    standings = scoreboard.standings(state, language)
    history = scoreboard.with_deal_heads(
        _with_ids(game, state, scoreboard.history(state, 1 if step else limit, language)),
        can_edit,
        game.edit_token,
        language,
    )
    settlement = scoreboard.settlement(state, say)
    layout = scoreboard.layout(state, rules.money(state.pot), say)
    return {
        "game": game,
        "state": state,
        "can_edit": can_edit,
        "entry": entry,
        "version": str(game.revision),  # shown as text: no number formatting each time
        "format_label": scoreboard.format_label(game.format, say),
        "standings": standings,
        "standings_html": scoreboard.standings_html(standings),
        "name_heads_html": scoreboard.name_heads_html(standings),
        "column_heads_html": scoreboard.column_heads_html(layout["columns"]),
        "history": history,
        "history_html": scoreboard.history_rows_html(history),
        "events_hidden": max(0, state.row_count - limit) if limit else 0,
        "all_events": all_events,
        # The deal form's "discard it" link, shown only beside the other phone's deal.
        "page_url": (
            game.get_absolute_url() + ("?history=all" if all_events else "")
            if extra.get("theirs")
            else ""
        ),
        "step": step,
        "past_recent": _PAST_RECENT,
        "banner": scoreboard.banner(state),
        "settlement": settlement,
        "settlement_html": scoreboard.settlement_html(settlement),
        "figure_name": scoreboard.figure_name(state, say),
        "figure_plural": scoreboard.figure_plural(state, say),
        "rejoin_notes": scoreboard.rejoin_notes(state) if can_edit else [],
        "pot": rules.money(state.pot),
        **layout,
        "rejoins": [
            {"name": name, "start": state.rejoin_total(), "pot": rules.money(state.pot + fee)}
            for name in state.can_rejoin
        ],
        "seating": scoreboard.seating(state, rules.money(state.pot + fee)),
        "join_entry": join_entry or JoinEntry(state),
        **extra,
    }


# The first history row a step takes off (the newest RECENT stay), as text: a
# whole number printed by the template is localized (the language, three format
# lookups).
_PAST_RECENT = str(scoreboard.RECENT + 1)


def _with_ids(game, state, rows):
    """The history rows with the id of each event, for its Edit and Undo forms."""
    ids = getattr(game, "event_ids", None)  # read with the history `state` replays
    if ids is None or len(ids) != state.row_count:
        ids = list(game.events.values_list("serial", flat=True))
    for row in rows:
        row["event_id"] = ids[row["position"]]
    return rows


def _show_game(request, game, state, can_edit, status=200, **extra):
    extra.setdefault("all_events", _all_events(request))
    context = _game_context(game, state, can_edit, **extra)
    if request.htmx:
        return render(request, "tracker/game.html#game", context, status=status)
    return render(request, "tracker/game.html", context, status=status)


def _state(game):
    """The state `game`'s history replays to at its revision, replayed once per
    revision for every worker: kept in the shared cache beside the pages."""
    found = _kept_entry(game.view_key, game.revision)
    if found is not None:
        kept, state = pickle.loads(found[0])
        if isinstance(kept, Game):  # (a game kept as its model, before `as_kept`)
            kept = kept.as_kept()
        if kept[2] is not None:  # the ids of the events `state` replayed
            game.event_ids = kept[2]
        return state
    state = game.state()
    _keep_state(game, state)
    return state


def _game_and_state(token, can_edit, revision, view_key, found=None):
    """The game and its state at `revision`, for a link already checked (the
    game's view key read with it): from the shared cache when a change or
    another reader left them there. `found`: the entry `_kept_entry` gave, when
    the caller read it already."""
    found = found or _kept_entry(view_key, revision)
    if found is not None:
        kept, state = pickle.loads(found[0])
        if isinstance(kept, Game):  # (a game kept as its model, before `as_kept`)
            return kept, state
        return Game.from_kept(kept), state
    game = _get_game_or_404(token, can_edit)
    state = game.state()
    if game.revision == revision:
        _keep_state(game, state)
    return game, state


def _keep_state(game, state, parts=None):
    """Keep the game row and its state under its revision, once for either link.

    A change replayed the new state already, so the next reader need not.
    Every reader unpickles a copy of its own. The game is kept as its values
    (`Game.as_kept`): a reader with the row already takes only its event ids.
    `parts`: the steps a deal saved rendered for the other phones' next poll
    (`_saved`), by their `_game_part_key`, kept in the same entry, so a save
    writes one cache file, not one for its state and one for its step.
    """
    kept = pickle.dumps((game.as_kept(), state), pickle.HIGHEST_PROTOCOL)
    cache.set(_state_key(game.view_key, game.revision), (kept, parts) if parts else kept)


def _kept_entry(view_key, revision):
    """What `_keep_state` kept for `revision`: (the game and state pickled, the
    steps kept with them by their keys), or None. A state kept alone (by a
    change other than a deal, a reader that replayed it, or an older version)
    is the pickle only: it has no steps."""
    found = cache.get(_state_key(view_key, revision))
    if found is None or isinstance(found, tuple):
        return found
    return found, {}


def _state_key(view_key, revision):
    """Keyed by the view link's key: an edit link's reader has the game's view
    key from the row (or the narrow read of `_live`), a watcher from its link."""
    return f"game-state:{view_key}:{revision}"


# Cached pages hold this in place of the CSRF token, which differs per browser.
# The same in every worker and server sharing the cache, made from the secret
# key so no name a player types can match it.
CSRF_SLOT = (
    "csrf-slot-" + hmac.new(settings.SECRET_KEY.encode(), b"csrf-slot", "sha256").hexdigest()[:32]
)


def _cached_game_part(
    request,
    token,
    revision,
    can_edit,
    part,
    game=None,
    state=None,
    view_key=None,
    kept=None,
    **extra,
):
    """A game page or fragment, rendered once per revision of the history.

    The history is the truth and the revision changes with every change to
    it, so a page rendered for a revision stays right until the next change
    (`make bench` shows this is where the time goes). Only the CSRF token
    differs between browsers: it is put in on the way out. A cached part
    needs only the link, the revision and the view key: the game is read on a miss.
    `state`, when given, is the one a change just replayed for `revision`:
    nothing can be kept for a revision that new, so it is rendered at once.
    `kept`: the revision's `_kept_entry`, when the caller read it already.
    """
    key = _game_part_key(request, token, revision, can_edit, part, extra)
    # The game row is read before the events, so a deal saved in between can
    # be in a page cached under the revision before it; the next poll asks
    # for the newer revision and corrects it.
    html = cache.get(key) if state is None else None
    if html is None:
        if game is None:
            game, state = _game_and_state(token, can_edit, revision, view_key, kept)
        elif state is None:
            state = _state(game)
        context = _game_context(game, state, can_edit, **extra)
        html = _render_game_part(request, key, context, part)
    if not can_edit:
        _mark_watched(view_key or game.view_key)
    return HttpResponse(_with_csrf_token(request, html))


# How long a view link counts as watched after it was first shown a board: while
# it is, a deal saved renders the watchers' board too (`_saved`); after it, the
# first watcher's poll renders it and marks the link watched again.
WATCHED_FOR = 10 * 60


def _watched_key(view_key):
    return f"game-watched:{view_key}"


_MARKED = {}  # view key: when this process last marked it watched (time.monotonic)


def _mark_watched(view_key):
    """Someone watches `view_key`'s game: marked in the shared cache once in
    WATCHED_FOR (`cache.add`), and asked of the cache by this process at most
    once a minute, not on every board a watcher is shown (a file read each). A
    mark culled from the cache meanwhile is made again within that minute; until
    then the watchers' first poll renders their board, as for a game unwatched."""
    now = time.monotonic()
    if now - _MARKED.get(view_key, -WATCHED_FOR) < WATCHED_FOR / 10:
        return
    if len(_MARKED) >= 4096:
        _MARKED.clear()
    _MARKED[view_key] = now
    cache.add(_watched_key(view_key), True, WATCHED_FOR)


_CSRF_SLOT_BYTES = CSRF_SLOT.encode()


def _with_csrf_token(request, html):
    """`html` (a kept part: UTF-8 bytes) with this browser's CSRF token in its
    forms. A part with no form (a watcher's board) asks for no token, so it sets
    no cookie either."""
    if isinstance(html, str):  # (a part kept as text by an older version)
        html = html.encode()
    if _CSRF_SLOT_BYTES not in html:
        return html
    return html.replace(_CSRF_SLOT_BYTES, masked_token(request).encode())


def _game_part_key(request, token, revision, can_edit, part, extra, language=None):
    """`language`: the active one, when the caller has read it."""
    parts = [part, token_key(token), revision, can_edit, request.scheme, request.get_host()]
    parts.append(language or get_language())  # English and Hindi pages are cached apart
    parts += sorted(extra.items())
    return "game-html:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def _render_game_part(request, key, context, part):
    """Render a game part (`_rendered_part`) and keep it under `key`."""
    html = _rendered_part(request, context, part)
    cache.set(key, html)
    return html


def _rendered_part(request, context, part):
    """A game part with the CSRF slot in place of the token, as the bytes of the
    answer: encoded once, for the cache and every answer made from it, not
    again for each."""
    context["csrf_token"] = CSRF_SLOT
    template = "tracker/game.html" if part == "page" else f"tracker/game.html#{part}"
    return render_to_string(template, context, request=request).encode()


def _all_events(request):
    """Whether the request comes from the page of every event ("Show all N
    events", `?history=all`). Its poll and its deal form say so in their own
    link, as the page's does; any other change posted from it with htmx (an
    undo, a correction, a player added) by the page's link htmx sends with it."""
    if request.GET.get("history") == "all":
        return True
    if request.method != "POST" or not request.htmx:
        return False
    if "history=all" not in request.headers.get("HX-Current-URL", ""):
        return False  # the page's link is read apart only when it may say so
    page = urlsplit(request.htmx.current_url_abs_path or "")
    return parse_qs(page.query).get("history") == ["all"]


def _live_extra(all_events):
    """The `extra` of a live fragment or step: the page of every event's apart."""
    return {"oob": True, "all_events": True} if all_events else {"oob": True}


def _game_page(request, game, can_edit):
    all_events = _all_events(request)
    if get_messages(request):
        # A message for this browser only: render afresh, not from the cache.
        return _show_game(request, game, game.state(), can_edit, all_events=all_events)
    part = "game" if request.htmx else "page"
    token = game.edit_token if can_edit else game.view_token
    return _cached_game_part(
        request, token, game.revision, can_edit, part, game, all_events=all_events
    )


@gzip_page  # the first load of a game: about 20 KB of HTML, 4 KB compressed
@require_GET
def game(request, token):
    game = _get_game_or_404(token, can_edit=True)
    _remember(request, game, can_edit=True)
    return _game_page(request, game, can_edit=True)


@gzip_page
@require_GET
def watch(request, token):
    game = _get_game_or_404(token, can_edit=False)
    _remember(request, game, can_edit=False)
    return _game_page(request, game, can_edit=False)


@require_GET
def qr_code(request, token, kind):
    """The QR code of a game link, as SVG. The edit link's code needs the edit link."""
    game = _get_game_or_404(token, can_edit=True)
    url = request.build_absolute_uri(
        game.get_absolute_url() if kind == "edit" else game.get_view_url()
    )
    title = (
        gettext("QR code of the edit link")
        if kind == "edit"
        else gettext("QR code of the view link")
    )
    return _svg(share.qr_svg(url, title=title))


@require_GET
def watch_qr_code(request, token):
    game = _get_game_or_404(token, can_edit=False)
    url = request.build_absolute_uri(game.get_view_url())
    return _svg(share.qr_svg(url, title=gettext("QR code of the view link")))


def _svg(svg):
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "private, max-age=86400"
    return response


@require_GET
def live(request, token):
    return _live(request, token, can_edit=True)


@require_GET
def watch_live(request, token):
    return _live(request, token, can_edit=False)


def _live(request, token, can_edit):
    """The poll of the scoreboard: 204 while nothing changed, else the new board.

    The unchanged answer is the one asked every two seconds by every phone,
    so it reads only the revision of the link's game; the game itself, and
    its history, only when something changed.
    """
    found = Game.revision_by_link(token, can_edit)
    if found is None:
        raise Http404("No game has that link.")
    revision, view_key = found
    shown = request.GET.get("v")
    all_events = _all_events(request)
    extra = _live_extra(all_events)
    if shown == str(revision):
        response = HttpResponse(status=204)
    else:
        # A phone one revision behind is answered with the step a save kept
        # for it beside the state (`_saved`), when the change was one. The page
        # of every event has no step: it is sent its whole history, kept under
        # its own key.
        kept = (
            _kept_entry(view_key, revision)
            if shown == str(revision - 1) and not all_events
            else None
        )
        step = (
            kept[1].get(_game_part_key(request, token, revision, can_edit, "step", extra))
            if kept is not None
            else None
        )
        if step is not None:
            response = HttpResponse(_with_csrf_token(request, step))
            if not can_edit:
                _mark_watched(view_key)
        else:
            response = _cached_game_part(
                request, token, revision, can_edit, "live", view_key=view_key, kept=kept, **extra
            )
    response["Cache-Control"] = "no-store"
    return response


def _done(request, game, state=None, notice=None, live=False):
    """After a change: the new game part for htmx, a redirect otherwise.

    `state` is the one the change replayed, so nothing is read again.
    `notice` says what else the change moved, shown once.
    `live`: the change was posted from a screen that has the deal form (the
    game was not over), so it is answered as the other editing phones'
    polls will be (`_saved`), not with the whole `#game`.
    """
    if request.htmx and live and state is not None and notice is None:
        return _saved(request, game, state)  # keeps the state with its step
    if state is not None:
        _keep_state(game, state)
    if request.htmx:
        if state is None:
            game.refresh_from_db()
            state = _state(game)
        return _show_game(request, game, state, can_edit=True, notice=notice)
    if notice:
        messages.info(request, notice)
    if _all_events(request):  # back to the page of every event it was posted from
        return redirect(game.get_absolute_url() + "?history=all")
    return redirect(game)


def _saved(request, game, state):
    """The htmx answer to a deal saved: the edit link's step to the new revision
    (`_is_step`), or else its live fragment (the board, and out of band the
    history and a fresh deal form), swapped in place of the board, and the
    notice and change slot emptied.

    It is the fragment the other editing phones' next poll asks for, so it is
    rendered once and kept for them under the new revision: their first poll
    finds it. So is the view link's, when someone watches it (a view link was
    shown a board in the last WATCHED_FOR seconds); if nobody does, the first
    watcher renders it. A step is kept in the same cache entry as the new
    state (`_keep_state`): one file a save. What is above the board (a notice
    from before) and an open edit in the change slot are emptied as a swap of
    the whole `#game` empties them.

    Saved from the page of every event (`_all_events`), the other phones'
    part is still kept for them, and this page is answered with its live
    fragment, the whole history in it, kept for the other phones on that page.
    """
    extra = _live_extra(False)
    part = "step" if _is_step(state) else "live"
    language = get_language()
    context = _game_context(game, state, True, step=part == "step", language=language, **extra)
    key = _game_part_key(request, game.edit_token, game.revision, True, part, extra, language)
    parts = {key: _rendered_part(request, context, part)}
    html = parts[key]
    if cache.get(_watched_key(game.view_key)):
        watched = _watch_context(context)
        key = _game_part_key(request, game.view_token, game.revision, False, part, extra, language)
        parts[key] = _rendered_part(request, watched, part)
    if part == "step":  # found by the poll of a phone one revision behind (`_live`)
        _keep_state(game, state, parts)
    else:  # found by any poll, as a part of its own
        _keep_state(game, state)
        for key, kept in parts.items():
            cache.set(key, kept)
    if _all_events(request):
        extra = _live_extra(True)
        context = _game_context(game, state, True, **extra)
        key = _game_part_key(request, game.edit_token, game.revision, True, "live", extra)
        html = _render_game_part(request, key, context, "live")
    response = HttpResponse(_with_csrf_token(request, html))
    response.content += _emptied()
    return reswap(retarget(response, "#board"), "outerHTML")


@functools.cache
def _emptied():
    """The notice and change slot emptied after a save (`saved` in game.html):
    the same bytes every time, so rendered once per process."""
    return render_to_string("tracker/game.html#saved").encode()


def _is_step(state):
    """Whether the change that made `state` can be shown as a step from the board
    before it: a deal added to a game that goes on, to a history that already
    had rows, none of them an event with an Undo form (whose version would go
    stale). Its answer is then the board, the new row, the rows beyond the
    newest RECENT taken off, the "Show all" link and the chart: not the
    whole history again (`step` in templates/tracker/game.html). Told by the
    state's count of its newest deals, without reading those rows."""
    count = state.row_count
    if state.finished or count < 2:
        return False
    return state.newest_deals >= min(scoreboard.RECENT, count)


def _watch_context(context):
    """The view link's context laid out from the edit link's `context` for the same
    state: the standings, settlement and board are the same; the history's deal
    boxes lose their Edit links, and nothing of the deal form or the notes is shown."""
    rows = [dict(row) for row in context["history"]]
    token = context["game"].edit_token
    history = scoreboard.with_deal_heads(rows, False, token)
    return {
        **context,
        "can_edit": False,
        "entry": None,
        "rejoin_notes": [],
        "history": history,
        "history_html": scoreboard.history_rows_html(history),
    }


def _made_against(request):
    """The revision the posted form was made against, or None if it is missing or
    not a plain whole number: such a post is refused, never saved unchecked."""
    typed = request.POST.get("version", "")
    if typed.isascii() and typed.isdigit() and len(typed) <= 10:
        return int(typed)
    return None


NO_VERSION = gettext_lazy(
    "Nothing was saved: the form did not say which version of the game it was made for. "
    "Here is the game as it is now."
)


def _someone_else(game):
    """Who changed the game, from its change as stored in English ("saved deal
    3"), in the reader's language: "Someone else just saved deal 3."."""
    return i18n.someone_else(game.last_change)


def _still_at(game, version):
    """Whether the stored history is still at `version` (read again, not from `game`)."""
    return Game.objects.filter(pk=game.pk, revision=version).exists()


def _stale(request, game, version, typed=None):
    """The answer to a post made against another version of the game: the game as
    it is now, the deal typed (if any) filled in again; 409, or 400 with no version."""
    game.refresh_from_db()
    fresh = game.state()
    entry = None
    if typed is not None and not fresh.finished:
        entry = DealEntry(fresh, fresh.in_players, data=typed)
    if version is None:
        status, notice = 400, NO_VERSION
    else:
        new_score = gettext("Here is the new score.")
        status, notice = 409, f"{_someone_else(game)} {new_score}"
    theirs = scoreboard.deal_summary(fresh, fresh.rows[-1]) if entry and fresh.rows else None
    return _show_game(
        request, game, fresh, True, status=status, entry=entry, notice=notice, theirs=theirs
    )


@require_POST
def add_deal(request, token):
    game = _get_game_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != game.revision:  # stale, before anything typed is looked at
        return _stale(request, game, version, typed=request.POST)
    state = _state(game)
    entry = DealEntry(state, state.in_players, data=request.POST)
    if state.finished:
        entry.errors["form"] = gettext("The game is over: no more deals.")
    event = entry.event() if not state.finished else None
    if event is not None:
        try:
            new_state = game.add_event(event, version, state=state)
        except StaleHistory:
            return _stale(request, game, version, typed=request.POST)
        except rules.RuleError as error:
            entry.add_error(error)
        else:
            return _done(request, game, new_state, live=True)
    if not _still_at(game, version):  # the state read was already newer than the form
        return _stale(request, game, version, typed=request.POST)
    return _show_game(request, game, state, True, status=422, entry=entry)


@require_http_methods(["GET", "POST"])
def edit_deal(request, token, event_id):
    game = _get_game_or_404(token, can_edit=True)
    version = _made_against(request) if request.method == "POST" else game.revision
    if version != game.revision:
        return _stale_edit(request, game, event_id, version)
    found = _deal_before(game, event_id)
    if found is None:
        raise Http404("No such deal.")
    history, position, before = found
    playing = before.in_players
    if request.method == "GET":
        entry = DealEntry(before, playing, event=history[position])
        return _edit_page(request, game, event_id, position, entry)
    entry = DealEntry(before, playing, data=request.POST)
    event = entry.event()
    if event is not None:
        old_state = game.replay(history)
        try:
            new_state = game.replace_event(event_id, event, version)
        except (StaleHistory, Event.DoesNotExist):
            return _stale_edit(request, game, event_id, version)
        except rules.RuleError as error:
            if error.event == position:
                entry.add_error(error)
            else:
                entry.errors["form"] = gettext("Not saved: %(what)s") % {
                    "what": _named(error, old_state)
                }
        else:
            moved = scoreboard.what_moved(old_state, new_state, position)
            return _done(request, game, new_state, notice=moved)
    if not _still_at(game, version):
        return _stale_edit(request, game, event_id, version)
    return _edit_page(request, game, event_id, position, entry, status=422)


def _deal_before(game, event_id):
    """(history, position, state before it) of the deal with that id, or None."""
    history = game.history()
    if event_id not in game.event_ids:
        return None
    position = game.event_ids.index(event_id)
    if history[position]["type"] != "deal":
        return None
    return history, position, game.replay(history[:position])


def _stale_edit(request, game, event_id, version):
    """A correction made against another version: the same deal as it stands now,
    with what was typed filled in again, or the game if the deal is gone."""
    game.refresh_from_db()
    found = _deal_before(game, event_id)
    if found is None:
        return _stale(request, game, version)
    _, position, before = found
    entry = DealEntry(before, before.in_players, data=request.POST)
    if version is None:
        status, notice = 400, NO_VERSION
    else:
        status = 409
        again = gettext("Your correction is not saved: check it and save again.")
        notice = f"{_someone_else(game)} {again}"
    return _edit_page(request, game, event_id, position, entry, status=status, notice=notice)


def _named(error, old_state, removed=None):
    """What a correction would break, named as the screen shows it now.

    `error.event` is an index in the changed history; `removed` is the index
    deleted from it (so later events are one further on in the screen's list).
    """
    index = error.event
    if index is not None and removed is not None and index >= removed:
        index += 1
    row = old_state.rows[index] if index is not None and index < len(old_state.rows) else None
    message = i18n.for_player(error)
    if row is None:
        return gettext("a later event would no longer stand: %(why)s.") % {"why": message}
    if row.type == "deal":
        return gettext("deal %(n)s would no longer stand (%(why)s).") % {
            "n": row.number,
            "why": message,
        }
    before = sum(1 for r in old_state.rows[:index] if r.type == "deal")
    if before:
        when = gettext("after deal %(n)s") % {"n": before}
    else:
        when = gettext("before the first deal")
    who, cannot, why = message.partition(" cannot ")
    if cannot and ": " in why:  # English only: "Kiran cannot rejoin: the highest total ..."
        verb, _, why = why.partition(": ")
        return f"{who} could no longer {verb} {when}: {why}."
    return gettext("%(event)s %(when)s would no longer stand (%(why)s).") % {
        "event": gettext(EVENT_NAMES.get(row.type, f"the {row.type.replace('_', ' ')}")),
        "when": when,
        "why": message,
    }


# A history's event other than a deal, as `_named` names it.
EVENT_NAMES = {
    "rejoin": gettext_noop("the rejoin"),
    "split": gettext_noop("the split"),
    "end": gettext_noop("the end"),
    "join": gettext_noop("the join"),
    "sit_out": gettext_noop("the sit out"),
    "sit_in": gettext_noop("the sit in"),
    "leave": gettext_noop("the leave"),
}


def _edit_page(request, game, event_id, position, entry, status=200, notice=None):
    context = {
        "game": game,
        "entry": entry,
        "event_id": event_id,
        "version": game.revision,
        "notice": notice,
        "number": sum(1 for e in game.events.all()[: position + 1] if e.type == "deal"),
    }
    context["in_place"] = bool(request.htmx)
    template = "tracker/edit_deal.html#edit-form" if request.htmx else "tracker/edit_deal.html"
    response = render(request, template, context, status=status)
    if request.htmx and request.method == "POST":
        # The form posts for the whole game; a refusal goes back in its own place.
        response = reswap(retarget(response, "#edit-deal"), "outerHTML")
    return response


@require_POST
def delete_event(request, token, event_id):
    game = _get_game_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != game.revision:
        return _stale(request, game, version)
    old_history = game.history()
    ids = game.event_ids
    removed = ids.index(event_id) if event_id in ids else None
    try:
        state = game.delete_event(event_id, version)
    except StaleHistory:
        return _stale(request, game, version)
    except Event.DoesNotExist:
        raise Http404("No such deal.") from None
    except rules.RuleError as error:
        named = _named(error, game.replay(old_history), removed)
        message = gettext("Not deleted: %(what)s") % {"what": named}
        if request.htmx:
            state = game.state()
            return _show_game(request, game, state, True, status=422, notice=message)
        messages.error(request, message)
        return redirect(game)
    return _done(request, game, state)


@require_POST
def rejoin(request, token):
    return _player_change(request, token, "rejoin")


@require_POST
def join(request, token):
    """A new player takes a seat between deals: "Add a player"."""
    game = _get_game_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != game.revision:
        return _stale(request, game, version)
    state = game.state()
    entry = JoinEntry(state, data=request.POST)
    # When nobody may join now there is no form to show a refusal beside: the
    # engine says why, as a notice.
    shown = scoreboard.seating(state, "")["joinable"]
    event = entry.event(check_name=shown)
    if event is not None:
        try:
            new_state = game.add_event(event, version, state=state)
        except StaleHistory:
            return _stale(request, game, version)
        except rules.RuleError as error:
            if not shown:
                return _refused(request, game, error, version)
            if not _still_at(game, version):
                return _stale(request, game, version)
            entry.add_error(error)
        else:
            return _done(request, game, new_state)
    return _show_game(request, game, state, True, status=422, join_entry=entry)


def _player_change(request, token, kind):
    """A rejoin, sit-out, back-in or leave: an event that names one player."""
    game = _get_game_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != game.revision:
        return _stale(request, game, version)
    name = request.POST.get("player", "")[:100]
    try:
        state = game.add_event({"type": kind, "player": name}, version)
    except StaleHistory:
        return _stale(request, game, version)
    except rules.RuleError as error:
        return _refused(request, game, error, version)
    return _done(request, game, state)


@require_POST
def sit_out(request, token):
    return _player_change(request, token, "sit_out")


@require_POST
def sit_in(request, token):
    return _player_change(request, token, "sit_in")


@require_POST
def leave(request, token):
    return _player_change(request, token, "leave")


@require_POST
def end_session(request, token):
    game = _get_game_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != game.revision:
        return _stale(request, game, version)
    try:
        state = game.add_event({"type": "end"}, version)
    except StaleHistory:
        return _stale(request, game, version)
    except rules.RuleError as error:
        return _refused(request, game, error, version)
    return _done(request, game, state)


def _refused(request, game, error, version=None):
    if version is not None and not _still_at(game, version):
        return _stale(request, game, version)
    message = i18n.for_player(error)
    message = message[:1].upper() + message[1:]
    if request.htmx:
        return _show_game(request, game, game.state(), True, status=422, notice=message)
    messages.error(request, message)
    return redirect(game)


SPLIT_METHODS = [
    ("drops", gettext_noop("By drops left")),
    ("equal", gettext_noop("Equally")),
    ("custom", gettext_noop("Typed amounts")),
]


@require_http_methods(["GET", "POST"])
def split(request, token):
    game = _get_game_or_404(token, can_edit=True)
    confirmed = request.method == "POST" and "confirm" in request.POST
    version = _made_against(request) if confirmed else None
    stale = confirmed and version != game.revision
    if stale and version is None:
        return _stale(request, game, version)
    state = game.state()
    if not state.can_split:
        if stale or (confirmed and not _still_at(game, version)):
            return _stale(request, game, version)
        if request.method == "POST":
            refusal = rules.RuleError(gettext_noop("a split needs two or three players still in"))
            return _refused(request, game, refusal)
        raise Http404("This game cannot be split now.")
    data = request.POST if request.method == "POST" else request.GET
    method = data.get("method", "drops")
    method = method if method in rules.SPLIT_METHODS else "drops"
    typed = split_shares_typed(state, data) if method == "custom" else None
    error = None
    shares = None
    share_errors = split_share_errors(state, typed) if typed else {}
    try:
        shares = state.split_shares(method, typed)
    except rules.RuleError as refused:
        if (request.method == "POST" and not stale) or any(typed.values() if typed else []):
            error = refused
    if error is not None and error.player and method == "custom":
        share_errors.setdefault(error.player, i18n.sentence(error))
    if share_errors:  # each share's refusal is beside its box
        error = rules.RuleError(gettext_noop("check the shares marked above"), field="shares")
    if confirmed and not stale and error is None:
        event = {"type": "split", "method": method}
        if method == "custom":
            event["shares"] = typed
        try:
            new_state = game.add_event(event, version)
        except StaleHistory:
            return _stale(request, game, version)
        except rules.RuleError as refused:
            return _refused(request, game, refused, version)
        return _done(request, game, new_state)
    if confirmed and not stale and not _still_at(game, version):
        return _stale(request, game, version)
    notice = None
    if stale:  # the pot can still be split: the page again, as typed, on the new score
        again = gettext("Nothing was split: check the shares and split again.")
        notice = f"{_someone_else(game)} {again}"
    context = {
        "game": game,
        "state": state,
        "method": method,
        "methods": SPLIT_METHODS,
        "shares": shares,
        "typed": typed or {},
        "error": error,
        "error_text": i18n.for_player(error) if error else "",
        "rows": [
            {
                "player": p,
                "typed": (typed or {}).get(p.name, ""),
                "share": (shares or {}).get(p.name),
                "error": share_errors.get(p.name),
            }
            for p in state.in_players
        ],
        "notice": notice,
        "version": game.revision,
    }
    context["in_place"] = bool(request.htmx)
    template = "tracker/split.html#split-panel" if request.htmx else "tracker/split.html"
    status = 409 if stale else 422 if error else 200
    response = render(request, template, context, status=status)
    if request.htmx and request.method == "POST":
        response = reswap(retarget(response, "#split"), "outerHTML")
    return response


def _download(game, body, content_type, extension):
    response = HttpResponse(body, content_type=content_type)
    filename = slugify(game.name) or "game"
    response["Content-Disposition"] = f'attachment; filename="{filename}.{extension}"'
    return response


@require_GET
def download_json(request, token, can_edit):
    game = _get_game_or_404(token, can_edit=can_edit)
    return _download(game, document.dumps(game.as_document()), "application/json", "json")


@require_GET
def download_csv(request, token, can_edit):
    game = _get_game_or_404(token, can_edit=can_edit)
    # A byte-order mark, so spreadsheet programs read names in any script.
    return _download(game, "\ufeff" + game.as_csv(), "text/csv; charset=utf-8", "csv")


@require_GET
def chart(request, token, can_edit):
    game = _get_game_or_404(token, can_edit=can_edit)
    svg = running_totals_svg(
        game.state(), title=gettext("%(name)s: running totals") % {"name": game.name}
    )
    response = _svg(svg)
    response["Cache-Control"] = "no-cache"
    return response


@require_http_methods(["GET", "POST"])
def import_game(request):
    if request.method == "GET":
        return render(request, "tracker/import.html")
    upload = request.FILES.get("file")
    error = None
    creator = _client_key(request)
    if _too_many_games(request):
        return render(request, "tracker/import.html", {"error": TOO_MANY}, status=429)
    if upload is None:
        error = gettext("Choose a game file (.json) to import.")
    elif upload.size > settings.GAME_FILE_MAX_BYTES:
        error = gettext("That file is too big to be a game.")
    else:
        try:
            text = upload.read().decode("utf-8-sig")
            json_named = upload.name.lower().endswith(".json")
            if text.lstrip().startswith("{") or json_named:
                game = Game.import_document(document.loads(text), created_from=creator)
            else:
                game = Game.import_csv(text, created_from=creator)
        except UnicodeDecodeError:
            error = gettext("That file is not a text file.")
        except rules.RuleError as refused:
            error = gettext("Not imported: %(why)s") % {"why": _readable(refused)}
        except allowance.Spent:
            return render(request, "tracker/import.html", {"error": TOO_MANY}, status=429)
    if error:
        if upload is not None:  # a refused file counts as the game it would have made
            allowance.charge_refused(creator)
        return render(request, "tracker/import.html", {"error": error}, status=422)
    _remember(request, game, can_edit=True)
    return redirect(game)


def _readable(error):
    """An import refusal as a family reads it: "Deal 1, Ravi: points must be ..."
    (the import command keeps the document's own path, history[0] and the key)."""
    where = ""
    if error.event is not None:
        label = error.label or "event"
        if label.startswith("deal"):
            deal = i18n.phrase(label)  # "Deal 4"
            where = deal[:1].upper() + deal[1:]
        else:
            where = gettext("Event %(n)s (%(type)s)") % {
                "n": error.event + 1,
                "type": label.replace("_", " "),
            }
    message = i18n.refusal(error)
    if error.player and not error.message.startswith(f"{error.player} "):
        where = f"{where}, {error.player}" if where else error.player
    text = f"{where}: {message}" if where else message
    return text if text.endswith((".", "।")) else i18n.full_stop(text)


@require_GET
def calculator(request):
    """Count any hand: the fewest points, whether it is a valid show, what to discard."""
    calc = Calculator(request.GET)
    context = {"calc": calc, "action": reverse("calculator"), "rules_shown": True}
    template = "tracker/calculator.html#panel" if request.htmx else "tracker/calculator.html"
    return render(request, template, context)


WILD_KEPT = "wild"  # session key: the wild rank last used for a game's deal


@require_GET
def count_cards(request, token, seat):
    """The calculator for one player of the deal being entered, under the table's rules."""
    game = _get_game_or_404(token, can_edit=True)
    state = game.state()
    player = next((p for p in state.in_players if p.seat == seat), None)
    if player is None or state.finished:
        raise Http404("That player is not in this deal.")
    if not state.spec.calculator:
        raise Http404("Every card counts in this game: type the count.")
    deal = [game.view_key[:12], state.deals_played + 1]
    kept = request.session.get(WILD_KEPT, [None, None, ""])
    calc = Calculator(request.GET, game.rules, wild=kept[2] if kept[:2] == deal else "")
    if kept != [*deal, calc.wild]:
        request.session[WILD_KEPT] = [*deal, calc.wild]
    context = {
        "calc": calc,
        "game": game,
        "player": player,
        "action": reverse("count_cards", args=[token, seat]),
        "in_dialog": bool(request.htmx),
    }
    template = "tracker/calculator.html#panel" if request.htmx else "tracker/calculator.html"
    return render(request, template, context)


@require_GET
def favicon(request):
    return redirect(static("favicon.svg"), permanent=True)


def not_found(request, exception=None):
    return render(request, "404.html", status=404)
