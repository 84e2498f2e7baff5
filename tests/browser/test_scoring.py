"""Scoring whole games on a 360 px phone, as a family would, in Debian's chromium."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tracker.models import Game

pytestmark = [pytest.mark.browser]


def start_with_rules(page, rules):
    """Type the table rules asked for on the new-game form, tap Start game, and wait
    for the game's screen."""
    if rules:
        page.get_by_text("Table rules").click()
        for key, value in rules.items():
            page.locator(f"[name={key}]").fill(value)
    page.get_by_role("button", name="Start game").last.click()
    expect(page.get_by_role("heading", name=re.compile("Enter deal 1"))).to_be_visible()


def start_game(page, format_label, players, **rules):
    page.goto("/new/")
    page.get_by_text(format_label, exact=True).click()
    boxes = page.locator("input[name=player]")
    count = 4
    while count < len(players):
        page.get_by_role("button", name="+ Add player").click()
        count += 1
        expect(boxes).to_have_count(count)
    while count > len(players):
        page.get_by_role("button", name=f"Remove player {count}").click()
        count -= 1
        expect(boxes).to_have_count(count)
    for index, name in enumerate(players):
        page.locator("input[name=player]").nth(index).fill(name)
    start_with_rules(page, rules)
    token = page.url.rstrip("/").split("/")[-1]
    return Game.objects.get(edit_token=token)


def score_deal(page, winner, **results):
    """Tap the winner, then type points or tap a drop for each other player."""
    form = page.locator("#deal-entry")
    form.locator("label.win", has_text=re.compile(rf"^\s*{winner}")).click()
    for name, result in results.items():
        row = form.locator(".deal-row", has=page.locator("label.win", has_text=name))
        if isinstance(result, int):
            row.locator(".points input").fill(str(result))
        else:
            row.locator("label.word", has_text=result).click()
    number = re.search(r"\d+", form.get_by_role("heading").inner_text()).group(0)
    form.get_by_role("button", name=re.compile("Save deal")).click()
    played = re.compile(rf"\b{number} deals? played")
    expect(page.locator("#board .meta")).to_contain_text(played)


def board_figures(page):
    """{name: first figure} as the scoreboard shows it."""
    figures = {}
    for row in page.locator("#board table.scoreboard tbody tr").all():
        name = row.locator("th").inner_text().split()[0]
        figures[name] = row.locator("td").first.inner_text().strip()
    return figures


def test_pool_101_from_start_to_split(phone, screenshot, axe):
    page = phone
    game = start_game(page, "Pool 101", ["Asha", "Ravi", "Meena", "Kiran"], entry_fee="50")
    assert not axe.violations(page), axe.report(axe.violations(page))
    score_deal(page, "Asha", Ravi=34, Meena="First drop", Kiran="Middle drop")
    score_deal(page, "Meena", Asha=12, Ravi="Middle drop", Kiran=41)
    score_deal(page, "Ravi", Asha="First drop", Meena=2, Kiran="Full count")
    # 0 + 12 + 20, 34 + 40 + 0, 20 + 0 + 2, 40 + 41 + 80.
    assert board_figures(page) == {"Asha": "32", "Ravi": "74", "Meena": "22", "Kiran": "161"}
    assert game.state().player("Kiran").status == "out"
    kiran = page.locator("#board tr.out")
    expect(kiran).to_contain_text("Kiran")
    expect(kiran).to_contain_text("Out")
    # Kiran buys back in at the highest total plus one; the pot grows.
    page.get_by_role("button", name=re.compile(r"Rejoin Kiran at 75 · pot ₹250.00")).click()
    expect(page.locator("#board")).to_contain_text("Rejoined")
    assert board_figures(page)["Kiran"] == "75"
    # Correct deal 1: Ravi had 30, not 34.
    page.get_by_role("link", name="Edit deal 1").click()
    expect(page.get_by_role("heading", name="Correct deal 1")).to_be_visible()
    edit = page.locator("#edit-deal")  # opened in place, under the deal form
    edit.locator(".deal-row", has=page.locator("label.win", has_text="Ravi")).locator(
        ".points input"
    ).fill("30")
    edit.get_by_role("button", name="Save deal 1").click()
    # The answer has come when the correction closes (the deal form stays open all along).
    expect(page.get_by_role("heading", name="Correct deal 1")).to_have_count(0)
    expect(page.get_by_role("heading", name=re.compile("Enter deal 4"))).to_be_visible()
    # Ravi 70 now, so the highest still in after deal 3 is 70: Kiran rejoined at 71.
    assert board_figures(page) == {"Asha": "32", "Ravi": "70", "Meena": "22", "Kiran": "71"}
    score_deal(page, "Asha", Ravi=40, Meena=80, Kiran=5)
    assert [p.name for p in game.state().in_players] == ["Asha", "Kiran"]
    assert board_figures(page) == {"Asha": "32", "Ravi": "110", "Meena": "102", "Kiran": "76"}
    screenshot(page)
    page.get_by_role("link", name="Split the pot").click()
    expect(page.get_by_role("heading", name=re.compile("Split the pot of ₹250.00"))).to_be_visible()
    page.get_by_role("button", name=re.compile("Split by drops")).click()
    expect(page.locator(".banner")).to_contain_text("Game over: split the pot")
    expect(page.get_by_role("heading", name=re.compile("Enter deal"))).to_have_count(0)
    # Drops left: Asha (32) 3, Kiran (76) 1: Asha's 2 excess drops pay 2 x 50, the
    # other 150 of the pot of 250 is shared equally.
    state = game.as_document()["state"]
    assert state["status"] == "finished"
    assert state["split"] == {"Asha": "175.00", "Kiran": "75.00"}
    screenshot(page, "-split")


