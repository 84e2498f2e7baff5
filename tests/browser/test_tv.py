"""The living room (issue 40) in Debian's chromium: the TV screen at 1920 x 1080,
and the scores said aloud with the browser's speech synthesis stubbed.

The live server serves no streams: every page here polls every 2 s, as a view
link does where its stream does not get through, so the view link's latency
is that poll's.
"""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CSP_LISTENER, PHONE, SCREENSHOTS
from tests.browser.test_scoring import score_deal
from tracker.models import Game

pytestmark = [pytest.mark.browser]

TEN = [
    *("Asha", "Ravi", "Meena", "Kiran", "Lakshmi"),
    *("Venkatesh", "Priya", "Arjun", "Divya", "Suresh"),
]
# A poll every 2 s, and the time it takes to answer and swap on a busy machine.
VIEW_LINK_LATENCY_MS = 5000


def tv_page(browser, live_server, language="en", init_script=None):
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 1920, "height": 1080},
        extra_http_headers={"Accept-Language": language},
    )
    context.set_default_timeout(10_000)
    context.expose_binding("__reportCspViolation", lambda source, text: errors.append(text))
    context.add_init_script(CSP_LISTENER)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    return page


@pytest.fixture
def pages(browser, live_server):
    made = []

    def page(**kwargs):
        made.append(tv_page(browser, live_server, **kwargs))
        return made[-1]

    yield page
    for page in made:
        assert page.errors == []
        page.context.close()


def test_the_tv_shows_a_deal_saved_on_a_phone_big_enough_to_read_across_the_room(phone, pages, axe):
    game = Game.create("pool", {"pool_limit": 101}, TEN)
    tv = pages()
    tv.goto(f"/w/{game.view_token}/tv/")
    phone.goto(game.get_absolute_url())
    # Deal 1 on the phone: Asha wins, Ravi a full count (80), Meena 20, the rest 2 each.
    score_deal(phone, "Asha", Ravi=80, Meena=20, **{name: 2 for name in TEN[3:]})
    cards = tv.locator(".tv-card")
    ravi = cards.filter(has=tv.locator(".tv-name", has_text="Ravi"))
    expect(ravi.locator(".tv-figure")).to_have_text("80", timeout=VIEW_LINK_LATENCY_MS)
    # Deal 2 from the phone puts Ravi out: 80 + 30 = 110 ≥ 101.
    score_deal(phone, "Meena", Asha=5, Ravi=30, **{name: 2 for name in TEN[3:]})
    expect(ravi.locator(".tv-figure")).to_have_text("110", timeout=VIEW_LINK_LATENCY_MS)
    expect(ravi).to_contain_text("Out: 80 + 30 = 110 ≥ 101")
    expect(ravi).to_contain_text("Deal 2: 30")
    meena = cards.filter(has=tv.locator(".tv-name", has_text="Meena"))
    expect(meena).to_contain_text("Deal 2: Won")
    expect(meena.locator(".tv-figure")).to_have_text("20")
    expect(cards.filter(has=tv.locator(".tv-name", has_text="Asha"))).to_contain_text("Drops left")
    # The first dealer was Asha: Meena deals the third deal.
    expect(tv.locator(".tv-line").first).to_contain_text("Meena deals")
    expect(cards).to_have_count(10)
    sizes = tv.evaluate(
        """() => {
          const size = (e) => parseFloat(getComputedStyle(e).fontSize);
          const all = (css) => [...document.querySelectorAll(css)];
          const page = document.documentElement;
          return {
            figures: all(".tv-figure").map((e) => Math.min(e.offsetHeight, size(e))),
            names: all(".tv-name").map(size),
            scrolls: page.scrollHeight > innerHeight || page.scrollWidth > innerWidth,
          };
        }"""
    )
    assert min(sizes["figures"]) >= 64, sizes
    assert min(sizes["names"]) >= 40, sizes
    assert not sizes["scrolls"]
    # Nothing on it leads to the edit link.
    assert game.edit_token not in tv.content()
    violations = axe.violations(tv)
    assert not violations, axe.report(violations)
    phone.goto(game.get_view_url())
    phone.get_by_role("link", name="Show on a TV").click()
    expect(phone).to_have_url(re.compile(f"/w/{game.view_token}/tv/$"))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tv.screenshot(path=str(SCREENSHOTS / "tv-1920x1080.png"))


