"""People come and go on a 360 px phone: a latecomer, a sit-out and a leave in points."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_scoring import board_figures, score_deal, start_game

pytestmark = [pytest.mark.browser]


def deal_rows(page):
    return [row.inner_text().split()[0] for row in page.locator("#deal-entry .deal-row").all()]


def fits_the_phone(page):
    return page.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_latecomer_a_sit_out_and_a_leave_in_points(phone, screenshot, axe):
    page = phone
    game = start_game(page, "Points", ["Asha", "Ravi", "Meena"])
    # Deal 1, Asha deals: Ravi wins; Asha 47, Meena first drop 20. Ravi +67.
    score_deal(page, "Ravi", Asha=47, Meena="First drop")
    # Dev arrives and sits after Ravi.
    page.locator("summary", has_text="Add a player").click()
    page.locator("#join-name").fill("Dev")
    page.locator("#join-after").select_option(label="After Ravi")
    assert fits_the_phone(page)
    page.get_by_role("button", name="Seat the new player").click()
    expect(page.locator("#history")).to_contain_text("Dev joined, after Ravi (balance 0)")
    assert deal_rows(page) == ["Asha", "Ravi", "Dev", "Meena"]
    # Deal 2, Ravi deals: Dev wins; Asha 10, Ravi 5, Meena 25. Dev +40.
    expect(page.locator("#deal-title")).to_contain_text("Ravi deals")
    score_deal(page, "Dev", Asha=10, Ravi=5, Meena=25)
    # Meena steps away: the deal form drops her, the board marks her. Who plays
    # the next deal is folded under the board while everybody plays.
    expect(page.get_by_role("button", name="Sit out Meena")).to_be_hidden()
    page.locator("details.seating > summary").click()
    page.get_by_role("button", name="Sit out Meena").click()
    expect(page.locator("#board tr", has_text="Meena")).to_contain_text("Sits out")
    assert deal_rows(page) == ["Asha", "Ravi", "Dev"]
    assert not axe.violations(page), axe.report(axe.violations(page))
    # Deal 3, Dev deals: Asha wins; Ravi 30, Dev middle drop 40. Asha +70.
    expect(page.locator("#deal-title")).to_contain_text("Dev deals")
    score_deal(page, "Asha", Ravi=30, Dev="Middle drop")
    # While she sits out the list stays open: her Back in is one tap away.
    page.get_by_role("button", name="Back in Meena").click()
    expect(page.locator("#history")).to_contain_text("Meena is back in")
    # Ravi goes home: Leave asks first (everybody plays again: the list is folded).
    expect(page.locator("details.seating")).not_to_have_attribute("open", "")
    page.locator("details.seating > summary").click()
    page.locator("summary[aria-label='Leave Ravi']").click()
    expect(page.get_by_text("Ravi goes home for good?")).to_be_visible()
    assert fits_the_phone(page)
    page.get_by_role("button", name="Yes, Ravi leaves").click()
    expect(page.locator("#board tr", has_text="Ravi")).to_contain_text("Left")
    assert deal_rows(page) == ["Asha", "Dev", "Meena"]
    # Deal 4: after Dev comes Meena, back in. Meena wins; Asha 8, Dev 12. Meena +20.
    expect(page.locator("#deal-title")).to_contain_text("Meena deals")
    score_deal(page, "Meena", Asha=8, Dev=12)
    # Balances: Asha -47 -10 +70 -8 = +5; Ravi 67 - 5 - 30 = +32; Dev 40 - 40 - 12 = -12;
    # Meena -20 - 25 + 20 = -25. Sum 0.
    assert board_figures(page) == {"Asha": "+5", "Ravi": "+32", "Dev": "-12", "Meena": "-25"}
    # No group of them sums to 0, so three payments; Ravi, gone home, is still paid.
    settle = page.locator(".settlement")
    expect(settle).to_contain_text("Meena pays Ravi ₹25.00")
    expect(settle).to_contain_text("Dev pays Ravi ₹7.00")
    expect(settle).to_contain_text("Dev pays Asha ₹5.00")
    assert fits_the_phone(page)
    history = [e["type"] for e in game.history()]
    assert history == ["deal", "join", "deal", "sit_out", "deal", "sit_in", "leave", "deal"]
    assert re.search(r"4 deals played", page.locator("#board .meta").inner_text())
    screenshot(page)