def test_pool_played_to_a_winner_and_a_refusal_shown_beside_the_player(phone, screenshot):
    page = phone
    game = start_game(page, "Pool 101", ["A", "B"])
    # One point is impossible when an ace is worth 10: refused beside B, nothing saved.
    page.locator("label.win", has_text="A").click()
    row = page.locator(".deal-row", has=page.locator("label.win", has_text="B"))
    row.locator(".points input").fill("1")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator(".deal-row .error")).to_have_text("B: points must be 0 or between 2 and 80")
    expect(row.locator(".points input")).to_have_value("1")
    assert game.events.count() == 0
    row.locator(".points input").fill("80")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("heading", name=re.compile("Enter deal 2"))).to_be_visible()
    score_deal(page, "A", B=5)
    expect(page.locator("#board tr.no-drops")).to_contain_text("B")  # 85: no drops left
    expect(page.locator("#board tr.no-drops")).to_contain_text("must play")
    score_deal(page, "A", B=16)
    expect(page.locator(".banner")).to_have_text("A wins!")
    screenshot(page)


def test_deals_game_to_its_end(phone, screenshot):
    page = phone
    game = start_game(page, "Deals, best of 2", ["A", "B", "C"])
    score_deal(page, "A", B=30, C=10)
    score_deal(page, "B", A=35, C=0)
    expect(page.locator(".callout").first).to_contain_text("Tie-breaker")
    expect(page.locator("#deal-entry .deal-row")).to_have_count(2)
    score_deal_last = page.locator("#deal-entry")
    score_deal_last.locator("label.win", has_text="B").click()
    page.locator(".deal-row", has=page.locator("label.win", has_text="A")).locator(
        ".points input"
    ).fill("15")
    page.get_by_role("button", name="Save deal 3").click()
    expect(page.locator(".banner")).to_have_text("B wins!")
    # 160 chips each: A +30 +10 -35 -15, B -30 +35 +15, C -10.
    assert board_figures(page) == {"A": "150", "B": "180", "C": "150"}
    assert game.as_document()["state"]["winner"] == "B"
    screenshot(page)


def test_points_session_with_its_settlement(phone, screenshot):
    page = phone
    page.goto("/new/")
    page.get_by_text("Points", exact=True).click()
    expect(page.locator("input[name=point_value]")).to_be_visible()
    game = start_game(page, "Points", ["Asha", "Ravi", "Meena"])
    score_deal(page, "Ravi", Asha=47, Meena="First drop")
    score_deal(page, "Asha", Ravi="Wrong show", Meena=18)
    settle = page.locator(".settlement")
    expect(settle).to_contain_text("Meena pays Asha ₹38.00")
    expect(settle).to_contain_text("Ravi pays Asha ₹13.00")
    page.locator("summary", has_text="End session").click()
    page.get_by_role("button", name="Yes, end the session").click()
    expect(page.locator(".banner")).to_contain_text("Session ended")
    assert game.state().finished
    screenshot(page)


