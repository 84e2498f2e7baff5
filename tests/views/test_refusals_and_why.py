"""Bad input refused, every refusal shown beside its field at once, and the
screens saying why. Figures worked by hand
(Pool 101: out at 101, first drop 20, full count 80, rejoin cutoff 79)."""

import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from tests.views.test_games import HTMX, deal_data, event_url, new_game, post_deal, revision
from tests.views.test_games import text as raw_text
from tracker.models import Game, Table

pytestmark = pytest.mark.django_db


def text(response):
    """The page as read: spaces collapsed, entities (&#x27;) as the characters shown."""
    return html.unescape(raw_text(response))


def seat(game, name):
    return next(p.seat for p in game.players.all() if p.name == name)


def deal_url(game):
    return f"/g/{game.edit_token}/deal/"


# ------------------------------------------------------------ bad input accepted


def test_a_deal_posted_with_two_winners_is_refused(client):
    game = new_game(client)
    data = deal_data(game, "Asha", Ravi=10, Meena=10, Kiran=10)
    data["winner"] = [str(seat(game, "Asha")), str(seat(game, "Ravi"))]
    response = client.post(deal_url(game), data)
    assert response.status_code == 422
    assert "Tap one winner only" in text(response)
    assert game.events.count() == 0


def test_a_result_posted_twice_is_refused_beside_that_player(client):
    game = new_game(client)
    data = deal_data(game, "Asha", Ravi=10, Meena=10, Kiran=10)
    data[f"p{seat(game, 'Ravi')}"] = ["10", "30"]
    response = client.post(deal_url(game), data)
    assert response.status_code == 422
    page = text(response)
    assert f'id="err-{seat(game, "Ravi")}" role="alert">Ravi: give one result only' in page
    assert game.events.count() == 0


def test_a_result_for_a_player_who_is_out_is_refused_not_ignored(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=80, Meena=10, Kiran=10)
    post_deal(client, game, "Asha", Ravi=25, Meena=10, Kiran=10)  # Ravi 105: out
    assert game.state().player("Ravi").status == "out"
    data = deal_data(game, "Asha", Meena=10, Kiran=10)
    data[f"r{seat(game, 'Ravi')}"] = "points"
    data[f"p{seat(game, 'Ravi')}"] = "5"
    response = client.post(deal_url(game), data)
    assert response.status_code == 422
    assert "Ravi is out and has no result" in text(response)
    assert game.events.count() == 2


def test_an_empty_name_between_names_is_refused_beside_that_seat(client):
    data = {
        "format": "pool-101",
        "rules_for": "pool-101",
        "player": ["Asha", "", "Ravi", "Meena"],
        "dealer": "0",
    }
    response = client.post("/new/", data)
    assert response.status_code == 422
    page = text(response)
    assert 'id="err-player-1" role="alert">Seat 2 has no name' in page
    assert Game.objects.count() == 0
    # Blank seats after the last name are only unused rows: the game starts with three.
    data["player"] = ["Asha", "Ravi", "Meena", ""]
    assert client.post("/new/", data).status_code == 302
    assert [p.name for p in Game.objects.get().players.all()] == ["Asha", "Ravi", "Meena"]


# ------------------------------------------------------------ every refusal, at once


def test_the_deal_form_shows_every_refusal_at_once_beside_each_box(client):
    game = new_game(client)
    data = deal_data(game, "Asha", Meena=95, Kiran=1)
    data[f"r{seat(game, 'Ravi')}"] = "points"
    data[f"p{seat(game, 'Ravi')}"] = "ten"
    response = client.post(deal_url(game), data, **HTMX)
    assert response.status_code == 422
    page = text(response)
    assert f'id="err-{seat(game, "Ravi")}" role="alert">Ravi: points must be a whole number' in page
    # 95 is above the full count 80; 1 is not a count when an ace counts 10.
    assert f'id="err-{seat(game, "Meena")}" role="alert">Meena: points must be 0 or between' in page
    assert f'id="err-{seat(game, "Kiran")}" role="alert">Kiran: points must be 0 or between' in page
    assert game.events.count() == 0


