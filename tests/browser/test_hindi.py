"""Every screen in Hindi on a 360 px phone (issue 14, part 1).

The phone picks हिंदी with the switch in the header (a form post, so it works
without JavaScript and under the CSP), then opens every screen. A screen fails
when it scrolls sideways or when its visible text, other than player and game
names, digits, ₹ and punctuation, still has English words in it.
"""

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS
from tests.hindi import english_words
from tracker.models import Table

from ..test_i18n import CSV_HEAD
from ..test_tables import table_game
from ..test_views import new_game, post_deal

pytestmark = pytest.mark.browser

PLAYERS = ("Asha", "Ravi", "Meena", "Kiran")

# Each visible text node, and the spoken labels of visible elements.
VISIBLE_TEXT = """() => {
  const seen = [];
  const shown = (el) => el && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !shown(el) || el.closest("script, style, template")) continue;
    seen.push(text);
  }
  for (const el of document.body.querySelectorAll("[aria-label], [alt], [placeholder], [title]")) {
    if (!shown(el)) continue;
    for (const key of ["aria-label", "alt", "placeholder", "title"]) {
      const value = el.getAttribute(key);
      if (value) seen.push(value);
    }
  }
  seen.push(document.title);
  return seen;
}"""


def screens():
    """(label, url) of every screen, over games of each format; and the names on them."""
    client = Client()
    pool = new_game(client, players=PLAYERS)
    post_deal(client, pool, "Asha", Ravi=30, Meena="first_drop", Kiran=80)
    three = new_game(client, players=("Asha", "Ravi", "Meena"))
    post_deal(client, three, "Ravi", Asha=40, Meena="middle_drop")
    deals = new_game(client, fmt="deals-2", players=PLAYERS)
    post_deal(client, deals, "Ravi", Asha=20, Meena="middle_drop", Kiran=5)
    points = new_game(client, fmt="points", players=PLAYERS, point_value="0.5")
    post_deal(client, points, "Meena", Asha=12, Ravi="full_count", Kiran=3)
    basic = new_game(client, fmt="basic-100", players=PLAYERS)
    post_deal(client, basic, "Kiran", Asha=12, Ravi=4, Meena=30)
    table = Table.start("Nani", ["Asha", "Ravi", "Meena"])
    # The table's list names each game's format: a basic game among them.
    table_basic = table_game(client, table, ["Asha", "Ravi", "Meena"], fmt="basic-100")
    table_pool = table_game(client, table, ["Asha", "Ravi", "Meena"], entry_fee="50")
    post_deal(client, table_pool, "Ravi", Asha=80, Meena=80)
    post_deal(client, table_pool, "Ravi", Asha=80, Meena=80)  # Asha, Meena out: ₹ stats
    games = {"pool": pool, "deals": deals, "points": points, "basic": basic}
    urls = [
        ("home", "/"),
        ("new-game", "/new/"),
        *((f"game-{fmt}", g.get_absolute_url()) for fmt, g in games.items()),
        ("watch", pool.get_view_url()),
        ("edit", f"/g/{pool.edit_token}/event/{pool.events.first().serial}/"),
        ("split", f"/g/{three.edit_token}/split/"),
        ("calculator", "/calculator/"),
        ("calculator-third-ace", "/calculator/?cards=AS+AS&add=AS"),
        ("calculator-unknown-card", "/calculator/?add=ZZ"),
        ("count-cards", f"/g/{pool.edit_token}/count/1/"),
        ("table", table.get_absolute_url()),
        ("table-new-game", f"/t/{table.edit_token}/new/"),
        ("new-table", "/tables/new/"),
        ("import", "/import/"),
    ]
    # Names, and what the phone typed itself: the unknown card "ZZ".
    names = [*PLAYERS, "Nani", "ZZ", *(g.name for g in [*games.values(), three, table_basic])]
    return urls, names, pool


