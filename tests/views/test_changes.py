"""Every change names what it changes: the event's id and the version of the game.

The phones here post the forms the pages render, as a browser does (the form's
action and hidden fields as sent to the phone, then what the player typed),
so these tests say what a family would see whatever the URLs look like. The
five cases of issue 17 each have a test (`test_case_*`).
"""

import html
import re
import sqlite3
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from tests.servers.gunicorn import manage
from tests.views.test_games import HTMX, deal_data
from tests.views.test_games import text as page_text
from tracker import i18n
from tracker.models import Event, Game, StaleHistory

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

NAMES = ["Asha", "Ravi", "Meena", "Kiran"]
# Pool 101, entry fee 50. Worked by hand: after deal 1 Asha 0, Ravi 80, Meena 10,
# Kiran 40; after deal 2 Asha 30, Ravi 105 (out), Meena 10, Kiran 60. Ravi may
# rejoin at 61 (highest total still in, plus one); three are in, so the pot may be split.
D1 = {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 10, "Kiran": 40}}
D2 = {"type": "deal", "winner": "Meena", "results": {"Asha": 30, "Ravi": 25, "Kiran": 20}}
REJOIN = {"type": "rejoin", "player": "Ravi"}


def pool_game(history=(D1, D2)):
    return Game.create("pool", {"entry_fee": "50"}, NAMES, history=list(history))


def points_deal(winner, **results):
    return {"type": "deal", "winner": winner, "results": results}


P1 = points_deal("Asha", Ravi=10, Meena=20, Kiran=30)
P2 = points_deal("Ravi", Asha=2, Meena=5, Kiran=7)
P3 = points_deal("Meena", Asha=40, Ravi=0, Kiran=3)
P4 = points_deal("Kiran", Asha=4, Ravi=8, Meena=12)
P5 = points_deal("Asha", Ravi=50, Meena=60, Kiran=70)


def points_game(history=(P1, P2, P3, P4, P5)):
    return Game.create("points", {}, NAMES, history=list(history))


def text(response):
    """The page's text as a player reads it: spaces collapsed, entities read."""
    return html.unescape(page_text(response))


def stored(game):
    """(revision, history): everything a change may touch."""
    game = Game.objects.get(pk=game.pk)
    return game.revision, game.history()


# ------------------------------------------------------------ pages and their forms


class Page(HTMLParser):
    """The forms and links of a page, as a browser would submit and follow them."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.forms, self.links = [], []
        self._form = self._button = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("method", "get").lower() == "post":
            self._form = {"action": a.get("action"), "fields": {}, "buttons": []}
            self.forms.append(self._form)
        elif tag == "a":
            self.links.append((a.get("href"), a.get("aria-label") or ""))
        if self._form is None:
            return
        if tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind not in ("radio", "checkbox") or "checked" in a:
                self._form["fields"][a["name"]] = a.get("value") or ""
        elif tag == "button":
            self._button = {
                "name": a.get("name"),
                "value": a.get("value", ""),
                "formaction": a.get("formaction"),
                "text": "",
            }
            self._form["buttons"].append(self._button)

    def handle_data(self, data):
        if self._button is not None:
            self._button["text"] += data

    def handle_endtag(self, tag):
        if tag == "button":
            self._button = None
        elif tag == "form":
            self._form = None

    def form(self, button):
        """(action, fields) of the form whose submit button says `button`: posted
        to the button's own formaction where it has one, as a browser does."""
        for form in self.forms:
            for b in form["buttons"]:
                if " ".join(b["text"].split()).startswith(button):
                    fields = dict(form["fields"])
                    if b["name"]:
                        fields[b["name"]] = b["value"]
                    return b["formaction"] or form["action"], fields
        found = [" ".join(b["text"].split()) for f in self.forms for b in f["buttons"]]
        raise AssertionError(f"no form with a {button!r} button; buttons: {found}")

    def link(self, label):
        for href, aria in self.links:
            if aria == label:
                return href
        raise AssertionError(f"no link {label!r}")


