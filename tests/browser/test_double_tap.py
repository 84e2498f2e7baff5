"""Save tapped twice on a phone: the deal is saved once and nothing turns red."""

import re

import pytest
from playwright.sync_api import expect

from tracker.models import Game

pytestmark = [pytest.mark.browser]


@pytest.mark.parametrize("slow", [False, True], ids=["fast-answer", "slow-answer"])
def test_a_double_tap_on_save_saves_the_deal_once_without_a_refusal(phone, slow):
    page = phone
    game = Game.create("pool", {}, ["Asha", "Ravi", "Meena"])
    held = []
    if slow:  # the second tap lands while the first is still on its way

        def hold(route):
            if route.request.method == "POST" and not held:
                held.append(route)
            else:
                route.continue_()

        page.route(re.compile(r".*/deal/$"), hold)
    page.goto(game.get_absolute_url())
    form = page.locator("#deal-entry")
    form.locator("label.win", has_text=re.compile(r"^\s*Asha")).click()
    for name, points in (("Ravi", "20"), ("Meena", "35")):
        row = form.locator(".deal-row", has=page.locator("label.win", has_text=name))
        row.locator(".points input").fill(points)
    save = form.get_by_role("button", name="Save deal 1")
    if slow:
        with page.expect_request(re.compile(r".*/deal/$")):
            save.click()
        expect(save).to_be_disabled()
        save.click(force=True)
        held[0].continue_()
    else:
        save.dblclick()
    expect(page.locator("#board .meta")).to_contain_text("1 deal played")
    expect(form.get_by_role("heading", name=re.compile("Enter deal 2"))).to_be_visible()
    page.wait_for_load_state("networkidle")
    expect(page.locator(".error")).to_have_count(0)
    assert Game.objects.get(pk=game.pk).events.count() == 1