@pytest.mark.slow
def test_every_screen_in_hindi_at_360_px(phone, screenshot):
    urls, names, pool = screens()
    phone.goto("/")
    expect(phone.locator("html")).to_have_attribute("lang", "en")
    phone.get_by_role("button", name="हिंदी").click()
    expect(phone.locator("html")).to_have_attribute("lang", "hi")
    problems = []

    def check(label, url):
        expect(phone.locator("html")).to_have_attribute("lang", "hi")
        for text in phone.evaluate(VISIBLE_TEXT):
            words = english_words(text, names)
            if words:
                problems.append(f"{label} ({url}): {text!r} has English: {' '.join(words)}")
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        if width > 360:
            problems.append(f"{label} ({url}): scrolls sideways, {width} px wide")
        screenshot(phone, f"-{label}")

    for label, url in urls:
        response = phone.goto(url)
        assert response is not None and response.ok, (url, response and response.status)
        check(label, url)
    expect_on = {
        "calculator-third-ace": "AS 3 बार है",
        "table": "बेसिक रमी, 100 तक",
    }
    for label, url in urls:
        if label in expect_on:
            phone.goto(url)
            expect(phone.locator("main")).to_contain_text(expect_on[label])
    # A CSV with a bad row, uploaded: the refusal names the row and column in Hindi.
    phone.goto("/import/")
    phone.locator("#file").set_input_files(
        {
            "name": "game.csv",
            "mimeType": "text/csv",
            "buffer": (CSV_HEAD + "deal,1,Asha,Asha,,,30,first_drop,80,,9\r\n").encode(),
        }
    )
    phone.get_by_role("button", name="लाएँ").click()
    expect(phone.get_by_role("alert")).to_contain_text("पंक्ति 8, कॉलम K")
    check("import-bad-row", "/import/")
    # A deal typed while another phone saved one: the notice says which, in Hindi.
    phone.goto(pool.get_absolute_url())
    post_deal(Client(), pool, "Ravi", Asha=2, Meena=2, Kiran=2)
    form = phone.locator("#deal-entry form")
    form.locator("label.win").filter(has_text="Asha").click()
    seat = {p.name: p.seat for p in pool.players.all()}
    for name in ("Ravi", "Meena", "Kiran"):
        phone.locator(f'input[name="p{seat[name]}"]').fill("2")
    form.get_by_role("button", name="डील 2 सहेजें").click()
    expect(phone.get_by_text("किसी और ने अभी डील 2 सहेजी है।")).to_be_visible()
    check("stale-deal", pool.get_absolute_url())
    assert not problems, "\n".join(problems)
    # The Hindi game screen, for the issue.
    phone.goto(pool.get_absolute_url())
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SCREENSHOTS / "game-hi.png"), full_page=True)


def test_a_refusal_on_the_deal_form_in_hindi(phone):
    client = Client()
    game = new_game(client, players=PLAYERS)
    phone.context.set_extra_http_headers({"Accept-Language": "hi"})
    phone.goto(game.get_absolute_url())
    expect(phone.locator("html")).to_have_attribute("lang", "hi")
    form = phone.locator("#deal-entry form")
    form.locator("label.win").filter(has_text="Asha").click()
    seat = {p.name: p.seat for p in game.players.all()}
    phone.locator(f'input[name="p{seat["Ravi"]}"]').fill("90")
    phone.locator(f'input[name="p{seat["Meena"]}"]').fill("2")
    phone.locator(f'input[name="p{seat["Kiran"]}"]').fill("2")
    form.get_by_role("button", name="डील 1 सहेजें").click()
    expect(phone.get_by_role("alert").filter(has_text="Ravi")).to_contain_text(
        "पॉइंट 0 या 2 से 80 के बीच होने चाहिए"
    )
    assert game.events.count() == 0


def test_the_switch_works_without_javascript(browser, live_server, transactional_db):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/calculator/")
    page.get_by_role("button", name="हिंदी").click()
    expect(page.locator("html")).to_have_attribute("lang", "hi")
    assert page.url.endswith("/calculator/")
    expect(page.get_by_role("heading", level=1)).to_have_text("पत्ते गिनें")
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    context.close()
