"""A Basic Rummy game through the phone screens: create, score, watch, edit, export, import.

Expected figures are worked by hand in the comments (rules.md, "Basic Rummy").
"""

import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tracker.models import Event, Game

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
PLAYERS = ["Asha", "Ravi", "Meena"]


def text(response):
    return re.sub(r"\s+", " ", response.content.decode())


def errors(response):
    return [html.unescape(m) for m in re.findall(r'class="error"[^>]*>([^<]*)<', text(response))]


def new_basic(client, key="basic-100", players=PLAYERS, **extra):
    data = {"format": key, "rules_for": key, "player": list(players), "dealer": "0", **extra}
    response = client.post("/new/", data)
    assert response.status_code == 302, errors(response)
    return Game.objects.get(edit_token=response["Location"].split("/")[2])


def deal_data(game, winner, rummy=False, **counts):
    seats = {p.name: p.seat for p in game.players.all()}
    revision = Game.objects.values_list("revision", flat=True).get(pk=game.pk)
    data = {"winner": str(seats[winner]), "version": str(revision)}
    for name, count in counts.items():
        data[f"r{seats[name]}"] = "points"  # the box's kind: a typed figure
        data[f"p{seats[name]}"] = str(count)
    if rummy:
        data["rummy"] = "on"
    return data


def post_deal(client, game, winner, rummy=False, htmx=False, **counts):
    headers = HTMX if htmx else {}
    data = deal_data(game, winner, rummy, **counts)
    return client.post(f"/g/{game.edit_token}/deal/", data, **headers)


def totals(game):
    return {p.name: p.total for p in game.state().players}


def scoreboard_total(page, name):
    return re.search(rf"<th scope=\"row\">{name}\b.*?<td class=\"num\">(\d+)</td>", page).group(1)


# ------------------------------------------------------------ creating


def test_the_new_game_screen_offers_the_basic_presets(client):
    page = text(client.get("/new/"))
    for label in ("Basic to 100", "Basic to 150", "Basic to 250", "Basic, number of deals"):
        assert label in page
    page = text(
        client.post(
            "/new/",
            {
                "format": "basic-100",
                "rules_for": "pool-101",
                "player": PLAYERS,
                "action": "refresh",
            },
        )
    )
    # Basic's own table rules, filled with its defaults; no drops in basic.
    assert '<option value="winner_collects" selected>' in page
    assert '<option value="double" selected>' in page
    assert 'name="target" value="100"' in page
    assert 'name="point_value" value="0"' in page
    assert 'name="first_drop"' not in page


@pytest.mark.parametrize(("key", "target"), [("basic-100", 100), ("basic-250", 250)])
def test_create_basic_to_a_target(client, key, target):
    game = new_basic(client, key)
    assert game.format == "basic"
    assert game.rules["target"] == target and game.rules["deal_count"] is None
    assert game.name == f"Basic Rummy to {target}"
    page = text(client.get(game.get_absolute_url()))
    assert f"Basic Rummy · to {target} · winner collects · 0 deals played" in page
    # A count box per loser, a Went rummy toggle, no drop buttons, no calculator.
    assert page.count('placeholder="count"') == 3
    assert 'name="rummy"' in page and "Went rummy" in page
    assert "First drop" not in page and "Full count" not in page
    assert "Count Asha" not in page
    assert client.get(f"/g/{game.edit_token}/count/2/").status_code == 404


def test_create_basic_for_a_number_of_deals_in_penalty(client):
    game = new_basic(
        client,
        "basic-deals",
        deal_count="5",
        rules_shown="1",
        scoring="penalty",
        going_rummy="plus_10",
        target="",
        point_value="0.50",
        money_unit="0.01",
    )
    assert game.rules == {
        "scoring": "penalty",
        "target": None,
        "deal_count": 5,
        "going_rummy": "plus_10",
        "point_value": "0.50",
        "money_unit": "0.01",
    }
    page = text(client.get(game.get_absolute_url()))
    assert "Basic Rummy · 5 deals · penalty" in page


@pytest.mark.parametrize(
    ("extra", "field_error"),
    [
        ({"deal_count": ""}, "Type the number of deals, a whole number"),
        ({"deal_count": "many"}, "Type the number of deals, a whole number"),
        ({"deal_count": "101"}, "Number of deals must be at most 100"),
        (
            {"deal_count": "5", "rules_shown": "1", "target": "", "going_rummy": "off"},
            None,
        ),
    ],
)
def test_new_basic_game_refusals_save_nothing(client, extra, field_error):
    data = {"format": "basic-deals", "rules_for": "basic-deals", "player": PLAYERS, **extra}
    response = client.post("/new/", data)
    if field_error is None:  # the control: this one is fine
        assert response.status_code == 302
        return
    assert response.status_code == 422
    assert field_error in errors(response)
    assert Game.objects.count() == 0


