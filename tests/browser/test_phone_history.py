"""Issue 16, measured on a 360 x 740 phone with 6 and with 10 players: no screen
scrolls sideways, every history row keeps its change control on screen and
big enough to tap, axe finds nothing, and a 4-player deal takes 5 taps or fewer."""

import re

import pytest
from playwright.sync_api import expect

from tracker.models import Game

pytestmark = [pytest.mark.browser]

NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Priya", "Arjun", "Lakshmi", "Sunil", "Nani"]
SCREENS = ["game screen", "correcting in place", "view link", "correct a deal", "new game", "home"]


def pool_game(players):
    """Pool 101: Ravi out after deal 2 (80 + 30 = 110), back in at 21, then deal 3."""
    names = NAMES[:players]
    others = names[2:]
    history = [
        {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, **dict.fromkeys(others, 10)}},
        {"type": "deal", "winner": "Asha", "results": {"Ravi": 30, **dict.fromkeys(others, 10)}},
        {"type": "rejoin", "player": "Ravi"},
        {
            "type": "deal",
            "winner": "Meena",
            "results": {"Asha": 5, "Ravi": "first_drop", **dict.fromkeys(others[1:], 7)},
        },
    ]
    return Game.create("pool", {"pool_limit": 101, "entry_fee": "50"}, names, history=history)


def page_width(page):
    return page.evaluate("() => document.documentElement.scrollWidth")


def change_controls(page):
    """(row text, box) of every history row's change control."""
    out = []
    for row in page.locator("#history tbody tr").all():
        control = row.locator(".change-col .change")
        out.append((row.inner_text()[:30], control.bounding_box()))
    return out


def assert_controls_on_screen(page):
    rows = change_controls(page)
    assert rows, "no history rows"
    for text, box in rows:
        assert box is not None, f"no change control in {text!r}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, (text, box)
        assert box["width"] >= 44 and box["height"] >= 44, (text, box)


@pytest.mark.parametrize("players", [6, 10])
@pytest.mark.parametrize("screen", SCREENS)
def test_no_screen_scrolls_sideways_and_axe_finds_nothing(phone, axe, players, screen):
    game = pool_game(players)
    page = phone
    if screen == "home":
        page.goto(game.get_absolute_url())  # so the home page lists it
        page.goto("/")
    elif screen == "new game":
        page.goto("/new/")
        while page.locator("input[name=player]").count() < players:
            count = page.locator("input[name=player]").count()
            page.get_by_role("button", name="+ Add player").click()
            expect(page.locator("input[name=player]")).to_have_count(count + 1)
        page.get_by_text("Table rules").click()
    elif screen == "correct a deal":
        page.goto(f"/g/{game.edit_token}/event/{game.events.first().serial}/")
    elif screen == "correcting in place":
        page.goto(game.get_absolute_url())
        page.get_by_role("link", name="Edit deal 1").click()
        # Opened in the change slot of the game screen, with no page load.
        expect(page.locator("#change-slot #edit-deal").get_by_role("heading")).to_have_text(
            "Correct deal 1"
        )
        assert page.url.endswith(game.get_absolute_url())
    else:
        page.goto(game.get_absolute_url() if screen == "game screen" else game.get_view_url())
        page.get_by_text(re.compile("Chart of the")).click()
    assert page_width(page) <= 360
    violations = axe.violations(page)
    assert not violations, axe.report(violations)


