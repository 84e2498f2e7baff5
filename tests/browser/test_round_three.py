"""A family evening, round three (issue 38), on a 360 px phone in Debian's chromium."""

import pytest
from playwright.sync_api import expect

from tracker.models import Table

pytestmark = [pytest.mark.browser]


# ---------------------------------------------------------------- 5. back from Offline


def test_a_table_page_back_online_lifts_the_offline_notice_within_2_s(phone):
    page = phone
    table = Table.start("Nani's table", ["Asha", "Ravi", "Meena"])
    page.goto(table.get_absolute_url())
    new_game = page.locator("a.button", has_text="New game")
    page.context.set_offline(True)
    expect(page.locator(".offline-notice")).to_be_visible()
    expect(new_game).to_have_attribute("aria-disabled", "true")
    page.context.set_offline(False)
    # The online event asks the server at once: the notice goes, the links come back.
    expect(page.locator(".offline-notice")).to_have_count(0, timeout=2000)
    expect(new_game).not_to_have_attribute("aria-disabled", "true")
    new_game.click()
    expect(page.get_by_role("button", name="Start game").last).to_be_visible()
