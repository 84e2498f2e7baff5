"""A short Basic Rummy game on a 360 px phone, in Debian's chromium."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_scoring import board_figures, score_deal, start_game

pytestmark = [pytest.mark.browser]


def test_basic_to_100_with_a_rummy_deal(phone, screenshot, axe):
    page = phone
    game = start_game(page, "Basic to 100", ["Asha", "Ravi", "Meena"])
    assert game.format == "basic"
    expect(page.locator("#board .meta")).to_contain_text("Basic Rummy · to 100 · winner collects")
    form = page.locator("#deal-entry")
    # A count box per player, the rummy toggle; no drop buttons and no calculator.
    expect(form.locator(".points input")).to_have_count(3)
    expect(form.get_by_label("Went rummy")).to_be_visible()
    expect(form.locator("label.word:not(.hidden-radio)")).to_have_count(0)
    expect(form.locator("a.count")).to_have_count(0)
    assert not axe.violations(page), axe.report(axe.violations(page))
    # No sideways scrolling on the phone.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360

    score_deal(page, "Ravi", Asha=12, Meena=25)  # Ravi collects 37
    assert board_figures(page) == {"Asha": "0", "Ravi": "37", "Meena": "0"}

    form.get_by_label("Went rummy").check()
    score_deal(page, "Meena", Asha=8, Ravi=15)  # rummy: (8 + 15) x 2 = 46 to Meena
    assert board_figures(page) == {"Asha": "0", "Ravi": "37", "Meena": "46"}
    expect(page.locator("#history")).to_contain_text("Rummy!")
    expect(page.get_by_label("Went rummy")).not_to_be_checked()  # a fresh form

    # A count left out is refused beside the player; nothing is saved. (The box
    # takes three digits, so a count over 999 cannot be typed.)
    page.locator("#deal-entry label.win", has_text=re.compile(r"^\s*Ravi")).click()
    row = page.locator(".deal-row", has=page.locator("label.win", has_text="Asha"))
    expect(row.locator(".points input")).to_have_attribute("maxlength", "3")
    page.locator(".deal-row", has=page.locator("label.win", has_text="Meena")).locator(
        ".points input"
    ).fill("40")
    page.get_by_role("button", name="Save deal 3").click()
    expect(page.locator(".deal-row .error")).to_have_text(
        "Asha: type the count of the cards left in hand"
    )
    assert game.events.count() == 2

    row.locator(".points input").fill("30")
    page.get_by_role("button", name="Save deal 3").click()  # Ravi 37 + 70 = 107
    expect(page.locator(".banner")).to_have_text("Ravi wins!")
    assert board_figures(page) == {"Asha": "0", "Ravi": "107", "Meena": "46"}
    expect(page.get_by_role("heading", name=re.compile("Enter deal"))).to_have_count(0)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    screenshot(page)
