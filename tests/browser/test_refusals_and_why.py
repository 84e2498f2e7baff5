"""On a 360 x 740 phone: refusals that are not lost, and the deal form warning
before a drop for a player who must play."""

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


def test_edit_delete_rejoin_split_and_undo_happen_in_place(phone, screenshot):
    history = [
        {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 10}},
        {"type": "deal", "winner": "Asha", "results": {"Ravi": 30, "Meena": 10}},
    ]  # Ravi 110: out; Meena 20, Asha 0: Ravi may rejoin at 21
    rules = {"pool_limit": 101, "entry_fee": "100"}
    game = Game.create("pool", rules, ["Asha", "Ravi", "Meena"], history=history)
    page = phone
    page.goto(game.get_absolute_url())
    loads = []
    page.on(
        "framenavigated",
        lambda frame: loads.append(frame.url) if frame == page.main_frame else None,
    )
    page.get_by_role("button", name=re.compile("Rejoin Ravi at 21")).click()
    expect(page.locator("#history")).to_contain_text("Ravi rejoined at 21")
    # Correct deal 1 in place: Meena had 12, so Ravi came back at 23.
    page.get_by_role("link", name="Edit deal 1").click()
    edit = page.locator("#edit-deal")
    expect(edit.get_by_role("heading", name="Correct deal 1")).to_be_visible()
    edit.locator(".deal-row", has=page.locator("label.win", has_text="Meena")).locator(
        ".points input"
    ).fill("12")
    edit.get_by_role("button", name="Save deal 1").click()
    saved = "Saved. Ravi's rejoin start moved 21 → 23."
    expect(page.locator("#notice .notice")).to_have_text(saved)
    expect(page.locator("#edit-deal")).to_have_count(0)
    # Deal 3, then delete it from its edit.
    form = page.locator("#deal-entry")
    form.locator("label.win", has_text=re.compile(r"^\s*Meena")).click()
    for name, points in (("Asha", 5), ("Ravi", 6)):
        form.locator(".deal-row", has=page.locator("label.win", has_text=name)).locator(
            ".points input"
        ).fill(str(points))
    form.get_by_role("button", name="Save deal 3").click()
    expect(page.locator("#board .meta")).to_contain_text("3 deals played")
    page.get_by_role("link", name="Edit deal 3").click()
    page.locator("#edit-deal").get_by_text("Delete deal 3", exact=True).click()
    page.get_by_role("button", name="Yes, delete deal 3").click()
    expect(page.locator("#board .meta")).to_contain_text("2 deals played")
    # Split in place, then undo it from the history.
    page.get_by_role("link", name="Split the pot").click()
    expect(page.get_by_role("heading", name=re.compile("Split the pot of"))).to_be_visible()
    page.get_by_role("button", name=re.compile("Split by drops")).click()
    expect(page.locator(".banner")).to_contain_text("Game over: split the pot")
    undo = page.locator("#history tr.event", has_text="Split")
    undo.locator("summary", has_text="Undo").click()
    undo.get_by_role("button", name="Yes, undo").click()
    expect(page.locator(".banner")).to_have_count(0)
    assert not game.state().finished
    assert [e["type"] for e in game.history()] == ["deal", "deal", "rejoin"]
    assert loads == [], f"full page loads: {loads}"


WAKE_LOCK_STUB = """
window.__wakeLocks = [];
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: {
  request: (kind) => {
    const lock = new EventTarget();
    lock.release = () => { lock.released = true; lock.dispatchEvent(new Event("release"));
      return Promise.resolve(); };
    window.__wakeLocks.push(kind);
    return Promise.resolve(lock);
  },
}});
"""


def test_the_screen_is_kept_awake_during_a_game_and_nothing_breaks_without_it(phone):
    game = Game.create("points", {}, ["Asha", "Ravi"])
    phone.goto(game.get_absolute_url())  # whatever this chromium has: no error (the fixture)
    phone.context.add_init_script(WAKE_LOCK_STUB)
    phone.goto(game.get_absolute_url())
    phone.wait_for_function("() => window.__wakeLocks.length > 0")
    assert phone.evaluate("() => window.__wakeLocks") == ["screen"]
    # Where the browser has no wake lock, the page still works.
    phone.context.add_init_script("delete Navigator.prototype.wakeLock; delete navigator.wakeLock;")
    phone.goto(game.get_absolute_url())
    expect(phone.get_by_role("heading", name="Enter deal 1")).to_be_visible()
