"""The Undo confirmation opened from the history is on top of everything at
360 px: a tap on "Yes, undo" undoes, never opens the deal beside it (issue 26.3)."""

import re

import pytest
from playwright.sync_api import expect

from tests.events import deal, sit_in, sit_out
from tracker.models import Game

pytestmark = [pytest.mark.browser]

NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata"]


def test_a_tap_on_yes_undo_lands_on_it_not_on_the_deal_beside_it(phone):
    page = phone
    history = [deal("Asha", Ravi=5, Meena=5, Kiran=5, Dev=5, Lata=5)] * 3
    history += [sit_out("Lata"), deal("Ravi", Asha=5, Meena=5, Kiran=5, Dev=5)]
    history += [deal("Meena", Asha=5, Ravi=5, Kiran=5, Dev=5), sit_in("Lata")]
    history += [deal("Kiran", Asha=5, Ravi=5, Meena=5, Dev=5, Lata=5)] * 4
    game = Game.create("points", {}, NAMES, history=history)
    page.goto(game.get_absolute_url())
    undo = page.locator("#history-rows tr.event").filter(has_text="is back in")
    undo.get_by_text("Undo", exact=True).click()
    yes = undo.get_by_role("button", name="Yes, undo")
    expect(yes).to_be_visible()
    box = yes.bounding_box()
    for x in (box["x"] + 4, box["x"] + box["width"] / 2):
        y = box["y"] + box["height"] / 2
        on_top = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('button')?.textContent.trim()",
            [x, y],
        )
        assert on_top == "Yes, undo", (x, y, on_top)
    yes.click(position={"x": 4, "y": box["height"] / 2})
    # The tap reached "Yes, undo": the undo was asked (and refused, as the deals
    # after it dealt Lata in), and no deal's correction opened beside it.
    expect(page.locator("#notice")).to_contain_text("Not deleted")
    expect(page.locator("#change-slot")).not_to_contain_text(re.compile("Correct deal"))
