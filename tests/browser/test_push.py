"""Pushed updates in Debian's chromium: two phones on `make run`'s server.

The server is tracker/asgi.py on gunicorn's ASGI worker with two workers, on a
database of its own (tests/servers/gunicorn.py), not pytest-django's live server
(which serves no streams: there the pages poll, as the other browser tests
show). Each phone is a Chromium context on a 360 px screen; a test fails on a
Content Security Policy violation or an uncaught error in either.
"""

import re
import tempfile
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CSP_CONSOLE, CSP_LISTENER, PHONE, PhoneLog
from tests.browser.test_offline import OFFLINE, wait_until_kept
from tests.browser.test_tv import said, speech
from tests.servers.fixtures import redis_fixture  # noqa: F401 (the fixture)
from tests.servers.gunicorn import ASGI, live_database, live_server, points_game_doc
from tests.servers.redis import (
    stopped,
)
from tests.servers.stream import save_deal

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAVE = re.compile(r"/g/[^/]+/deal/")


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    with live_database("sqlite", tmp_path_factory.mktemp("push-db")) as made:
        yield made


@pytest.fixture(scope="module")
def server(db, tmp_path_factory):
    with tempfile.TemporaryDirectory(prefix="live-", dir="/tmp") as folder:
        env = {"LIVE_DIR": folder, "REDIS_URL": ""}
        log_dir = tmp_path_factory.mktemp("push-server")
        with live_server(db, log_dir, workers=2, env=env, app=ASGI) as running:
            yield running
        assert "Traceback" not in running.log_text()


class Phone:
    """A Chromium context and its page, with what the page requested and reported."""

    def __init__(self, browser, base_url, language="en", init_script=None):
        self.log = PhoneLog()
        self.context = browser.new_context(
            base_url=base_url, extra_http_headers={"Accept-Language": language}, **PHONE
        )
        self.context.set_default_timeout(10_000)
        self.context.expose_binding(
            "__reportCspViolation", lambda source, text: self.log.csp.append(text)
        )
        self.context.add_init_script(CSP_LISTENER)
        if init_script:
            self.context.add_init_script(init_script)
        self.page = self.context.new_page()
        self.requests = []  # (time.monotonic(), method, url)
        self.page.on("request", self._requested)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.log.page_errors.append(str(error)))

    def _requested(self, request):
        self.requests.append((time.monotonic(), request.method, request.url))

    def _console(self, message):
        if CSP_CONSOLE.search(message.text):
            self.log.csp.append(message.text)

    def polls(self, since=0.0):
        """Requests for the board (`.../live/?v=N`) made after `since`."""
        return [t for t, _, url in self.requests if "/live/" in url and t >= since]

    def streams(self):
        return [url for _, _, url in self.requests if "/stream" in url]


@pytest.fixture
def phones(browser, server):
    made = []

    def phone(**kwargs):
        made.append(Phone(browser, server.url, **kwargs))
        return made[-1]

    yield phone
    problems = "\n".join(p.log.problems() for p in made if p.log.problems())
    for p in made:
        p.context.close()
    assert not problems, problems


def type_deal(page, winner, **points):
    """Tap the winner and type each other player's points, without saving."""
    form = page.locator("#deal-entry")
    form.locator("label.win", has_text=re.compile(rf"^\s*{winner}")).click()
    for name, value in points.items():
        row = form.locator(".deal-row", has=page.locator("label.win", has_text=name))
        row.locator(".points input").fill(str(value))


def save(page):
    """Tap Save; (when the save was sent, when its answer came) by this test's clock."""
    sent = time.monotonic()
    with page.expect_response(lambda r: SAVE.search(r.url) and r.request.method == "POST") as saved:
        page.locator("#deal-entry").get_by_role("button", name=re.compile("Save deal")).click()
    answered = time.monotonic()
    assert saved.value.status == 200
    return sent, answered


def board_shows(page, revision):
    """When (this test's clock) the page's board showed `revision`: told by the page itself."""
    shown = {}
    page.expose_function("__boardShown", lambda: shown.setdefault("at", time.monotonic()))
    page.evaluate(
        """(revision) => {
          const seen = () => {
            const board = document.getElementById("board");
            if (!board || board.dataset.revision !== revision) return false;
            window.__boardShown();
            return true;
          };
          if (!seen()) {
            const watch = new MutationObserver(() => { if (seen()) watch.disconnect(); });
            const all = { subtree: true, childList: true, attributes: true };
            watch.observe(document.querySelector("main"), all);
          }
        }""",
        str(revision),
    )
    return shown