def test_target_and_deal_count_both_empty_is_refused_beside_the_target(client):
    data = {
        "format": "basic-100",
        "rules_for": "basic-100",
        "player": PLAYERS,
        "rules_shown": "1",
        "target": "",
    }
    response = client.post("/new/", data)
    assert response.status_code == 422
    page = text(response)
    rule = page[page.index('for="rule-target"') :]
    assert "Set a target or a number of deals (or both): the game needs an end" in rule[:800]
    assert Game.objects.count() == 0


# ------------------------------------------------------------ scoring


def test_score_a_game_with_a_rummy_deal_to_the_end(client):
    game = new_basic(client)
    # Deal 1: Ravi collects 12 + 25 = 37.
    assert post_deal(client, game, "Ravi", Asha=12, Meena=25).status_code == 302
    # Deal 2, rummy (double): Meena collects (8 + 15) x 2 = 46.
    response = post_deal(client, game, "Meena", rummy=True, htmx=True, Asha=8, Ravi=15)
    assert response.status_code == 200
    page = text(response)
    assert scoreboard_total(page, "Meena") == "46"
    assert "Rummy!" in page  # the history marks the rummy win
    assert Event.objects.get(game=game, position=1).data["rummy"] is True
    # Deal 3: Ravi 37 + 30 + 40 = 107 >= 100: Ravi wins.
    post_deal(client, game, "Ravi", Asha=30, Meena=40)
    assert totals(game) == {"Asha": 0, "Ravi": 107, "Meena": 46}
    page = text(client.get(game.get_absolute_url()))
    assert "Ravi wins!" in page
    assert "Enter deal 4" not in page
    # A deal after the end is refused and saves nothing.
    response = post_deal(client, game, "Asha", Ravi=1, Meena=2)
    assert response.status_code == 422
    assert "The game is over: no more deals." in errors(response)
    assert game.events.count() == 3


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"Asha": "1000", "Meena": "3"}, "Asha: count must be between 0 and 999"),
        ({"Asha": "2.5", "Meena": "3"}, "Asha: count must be a whole number"),
        ({"Asha": "", "Meena": "3"}, "Asha: type the count of the cards left in hand"),
    ],
)
def test_a_bad_count_is_refused_beside_the_player(client, counts, message):
    game = new_basic(client)
    response = post_deal(client, game, "Ravi", **counts)
    assert response.status_code == 422
    assert message in errors(response)
    assert game.events.count() == 0


def test_a_word_result_is_refused(client):
    game = new_basic(client)
    data = deal_data(game, "Ravi", Asha=4, Meena=5)
    data["r1"] = "first_drop"  # posted by hand: the form offers no drop in basic
    response = client.post(f"/g/{game.edit_token}/deal/", data)
    assert response.status_code == 422
    assert "Asha: 'first_drop' is not a count" in errors(response)[0]
    assert game.events.count() == 0


def test_a_rummy_mark_when_going_rummy_is_off_is_refused(client):
    game = new_basic(client, rules_shown="1", going_rummy="off", target="100")
    page = text(client.get(game.get_absolute_url()))
    assert 'name="rummy"' not in page  # not offered
    response = post_deal(client, game, "Ravi", rummy=True, Asha=4, Meena=5)
    assert response.status_code == 422
    assert "Going rummy is off at this table: the deal cannot be marked rummy" in errors(response)
    assert game.events.count() == 0


def test_a_tie_breaker_shows_and_plays_only_the_level_players(client):
    game = new_basic(
        client,
        "basic-deals",
        deal_count="2",
        players=["Asha", "Ravi", "Meena", "Kiran"],
    )
    post_deal(client, game, "Ravi", Asha=10, Meena=5, Kiran=15)  # Ravi 30
    post_deal(client, game, "Kiran", Asha=10, Ravi=12, Meena=8)  # Kiran 30: level
    page = text(client.get(game.get_absolute_url()))
    assert "Tie-breaker! Ravi and Kiran are level on 30" in page
    assert "Tie-breaker: only Ravi and Kiran play." in page
    assert "Enter deal 3 <small>Kiran deals</small>" in page
    form = page[page.index('id="deal-entry"') :]
    assert 'name="p1"' not in form[: form.index("</form>")]  # Asha is not dealt in
    post_deal(client, game, "Kiran", Ravi=9)  # Kiran 39: alone in front
    assert "Kiran wins!" in text(client.get(game.get_absolute_url()))


# ------------------------------------------------------------ watching


def test_the_view_link_shows_the_score_and_changes_nothing(client):
    game = new_basic(client)
    post_deal(client, game, "Meena", rummy=True, Asha=8, Ravi=15)  # Meena 46
    page = text(client.get(game.get_view_url()))
    assert scoreboard_total(page, "Meena") == "46"
    assert "Rummy!" in page
    assert "<form" not in page[page.index('<div id="game">') :].split('<details class="share"')[0]
    assert "Edit deal" not in page
    chart = client.get(f"/w/{game.view_token}/chart.svg").content.decode()
    assert 'class="limit" data-value="100"' in chart  # the target, dashed
    assert "target 100" in chart


