"""What is ticked or typed on the new-game screen stays while the format's table
rules are brought up to date (a point value typed, then a player ticked at once)."""

import re

import pytest
from playwright.sync_api import expect

from tracker.models import Game, Table

pytestmark = [pytest.mark.browser]


def hold_refresh(page):
    """Hold the form's refresh (the format's rules) until the test lets it go."""
    held = []

    def hold(route):
        if route.request.method == "POST" and "action=refresh" in (route.request.post_data or ""):
            held.append(route)
        else:
            route.continue_()

    page.route(re.compile(r".*/new/$"), hold)
    return held


def held_one(page, held):
    """The held refresh, once its route handler has run: Playwright tells of the
    request and hands its route over in separate events, either first. Each
    painted frame lets the next events through (no fixed sleep)."""
    for _ in range(300):
        if held:
            break
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    assert len(held) == 1
    return held[0]


def test_a_player_ticked_while_the_point_value_is_sent_stays_ticked(phone):
    page = phone
    table = Table.start("Sunday", ["Asha", "Ravi", "Meena", "Kiran", "Dev"])
    # The last game's four are ticked: Dev is not.
    Game.create("points", {}, ["Asha", "Ravi", "Meena", "Kiran"], table=table)
    page.goto(f"/t/{table.edit_token}/new/")
    expect(page.get_by_label("Dev", exact=True)).not_to_be_checked()
    page.get_by_text("Points", exact=True).click()
    page.wait_for_load_state("networkidle")
    expect(page.get_by_label("Point value")).to_be_visible()
    held = hold_refresh(page)
    page.get_by_label("Point value").fill("0.5")
    with page.expect_request(lambda r: "action=refresh" in (r.post_data or "")):
        page.get_by_label("Dev", exact=True).check()  # leaving the box sends it
    held_one(page, held).continue_()
    expect(page.get_by_label("Point value")).to_have_value("0.5")
    page.wait_for_load_state("networkidle")
    expect(page.get_by_label("Dev", exact=True)).to_be_checked()
    page.get_by_role("button", name="Start game").last.click()
    expect(page.get_by_role("heading", name=re.compile("Enter deal 1"))).to_be_visible()
    game = table.games.latest("pk")
    assert game.seat_names() == ["Asha", "Ravi", "Meena", "Kiran", "Dev"]
    assert game.rules["point_value"] == "0.5"


def test_a_name_typed_while_the_format_changes_stays_typed(phone):
    page = phone
    page.goto("/new/")
    held = hold_refresh(page)
    with page.expect_request(lambda r: "action=refresh" in (r.post_data or "")):
        page.get_by_text("Pool 201", exact=True).click()
    page.get_by_label("Player 1", exact=True).fill("Asha")
    held_one(page, held).continue_()
    expect(page.get_by_label("First drop")).to_be_attached()
    page.wait_for_load_state("networkidle")
    expect(page.get_by_label("Player 1", exact=True)).to_have_value("Asha")
    expect(page.locator("input[name=format][value=pool-201]")).to_be_checked()
