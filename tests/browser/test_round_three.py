"""A family evening, round three (issue 38), on a 360 px phone in Debian's chromium."""

import shutil
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tracker.models import Game, Table

from .conftest import CHROMIUM_ARGS, PHONE

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


# ---------------------------------------------------------------- 3. Copy on plain HTTP

# make run's address on the home network (http://192.168.1.20:8000/) is no secure
# context: no share sheet, no navigator.clipboard. The same without leaving this
# machine: a name that Chromium resolves to 127.0.0.1 (not localhost or
# 127.0.0.1 itself, which count as secure).
LAN_NAME = "rummy.home.arpa"
NO_SHARE_SHEET = "delete Navigator.prototype.share; delete Navigator.prototype.canShare;"
COPIES = """
window.copied = [];
document.addEventListener("copy", () => window.copied.push(String(document.getSelection())));
"""


@pytest.fixture
def lan_phone(playwright_browser_on_lan, live_server):
    port = urlsplit(live_server.url).port
    context = playwright_browser_on_lan.new_context(base_url=f"http://{LAN_NAME}:{port}", **PHONE)
    context.set_default_timeout(10_000)
    context.add_init_script(NO_SHARE_SHEET)
    context.add_init_script(COPIES)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors


@pytest.fixture
def playwright_browser_on_lan(browser):
    """A chromium of its own (the same Playwright), with LAN_NAME mapped to 127.0.0.1."""
    rules = f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"
    chromium = browser.browser_type.launch(
        executable_path=shutil.which("chromium"), args=[*CHROMIUM_ARGS, rules], headless=True
    )
    yield chromium
    chromium.close()


# The focused box and what is selected in it.
SELECTED = """() => {
  const box = document.activeElement;
  return `${box.id} ${box.value.slice(box.selectionStart, box.selectionEnd)}`;
}"""


def test_copy_and_share_on_plain_http_copy_the_link_and_say_so(lan_phone):
    page = lan_phone
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi"], name="Sunday pool")
    page.goto(game.get_absolute_url())
    assert page.evaluate("window.isSecureContext") is False
    assert page.evaluate("navigator.clipboard === undefined && navigator.share === undefined")
    page.get_by_text("Share this game").click()
    here = f"http://{LAN_NAME}:{urlsplit(page.url).port}"
    link = f"{here}{game.get_view_url()}"
    expect(page.locator("#view-link")).to_have_value(link)
    page.locator('button[data-copy="view-link"]').click()
    expect(page.locator("#view-link-said")).to_have_text("Link copied")
    expect(page.locator('button[data-copy="view-link"]')).to_have_text("Copied")
    page.locator('button[data-share="edit-link"]').click()
    expect(page.locator("#edit-link-said")).to_have_text("Link copied")
    assert page.evaluate("window.copied") == [link, f"{here}{game.get_absolute_url()}"]


def test_where_no_copy_works_the_link_is_selected_and_the_phone_says_press_and_hold(lan_phone):
    page = lan_phone
    page.context.add_init_script("Document.prototype.execCommand = () => false;")
    table = Table.start("Nani's table", ["Asha", "Ravi"])
    page.goto(table.get_absolute_url())
    page.get_by_text("Share this table").click()
    page.locator('button[data-copy="table-view-link"]').click()
    expect(page.locator("#table-view-link-said")).to_have_text("Press and hold to copy")
    link = page.locator("#table-view-link").input_value()
    assert page.evaluate(SELECTED) == f"table-view-link {link}"