def test_settlement_at_the_end(client):
    game = new_basic(
        client,
        "basic-deals",
        deal_count="2",
        players=["Asha", "Ravi"],
        rules_shown="1",
        target="",
        scoring="penalty",
        point_value="0.25",
        money_unit="0.01",
    )
    post_deal(client, game, "Asha", Ravi=33)  # Ravi 33
    page = text(client.get(game.get_view_url()))
    assert "When the game ends, each loser pays the winner the difference." in page
    post_deal(client, game, "Ravi", Asha=18)  # Asha 18: the lower total wins
    page = text(client.get(game.get_view_url()))
    # Ravi pays (33 - 18) x 0.25 = 3.75.
    assert "<strong>Ravi</strong> pays <strong>Asha</strong> ₹3.75" in page
    assert "Asha wins and is paid ₹3.75 in all!" in page


# ------------------------------------------------------------ editing


def test_edit_a_deal_to_add_the_rummy_mark_and_delete_it(client):
    game = new_basic(client)
    post_deal(client, game, "Meena", Asha=8, Ravi=15)  # 23 to Meena
    page = text(client.get(game.get_absolute_url()))
    edit_link = r'<a class="change" href="([^"]+)"[^>]*aria-label="Edit deal 1">'
    edit_url = re.search(edit_link, page).group(1)
    form = text(client.get(edit_url))
    assert 'value="8"' in form and 'value="15"' in form
    assert 'name="rummy">' in form  # offered, not ticked
    data = deal_data(game, "Meena", rummy=True, Asha=8, Ravi=15)
    assert client.post(edit_url, data).status_code == 302
    assert totals(game)["Meena"] == 46  # now doubled: (8 + 15) x 2
    assert 'name="rummy" checked' in text(client.get(edit_url))
    # A count out of range in the edit is refused and the deal stays as it was.
    bad = deal_data(game, "Meena", Asha=1000, Ravi=15)
    response = client.post(edit_url, bad)
    assert response.status_code == 422
    assert "Asha: count must be between 0 and 999" in errors(response)
    assert totals(game)["Meena"] == 46
    # Deleting it leaves no deal.
    delete = re.search(r'action="([^"]+/delete/)"', form).group(1)
    game.refresh_from_db()
    assert client.post(delete, {"version": str(game.revision)}).status_code == 302
    assert game.events.count() == 0 and totals(game)["Meena"] == 0


# ------------------------------------------------------------ export and import


def test_export_json_and_csv_then_import_both(client):
    game = new_basic(client)
    post_deal(client, game, "Ravi", Asha=12, Meena=25)  # Ravi 37
    post_deal(client, game, "Meena", rummy=True, Asha=8, Ravi=15)  # Meena 46
    download = client.get(f"/g/{game.edit_token}/game.json")
    doc = json.loads(download.content)
    assert doc["format"] == "basic"
    assert doc["history"][1] == {
        "type": "deal",
        "winner": "Meena",
        "results": {"Asha": 8, "Ravi": 15},
        "rummy": True,
    }
    assert [p["total"] for p in doc["state"]["players"]] == [0, 37, 46]
    assert doc["state"]["settlement"] == [] and doc["state"]["next_dealer"] == "Meena"

    upload = SimpleUploadedFile("game.json", json.dumps(doc).encode())
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 302
    imported = Game.objects.get(edit_token=response["Location"].split("/")[2])
    assert json.loads(client.get(f"/w/{imported.view_token}/game.json").content) == doc

    csv_text = client.get(f"/w/{game.view_token}/game.csv").content.decode("utf-8-sig")
    assert "deal,2,Ravi,Meena,rummy," in csv_text
    upload = SimpleUploadedFile("game.csv", csv_text.encode())
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 302
    from_csv = Game.objects.get(edit_token=response["Location"].split("/")[2])
    again = json.loads(client.get(f"/w/{from_csv.view_token}/game.json").content)
    assert again == doc


def test_import_refuses_a_bad_basic_game_and_creates_nothing(client):
    doc = {
        "schema": "rummy-tracker.game/1",
        "name": "Bad",
        "format": "basic",
        "rules": {"going_rummy": "off"},
        "players": PLAYERS,
        "history": [{"type": "deal", "winner": "Asha", "results": {"Ravi": 3, "Meena": 4}}],
    }
    doc["history"][0]["rummy"] = True
    upload = SimpleUploadedFile("game.json", json.dumps(doc).encode())
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 422
    assert "Not imported: Deal 1: going rummy is off at this table" in text(response)
    assert Game.objects.count() == 0
