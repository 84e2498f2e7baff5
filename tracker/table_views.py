"""The family table's screens: make one, its page, a new game from it, play again.

Thin views as the game screens': every form posts and redirects back
without JavaScript; an htmx request gets the re-rendered part of the same
template. The view link (`watch_table`) only reads.
"""

import re
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.db.models import Count, Max
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from . import document, i18n, live, rules, stats, tables
from .forms import FORMAT_CHOICES, NewGame
from .models import Game, MemberError, StaleTable, Table
from .table_chart import money_svg, wins_svg
from .views import (
    MAX_UPLOAD,
    TOO_MANY,
    _client_key,
    _made_against,
    _remember,
    _svg,
    _too_many_games,
)

YOUR_TABLES = "tables"  # session key: the table links this browser has opened
YOUR_TABLES_KEPT = 20
GAMES_SHOWN = 20  # the newest games listed before "Show all"
FORMAT_FILTERS = Game.FORMATS  # every format the games can have


def _table_or_404(token, can_edit):
    table = Table.by_link(token, can_edit)
    if table is None:
        raise Http404("No table has that link.")
    return table


def _remember_table(request, table, can_edit):
    kept = request.session.get(YOUR_TABLES, [])
    token = table.edit_token if can_edit else table.view_token
    if [token, can_edit] in kept or (not can_edit and [table.edit_token, True] in kept):
        return
    if can_edit:
        kept = [e for e in kept if e[0] != table.view_token]
    request.session[YOUR_TABLES] = [[token, can_edit], *kept][:YOUR_TABLES_KEPT]


def your_tables(request):
    """The tables this browser opened, newest change first, each with its link."""
    kept = request.session.get(YOUR_TABLES, [])
    edit = [t for t, e in kept if e]
    view = [t for t, e in kept if not e]
    if not kept:
        return []
    found = Table.objects.filter(edit_token__in=edit) | Table.objects.filter(view_token__in=view)
    found = found.annotate(last_game=Max("games__updated_at"), game_count=Count("games"))
    listed = [
        {
            "table": t,
            "url": t.get_absolute_url() if t.edit_token in edit else t.get_view_url(),
            "when": max(t.updated_at, t.last_game or t.updated_at),
        }
        for t in found
    ]
    return sorted(listed, key=lambda item: item["when"], reverse=True)


# ---------------------------------------------------------------- make a table


def _too_many_tables(request):
    """New tables per address per hour are limited as new games are."""
    since = timezone.now() - timedelta(hours=1)
    made = Table.objects.filter(created_from=_client_key(request), created_at__gte=since)
    return made.count() >= settings.GAMES_PER_HOUR


TOO_MANY_TABLES = gettext_lazy(
    "Too many new tables from this address in the last hour. Try again later."
)


@require_http_methods(["GET", "POST"])
def new_table(request):
    context = {"name": "", "members": "", "errors": {}}
    if request.method == "POST":
        name = (request.POST.get("name") or "")[:200]
        typed = (request.POST.get("members") or "")[:5000]
        context.update(name=name, members=typed)
        try:
            if _too_many_tables(request):
                raise MemberError(TOO_MANY_TABLES, "name")
            table = Table.start(name, typed.splitlines(), _client_key(request))
        except MemberError as error:
            context["errors"][error.field] = error.message
        else:
            _remember_table(request, table, can_edit=True)
            if request.htmx:
                return HttpResponseClientRedirect(table.get_absolute_url())
            return redirect(table)
    template = "tracker/table_new.html#form" if request.htmx else "tracker/table_new.html"
    return render(request, template, context, status=422 if context["errors"] else 200)


@require_POST
def import_table(request):
    """A saved table document as a new table with new links."""
    error = TOO_MANY_TABLES if _too_many_tables(request) else _upload_error(request)
    table = None
    if error is None:
        try:
            text = request.FILES["file"].read().decode("utf-8-sig")
            table = tables.import_document(document.loads(text), created_from=_client_key(request))
        except UnicodeDecodeError:
            error = gettext("That file is not a text file.")
        except (rules.RuleError, tables.TableError) as refused:
            error = gettext("Not imported: %(why)s") % {"why": _message(refused)}
    if error:
        context = {"name": "", "members": "", "errors": {}, "import_error": error}
        return render(request, "tracker/table_new.html", context, status=422)
    _remember_table(request, table, can_edit=True)
    return redirect(table)


def _upload_error(request):
    upload = request.FILES.get("file")
    if _too_many_games(request):
        return TOO_MANY
    if upload is None:
        return gettext("Choose a saved file (.json) to import.")
    if upload.size > MAX_UPLOAD * 5:
        return gettext("That file is too big.")
    return None


def _message(error):
    """A refusal's words: the table's message, or the engine's with its place."""
    if isinstance(error, (tables.TableError, MemberError)):
        return error.message
    return i18n.with_place(error)


# ---------------------------------------------------------------- the table page