class Phone:
    """One phone at the table: it keeps the last page each form came from."""

    def __init__(self, game):
        self.client = Client()
        self.game = game

    def open(self, path=None):
        response = self.client.get(path or self.game.get_absolute_url())
        assert response.status_code == 200, response.status_code
        return Page(response.content.decode())

    def edit_page(self, number):
        return self.open(self.open().link(f"Edit deal {number}"))

    def typed(self, winner, **results):
        """The deal fields as tapped and typed (the form brings its own version)."""
        data = deal_data(self.game, winner, **results)
        del data["version"]
        return data

    def submit(self, form, htmx=False, **typed):
        action, fields = form
        return self.client.post(action, {**fields, **typed}, **(HTMX if htmx else {}))


def made_forms(phone):
    """Every change a phone can make to the pool game, each form made now (at revision 2)."""
    game_page = phone.open()
    edit_page = phone.edit_page(2)
    split_page = phone.open(f"/g/{phone.game.edit_token}/split/")
    return {
        "deal": (game_page.form("Save deal 3"), phone.typed("Asha", Meena=2, Kiran=2)),
        "edit": (edit_page.form("Save deal 2"), phone.typed("Meena", Asha=35, Ravi=25, Kiran=20)),
        "delete": (edit_page.form("Yes, delete deal 2"), {}),
        "rejoin": (game_page.form("Rejoin Ravi at 61"), {}),
        "split": (split_page.form("Split by drops"), {}),
    }


# ------------------------------------------------------------ forms a poll brought


def test_a_phone_saves_a_deal_from_the_board_its_poll_brought():
    """Phone B's board and deal form came by its poll after phone A saved a deal:
    its form carries the phone's own CSRF token, as its page does; posted
    without one it is refused and saves nothing."""
    game = pool_game()
    phone_a, phone_b = Phone(game), Phone(game)
    phone_b.client = Client(enforce_csrf_checks=True)
    phone_b.client.get(game.get_absolute_url())
    deal_3 = phone_a.typed("Asha", Meena=2, Kiran=2)
    assert phone_a.submit(phone_a.open().form("Save deal 3"), **deal_3).status_code == 302
    polled = phone_b.client.get(f"/g/{game.edit_token}/live/?v=2", **HTMX)
    action, fields = Page(polled.content.decode()).form("Save deal 4")
    deal_4 = {**fields, **phone_b.typed("Meena", Asha=5, Kiran=7)}
    no_token = {k: v for k, v in deal_4.items() if k != "csrfmiddlewaretoken"}
    assert phone_b.client.post(action, no_token, **HTMX).status_code == 403
    assert stored(game)[0] == 3
    assert phone_b.client.post(action, deal_4, **HTMX).status_code == 200
    assert stored(game) == (
        4,
        [D1, D2, points_deal("Asha", Meena=2, Kiran=2), points_deal("Meena", Asha=5, Kiran=7)],
    )


# ------------------------------------------------------------ the same post twice


def pool_changes():
    """(kind, make the game, make the form, history after it, message of the copy)."""
    return [
        (
            "deal",
            pool_game,
            lambda p: (p.open().form("Save deal 3"), p.typed("Asha", Meena=2, Kiran=2)),
            [D1, D2, {"type": "deal", "winner": "Asha", "results": {"Meena": 2, "Kiran": 2}}],
            "Someone else just saved deal 3",
        ),
        (
            "edit",
            pool_game,
            lambda p: (
                p.edit_page(1).form("Save deal 1"),
                p.typed("Asha", Ravi=80, Meena=10, Kiran=45),
            ),
            [{**D1, "results": {"Ravi": 80, "Meena": 10, "Kiran": 45}}, D2],
            "Someone else just changed deal 1",
        ),
        (
            "delete",
            pool_game,
            lambda p: (p.edit_page(1).form("Yes, delete deal 1"), {}),
            [D2],
            "Someone else just deleted deal 1",
        ),
        (
            "rejoin",
            pool_game,
            lambda p: (p.open().form("Rejoin Ravi at 61"), {}),
            [D1, D2, REJOIN],
            "Someone else just rejoined Ravi",
        ),
        (
            "undo",
            lambda: pool_game([D1, D2, REJOIN]),
            lambda p: (p.open().form("Yes, undo"), {}),
            [D1, D2],
            "Someone else just undid Ravi's rejoin",
        ),
        (
            "split",
            pool_game,
            lambda p: (p.open(f"/g/{p.game.edit_token}/split/").form("Split by drops"), {}),
            [D1, D2, {"type": "split", "method": "drops"}],
            "Someone else just split the pot",
        ),
        (
            "end",
            lambda: points_game([P1]),
            lambda p: (p.open().form("Yes, end the session"), {}),
            [P1, {"type": "end"}],
            "Someone else just ended the session",
        ),
    ]


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize("kind", ["deal", "edit", "delete", "rejoin", "undo", "split", "end"])
def test_the_same_post_sent_twice_is_applied_once(kind, htmx):
    _, make_game, make, expected, message = next(c for c in pool_changes() if c[0] == kind)
    game = make_game()
    phone = Phone(game)
    form, typed = make(phone)
    changed = game.revision + 1
    first = phone.submit(form, htmx=htmx, **typed)
    assert first.status_code == (200 if htmx else 302)
    assert stored(game) == (changed, expected)
    again = phone.submit(form, htmx=htmx, **typed)  # a retry on flaky Wi-Fi
    assert again.status_code == 409
    assert f"{message}." in text(again)
    assert stored(game) == (changed, expected)


