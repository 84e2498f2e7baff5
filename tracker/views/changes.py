"""Changes to a game from its edit link: a deal saved, corrected or deleted, a
rejoin, a player joining, sitting out, coming back or leaving, a split, the
end of a session.

Every change names the revision its form was made against (`made_against`).
A form made before another phone's change, or the same post sent twice, is
answered 409 with the game as it is now and what was typed filled in again;
nothing is changed. A post without a whole-number version gets 400.
"""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy, gettext_noop
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from .. import i18n, rules, tables
from ..forms import DealForm, JoinForm, SplitForm
from ..models import Event, Game, StaleHistory
from ..rules.money_format import plays_for_money
from ..screens import scoreboard
from .common import HtmxHttpRequest, get_game_or_404, made_against, page_or_part
from .games import show_game
from .live import live_part

NO_VERSION = gettext_lazy(
    "Nothing was saved: the form did not say which version of the game it was made for. "
    "Here is the game as it is now."
)


def _back(request, game, state=None, notice=None):
    """After a change: the new game part for htmx, a redirect otherwise.
    `notice` says what else the change moved, shown once."""
    if request.htmx:
        if state is None:
            game.refresh_from_db()
            state = game.state()
        return show_game(request, game, state, can_edit=True, notice=notice)
    if notice:
        messages.info(request, notice)
    if request.GET.get("history") == "all":  # back to the page of every event
        return redirect(game.get_absolute_url() + "?history=all")
    return redirect(game)


def _saved(request, game, state):
    """The htmx answer to a deal saved from the deal form: the board, and out
    of band the history and a fresh form, with the notice and the change slot
    emptied."""
    response = live_part(request, game, state, True, saved=True)
    return reswap(retarget(response, "#board"), "outerHTML")


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
        entry = DealForm(fresh, fresh.in_players, values=typed)
    if version is None:
        status, notice = 400, NO_VERSION
    else:
        new_score = gettext("Here is the new score.")
        status, notice = 409, f"{i18n.someone_else(game.last_change)} {new_score}"
    theirs = scoreboard.deal_summary(fresh, fresh.rows[-1]) if entry and fresh.rows else None
    extra = {"notice": notice, "theirs": theirs}
    if entry is not None:
        extra["entry"] = entry
    return show_game(request, game, fresh, True, status=status, **extra)


def _refused(request, game, error, version=None):
    """A change the engine refused, said above the board."""
    if version is not None and not _still_at(game, version):
        return _stale(request, game, version)
    message = i18n.for_player(error)
    message = message[:1].upper() + message[1:]
    if request.htmx:
        return show_game(request, game, game.state(), True, status=422, notice=message)
    messages.error(request, message)
    return redirect(game)


@require_POST
def add_deal(request: HtmxHttpRequest, token: str) -> HttpResponse:
    game = get_game_or_404(token, can_edit=True)
    version = made_against(request)
    if version != game.revision:  # stale, before anything typed is looked at
        return _stale(request, game, version, typed=request.POST)
    state = game.state()
    form = DealForm(state, state.in_players, data=request.POST)
    if form.nothing_typed and not state.finished:
        # Save tapped on a blank form (a second tap landing on the fresh form
        # after the first saved): nothing to save, and nothing to refuse.
        return show_game(request, game, state, True)
    if state.finished:
        form.add_error(None, gettext("The game is over: no more deals."))
    if form.is_valid() and form.event is not None:
        try:
            new_state = game.add_event(form.event, version, state)
        except StaleHistory:
            return _stale(request, game, version, typed=request.POST)
        except rules.RuleError as error:
            form.refuse(error)
        else:
            if request.htmx:
                return _saved(request, game, new_state)
            return _back(request, game)
    if not _still_at(game, version):  # the state read was already newer than the form
        return _stale(request, game, version, typed=request.POST)
    return show_game(request, game, state, True, status=422, entry=form)


@require_http_methods(["GET", "HEAD", "POST"])
def edit_deal(request: HtmxHttpRequest, token: str, event_id: int) -> HttpResponse:
    game = get_game_or_404(token, can_edit=True)
    version = made_against(request) if request.method == "POST" else game.revision
    if version != game.revision:
        return _stale_edit(request, game, event_id, version)
    found = _deal_before(game, event_id)
    if found is None:
        raise Http404("No such deal.")
    history, position, before = found
    playing = before.in_players
    if request.method != "POST":
        form = DealForm(before, playing, event=history[position])
        return _edit_page(request, game, event_id, position, form)
    form = DealForm(before, playing, data=request.POST)
    if form.is_valid() and form.event is not None:
        old_state = game.replay(history)
        try:
            new_state = game.replace_event(event_id, form.event, version)
        except (StaleHistory, Event.DoesNotExist):
            return _stale_edit(request, game, event_id, version)
        except rules.RuleError as error:
            if error.event == position:
                form.refuse(error)
            else:
                what = _named(error, old_state)
                form.add_error(None, gettext("Not saved: %(what)s") % {"what": what})
        else:
            moved = scoreboard.what_moved(old_state, new_state, position)
            return _back(request, game, new_state, notice=moved)
    if not _still_at(game, version):
        return _stale_edit(request, game, event_id, version)
    return _edit_page(request, game, event_id, position, form, status=422)


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
    entry = DealForm(before, before.in_players, values=request.POST)
    if version is None:
        status, notice = 400, NO_VERSION
    else:
        status = 409
        again = gettext("Your correction is not saved: check it and save again.")
        notice = f"{i18n.someone_else(game.last_change)} {again}"
    return _edit_page(request, game, event_id, position, entry, status=status, notice=notice)


