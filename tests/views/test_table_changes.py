"""Every change to a family table carries the table's version (issue 17).

A member added or removed, a game started from the table, Play again and an
upload each post the revision the page was made at. The same post sent twice
(a phone retrying on flaky Wi-Fi) is applied once; a form made before another
phone's change is refused with 409 and the table as it is now, what was typed
kept; a missing or malformed version is a 400 and nothing is saved. The
phones post the forms the pages render, as a browser does.

The last part sends the same post from several threads at once through real
gunicorn workers (tests/servers/gunicorn.py), on SQLite and on PostgreSQL.
"""

import json
from collections import Counter

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tests.servers.fixtures import live_db_fixture, server_fixture  # noqa: F401 (the fixtures)
from tests.serving.test_changes_at_once import at_once, posts_in_other_charsets, server_errors
from tests.views.test_changes import Page, text
from tests.views.test_games import HTMX
from tracker import tables
from tracker.documents import game_json
from tracker.models import Game, Member, StaleTable, Table

pytestmark = pytest.mark.both_databases

# The tests through real gunicorn workers (at the end) use a database of their own.
in_db = pytest.mark.django_db

FAMILY = ["Asha", "Ravi", "Meena", "Kiran"]
# Pool 101: Ravi scores 80 twice (160, out), so Asha wins: the game is finished.
OUT = {"type": "deal", "winner": "Asha", "results": {"Ravi": 80}}
STALE = "Someone else just changed the table. Here it is now."
NO_VERSION = "Nothing was saved: the form did not say which version of the table it was made for."


def family_table():
    """Nani's table: the family and Lata (in no game), and one finished pool game.

    Revision 0 when made, 1 once its game is made."""
    table = Table.start("Nani's table", [*FAMILY, "Lata"])
    Game.create(
        "pool", {}, ["Asha", "Ravi"], "Asha", name="Sunday pool", history=[OUT, OUT], table=table
    )
    return table


SUNDAY = ("Sunday pool", "pool", ["Asha", "Ravi"], "Asha")
BEFORE = (1, [*FAMILY, "Lata"], [SUNDAY])


def world(table):
    """(revision, members, games as (name, format, seats, first dealer)): all a change touches."""
    table = Table.objects.get(pk=table.pk)
    games = []
    for game in table.games.order_by("pk"):
        seats = game.seat_names()
        games.append((game.name, game.format, seats, seats[game.first_dealer - 1]))
    return table.revision, table.member_names(), games


def member(table, name):
    return Member.objects.get(table=table, name=name).pk


def form_at(page, action):
    """(action, fields) of the page's form that posts to `action`."""
    for form in page.forms:
        if form["action"] == action:
            return form["action"], dict(form["fields"])
    raise AssertionError(f"no form posting to {action}: {[f['action'] for f in page.forms]}")


class TablePhone:
    """One phone at the table: it posts the forms of the pages it last opened."""

    def __init__(self, table):
        self.client = Client()
        self.table = table

    def open(self, path=None):
        response = self.client.get(path or self.table.get_absolute_url())
        assert response.status_code == 200, response.status_code
        return Page(response.content.decode())

    def forms(self):
        """Every change this phone can make, each form made now."""
        t = self.table.edit_token
        page = self.open()
        game = self.table.games.order_by("pk").first()
        return {
            "add member": form_at(page, reverse("add_member", args=[t])),
            "remove member": form_at(
                page, reverse("remove_member", args=[t, member(self.table, "Lata")])
            ),
            "new game": self.open(reverse("table_new_game", args=[t])).form("Start game"),
            "play again": form_at(page, reverse("play_again", args=[t, game.pk])),
            "upload": form_at(page, reverse("table_upload", args=[t])),
        }

    def submit(self, form, htmx=False, **typed):
        action, fields = form
        return self.client.post(action, {**fields, **typed}, **(HTMX if htmx else {}))


def game_file(name, players, first_dealer=None):
    doc = {"schema": "rummy-tracker.game/1", "name": name, "format": "points", "players": players}
    if first_dealer:
        doc["first_dealer"] = first_dealer
    return SimpleUploadedFile("game.json", game_json.dumps(doc).encode())


def csv_file():
    game = Game.create("points", {}, ["Asha", "Dev"], name="From a sheet")  # in no table
    return SimpleUploadedFile("game.csv", game.as_csv().encode())


def table_file():
    doc = {
        "schema": tables.SCHEMA,
        "name": "Cousins",
        "members": ["Asha", "Zoë"],
        "games": [
            {
                "schema": "rummy-tracker.game/1",
                "name": "Cousins' points",
                "format": "points",
                "players": ["Zoë", "Ravi"],
            }
        ],
    }
    return SimpleUploadedFile("table.json", json.dumps(doc).encode())


