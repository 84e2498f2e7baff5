"""A family table on a 360 px phone: make it, play two games, play again, watch it."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE as PHONE_ARGS
from tests.browser.test_scoring import score_deal, start_with_rules
from tracker.models import Table

pytestmark = [pytest.mark.browser]


def stats_row(page, name):
    """The member's row of the stats table: [games, wins, deals, won, drops, wrong, full, money]."""
    row = page.locator("#stats table.stats").first.locator("tbody tr", has_text=name)
    return [cell.strip() for cell in row.locator("td").all_inner_texts()]


def start_from_table(page, fmt, seats, **rules):
    page.get_by_role("link", name="New game").click()
    page.get_by_text(fmt, exact=True).click()
    for box in page.locator("input[name=seat]").all():
        box.uncheck()
    for name in seats:
        page.get_by_label(name, exact=True).check()
    start_with_rules(page, rules)


def test_a_family_table_from_start_to_play_again_and_the_view_link(phone, screenshot, axe):
    page = phone
    page.goto("/")
    page.get_by_role("link", name="New family table").click()
    page.get_by_label("Name of the table").fill("Nani's table")
    page.get_by_label("Members, one name a line").fill("Asha\nRavi\nMeena")
    page.get_by_role("button", name="Make the table").click()
    expect(page.get_by_role("heading", name="Nani's table")).to_be_visible()
    table = Table.objects.get()
    assert not axe.violations(page), axe.report(axe.violations(page))

    # Game 1: pool 101 at 10 a head, Asha and Ravi; Ravi out after two deals of 80.
    start_from_table(page, "Pool 101", ["Asha", "Ravi"], entry_fee="10")
    score_deal(page, "Asha", Ravi=80)
    score_deal(page, "Asha", Ravi=80)
    expect(page.locator("#board")).to_contain_text("Asha wins")
    page.goto(table.get_absolute_url())
    # The table plays for money (an entry fee): its money is in rupees.
    # Asha: 1 game, 1 win, 2 deals, 2 won; money 20 - 10 = +10.
    assert stats_row(page, "Asha") == ["1", "1", "2", "2", "0", "0", "0", "₹10.00"]
    expect(page.locator("#stats")).to_contain_text("Ravi pays Asha ₹10.00")

    # Game 2: points at 1, all three, one deal then the end: Meena wins 30 + 5.
    start_from_table(page, "Points", ["Asha", "Ravi", "Meena"])
    score_deal(page, "Meena", Asha=30, Ravi=5)
    page.get_by_text("End session").click()
    page.get_by_role("button", name="Yes, end the session").click()
    expect(page.locator(".banner")).to_contain_text("Session ended")
    page.goto(table.get_absolute_url())
    # Asha: +10 - 30 = -20; Ravi -10 - 5 = -15; Meena +35, the session's best
    # balance alone: its win (tables.md).
    assert stats_row(page, "Asha")[-1] == "-₹20.00"
    assert stats_row(page, "Meena") == ["1", "1", "1", "1", "0", "0", "0", "₹35.00"]
    expect(page.locator("#games li").first).to_contain_text("Points")
    screenshot(page, "-stats")
    assert not axe.violations(page), axe.report(axe.violations(page))
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    # Play again the pool game: the same seats, Ravi deals first this time.
    pool = page.locator("#games li", has_text="Pool 101")
    # Its form posts the table's version: two games made from the table so far.
    assert Table.objects.get().revision == 2
    expect(pool.locator("form[action*='/again/'] input[name=version]")).to_have_value("2")
    pool.get_by_role("button", name=re.compile("Play again")).click()
    expect(page.get_by_role("heading", name=re.compile("Enter deal 1"))).to_be_visible()
    expect(page.locator("#deal-title")).to_contain_text("Ravi deals")
    score_deal(page, "Ravi", Asha=80)
    page.goto(table.get_absolute_url())
    expect(page.locator("#games li")).to_have_count(3)
    assert stats_row(page, "Ravi")[:3] == ["3", "0", "4"]

    # Watch from the view link on another phone: every game, links to views only.
    page.get_by_text("Share this table").click()
    view_url = page.locator("#table-view-link").input_value()
    watcher = page.context.browser.new_context(**{k: v for k, v in PHONE_ARGS.items()})
    try:
        other = watcher.new_page()
        other.goto(view_url)
        expect(other.get_by_role("heading", name="Nani's table")).to_be_visible()
        expect(other.locator("#games li")).to_have_count(3)
        assert other.locator("main form").count() == 0  # the header has the language switch
        hrefs = other.locator("#games ul.games a").evaluate_all("els => els.map(e => e.pathname)")
        assert hrefs and all(h.startswith("/w/") for h in hrefs)
        assert stats_row(other, "Meena")[-1] == "₹35.00"
        other.locator("#games ul.games a").first.click()
        expect(other.locator("#board")).to_be_visible()
        assert other.locator("#deal-entry").count() == 0
    finally:
        watcher.close()


def test_a_member_added_on_a_stale_table_page_is_refused_and_kept_to_send_again(phone, axe):
    """Another phone changed the table first: this one is told, and its typing stays."""
    page = phone
    table = Table.start("Nani's table", ["Asha", "Ravi", "Meena"])
    page.goto(table.get_absolute_url())
    # The other phone adds Dev while this one's page still shows three members.
    table.add_member("Dev", made_against=0)
    page.get_by_label("New member").fill("Zoë")
    page.get_by_role("button", name="+ Add member").click()
    notice = page.locator("#table .notice")
    expect(notice).to_have_text("Someone else just changed the table. Here it is now.")
    expect(page.locator("#members")).to_contain_text("Dev")
    expect(page.get_by_label("New member")).to_have_value("Zoë")
    assert table.member_names() == ["Asha", "Ravi", "Meena", "Dev"]
    assert not axe.violations(page), axe.report(axe.violations(page))
    # Sent again from the page as it is now: taken.
    page.get_by_role("button", name="+ Add member").click()
    expect(page.locator("#members li", has_text="Zoë")).to_have_count(1)
    expect(notice).to_have_count(0)
    assert table.member_names() == ["Asha", "Ravi", "Meena", "Dev", "Zoë"]