def _edit_page(request, game, event_id, position, entry, status=200, notice=None):
    context = {
        "game": game,
        "entry": entry,
        "state": entry.state,
        "event_id": event_id,
        "notice": notice,
        "number": sum(1 for e in game.history()[: position + 1] if e["type"] == "deal"),
        "in_place": bool(request.htmx),
        "query": "?history=all" if request.GET.get("history") == "all" else "",
    }
    response = page_or_part(request, "tracker/edit_deal.html", "edit-form", context, status)
    if request.htmx and request.method == "POST":
        # The form posts for the whole game; a refusal goes back in its own place.
        response = reswap(retarget(response, "#edit-deal"), "outerHTML")
    return response


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


@require_POST
def delete_event(request: HtmxHttpRequest, token: str, event_id: int) -> HttpResponse:
    game = get_game_or_404(token, can_edit=True)
    version = made_against(request)
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
            return show_game(request, game, game.state(), True, status=422, notice=message)
        messages.error(request, message)
        return redirect(game)
    return _back(request, game, state)


@require_POST
def join(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A new player takes a seat between deals: "Add a player"."""
    game = get_game_or_404(token, can_edit=True)
    version = made_against(request)
    if version != game.revision:
        return _stale(request, game, version)
    state = game.state()
    # When nobody may join now there is no form to show a refusal beside: the
    # engine says why, as a notice.
    shown = scoreboard.seating(state, "")["joinable"]
    form = JoinForm(state, data=request.POST, name_needed=shown)
    if form.is_valid():
        try:
            new_state = game.add_event(form.event, version)
        except StaleHistory:
            return _stale(request, game, version)
        except rules.RuleError as error:
            if not shown:
                return _refused(request, game, error, version)
            if not _still_at(game, version):
                return _stale(request, game, version)
            form.refuse(error)
        else:
            return _back(request, game, new_state)
    return show_game(request, game, state, True, status=422, join_form=form)


@require_POST
def one_event(request: HtmxHttpRequest, token: str, kind: str) -> HttpResponse:
    """A change that is one event and nothing typed: a rejoin, a sit-out, a
    back-in or a leave (of the player named by the button tapped), or the end
    of a session. `kind` comes from the URL."""
    game = get_game_or_404(token, can_edit=True)
    version = made_against(request)
    if version != game.revision:
        return _stale(request, game, version)
    event = {"type": kind}
    if kind != "end":
        event["player"] = request.POST.get("player", "")[:100]
    try:
        state = game.add_event(event, version)
    except StaleHistory:
        return _stale(request, game, version)
    except rules.RuleError as error:
        return _refused(request, game, error, version)
    return _back(request, game, state)


@require_http_methods(["GET", "HEAD", "POST"])
def split(request: HtmxHttpRequest, token: str) -> HttpResponse:
    game = get_game_or_404(token, can_edit=True)
    confirmed = request.method == "POST" and "confirm" in request.POST
    version = made_against(request) if confirmed else None
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
    form = SplitForm(state, request.POST if request.method == "POST" else request.GET)
    ok = form.check(refuse_blank=request.method == "POST" and not stale)
    if confirmed and not stale and ok:
        try:
            new_state = game.add_event(form.event, version)
        except StaleHistory:
            return _stale(request, game, version)
        except rules.RuleError as refused:
            return _refused(request, game, refused, version)
        return _back(request, game, new_state)
    if confirmed and not stale and not _still_at(game, version):
        return _stale(request, game, version)
    notice = None
    if stale:  # the pot can still be split: the page again, as typed, on the new score
        again = gettext("Nothing was split: check the shares and split again.")
        notice = f"{i18n.someone_else(game.last_change)} {again}"
    context = {
        "game": game,
        "state": state,
        "form": form,
        "for_money": plays_for_money(state.rules),
        "notice": notice,
        "in_place": bool(request.htmx),
        "query": "?history=all" if request.GET.get("history") == "all" else "",
    }
    status = 409 if stale else 200 if ok else 422
    response = page_or_part(request, "tracker/split.html", "split-panel", context, status)
    if request.htmx and request.method == "POST":
        response = reswap(retarget(response, "#split"), "outerHTML")
    return response


@require_POST
def remove_game(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Remove a game (a mistaken start, a stray Play again, a duplicate import):
    it can be put back for 30 days. Back to where the family came from: its
    table's page, or the home page."""
    game = get_game_or_404(token, can_edit=True)
    version = made_against(request)
    try:
        game.remove(version)
    except StaleHistory:
        return _stale(request, game, version)
    messages.success(
        request,
        gettext("Removed “%(name)s”: it can be put back from Removed until %(date)s.")
        % {"name": game.shown_name, "date": date_format(game.gone_at)},
    )
    back = game.table.get_absolute_url() if game.table_id else reverse("home")
    if request.htmx:
        return HttpResponseClientRedirect(back)
    return redirect(back)


@require_POST
def put_back(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A removed game back in its table's list and stats (or in Your games)."""
    game = Game.by_link(token, can_edit=True)
    if game is None or Game.objects.gone().filter(pk=game.pk).exists():
        raise Http404("No game has that link.")
    if game.table_id is None:
        game.put_back()
    else:
        try:
            tables.put_back(game)
        except tables.BackAlready as twins:
            messages.error(request, twins.message)
            return redirect(game.table)
    messages.success(request, gettext("Put back “%(name)s”.") % {"name": game.shown_name})
    return redirect(game)
