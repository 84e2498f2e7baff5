"""The page of every event ("Show all N events", `?history=all`) stays whole while
the game goes on: its poll, and a deal saved from it, are answered with every row
of the history, kept in the shared cache under a key of its own; the plain page
still lists the newest 12."""

import re

import pytest
from django.core.cache import caches
from django.test import Client

from tracker.models import Game

from .events import deal

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


@pytest.fixture(autouse=True)
def _fresh_cache():
    for kept in caches.all():
        kept.clear()


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
    plain = poll(game, 15, query="")
    assert rows(plain) == list(range(16, 4, -1)) and "Show all 16 events" in plain


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


def test_a_deal_saved_is_answered_with_the_newest_rows_and_every_form_current(client):
    """The answer to a save is the board every editing phone fetches: the newest
    12 rows, and every form in it (an Undo among the rows, the next deal's)
    made for the revision the save reached, so tapping Undo next undoes."""
    from tests.events import sit_in, sit_out
    from tests.test_views import post_deal

    history = [deal("Asha", Ravi=5, Meena=5), sit_out("Meena"), sit_in("Meena")]
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"], history=history)
    for n in range(1, 14):
        answer = post_deal(client, game, "Asha", htmx=True, Ravi=n + 1, Meena=n + 2)
        assert answer.status_code == 200
        html = answer.content.decode()
        shown = rows(html)
        assert len(shown) == min(12, 3 + n), n
        assert set(re.findall(r'name="version" value="(\d+)"', html)) == {str(3 + n)}, n
        # The come-back (event 3) shown with its Undo while among the newest 12.
        assert ("Undo" in html) == (n < 12), n
    assert shown == list(range(16, 4, -1))
    assert "Show all 16 events" in html