def typed(kind, table):
    """What the player taps and types into each form (a file made fresh: it is read once)."""
    if kind == "add member":
        return {"name": "  Dev "}
    if kind == "new game":
        return {
            "seat": [str(member(table, "Meena")), str(member(table, "Kiran"))],
            "dealer": str(member(table, "Kiran")),
            "name": "Late game",
            "entry_fee": "25",
        }
    if kind == "upload":
        return {"file": game_file("Imported", ["Asha", "Dev"])}
    return {}


# Worked by hand from BEFORE: each change is one revision more.
AFTER = {
    "add member": (2, [*FAMILY, "Lata", "Dev"], [SUNDAY]),
    "remove member": (2, FAMILY, [SUNDAY]),
    "new game": (
        2,
        [*FAMILY, "Lata"],
        [SUNDAY, ("Late game", "pool", ["Meena", "Kiran"], "Kiran")],
    ),
    # The same seats and rules; the first deal passes from Asha to Ravi.
    "play again": (
        2,
        [*FAMILY, "Lata"],
        [SUNDAY, ("Sunday pool 2", "pool", ["Asha", "Ravi"], "Ravi")],
    ),
    "upload": (
        2,
        [*FAMILY, "Lata", "Dev"],
        [SUNDAY, ("Imported", "points", ["Asha", "Dev"], "Asha")],
    ),
}
KINDS = list(AFTER)


@in_db
def test_every_table_form_posts_the_tables_revision():
    table = family_table()
    phone = TablePhone(table)
    forms = phone.forms()
    assert {kind: fields.get("version") for kind, (_, fields) in forms.items()} == dict.fromkeys(
        KINDS, "1"
    )
    assert world(table) == BEFORE


# ------------------------------------------------------------ the same post twice


@in_db
@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize("kind", KINDS)
def test_the_same_table_post_sent_twice_is_applied_once(kind, htmx):
    table = family_table()
    phone = TablePhone(table)
    form = phone.forms()[kind]
    first = phone.submit(form, htmx=htmx, **typed(kind, table))
    if not htmx or kind == "upload":  # the upload form is a plain one: it redirects
        assert first.status_code == 302
    elif kind in ("new game", "play again"):
        assert first.status_code == 200 and first["HX-Redirect"].startswith("/g/")
    else:
        assert first.status_code == 200
    assert world(table) == AFTER[kind]
    again = phone.submit(form, htmx=htmx, **typed(kind, table))  # a retry on flaky Wi-Fi
    assert again.status_code == 409
    assert STALE in text(again)
    assert world(table) == AFTER[kind]
    if htmx:
        assert "<html" not in text(again)


@in_db
@pytest.mark.parametrize(
    ("file", "after"),
    [
        (csv_file, ([*FAMILY, "Lata", "Dev"], ("From a sheet", "points", ["Asha", "Dev"], "Asha"))),
        (
            table_file,
            ([*FAMILY, "Lata", "Zoë"], ("Cousins' points", "points", ["Zoë", "Ravi"], "Zoë")),
        ),
    ],
    ids=["csv game", "table document"],
)
def test_the_same_upload_of_a_csv_or_a_table_document_sent_twice_is_imported_once(file, after):
    table = family_table()
    phone = TablePhone(table)
    form = phone.forms()["upload"]
    assert phone.submit(form, file=file()).status_code == 302
    members, game = after
    assert world(table) == (2, members, [SUNDAY, game])
    again = phone.submit(form, file=file())
    assert again.status_code == 409 and STALE in text(again)
    assert world(table) == (2, members, [SUNDAY, game])


@in_db
def test_every_change_counts_one_revision_and_a_game_made_for_the_table_too():
    table = Table.start("Counted", ["Asha", "Ravi"])
    assert Table.objects.get(pk=table.pk).revision == 0
    table.add_member("Lata", made_against=0)
    table.remove_member(member(table, "Lata"), made_against=1)
    game = tables.start_game(table, "pool", {}, ["Asha", "Ravi"], "Asha", made_against=2)
    game.add_event(OUT, 0)
    game.add_event(OUT, 1)  # a deal is a change to the game, not to the table
    assert Table.objects.get(pk=table.pk).revision == 3
    tables.play_again(table, game, made_against=3)
    tables.import_game(
        table,
        {"schema": "rummy-tracker.game/1", "players": ["Asha", "Dev"], "format": "points"},
        made_against=4,
    )
    doc = {"schema": tables.SCHEMA, "members": [], "games": []}
    tables.import_document({**doc, "members": ["Zoë", "Asha"]}, into=table, made_against=5)
    Game.create("points", {}, ["Asha", "Ravi"], table=table)  # any game made for the table
    assert Table.objects.get(pk=table.pk).revision == 7
    assert table.member_names() == ["Asha", "Ravi", "Dev", "Zoë"]
    assert table.games.count() == 4


