"""Share where families talk (issue 26.14): "Share" hands the phone's share
sheet (WhatsApp, SMS ...) the link and a line saying what it is; a browser
without one copies the link instead. The same for a table's links.

A phone's share sheet is the operating system's: Chromium on Linux has none,
so the first test gives the page one that notes what it was handed, as a
phone's would show it."""

import pytest
from playwright.sync_api import expect

from tests.events import deal
from tracker.models import Game, Table

pytestmark = [pytest.mark.browser]

SHARE_SHEET = """
window.sharedWith = [];
Navigator.prototype.share = function (data) {
  window.sharedWith.push(data);
  return Promise.resolve();
};
Navigator.prototype.canShare = function () { return true; };
"""
NO_SHARE_SHEET = "delete Navigator.prototype.share; delete Navigator.prototype.canShare;"


def open_share(page, url):
    page.goto(url)
    page.get_by_text("Share this", exact=False).first.click()


def share_button(page, link_id):
    """The Share button beside a link (found by the link it shares, as its words change)."""
    button = page.locator(f'button[data-share="{link_id}"]')
    expect(button).to_have_text("Share")
    return button


def test_share_hands_the_phone_the_link_and_a_line_saying_what_it_is(phone, live_server):
    page = phone
    page.context.add_init_script(SHARE_SHEET)
    game = Game.create(
        "points", {}, ["Asha", "Ravi"], name="Diwali points", history=[deal("Asha", Ravi=20)]
    )
    table = Table.start("Nani's table", ["Asha", "Ravi", "Meena"])
    open_share(page, game.get_absolute_url())
    share_button(page, "view-link").click()
    share_button(page, "edit-link").click()
    page.wait_for_function("() => window.sharedWith.length === 2")
    assert page.evaluate("() => window.sharedWith") == [
        {
            "text": "Watch our rummy game: Diwali points",
            "url": f"{live_server.url}{game.get_view_url()}",
        },
        {
            "text": "Score our rummy game with us: Diwali points",
            "url": f"{live_server.url}{game.get_absolute_url()}",
        },
    ]
    open_share(page, table.get_absolute_url())
    share_button(page, "table-view-link").click()
    page.wait_for_function("() => window.sharedWith.length === 1")
    assert page.evaluate("() => window.sharedWith") == [
        {
            "text": "Watch our family's rummy games: Nani's table",
            "url": f"{live_server.url}{table.get_view_url()}",
        }
    ]


def test_without_a_share_sheet_share_copies_the_link(phone, live_server):
    page = phone
    page.context.add_init_script(NO_SHARE_SHEET)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi"], name="Sunday pool")
    open_share(page, game.get_view_url())
    assert page.locator("#edit-link").count() == 0  # a view link shows no edit link
    button = share_button(page, "view-link")
    button.click()
    expect(button).to_have_text("Link copied")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == f"{live_server.url}{game.get_view_url()}"
    expect(button).to_have_text("Share")  # back to its word for the next tap
