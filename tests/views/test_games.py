"""Every flow of the score screens, as plain posts (redirect) and as htmx (fragment)."""

import json
import re

import pytest

from tests.conftest import without_language_switch
from tracker.models import Game

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def new_game(client, fmt="pool-101", players=("Asha", "Ravi", "Meena", "Kiran"), **extra):
    data = {"format": fmt, "player": list(players), "dealer": "0", "rules_for": fmt, **extra}
    response = client.post("/new/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    game = Game.objects.get(edit_token=response["Location"].split("/")[2])
    return game


def deal_data(game, winner, version=None, **results):
    """Form data for a deal: results by name, an int for points or a word."""
    seats = {p.name: p.seat for p in game.players.all()}
    data = {"winner": str(seats[winner])}
    for name, result in results.items():
        if isinstance(result, int) or (isinstance(result, str) and result.isdigit()):
            data[f"r{seats[name]}"] = "points"
            data[f"p{seats[name]}"] = str(result)
        else:
            data[f"r{seats[name]}"] = result
    data["version"] = str(revision(game) if version is None else version)
    return data


def revision(game):
    """The version a form made now carries: the game's stored revision."""
    return Game.objects.values_list("revision", flat=True).get(pk=game.pk)


def event_url(game, position, action=""):
    """The edit (or delete) URL of the event now at `position`: it names the event's id."""
    serial = game.events.get(position=position).serial
    return f"/g/{game.edit_token}/event/{serial}/{action}"


def delete(client, game, position, version=None, **headers):
    version = revision(game) if version is None else version
    data = {"version": str(version)}
    return client.post(event_url(game, position, "delete/"), data, **headers)


def post_deal(client, game, winner, htmx=False, **results):
    headers = HTMX if htmx else {}
    return client.post(f"/g/{game.edit_token}/deal/", deal_data(game, winner, **results), **headers)


def totals(game):
    return {p.name: p.total for p in game.state().players}


def text(response):
    return re.sub(r"\s+", " ", response.content.decode())


# ------------------------------------------------------------ new game


def test_home_offers_a_new_game_first(client):
    page = text(client.get("/"))
    assert page.index("New game") < page.index("Your games")


def test_new_game_form_shows_pool_101_defaults(client):
    page = text(client.get("/new/"))
    assert 'name="first_drop" value="20"' in page
    assert 'name="rejoin_cutoff" value="79"' in page


def test_create_pool_game_lands_on_the_edit_link(client):
    game = new_game(client)
    assert game.format == "pool"
    assert game.seat_names() == ["Asha", "Ravi", "Meena", "Kiran"]
    assert game.rules["pool_limit"] == 101
    page = text(client.get(game.get_absolute_url()))
    assert "Enter deal 1" in page
    assert "Asha deals" in page


def test_changing_the_format_without_javascript_takes_its_defaults(client):
    # The rules were filled for Pool 101 but the format is now Pool 61.
    data = {
        "format": "pool-61",
        "rules_for": "pool-101",
        "player": ["A", "B"],
        "dealer": "1",
        "first_drop": "20",
        "middle_drop": "40",
        "full_count": "80",
        "wrong_show": "80",
        "rejoin_cutoff": "79",
        "rejoin": "on",
        "entry_fee": "10",
    }
    response = client.post("/new/", data)
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.rules["first_drop"] == 15
    assert game.rules["full_count"] == 60
    assert game.rules["rejoin_cutoff"] == 44
    assert game.rules["entry_fee"] == "10"
    assert game.first_dealer == 2


def test_format_refresh_with_htmx_refills_the_table_rules(client):
    data = {"format": "pool-201", "rules_for": "pool-101", "player": ["A", "B"], "dealer": "0"}
    data.update(first_drop="20", middle_drop="40", action="refresh")
    response = client.post("/new/", data, **HTMX)
    page = text(response)
    assert "<html" not in page
    assert 'name="first_drop" value="25"' in page
    assert 'name="rules_for" value="pool-201"' in page
    assert Game.objects.count() == 0


def test_seat_buttons_add_remove_and_move(client):
    base = {"format": "points", "rules_for": "points", "dealer": "0", "point_value": "1"}
    page = text(client.post("/new/", {**base, "player": ["A", "B"], "action": "add"}))
    assert page.count('name="player"') == 3
    page = text(client.post("/new/", {**base, "player": ["A", "B", "C"], "action": "up-2"}))
    assert re.findall(r'name="player" value="(\w*)"', page) == ["A", "C", "B"]
    page = text(client.post("/new/", {**base, "player": ["A", "B", "C"], "action": "remove-0"}))
    assert re.findall(r'name="player" value="(\w*)"', page) == ["B", "C"]
    assert Game.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"player": ["Asha"]}, "A game needs at least 2 players"),
        ({"player": ["Asha", "asha"]}, "Asha is at the table twice"),
        ({"first_drop": "abc"}, "First drop must be a whole number"),
        ({"first_drop": "0"}, "First drop must be at least 1 in pool"),
        ({"format": "pool-other", "pool_limit": "5"}, "Pool limit must be at least 20"),
        ({"format": "pool-other", "pool_limit": ""}, "Type the pool limit"),
        ({"format": "deals-other", "deal_count": "200"}, "Number of deals must be at most 100"),
        ({"format": "points", "point_value": "0.125"}, "more decimals than the money unit"),
        # A limit no family reaches keeps every game one its CSV sheet carries back.
        ({"max_drops": "1" + "0" * 30}, "must be at most 1000"),
        ({"max_rejoins": "1001"}, "must be at most 1000"),
        ({"player": ["A", "B"], "name": "x" * 100}, "name is longer than 80 letters"),
    ],
)
def test_new_game_refusals_show_beside_the_field_and_keep_what_was_typed(client, change, words):
    data = {"format": "pool-101", "rules_for": "pool-101", "player": ["Asha", "Ravi"]}
    data["dealer"] = "0"
    data.update(change)
    for headers in ({}, HTMX):
        response = client.post("/new/", data, **headers)
        assert response.status_code == 422
        page = text(response)
        assert words in page
        for name in data["player"]:
            assert f'value="{name}"' in page
    assert Game.objects.count() == 0


