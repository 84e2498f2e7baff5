"""The small things a phone shows at 360 px: back online, Copy on plain HTTP, names
that fit, Undo last deal, a deal kept over a reload, the Save button's words, Count
cards."""

import re
import shutil
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM_ARGS, PHONE
from tests.events import deal
from tracker.models import Game, Table

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


# ---------------------------------------------------------------- 2. names in "Who is ahead"

# Each cell's widest word, and the room its text has: a word wider than the room
# is broken or runs out of its cell.
CELLS = """(table) => [...table.querySelectorAll("th, td")].map((cell) => {
  const style = getComputedStyle(cell);
  const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const probe = document.createElement("span");
  probe.style.cssText = "position:absolute;visibility:hidden;white-space:nowrap";
  probe.style.font = style.font;
  document.body.append(probe);
  let widest = 0;
  for (const word of cell.innerText.split(/\\s+/).filter(Boolean)) {
    probe.textContent = word;
    widest = Math.max(widest, probe.getBoundingClientRect().width);
  }
  probe.remove();
  return { text: cell.innerText, room, widest, lines: cell.getClientRects().length };
})"""
# The lines a name's text takes on screen.
NAME_LINES = """(name) => {
  const tops = new Set();
  const texts = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
  while (texts.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(texts.currentNode);
    for (const box of range.getClientRects()) if (box.width > 0) tops.add(Math.round(box.top));
  }
  return tops.size;
}"""


@pytest.mark.parametrize("language", ["en", "hi", "ta", "te"])
def test_who_is_ahead_keeps_names_on_one_line_and_words_whole_at_360_px(
    phone, language, screenshot
):
    page = phone
    page.set_extra_http_headers({"Accept-Language": language})
    members = ["Asha Kumari", "Ravi", "Meena", "Karthik", "Lakshmi Narayanan Iyer"]
    table = Table.start("Nani's table", members)
    history = [deal("Karthik", **{"Asha Kumari": 40}, Ravi=20, Meena=10), {"type": "end"}]
    Game.create(
        "points", {"point_value": "0.25"}, [*members[:3], "Karthik"], history=history, table=table
    )
    page.goto(table.get_absolute_url())
    stats = page.locator("#stats table.stats").first
    # Who is ahead, and head to head.
    expect(page.locator("#stats table.stats")).to_have_count(2)
    for table_shown in page.locator("#stats table.stats").all():
        for cell in table_shown.evaluate(CELLS):
            assert cell["widest"] <= cell["room"] + 1, cell
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for index in range(len(members)):
        name = stats.locator("tbody th").nth(index)
        assert name.evaluate(NAME_LINES) == 1, name.inner_text()
        assert name.bounding_box()["width"] >= 60, name.inner_text()
    # The longest name is cut with "…"; a tap shows it whole.
    longest = stats.locator("tbody th .who", has_text="Lakshmi")
    assert longest.evaluate("(name) => name.scrollWidth > name.clientWidth")
    longest.click()
    expect(longest).to_have_class(re.compile("whole"))
    assert longest.evaluate("(name) => name.scrollWidth <= name.clientWidth")
    stats.scroll_into_view_if_needed()
    screenshot(page)


# ---------------------------------------------------------------- 7. Undo the last deal


def test_undo_last_deal_beside_the_board_says_which_deal_and_takes_it_back(phone):
    page = phone
    history = [deal("Asha", Ravi=30, Meena=20), deal("Ravi", Asha=10, Meena=40)]
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"], history=history)
    page.goto(game.get_absolute_url())
    board = page.locator("#board")
    expect(board.locator(".meta")).to_contain_text("2 deals played")
    board.get_by_text("Undo last deal").click()
    expect(board).to_contain_text("Undo deal 2, the last one saved?")
    yes = board.get_by_role("button", name="Yes, undo deal 2")
    box = yes.bounding_box()
    assert box["height"] >= 44 and box["x"] + box["width"] <= 360
    yes.click()
    expect(board.locator(".meta")).to_contain_text("1 deal played")
    # Deal 1 alone: Asha 0, Ravi 30, Meena 20.
    expect(board.locator("tr", has_text="Meena").locator("td").first).to_have_text("20")
    assert [e["winner"] for e in game.as_document()["history"]] == ["Asha"]
    # The next undo offered is deal 1's.
    board.get_by_text("Undo last deal").click()
    expect(board.get_by_role("button", name="Yes, undo deal 1")).to_be_visible()