@pytest.mark.parametrize("players", [6, 10])
def test_every_history_row_keeps_its_change_control_on_screen(phone, screenshot, players):
    game = pool_game(players)
    page = phone
    page.goto(game.get_absolute_url())
    page.locator("#history").scroll_into_view_if_needed()
    assert page_width(page) <= 360
    assert_controls_on_screen(page)
    # Scrolled sideways to the last player, the deal number and its control stay put.
    region = page.locator("#history .table-scroll")
    wide = region.evaluate("(r) => r.scrollWidth > r.clientWidth")
    assert wide == (players > 4) or players <= 6
    region.evaluate("(r) => { r.scrollLeft = r.scrollWidth; }")
    assert_controls_on_screen(page)
    if wide:
        expect(page.locator(".swipe-hint")).to_contain_text(f"all {players} players")
    last = page.locator("#history thead th").last
    box = last.bounding_box()
    assert box["x"] + box["width"] <= 361, "the last player's column is not reachable"
    # Every control of the game screen is at least 44 px tall.
    for control in page.locator(
        "#game button:visible, #game summary:visible, #game .button:visible, #game .change:visible"
    ).all():
        height = control.bounding_box()["height"]
        assert height >= 44, (control.inner_text()[:30], height)
    if players == 10:
        screenshot(page, "-10-players-history")
    # The Undo confirmation opens on screen, whole.
    undo = page.locator("#history tr.event", has_text="rejoined")
    undo.locator("summary", has_text="Undo").click()
    confirm = undo.locator("form")
    expect(confirm).to_be_visible()
    box = confirm.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert box["y"] >= 0 and box["y"] + box["height"] <= 740
    yes = undo.get_by_role("button", name="Yes, undo")
    expect(yes).to_be_in_viewport(ratio=1)
    if players == 10:
        screenshot(page, "-10-players-undo")
    # "Keep it" closes it and changes nothing (deal 3 needs Ravi back in anyway).
    undo.get_by_role("button", name="Keep it").click()
    expect(confirm).to_be_hidden()
    assert [e["type"] for e in game.history()].count("rejoin") == 1


def test_a_typical_four_player_deal_takes_five_taps_or_fewer(phone):
    game = Game.create("pool", {"pool_limit": 101}, NAMES[:4])
    page = phone
    page.goto(game.get_absolute_url())
    taps = 0

    def tap(locator):
        nonlocal taps
        locator.tap()
        taps += 1

    form = page.locator("#deal-entry")
    tap(form.locator("label.win", has_text="Meena"))  # the thumb moves to Asha's box
    expect(form.locator("input[name=p1]")).to_be_focused()
    page.keyboard.type("12")
    tap(form.locator("input[name=p2]"))
    page.keyboard.type("7")
    tap(form.locator(".deal-row", has_text="Kiran").locator("label.word", has_text="First drop"))
    tap(form.get_by_role("button", name="Save deal 1"))
    expect(page.locator("#board .meta")).to_contain_text("1 deal played")
    assert taps <= 5
    assert {p.name: p.total for p in game.state().players} == {
        "Asha": 12,
        "Ravi": 7,
        "Meena": 0,
        "Kiran": 20,
    }


@pytest.mark.parametrize("players", [6, 10])
def test_the_split_screen_fits_and_axe_finds_nothing(phone, axe, players):
    # All but Asha, Ravi and Meena go out in two deals (80 + 30 = 110): three still in.
    names = NAMES[:players]
    gone = names[3:]
    history = [
        {
            "type": "deal",
            "winner": "Asha",
            "results": {"Ravi": 5, "Meena": 5, **dict.fromkeys(gone, 80)},
        },
        {
            "type": "deal",
            "winner": "Asha",
            "results": {"Ravi": 5, "Meena": 5, **dict.fromkeys(gone, 30)},
        },
    ]
    game = Game.create("pool", {"pool_limit": 101, "entry_fee": "50"}, names, history=history)
    page = phone
    page.goto(game.get_absolute_url())
    page.get_by_role("link", name="Split the pot").click()
    split = page.locator("#change-slot").get_by_role("heading", name=re.compile("Split the pot of"))
    expect(split).to_be_visible()
    assert page.url.endswith(game.get_absolute_url())  # opened in place
    page.get_by_text("Typed amounts", exact=True).click()
    expect(page.locator("input[name^=s]")).to_have_count(3)
    assert page_width(page) <= 360
    violations = axe.violations(page)
    assert not violations, axe.report(violations)
