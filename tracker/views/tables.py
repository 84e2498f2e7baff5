"""The family table's screens: make one, its page (edit link) and the same page
read-only (view link), its members, a new game from it, play again, uploads,
its document, charts and QR codes.

Every table form posts the table's revision (`made_against`): a form made
before another phone's change, or sent twice, is answered 409 with the table
as it is now, what was typed kept, and nothing changed.
"""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from .. import allowance, i18n, live, rules, tables
from ..documents import game_json, stats
from ..forms import FORMAT_CHOICES, MemberForm, NewTableForm, TableGameForm
from ..models import Game, MemberError, StaleTable, Table
from ..screens import table_chart
from .common import (
    TOO_MANY,
    TOO_MANY_TABLES,
    HtmxHttpRequest,
    chart_svg,
    client_key,
    download,
    get_table_or_404,
    link_qr,
    made_against,
    made_here,
    page_or_part,
    remember,
    start_chosen,
    too_many,
    too_many_in,
)

GAMES_SHOWN = 20  # the newest games listed before "Show all"
FORMAT_FILTERS = Game.FORMATS  # every format the games can have


# -- make a table


@require_http_methods(["GET", "HEAD", "POST"])
def new_table(request: HtmxHttpRequest) -> HttpResponse:
    form = NewTableForm(request.POST if request.method == "POST" else None)
    status = 200
    if form.is_valid() and too_many(request, kind="tables"):
        form.add_error("name", TOO_MANY_TABLES)
    if form.is_bound:
        status = 422
    if form.is_valid():
        data = form.cleaned_data
        try:
            table = Table.start(data["name"], data["members"], client_key(request))
        except allowance.Spent:
            form.add_error("name", TOO_MANY_TABLES)
            return page_or_part(request, "tracker/table_new.html", "form", {"form": form}, 429)
        return made_here(request, table)
    return page_or_part(request, "tracker/table_new.html", "form", {"form": form}, status)


@require_POST
def import_table(request: HtmxHttpRequest) -> HttpResponse:
    """A saved table document as a new table with new links."""
    error = TOO_MANY_TABLES if too_many(request, kind="tables") else _upload_error(request)
    creator, count = client_key(request), 1
    if error is None:
        try:
            doc = game_json.loads(_upload_text(request))
            count = tables.games_in(doc)
            if too_many(request, count):  # before any game is replayed
                raise allowance.Spent
            table = tables.import_document(doc, created_from=creator)
        except NOT_IMPORTED as refused:
            error = _why_not_imported(refused, count)
    if error and "file" in request.FILES:  # a refused file counts as the games it held
        allowance.charge_refused(creator, count)
    if error:
        context = {"form": NewTableForm(), "import_error": error}
        return render(request, "tracker/table_new.html", context, status=422)
    remember(request, table, can_edit=True)
    return redirect(table)


def _upload_error(request):
    upload = request.FILES.get("file")
    if too_many(request):
        return TOO_MANY
    if upload is None:
        return gettext("Choose a saved file (.json) to import.")
    if upload.size > settings.TABLE_FILE_MAX_BYTES:
        return gettext("That file is too big.")
    return None


def _upload_text(request: HtmxHttpRequest) -> str:
    """The uploaded file's text (a UnicodeDecodeError when it is not UTF-8);
    called once `_upload_error` found a file of a size to read."""
    upload = request.FILES.get("file")
    assert upload is not None
    return upload.read().decode("utf-8-sig")


# What refuses a file on both ways in (a new table, a table's upload), in the same words.
NOT_IMPORTED = (UnicodeDecodeError, rules.RuleError, tables.TableError, allowance.Spent)


def _why_not_imported(refused, count):
    if isinstance(refused, UnicodeDecodeError):
        return gettext("That file is not a text file.")
    if isinstance(refused, allowance.Spent):
        return too_many_in(count)  # count: the games the file held
    return gettext("Not imported: %(why)s") % {"why": _message(refused)}


def _message(error):
    """A refusal's words: the table's message, or the engine's with its place."""
    if isinstance(error, (tables.TableError, MemberError)):
        return error.message
    return i18n.with_place(error)


# -- the table page