SPEECH = """
window.__said = [];
(() => {
  const voices = %s.map((lang) => ({ lang, name: lang }));
  const synth = {
    getVoices: () => voices,
    speak: (u) => window.__said.push(
      { text: u.text, lang: u.lang, voice: u.voice ? u.voice.lang : null }),
    cancel: () => {},
    addEventListener: () => {},
  };
  Object.defineProperty(window, "speechSynthesis", { value: synth, configurable: true });
  window.SpeechSynthesisUtterance = class {
    constructor(text) { this.text = text; this.lang = ""; this.voice = null; }
  };
})();
"""


def speech(voices):
    return SPEECH % json.dumps(voices)


def said(page):
    return page.evaluate("window.__said")


def wait_for_a_poll(page, url_part):
    """Until the page has asked for its board once more (answered 204)."""
    with page.expect_response(lambda r: url_part in r.url and r.status == 204):
        pass


def test_a_deal_saved_on_this_phone_is_said_once_in_english(browser, live_server, phone, pages):
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"])
    scorer = pages(init_script=speech(["en-US", "hi-IN"]))
    scorer.set_viewport_size(PHONE["viewport"])
    scorer.goto(game.get_absolute_url())
    switch = scorer.get_by_role("button", name="Read scores aloud")
    expect(switch).to_have_attribute("aria-pressed", "false")
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "true")
    # Kept on this phone, and nothing is said for a page opened or reloaded.
    scorer.reload()
    expect(switch).to_have_attribute("aria-pressed", "true")
    score_deal(scorer, "Asha", Ravi=80, Meena=20)
    scorer.wait_for_function("() => window.__said.length > 0")
    wait_for_a_poll(scorer, "/live/")
    assert said(scorer) == [
        {
            "text": "Deal 1: Asha won. Asha leads with 0.",
            "lang": "en-IN",
            "voice": "en-US",
        }
    ]


def test_a_deal_saved_on_another_phone_is_said_in_hindi_on_the_view_link(phone, pages, live_server):
    game = Game.create(
        "pool",
        {"pool_limit": 101},
        ["Asha", "Ravi", "Meena"],
        history=[{"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 20}}],
    )
    watcher = pages(language="hi", init_script=speech(["en-IN", "hi-IN"]))
    watcher.goto(game.get_view_url())
    expect(watcher.locator("html")).to_have_attribute("lang", "hi")
    switch = watcher.locator("#read-aloud")
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "true")
    phone.goto(game.get_absolute_url())
    # Deal 2: Meena wins, Ravi 80 + 30 = 110 is out; he may rejoin at the highest
    # total of those still in (Meena 20, Asha 5) plus one: 21. Asha leads on 5.
    score_deal(phone, "Meena", Asha=5, Ravi=30)
    watcher.wait_for_function("() => window.__said.length > 0", timeout=VIEW_LINK_LATENCY_MS)
    wait_for_a_poll(watcher, "/live/")
    assert said(watcher) == [
        {
            "text": "डील 2: Meena जीते। Ravi 110 पर बाहर हो गए। Ravi 21 पर दोबारा शामिल हो सकते हैं। "
            "Asha 5 पर सबसे आगे हैं।",
            "lang": "hi-IN",
            "voice": "hi-IN",
        }
    ]


def test_no_tamil_voice_shows_the_notice_and_says_nothing_on_the_tv(phone, pages):
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"])
    tv = pages(language="ta", init_script=speech(["en-IN", "en-US"]))
    tv.goto(f"/w/{game.view_token}/tv/")
    expect(tv.locator("html")).to_have_attribute("lang", "ta")
    tv.locator("#read-aloud").click()
    notice = tv.locator("#no-voice")
    phone.goto(game.get_absolute_url())
    score_deal(phone, "Asha", Ravi=80, Meena=20)
    ravi = tv.locator(".tv-card").filter(has=tv.locator(".tv-name", has_text="Ravi"))
    expect(ravi.locator(".tv-figure")).to_have_text("80", timeout=VIEW_LINK_LATENCY_MS)
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(re.compile("தமிழ்"))
    assert said(tv) == []
