"""The living room (issue 40) through the test client: the TV screen of a view
link and of a table's view link, and the sentence a phone says after a change.
Each expected sentence is worked out by hand from the deals."""

import re

import pytest
from django.utils import translation

from tests.views.test_games import deal_data, delete, event_url, new_game, post_deal
from tracker.models import Game, Table

pytestmark = pytest.mark.django_db

POOL = [
    {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 20}},
    {"type": "deal", "winner": "Meena", "results": {"Asha": 5, "Ravi": 30}},
]


def said_on(html):
    """The board's sentence (the data-said attribute), as the page carries it."""
    found = re.search(r'data-said="([^"]*)"', html)
    return found.group(1).replace("&#x27;", "'") if found else None


def test_the_view_link_and_the_table_view_link_lead_to_their_tv(client):
    game = Game.create("pool", {}, ["Asha", "Ravi"])
    page = client.get(game.get_view_url()).content.decode()
    assert f'href="/w/{game.view_token}/tv/">Show on a TV</a>' in page
    table = Table.start("Sharmas", ["Asha", "Ravi"])
    page = client.get(table.get_view_url()).content.decode()
    assert f'href="/tw/{table.view_token}/tv/">Show on a TV</a>' in page


def test_the_tv_shows_the_replayed_board_and_nothing_that_leads_to_the_edit_link(client):
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"], history=POOL)
    response = client.get(f"/w/{game.view_token}/tv/")
    assert response.status_code == 200
    html = response.content.decode()
    # Totals: Asha 0 + 5 = 5, Ravi 80 + 30 = 110 (out), Meena 20 + 0 = 20.
    cards = re.findall(r'tv-name">([^<]+)</span>\s*<span class="tv-figure">([^<]+)</span>', html)
    assert cards == [("Asha", "5"), ("Ravi", "110"), ("Meena", "20")]
    assert "Out: 80 + 30 = 110 ≥ 101" in html
    assert "Deal 2: Won" in html
    assert "Drops left" in html
    assert "Meena deals" in html  # Asha dealt deal 1, Ravi deal 2: Meena deals next
    assert game.edit_token not in html
    assert f'data-stream="/w/{game.view_token}/stream"' in html
    # The edit link's token opens no TV: the TV is the view link's.
    assert client.get(f"/w/{game.edit_token}/tv/").status_code == 404
    assert client.get(f"/g/{game.edit_token}/tv/").status_code == 404


def test_the_tvs_poll_is_204_until_a_deal_is_saved_then_the_new_board(client):
    game = new_game(client, players=("Asha", "Ravi", "Meena"))
    game.refresh_from_db()
    url = f"/w/{game.view_token}/tv/live/?v={game.revision}"
    assert client.get(url).status_code == 204
    post_deal(client, game, "Asha", Ravi=12, Meena=30)
    response = client.get(url)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="board" class="tv-board"')
    assert re.search(r'tv-name">Meena</span>\s*<span class="tv-figure">30<', html)
    assert said_on(html) == "Deal 1: Asha won. Asha leads with 0."


def test_a_tables_tv_shows_the_game_being_played_and_the_standings(client):
    table = Table.start("Sharmas", ["Asha", "Ravi", "Meena"])
    done = Game.create(
        "pool",
        {},
        ["Asha", "Ravi"],
        table=table,
        history=[
            {"type": "deal", "winner": "Asha", "results": {"Ravi": 80}},
            {"type": "deal", "winner": "Asha", "results": {"Ravi": 30}},
        ],
    )
    assert done.state().finished  # Ravi 110 is out: Asha wins
    Game.create(
        "points",
        {},
        ["Asha", "Ravi", "Meena"],
        name="Tonight",
        table=table,
        history=[
            {"type": "deal", "winner": "Meena", "results": {"Asha": 10, "Ravi": 20}},
        ],
    )
    html = client.get(f"/tw/{table.view_token}/tv/").content.decode()
    assert "<strong>Tonight</strong>" in html
    # Meena collects 10 + 20: +30; Asha -10, Ravi -20.
    cards = re.findall(r'tv-name">([^<]+)</span>\s*<span class="tv-figure">([^<]+)</span>', html)
    assert cards == [("Asha", "-10"), ("Ravi", "-20"), ("Meena", "+30")]
    standings = re.findall(r"<strong>(\w+)</strong>\s*(\d+ wins?)", html)
    assert standings == [("Asha", "1 win"), ("Ravi", "0 wins"), ("Meena", "0 wins")]
    assert table.edit_token not in html
    assert f'data-stream="/tw/{table.view_token}/stream"' in html
    version = re.search(r'data-revision="(\d+)"', html).group(1)
    assert client.get(f"/tw/{table.view_token}/tv/live/?v={version}").status_code == 204
    assert client.get(f"/t/{table.edit_token}/tv/").status_code == 404


