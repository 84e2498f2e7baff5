"""Every screen in every language on a 360 px phone (issues 14 and 29).

The phone picks its language with the switch in the header (a form post, so it
works without JavaScript and under the CSP), then opens every screen. A screen
fails when it scrolls sideways, when a text is cut (wider or taller than the
box that clips it, a placeholder wider than its box, a choice wider than its
select), when a control is less than 44 px tall, when axe finds a WCAG 2.1 A
or AA problem, and, in Hindi, Tamil and Telugu, when its visible text, other
than player and game names, digits, ₹, punctuation, codes and the kept words
of the language's README, still has English words in it, or when words in
Latin letters (codes and file types counted) are more than a tenth of its
words besides names. Each screen's count of words, English words and kept
words goes to test-output/languages/english-<code>.txt.
"""

import re
from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, visit_each
from tests.languages import NAMES, english_share, english_words
from tests.test_i18n import CSV_HEAD, games_of_each_format
from tests.views.test_games import new_game, post_deal
from tests.views.test_tables import table_game
from tracker.models import Table

pytestmark = pytest.mark.browser

PLAYERS = ("Asha", "Ravi", "Meena", "Kiran")
LANGUAGES = ("en", "hi", "ta", "te")
SHARES = Path(__file__).resolve().parents[2] / "test-output" / "languages"
MOST_ENGLISH = 0.10

# What the walk taps and reads on the way, in each language (from its .po file).
SAID = {
    "en": {
        "import": "Import",
        "row": "row 8, column K",
        "save": "Save deal 2",
        "stale": "Someone else just saved deal 2.",
        "third ace": "AS appears 3 times",
        "basic": "Basic Rummy to 100",
        "refusal": "points must be 0 or between 2 and 80",
        "calculator": "Count a hand",
    },
    "hi": {
        "import": "लाएँ",
        "row": "पंक्ति 8, कॉलम K",
        "save": "डील 2 सहेजें",
        "stale": "किसी और ने अभी डील 2 सहेजी है।",
        "third ace": "AS 3 बार है",
        "basic": "बेसिक रमी, 100 तक",
        "refusal": "पॉइंट 0 या 2 से 80 के बीच होने चाहिए",
        "calculator": "पत्ते गिनें",
    },
    "ta": {
        "import": "ஏற்று",
        "row": "வரிசை 8, நெடுவரிசை K",
        "save": "டீல் 2 சேமி",
        "stale": "வேறொருவர் இப்போதுதான் டீல் 2 சேமித்தார்.",
        "third ace": "AS 3 முறை வருகிறது",
        "basic": "பேசிக் ரம்மி, 100 வரை",
        "refusal": "பாயிண்ட் 0 ஆகவோ 2 முதல் 80 வரையோ இருக்க வேண்டும்",
        "calculator": "சீட்டுகளை எண்ணு",
    },
    "te": {
        "import": "తెచ్చుకోండి",
        "row": "వరుస 8, కాలమ్ K",
        "save": "డీల్ 2 సేవ్ చేయండి",
        "stale": "ఇప్పుడే వేరే ఎవరో డీల్ 2 సేవ్ చేశారు.",
        "third ace": "AS 3 సార్లు ఉంది",
        "basic": "బేసిక్ రమ్మీ, 100 వరకు",
        "refusal": "పాయింట్లు 0 గానీ, 2 నుంచి 80 మధ్య గానీ ఉండాలి",
        "calculator": "ముక్కలు లెక్కించండి",
    },
}

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