def test_a_finished_game_offers_undo_of_the_deal_that_ended_it(phone):
    page = phone
    history = [deal("Asha", Ravi=80), deal("Asha", Ravi=80)]
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi"], history=history)
    page.goto(game.get_absolute_url())
    board = page.locator("#board")
    expect(board).to_contain_text("Asha wins")
    board.get_by_text("Undo last deal").click()
    board.get_by_role("button", name="Yes, undo deal 2").click()
    expect(board.locator(".meta")).to_contain_text("1 deal played")
    expect(page.locator("#deal-entry").get_by_role("button", name="Save deal 2")).to_be_visible()


# ---------------------------------------------------------------- 6. smaller ones


def test_a_reload_mid_deal_offers_back_what_was_typed_on_this_phone(phone):
    page = phone
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"])
    page.goto(game.get_absolute_url())
    form = page.locator("#deal-entry")
    form.locator("label.win", has_text="Asha").click()
    form.locator(".deal-row", has_text="Ravi").locator(".points input").fill("34")
    form.locator(".deal-row", has_text="Meena").locator("label.word", has_text="First drop").click()
    page.reload()  # a pull to refresh
    offer = form.locator(".typed-back")
    expect(offer).to_contain_text("This phone kept what was typed for this deal")
    expect(form.locator(".deal-row", has_text="Ravi").locator(".points input")).to_have_value("")
    offer.get_by_role("button", name="Fill it in again").click()
    expect(offer).to_be_hidden()
    expect(form.locator(".deal-row", has_text="Ravi").locator(".points input")).to_have_value("34")
    form.get_by_role("button", name="Save deal 1").click()
    expect(page.locator("#board .meta")).to_contain_text("1 deal played")
    assert game.state().rows[-1].results == {"Ravi": 34, "Meena": "first_drop"}
    # Saved: a reload offers nothing.
    page.reload()
    expect(page.get_by_role("button", name="Save deal 2")).to_be_visible()
    expect(form.locator(".typed-back")).to_be_hidden()


def test_discarding_what_was_kept_forgets_it(phone):
    page = phone
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi"])
    page.goto(game.get_absolute_url())
    page.locator("#deal-entry .deal-row", has_text="Ravi").locator(".points input").fill("12")
    page.reload()
    offer = page.locator("#deal-entry .typed-back")
    offer.get_by_role("button", name="Discard it").click()
    expect(offer).to_be_hidden()
    page.reload()
    expect(page.get_by_role("button", name="Save deal 1")).to_be_visible()
    expect(offer).to_be_hidden()


def test_after_the_must_play_prompt_points_instead_of_the_drop_save_plainly(phone):
    page = phone
    # Ravi on 85 in pool 101: a first drop (20) puts him out (105), so the form asks first.
    game = Game.create(
        "pool",
        {"pool_limit": 101},
        ["Asha", "Ravi", "Meena"],
        history=[deal("Asha", Ravi=80, Meena=10), deal("Meena", Asha=5, Ravi=5)],
    )
    page.goto(game.get_absolute_url())
    form = page.locator("#deal-entry")
    ravi = form.locator(".deal-row", has_text="Ravi")
    form.locator("label.win", has_text="Meena").click()
    ravi.locator("label.word", has_text="First drop").click()
    form.locator(".deal-row", has_text="Asha").locator(".points input").fill("7")
    form.get_by_role("button", name="Save deal 3").click()
    save = form.get_by_role("button", name="Save deal 3 with the drop")
    expect(save).to_be_visible()
    expect(form).to_contain_text("Ravi has no drops left (must play)")
    ravi.locator(".points input").fill("30")
    expect(form.get_by_role("button", name="Save deal 3", exact=True)).to_be_visible()
    expect(form).not_to_contain_text("must play")
    form.get_by_role("button", name="Save deal 3", exact=True).click()
    expect(page.locator("#board .meta")).to_contain_text("3 deals played")
    assert game.state().rows[-1].results == {"Asha": 7, "Ravi": 30}


def test_count_cards_is_not_offered_on_the_winners_row(phone):
    page = phone
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"])
    page.goto(game.get_absolute_url())
    form = page.locator("#deal-entry")
    count = form.get_by_role("link", name=re.compile("Count .*cards"))
    expect(count).to_have_count(3)
    form.locator("label.win", has_text="Ravi").click()
    expect(count).to_have_count(2)
    expect(form.locator(".deal-row", has_text="Ravi").get_by_role("link")).to_have_count(0)
    form.locator("label.win", has_text="Asha").click()
    expect(form.locator(".deal-row", has_text="Ravi").get_by_role("link")).to_have_count(1)
    expect(form.locator(".deal-row", has_text="Asha").get_by_role("link")).to_have_count(0)