# ------------------------------------------------------------ a form made before another change

OTHER_CHANGES = {
    # The other phone's change, made first: (do it, history after it, what this phone is told).
    "delete": (
        lambda p: p.submit(p.edit_page(1).form("Yes, delete deal 1")),
        [D2],
        "Someone else just deleted deal 1",
    ),
    "edit": (
        lambda p: p.submit(
            p.edit_page(2).form("Save deal 2"), **p.typed("Meena", Asha=30, Ravi=25, Kiran=22)
        ),
        [D1, {**D2, "results": {"Asha": 30, "Ravi": 25, "Kiran": 22}}],
        "Someone else just changed deal 2",
    ),
    "rejoin": (
        lambda p: p.submit(p.open().form("Rejoin Ravi at 61")),
        [D1, D2, REJOIN],
        "Someone else just rejoined Ravi",
    ),
}


@pytest.mark.parametrize("mine", ["deal", "edit", "delete", "rejoin", "split"])
@pytest.mark.parametrize("other", list(OTHER_CHANGES))
def test_a_form_made_before_another_phones_change_is_refused(other, mine):
    game = pool_game()
    phone_a, phone_b = Phone(game), Phone(game)
    form, typed = made_forms(phone_a)[mine]
    change, history, told = OTHER_CHANGES[other]
    assert change(phone_b).status_code == 302
    assert stored(game) == (3, history)
    answer = phone_a.submit(form, **typed)
    assert answer.status_code == 409
    page = text(answer)
    assert told in page
    assert stored(game) == (3, history)
    if mine == "deal":  # what was typed is kept, ready to save again
        assert re.search(r'name="winner" value="1" checked', page)
        assert 'name="p3" value="2"' in page and 'name="p4" value="2"' in page
    if mine == "edit":  # the same deal, wherever it is now, with the correction typed
        number = 1 if other == "delete" else 2
        assert f"Correct deal {number}" in page
        assert 'name="p1" value="35"' in page
        assert "Your correction is not saved" in page


def test_a_stale_deal_form_saved_again_from_the_409_page_is_recorded():
    game = pool_game()
    phone_a, phone_b = Phone(game), Phone(game)
    form, typed = made_forms(phone_a)["deal"]
    OTHER_CHANGES["edit"][0](phone_b)
    refused = phone_a.submit(form, **typed)
    assert refused.status_code == 409
    # The refilled form, sent as it came back: the deal is saved once, on the new history.
    again = phone_a.submit(Page(refused.content.decode()).form("Save deal 3"))
    assert again.status_code == 302
    new_deal = {"type": "deal", "winner": "Asha", "results": {"Meena": 2, "Kiran": 2}}
    assert stored(game) == (4, [*OTHER_CHANGES["edit"][1], new_deal])


# ------------------------------------------------------------ the five cases of issue 17


def test_case_1_the_same_delete_sent_twice_deletes_one_deal():
    game = points_game()
    phone = Phone(game)
    form = phone.edit_page(2).form("Yes, delete deal 2")
    assert phone.submit(form).status_code == 302
    again = phone.submit(form)
    assert again.status_code == 409
    assert "Someone else just deleted deal 2" in text(again)
    assert stored(game) == (6, [P1, P3, P4, P5])


