"""The page of every event ("Show all N events") stays whole while the game goes
on, in Debian's chromium: each deal saved on another phone, or on this one, adds
its row and takes none off; the plain page still lists the newest 12."""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.browser.conftest import NEXT_FRAME, PHONE, PHONE_LOG, settle
from tests.browser.test_push import type_deal
from tests.browser.test_scoring import score_deal
from tests.events import deal
from tracker.models import Game

pytestmark = [pytest.mark.browser]

NAMES = ["Asha", "Ravi", "Meena"]
# 15 deals: Asha wins each, Ravi has 2 to 16 points, Meena 2 to 30.
FIFTEEN = [deal("Asha", Ravi=n + 1, Meena=2 * n) for n in range(1, 16)]
ALL = "?history=all#history"


@pytest.fixture
def open_phone(browser, live_server):
    """open_phone(url): another phone on `url`, logging its console errors and
    warnings in `page.logged`; closed after the test."""
    contexts = []

    def open_(url):
        context = browser.new_context(base_url=live_server.url, **PHONE)
        contexts.append(context)
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.logged = []
        page.on(
            "console",
            lambda m: page.logged.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.goto(url)
        return page

    yield open_
    for context in contexts:
        context.close()


def _deal_numbers(page):
    """The number heading each row of the history, newest first."""
    heads = page.locator("#history-rows tr th").all_inner_texts()
    return [int(re.match(r"\d+", head.strip()).group()) for head in heads]


def _post_deal(game, version):
    """Deal saved by a phone outside the test's browser: Meena won, Asha 4, Ravi 6."""
    data = {"version": str(version), "winner": "3", "r1": "points", "p1": "4"}
    data.update(r2="points", p2="6")
    saved = Client().post(f"/g/{game.edit_token}/deal/", data, HTTP_HX_REQUEST="true")
    assert saved.status_code == 200


@pytest.mark.slow
def test_the_page_of_every_event_keeps_every_row_as_deals_are_saved(phone, open_phone, request):
    game = Game.create("points", {}, NAMES, history=FIFTEEN)
    phone.goto(game.get_absolute_url() + ALL)
    expect(phone.locator("#history-rows tr")).to_have_count(15)
    other = open_phone(game.get_absolute_url())
    watcher = open_phone(game.get_view_url() + ALL)
    expect(other.locator("#history-rows tr")).to_have_count(12)
    expect(other.locator("#history-more")).to_have_text("Show all 15 events")
    expect(watcher.locator("#history-rows tr")).to_have_count(15)
    # Deals 16, 17 and 18 saved on the other phone, each seen by the poll one
    # revision behind.
    for played, winner in zip((16, 17, 18), ("Ravi", "Meena", "Asha"), strict=True):
        score_deal(other, winner, **{name: 5 for name in NAMES if name != winner})
        for page in (phone, watcher):
            expect(page.locator("#board .meta")).to_contain_text(f"{played} deals played")
            expect(page.locator("#history-rows tr")).to_have_count(played)
            expect(page.get_by_role("link", name=re.compile("Show all"))).to_have_count(0)
        expect(other.locator("#history-rows tr")).to_have_count(12)
        expect(other.locator("#history-more")).to_have_text(f"Show all {played} events")
    assert _deal_numbers(phone) == list(range(18, 0, -1))
    assert _deal_numbers(watcher) == list(range(18, 0, -1))
    # Deal 19 saved on the page of every event itself: its answer keeps every
    # row, and the other phone's poll still trims to the newest 12.
    score_deal(phone, "Ravi", Asha=7, Meena=9)
    expect(phone.locator("#history-rows tr")).to_have_count(19)
    expect(phone.get_by_role("link", name=re.compile("Show all"))).to_have_count(0)
    expect(watcher.locator("#history-rows tr")).to_have_count(19)
    expect(other.locator("#board .meta")).to_contain_text("19 deals played")
    expect(other.locator("#history-rows tr")).to_have_count(12)
    expect(other.locator("#history-more")).to_have_text("Show all 19 events")
    # Deals 20 and 21 saved at once elsewhere: a poll two revisions behind
    # is sent the whole board, every row in it.
    _post_deal(game, 19)
    _post_deal(game, 20)
    for page in (phone, watcher):
        expect(page.locator("#board .meta")).to_contain_text("21 deals played")
        expect(page.locator("#history-rows tr")).to_have_count(21)
    expect(other.locator("#history-rows tr")).to_have_count(12)
    expect(other.locator("#history-more")).to_have_text("Show all 21 events")
    assert _deal_numbers(phone) == list(range(21, 0, -1))
    assert _deal_numbers(other) == list(range(21, 9, -1))
    # Deal 19, Ravi won, Asha 7 and Meena 9: the row the phone saved, in place.
    row_19 = phone.locator("#history-rows tr").nth(2).locator("td .res").all_inner_texts()
    assert row_19 == ["7", "Won", "9"]
    # What each page shows is what loading it afresh shows.
    for page in (phone, watcher, other):
        shown = page.locator("#history-rows").inner_html()
        page.reload()
        expect(page.locator("#board .meta")).to_contain_text("21 deals played")
        assert page.locator("#history-rows").inner_html() == shown
    # No htmx error on any page: every part sent out of band found its place.
    assert request.node.stash[PHONE_LOG].console == []
    assert other.logged == [] and watcher.logged == []


@pytest.mark.slow
def test_the_plain_page_lists_the_newest_12_and_says_how_many_there_are(phone, open_phone):
    game = Game.create("points", {}, NAMES, history=FIFTEEN)
    phone.goto(game.get_absolute_url())
    expect(phone.locator("#history-rows tr")).to_have_count(12)
    expect(phone.locator("#history-more")).to_have_text("Show all 15 events")
    other = open_phone(game.get_absolute_url())
    score_deal(other, "Meena", Asha=4, Ravi=6)
    expect(phone.locator("#board .meta")).to_contain_text("16 deals played")
    expect(phone.locator("#history-more")).to_have_text("Show all 16 events")
    expect(phone.locator("#history-rows tr")).to_have_count(12)
    assert _deal_numbers(phone) == list(range(16, 4, -1))
    # Its link opens the page of every event, which keeps growing.
    phone.get_by_role("link", name="Show all 16 events").click()
    expect(phone.locator("#history-rows tr")).to_have_count(16)
    score_deal(other, "Ravi", Asha=3, Meena=8)
    expect(phone.locator("#board .meta")).to_contain_text("17 deals played")
    expect(phone.locator("#history-rows tr")).to_have_count(17)
    assert _deal_numbers(phone) == list(range(17, 0, -1))
    # Meena sits out, tapped on that page: it stays the page of every event.
    phone.locator("details.seating > summary").click()
    phone.get_by_role("button", name="Sit out Meena").click()
    expect(phone.locator("#history-rows tr")).to_have_count(18)
    expect(phone.locator("#history-rows tr").first).to_contain_text("Meena sits out")
    expect(other.locator("#history-rows tr").first).to_contain_text("Meena sits out")
    score_deal(other, "Asha", Ravi=3)
    expect(phone.locator("#board .meta")).to_contain_text("18 deals played")
    expect(phone.locator("#history-rows tr")).to_have_count(19)
    expect(phone.get_by_role("link", name=re.compile("Show all"))).to_have_count(0)
    expect(other.locator("#history-more")).to_have_text("Show all 19 events")
    assert other.logged == []


PAGES = {"plain page": "", "page of every event": ALL}


def _tap_save(page, winner, **points):
    """Type a deal and tap Save, without waiting for its answer."""
    type_deal(page, winner, **points)
    page.locator("#deal-entry").get_by_role("button", name=re.compile("Save deal")).click()


def _held(page, routes):
    """Wait until the page has sent a request that `routes` holds."""
    while not routes:
        page.wait_for_timeout(50)
    return routes[0]


@pytest.mark.parametrize("query", PAGES.values(), ids=PAGES.keys())
def test_a_poll_answered_after_the_save_it_crossed_is_not_shown(phone, request, query):
    """The poll sent just before this phone's save is answered after the save's
    own answer, from the board that answer replaced: nothing of it is shown, and
    htmx looks for none of its parts."""
    game = Game.create("points", {}, NAMES, history=FIFTEEN)
    phone.goto(game.get_absolute_url() + query)
    polls = []
    # The first poll is held; those of the board that replaces its board go through.
    phone.route(
        re.compile(r"/live/\?v="),
        lambda route: route.continue_() if polls else polls.append(route),
    )
    poll = _held(phone, polls)
    _tap_save(phone, "Meena", Asha=4, Ravi=6)
    expect(phone.locator("#board .meta")).to_contain_text("16 deals played")
    # Asked now, the poll of revision 15 is answered with deal 16.
    answer = poll.fetch()
    assert answer.status == 200 and 'id="board"' in answer.text()
    poll.fulfill(response=answer)
    settle(phone)
    shown = 16 if query else 12
    expect(phone.locator("#history-rows tr")).to_have_count(shown)
    assert _deal_numbers(phone) == list(range(16, 16 - shown, -1))
    expect(phone.locator("#deal-entry").get_by_role("heading")).to_contain_text("Enter deal 17")
    assert request.node.stash[PHONE_LOG].console == []


@pytest.mark.parametrize("query", PAGES.values(), ids=PAGES.keys())
def test_a_poll_answered_while_this_phones_save_is_on_its_way_waits_for_it(phone, request, query):
    """The save is made, and the next poll is answered with it, before the save's
    own answer comes: the poll's answer is left for the save's, which then shows
    the deal once, with the fresh form of the next one."""
    game = Game.create("points", {}, NAMES, history=FIFTEEN)
    phone.goto(game.get_absolute_url() + query)
    saves = []
    phone.route(re.compile(r"/deal/(\?|$)"), lambda route: saves.append(route))
    _tap_save(phone, "Meena", Asha=4, Ravi=6)
    save = _held(phone, saves)
    answer = save.fetch()  # saved now: deal 16
    assert answer.status == 200 and len(game.history()) == 16
    with phone.expect_response(re.compile(r"/live/\?v=15")) as polled:
        pass
    assert polled.value.status == 200
    phone.evaluate(NEXT_FRAME)
    save.fulfill(response=answer)
    expect(phone.locator("#board .meta")).to_contain_text("16 deals played")
    settle(phone)
    shown = 16 if query else 12
    expect(phone.locator("#history-rows tr")).to_have_count(shown)
    assert _deal_numbers(phone) == list(range(16, 16 - shown, -1))
    form = phone.locator("#deal-entry")
    expect(form.get_by_role("heading")).to_contain_text("Enter deal 17")
    expect(form.locator("input[name=version]")).to_have_value("16")
    expect(form.locator(".drift")).to_be_hidden()
    assert request.node.stash[PHONE_LOG].console == []
