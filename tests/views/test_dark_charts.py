"""The charts in the dark theme (issue 40, part 3): an SVG image cannot read the
page's colours, so the page asks for its theme's chart and the chart views draw
it on black, every player's colour (their lines, bars and legend names) at
WCAG AA or better on it. The switch without a reload: tests/browser/test_dark.py."""

import html
import re
import xml.etree.ElementTree as ET

import pytest
from django.conf import settings
from django.test import Client

from tests.views.test_games import new_game, post_deal
from tests.views.test_table_money import finish
from tests.views.test_tables import make_table, table_game

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"
TEN = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata", "Arun", "Uma", "Gita", "Hari"]


def luminance(colour):
    """WCAG 2.1's relative luminance of "#RRGGBB"."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def drawn(client, url):
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    return ET.fromstring(response.content)


def ground(root):
    """The colour of the rectangle the whole chart is drawn on."""
    whole = [
        rect
        for rect in root.iter(f"{SVG}rect")
        if rect.get("width") == root.get("viewBox").split()[2] and rect.get("x", "0") == "0"
    ]
    return whole[0].get("fill").lower()


def players_colours(root, attribute):
    """Each player's (or member's) colours: their lines' strokes, bars' fills, legend names'."""
    found = {}
    for element in root.iter():
        name = element.get(attribute)
        if name:
            for look in ("stroke", "fill"):
                if element.get(look) not in (None, "none"):
                    found.setdefault(name, set()).add(element.get(look).lower())
        if element.get("class") == "key":  # the legend's name, in the player's colour
            for text in element.iter(f"{SVG}text"):
                found.setdefault(element.get(attribute), set()).add(text.get("fill").lower())
    return found


def texts_colours(root):
    """The colour of every text: its own fill, else the whole chart's."""
    return {(text.get("fill") or root.get("fill")).lower() for text in root.iter(f"{SVG}text")}


def assert_dark(root, attribute, names):
    paper = ground(root)
    assert paper == "#000000"
    colours = players_colours(root, attribute)
    assert sorted(colours) == sorted(names)
    every = set().union(*colours.values())
    assert len(every) == len(names)  # one colour each, ten apart
    for name, own in colours.items():
        for colour in own:
            assert contrast(colour, paper) >= 4.5, (name, colour, contrast(colour, paper))
    for colour in texts_colours(root):
        assert contrast(colour, paper) >= 4.5, (colour, contrast(colour, paper))


def test_a_game_s_chart_for_a_dark_page_is_drawn_on_black_and_readable():
    client = Client()
    game = new_game(client, fmt="points", players=TEN)
    post_deal(client, game, "Asha", **{name: 20 + i for i, name in enumerate(TEN[1:])})
    for url in (f"/g/{game.edit_token}/chart.svg", f"/w/{game.view_token}/chart.svg"):
        assert_dark(drawn(client, url + f"?v={game.revision}&theme=dark"), "data-player", TEN)
        # Anything else is the light chart, on white.
        for query in ("", "?theme=light", "?theme=purple"):
            assert ground(drawn(client, url + query)) == "#ffffff"


def test_a_table_s_charts_for_a_dark_page_are_drawn_on_black_and_readable():
    client = Client()
    table = make_table(client, members=TEN)
    game = table_game(client, table, TEN, fmt="points")
    post_deal(client, game, "Asha", **{name: 20 + i for i, name in enumerate(TEN[1:])})
    finish(client, game)
    for url in (f"/t/{table.edit_token}/", f"/tw/{table.view_token}/"):
        assert_dark(drawn(client, url + "wins.svg?n=1&theme=dark"), "data-member", TEN)
        assert_dark(drawn(client, url + "money.svg?n=1&theme=dark"), "data-member", TEN)
        assert ground(drawn(client, url + "wins.svg?n=1&theme=light")) == "#ffffff"
        assert ground(drawn(client, url + "money.svg")) == "#ffffff"


