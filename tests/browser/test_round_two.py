"""Issue 16 on a 360 x 740 phone: refusals that are not lost, and the deal form
warning before a drop for a player who must play."""

import re

import pytest
from playwright.sync_api import expect

from tracker.models import Game

pytestmark = [pytest.mark.browser]


@pytest.mark.parametrize("attempt", range(3))
def test_a_bad_pool_limit_typed_then_start_tapped_shows_the_refusal(phone, attempt):
    phone.goto("/new/")
    phone.get_by_text("Pool, other limit", exact=True).click()
    limit = phone.locator("input[name=pool_limit]")
    expect(limit).to_be_visible()
    for index, name in enumerate(["Asha", "Ravi"]):
        phone.locator("input[name=player]").nth(index).fill(name)
    limit.fill("ten")
    # Tapping Start takes the focus off the box: the refresh post must not win.
    phone.get_by_role("button", name="Start game").last.click()
    summary = phone.locator("#start-errors")
    expect(summary).to_contain_text("Type the pool limit, a whole number")
    expect(summary).to_be_in_viewport()
    expect(phone.locator(".formats .error")).to_have_text("Type the pool limit, a whole number")
    assert Game.objects.count() == 0


def test_a_drop_for_a_player_who_must_play_asks_first(phone):
    history = [
        {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 10}},
        {"type": "deal", "winner": "Asha", "results": {"Ravi": 4, "Meena": 10}},
    ]
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"], history=history)
    phone.goto(game.get_absolute_url())
    form = phone.locator("#deal-entry")
    form.locator("label.win", has_text=re.compile(r"^\s*Asha")).click()
    ravi = form.locator(".deal-row", has=phone.locator("label.win", has_text="Ravi"))
    ravi.locator("label.word", has_text="First drop").click()
    meena = form.locator(".deal-row", has=phone.locator("label.win", has_text="Meena"))
    meena.locator(".points input").fill("10")
    form.get_by_role("button", name="Save deal 3").click()
    warning = phone.locator("#deal-entry .callout.warn")
    expect(warning).to_contain_text("Ravi has no drops left (must play)")
    expect(warning).to_contain_text("84 + 20 = 104 ≥ 101")
    assert len(game.history()) == 2
    phone.get_by_role("button", name="Save deal 3 with the drop").click()
    expect(phone.locator("#board .meta")).to_contain_text("3 deals played")
    expect(phone.locator("#board")).to_contain_text("Out: 84 + 20 = 104 ≥ 101")
    assert game.history()[2]["results"] == {"Ravi": "first_drop", "Meena": 10}
