"""At 360 px, the tables wider than the phone keep what a family reads on screen
(issue 26.16): the table's "Who is ahead" keeps each member's name beside the
figures while they scroll to Money, and the history's text rows (a split, a
join) wrap within the screen instead of running off its edge."""

import pytest
from playwright.sync_api import expect

from tests.events import deal, join
from tracker.models import Game, Table

pytestmark = [pytest.mark.browser]

MEMBERS = ["Asha Kumari", "Ravi", "Meena", "Kiran", "Lakshmi Narayanan"]
WIDTH = 360  # the phone's viewport


def split_pool(table=None):
    """Pool 101 for ₹100 each: Lakshmi Narayanan joins after deal 1, the five
    split the pot of ₹500 by drops after deal 2."""
    history = [
        deal("Asha Kumari", Ravi=40, Meena=70, Kiran=60),
        join("Lakshmi Narayanan"),
        deal("Ravi", **{"Asha Kumari": 20, "Lakshmi Narayanan": 2}, Meena=80, Kiran=80),
        {"type": "split", "method": "drops"},
    ]
    rules = {"pool_limit": 101, "entry_fee": "100"}
    return Game.create("pool", rules, MEMBERS[:4], history=history, table=table)


def scroll_to_the_end(page, region):
    """Scroll a sideways region as far right as it goes; True if it scrolled."""
    return region.evaluate(
        "el => { const wider = el.scrollWidth > el.clientWidth;"
        " el.scrollLeft = el.scrollWidth; return wider; }"
    )


def text_boxes(locator):
    """The boxes of each line of the element's text, as the screen shows them."""
    return locator.evaluate(
        "el => { const r = document.createRange(); r.selectNodeContents(el);"
        " return [...r.getClientRects()].filter(b => b.width > 0)"
        ".map(b => ({left: b.left, right: b.right, top: b.top})); }"
    )


def shown_at(page, box):
    """The text of the element on top at the middle of a box."""
    return page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).textContent.trim()",
        [(box["x"] + box["x"] + box["width"]) / 2, box["y"] + box["height"] / 2],
    )


def test_who_is_ahead_keeps_the_names_beside_money_at_360_px(phone, screenshot):
    page = phone
    table = Table.start("Nani's table", MEMBERS)
    split_pool(table)
    page.goto(table.get_absolute_url())
    stats = page.locator("#stats table.stats").first
    region = page.locator("#stats .table-scroll").first
    region.scroll_into_view_if_needed()
    assert scroll_to_the_end(page, region), "the stats fit the phone: nothing to check"
    money = stats.locator("thead th").last
    expect(money).to_have_text("Money")
    rows = stats.locator("tbody tr")
    expect(rows).to_have_count(5)
    for index in range(5):
        name = rows.nth(index).locator("th")
        box = name.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, (index, box)
        assert shown_at(page, box) == name.inner_text(), index
        figure = rows.nth(index).locator("td").last.bounding_box()
        assert figure["x"] + figure["width"] <= WIDTH, (index, figure)
        assert figure["x"] >= box["x"] + box["width"] - 1, (index, box, figure)
    # The pot was split, so the game is over and its money counts.
    asha = rows.filter(has_text="Asha Kumari")
    expect(asha.locator("td").last).to_contain_text("₹")
    screenshot(page)


def test_a_split_in_the_history_wraps_within_the_screen_at_360_px(phone, screenshot):
    page = phone
    game = split_pool()
    page.goto(game.get_absolute_url())
    region = page.locator(".table-scroll").filter(has=page.locator("#history-rows"))
    region.scroll_into_view_if_needed()
    for says in ("Split by drops:", "joined"):
        row = page.locator("#history-rows tr.event").filter(has_text=says)
        text = row.locator("td")
        first_column = row.locator("th").bounding_box()
        lines = text_boxes(text)
        assert lines, says
        for line in lines:
            assert line["left"] >= first_column["x"] + first_column["width"] - 1, (says, line)
            assert line["right"] <= WIDTH, (says, line)
    split_lines = text_boxes(
        page.locator("#history-rows tr.event").filter(has_text="Split").locator("td")
    )
    assert len({round(line["top"]) for line in split_lines}) >= 2, "the split's names wrap"
    # Scrolled to the last player, the split still reads beside the first column.
    assert scroll_to_the_end(page, region)
    for line in text_boxes(
        page.locator("#history-rows tr.event").filter(has_text="Split").locator("td")
    ):
        assert line["left"] >= 0 and line["right"] <= WIDTH, line
    screenshot(page)