@in_db
def test_a_change_made_against_another_revision_raises_and_saves_nothing():
    table = family_table()
    with pytest.raises(StaleTable):
        table.add_member("Dev", made_against=0)
    with pytest.raises(StaleTable):
        table.remove_member(member(table, "Lata"), made_against=2)
    with pytest.raises(StaleTable):
        tables.play_again(table, table.games.get(), made_against=None)
    with pytest.raises(StaleTable):
        tables.import_game(
            table,
            {"schema": "rummy-tracker.game/1", "format": "points", "players": ["Asha", "Dev"]},
            made_against=0,
        )
    assert world(table) == BEFORE


# ------------------------------------------------------------ made before another phone's change


@in_db
@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize("other", KINDS)
def test_every_table_form_made_before_another_phones_change_is_refused(other, htmx):
    table = family_table()
    phone_a, phone_b = TablePhone(table), TablePhone(table)
    forms = phone_a.forms()  # made now, at revision 1
    b_form = phone_b.forms()[other]
    assert phone_b.submit(b_form, **typed(other, table)).status_code == 302
    assert world(table) == AFTER[other]
    for kind, form in forms.items():
        answer = phone_a.submit(form, htmx=htmx, **typed(kind, table))
        assert answer.status_code == 409, (kind, answer.status_code)
        page = text(answer)
        assert STALE in page, kind
        # The fresh page, made at revision 2.
        assert 'name="version" value="2"' in page, kind
        assert world(table) == AFTER[other], kind


@in_db
def test_a_stale_post_is_answered_as_stale_before_anything_typed_is_looked_at():
    table = family_table()
    phone_a = TablePhone(table)
    forms = phone_a.forms()
    unfinished = Game.create("pool", {}, ["Asha", "Ravi"], table=table)  # revision 2 now
    t = table.edit_token
    refused = {
        "add member": phone_a.submit(forms["add member"], name="ASHA"),  # a member already
        "new game": phone_a.submit(forms["new game"], seat=[str(member(table, "Asha"))]),
        "upload": phone_a.submit(forms["upload"], file=SimpleUploadedFile("t.json", b"{nope")),
        "play again": phone_a.submit(
            (reverse("play_again", args=[t, unfinished.pk]), forms["play again"][1])
        ),
        "remove member": phone_a.submit(
            (reverse("remove_member", args=[t, member(table, "Asha")]), forms["remove member"][1])
        ),
    }
    assert {kind: r.status_code for kind, r in refused.items()} == dict.fromkeys(KINDS, 409)
    assert all(STALE in text(r) for r in refused.values())
    assert world(table)[:2] == (2, [*FAMILY, "Lata"]) and table.games.count() == 2


@in_db
def test_the_refused_page_keeps_the_name_typed_and_adds_it_when_sent_again():
    table = family_table()
    phone_a, phone_b = TablePhone(table), TablePhone(table)
    form = phone_a.forms()["add member"]
    assert phone_b.submit(phone_b.forms()["remove member"]).status_code == 302
    for htmx in (False, True):
        answer = phone_a.submit(form, htmx=htmx, name="Zoë")
        assert answer.status_code == 409
        assert 'name="name" value="Zoë"' in text(answer)
        assert "Lata" not in text(answer)  # the table as it is now: Lata was removed
    fresh = form_at(Page(answer.content.decode()), form[0])
    assert phone_a.submit(fresh).status_code == 302  # as is: the name it kept, version 2
    assert world(table) == (3, [*FAMILY, "Zoë"], [SUNDAY])


@in_db
def test_the_refused_new_game_form_keeps_what_was_chosen_and_starts_it_when_sent_again():
    table = family_table()
    phone_a, phone_b = TablePhone(table), TablePhone(table)
    form = phone_a.forms()["new game"]
    assert phone_b.submit(phone_b.forms()["add member"], name="Dev").status_code == 302
    answer = phone_a.submit(form, **typed("new game", table))
    assert answer.status_code == 409
    page = Page(answer.content.decode())
    assert STALE in text(answer)
    again = page.form("Start game")
    fields = again[1]
    # What was chosen, on the form made from the table as it is now (Dev is a member).
    assert fields["version"] == "2" and fields["name"] == "Late game"
    assert fields["entry_fee"] == "25" and fields["dealer"] == str(member(table, "Kiran"))
    assert "Dev" in text(answer)
    assert phone_a.submit(again, seat=typed("new game", table)["seat"]).status_code == 302
    late = table.games.order_by("pk").last()
    assert (late.name, late.seat_names(), late.rules["entry_fee"]) == (
        "Late game",
        ["Meena", "Kiran"],
        "25",
    )
    assert world(table)[0] == 3


