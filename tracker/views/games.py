"""The game screens: the home page, a new game, an imported game, the game
screen (edit link) and the same screen read-only (view link), its QR codes,
downloads and chart. What a phone asks after a change is in live.py.

Every form posts and redirects back without JavaScript (Post/Redirect/Get);
an htmx request gets the re-rendered part of the same template instead.
"""

from decimal import Decimal

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from .. import allowance, i18n, rules
from ..documents import game_json
from ..forms import FORMAT_CHOICES, DealForm, JoinForm, NewGameForm
from ..models import Game, MemberError, Table
from ..rules.money_format import plays_for_money
from ..screens import said, scoreboard
from ..screens.chart import running_totals
from .common import (
    TOO_MANY,
    HtmxHttpRequest,
    chart_svg,
    client_key,
    download,
    get_game_or_404,
    link_qr,
    made_here,
    page_or_part,
    remember,
    remembered,
    start_chosen,
    too_many,
)


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    show = request.GET.get("show", "")
    show = show if show in ("in_progress", "finished") else ""
    context = {
        "games": _your_games(request, show),
        "show": show,
        "tables": _your_tables(request),
        # Removed games of a table are put back from the table's page.
        "removed": _your_games(request, removed=True),
    }
    return page_or_part(request, "tracker/home.html", "your-games", context)


def _your_games(request, show="", removed=False):
    """The games this browser opened, newest change first, each with its link and
    state; or (`removed`) the ones without a table it removed, to be put back."""
    games, edit = remembered(request, Game)
    if removed:
        return list(games.removed().filter(table=None, edit_token__in=edit))
    listed = []
    for game in games.kept().prefetch_related("players", "events").order_by("-updated_at"):
        state = game.replay()  # what was read with it: no revision is shown here
        if show and state.status != show:
            continue
        url = game.get_absolute_url() if game.edit_token in edit else game.get_view_url()
        listed.append({"game": game, "state": state, "url": url})
    return listed


def _your_tables(request):
    """The tables this browser opened, newest change first, each with its link."""
    from django.db.models import Count, Max

    tables, edit = remembered(request, Table)
    tables = tables.annotate(last_game=Max("games__updated_at"), game_count=Count("games"))
    listed = [
        {
            "table": t,
            "url": t.get_absolute_url() if t.edit_token in edit else t.get_view_url(),
            "when": max(t.updated_at, t.last_game or t.updated_at),
        }
        for t in tables
    ]
    return sorted(listed, key=lambda item: item["when"], reverse=True)