# ------------------------------------------------------------ scoring deals


def test_plain_post_of_a_deal_redirects_and_scores_it(client):
    game = new_game(client)
    response = post_deal(client, game, "Asha", Ravi=34, Meena="first_drop", Kiran="middle_drop")
    assert response.status_code == 302
    assert response["Location"] == game.get_absolute_url()
    assert totals(game) == {"Asha": 0, "Ravi": 34, "Meena": 20, "Kiran": 40}
    assert game.history() == [
        {
            "type": "deal",
            "winner": "Asha",
            "results": {"Ravi": 34, "Meena": "first_drop", "Kiran": "middle_drop"},
        }
    ]
    page = text(client.get(game.get_absolute_url()))
    assert "Enter deal 2" in page
    assert "Ravi deals" in page


def test_htmx_deal_swaps_in_the_new_scoreboard(client):
    game = new_game(client)
    response = post_deal(client, game, "Asha", htmx=True, Ravi=34, Meena=2, Kiran="full_count")
    assert response.status_code == 200
    page = text(response)
    assert "<html" not in page
    # The board takes the place of the board; the history and a fresh form for
    # deal 2 come out of band, and a notice from before and the change slot empty.
    assert response["HX-Retarget"] == "#board"
    assert response["HX-Reswap"] == "outerHTML"
    assert page.lstrip().startswith('<section id="board"')
    assert '<section id="history" aria-labelledby="history-title" hx-swap-oob="true">' in page
    assert '<section id="deal-entry" aria-labelledby="deal-title" hx-swap-oob="true">' in page
    assert '<div id="notice" hx-swap-oob="true"></div>' in page
    assert '<div id="change-slot" aria-live="polite" hx-swap-oob="true"></div>' in page
    assert "Enter deal 2" in page
    assert 'name="version" value="1"' in page
    # The scoreboard shows the engine's totals.
    assert re.search(r"Kiran.*?<td class=\"num\">80</td>", page)
    assert game.events.count() == 1


def test_the_other_editing_phones_first_poll_gets_the_board_the_save_answered(client):
    game = new_game(client)
    other = type(client)()
    other.get(game.get_absolute_url())
    saved = text(post_deal(client, game, "Asha", htmx=True, Ravi=34, Meena=2, Kiran="full_count"))
    polled = text(other.get(f"/g/{game.edit_token}/live/?v=0", **HTMX))
    for html in (saved, polled):
        assert "Enter deal 2" in html and 'name="version" value="1"' in html
        assert re.search(r"Kiran.*?<td class=\"num\">80</td>", html)