def test_new_game_shows_every_bad_rule_at_once_and_again_beside_start(client):
    data = {
        "format": "pool-101",
        "rules_for": "pool-101",
        "rules_shown": "1",
        "player": ["Asha", "Ravi"],
        "dealer": "0",
        "first_drop": "x",
        "rejoin_cutoff": "500",
    }
    response = client.post("/new/", data, **HTMX)
    assert response.status_code == 422
    page = text(response)
    assert "First drop must be a whole number" in page
    assert "Rejoin cutoff must be below 101" in page
    # The summary sits just above the Start button, where the thumb is.
    summary = page[page.index('id="start-errors"') : page.rindex(">Start game</button>")]
    assert "2 things to fix" in summary
    assert "First drop must be a whole number" in summary
    assert "Rejoin cutoff must be below 101" in summary
    assert Game.objects.count() == 0


def test_the_refresh_post_cannot_replace_the_form_a_submit_answers(client):
    page = text(client.get("/new/"))
    # The submit replaces (aborts) a refresh in flight; a refresh during a submit is dropped.
    assert 'id="new-game"' in page and 'hx-sync="this:replace"' in page
    assert 'hx-sync="closest form:drop"' in page


def test_custom_split_refusals_sit_beside_each_share(client):
    game = new_game(client, players=("Asha", "Ravi", "Meena"), entry_fee="100")
    post_deal(client, game, "Asha", Ravi=10, Meena=10)
    data = {"method": "custom", "confirm": "1", "version": str(revision(game))}
    data[f"s{seat(game, 'Asha')}"] = "-5"
    data[f"s{seat(game, 'Ravi')}"] = "lots"
    data[f"s{seat(game, 'Meena')}"] = "100"
    response = client.post(f"/g/{game.edit_token}/split/", data)
    assert response.status_code == 422
    page = text(response)
    assert (
        f'id="err-share-{seat(game, "Asha")}" role="alert">Asha: Share must not be negative' in page
    )
    words = "Share must be a plain amount such as 0.25, digits 0-9"
    assert f'id="err-share-{seat(game, "Ravi")}" role="alert">Ravi: {words}' in page
    assert game.events.count() == 1


# ------------------------------------------------------------ silent changes


def test_a_drop_for_a_player_who_must_play_is_warned_then_saved_if_confirmed(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=80, Meena=10, Kiran=10)
    post_deal(client, game, "Asha", Ravi=4, Meena=10, Kiran=10)  # Ravi 84: (100 - 84) // 20 = 0
    assert "must play" in text(client.get(game.get_absolute_url()))
    data = deal_data(game, "Asha", Ravi="first_drop", Meena=10, Kiran=10)
    response = client.post(deal_url(game), data, **HTMX)
    assert response.status_code == 422
    page = text(response)
    assert "Ravi has no drops left (must play): a drop puts Ravi out (84 + 20 = 104 ≥ 101)" in page
    assert 'name="confirm" value="1"' in page
    assert game.events.count() == 2
    response = client.post(deal_url(game), {**data, "confirm": "1"})
    assert response.status_code == 302
    assert game.state().player("Ravi").status == "out"
    # Why out, on the scoreboard.
    assert "Out: 84 + 20 = 104 ≥ 101" in text(client.get(game.get_absolute_url()))


def test_the_board_says_why_a_rejoin_is_not_offered(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=80, Meena=80, Kiran=10)
    post_deal(client, game, "Kiran", Ravi=30, Meena=11, Asha=5)  # Ravi 110 out; Meena 91
    page = text(client.get(game.get_absolute_url()))
    assert "Rejoin Ravi" not in page
    assert (
        "Ravi can't rejoin: the highest total still in is 91, above the rejoin cutoff 79." in page
    )