@in_db
def test_a_format_tapped_on_a_stale_new_game_form_keeps_its_version():
    table = family_table()
    phone_a, phone_b = TablePhone(table), TablePhone(table)
    form = phone_a.forms()["new game"]
    assert phone_b.submit(phone_b.forms()["add member"], name="Dev").status_code == 302
    action, fields = form
    refreshed = phone_a.client.post(action, {**fields, "format": "points", "action": "refresh"})
    assert refreshed.status_code == 200
    page = Page(refreshed.content.decode())
    points = page.form("Start game")
    assert points[1]["version"] == "1" and points[1]["format"] == "points"
    answer = phone_a.submit(points)
    assert answer.status_code == 409 and STALE in text(answer)
    assert world(table) == AFTER["add member"]


# ------------------------------------------------------------ no version, or a malformed one

BAD_VERSIONS = [None, "", "abc", "2.0", "-1", "1e0", " 1", "1 ", "\u0661", "\uff11", "9" * 11]


@in_db
@pytest.mark.parametrize("kind", KINDS)
def test_a_missing_or_malformed_version_is_refused_and_nothing_is_saved(kind):
    table = family_table()
    phone = TablePhone(table)
    action, fields = phone.forms()[kind]
    for bad in BAD_VERSIONS:
        posted = {k: v for k, v in fields.items() if k != "version"}
        if bad is not None:
            posted["version"] = bad
        for htmx in (False, True):
            answer = phone.submit((action, posted), htmx=htmx, **typed(kind, table))
            assert answer.status_code == 400, (bad, answer.status_code)
            assert NO_VERSION in text(answer), bad
            assert world(table) == BEFORE, bad
    # The form as the page made it is taken.
    assert phone.submit((action, fields), **typed(kind, table)).status_code == 302
    assert world(table) == AFTER[kind]


@in_db
def test_the_table_page_and_the_game_form_show_the_notice_where_htmx_swaps_it():
    table = family_table()
    phone = TablePhone(table)
    forms = phone.forms()
    Game.create("points", {}, ["Asha", "Ravi"], table=table)
    action, fields = forms["play again"]
    answer = phone.client.post(action, fields, HTTP_HX_TARGET="table", **HTMX)
    fragment = text(answer)
    assert answer.status_code == 409
    assert fragment.lstrip().startswith('<div id="table"')
    assert f'<p class="notice warn" role="alert">{STALE}</p>' in fragment
    answer = phone.submit(forms["new game"], htmx=True)
    assert answer.status_code == 409
    assert text(answer).lstrip().startswith('<form id="new-game"')
    assert STALE in text(answer)


# ------------------------------------------------------------ through real gunicorn workers

COPIES = 8


def live_table(db):
    """Nani's table in the live database, imported: revision 0, one finished pool game."""
    doc = {
        "schema": tables.SCHEMA,
        "name": "Nani's table",
        "members": [*FAMILY, "Lata"],
        "games": [
            {
                "schema": "rummy-tracker.game/1",
                "name": "Sunday pool",
                "format": "pool",
                "players": ["Asha", "Ravi"],
                "first_dealer": "Asha",
                "history": [OUT, OUT],
            }
        ],
    }
    made = json.loads(db.manage("import_table", "-", stdin=json.dumps(doc)))
    made["edit_token"] = made["edit_url"].strip("/").split("/")[1]
    return made


def live_world(db, table):
    """world() as the server's database has it, read through the ORM."""
    code = (
        "import json\n"
        "from tracker.models import Table\n"
        f"table = Table.objects.get(pk={int(table['id'])})\n"
        "games = []\n"
        "for game in table.games.order_by('pk'):\n"
        "    seats = game.seat_names()\n"
        "    games.append([game.name, game.format, seats, seats[game.first_dealer - 1]])\n"
        "print(json.dumps([table.revision, table.member_names(), games]))\n"
    )
    revision, members, games = json.loads(db.manage("shell", "-c", code).strip().splitlines()[-1])
    return revision, members, [tuple(g) for g in games]


def live_page(phone, path):
    answer = phone.get(path)
    assert answer.status == 200, (path, answer.status, answer.body[:1000])
    return Page(answer.body)


