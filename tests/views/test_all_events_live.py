"""The page of every event ("Show all N events", `?history=all`) stays whole while
the game goes on: its poll, and a deal saved from it, are answered with every row
of the history; the plain page lists the newest 12."""

import re

import pytest
from django.test import Client

from tests.events import deal
from tracker.models import Game

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Asha", "Ravi", "Meena"]
# 15 deals: Asha wins each, Ravi has 2 to 16 points, Meena 2 to 30.
FIFTEEN = [deal("Asha", Ravi=n + 1, Meena=2 * n) for n in range(1, 16)]
# Deal 16: Meena won, Asha 4, Ravi 6 (seats 1, 2 and 3).
DEAL_16 = {"winner": "3", "r1": "points", "p1": "4", "r2": "points", "p2": "6"}
ROW = re.compile(r'<tr(?: class="event")? id="event-(\d+)">')
DEAL_HEAD = re.compile(r'aria-label="Edit deal (\d+)"')
DELETE = "delete:#history-rows"


def fifteen_deals():
    return Game.create("points", {}, NAMES, history=FIFTEEN)


def save_deal_16(game, client=None, url=""):
    """Deal 16, saved with htmx from the plain page (or `url`'s query)."""
    data = {"version": str(game.revision), **DEAL_16}
    saved = (client or Client()).post(f"/g/{game.edit_token}/deal/{url}", data, **HTMX)
    assert saved.status_code == 200
    game.refresh_from_db()
    assert game.revision == 16
    return saved.content.decode()


def rows(html):
    """The events the history rows are of (their serials), in the order shown."""
    return [int(serial) for serial in ROW.findall(html)]


def without_token(html):
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


def poll(game, version, link="edit", query="&history=all"):
    token = game.edit_token if link == "edit" else game.view_token
    url = f"/{'g' if link == 'edit' else 'w'}/{token}/live/?v={version}{query}"
    answer = Client().get(url, **HTMX)
    assert answer.status_code == 200
    return answer.content.decode()


def assert_every_row(html, link="edit"):
    """The whole history of 16 deals, newest first, out of band, and nothing taken off."""
    assert rows(html) == list(range(16, 0, -1))
    if link == "edit":
        assert [int(n) for n in DEAL_HEAD.findall(html)] == list(range(16, 0, -1))
    assert '<section id="history" aria-labelledby="history-title" hx-swap-oob="true">' in html
    assert '<tbody id="history-rows">' in html  # not data-recent
    assert DELETE not in html and "afterbegin:" not in html
    assert "Show all" not in html
    assert "16 deals played" in html
    # The board it brings polls on as the page of every event.
    assert "/live/?v=16&amp;history=all" in html


def test_the_page_of_every_event_polls_and_saves_as_that_page():
    game = fifteen_deals()
    page = Client().get(game.get_absolute_url() + "?history=all").content.decode()
    assert rows(page) == list(range(15, 0, -1))
    assert f'hx-get="/g/{game.edit_token}/live/?v=15&amp;history=all"' in page
    assert f'hx-post="/g/{game.edit_token}/deal/?history=all"' in page
    assert f'action="/g/{game.edit_token}/deal/?history=all"' in page
    assert "Show all" not in page
    watched = Client().get(game.get_view_url() + "?history=all").content.decode()
    assert rows(watched) == list(range(15, 0, -1))
    assert f'hx-get="/w/{game.view_token}/live/?v=15&amp;history=all"' in watched
    # The plain page: the newest 12, its poll and form as before.
    plain = Client().get(game.get_absolute_url()).content.decode()
    assert rows(plain) == list(range(15, 3, -1))
    assert f'hx-get="/g/{game.edit_token}/live/?v=15"' in plain
    assert f'hx-post="/g/{game.edit_token}/deal/"' in plain
    assert "Show all 15 events" in plain


@pytest.mark.parametrize("link", ["edit", "view"])
def test_a_poll_of_the_page_of_every_event_one_revision_behind_has_every_row(link):
    game = fifteen_deals()
    Client().get(game.get_view_url())  # someone watches
    save_deal_16(game)
    answer = poll(game, 15, link)
    assert_every_row(answer, link)
    if link == "view":
        assert game.edit_token not in answer and "Enter deal" not in answer
    else:
        assert "Enter deal 17" in answer
        assert f'hx-post="/g/{game.edit_token}/deal/?history=all"' in answer
    # The plain page one revision behind: its newest 12 and its "Show all" link.
    plain = poll(game, 15, link, query="")
    assert rows(plain) == list(range(16, 4, -1))
    assert "Show all 16 events" in plain
    assert "&amp;history=all" not in plain and "deal/?history=all" not in plain


@pytest.mark.parametrize("link", ["edit", "view"])
def test_a_poll_of_the_page_of_every_event_from_the_start_has_every_row(link):
    game = fifteen_deals()
    save_deal_16(game)
    assert_every_row(poll(game, 0, link), link)
    plain = poll(game, 0, link, query="")
    assert rows(plain) == list(range(16, 4, -1))
    assert "Show all 16 events" in plain and DELETE not in plain


def test_a_deal_saved_from_the_page_of_every_event_is_answered_with_every_row():
    game = fifteen_deals()
    saved = save_deal_16(game, url="?history=all")
    assert_every_row(saved)
    assert "Enter deal 17" in saved
    assert f'hx-post="/g/{game.edit_token}/deal/?history=all"' in saved
    # The other phones, each on its own page, are sent that page's board.
    assert_every_row(poll(game, 15))
    plain = poll(game, 15, query="")  # one behind: the newest 12
    assert rows(plain) == list(range(16, 4, -1))
    assert "Show all 16 events" in plain


