"""Dark, for late games (issue 40, part 3).

A phone set to dark gets a black page, every text and state colour readable on
it (axe's WCAG 2.1 A and AA checks, colour contrast among them), on every
screen and in every language. The switch at the foot of each page (light, dark,
as the phone) applies at once, is kept on the phone, and works without
JavaScript: there the form posts, and the page follows the phone until it does.
"""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, visit_each
from tests.browser.test_languages import SAID, choose, screens
from tests.test_i18n import CSV_HEAD
from tests.views.test_games import new_game, post_deal

pytestmark = pytest.mark.browser

BLACK = "rgb(0, 0, 0)"
WHITE = "rgb(255, 255, 255)"
THEME_COLOUR = {"light": "#0b6e4f", "dark": "#000000"}
SWITCH = {
    "en": ("Light", "Dark", "As the phone"),
    "hi": ("लाइट", "डार्क", "फ़ोन जैसा"),
}
PAGE_GROUND = "() => getComputedStyle(document.body).backgroundColor"
# The browser's bar: the theme-color that applies now.
BAR_COLOUR = """() => [...document.querySelectorAll('meta[name="theme-color"]')]
  .filter((meta) => !meta.media || matchMedia(meta.media).matches)
  .map((meta) => meta.content)"""


def ground(page):
    return page.evaluate(PAGE_GROUND)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "hi", "ta", "te"])
def test_every_screen_in_dark_is_black_and_readable(phone, axe, screenshot, language):
    urls, _names, pool = screens()
    phone.emulate_media(color_scheme="dark")
    choose(phone, language)
    problems = []

    def check(label, url):
        where = f"{label} ({url})"
        if ground(phone) != BLACK:
            problems.append(f"{where}: the page is {ground(phone)}, not black")
        if phone.evaluate(BAR_COLOUR) != [THEME_COLOUR["dark"]]:
            problems.append(f"{where}: the browser's bar is {phone.evaluate(BAR_COLOUR)}")
        problems.extend(f"{where}: {report}" for report in axe.reports(phone))
        screenshot(phone, f"-{label}")

    visit_each(phone, urls, check)
    # The refusals' colours: a CSV's bad row, and a deal's box refused beside a drop chosen.
    phone.goto("/import/")
    phone.locator("#file").set_input_files(
        {
            "name": "game.csv",
            "mimeType": "text/csv",
            "buffer": (CSV_HEAD + "deal,1,Asha,Asha,,,30,first_drop,80,,9\r\n").encode(),
        }
    )
    phone.get_by_role("button", name=SAID[language]["import"], exact=True).click()
    expect(phone.get_by_role("alert")).to_contain_text(SAID[language]["row"])
    check("import-bad-row", "/import/")
    phone.goto(pool.get_absolute_url())
    form = phone.locator("#deal-entry form")
    form.locator("label.win").filter(has_text="Ravi").click()
    seat = {p.name: p.seat for p in pool.players.all()}
    phone.locator(f'input[name="p{seat["Asha"]}"]').fill("90")
    phone.locator(f'input[name="p{seat["Meena"]}"]').fill("2")
    phone.locator(f'input[name="p{seat["Kiran"]}"]').fill("2")
    form.get_by_role("button", name=SAID[language]["save"]).click()
    expect(phone.get_by_role("alert").filter(has_text="Asha")).to_contain_text(
        SAID[language]["refusal"]
    )
    check("refused-deal", pool.get_absolute_url())
    assert not problems, "\n".join(problems)


def test_the_switch_applies_at_once_and_is_kept_on_the_phone(phone):
    game = new_game(Client(), players=("Asha", "Ravi", "Meena"))
    post_deal(Client(), game, "Asha", Ravi=30, Meena=80)
    phone.emulate_media(color_scheme="light")
    phone.goto(game.get_absolute_url())
    light, dark, as_phone = (
        phone.get_by_role("button", name=word, exact=True) for word in SWITCH["en"]
    )
    expect(as_phone).to_have_attribute("aria-pressed", "true")
    assert ground(phone) == WHITE
    phone.evaluate("() => { window.samePage = true; }")
    dark.click()
    expect(phone.locator("html")).to_have_attribute("data-theme", "dark")
    assert ground(phone) == BLACK
    assert phone.evaluate(BAR_COLOUR) == [THEME_COLOUR["dark"]]
    expect(dark).to_have_attribute("aria-pressed", "true")
    expect(as_phone).to_have_attribute("aria-pressed", "false")
    # The installed app's splash: the manifest linked now is the dark one.
    manifest = phone.locator('link[rel="manifest"]').get_attribute("href")
    assert phone.request.get(manifest).json()["background_color"] == "#000000"
    assert phone.evaluate("() => window.samePage"), "the page was loaded again"
    # Another page, and the same page again: served dark from its first frame.
    response = phone.goto("/calculator/")
    assert 'data-theme="dark"' in response.text()
    assert ground(phone) == BLACK
    phone.reload()
    assert ground(phone) == BLACK
    # Light on a phone set to dark.
    phone.emulate_media(color_scheme="dark")
    light.click()
    expect(phone.locator("html")).to_have_attribute("data-theme", "light")
    assert ground(phone) == WHITE
    assert phone.evaluate(BAR_COLOUR) == [THEME_COLOUR["light"]]
    # As the phone: follows it, and its changes, at once.
    as_phone.click()
    expect(phone.locator("html")).not_to_have_attribute("data-theme", re.compile("."))
    assert ground(phone) == BLACK
    assert phone.evaluate(BAR_COLOUR) == [THEME_COLOUR["dark"]]
    phone.emulate_media(color_scheme="light")
    assert ground(phone) == WHITE
    assert phone.evaluate(BAR_COLOUR) == [THEME_COLOUR["light"]]
    response = phone.goto(game.get_view_url())
    assert "data-theme" not in response.text().split("<head>")[0]


