"""Two phones on one game, in Debian's chromium: a change made on a screen that
another phone has since changed is refused, says so, and keeps what was typed."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.test_scoring import score_deal
from tracker.models import Game

pytestmark = [pytest.mark.browser]

NAMES = ["Asha", "Ravi", "Meena"]
DEALS = [
    {"type": "deal", "winner": "Asha", "results": {"Ravi": 10, "Meena": 20}},
    {"type": "deal", "winner": "Ravi", "results": {"Asha": 5, "Meena": 7}},
]


@pytest.fixture
def other_phone(browser, live_server):
    context = browser.new_context(base_url=live_server.url, **PHONE)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_a_deal_typed_while_another_phone_saved_one_is_kept_and_saved_on_a_second_tap(
    phone, other_phone, screenshot
):
    game = Game.create("points", {}, NAMES, history=DEALS)
    phone.goto(game.get_absolute_url())
    other_phone.goto(game.get_absolute_url())
    # This phone types deal 3: Ravi won, Asha 40, Meena 0.
    form = phone.locator("#deal-entry")
    form.locator("label.win", has_text=re.compile(r"^\s*Ravi")).click()
    form.locator(".deal-row", has=phone.locator("label.win", has_text="Asha")).locator(
        ".points input"
    ).fill("40")
    form.locator(".deal-row", has=phone.locator("label.win", has_text="Meena")).locator(
        ".points input"
    ).fill("0")
    score_deal(other_phone, "Meena", Asha=2, Ravi=3)  # deal 3, from the other phone
    # The live poll keeps this phone's form in step (deal 4 now), what was typed kept.
    expect(form.get_by_role("heading")).to_contain_text("Enter deal 4")
    expect(form.locator(".drift")).to_be_visible()
    asha = form.locator(".deal-row", has=phone.locator("label.win", has_text="Asha"))
    expect(asha.locator(".points input")).to_have_value("40")
    form.get_by_role("button", name="Save deal 4").click()
    # Not saved twice: the other phone's deal is shown, this one kept to save or discard.
    expect(phone.locator("#notice .notice")).to_have_text(
        "Someone else just saved deal 3. Here is the new score."
    )
    expect(phone.locator("#conflict")).to_contain_text(
        "The other phone saved: deal 3: Meena won; Asha 2, Ravi 3."
    )
    expect(phone.locator("#conflict")).to_contain_text("discard it")
    expect(phone.locator("#board .meta")).to_contain_text("3 deals played")
    assert len(game.history()) == 3
    form = phone.locator("#deal-entry")
    asha = form.locator(".deal-row", has=phone.locator("label.win", has_text="Asha"))
    expect(asha.locator(".points input")).to_have_value("40")
    expect(form.locator("input[name=winner][value='2']")).to_be_checked()
    phone.locator("#conflict").scroll_into_view_if_needed()
    screenshot(phone, "-conflict")
    form.get_by_role("button", name="Save deal 4").click()
    expect(phone.locator("#board .meta")).to_contain_text("4 deals played")
    assert game.history()[3] == {
        "type": "deal",
        "winner": "Ravi",
        "results": {"Asha": 40, "Meena": 0},
    }
    # Saved: the notice and the other phone's deal are gone, the form is the
    # empty one of deal 5, made against the new score.
    expect(phone.locator("#notice .notice")).to_have_count(0)
    expect(phone.locator("#conflict")).to_have_count(0)
    form = phone.locator("#deal-entry")
    expect(form.get_by_role("heading")).to_contain_text("Enter deal 5")
    expect(form.locator(".drift")).to_be_hidden()
    asha = form.locator(".deal-row", has=phone.locator("label.win", has_text="Asha"))
    expect(asha.locator(".points input")).to_have_value("")
    expect(form.locator("input[name=version]")).to_have_value("4")


def test_a_saved_deal_leaves_an_empty_form_and_closes_an_open_correction(phone):
    game = Game.create("points", {}, NAMES, history=DEALS)
    phone.goto(game.get_absolute_url())
    phone.get_by_role("link", name="Edit deal 1").click()
    expect(phone.get_by_role("heading", name="Correct deal 1")).to_be_visible()
    score_deal(phone, "Meena", Asha=2, Ravi=3)
    # The swap of the board closes the correction, as a new page would.
    expect(phone.locator("#edit-deal")).to_have_count(0)
    form = phone.locator("#deal-entry")
    expect(form.get_by_role("heading")).to_contain_text("Enter deal 4")
    # Nothing of deal 3 is carried into the form of deal 4: the next save is deal 4.
    ravi = form.locator(".deal-row", has=phone.locator("label.win", has_text="Ravi"))
    expect(ravi.locator(".points input")).to_have_value("")
    expect(form.locator("input[name=winner]:checked")).to_have_count(0)
    expect(form.locator(".drift")).to_be_hidden()
    score_deal(phone, "Asha", Ravi=5, Meena=6)
    expect(phone.locator("#notice .notice")).to_have_count(0)
    assert [d["winner"] for d in game.history()] == ["Asha", "Ravi", "Meena", "Asha"]


def test_a_form_not_typed_in_follows_the_board_and_saves_as_the_next_deal(phone, other_phone):
    game = Game.create("points", {}, NAMES, history=DEALS)
    phone.goto(game.get_absolute_url())
    other_phone.goto(game.get_absolute_url())
    score_deal(other_phone, "Meena", Asha=2, Ravi=3)
    form = phone.locator("#deal-entry")
    expect(form.get_by_role("heading")).to_contain_text("Enter deal 4")
    expect(form.get_by_role("heading")).to_contain_text("Asha deals")
    score_deal(phone, "Asha", Ravi=5, Meena=6)  # no conflict: it was in step
    assert game.history()[3]["winner"] == "Asha"


def test_a_correction_made_while_another_phone_deleted_a_deal_names_the_same_deal(
    phone, other_phone, screenshot
):
    game = Game.create("points", {}, NAMES, history=DEALS)
    phone.goto(game.get_absolute_url())
    phone.get_by_role("link", name="Edit deal 2").click()
    expect(phone.get_by_role("heading", name="Correct deal 2")).to_be_visible()
    # The other phone deletes deal 1.
    other_phone.goto(game.get_absolute_url())
    other_phone.get_by_role("link", name="Edit deal 1").click()
    other_phone.get_by_text("Delete deal 1", exact=True).click()
    other_phone.get_by_role("button", name="Yes, delete deal 1").click()
    expect(other_phone.locator("#board .meta")).to_contain_text("1 deal played")
    # This phone corrects what it opened as deal 2: Meena had 9, not 7.
    edit = phone.locator("#edit-deal")  # opened in place
    row = edit.locator(".deal-row", has=phone.locator("label.win", has_text="Meena"))
    row.locator(".points input").fill("9")
    # The edit's own button: once this phone's poll brings the deletion, the
    # form for the next deal is "Save deal 2" too.
    edit.get_by_role("button", name="Save deal 2").click()
    expect(phone.get_by_role("heading", name="Correct deal 1")).to_be_visible()
    told = "Someone else just deleted deal 1."
    expect(phone.locator(".notice[role=alert]")).to_contain_text(told)
    expect(row.locator(".points input")).to_have_value("9")
    assert game.history() == [DEALS[1]]
    screenshot(phone)
    edit.get_by_role("button", name="Save deal 1").click()
    expect(phone.locator("#edit-deal")).to_have_count(0)  # saved: the board is back
    expect(phone.locator("#board .meta")).to_contain_text("1 deal played")
    assert game.history() == [{**DEALS[1], "results": {"Asha": 5, "Meena": 9}}]


def _history_rows(page):
    """The history's rows as the page shows them: each row's boxes, newest first."""
    return [
        [cell.inner_text().strip() for cell in row.locator("th, td").all()]
        for row in page.locator("#history-rows tr").all()
    ]


@pytest.mark.slow
def test_deals_saved_in_turn_on_two_phones_and_watched_show_what_a_reload_shows(
    phone, other_phone, browser, live_server
):
    """Deals saved in turn on two phones, watched on a third: after 12 deals
    (the history running past 12 events), every screen shows what loading it
    afresh shows: the board, the newest 12 rows, the "Show all" link and the chart."""
    game = Game.create("points", {}, NAMES, history=DEALS)
    watcher = browser.new_context(base_url=live_server.url, **PHONE).new_page()
    watcher.set_default_timeout(10_000)
    phone.goto(game.get_absolute_url())
    other_phone.goto(game.get_absolute_url())
    watcher.goto(game.get_view_url())
    winners = ["Asha", "Ravi", "Meena"]
    for n in range(12):
        saver, other = (phone, other_phone) if n % 2 == 0 else (other_phone, phone)
        winner = winners[n % 3]
        score_deal(saver, winner, **{name: n + 2 for name in NAMES if name != winner})
        played = re.compile(rf"\b{n + 3} deals played")
        expect(other.locator("#board .meta")).to_contain_text(played)  # by its poll
        expect(watcher.locator("#board .meta")).to_contain_text(played)
    expect(phone.locator("#history-rows tr")).to_have_count(12)
    shown = {page: _history_rows(page) for page in (phone, other_phone, watcher)}
    links = {page: page.locator("#history-more").inner_text() for page in shown}
    charts = {page: page.locator("#history-chart").get_attribute("src") for page in shown}
    for page in shown:
        page.reload()
        expect(page.locator("#board .meta")).to_contain_text("14 deals played")
        assert _history_rows(page) == shown[page]
        assert page.locator("#history-more").inner_text() == links[page] == "Show all 14 events"
        assert page.locator("#history-chart").get_attribute("src") == charts[page]
    assert shown[phone][0][0].startswith("14") and shown[watcher][0][0] == "14"
    assert shown[phone][-1][0].startswith("3")
    watcher.context.close()