def test_the_switch_is_hidden_until_javascript_shows_it(client):
    game = new_game(client)
    for url in (game.get_absolute_url(), game.get_view_url(), f"/w/{game.view_token}/tv/"):
        html = client.get(url).content.decode()
        assert re.search(r'<button[^>]*id="read-aloud" aria-pressed="false" hidden>', html), url


# -- what is said


def test_a_pool_deal_says_who_won_who_is_out_at_what_total_who_may_rejoin_and_who_leads(client):
    game = new_game(client, players=("Asha", "Ravi", "Meena"))
    post_deal(client, game, "Asha", Ravi=80, Meena=20)
    response = post_deal(client, game, "Meena", htmx=True, Asha=5, Ravi=30)
    # Ravi 80 + 30 = 110 ≥ 101 is out; he may rejoin at the highest total still
    # in (Meena 20) plus one; Asha leads on 5.
    assert said_on(response.content.decode()) == (
        "Deal 2: Meena won. Ravi is out at 110. Ravi may rejoin at 21. Asha leads with 5."
    )


def test_a_correction_and_an_undo_say_what_changed(client):
    game = new_game(client, players=("Asha", "Ravi", "Meena"))
    post_deal(client, game, "Asha", Ravi=80, Meena=20)
    post_deal(client, game, "Meena", Asha=5, Ravi=10)
    # Deal 2 corrected: Ravi 30, so 110 and out.
    data = deal_data(game, "Meena", Asha=5, Ravi=30)
    client.post(event_url(game, 1), data)
    html = client.get(game.get_view_url()).content.decode()
    assert said_on(html) == (
        "Deal 2 corrected. Deal 2: Meena won. Ravi is out at 110. Ravi may rejoin at 21. "
        "Asha leads with 5."
    )
    delete(client, game, 1)
    html = client.get(game.get_view_url()).content.decode()
    # Back to deal 1 alone: Asha 0, Ravi 80, Meena 20.
    assert said_on(html) == "Deal 2 undone. Asha leads with 0."


def test_the_end_says_the_winner(client):
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi"])
    game.add_event({"type": "deal", "winner": "Asha", "results": {"Ravi": 80}}, game.revision)
    game.add_event({"type": "deal", "winner": "Asha", "results": {"Ravi": 30}}, game.revision)
    html = client.get(game.get_view_url()).content.decode()
    assert said_on(html) == "Deal 2: Asha won. Ravi is out at 110. Asha wins!"


def test_deals_say_how_many_deals_are_left_and_points_the_balance(client):
    game = Game.create("deals", {"deal_count": 3}, ["Asha", "Ravi", "Meena"])
    game.add_event(POOL[0], game.revision)
    # 80 chips each to start, 240; Asha takes Ravi's 80 and Meena's 20: 340.
    assert said_on(client.get(game.get_view_url()).content.decode()) == (
        "Deal 1: Asha won. Asha leads with 340. 2 deals left."
    )
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"])
    game.add_event({"type": "deal", "winner": "Asha", "results": {"Ravi": 10, "Meena": 20}}, 0)
    assert said_on(client.get(game.get_view_url()).content.decode()) == (
        "Deal 1: Asha won. Asha leads with 30."
    )


def test_said_in_the_pages_language(client):
    game = Game.create("pool", {"pool_limit": 101}, ["Asha", "Ravi", "Meena"], history=POOL[:1])
    game.add_event(POOL[1], game.revision)
    expected = {
        "hi": "डील 2: Meena जीते। Ravi 110 पर बाहर हो गए। Ravi 21 पर दोबारा शामिल हो सकते हैं। "
        "Asha 5 पर सबसे आगे हैं।",
        "ta": "டீல் 2: Meena ஜெயித்தார். Ravi 110-இல் அவுட் ஆனார். Ravi 21-இல் மீண்டும் "
        "சேரலாம். Asha 5-உடன் முன்னணியில் இருக்கிறார்.",
        "te": "డీల్ 2: Meena గెలిచారు. Ravi 110 దగ్గర ఔట్ అయ్యారు. Ravi 21 దగ్గర మళ్ళీ "
        "చేరవచ్చు. Asha 5 తో ముందున్నారు.",
    }
    for language, sentence in expected.items():
        html = client.get(f"/w/{game.view_token}/tv/", HTTP_ACCEPT_LANGUAGE=language)
        assert said_on(html.content.decode()) == sentence, language
    translation.activate("en")


def test_a_player_sitting_out_moves_no_score_and_nothing_is_said(client):
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"])
    game.add_event({"type": "deal", "winner": "Asha", "results": {"Ravi": 10, "Meena": 20}}, 0)
    game.add_event({"type": "sit_out", "player": "Ravi"}, game.revision)
    assert said_on(client.get(game.get_view_url()).content.decode()) == ""
    # Undone, it is said, with who leads: Asha collected 10 + 20.
    serial = game.events.get(position=1).serial
    game.delete_event(serial, game.revision)
    assert said_on(client.get(game.get_view_url()).content.decode()) == (
        "Ravi's change undone. Asha leads with 30."
    )