def test_case_2_a_stale_edit_or_delete_never_acts_on_another_deal():
    game = points_game()
    phone_a, phone_b = Phone(game), Phone(game)
    page = phone_a.edit_page(4)  # phone A opens deal 4
    save = page.form("Save deal 4")
    remove = page.form("Yes, delete deal 4")
    assert phone_b.submit(phone_b.edit_page(1).form("Yes, delete deal 1")).status_code == 302
    after = (6, [P2, P3, P4, P5])
    assert stored(game) == after
    answer = phone_a.submit(save, **phone_a.typed("Kiran", Asha=4, Ravi=8, Meena=13))
    assert answer.status_code == 409
    assert "Someone else just deleted deal 1" in text(answer)
    assert "Correct deal 3" in text(answer)  # deal 4 is deal 3 now; deal 5 untouched
    assert stored(game) == after
    answer = phone_a.submit(remove)
    assert answer.status_code == 409
    assert stored(game) == after
    # Made again from the page as it is now, the correction lands on the same deal.
    page = phone_a.edit_page(3)
    save = page.form("Save deal 3")
    answer = phone_a.submit(save, **phone_a.typed("Kiran", Asha=4, Ravi=8, Meena=13))
    assert answer.status_code == 302
    assert stored(game) == (7, [P2, P3, points_deal("Kiran", Asha=4, Ravi=8, Meena=13), P5])


BAD_VERSIONS = [None, "", "abc", "2.0", " 2", "+2", "\u0662", "2_0", "9" * 30]


def bad(fields, version):
    fields = dict(fields)
    if version is None:
        del fields["version"]
    else:
        fields["version"] = version
    return fields


@pytest.mark.parametrize("version", BAD_VERSIONS)
@pytest.mark.parametrize("kind", ["deal", "rejoin", "split", "edit", "delete"])
def test_case_3_a_change_without_a_whole_number_version_is_refused(kind, version):
    game = pool_game()
    phone = Phone(game)
    (action, fields), typed = made_forms(phone)[kind]
    assert fields["version"] == "2"
    for _ in range(2):  # sent twice that way: recorded neither time
        answer = phone.client.post(action, {**bad(fields, version), **typed})
        assert answer.status_code == 400
        assert "Nothing was saved: the form did not say which version" in text(answer)
        assert stored(game) == (2, [D1, D2])


@pytest.mark.parametrize("version", [None, "", "abc", "2.0"])
def test_case_3_an_end_without_a_whole_number_version_is_refused(version):
    game = points_game([P1, P2])
    phone = Phone(game)
    action, fields = phone.open().form("Yes, end the session")
    for headers in ({}, HTMX):
        answer = phone.client.post(action, bad(fields, version), **headers)
        assert answer.status_code == 400
        assert "did not say which version" in text(answer)
    assert stored(game) == (2, [P1, P2])


def post_endpoints(game):
    first = game.events.first()
    # (The position, where there is no id: the URLs before issue 17, to see this fail there.)
    event = getattr(first, "serial", first.position)
    t = game.edit_token
    return [
        "/new/",
        "/import/",
        reverse("add_deal", args=[t]),
        reverse("edit_deal", args=[t, event]),
        reverse("delete_event", args=[t, event]),
        reverse("rejoin", args=[t]),
        reverse("split", args=[t]),
        reverse("end_session", args=[t]),
        reverse("join", args=[t]),
        reverse("sit_out", args=[t]),
        reverse("sit_in", args=[t]),
        reverse("leave", args=[t]),
        reverse("remove_game", args=[t]),
        reverse("put_back", args=[t]),
        reverse("game_again", args=[t]),
        reverse("new_table"),
        reverse("import_table"),
        *table_post_endpoints(),
        reverse("set_language"),
        reverse("set_theme"),
        "/admin/login/",
    ]


def table_post_endpoints():
    from tracker.models import Table

    table = Table.start("Charset table", ["Asha", "Ravi"])
    # At revision 2, the version the bodies below carry: read as UTF-8, the
    # latin-1 one would add the member Zoë; the charset refusal comes first.
    table.add_member("Dev", made_against=0)
    table.remove_member(table.members.get(name="Dev").pk, made_against=1)
    t = table.edit_token
    return [
        reverse("table_new_game", args=[t]),
        reverse("add_member", args=[t]),
        reverse("remove_member", args=[t, table.members.first().pk]),
        reverse("play_again", args=[t, 1]),
        reverse("table_upload", args=[t]),
    ]