def _page_context(request, table, can_edit, **extra):
    """Everything the table page shows, from one read of the members and the games."""
    rows = list(table.members.all())
    members = [m.name for m in rows]
    games = tables.games_oldest_first(table)
    found = tables.summaries(games)
    show = request.GET.get("show", "")
    show = show if show in ("in_progress", "finished") else ""
    fmt = request.GET.get("format", "")
    fmt = fmt if fmt in dict(FORMAT_FILTERS) else ""
    listed = []
    seated = set()
    for game, summary in zip(games, found, strict=True):
        seated.update(n.casefold() for n in summary["players"])
        if (show and summary["status"] != show) or (fmt and game.format != fmt):
            continue
        listed.append({"game": game, "summary": summary, "label": _format_label(game)})
    listed.reverse()  # newest first
    all_games = request.GET.get("games") == "all"
    query = [f"show={show}"] if show else []
    query += [f"format={fmt}"] if fmt else []
    token = table.token(can_edit)
    prefix = "" if can_edit else "watch_"
    return {
        "table": table,
        "can_edit": can_edit,
        "members": [{"member": m, "seated": m.name.casefold() in seated} for m in rows],
        "member_count": len(members),
        "wins_height": 40 + 26 * len(members),
        "games": listed if all_games else listed[:GAMES_SHOWN],
        "games_hidden": 0 if all_games else max(0, len(listed) - GAMES_SHOWN),
        "game_count": len(games),
        "show": show,
        "format": fmt,
        "formats": FORMAT_FILTERS,
        "stats": stats.table_stats(members, found),
        "removed": list(table.games.removed().order_by("-removed_at")),
        # What the page's stream compares its events with (tracker/live/).
        "live_version": live.table_versions([table.pk])[table.pk],
        "stream_url": (table.get_absolute_url() if can_edit else table.get_view_url()) + "stream",
        "money_rules": stats.money_rules(found),
        # A table that plays for fun shows no money (nor a settle-up of nothing).
        "for_money": any(summary["for_money"] for summary in found),
        "errors": {},
        "query": "&".join(query),
        "show_links": _filter_links(request.path, "show", show, "format", fmt, SHOWN),
        "format_links": _filter_links(request.path, "format", fmt, "show", show, FORMAT_LINKS),
        "json_url": reverse(f"{prefix}table_json", args=[token]),
        "csv_url": reverse(f"{prefix}table_csv", args=[token]),
        "wins_url": reverse(f"{prefix}table_chart", args=[token, "wins"]),
        "money_url": reverse(f"{prefix}table_chart", args=[token, "money"]),
        "view_qr_url": (
            reverse("table_qr", args=[token, "view"])
            if can_edit
            else reverse("watch_table_qr", args=[token])
        ),
        **extra,
    }


SHOWN = [
    ("", gettext_lazy("All")),
    ("in_progress", gettext_lazy("In progress")),
    ("finished", gettext_lazy("Finished")),
]
FORMAT_LINKS = [("", gettext_lazy("Any format"))] + [
    (key, gettext_lazy(label)) for key, label in FORMAT_FILTERS
]


def _filter_links(path, name, chosen, other, kept, choices):
    """The filter links of one kind (which games, which format), each keeping the
    other kind's choice."""
    links = []
    for value, label in choices:
        query = [f"{name}={value}"] if value else []
        query += [f"{other}={kept}"] if kept else []
        url = path + ("?" + "&".join(query) if query else "")
        links.append({"url": url, "label": label, "current": value == chosen})
    return links


def _format_label(game):
    label = rules.FORMATS[game.format].listing_label(game.rules)
    return i18n.phrase(label) if hasattr(label, "template") else gettext(label)


def _show_table(request, table, can_edit, status=200, **extra):
    context = _page_context(request, table, can_edit, **extra)
    part = "games" if request.headers.get("HX-Target") == "games" else "table"
    return page_or_part(request, "tracker/table.html", part, context, status)