def test_a_deal_saved_on_one_phone_shows_on_a_watchers_within_half_a_second_and_nobody_fetches(
    db, phones
):
    game = db.import_game(points_game_doc(name="Pushed", deals=2))
    scorer, watcher = phones(), phones()
    watcher.page.clock.install()
    watcher.page.goto(f"/w/{game['view_token']}/")
    # The stream's first event came: the board waits for the stream, not the clock.
    expect(watcher.page.locator("#board")).to_have_attribute("hx-trigger", "revision-moved")
    # Ten seconds of the page's timers, at once: a poll every 2 s would have gone out.
    watcher.page.clock.run_for(10_000)
    assert watcher.polls() == []
    shown = board_shows(watcher.page, 3)

    scorer.page.goto(f"/g/{game['edit_token']}/")
    expect(scorer.page.locator("#board")).to_have_attribute("hx-trigger", "revision-moved")
    type_deal(scorer.page, "Ravi", Asha=12, Meena=30, Kiran=2)
    _, answered = save(scorer.page)
    expect(watcher.page.locator("#board .meta")).to_contain_text("3 deals played")
    took = shown["at"] - answered
    print(f"the watcher showed deal 3 {took * 1000:.0f} ms after the scorer's save was answered")
    assert took < 0.5
    # Not one request for the board: the stream sent it (the page's clock stands still,
    # so no fetch for a board that does not come could have gone out either).
    assert watcher.polls() == []
    # Ravi won deal 3: Asha paid him 12 on top of the 2 imported deals.
    expect(watcher.page.locator("#board")).to_contain_text("Ravi")
    # The deals below it follow once the board is drawn, from the same event.
    watcher.page.clock.run_for(100)
    newest = watcher.page.locator("#history-rows tr").first
    expect(newest.locator("th")).to_have_text("3")
    expect(newest.locator("td.won")).to_contain_text("Won")
    assert watcher.polls() == []
    # The scorer's own phone fetched nothing either: its save's answer brought the board.
    assert scorer.polls() == []
    assert len(watcher.streams()) == 1 and "/w/" in watcher.streams()[0]


def test_a_watchers_copy_for_offline_follows_the_boards_the_stream_sends(db, phones):
    game = db.import_game(points_game_doc(name="Kept", deals=2))
    scorer, watcher = phones(), phones()
    watcher.page.goto(f"/w/{game['view_token']}/")
    expect(watcher.page.locator("#board")).to_have_attribute("hx-trigger", "revision-moved")
    wait_until_kept(watcher.page, "2 deals played")

    scorer.page.goto(f"/g/{game['edit_token']}/")
    type_deal(scorer.page, "Ravi", Asha=12, Meena=30, Kiran=2)
    save(scorer.page)
    expect(watcher.page.locator("#board .meta")).to_contain_text("3 deals played")
    assert watcher.polls() == []  # the board came in the stream
    # The phone keeps what it shows: offline, a reload shows deal 3, not the page
    # as it was when the phone opened it.
    wait_until_kept(watcher.page, "3 deals played")
    watcher.context.set_offline(True)
    watcher.page.reload()
    expect(watcher.page.locator(".offline-notice")).to_contain_text(OFFLINE)
    expect(watcher.page.locator("#board .meta")).to_contain_text("3 deals played")