def test_a_refused_htmx_deal_still_answers_the_whole_game(client):
    game = new_game(client)
    response = post_deal(client, game, "Asha", htmx=True, Ravi=34, Meena="lots", Kiran=2)
    assert response.status_code == 422
    assert "HX-Retarget" not in response
    assert text(response).lstrip().startswith('<div id="game">')
    assert game.events.count() == 0


def test_bad_points_are_refused_beside_the_player_and_kept(client):
    game = new_game(client)
    for headers in ({}, HTMX):
        data = deal_data(game, "Asha", Ravi=1, Meena=2, Kiran="first_drop")
        response = client.post(f"/g/{game.edit_token}/deal/", data, **headers)
        assert response.status_code == 422
        page = text(response)
        assert "Ravi: points must be 0 or between 2 and 80" in page
        assert 'name="p2" value="1"' in page
    assert game.events.count() == 0


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"r2": "points", "p2": "", "r3": "points", "p3": "5", "r4": "points", "p4": "5"}, None),
        ({"r2": "points", "p2": "abc", "r3": "points", "p3": "5"}, "Ravi: points must be"),
        (
            {"r2": "points", "p2": "99999999999999999999", "r3": "wrong_show", "r4": "full_count"},
            "Ravi: points must be",
        ),
    ],
)
def test_deal_form_refusals(client, data, words):
    game = new_game(client)
    data = {"winner": "1", "version": "0", **data}
    response = client.post(f"/g/{game.edit_token}/deal/", data)
    assert response.status_code == 422
    page = text(response)
    assert (words or "Ravi: type the points or tap a drop") in page
    assert game.events.count() == 0


def test_no_winner_is_refused(client):
    game = new_game(client)
    response = client.post(f"/g/{game.edit_token}/deal/", {"version": "0", "r2": "full_count"})
    assert response.status_code == 422
    assert "Tap the player who won the deal" in text(response)


def test_a_stale_form_is_refused_and_a_retry_records_once(client):
    game = new_game(client)
    data = deal_data(game, "Asha", Ravi=10, Meena=10, Kiran=10)
    assert client.post(f"/g/{game.edit_token}/deal/", data).status_code == 302
    again = client.post(f"/g/{game.edit_token}/deal/", data, **HTMX)
    assert again.status_code == 409
    assert "Someone else just saved deal 1" in text(again)
    assert game.events.count() == 1


def test_pool_game_to_elimination_rejoin_edit_and_split(client):
    game = new_game(client, entry_fee="50")
    post_deal(client, game, "Asha", Ravi=80, Meena=10, Kiran=40)
    post_deal(client, game, "Meena", Asha=30, Ravi=25, Kiran=20)
    state = game.state()
    assert state.player("Ravi").status == "out"
    page = text(client.get(game.get_absolute_url()))
    assert "Rejoin Ravi at 61 · pot ₹250.00" in page
    assert re.search(r'class="out".*?Ravi', page)
    # Rejoin, as htmx.
    response = client.post(
        f"/g/{game.edit_token}/rejoin/", {"player": "Ravi", "version": "2"}, **HTMX
    )
    assert response.status_code == 200
    assert game.state().player("Ravi").total == 61
    # Correct deal 1: Kiran had 45, not 40.
    edit_url = event_url(game, 0)
    assert "Correct deal 1" in text(client.get(edit_url))
    response = client.post(edit_url, deal_data(game, "Asha", Ravi=80, Meena=10, Kiran=45))
    assert response.status_code == 302
    assert totals(game)["Kiran"] == 65
    # An edit that makes the later rejoin impossible is refused, with the event named.
    response = client.post(edit_url, deal_data(game, "Asha", Ravi=10, Meena=10, Kiran=45))
    assert response.status_code == 422
    assert "Not saved: Ravi could no longer rejoin after deal 2: Ravi is still in." in text(
        response
    )
    assert totals(game)["Kiran"] == 65
    # Split while three are left... four are in: no split yet.
    assert client.get(f"/g/{game.edit_token}/split/").status_code == 404
    post_deal(client, game, "Asha", Ravi=40, Meena=80, Kiran=2)  # Ravi 101, Meena 90
    state = game.state()
    assert [p.name for p in state.in_players] == ["Asha", "Meena", "Kiran"]
    page = text(client.get(f"/g/{game.edit_token}/split/?method=equal"))
    assert "Split the pot of ₹250.00" in page
    assert "₹83.34" in page and "₹83.33" in page
    response = client.post(
        f"/g/{game.edit_token}/split/",
        {"method": "drops", "confirm": "1", "version": str(revision(game))},
    )
    assert response.status_code == 302
    # Pot 250 (5 entries of 50); in: Asha 30, Meena 90, Kiran 67, drops left 3 / 0 / 1.
    # The excess drops pay 3 x 50 and 1 x 50; the other 50 is shared by three,
    # 16.666... each; the two units left over go to the lowest totals, Asha's and Kiran's.
    state = game.as_document()["state"]
    assert state["status"] == "finished"
    assert state["split"] == {"Asha": "166.67", "Meena": "16.66", "Kiran": "66.67"}
    page = text(client.get(game.get_absolute_url()))
    assert "Game over: split the pot" in page
    assert "Enter deal" not in page