def test_a_deal_saved_without_javascript_goes_back_to_the_page_of_every_event():
    game = fifteen_deals()
    client = Client()
    data = {"version": "15", **DEAL_16}
    saved = client.post(f"/g/{game.edit_token}/deal/?history=all", data)
    assert saved.status_code == 302
    assert saved["Location"] == game.get_absolute_url() + "?history=all"
    page = client.get(saved["Location"]).content.decode()
    assert rows(page) == list(range(16, 0, -1))
    assert "Show all" not in page
    plain = client.post(f"/g/{game.edit_token}/deal/", {"version": "16", **DEAL_16})
    assert plain["Location"] == game.get_absolute_url()


def test_a_deal_refused_on_the_page_of_every_event_keeps_every_row():
    """No winner tapped: the form comes back with its message, every row still shown."""
    game = fifteen_deals()
    data = {"version": "15", "r1": "points", "p1": "4", "r2": "points", "p2": "6"}
    refused = Client().post(f"/g/{game.edit_token}/deal/?history=all", data, **HTMX)
    assert refused.status_code == 422
    html = refused.content.decode()
    assert "Tap the player who won the deal" in html
    assert rows(html) == list(range(15, 0, -1))
    assert f'hx-post="/g/{game.edit_token}/deal/?history=all"' in html
    assert "/live/?v=15&amp;history=all" in html
    assert len(game.history()) == 15
    # Made against an old revision: the game as it is now, every row of it.
    save_deal_16(game)
    stale = Client().post(
        f"/g/{game.edit_token}/deal/?history=all", {"version": "15", **DEAL_16}, **HTMX
    )
    assert stale.status_code == 409
    html = stale.content.decode()
    assert "Someone else just saved deal 16." in html
    assert rows(html) == list(range(16, 0, -1))
    # Discarding what was typed goes back to the page of every event.
    back = game.get_absolute_url() + "?history=all"
    assert f'<a href="{back}" hx-get="{back}" hx-select="#game"' in html
    assert len(game.history()) == 16


@pytest.mark.parametrize(
    "query, shown",
    [("?history=all", list(range(16, 0, -1))), ("", list(range(16, 4, -1)))],
    ids=["from the page of every event", "from the plain page"],
)
def test_a_change_posted_with_htmx_from_the_page_of_every_event_keeps_every_row(query, shown):
    """Meena sits out, posted from the page of every event (its forms post to
    that page's own link): that page's whole game comes back, the new event row
    first, polling on as that page; from the plain page, the newest 12."""
    game = fifteen_deals()
    answer = Client().post(
        f"/g/{game.edit_token}/sit-out/{query}", {"player": "Meena", "version": "15"}, **HTMX
    )
    assert answer.status_code == 200
    html = answer.content.decode()
    assert rows(html) == shown
    assert "Meena sits out" in html
    every = len(shown) == 16
    assert ("Show all 16 events" in html) is not every
    assert ("/live/?v=16&amp;history=all" in html) is every


def test_every_change_form_on_the_page_of_every_event_posts_to_that_page():
    game = Game.create(
        "points", {}, NAMES, history=[*FIFTEEN, {"type": "sit_out", "player": "Meena"}]
    )
    page = Client().get(game.get_absolute_url() + "?history=all").content.decode()
    posts = re.findall(r'hx-post="([^"]+)"', page)
    assert posts and all(url.endswith("?history=all") for url in posts), posts


def test_a_phone_one_deal_behind_is_sent_the_newest_rows_and_a_fresh_form(client):
    """The phones told of a deal get the board, the newest 12 rows with the new
    one first, and on the edit link a fresh form for the next deal."""
    from tests.views.test_games import post_deal

    game = fifteen_deals()
    post_deal(client, game, "Asha", htmx=True, Ravi=7, Meena=9)
    behind = poll(game, 15, query="")
    assert rows(behind) == list(range(16, 4, -1))
    assert "Enter deal 17" in behind and 'name="version" value="16"' in behind
    assert "Show all 16 events" in behind
    watching = poll(game, 15, link="view", query="")
    assert rows(watching) == list(range(16, 4, -1))
    assert "Enter deal" not in watching and game.edit_token not in watching


@pytest.mark.django_db(transaction=True)
def test_each_phone_is_sent_the_new_board_in_its_own_language():
    """The deal saved from a phone in Hindi, committed as on the server: the
    saving phone is answered in Hindi, another editing phone in English gets
    the board in English, and a third in Hindi gets it in Hindi."""
    game = fifteen_deals()
    saved = save_deal_16(game, Client(HTTP_ACCEPT_LANGUAGE="hi"))
    assert "डील 17 लिखें" in saved and rows(saved)[0] == 16
    url = f"/g/{game.edit_token}/live/?v=15"
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(url, **HTMX).content.decode()
    assert "Enter deal 17" in english and "लिखें" not in english and rows(english)[0] == 16
    hindi = Client(HTTP_ACCEPT_LANGUAGE="hi").get(url, **HTMX).content.decode()
    assert "डील 17 लिखें" in hindi and rows(hindi)[0] == 16


def test_after_a_deal_is_corrected_a_phone_one_behind_gets_every_row_shown_again(client):
    """A correction moves the revision on but changes rows already shown (and
    the totals after them): the phone one behind is sent the newest 12 again."""
    game = fifteen_deals()
    first = game.events.get(position=0)
    data = {"version": "15", "winner": "2", "r1": "points", "p1": "40", "r3": "points", "p3": "2"}
    corrected = client.post(f"/g/{game.edit_token}/event/{first.serial}/", data)
    assert corrected.status_code == 302
    for link in ("edit", "view"):
        answer = poll(game, 15, link=link, query="")
        assert "afterbegin:" not in answer and rows(answer) == list(range(15, 3, -1))