# Text a reader cannot read whole: a box with text of its own that its text
# overflows sideways (out of a button, a cell, a chip), or that clips it
# below; a placeholder wider than its input; a select's choice wider than the
# select. A box that scrolls (the history's players) is meant to; a box of
# 1 px (a label only a screen reader reads) is not on screen.
CUT_TEXT = """() => {
  const cut = [];
  const shown = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  const canvas = document.createElement("canvas").getContext("2d");
  const width = (text, style) => {
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return canvas.measureText(text).width;
  };
  const inside = (el, style) =>
    el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const name = (el) => `<${el.tagName.toLowerCase()} class="${el.className}">`;
  const say = (text, need, room) =>
    `${JSON.stringify(text)}: ${Math.ceil(need)} px in ${Math.floor(room)}`;
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("script, style, template, svg") || !shown(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue;
    const style = getComputedStyle(el);
    const text = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent).join(" ").replace(/\\s+/g, " ").trim();
    if (el.tagName === "INPUT" && el.placeholder && !el.value) {
      const room = inside(el, style);
      const need = width(el.placeholder, getComputedStyle(el, "::placeholder"));
      if (need > room + 1) cut.push(`placeholder ${say(el.placeholder, need, room)}`);
    } else if (el.tagName === "SELECT" && el.selectedOptions.length) {
      const choice = el.selectedOptions[0].textContent.trim();
      const room = inside(el, style) - 20;  // the arrow
      const need = width(choice, style);
      if (need > room + 1) cut.push(`select ${say(choice, need, room)}`);
    }
    if (!text || style.display === "inline") continue;
    const scrolls = (overflow) => overflow === "auto" || overflow === "scroll";
    const clips = !scrolls(style.overflowY) && style.overflowY !== "visible";
    if (!scrolls(style.overflowX) && el.scrollWidth > el.clientWidth + 1)
      cut.push(`${name(el)} ${say(text, el.scrollWidth, el.clientWidth)} wide`);
    if (clips && el.scrollHeight > el.clientHeight + 1)
      cut.push(`${name(el)} ${say(text, el.scrollHeight, el.clientHeight)} tall`);
  }
  return cut;
}"""

# Every control a thumb taps, less than 44 px tall. Links inside a sentence
# are not controls; a checkbox or radio is tapped through its label.
CONTROLS = (
    "button, .button, summary, select, a.brand, .change, label.chip, label.win, "
    "input:not([type=hidden]):not([type=checkbox]):not([type=radio])"
)
SMALL_CONTROLS = f"""() => {{
  const small = [];
  for (const el of document.body.querySelectorAll({CONTROLS!r})) {{
    if (!el.checkVisibility({{ checkOpacity: true, checkVisibilityCSS: true }})) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue;
    const said = (el.textContent || el.name || "").trim().slice(0, 40);
    const tall = box.height.toFixed(1);
    if (box.height < 43.5) small.push(`${{el.tagName}} "${{said}}": ${{tall}} px tall`);
  }}
  return small;
}}"""


def screens():
    """(label, url) of every screen, over games of each format; and the names on them."""
    client = Client()
    games = games_of_each_format(client)
    pool = games["pool"]
    three = new_game(client, players=("Asha", "Ravi", "Meena"))
    post_deal(client, three, "Ravi", Asha=40, Meena="middle_drop")
    table = Table.start("Nani", ["Asha", "Ravi", "Meena"])
    # The table's list names each game's format: a basic game among them.
    table_basic = table_game(client, table, ["Asha", "Ravi", "Meena"], fmt="basic-100")
    table_pool = table_game(client, table, ["Asha", "Ravi", "Meena"], entry_fee="50")
    post_deal(client, table_pool, "Ravi", Asha=80, Meena=80)
    post_deal(client, table_pool, "Ravi", Asha=80, Meena=80)  # Asha, Meena out: ₹ stats
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
        ("watch-table", table.get_view_url()),
        ("table-new-game", f"/t/{table.edit_token}/new/"),
        ("new-table", "/tables/new/"),
        ("import", "/import/"),
        ("offline", "/offline/"),
    ]
    # Names, and what the phone typed itself: the unknown card "ZZ".
    names = [*PLAYERS, "Nani", "ZZ", *(g.name for g in [*games.values(), three, table_basic])]
    return urls, names, pool