@require_safe
def table_page(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    table = get_table_or_404(token, can_edit)
    remember(request, table, can_edit)
    return _show_table(request, table, can_edit)


def _after_change(request, table, errors=None, **extra):
    """After a change: the table part for htmx (or the refusal beside its field)."""
    if errors:
        return _show_table(request, table, True, status=422, errors=errors, **extra)
    if request.htmx:
        return _show_table(request, table, True)
    return redirect(table)


STALE = gettext_lazy("Someone else just changed the table. Here it is now.")
NO_VERSION = gettext_lazy(
    "Nothing was saved: the form did not say which version of the table it was made for. "
    "Here it is now."
)


def _stale_notice(version):
    """(status, notice) for a post made against another revision, or with none."""
    return (400, NO_VERSION) if version is None else (409, STALE)


def _still_at(table, version):
    """Whether the stored table is still at `version` (read again, not from `table`)."""
    return Table.objects.filter(pk=table.pk, revision=version).exists()


def _stale(request, table, version, **typed):
    """The table as it is now, what was typed kept: 409, or 400 with no version."""
    table.refresh_from_db()
    status, notice = _stale_notice(version)
    return _show_table(request, table, True, status=status, notice=notice, **typed)


@require_POST
def add_member(request: HtmxHttpRequest, token: str) -> HttpResponse:
    table = get_table_or_404(token, can_edit=True)
    version = made_against(request)
    form = MemberForm(request.POST)
    typed = {"typed_member": (request.POST.get("name") or "")[:200]}
    if version != table.revision:  # stale, before the name is looked at
        return _stale(request, table, version, **typed)
    if form.is_valid():
        try:
            table.add_member(form.cleaned_data["name"], version)
        except StaleTable:
            return _stale(request, table, version, **typed)
        except MemberError as error:
            form.add_error("name", error.message)
        else:
            return _after_change(request, table)
    return _after_change(request, table, {"member": form.first_error("name")}, **typed)


@require_POST
def remove_member(request: HtmxHttpRequest, token: str, member: int) -> HttpResponse:
    table = get_table_or_404(token, can_edit=True)
    version = made_against(request)
    try:
        table.remove_member(member, version)  # StaleTable before anything is looked at
    except StaleTable:
        return _stale(request, table, version)
    except MemberError as error:
        return _after_change(request, table, {"members": error.message})
    return _after_change(request, table)


@require_POST
def play_again(request: HtmxHttpRequest, token: str, game: int) -> HttpResponse:
    table = get_table_or_404(token, can_edit=True)
    version = made_against(request)
    if version != table.revision:  # the same tap sent twice starts one game
        return _stale(request, table, version)
    previous = table.games.filter(pk=game).first()
    if previous is None:
        raise Http404("No such game at this table.")
    refused: str | None = None
    if tables.summaries([previous])[0]["status"] != "finished":
        refused = gettext("That game is still being played.")
    elif too_many(request):
        refused = str(TOO_MANY)
    if refused and not _still_at(table, version):  # another phone's change came first
        return _stale(request, table, version)
    if refused:
        return _after_change(request, table, {"games": refused})
    try:
        made = tables.play_again(
            table, previous, created_from=client_key(request), made_against=version
        )
    except StaleTable:
        return _stale(request, table, version)
    except (MemberError, rules.RuleError) as error:
        return _after_change(request, table, {"games": _message(error)})
    except allowance.Spent:
        return _after_change(request, table, {"games": TOO_MANY})
    return made_here(request, made)


@require_POST
def upload(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A game (JSON or CSV) or a table document imported into this table."""
    table = get_table_or_404(token, can_edit=True)
    version = made_against(request)
    if version != table.revision:  # before the file is read
        return _stale(request, table, version)
    error = _upload_error(request)
    creator, count = client_key(request), 1
    if error is None:
        again = request.POST.get("again") == "on"
        try:
            text = _upload_text(request)
            if not text.lstrip().startswith("{"):
                tables.import_game(table, text, creator, made_against=version, again=again)
            else:
                doc = game_json.loads(text)
                count = tables.games_in(doc)
                if too_many(request, count):  # before any game is replayed
                    raise allowance.Spent
                if isinstance(doc, dict) and doc.get("schema") == tables.SCHEMA:
                    tables.import_document(
                        doc, creator, into=table, made_against=version, again=again
                    )
                else:
                    tables.import_game(table, doc, creator, made_against=version, again=again)
        except StaleTable:
            return _stale(request, table, version)
        except tables.AlreadyHere as twins:
            if not _still_at(table, version):
                return _stale(request, table, version)
            errors = {"file": twins.message, "file_again": True}
            return _show_table(request, table, True, status=422, errors=errors)
        except NOT_IMPORTED as refused:
            error = _why_not_imported(refused, count)
    if error and "file" in request.FILES:  # a refused file counts as the games it held
        allowance.charge_refused(creator, count)
    if error and not _still_at(table, version):
        return _stale(request, table, version)
    if error:
        return _show_table(request, table, True, status=422, errors={"file": error})
    messages.success(request, gettext("Imported."))
    return redirect(table)


@require_safe
def download_table(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    table = get_table_or_404(token, can_edit)
    # Compact: the largest table's document is written in a fraction of the time.
    body = game_json.dumps(tables.export(table), compact=True)
    return download(table.name, body, "application/json", "json", fallback="table")


@require_safe
def download_table_csv(request: HtmxHttpRequest, token: str, can_edit: bool) -> HttpResponse:
    table = get_table_or_404(token, can_edit)
    # A byte-order mark, so spreadsheet programs read names in any script.
    body = "\ufeff" + tables.sheet(table)
    return download(table.name, body, "text/csv; charset=utf-8", "csv", fallback="table")


@require_safe
def chart(request: HtmxHttpRequest, token: str, can_edit: bool, kind: str) -> HttpResponse:
    table = get_table_or_404(token, can_edit)
    members = table.member_names()
    figures, _, found = tables.table_stats(table, members)
    theme = request.GET.get("theme")  # the page's: "dark", else light
    if kind == "wins":
        title = gettext("%(name)s: wins per member") % {"name": table.name}
        drawn = table_chart.wins(figures["members"], title=title, theme=theme)
    else:
        title = gettext("%(name)s: money over the games") % {"name": table.name}
        timeline = stats.money_over_time(members, found)
        rules = stats.money_rules(found)
        drawn = table_chart.money(members, timeline, title=title, rules=rules, theme=theme)
    return chart_svg("tracker/table_chart.svg", drawn)


@require_safe
def qr_code(
    request: HtmxHttpRequest, token: str, can_edit: bool, kind: str = "view"
) -> HttpResponse:
    """The QR code of a table link, as SVG. The edit link's code needs the edit link."""
    return link_qr(request, get_table_or_404(token, can_edit), kind)


# -- a new game from the table


@require_http_methods(["GET", "HEAD", "POST"])
def new_table_game(request: HtmxHttpRequest, token: str) -> HttpResponse:
    table = get_table_or_404(token, can_edit=True)
    members = list(table.members.all())
    if request.method != "POST":
        form = TableGameForm(members, ticked=_last_seated(table, members))
        return _game_form(request, table, form, table.revision)
    version = made_against(request)
    if request.POST.get("action", "") == "refresh":
        # Not a change: the form keeps the version it was made against.
        form = TableGameForm(members, values=request.POST)
        form.edit_seats("refresh")
        return _game_form(request, table, form, version)
    if version != table.revision:  # stale, before anything chosen is looked at
        return _stale_game_form(request, table, version)
    form = TableGameForm(members, request.POST)
    status = 422
    if form.is_valid() and too_many(request):
        form.add_error(None, TOO_MANY)
        status = 429
    if not form.is_valid() and not _still_at(table, version):
        return _stale_game_form(request, table, version)
    if form.is_valid():
        try:
            game, status = start_chosen(
                request, form, tables.start_game, table, made_against=version
            )
        except StaleTable:
            return _stale_game_form(request, table, version)
        except MemberError as error:
            form.add_error("players", error.message)
        else:
            if game is not None:
                return made_here(request, game)
    return _game_form(request, table, form, version, status=status)


def _last_seated(table, members):
    """The members who sat in the table's last game (New game ticks them)."""
    last = table.games.order_by("-created_at", "-pk").first()
    if last is None:
        return []
    seated = {name.casefold() for name in last.seat_names()}
    return [m.pk for m in members if m.name.casefold() in seated]


def _stale_game_form(request, table, version):
    """The new-game form made again from the table as it is now, what was chosen kept."""
    table.refresh_from_db()
    form = TableGameForm(list(table.members.all()), values=request.POST)
    status, notice = _stale_notice(version)
    return _game_form(request, table, form, table.revision, status=status, notice=notice)


def _game_form(request, table, form, version, status=200, notice=None):
    context = {
        "table": table,
        "form": form,
        "formats": FORMAT_CHOICES,
        "version": version,
        "notice": notice,
    }
    return page_or_part(request, "tracker/table_game.html", "form", context, status)
