"""Installable and readable offline, in Debian's chromium on a 360 px phone.

The service worker keeps the last copy of each game page this phone opened
and shows it only without a network, with the time of that copy; nothing can
be changed offline, and back online the page catches up by itself.
"""

import re
import shutil
import time
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, SCREENSHOTS
from tests.browser.test_scoring import score_deal, start_game

pytestmark = [pytest.mark.browser]

OFFLINE = re.compile(r"Offline: scores as of (\d\d:\d\d)\.")


def browser_clock(page):
    """The phone's local time, as a datetime (the notice shows local HH:MM)."""
    parts = page.evaluate(
        "() => { const d = new Date(); return [d.getFullYear(), d.getMonth() + 1, d.getDate(),"
        " d.getHours(), d.getMinutes()]; }"
    )
    return datetime(*parts)


def minutes_between(start, end):
    shown, moment = set(), start
    while moment <= end:
        shown.add(moment.strftime("%H:%M"))
        moment += timedelta(minutes=1)
    return shown


KEPT_COPY = """async () => {
  await navigator.serviceWorker.ready;
  const kept = await (await caches.open("pages-1")).match(location.origin + location.pathname);
  return kept ? await kept.text() : "";
}"""


def wait_until_kept(page, showing, seconds=5):
    """Until the service worker has kept a copy of the page that shows `showing`."""
    deadline = time.monotonic() + seconds
    while showing not in page.evaluate(KEPT_COPY):
        assert time.monotonic() < deadline, f"no copy kept showing {showing!r}"
        page.wait_for_timeout(100)


def test_manifest_and_worker_pass_chromiums_installability_checks(
    browser, live_server, transactional_db, tmp_path
):
    # Chromium offers no install in a private window, which every context of
    # the shared browser is: this test uses a profile of its own.
    from tests.browser.conftest import CHROMIUM_ARGS

    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=shutil.which("chromium"),
        args=CHROMIUM_ARGS,
        headless=True,
        base_url=live_server.url,
        **PHONE,
    )
    try:
        phone = context.pages[0] if context.pages else context.new_page()
        check_installable(phone)
    finally:
        context.close()


def check_installable(phone):
    phone.goto("/")
    assert phone.evaluate("async () => !!(await navigator.serviceWorker.ready).active")
    cdp = phone.context.new_cdp_session(phone)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    assert manifest["url"].endswith(".webmanifest")
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == [], errors
    # The worker is served from the root, as JavaScript, for the whole site.
    response = phone.request.get("/sw.js")
    assert response.ok
    assert response.headers["content-type"].startswith("application/javascript")
    assert response.headers["service-worker-allowed"] == "/"
    # The icons are real PNGs of the sizes the manifest names.
    for size in (192, 512):
        for name in (f"icon-{size}.png", f"icon-maskable-{size}.png"):
            icon = phone.request.get(f"/static/{name}")
            assert icon.ok and icon.body()[:8] == b"\x89PNG\r\n\x1a\n", name
            width = int.from_bytes(icon.body()[16:20], "big")
            height = int.from_bytes(icon.body()[20:24], "big")
            assert (width, height) == (size, size), name


def test_offline_game_shows_its_last_board_and_catches_up_back_online(
    phone, browser, live_server, axe
):
    page = phone
    start = browser_clock(page)
    game = start_game(page, "Pool 101", ["Asha", "Ravi", "Meena"], entry_fee="50")
    score_deal(page, "Asha", Ravi=30, Meena="First drop")
    wait_until_kept(page, "1 deal played")
    kept_by = browser_clock(page)
    # Only pages and static files are kept: never the answer to a POST (the deal
    # saved), the live poll or a fragment.
    kept = page.evaluate(
        """async () => { const out = [];
          for (const name of await caches.keys())
            for (const request of await (await caches.open(name)).keys())
              out.push(new URL(request.url).pathname);
          return out; }"""
    )
    pages = [path for path in kept if not path.startswith("/static/")]
    assert sorted(pages) == sorted([game.get_absolute_url(), "/offline/"]), kept

    page.context.set_offline(True)
    page.reload()
    notice = page.locator(".offline-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Nothing can be saved")
    shown = OFFLINE.search(notice.inner_text()).group(1)
    assert shown in minutes_between(start, kept_by), (shown, start, kept_by)
    # The last board: deal 1 with Ravi on 30, Meena on 20, the pot of 150.
    board = page.locator("#board")
    expect(board.locator(".meta")).to_contain_text("1 deal played")
    expect(board.locator(".meta")).to_contain_text("pot ₹150.00")
    expect(board.locator("tr", has_text="Ravi").locator("td").first).to_have_text("30")
    expect(board.locator("tr", has_text="Meena").locator("td").first).to_have_text("20")
    # The deal form is off, and says why; so is every change.
    form = page.locator("#deal-entry")
    expect(form.locator(".offline-reason")).to_contain_text("deals cannot be saved now")
    expect(form.get_by_role("button", name=re.compile("Save deal 2"))).to_be_disabled()
    for box in form.locator(".points input").all():
        expect(box).to_be_disabled()
    edit = page.locator("#history a.change").first  # "1 ✎", the edit of deal 1
    expect(edit).to_have_attribute("aria-disabled", "true")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "offline.png"), full_page=True)
    violations = axe.violations(page)
    assert not violations, axe.report(violations)

    # Another phone at the table saves deal 2 through the server meanwhile.
    other = browser.new_context(base_url=live_server.url, **PHONE)
    try:
        other_page = other.new_page()
        other_page.goto(game.get_absolute_url())
        score_deal(other_page, "Meena", Asha=12, Ravi=40)
    finally:
        other.close()
    assert game.state().deals_played == 2

    # Back online: within 3 s the page shows deal 2, the notice gone, the form back.
    page.context.set_offline(False)
    expect(board.locator(".meta")).to_contain_text("2 deals played", timeout=3000)
    expect(page.locator("#board tr", has_text="Ravi").locator("td").first).to_have_text("70")
    expect(page.locator(".offline-notice")).to_have_count(0)
    save = page.locator("#deal-entry").get_by_role("button", name=re.compile("Save deal 3"))
    expect(save).to_be_enabled()


def test_a_page_that_loses_the_network_says_so_and_recovers(phone):
    page = phone
    start_game(page, "Deals, best of 2", ["Asha", "Ravi"])
    page.context.set_offline(True)
    # The next live poll (every 2 s) fails: the notice and the form off.
    expect(page.locator(".offline-notice")).to_be_visible(timeout=5000)
    save = page.locator("#deal-entry").get_by_role("button", name=re.compile("Save deal 1"))
    expect(save).to_be_disabled()
    page.context.set_offline(False)
    expect(page.locator(".offline-notice")).to_have_count(0, timeout=5000)
    expect(save).to_be_enabled()


def test_a_view_link_is_readable_offline_too(phone):
    page = phone
    game = start_game(page, "Pool 101", ["Asha", "Ravi"])
    score_deal(page, "Ravi", Asha=25)
    page.goto(game.get_view_url())
    wait_until_kept(page, "1 deal played")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator(".offline-notice")).to_contain_text(OFFLINE)
    expect(page.locator("#board tr", has_text="Asha").locator("td").first).to_have_text("25")
    expect(page.locator("main form")).to_have_count(0)  # only the header's language switch
    # A page this phone never opened: the offline page, not the browser's error.
    response = page.goto("/calculator/")
    assert response is not None and response.from_service_worker
    expect(page.get_by_role("heading", name="No network")).to_be_visible()