def test_an_edit_that_moves_a_rejoin_start_says_so(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=80, Meena=65, Kiran=10)
    post_deal(client, game, "Kiran", Ravi=30, Meena=0, Asha=25)  # Ravi 110 out; H = Meena 65
    response = client.post(
        f"/g/{game.edit_token}/rejoin/", {"player": "Ravi", "version": str(revision(game))}
    )
    assert response.status_code == 302
    assert game.state().player("Ravi").total == 66
    # Deal 1 corrected: Meena had 70, so H was 70 and Ravi came back at 71.
    data = deal_data(game, "Asha", Ravi=80, Meena=70, Kiran=10)
    response = client.post(event_url(game, 0), data, follow=True)
    assert "Ravi's rejoin start moved 66 → 71" in text(response)
    assert game.state().player("Ravi").total == 71
    # As htmx, the same notice comes with the board.
    data = deal_data(game, "Asha", Ravi=80, Meena=65, Kiran=10)
    response = client.post(event_url(game, 0), data, **HTMX)
    assert "Ravi's rejoin start moved 71 → 66" in text(response)


def test_a_refusal_after_a_delete_names_events_as_the_screen_numbers_them(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=60, Meena=10, Kiran=10)
    post_deal(client, game, "Asha", Ravi=45, Meena=10, Kiran=10)  # Ravi 105: out
    client.post(f"/g/{game.edit_token}/rejoin/", {"player": "Ravi", "version": "2"})
    # Deleting deal 1 leaves Ravi at 45 after what is then the first deal: he was never out.
    response = client.post(event_url(game, 0, "delete/"), {"version": str(revision(game))})
    page = text(client.get(response["Location"]))
    # The screen shows the rejoin after deal 2, so the refusal says deal 2, not deal 1.
    assert "Not deleted: Ravi could no longer rejoin after deal 2: Ravi is still in." in page
    assert game.events.count() == 3


# ------------------------------------------------------------ words


def test_the_chart_of_chips_is_not_the_chart_of_the_chipss(client):
    game = new_game(client, fmt="deals-2", players=("Asha", "Ravi"))
    post_deal(client, game, "Asha", Ravi=10)
    page = text(client.get(game.get_absolute_url()))
    assert "Chart of the chips<" in page and "chipss" not in page


def test_the_calculator_asks_for_the_13_cards(client):
    page = text(client.get("/calculator/"))
    assert "Tap the 13 cards" in page and "Tap the 0 of 13" not in page


def test_one_drop_is_one_drop_not_1_drops(client):
    game = new_game(client, max_drops="1", rules_shown="1")
    post_deal(client, game, "Asha", Ravi="first_drop", Meena=10, Kiran=10)
    response = client.post(
        deal_url(game), deal_data(game, "Asha", Ravi="first_drop", Meena=10, Kiran=10)
    )
    assert response.status_code == 422
    assert "Ravi: has taken 1 drop, the most this table allows" in text(response)


def test_import_errors_read_as_the_screen_words_them(client):
    doc = {
        "schema": "rummy-tracker.game/1",
        "format": "pool",
        "players": ["Asha", "Ravi"],
        "history": [{"type": "deal", "winner": "Asha", "results": {"Ravi": 95}}],
    }
    upload = SimpleUploadedFile("game.json", json.dumps(doc).encode())
    page = text(client.post("/import/", {"file": upload}))
    assert "Not imported: Deal 1, Ravi: points must be 0 or between 2 and 80." in page
    assert "history[" not in page and "results.Ravi" not in page


def test_a_broken_json_file_is_not_called_a_game_csv(client):
    upload = SimpleUploadedFile("game.json", b"schema: broken {")
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 422
    page = text(response)
    assert (
        "Not imported: not a JSON document" in page
        and "CSV" not in page.split("Not imported")[1][:80]
    )