def test_a_watcher_sees_a_new_deal_within_three_seconds(phone, browser, live_server, screenshot):
    scorer = phone
    game = start_game(scorer, "Pool 101", ["Asha", "Ravi", "Meena", "Kiran"])
    context = browser.new_context(base_url=live_server.url, **PHONE)
    try:
        watcher = context.new_page()
        watcher.goto(game.get_view_url())
        expect(watcher.locator("main form")).to_have_count(0)  # only the language switch
        marker = watcher.evaluate("() => (window.__sameDocument = 'still here')")
        score_deal(scorer, "Asha", Ravi=34, Meena=2, Kiran="Full count")
        row = watcher.locator("#board tbody tr", has_text="Kiran")
        expect(row.locator("td").first).to_have_text("80", timeout=3000)
        # No reload: the page's own state is still there.
        assert watcher.evaluate("() => window.__sameDocument") == marker
        expect(watcher.locator("#history")).to_contain_text("Full count")
        screenshot(watcher, "-watcher")
    finally:
        context.close()


@pytest.mark.parametrize("where", ["home", "new game", "game screen", "view link"])
def test_pages_have_no_accessibility_violations(phone, axe, where):
    game = Game.create(
        "pool",
        {"entry_fee": "50"},
        ["Asha", "Ravi", "Meena", "Kiran"],
        history=[
            {"type": "deal", "winner": "Asha", "results": {"Ravi": 34, "Meena": 2, "Kiran": 80}},
            {"type": "deal", "winner": "Ravi", "results": {"Asha": 3, "Meena": 2, "Kiran": 30}},
        ],
    )
    url = {
        "home": "/",
        "new game": "/new/",
        "game screen": game.get_absolute_url(),
        "view link": game.get_view_url(),
    }[where]
    phone.goto(url)
    if where in ("game screen", "view link"):
        phone.get_by_text("Share this game").click()
        phone.get_by_text(re.compile("Chart of the")).click()
    violations = axe.violations(phone)
    assert not violations, axe.report(violations)


def test_counting_a_losers_cards_fills_their_points(phone, screenshot, axe):
    page = phone
    game = start_game(page, "Pool 101", ["Asha", "Ravi"])
    page.locator("label.win", has_text="Asha").click()
    page.get_by_role("link", name="Count Ravi's cards").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    cards = ["6S", "7S", "8S", "6C", "7C", "8C", "8D", "8H", "2H", "3H", "4H", "KD", "KS"]
    for count, card in enumerate(cards, start=1):
        dialog.locator(f"button[name=add][value='{card}']").click()
        expect(dialog.locator("input[name=cards]")).to_have_value(" ".join(cards[:count]))
    expect(dialog).to_contain_text("33 points")
    assert not axe.violations(page), axe.report(axe.violations(page))
    screenshot(page, "-calculator")
    dialog.get_by_role("button", name="Use 33 points").click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.locator("input[name=p2]")).to_have_value("33")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator("#board .meta")).to_contain_text("1 deal played")
    assert game.state().player("Ravi").total == 33


def test_a_four_player_deal_takes_four_taps_plus_the_digits(phone):
    """Meena wins, Asha 12, Ravi 7, Kiran a first drop: the winner, Ravi's box, Kiran's
    drop and Save are the only taps. No tap for Asha's box: tapping the winner puts
    the thumb there; and no tap for Meena's result, the winner has none."""
    page = phone
    game = start_game(page, "Pool 101", ["Asha", "Ravi", "Meena", "Kiran"])
    form = page.locator("#deal-entry")
    form.locator("label.win", has_text="Meena").click()  # tap 1
    expect(form.locator("input[name=p1]")).to_be_focused()
    # The winner's row asks for nothing more.
    meena = form.locator(".deal-row", has=page.locator("label.win", has_text="Meena"))
    expect(meena.locator(".points input")).to_be_hidden()
    page.keyboard.type("12")
    form.locator("input[name=p2]").click()  # tap 2
    page.keyboard.type("7")
    kiran = form.locator(".deal-row", has_text="Kiran")
    kiran.locator("label.word", has_text="First drop").click()  # tap 3
    form.get_by_role("button", name="Save deal 1").click()  # tap 4
    expect(page.locator("#board .meta")).to_contain_text("1 deal played")
    # 101 pool: a first drop is 20.
    assert {p.name: p.total for p in game.state().players} == {
        "Asha": 12,
        "Ravi": 7,
        "Meena": 0,
        "Kiran": 20,
    }