CHARSETS = {
    "latin-1": "version=2&player=Ravi&name=Zo\u00eb".encode("latin-1"),
    "utf-16": "version=2&player=Ravi".encode("utf-16"),
}


def test_every_post_endpoint_is_in_the_charset_test(admin_on):
    """Each URL of the app that does not answer a post with 405 is in post_endpoints."""
    from django.urls import Resolver404, URLPattern, get_resolver, resolve

    from tests.views.test_sharing import url_for

    game = pool_game()
    listed = {resolve(url).url_name for url in post_endpoints(game)}
    taking = set()
    for pattern in get_resolver().url_patterns:
        if not isinstance(pattern, URLPattern):
            continue  # the admin: its login is listed
        if "token" in pattern.pattern.regex.groupindex:
            url = url_for(pattern, game.edit_token, game.events.first().serial)
        else:
            regex = pattern.pattern.regex.pattern
            url = "/" + regex.lstrip("^").rstrip("$").replace("\\Z", "").replace("\\", "")
        try:
            resolve(url)
        except Resolver404:
            continue  # a pattern whose made-up part does not fit (the table's chart kinds)
        if Client().post(url, {}).status_code != 405:
            taking.add(pattern.name)
    assert taking == listed - {"login"}, taking
    assert len(taking) == 24


@pytest.mark.parametrize("csrf", [True, False], ids=["csrf-checked", "csrf-exempt-client"])
@pytest.mark.parametrize("charset", list(CHARSETS))
def test_case_4_a_body_in_another_charset_is_a_400_on_every_post_endpoint(charset, csrf, admin_on):
    game = pool_game()
    client = Client(enforce_csrf_checks=csrf)
    token = "a" * 32
    client.cookies["csrftoken"] = token  # any CSRF cookie: the check then reads the body
    urls = post_endpoints(game)
    before = stored(game), Game.objects.count(), tables_stored()
    for url in urls:
        for headers in ({}, HTMX):
            answer = client.generic(
                "POST",
                url,
                CHARSETS[charset],
                content_type=f"application/x-www-form-urlencoded; charset={charset}",
                HTTP_X_CSRFTOKEN=token,
                **headers,
            )
            assert answer.status_code == 400, url
            assert "could not be read, so nothing was changed: it must be sent as UTF-8" in text(
                answer
            ), url
    assert (stored(game), Game.objects.count(), tables_stored()) == before


def tables_stored():
    """Every table's revision and members: all a table change may touch."""
    from tracker.models import Member, Table

    revisions = sorted(Table.objects.values_list("pk", "revision"))
    return revisions, sorted(Member.objects.values_list("table_id", "order", "name"))


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/x-www-form-urlencoded", "&".join(f"f{n}=1" for n in range(1200))),
        ("application/x-www-form-urlencoded", "version=2&player=" + "R" * 2_700_000),
        ("multipart/form-data", "no boundary at all"),
    ],
    ids=["too-many-fields", "too-big", "no-boundary"],
)
def test_other_bodies_that_cannot_be_read_are_a_400(content_type, body, admin_on):
    game = pool_game()
    client = Client(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = "a" * 32
    for url in post_endpoints(game):
        answer = client.generic(
            "POST", url, body.encode(), content_type=content_type, HTTP_X_CSRFTOKEN="a" * 32
        )
        assert answer.status_code == 400, url
        assert "The form could not be read, so nothing was changed" in text(answer)
    assert stored(game) == (2, [D1, D2])


def test_a_utf8_charset_spelt_another_way_is_read():
    game = pool_game()
    client = Client()
    answer = client.generic(
        "POST",
        f"/g/{game.edit_token}/rejoin/",
        b"version=2&player=Ravi",
        content_type="application/x-www-form-urlencoded; charset=UTF8",
    )
    assert answer.status_code == 302
    assert stored(game) == (3, [D1, D2, REJOIN])


def test_case_5_a_stale_deal_is_409_even_when_its_winner_went_out_since():
    # Pool 101: Ravi is on 80. Phone A types a deal Ravi won; phone B first
    # saves one where Ravi scores 30 and goes out (110).
    game = Game.create("pool", {}, ["Asha", "Ravi", "Meena"], history=[D1_THREE])
    phone_a, phone_b = Phone(game), Phone(game)
    form = phone_a.open().form("Save deal 2")
    b_form = phone_b.open().form("Save deal 2")
    assert phone_b.submit(b_form, **phone_b.typed("Asha", Ravi=30, Meena=10)).status_code == 302
    assert game.state().player("Ravi").status == "out"
    answer = phone_a.submit(form, **phone_a.typed("Ravi", Asha=10, Meena=10))
    assert answer.status_code == 409
    page = text(answer)
    assert "Someone else just saved deal 2" in page
    assert "Tap the player who won the deal" not in page
    assert len(game.history()) == 2


D1_THREE = {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 10}}


