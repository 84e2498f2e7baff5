"""What every view shares: finding a game or table by its link, the version a
form was made against, this browser's list of games and tables, the client's
allowance of new games, and answering a page or its htmx part."""

import re
from urllib.parse import quote

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_lazy
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from .. import allowance, rules
from ..models import Game, GameRemoved, Table
from ..screens import qr


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it: `request.htmx` says
    whether htmx sent it (django-htmx's own example types requests so)."""

    htmx: HtmxDetails


def get_game_or_404(token, can_edit):
    """The game the link leads to. A removed game's links answer 410 (GameRemoved,
    middleware.RemovedGames); once it can no longer be put back, 404."""
    game = Game.by_link(token, can_edit)
    if game is None or (game.removed_at and Game.objects.gone().filter(pk=game.pk).exists()):
        raise Http404("No game has that link.")
    if game.removed_at:
        raise GameRemoved(game)
    return game


def get_table_or_404(token, can_edit):
    table = Table.by_link(token, can_edit)
    if table is None:
        raise Http404("No table has that link.")
    return table


def page_or_part(request, template, part, context, status=200):
    """The whole page, or for htmx only its `part` (a partial of the same template)."""
    name = f"{template}#{part}" if request.htmx else template
    return render(request, name, context, status=status)


def made_against(request):
    """The revision the posted form was made against, or None if it is missing or
    not a plain whole number: such a post is refused, never saved unchecked."""
    typed = request.POST.get("version", "")
    if typed.isascii() and typed.isdigit() and len(typed) <= 10:
        return int(typed)
    return None


# -- this browser's games and tables (the home page lists them)

YOUR_GAMES, YOUR_GAMES_KEPT = "games", 30  # session key, how many
YOUR_TABLES, YOUR_TABLES_KEPT = "tables", 20


def made_here(request, linked):
    """A game or table this phone just made: kept in its list with the edit
    link, and the phone taken to it (htmx's redirect for an htmx request)."""
    remember(request, linked, can_edit=True)
    if request.htmx:
        return HttpResponseClientRedirect(linked.get_absolute_url())
    return redirect(linked)


def remember(request, linked, can_edit):
    """Add a game (or a table) to this browser's list; an edit link outranks a view link."""
    key, most = (
        (YOUR_TABLES, YOUR_TABLES_KEPT)
        if isinstance(linked, Table)
        else (
            YOUR_GAMES,
            YOUR_GAMES_KEPT,
        )
    )
    kept = request.session.get(key, [])
    entry = [linked.token(can_edit), can_edit]
    if entry in kept or (not can_edit and [linked.edit_token, True] in kept):
        return
    if can_edit:
        kept = [e for e in kept if e[0] != linked.view_token]
    request.session[key] = [entry, *kept][:most]


def remembered(request, model):
    """(rows, edit tokens) of this browser's games (or tables), any order."""
    kept = request.session.get(YOUR_TABLES if model is Table else YOUR_GAMES, [])
    edit = [token for token, can_edit in kept if can_edit]
    view = [token for token, can_edit in kept if not can_edit]
    rows = model.objects.filter(edit_token__in=edit) | model.objects.filter(view_token__in=view)
    return rows, set(edit)


# -- new games per client address

TOO_MANY = gettext_lazy("Too many new games from this address in the last hour. Try again later.")
TOO_MANY_TABLES = gettext_lazy(
    "Too many new tables from this address in the last hour. Try again later."
)


def client_key(request):
    """A keyed hash of the client's address (tracker/allowance.py)."""
    return allowance.client_key(request)


def too_many(request, count=1, kind="games"):
    """Whether this client's allowance has no room for `count` new games (or
    tables): asked before a file is read or replayed; the charge made with the
    games themselves, inside their transaction, decides (allowance.Spent)."""
    return not allowance.has_room(client_key(request), count, kind)


def start_chosen(request, form, start, *table, **more):
    """Makes the game a valid new-game form chose with `start` (Game.create, or
    tables.start_game with the table): (the game, 200), or (None, the page's
    status) with the refusal beside its field, 429 when the allowance is spent."""
    chosen = (form.fmt_chosen, form.rules_chosen, form.names, form.first_dealer, form.game_name)
    try:
        game = start(*table, *chosen, created_from=client_key(request), **more)
    except rules.RuleError as error:
        form.refuse(error)
        return None, 422
    except allowance.Spent:
        form.add_error(None, TOO_MANY)
        return None, 429
    return game, 200


def too_many_in(count):
    """The refusal of a file with more games than this client may still make."""
    if count <= 1:
        return TOO_MANY
    return gettext(
        "Not imported: the file has %(count)s games, more than this address may make "
        "now (%(n)s an hour). Try again later, or ask whoever runs the server to import it."
    ) % {"count": count, "n": settings.GAMES_PER_HOUR}


# -- answers that are files


def svg(body, cache_control="private, max-age=86400"):
    response = HttpResponse(body, content_type="image/svg+xml")
    response["Cache-Control"] = cache_control
    return response


# The QR codes' titles, read aloud by a screen reader: (what, which link).
QR_TITLES = {
    (Game, "edit"): gettext_lazy("QR code of the edit link"),
    (Game, "view"): gettext_lazy("QR code of the view link"),
    (Table, "edit"): gettext_lazy("QR code of the table's edit link"),
    (Table, "view"): gettext_lazy("QR code of the table's view link"),
}


def link_qr(request, linked, kind):
    """The QR code of a game's or table's edit or view link, as SVG."""
    url = linked.get_absolute_url() if kind == "edit" else linked.get_view_url()
    title = str(QR_TITLES[type(linked), kind])
    return svg(qr.qr_svg(request.build_absolute_uri(url), title=title))


def chart_svg(template, data):
    """A chart drawn by its template from a screen's data; asked again after every change."""
    return svg(render_to_string(template, data), cache_control="no-cache")


def download(name, body, content_type, extension, fallback="game"):
    """A file to save, named after the game (or table): "diwali-pool.csv", and a
    name in another script whole in it, "இரவு-ஆட்டம்.csv" (RFC 6266's filename*,
    beside a plain filename for a browser that reads only that one)."""
    response = HttpResponse(body, content_type=content_type)
    plain = f"{slugify(name) or fallback}.{extension}"
    disposition = f'attachment; filename="{plain}"'
    if not name.isascii():
        # Only what no file system refuses is dropped: slugify(allow_unicode=True)
        # takes a Tamil word's vowel signs and pulli with it (இரவ-ஆடடம).
        whole = "-".join(re.sub(r'[\\/:*?"<>|\x00-\x1f\x7f]+', " ", name).split()).strip(".-")
        if whole:
            disposition += f"; filename*=UTF-8''{quote(f'{whole}.{extension}', safe='')}"
    response["Content-Disposition"] = disposition
    return response
