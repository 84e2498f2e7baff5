"""The three charts as a phone fetches them: SVG that parses as XML, with
whatever a family typed (names, the table's name) shown as typed, escaped."""

import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from tests.views.test_games import new_game, post_deal
from tests.views.test_table_money import finish
from tests.views.test_tables import make_table, table_game

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"
ODD = ['A<&>"B', "Tom & Jerry", "<script>", "O'Neil"]  # short enough to be shown whole


def fetch(client, url):
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    body = response.content.decode()
    assert "<script>" not in body and "A&lt;&amp;&gt;&quot;B" in body
    return ET.fromstring(body)


def shown(root, attribute):
    """The names on the drawn lines or bars, and in the legend's keys or the bars' labels."""
    drawn = [el.get(attribute) for el in root.iter() if el.get(attribute)]
    texts = [el.text for el in root.iter(f"{SVG}text")]
    return drawn, texts


def test_a_game_s_chart_shows_odd_names_as_typed():
    client = Client()
    game = new_game(client, fmt="points", players=ODD)
    post_deal(client, game, ODD[0], **{ODD[1]: 20, ODD[2]: 2, ODD[3]: 80})
    root = fetch(client, f"/w/{game.view_token}/chart.svg")
    drawn, texts = shown(root, "data-player")
    assert drawn == ODD + ODD  # a line each, then a key each
    assert [t for t in texts if t in ODD] == ODD
    # The desc: A won the 102 the others lost (20 + 2 + 80).
    assert root.find(f"{SVG}desc").text.endswith(
        f"{ODD[0]} 102, {ODD[1]} -20, {ODD[2]} -2, {ODD[3]} -80."
    )


def test_a_table_s_charts_show_odd_names_as_typed():
    client = Client()
    table = make_table(client, name='Nani\'s <b>"table"</b> & co', members=ODD)
    game = table_game(client, table, ODD[:3], fmt="points")
    post_deal(client, game, ODD[0], **{ODD[1]: 20, ODD[2]: 2})
    finish(client, game)
    wins = fetch(client, f"/t/{table.edit_token}/wins.svg")
    assert wins.find(f"{SVG}title").text == 'Nani\'s <b>"table"</b> & co: wins per member'
    drawn, texts = shown(wins, "data-member")
    assert drawn == ODD
    assert [t for t in texts if t in ODD] == ODD
    assert [bar.get("data-value") for bar in wins.iter(f"{SVG}rect") if bar.get("class")] == [
        "1",
        "0",
        "0",
        "0",
    ]
    money = fetch(client, f"/tw/{table.view_token}/money.svg")
    assert money.find(f"{SVG}title").text == 'Nani\'s <b>"table"</b> & co: money over the games'
    texts = [el.text for el in money.iter(f"{SVG}text")]
    lines = [el.get("data-member") for el in money.iter(f"{SVG}polyline")]
    keys = [el.get("data-member") for el in money.iter(f"{SVG}g") if el.get("class") == "key"]
    assert lines == keys == ODD
    assert [t for t in texts if t in ODD] == ODD