def test_case_5_when_the_other_deal_lands_between_reading_the_game_and_its_deals(monkeypatch):
    """The game row says the form is current, but the deals read just after already
    hold phone B's deal, in which the winner went out: still 409, never 422."""
    game = Game.create("pool", {}, ["Asha", "Ravi", "Meena"], history=[D1_THREE])
    phone_a = Phone(game)
    form = phone_a.open().form("Save deal 2")
    state = Game.state
    landed = []

    def state_after_another_save(self):
        if not landed:
            landed.append(True)
            other = Game.objects.get(pk=self.pk)
            b_deal = {"type": "deal", "winner": "Asha", "results": {"Ravi": 30, "Meena": 10}}
            other.add_event(b_deal, other.revision)
        return state(self)

    monkeypatch.setattr(Game, "state", state_after_another_save)
    answer = phone_a.submit(form, **phone_a.typed("Ravi", Asha=10, Meena=10))
    assert landed
    assert answer.status_code == 409
    assert "Someone else just saved deal 2" in text(answer)
    assert len(game.history()) == 2


# ------------------------------------------------------------ ids that never move


def test_event_ids_never_move_and_are_never_given_twice():
    game = points_game([P1, P2, P3])
    ids = list(game.events.values_list("serial", flat=True))
    assert ids == [1, 2, 3]
    phone = Phone(game)
    assert phone.submit(phone.edit_page(1).form("Yes, delete deal 1")).status_code == 302
    assert list(game.events.values_list("position", "serial")) == [(0, 2), (1, 3)]
    # The last deal deleted, then a deal added: it gets a new id, not the old one's.
    assert phone.submit(phone.edit_page(2).form("Yes, delete deal 2")).status_code == 302
    added = phone.submit(phone.open().form("Save deal 2"), **phone.typed(**P1_TYPED))
    assert added.status_code == 302
    assert list(game.events.values_list("position", "serial")) == [(0, 2), (1, 6)]
    # The Edit links name those ids.
    page = phone.open()
    assert page.link("Edit deal 2") == f"/g/{game.edit_token}/event/6/"
    assert page.link("Edit deal 1") == f"/g/{game.edit_token}/event/2/"


P1_TYPED = {"winner": "Asha", "Ravi": 10, "Meena": 20, "Kiran": 30}


def test_an_id_of_another_game_or_of_nothing_is_not_found():
    game, other = points_game([P1, P2]), points_game([P3])
    version = {"version": "2"}
    for serial in (other.events.get().serial + 5, 99, 0):
        url = f"/g/{game.edit_token}/event/{serial}/"
        assert Client().get(url).status_code == 404
        assert Client().post(f"{url}delete/", version).status_code == 404
    # Id 1 exists in both games: the link decides which game.
    assert Client().post(f"/g/{game.edit_token}/event/1/delete/", version).status_code == 302
    assert stored(game) == (3, [P2])
    assert stored(other) == (1, [P3])


