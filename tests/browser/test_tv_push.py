"""The TV screen on `make run`'s server (tracker/asgi.py on gunicorn's ASGI
worker, tests/servers/gunicorn.py): it follows the view link's pushed stream, so a
deal saved on a phone shows on it within the view link's latency, and it
opens the stream again by itself after the TV's Wi-Fi dropped."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_push import board_shows, db, phones, save, server, type_deal  # noqa: F401
from tests.servers.gunicorn import points_game_doc

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_tv_shows_a_pushed_deal_at_once_and_comes_back_after_the_wifi_drops(db, phones):  # noqa: F811
    game = db.import_game(points_game_doc(name="On the TV", deals=2))
    scorer, tv = phones(), phones()
    tv.page.set_viewport_size({"width": 1920, "height": 1080})
    tv.page.goto(f"/w/{game['view_token']}/tv/")
    # The stream's first event came: the TV's board waits for it, not the clock.
    board = tv.page.locator("#board")
    expect(board).to_have_attribute("hx-trigger", "revision-moved")
    shown = board_shows(tv.page, 3)
    scorer.page.goto(f"/g/{game['edit_token']}/")
    type_deal(scorer.page, "Ravi", Asha=12, Meena=30, Kiran=2)
    sent, answered = save(scorer.page)
    expect(tv.page.locator(".tv-line").first).to_contain_text("3 deals played")
    # The view link's latency (tests/browser/test_push.py): half a second.
    assert shown["at"] - answered < 0.5
    assert len(tv.polls(since=sent)) == 1 and "/tv/live/" in tv.requests[-1][2]
    # The Wi-Fi drops while a deal is saved: the TV cannot fetch it and polls;
    # once the Wi-Fi is back it shows the deal and opens the stream again by itself.
    tv.context.set_offline(True)
    expect(tv.page.locator(".offline-notice")).to_be_visible(timeout=15_000)
    type_deal(scorer.page, "Asha", Ravi=7, Meena=9, Kiran=11)
    save(scorer.page)
    expect(board).to_have_attribute("hx-trigger", "every 2s")
    tv.context.set_offline(False)
    expect(tv.page.locator(".offline-notice")).to_have_count(0, timeout=15_000)
    expect(tv.page.locator(".tv-line").first).to_contain_text("4 deals played")
    expect(board).to_have_attribute("hx-trigger", "revision-moved", timeout=15_000)