def test_custom_split_refusal_keeps_the_typed_amounts(client):
    game = new_game(client, players=("A", "B"), entry_fee="10")
    data = {"method": "custom", "confirm": "1", "version": "0", "s1": "15", "s2": "2"}
    response = client.post(f"/g/{game.edit_token}/split/", data)
    assert response.status_code == 422
    page = text(response)
    assert "Shares add up to 17.00, but the pot is 20.00" in page
    assert 'value="15"' in page
    assert game.events.count() == 0
    data.update(s2="5")
    assert client.post(f"/g/{game.edit_token}/split/", data).status_code == 302
    assert {k: str(v) for k, v in game.state().split.items()} == {"A": "15.00", "B": "5.00"}


def test_pool_played_to_a_winner_removes_the_deal_form(client):
    game = new_game(client, players=("A", "B"))
    post_deal(client, game, "A", B=80)
    response = post_deal(client, game, "A", htmx=True, B=30)
    page = text(response)
    assert "A wins!" in page
    assert "Enter deal" not in page
    response = post_deal(client, game, "A", B=30)
    assert response.status_code == 422
    assert "The game is over" in text(response)
    # Deleting the deal that ended the game reopens it.
    response = delete(client, game, 1, **HTMX)
    assert response.status_code == 200
    assert "Enter deal 2" in text(response)
    assert not game.state().finished


def test_deals_game_to_its_end_with_a_tie_breaker(client):
    game = new_game(client, fmt="deals-2", players=("A", "B", "C"))
    post_deal(client, game, "A", B=30, C=10)
    post_deal(client, game, "B", A=35, C=0)
    page = text(client.get(game.get_absolute_url()))
    assert "Tie-breaker!" in page
    assert "A and B" in page
    # Only the tied players are in the tie-breaker form.
    assert 'name="p3"' not in page
    post_deal(client, game, "B", A=15)
    state = game.state()
    assert (state.status, state.winner) == ("finished", "B")
    page = text(client.get(game.get_absolute_url()))
    assert "B wins!" in page
    assert re.search(r"B.*?<td class=\"num\">180</td>", page)