def choose(phone, language):
    """Pick `language` with the header's switch, from another language."""
    start = "ta" if language == "en" else "en"
    phone.context.set_extra_http_headers({"Accept-Language": start})
    phone.goto("/")
    expect(phone.locator("html")).to_have_attribute("lang", start)
    phone.get_by_role("button", name=NAMES[language], exact=True).click()
    expect(phone.locator("html")).to_have_attribute("lang", language)


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_screen_at_360_px(phone, screenshot, axe, language):
    urls, names, pool = screens()
    said = SAID[language]
    choose(phone, language)
    problems = []
    shares = []

    def check(label, url):
        expect(phone.locator("html")).to_have_attribute("lang", language)
        where = f"{label} ({url})"
        texts = phone.evaluate(VISIBLE_TEXT)
        if language != "en":
            for text in texts:
                words = english_words(text, names)
                if words:
                    problems.append(f"{where}: {text!r} has English: {' '.join(words)}")
            english, kept, total = english_share(texts, language, names)
            shares.append(f"{label}\t{total}\t{english}\t{english / total:.1%}\t{kept}")
            if english > MOST_ENGLISH * total:
                problems.append(f"{where}: {english} of {total} words are English")
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        if width > 360:
            problems.append(f"{where}: scrolls sideways, {width} px wide")
        problems.extend(f"{where}: cut: {cut}" for cut in phone.evaluate(CUT_TEXT))
        if label.startswith("game-") or label == "stale-deal":
            # Four players' deals fit across without the history's sideways scroll.
            history = phone.locator("#history .table-scroll")
            wide = history.evaluate("(box) => box.scrollWidth - box.clientWidth")
            if wide > 1:
                problems.append(f"{where}: the history of 4 players is {wide} px too wide")
        problems.extend(f"{where}: {small}" for small in phone.evaluate(SMALL_CONTROLS))
        problems.extend(f"{where}: {report}" for report in axe.reports(phone))
        screenshot(phone, f"-{label}")

    visit_each(phone, urls, check)
    expect_on = {"calculator-third-ace": said["third ace"], "table": said["basic"]}
    for label, url in urls:
        if label in expect_on:
            phone.goto(url)
            expect(phone.locator("main")).to_contain_text(expect_on[label])
    # A CSV with a bad row, uploaded: the refusal names the row and column.
    phone.goto("/import/")
    phone.locator("#file").set_input_files(
        {
            "name": "game.csv",
            "mimeType": "text/csv",
            "buffer": (CSV_HEAD + "deal,1,Asha,Asha,,,30,first_drop,80,,9\r\n").encode(),
        }
    )
    phone.get_by_role("button", name=said["import"], exact=True).click()
    expect(phone.get_by_role("alert")).to_contain_text(said["row"])
    check("import-bad-row", "/import/")
    # A deal typed while another phone saved one: the notice says which.
    # (This phone's poll is answered "nothing new", so the form stays the one
    # typed against deal 2 whenever the other phone's save lands.)
    phone.route(re.compile(r".*/live/.*"), lambda route: route.fulfill(status=204))
    phone.goto(pool.get_absolute_url())
    post_deal(Client(), pool, "Ravi", Asha=2, Meena=2, Kiran=2)
    form = phone.locator("#deal-entry form")
    form.locator("label.win").filter(has_text="Asha").click()
    seat = {p.name: p.seat for p in pool.players.all()}
    for name in ("Ravi", "Meena", "Kiran"):
        phone.locator(f'input[name="p{seat[name]}"]').fill("2")
    form.get_by_role("button", name=said["save"]).click()
    expect(phone.get_by_text(said["stale"])).to_be_visible()
    check("stale-deal", pool.get_absolute_url())
    if shares:
        SHARES.mkdir(parents=True, exist_ok=True)
        head = "screen\twords\tEnglish\tshare\tkept words\n"
        (SHARES / f"english-{language}.txt").write_text(head + "\n".join(shares) + "\n")
    assert not problems, "\n".join(problems)
    # The game screen, for the issue.
    phone.goto(pool.get_absolute_url())
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SCREENSHOTS / f"game-{language}.png"), full_page=True)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refusal_on_the_deal_form(phone, language):
    said = SAID[language]
    client = Client()
    game = new_game(client, players=PLAYERS)
    phone.context.set_extra_http_headers({"Accept-Language": language})
    phone.goto(game.get_absolute_url())
    expect(phone.locator("html")).to_have_attribute("lang", language)
    form = phone.locator("#deal-entry form")
    form.locator("label.win").filter(has_text="Asha").click()
    seat = {p.name: p.seat for p in game.players.all()}
    phone.locator(f'input[name="p{seat["Ravi"]}"]').fill("90")
    phone.locator(f'input[name="p{seat["Meena"]}"]').fill("2")
    phone.locator(f'input[name="p{seat["Kiran"]}"]').fill("2")
    form.get_by_role("button", name=said["save"].replace("2", "1")).click()
    expect(phone.get_by_role("alert").filter(has_text="Ravi")).to_contain_text(said["refusal"])
    assert game.events.count() == 0


def test_the_switch_works_without_javascript(browser, live_server, transactional_db):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/calculator/")
    for language in ("hi", "ta", "te", "en"):
        page.get_by_role("button", name=NAMES[language], exact=True).click()
        expect(page.locator("html")).to_have_attribute("lang", language)
        assert page.url.endswith("/calculator/")
        heading = page.get_by_role("heading", level=1)
        expect(heading).to_have_text(SAID[language]["calculator"])
    context.close()