def test_a_hindi_watchers_board_comes_in_hindi_and_is_said_aloud_in_hindi(db, phones):
    game = db.import_game(
        {
            "schema": "rummy-tracker.game/1",
            "name": "Said",
            "format": "pool",
            "rules": {"pool_limit": 101},
            "players": ["Asha", "Ravi", "Meena"],
            "first_dealer": "Asha",
            "history": [{"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 20}}],
        }
    )
    scorer = phones()
    watcher = phones(language="hi", init_script=speech(["en-IN", "hi-IN"]))
    watcher.page.clock.install()  # no timer of the page's runs: no poll, no fetch
    watcher.page.goto(f"/w/{game['view_token']}/")
    expect(watcher.page.locator("#board")).to_have_attribute("hx-trigger", "revision-moved")
    watcher.page.locator("#read-aloud").click()
    scorer.page.goto(f"/g/{game['edit_token']}/")
    # Deal 2: Meena wins, Ravi 80 + 30 = 110 is out; he may rejoin at the highest
    # total of those still in (Meena 20, Asha 5) plus one: 21. Asha leads on 5.
    type_deal(scorer.page, "Meena", Asha=5, Ravi=30)
    save(scorer.page)
    expect(watcher.page.locator("#board .meta")).to_contain_text("2 डील हुईं")
    watcher.page.wait_for_function("() => window.__said.length > 0")
    assert said(watcher.page) == [
        {
            "text": "डील 2: Meena जीते। Ravi 110 पर बाहर हो गए। Ravi 21 पर दोबारा शामिल हो सकते हैं। "
            "Asha 5 पर सबसे आगे हैं।",
            "lang": "hi-IN",
            "voice": "hi-IN",
        }
    ]
    assert watcher.polls() == []  # the board came in the stream


def test_with_its_stream_blocked_a_phone_falls_back_to_the_poll_and_still_updates(db, phones):
    game = db.import_game(points_game_doc(name="Blocked", deals=2))
    scorer, watcher = phones(), phones()
    watcher.context.route("**/stream*", lambda route: route.abort())  # a proxy in the way
    watcher.page.goto(f"/w/{game['view_token']}/")
    scorer.page.goto(f"/g/{game['edit_token']}/")
    type_deal(scorer.page, "Meena", Asha=5, Ravi=7, Kiran=9)
    sent, _ = save(scorer.page)
    expect(watcher.page.locator("#board .meta")).to_contain_text("3 deals played")
    expect(watcher.page.locator("#board")).to_have_attribute("hx-trigger", "every 2s")
    assert watcher.polls(since=sent)  # the poll brought it
    assert watcher.streams()  # the stream was tried
    # and nothing alarming was said
    expect(watcher.page.locator("#notice .notice")).to_have_count(0)


def test_a_phone_refused_a_stream_polls_and_still_updates(db, browser, tmp_path):
    # An address already holding STREAMS_PER_ADDRESS streams is answered 429: here, every one.
    game = db.import_game(points_game_doc(name="Refused", deals=2))
    with tempfile.TemporaryDirectory(prefix="live-", dir="/tmp") as folder:
        env = {"LIVE_DIR": folder, "REDIS_URL": "", "STREAMS_PER_ADDRESS": "0"}
        with live_server(db, tmp_path, workers=1, env=env, app=ASGI) as refusing:
            scorer, watcher = Phone(browser, refusing.url), Phone(browser, refusing.url)
            try:
                refused = []
                watcher.page.on(
                    "response", lambda r: refused.append(r.status) if "/stream" in r.url else None
                )
                watcher.page.goto(f"/w/{game['view_token']}/")
                scorer.page.goto(f"/g/{game['edit_token']}/")
                type_deal(scorer.page, "Kiran", Asha=6, Ravi=8, Meena=10)
                sent, _ = save(scorer.page)
                expect(watcher.page.locator("#board .meta")).to_contain_text("3 deals played")
                expect(watcher.page.locator("#board")).to_have_attribute("hx-trigger", "every 2s")
                assert watcher.polls(since=sent)  # the poll brought it
                assert refused and set(refused) == {429}
                expect(watcher.page.locator("#notice .notice")).to_have_count(0)
                problems = watcher.log.problems() or scorer.log.problems()
                assert not problems, problems
            finally:
                watcher.context.close()
                scorer.context.close()


def test_a_half_typed_deal_follows_the_other_phones_save_and_keeps_what_was_typed(db, phones):
    game = db.import_game(points_game_doc(name="In step", deals=2))
    typing, other = phones(), phones()
    typing.page.goto(f"/g/{game['edit_token']}/")
    other.page.goto(f"/g/{game['edit_token']}/")
    for phone in (typing, other):
        expect(phone.page.locator("#board")).to_have_attribute("hx-trigger", "revision-moved")
    type_deal(typing.page, "Kiran", Asha=40)
    type_deal(other.page, "Asha", Ravi=3, Meena=4, Kiran=5)
    save(other.page)
    form = typing.page.locator("#deal-entry")
    expect(form.get_by_role("heading")).to_contain_text("Enter deal 4")
    expect(form.locator(".drift")).to_be_visible()
    asha = form.locator(".deal-row", has=typing.page.locator("label.win", has_text="Asha"))
    expect(asha.locator(".points input")).to_have_value("40")
    assert typing.polls() and all("/g/" in url for _, _, url in typing.requests if "/live/" in url)
    # Saving it shows the other phone's deal first, what was typed kept to save as deal 4.
    typing.page.locator("#deal-entry").get_by_role("button", name=re.compile("Save deal")).click()
    expect(typing.page.locator("#conflict")).to_contain_text("The other phone saved: deal 3")
    expect(asha.locator(".points input")).to_have_value("40")


def test_offline_a_phone_says_so_and_comes_back_by_itself(db, phones):
    # A second scorer's phone: its board is fetched when its stream tells it of a deal
    # (a watcher's is sent in the stream's event, which the browser here keeps open).
    game = db.import_game(points_game_doc(name="Offline", deals=1))
    watcher, scorer = phones(), phones()
    watcher.page.goto(f"/g/{game['edit_token']}/")
    expect(watcher.page.locator("#board")).to_have_attribute("hx-trigger", "revision-moved")
    watcher.context.set_offline(True)
    expect(watcher.page.locator(".offline-notice")).to_be_visible(timeout=15_000)
    scorer.page.goto(f"/g/{game['edit_token']}/")
    type_deal(scorer.page, "Asha", Ravi=10, Meena=20, Kiran=30)
    save(scorer.page)
    # The board could not be fetched: the page polls again, and says it is still offline.
    expect(watcher.page.locator("#board")).to_have_attribute("hx-trigger", "every 2s")
    expect(watcher.page.locator(".offline-notice")).to_be_visible()
    watcher.context.set_offline(False)
    expect(watcher.page.locator(".offline-notice")).to_have_count(0, timeout=15_000)
    expect(watcher.page.locator("#board .meta")).to_contain_text("2 deals played")
    # Back on the stream: the board waits for it again.
    expect(watcher.page.locator("#board")).to_have_attribute(
        "hx-trigger", "revision-moved", timeout=15_000
    )


def test_while_the_servers_redis_is_down_the_page_polls_then_is_pushed_to_again(
    db, redis, browser, tmp_path
):
    redis_url, folder = redis
    env = {"REDIS_URL": redis_url, "LIVE_DIR": tempfile.mkdtemp(prefix="live-", dir="/tmp")}
    game = db.import_game(points_game_doc(name="Redis away", deals=2))
    with live_server(db, tmp_path, workers=1, env=env, app=ASGI) as server:
        watcher = Phone(browser, server.url)
        try:
            watcher.page.goto(f"/w/{game['view_token']}/")
            board = watcher.page.locator("#board")
            expect(board).to_have_attribute("hx-trigger", "revision-moved")
            with stopped(redis_url, folder):
                # The stream says the server hears nothing: the board polls, and
                # the poll brings the deal saved meanwhile.
                expect(board).to_have_attribute("hx-trigger", "every 2s")
                polling = time.monotonic()
                assert save_deal(server, game["edit_token"], 10_001) == 3
                expect(watcher.page.locator("#board .meta")).to_contain_text("3 deals played")
                assert watcher.polls(since=polling)
            # Redis back: the same stream's plain event, and the board waits for it again.
            expect(board).to_have_attribute("hx-trigger", "revision-moved")
            assert save_deal(server, game["edit_token"], 10_002) == 4
            expect(watcher.page.locator("#board .meta")).to_contain_text("4 deals played")
            assert len(watcher.streams()) == 1  # never closed: told to poll, then not
        finally:
            problems = watcher.log.problems()
            watcher.context.close()
        assert not problems, problems
        assert "Traceback" not in server.log_text()


def test_the_phone_said_offline_while_its_stream_held_and_back_online_within_2_s(db, phones):
    """A phone can say it is offline (a Wi-Fi hiccup) while its stream never
    noticed: nothing polls, nothing fails. Its word that it is online again asks
    the server at once (issue 38.5: it stayed Offline for minutes)."""
    game = db.import_game(points_game_doc(name="Hiccup", deals=1))
    scorer = phones()
    scorer.page.goto(f"/g/{game['edit_token']}/")
    board = scorer.page.locator("#board")
    expect(board).to_have_attribute("hx-trigger", "revision-moved")
    scorer.page.evaluate("window.dispatchEvent(new Event('offline'))")
    notice = scorer.page.locator(".offline-notice")
    expect(notice).to_be_visible()
    save_button = scorer.page.locator("#deal-entry").get_by_role("button", name="Save deal 2")
    expect(save_button).to_be_disabled()
    scorer.page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(notice).to_have_count(0, timeout=2000)
    expect(save_button).to_be_enabled()
    expect(board).to_have_attribute("hx-trigger", "revision-moved")