def _page_context(request, table, can_edit, **extra):
    """Everything the table page shows, from one read of the members and the games."""
    rows = list(table.members.all())
    members = [m.name for m in rows]
    games = tables.games_oldest_first(table)
    found = tables.summaries(games)
    figures = stats.table_stats(members, found)
    show = request.GET.get("show", "")
    show = show if show in ("in_progress", "finished") else ""
    fmt = request.GET.get("format", "")
    fmt = fmt if fmt in dict(FORMAT_FILTERS) else ""
    listed = []
    seated = set()
    for game, summary in zip(games, found, strict=True):
        seated.update(n.casefold() for n in summary["players"])
        if show and summary["status"] != show:
            continue
        if fmt and game.format != fmt:
            continue
        listed.append({"game": game, "summary": summary, "label": _format_label(game)})
    listed.reverse()  # newest first
    all_games = request.GET.get("games") == "all"
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
        "stats": figures,
        "money_rules": stats.money_rules(found),
        "errors": {},
        "query": _query(show, fmt),
        # What the page's stream compares its events with (tracker/live/).
        "live_version": live.table_version(table.revision, [g.revision for g in games]),
        **extra,
    }


def _query(show, fmt):
    parts = [f"show={show}"] if show else []
    parts += [f"format={fmt}"] if fmt else []
    return "&".join(parts)


def _format_label(game):
    label = rules.FORMATS[game.format].listing_label(game.rules)
    return i18n.phrase(label) if hasattr(label, "template") else gettext(label)


def _show_table(request, table, can_edit, status=200, **extra):
    context = _page_context(request, table, can_edit, **extra)
    if request.htmx and request.headers.get("HX-Target") == "games":
        return render(request, "tracker/table.html#games", context, status=status)
    if request.htmx:
        return render(request, "tracker/table.html#table", context, status=status)
    return render(request, "tracker/table.html", context, status=status)


@require_GET
def table_page(request, token):
    table = _table_or_404(token, can_edit=True)
    _remember_table(request, table, can_edit=True)
    return _show_table(request, table, can_edit=True)


@require_GET
def watch_table(request, token):
    table = _table_or_404(token, can_edit=False)
    _remember_table(request, table, can_edit=False)
    return _show_table(request, table, can_edit=False)


def _after_change(request, table, errors=None, status=200, **extra):
    """After a change: the table part for htmx (or the refusal beside its field)."""
    if errors:
        return _show_table(request, table, True, status=422, errors=errors, **extra)
    if request.htmx:
        return _show_table(request, table, True, status=status)
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
def add_member(request, token):
    table = _table_or_404(token, can_edit=True)
    version = _made_against(request)
    name = (request.POST.get("name") or "")[:200]
    typed = {"typed_member": name}
    if version != table.revision:  # stale, before the name is looked at
        return _stale(request, table, version, **typed)
    try:
        table.add_member(name, version)
    except StaleTable:
        return _stale(request, table, version, **typed)
    except MemberError as error:
        return _after_change(request, table, {"member": error.message}, **typed)
    return _after_change(request, table)


@require_POST
def remove_member(request, token, member):
    table = _table_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != table.revision:
        return _stale(request, table, version)
    try:
        table.remove_member(member, version)
    except StaleTable:
        return _stale(request, table, version)
    except MemberError as error:
        return _after_change(request, table, {"members": error.message})
    return _after_change(request, table)


@require_POST
def play_again(request, token, game):
    table = _table_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != table.revision:  # the same tap sent twice starts one game
        return _stale(request, table, version)
    previous = table.games.filter(pk=game).first()
    if previous is None:
        raise Http404("No such game at this table.")
    refused = None
    if tables.summaries([previous])[0]["status"] != "finished":
        refused = gettext("That game is still being played.")
    elif _too_many_games(request):
        refused = TOO_MANY
    if refused and not _still_at(table, version):  # another phone's change came first
        return _stale(request, table, version)
    if refused:
        return _after_change(request, table, {"games": refused})
    try:
        made = tables.play_again(
            table, previous, created_from=_client_key(request), made_against=version
        )
    except StaleTable:
        return _stale(request, table, version)
    except (MemberError, rules.RuleError) as error:
        return _after_change(request, table, {"games": _message(error)})
    _remember(request, made, can_edit=True)
    if request.htmx:
        return HttpResponseClientRedirect(made.get_absolute_url())
    return redirect(made)


@require_POST
def upload(request, token):
    """A game (JSON or CSV) or a table document imported into this table."""
    table = _table_or_404(token, can_edit=True)
    version = _made_against(request)
    if version != table.revision:  # before the file is read
        return _stale(request, table, version)
    error = _upload_error(request)
    if error is None:
        creator = _client_key(request)
        try:
            text = request.FILES["file"].read().decode("utf-8-sig")
            if not text.lstrip().startswith("{"):
                tables.import_game(table, text, creator, made_against=version)
            else:
                doc = document.loads(text)
                if isinstance(doc, dict) and doc.get("schema") == tables.SCHEMA:
                    tables.import_document(doc, creator, into=table, made_against=version)
                else:
                    tables.import_game(table, doc, creator, made_against=version)
        except StaleTable:
            return _stale(request, table, version)
        except UnicodeDecodeError:
            error = gettext("That file is not a text file.")
        except (rules.RuleError, tables.TableError) as refused:
            error = gettext("Not imported: %(why)s") % {"why": _message(refused)}
    if error and not _still_at(table, version):
        return _stale(request, table, version)
    if error:
        return _show_table(request, table, True, status=422, errors={"file": error})
    messages.success(request, gettext("Imported."))
    return redirect(table)