def test_points_session_with_settlement_and_end(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"), point_value="0.25")
    post_deal(client, game, "Ravi", Asha=47, Meena="first_drop")
    page = text(client.get(game.get_absolute_url()))
    assert "Asha</strong> pays <strong>Ravi</strong> ₹11.75" in page
    response = client.post(f"/g/{game.edit_token}/end/", {"version": "1"}, **HTMX)
    assert response.status_code == 200
    assert "Session ended" in text(response)
    assert game.state().finished


def test_watch_link_shows_scores_without_forms(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=34, Meena=2, Kiran=2)
    page = text(client.get(game.get_view_url()))
    assert "Ravi" in page and ">34<" in page
    assert "<form" not in without_language_switch(page)
    assert game.edit_token not in page


def test_unknown_links_are_friendly_404s(client):
    game = new_game(client)
    for url in [
        "/g/nope/",
        "/w/nope/",
        f"/w/{game.edit_token}/",
        f"/g/{game.view_token}/",
        f"/g/{game.edit_token}/event/99/",
        "/nowhere/",
    ]:
        response = client.get(url)
        assert response.status_code == 404, url
        assert "That link does not lead to a game" in text(response)


def test_your_games_lists_opened_games_newest_first(client):
    first = new_game(client, players=("A", "B"))
    second = new_game(client, fmt="points", players=("C", "D"))
    post_deal(client, first, "A", B=80)
    post_deal(client, first, "A", B=80)
    page = text(client.get("/"))
    assert page.index("Pool 101") < page.index("Points rummy")
    assert "A won" in page
    page = text(client.get("/?show=in_progress"))
    assert second.name in page and first.name not in page
    page = text(client.get("/?show=finished", **HTMX))
    assert first.name in page and second.name not in page
    assert "<html" not in page


def test_share_panel_has_both_links_and_qr_codes(client):
    game = new_game(client)
    page = text(client.get(game.get_absolute_url()))
    assert f"http://testserver/g/{game.edit_token}/" in page
    assert f"http://testserver/w/{game.view_token}/" in page
    response = client.get(f"/g/{game.edit_token}/qr/view.svg")
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")
    assert b"style=" not in response.content
    # The view link shows only itself: the edit link never appears there.
    page = text(client.get(game.get_view_url()))
    assert game.edit_token not in page
    assert client.get(f"/w/{game.view_token}/qr.svg").status_code == 200
    assert client.get(f"/g/{game.view_token}/qr/edit.svg").status_code == 404


def test_new_games_per_address_are_limited(client, settings):
    settings.GAMES_PER_HOUR = 2
    new_game(client, players=("A", "B"))
    new_game(client, players=("A", "B"))
    data = {"format": "points", "rules_for": "points", "player": ["A", "B"], "dealer": "0"}
    response = client.post("/new/", data)
    assert response.status_code == 429
    assert "Too many new games from this address" in text(response)
    assert Game.objects.count() == 2
    # Another address may still start one.
    other = client.post("/new/", data, REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 302


def test_links_are_looked_up_by_key_and_compared_whole(client):
    game = new_game(client, players=("A", "B"))
    assert Game.by_link(game.edit_token, can_edit=True) == game
    assert Game.by_link(game.view_token, can_edit=True) is None
    assert Game.by_link(game.edit_token[:-1], can_edit=True) is None
    assert Game.by_link(game.edit_token + "x", can_edit=True) is None
    assert str(game.pk) not in game.get_absolute_url().split("/")


def test_deleting_a_deal_that_a_later_event_needs_is_refused(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=80, Meena=10, Kiran=40)
    post_deal(client, game, "Meena", Asha=30, Ravi=25, Kiran=20)
    client.post(f"/g/{game.edit_token}/rejoin/", {"player": "Ravi", "version": "2"})
    before = game.history()
    response = delete(client, game, 1, **HTMX)
    assert response.status_code == 422
    assert "Not deleted: Ravi could no longer rejoin after deal 2: Ravi is still in." in text(
        response
    )
    assert game.history() == before
    response = delete(client, game, 1, follow=True)
    assert "Not deleted" in text(response)
    assert game.history() == before


def test_the_downloads_follow_every_change_to_the_game(client):
    """A long game's downloads are made once per revision (issue 27.1): each
    change to the history shows in the next download, on either link."""
    game = new_game(client)
    watch = game.get_view_url()

    def downloaded():
        document = json.loads(client.get(f"{watch}game.json").content)
        sheet = client.get(f"{game.get_absolute_url()}game.csv").content.decode()
        totals = {p["name"]: p["total"] for p in document["state"]["players"]}
        return totals, sheet

    assert downloaded()[0] == {"Asha": 0, "Ravi": 0, "Meena": 0, "Kiran": 0}
    post_deal(client, game, "Asha", Ravi=34, Meena="first_drop", Kiran="middle_drop")
    totals, sheet = downloaded()
    assert totals == {"Asha": 0, "Ravi": 34, "Meena": 20, "Kiran": 40}
    assert "34" in sheet
    assert client.post(event_url(game, 0, "delete/"), {"version": "1"}).status_code == 302
    totals, sheet = downloaded()
    assert totals == {"Asha": 0, "Ravi": 0, "Meena": 0, "Kiran": 0}
    assert "34" not in sheet