def images(page):
    """Each chart as the page asks for it: (the <picture>'s dark source or None, the <img>)."""
    found = []
    for match in re.finditer(r"(<picture>\s*<source [^>]*>\s*)?<img [^>]*\.svg\?[^>]*>", page):
        source = match.group(1)
        if source:
            assert 'media="(prefers-color-scheme: dark)"' in source
            source = html.unescape(re.search(r'srcset="([^"]+)"', source).group(1))
        img = match.group(0)[len(match.group(1) or "") :]
        found.append((source, html.unescape(re.search(r'src="([^"]+)"', img).group(1)), img))
    return found


def test_a_game_page_asks_for_the_chart_in_its_theme():
    client = Client()
    game = new_game(client, players=("Asha", "Ravi", "Meena"))
    post_deal(client, game, "Asha", Ravi=30, Meena=80)
    game.refresh_from_db()
    chart = f"/g/{game.edit_token}/chart.svg?v={game.revision}"
    for theme in ("dark", "light"):
        client.cookies["theme"] = theme
        [(source, src, img)] = images(client.get(game.get_absolute_url()).content.decode())
        assert source is None and src == f"{chart}&theme={theme}"
        assert 'id="history-chart"' in img and 'loading="lazy"' in img
    # As the phone: the phone's dark chooses the dark chart.
    del client.cookies["theme"]
    page = client.get(f"/w/{game.view_token}/").content.decode()
    watched = f"/w/{game.view_token}/chart.svg?v={game.revision}"
    [(source, src, img)] = images(page)
    assert source == f"{watched}&theme=dark" and src == f"{watched}&theme=light"
    assert 'id="history-chart"' in img and 'width="360" height="260"' in img and "alt=" in img


def test_a_table_page_asks_for_its_charts_in_its_theme():
    client = Client()
    table = make_table(client, members=("Asha", "Ravi", "Meena"))
    game = table_game(client, table, ("Asha", "Ravi"), fmt="points")
    post_deal(client, game, "Asha", Ravi=30)
    finish(client, game)
    base = f"/t/{table.edit_token}/"
    client.cookies["theme"] = "dark"
    charts = images(client.get(base).content.decode())
    assert [(s, src) for s, src, _ in charts] == [
        (None, f"{base}wins.svg?n=1&theme=dark"),
        (None, f"{base}money.svg?n=1&theme=dark"),
    ]
    del client.cookies["theme"]
    charts = images(client.get(base).content.decode())
    assert [(s, src) for s, src, _ in charts] == [
        (f"{base}wins.svg?n=1&theme=dark", f"{base}wins.svg?n=1&theme=light"),
        (f"{base}money.svg?n=1&theme=dark", f"{base}money.svg?n=1&theme=light"),
    ]


def test_the_dark_chart_is_in_the_stylesheet_s_dark_chart_colours():
    """The chart's colours are the page's: static/tracker.css's dark --chart-*."""
    css = (settings.BASE_DIR / "static" / "tracker.css").read_text()
    dark = css.split(":root[data-theme=dark] {")[1].split("}")[0]
    want = dict(re.findall(r"--chart-([\w]+):\s*(#[0-9a-fA-F]{6})", dark))
    client = Client()
    game = new_game(client, fmt="points", players=TEN)
    post_deal(client, game, "Asha", **{name: 20 + i for i, name in enumerate(TEN[1:])})
    root = drawn(client, f"/w/{game.view_token}/chart.svg?theme=dark")
    lines = {line.get("data-player"): line.get("stroke") for line in root.iter(f"{SVG}polyline")}
    grid = next(el for el in root.iter(f"{SVG}line") if el.get("class") == "tick-y")
    muted = next(el for el in root.iter(f"{SVG}text") if el.get("class") == "tick-x")
    found = {
        "bg": ground(root),
        "ink": root.get("fill"),
        "muted": muted.get("fill"),
        "grid": grid.get("stroke"),
        **{str(seat): lines[name] for seat, name in enumerate(TEN, start=1)},
    }
    assert {key: value.lower() for key, value in found.items()} == {
        key: value.lower() for key, value in want.items()
    }