def test_the_home_page_says_how_many_deals_were_played_and_when(client):
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=10, Meena=10, Kiran=10)
    page = text(client.get("/"))
    assert "In progress · 1 deal played" in page
    # The day as the family's clock reads it (TIME_ZONE, India), not UTC's: from
    # 18:30 UTC it is already the next day there.
    assert f'<time datetime="{timezone.localtime(game.updated_at).isoformat()[:10]}' in page


def test_a_pool_winner_wins_the_pot(client):
    game = new_game(client, players=("Amma", "Ravi"), entry_fee="100")
    post_deal(client, game, "Amma", Ravi=80)
    post_deal(client, game, "Amma", Ravi=30)  # Ravi 110: out; pot 2 x 100
    assert "Amma wins the pot of ₹200.00!" in text(client.get(game.get_absolute_url()))


def test_a_points_session_has_no_winner_badge_and_labels_its_columns(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi"), point_value="1")
    post_deal(client, game, "Asha", Ravi=10)
    client.post(f"/g/{game.edit_token}/end/", {"version": str(revision(game))})
    page = text(client.get(game.get_absolute_url()))
    assert ">Winner<" not in page
    assert ">Balance (points)<" in page and ">Money<" in page


def test_must_play_is_not_shown_once_the_game_is_over(client):
    game = new_game(client, players=("Asha", "Ravi", "Meena"))
    post_deal(client, game, "Asha", Ravi=80, Meena=5)
    post_deal(client, game, "Meena", Ravi=30, Asha=45)  # Ravi 110: out
    post_deal(client, game, "Meena", Asha=40)  # Asha 85: (100 - 85) // 20 = 0 drops left
    assert "must play" in text(client.get(game.get_absolute_url()))
    post_deal(client, game, "Asha", Meena=80)  # Meena 85
    post_deal(client, game, "Asha", Meena=20)  # Meena 105: out; Asha wins at 85
    page = text(client.get(game.get_absolute_url()))
    assert "Asha wins!" in page
    assert "must play" not in page


def test_table_rules_say_they_open_and_the_entry_fee_sits_by_the_presets(client):
    page = text(client.get("/new/"))
    assert 'Table rules <span class="hint">(tap to see or change)</span>' in page
    fee = page.index('name="entry_fee"')
    assert page.index("<legend>Format</legend>") < fee < page.index("<legend>Players")


def seat_refusals(page):
    """Each seat's refusal shown beside it, by seat index."""
    found = re.findall(r'<p class="error" id="err-player-(\d+)" role="alert">([^<]*)</p>', page)
    return {int(seat): html.unescape(words) for seat, words in found}


def test_every_seat_refusal_shows_at_once_beside_its_seat(client):
    """Issue 26.15: Ravi / blank / ravi flags the blank seat and the duplicate
    together; four blank seats are all four flagged; a new table with nothing
    filled in flags its name and its members."""
    data = {"format": "pool-101", "rules_for": "pool-101", "dealer": "0"}
    page = text(client.post("/new/", {**data, "player": ["Ravi", "", "ravi"]}))
    assert seat_refusals(page) == {
        1: "Seat 2 has no name: type one, or remove the seat with ✕",
        2: "Ravi is at the table twice: names must differ",
    }
    page = text(client.post("/new/", {**data, "player": ["", "", "", ""]}, **HTMX))
    assert seat_refusals(page) == {
        seat: f"Seat {seat + 1} has no name: type one, or remove the seat with ✕"
        for seat in range(4)
    }
    # One name is too few: the empty seats beside it are where the others go.
    page = text(client.post("/new/", {**data, "player": ["Asha", "", ""]}))
    assert set(seat_refusals(page)) == {1, 2}
    assert Game.objects.count() == 0
    response = client.post("/tables/new/", {"name": "", "members": ""})
    assert response.status_code == 422
    page = text(response)
    assert 'id="name-error" role="alert">Give the table a name' in page
    assert 'id="members-error" role="alert">A table needs at least 2 members' in page
    assert Table.objects.count() == 0