@require_http_methods(["GET", "HEAD", "POST"])
def new_game(request: HtmxHttpRequest) -> HttpResponse:
    context: dict[str, object] = {"formats": FORMAT_CHOICES}
    if request.method != "POST":
        return render(request, "tracker/new_game.html", {**context, "form": NewGameForm()})
    action = request.POST.get("action", "")
    if action:
        # A seat or format button: the form again as typed, nothing checked or saved.
        shown = NewGameForm(values=request.POST)
        if shown.edit_seats(action):
            context["form"] = shown
            return page_or_part(request, "tracker/new_game.html", "form", context)
    form = NewGameForm(request.POST)
    context["form"] = form
    status = 422
    if form.is_valid() and too_many(request):
        form.add_error(None, TOO_MANY)
        status = 429
    if form.is_valid():
        game, status = start_chosen(request, form, Game.create)
        if game is not None:
            return made_here(request, game)
    return page_or_part(request, "tracker/new_game.html", "form", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def import_game(request: HtmxHttpRequest) -> HttpResponse:
    if request.method != "POST":
        return render(request, "tracker/import.html")
    if too_many(request):
        return render(request, "tracker/import.html", {"error": TOO_MANY}, status=429)
    upload = request.FILES.get("file")
    creator = client_key(request)
    error = None
    if upload is None:
        error = gettext("Choose a game file (.json) to import.")
    elif upload.size > settings.GAME_FILE_MAX_BYTES:
        error = gettext("That file is too big to be a game.")
    else:
        try:
            text = upload.read().decode("utf-8-sig")
            if text.lstrip().startswith("{") or (upload.name or "").lower().endswith(".json"):
                game = Game.import_document(game_json.loads(text), created_from=creator)
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
    remember(request, game, can_edit=True)
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


# -- the game screen


def all_history(request):
    """Whether the page asks for the whole history (?history=all), not the latest rows."""
    return request.GET.get("history") == "all"


def game_context(game, state, can_edit, all_events=False, **extra):
    """What the game screen shows of `game` at `state` (read or replayed by the caller),
    with every row of its history when `all_events`. Nothing in it is read from the
    request: a watcher's board is made the same way for its stream (views/live.py)."""
    query = "?history=all" if all_events else ""
    token = game.token(can_edit)
    prefix = "" if can_edit else "watch_"
    if can_edit and not state.finished and "entry" not in extra:
        extra["entry"] = DealForm(state, state.in_players)
    limit = None if all_events else scoreboard.RECENT
    if not hasattr(game, "event_ids"):
        game.history()
    fee = Decimal(state.rules.get("entry_fee", "0"))
    pot_after_join = rules.money(state.pot + fee)
    live_url = reverse("live" if can_edit else "watch_live", args=[token])
    join_form = extra.pop("join_form", None) or JoinForm(state)
    history = scoreboard.history(state, game.event_ids, limit)
    return {
        "game": game,
        "state": state,
        "can_edit": can_edit,
        "all_events": all_events,
        "query": query,
        "live_url": f"{live_url}?v={game.revision}" + ("&history=all" if all_events else ""),
        # The page's stream of pushed updates (tracker/asgi.py, tracker/live/).
        # A view link's stream sends it the new board, with the rows it shows (views/live.py).
        "stream_url": (
            f"{game.get_absolute_url()}stream"
            if can_edit
            else f"{game.get_view_url()}stream?board={'all' if all_events else 'latest'}"
        ),
        "json_url": reverse(f"{prefix}json", args=[token]),
        "csv_url": reverse(f"{prefix}csv", args=[token]),
        "chart_url": reverse(f"{prefix}chart", args=[token]),
        "view_qr_url": (
            reverse("qr", args=[token, "view"]) if can_edit else reverse("watch_qr", args=[token])
        ),
        # The deal form's "discard it" link, beside the other phone's deal.
        "page_url": game.get_absolute_url() + query,
        # A game of a table leads back to it (the view link to the table's view link).
        "table_url": (
            (game.table.get_absolute_url() if can_edit else game.table.get_view_url())
            if game.table_id
            else None
        ),
        "format_label": scoreboard.format_label(game.format),
        "standings": scoreboard.standings(state),
        "history": history,
        "events_hidden": max(0, state.row_count - limit) if limit else 0,
        "banner": scoreboard.banner(state),
        "settlement": scoreboard.settlement(state),
        "figure_name": scoreboard.figure_name(state),
        "figure_plural": scoreboard.figure_plural(state),
        "rejoin_notes": scoreboard.rejoin_notes(state) if can_edit else [],
        "pot": rules.money(state.pot),
        # Played for fun (no entry fee, no point value): no money shown anywhere.
        "for_money": plays_for_money(state.rules),
        **scoreboard.layout(state, rules.money(state.pot)),
        "rejoins": [
            {"name": name, "start": state.rejoin_total(), "pot": pot_after_join}
            for name in state.can_rejoin
        ],
        "seating": scoreboard.seating(state, pot_after_join),
        # What a phone with "Read scores aloud" on says when this board comes in after a change.
        "said": said.sentence(state, game.last_change),
        "join_form": join_form,
        # What the screen's parts may be given (`extra`), named here so each is looked up
        # and found: a lookup the template misses costs it several times a plain one.
        "notice": None,
        "theirs": None,
        "entry_version": None,
        "oob": False,
        "saved": False,
        **extra,
    }


def show_game(request, game, state, can_edit, status=200, **extra):
    """The game screen, or its `#game` part for htmx."""
    context = game_context(game, state, can_edit, all_history(request), **extra)
    return page_or_part(request, "tracker/game.html", "game", context, status=status)


@gzip_page  # the first load of a game: about 20 KB of HTML, 4 KB compressed
@require_safe
def game(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    game = get_game_or_404(token, can_edit)
    remember(request, game, can_edit)
    return show_game(request, game, game.state(), can_edit)


@require_POST
def play_again(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The next game of a finished one: the same format, rules and seats, named
    apart; made once (a second tap goes to the game the first made)."""
    game = get_game_or_404(token, can_edit=True)
    if not game.state().finished:
        messages.error(request, gettext("That game is still being played."))
        return redirect(game)
    try:
        made = game.play_again(created_from=client_key(request))
    except allowance.Spent:
        messages.error(request, TOO_MANY)
        return redirect(game)
    except (MemberError, rules.RuleError) as error:
        messages.error(request, getattr(error, "message", str(error)))
        return redirect(game)
    return made_here(request, made)


@require_safe
def qr_code(
    request: HtmxHttpRequest, token: str, can_edit: bool, kind: str = "view"
) -> HttpResponse:
    """The QR code of a game link, as SVG. The edit link's code needs the edit link."""
    return link_qr(request, get_game_or_404(token, can_edit), kind)


@require_safe
def download_json(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    game = get_game_or_404(token, can_edit)
    text = game_json.dumps(game.as_document())
    return download(game.name, text, "application/json", "json")


@require_safe
def download_csv(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    game = get_game_or_404(token, can_edit)
    # A byte-order mark, so spreadsheet programs read names in any script.
    text = game.as_csv()
    return download(game.name, "\ufeff" + text, "text/csv; charset=utf-8", "csv")


@require_safe
def chart(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    game = get_game_or_404(token, can_edit)
    title = gettext("%(name)s: running totals") % {"name": game.shown_name}
    drawn = running_totals(game.state(), title=title, theme=request.GET.get("theme"))
    return chart_svg("tracker/chart.svg", drawn)


@require_safe
def favicon(request: HtmxHttpRequest) -> HttpResponse:
    return redirect(static("favicon.svg"), permanent=True)


def not_found(request: HtmxHttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)