def test_the_switch_without_javascript(browser, live_server, transactional_db):
    context = browser.new_context(
        base_url=live_server.url, java_script_enabled=False, color_scheme="dark", **PHONE
    )
    page = context.new_page()
    page.set_extra_http_headers({"Accept-Language": "hi"})
    page.goto("/calculator/")
    light, _dark, as_phone = (
        page.get_by_role("button", name=word, exact=True) for word in SWITCH["hi"]
    )
    # As the phone until chosen: the phone is dark.
    assert ground(page) == BLACK
    expect(as_phone).to_have_attribute("aria-pressed", "true")
    light.click()
    assert page.url.endswith("/calculator/")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert ground(page) == WHITE
    expect(light).to_have_attribute("aria-pressed", "true")
    page.goto("/offline/")
    assert ground(page) == WHITE
    as_phone.click()
    assert page.url.endswith("/offline/")
    assert ground(page) == BLACK
    context.close()


# A chart as shown now: the address the <img> loaded, once drawn, and the colour
# of its top-left pixel, drawn to a canvas (its ground: the chart's own rectangle).
CHART_SHOWN = """() => {
  const img = document.querySelector("#history-chart");
  if (!img.complete || !img.naturalWidth) return null;
  const canvas = document.createElement("canvas");
  canvas.width = 360;
  canvas.height = 260;
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0, 360, 260);
  const [r, g, b] = context.getImageData(2, 2, 1, 1).data;
  return [new URL(img.currentSrc).searchParams.get("theme"), `rgb(${r}, ${g}, ${b})`];
}"""


def chart_shown(page, theme):
    """Wait until the game's chart is drawn from its `theme` address; its ground's colour."""
    page.wait_for_function(f"(theme) => ({CHART_SHOWN})()?.[0] === theme", arg=theme)
    return page.evaluate(CHART_SHOWN)[1]


def test_a_game_s_chart_is_drawn_dark_in_dark_and_follows_the_switch(phone):
    game = new_game(Client(), players=("Asha", "Ravi", "Meena"))
    post_deal(Client(), game, "Asha", Ravi=30, Meena=80)
    # As the phone, on a phone set to dark.
    phone.emulate_media(color_scheme="dark")
    phone.goto(game.get_view_url())
    phone.locator("details.chart > summary").click()
    assert chart_shown(phone, "dark") == BLACK
    phone.evaluate("() => { window.samePage = true; }")
    light, dark, as_phone = (
        phone.get_by_role("button", name=word, exact=True) for word in SWITCH["en"]
    )
    light.click()
    assert chart_shown(phone, "light") == WHITE
    dark.click()
    assert chart_shown(phone, "dark") == BLACK
    as_phone.click()
    assert chart_shown(phone, "dark") == BLACK
    phone.emulate_media(color_scheme="light")
    assert chart_shown(phone, "light") == WHITE
    assert phone.evaluate("() => window.samePage"), "the page was loaded again"
    # Chosen dark, served dark: a deal saved meanwhile brings a new chart, still dark.
    dark.click()
    phone.reload()
    phone.locator("details.chart > summary").click()
    assert chart_shown(phone, "dark") == BLACK
    post_deal(Client(), game, "Ravi", Asha=2, Meena=40)
    game.refresh_from_db()
    expect(phone.locator("#history-chart")).to_have_attribute(
        "src", re.compile(rf"\?v={game.revision}&theme=dark$")
    )
    if not phone.locator("details.chart").evaluate("(details) => details.open"):
        phone.locator("details.chart > summary").click()  # the history came anew, closed
    assert chart_shown(phone, "dark") == BLACK