def test_the_pages_carry_the_version_in_every_form_that_changes_the_game():
    game = pool_game([D1, D2, REJOIN])  # revision 3
    phone = Phone(game)
    pool_with_split = pool_game()  # revision 2
    points = points_game([P1])  # with End session, Sit out, Leave, Add a player; revision 1
    pages = [
        (phone.open(), "3"),
        (phone.edit_page(1), "3"),
        (Phone(pool_with_split).open(f"/g/{pool_with_split.edit_token}/split/"), "2"),
        (Phone(points).open(), "1"),
    ]
    actions = set()
    for page, version in pages:
        assert page.forms
        for form in page.forms:
            if "/count/" in form["action"] or form["action"] in ("/language/", "/theme/"):
                continue  # the card counter and the language and theme switches change nothing
            assert form["fields"].get("version") == version, form
            posted_to = [form["action"]] + [b["formaction"] for b in form["buttons"]]
            actions.update(url.split("/")[3] for url in posted_to if url)
    # Deal, Undo, Rejoin; Save, Delete; Split; End, Add a player, Sit out, Leave.
    assert {"deal", "event", "split", "end", "join", "sit-out", "leave"} <= actions, actions


def test_migration_0003_gives_stored_events_their_ids(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    manage(url, "migrate", "tracker", "0002_token_keys", "--noinput", "-v", "0")
    db = sqlite3.connect(tmp_path / "old.sqlite3")
    with db:
        db.execute(
            "INSERT INTO tracker_game (id, name, format, rules, first_dealer, edit_token,"
            " view_token, edit_key, view_key, created_from, revision, created_at, updated_at)"
            " VALUES (1, 'Old', 'points', '{}', 1, 'e', 'v', 'ek', 'vk', '', 3,"
            " '2026-01-01', '2026-01-01')"
        )
        for position, winner in enumerate(["A", "B", "A"]):
            db.execute(
                "INSERT INTO tracker_event (game_id, position, type, data, created_at)"
                " VALUES (1, ?, 'deal', ?, '2026-01-01')",
                (position, f'{{"winner": "{winner}", "results": {{"B": 2}}}}'),
            )
    manage(url, "migrate", "--noinput", "-v", "0")
    rows = db.execute("SELECT position, serial FROM tracker_event ORDER BY position").fetchall()
    assert rows == [(0, 1), (1, 2), (2, 3)]
    assert db.execute("SELECT revision, last_change FROM tracker_game").fetchone() == (3, "{}")
    db.close()


def test_the_notice_names_the_last_change_in_family_words():
    game = points_game([P1, P2])
    notice = i18n.someone_else(Game.objects.get(pk=game.pk).last_change)
    assert notice == "Someone else just changed the game."


def test_a_stale_split_shows_the_split_again_with_the_shares_typed():
    game = pool_game()  # pot 200: four entry fees of 50
    phone_a, phone_b = Phone(game), Phone(game)
    form = phone_a.open(f"/g/{game.edit_token}/split/?method=custom").form("Split as typed")
    shares = {"s1": "80", "s3": "70", "s4": "50"}  # Asha, Meena, Kiran
    OTHER_CHANGES["edit"][0](phone_b)
    after = (3, OTHER_CHANGES["edit"][1])
    answer = phone_a.submit(form, **shares)
    assert answer.status_code == 409
    page = text(answer)
    assert "Someone else just changed deal 2. Nothing was split" in page
    assert 'name="s1" inputmode="decimal" size="7" value="80"' in page
    assert stored(game) == after
    again = phone_a.submit(Page(answer.content.decode()).form("Split as typed"))
    assert again.status_code == 302
    split = {
        "type": "split",
        "method": "custom",
        "shares": {"Asha": "80.00", "Meena": "70.00", "Kiran": "50.00"},  # as money is written
    }
    assert stored(game) == (4, [*after[1], split])


def test_the_model_checks_the_version_under_the_lock_before_the_event():
    game = points_game([P1, P2])  # revision 2
    for stale in (1, 3, None):
        with pytest.raises(StaleHistory):
            game.add_event({"type": "no such thing"}, stale)
        with pytest.raises(StaleHistory):
            game.replace_event(1, {"type": "no such thing"}, stale)
        with pytest.raises(StaleHistory):
            game.delete_event(99, stale)
    assert stored(game) == (2, [P1, P2])
    with pytest.raises(Event.DoesNotExist):
        game.delete_event(99, 2)
    game.replace_event(2, P3, 2)
    assert stored(game) == (3, [P1, P3])
    assert Game.objects.get(pk=game.pk).last_change == {
        "change": "changed",
        "event": "deal",
        "n": 2,
    }