@require_GET
def download(request, token, can_edit):
    table = _table_or_404(token, can_edit=can_edit)
    body = document.dumps(tables.export(table))
    response = HttpResponse(body, content_type="application/json")
    name = slugify(table.name) or "table"
    response["Content-Disposition"] = f'attachment; filename="{name}.json"'
    return response


@require_GET
def chart(request, token, can_edit, kind):
    table = _table_or_404(token, can_edit=can_edit)
    members = table.member_names()
    figures, _, found = tables.table_stats(table, members)
    if kind == "wins":
        svg = wins_svg(
            figures["members"], title=gettext("%(name)s: wins per member") % {"name": table.name}
        )
    else:
        timeline = stats.money_over_time(members, found)
        svg = money_svg(
            members,
            timeline,
            title=gettext("%(name)s: money over the games") % {"name": table.name},
            rules=stats.money_rules(found),
        )
    response = _svg(svg)
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def qr_code(request, token, kind):
    from . import share

    table = _table_or_404(token, can_edit=True)
    url = request.build_absolute_uri(
        table.get_absolute_url() if kind == "edit" else table.get_view_url()
    )
    return _svg(
        share.qr_svg(
            url,
            title=gettext("QR code of the table's edit link")
            if kind == "edit"
            else gettext("QR code of the table's view link"),
        )
    )


@require_GET
def watch_qr_code(request, token):
    from . import share

    table = _table_or_404(token, can_edit=False)
    url = request.build_absolute_uri(table.get_view_url())
    return _svg(share.qr_svg(url, title=gettext("QR code of the table's view link")))


# ---------------------------------------------------------------- a new game from the table


def _member_id(raw):
    """A member's number as the form posts it, or None."""
    return int(raw) if isinstance(raw, str) and re.fullmatch(r"[0-9]{1,12}", raw) else None


class TableGame(NewGame):
    """The new-game form with seats picked from the table's members, in their order."""

    def __init__(self, members, data=None):
        self.members = members
        if data is None:
            super().__init__()
            self.chosen = {m.pk for m in members[:4]}
            self.dealer_id = members[0].pk if members else None
            return
        super().__init__(data)
        ids = {_member_id(raw) for raw in data.getlist("seat")[:200]}
        self.chosen = ids - {None}
        self.dealer_id = _member_id(data.get("dealer"))
        self.unknown = bool(ids - {m.pk for m in members})  # None: not a member's number

    def seats(self):
        names = [m.name for m in self.members if m.pk in self.chosen]
        dealer = next((m.name for m in self.members if m.pk == self.dealer_id), None)
        if dealer not in names:
            dealer = names[0] if names else None
        return names, dealer

    def seat_rows(self):
        return [
            {"member": m, "chosen": m.pk in self.chosen, "dealer": m.pk == self.dealer_id}
            for m in self.members
        ]


@require_http_methods(["GET", "POST"])
def new_table_game(request, token):
    table = _table_or_404(token, can_edit=True)
    members = list(table.members.all())
    if request.method == "GET":
        return _game_form(request, table, TableGame(members), table.revision)
    form = TableGame(members, request.POST)
    version = _made_against(request)
    action = request.POST.get("action", "")
    if action == "refresh":  # not a change: the form keeps the version it was made against
        form.edit_seats(action)
        return _game_form(request, table, form, version)
    if version != table.revision:  # stale, before anything chosen is looked at
        return _stale_game_form(request, table, version)
    fmt, table_rules = form.table_rules()
    names, dealer = form.seats()
    if getattr(form, "unknown", False):
        form.errors["players"] = gettext("That seat is not a member of this table")
    status = 422
    if not form.errors and _too_many_games(request):
        form.errors["form"] = TOO_MANY
        status = 429
    if form.errors and not _still_at(table, version):
        return _stale_game_form(request, table, version)
    game = None
    if not form.errors:
        try:
            game = tables.start_game(
                table,
                fmt,
                table_rules,
                names,
                dealer,
                form.name,
                _client_key(request),
                made_against=version,
            )
        except StaleTable:
            return _stale_game_form(request, table, version)
        except MemberError as error:
            form.errors["players"] = error.message
        except rules.RuleError as error:
            form.add_error(error)
    if game is None:
        return _game_form(request, table, form, version, status=status)
    _remember(request, game, can_edit=True)
    if request.htmx:
        return HttpResponseClientRedirect(game.get_absolute_url())
    return redirect(game)


def _stale_game_form(request, table, version):
    """The new-game form made again from the table as it is now, what was chosen kept."""
    table.refresh_from_db()
    form = TableGame(list(table.members.all()), request.POST)
    form.errors = {}  # nothing chosen was looked at
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
    template = "tracker/table_game.html#form" if request.htmx else "tracker/table_game.html"
    return render(request, template, context, status=status)