def send(phone, form, typed=None):
    action, fields = form
    return phone.post(action, {**fields, **(typed or {})}, fields["csrfmiddlewaretoken"])


LIVE_SUNDAY = ("Sunday pool", "pool", ["Asha", "Ravi"], "Asha")


def live_forms(phone, db, table):
    """The table's forms on a phone, and what each one changes (worked by hand)."""
    t = table["edit_token"]
    page = live_page(phone, f"/t/{t}/")
    code = (
        "from tracker.models import Table\n"
        f"table = Table.objects.get(pk={int(table['id'])})\n"
        "print(table.games.get().pk, table.members.get(name='Lata').pk,"
        " table.members.get(name='Meena').pk, table.members.get(name='Kiran').pk)\n"
    )
    game, lata, meena, kiran = db.manage("shell", "-c", code).strip().splitlines()[-1].split()
    new_game = live_page(phone, f"/t/{t}/new/").form("Start game")
    return {
        "play again": (
            form_at(page, f"/t/{t}/again/{game}/"),
            None,
            ([*FAMILY, "Lata"], [LIVE_SUNDAY, ("Sunday pool 2", "pool", ["Asha", "Ravi"], "Ravi")]),
        ),
        "new game": (
            new_game,
            {"seat": [meena, kiran], "dealer": meena, "name": "Late game"},
            ([*FAMILY, "Lata"], [LIVE_SUNDAY, ("Late game", "pool", ["Meena", "Kiran"], "Meena")]),
        ),
        "add member": (
            form_at(page, f"/t/{t}/members/"),
            {"name": "Dev"},
            ([*FAMILY, "Lata", "Dev"], [LIVE_SUNDAY]),
        ),
        "remove member": (
            form_at(page, f"/t/{t}/members/{lata}/remove/"),
            None,
            (FAMILY, [LIVE_SUNDAY]),
        ),
    }


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["play again", "new game", "add member", "remove member"])
def test_one_table_change_sent_many_times_at_once_is_applied_once(live_db, server, kind):
    table = live_table(live_db)
    assert live_world(live_db, table) == (0, [*FAMILY, "Lata"], [LIVE_SUNDAY])
    phone = server.browser()
    form, typed_in, (members, games) = live_forms(phone, live_db, table)[kind]
    statuses = at_once(COPIES, lambda: send(phone, form, typed_in))
    counted = Counter(status for status, _ in statuses)
    print(f"\n[{live_db.backend}] table {kind}: {COPIES} copies at once: {dict(counted)}")
    assert not any(is_locked for _, is_locked in statuses), statuses
    assert counted == {302: 1, 409: COPIES - 1}, counted
    assert live_world(live_db, table) == (1, members, games)
    answer = send(phone, form, typed_in)  # and once more, after they all came back
    assert answer.status == 409 and STALE in answer.body
    assert live_world(live_db, table) == (1, members, games)
    assert not server_errors(server), "\n".join(server_errors(server)[:20])


@pytest.mark.slow
def test_live_table_forms_made_before_another_phones_change_are_refused(live_db, server):
    table = live_table(live_db)
    phone_a, phone_b = server.browser(), server.browser()
    forms = live_forms(phone_a, live_db, table)
    other, typed_in, _ = live_forms(phone_b, live_db, table)["add member"]
    assert send(phone_b, other, typed_in).status == 302
    after = (1, [*FAMILY, "Lata", "Dev"], [LIVE_SUNDAY])
    assert live_world(live_db, table) == after
    answers = {kind: send(phone_a, form, typing) for kind, (form, typing, _) in forms.items()}
    statuses = {kind: answer.status for kind, answer in answers.items()}
    print(f"\n[{live_db.backend}] table forms after another phone's change: {statuses}")
    assert set(statuses.values()) == {409}, statuses
    assert all(STALE in answer.body for answer in answers.values())
    assert live_world(live_db, table) == after
    assert not server_errors(server), "\n".join(server_errors(server)[:20])


@pytest.mark.slow
def test_a_table_post_in_another_charset_is_a_400_and_changes_nothing(live_db, server):
    table = live_table(live_db)
    phone = server.browser()
    forms = live_forms(phone, live_db, table)  # a real CSRF cookie and session
    paths = [form[0] for form, _, _ in forms.values()] + [f"/t/{table['edit_token']}/upload/"]
    before = live_world(live_db, table)
    answers = posts_in_other_charsets(server, paths, phone.cookies)
    sent = sum(answers.values())
    print(f"\n[{live_db.backend}] {sent} table posts in other charsets: {dict(answers)}")
    assert live_world(live_db, table) == before
    assert not server_errors(server), "\n".join(server_errors(server)[:20])
