"""The screens of people coming and going: add a player, sit out, back in, leave.

Plain posts redirect; htmx posts get the game fragment. The worked points
session of tests/examples/13 is played through the screens, and its figures
are the ones worked out by hand there (see tests/rules/test_people.py).
"""

import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.conftest import input_part, load_example, our_example_paths, without_language_switch
from tests.rules.test_people import IMPORT_REFUSALS
from tests.views.test_games import HTMX, event_url, new_game, revision, text
from tracker.documents import game_json
from tracker.models import Event, Game

pytestmark = pytest.mark.django_db


def deal_form(game, winner, **results):
    """Deal form data by name, with the seats of the game as it stands now."""
    state = game.state()
    seats = {p.name: p.seat for p in state.players}
    data = {"winner": str(seats[winner]), "version": str(revision(game))}
    for name, result in results.items():
        if isinstance(result, int):
            data[f"r{seats[name]}"] = "points"
            data[f"p{seats[name]}"] = str(result)
        else:
            data[f"r{seats[name]}"] = result
    return data


def post(client, game, what, htmx=False, **data):
    data.setdefault("version", str(revision(game)))
    headers = HTMX if htmx else {}
    return client.post(f"/g/{game.edit_token}/{what}/", data, **headers)


def play(client, game, winner, **results):
    response = client.post(f"/g/{game.edit_token}/deal/", deal_form(game, winner, **results))
    assert response.status_code == 302, text(response)[-3000:]


def balances(game):
    return {p.name: p.balance for p in game.state().players}


def deal_section(page):
    return page[page.index('id="deal-entry"') : page.index('id="share"')]


def test_the_worked_points_session_through_the_screens(client):
    game = new_game(
        client, fmt="points", players=("Asha", "Ravi", "Meena", "Kiran"), point_value="2"
    )
    play(client, game, "Ravi", Asha="first_drop", Meena=35, Kiran=10)
    play(client, game, "Meena", Asha=12, Ravi="middle_drop", Kiran=25)
    # Dev arrives: "Add a player", sitting after Ravi. A plain post redirects.
    page = text(client.get(game.get_absolute_url()))
    assert "Add a player" in page
    assert '<option value="Ravi">After Ravi</option>' in page
    response = post(client, game, "join", name="Dev", after="Ravi")
    assert response.status_code == 302
    state = game.state()
    assert [p.name for p in state.players] == ["Asha", "Ravi", "Dev", "Meena", "Kiran"]
    page = text(client.get(game.get_absolute_url()))
    assert "Dev joined, after Ravi (balance 0)" in page
    assert "Enter deal 3 <small>Dev deals</small>" in page
    play(client, game, "Dev", Asha=30, Ravi=0, Meena="full_count", Kiran=15)
    # Meena steps away for deals 4 and 5.
    assert post(client, game, "sit-out", player="Meena").status_code == 302
    page = text(client.get(game.get_absolute_url()))
    assert re.search(r"<th scope=\"row\">Meena <span class=\"badge\">Sits out</span>", page)
    deal = deal_section(page)
    assert "Meena" not in deal and "Dev" in deal  # the deal form shows only those dealt in
    assert "Enter deal 4 <small>Kiran deals</small>" in page
    assert "Meena sits out" in page
    assert "Back in Meena" in page  # her "Back in" button
    play(client, game, "Asha", Ravi=22, Dev=18, Kiran="wrong_show")
    play(client, game, "Kiran", Asha=9, Ravi="first_drop", Dev=40)
    assert balances(game)["Meena"] == -38  # kept while away
    assert post(client, game, "sit-in", player="Meena").status_code == 302
    play(client, game, "Meena", Asha=5, Ravi=14, Dev="middle_drop", Kiran=2)
    # Kiran goes home: "Leave" asks first, then the post.
    page = text(client.get(game.get_absolute_url()))
    assert "Kiran goes home for good? Their balance stays in the settlement." in page
    assert post(client, game, "leave", player="Kiran").status_code == 302
    page = text(client.get(game.get_absolute_url()))
    assert re.search(r"<th scope=\"row\">Kiran <span class=\"badge\">Left</span>", page)
    assert "Kiran left" in page
    assert "Kiran" not in deal_section(page)
    assert "Enter deal 7 <small>Dev deals</small>" in page
    play(client, game, "Ravi", Asha=16, Dev=0, Meena=24)
    assert post(client, game, "end").status_code == 302
    # Balances +28 +9 +27 -1 -63 at 2 a point; Kiran, who left, still pays.
    assert balances(game) == {"Asha": 28, "Ravi": 9, "Dev": 27, "Meena": -1, "Kiran": -63}
    page = text(client.get(game.get_absolute_url()))
    for line in (
        "<strong>Kiran</strong> pays <strong>Asha</strong> ₹56.00",
        "<strong>Kiran</strong> pays <strong>Dev</strong> ₹54.00",
        "<strong>Kiran</strong> pays <strong>Ravi</strong> ₹16.00",
        "<strong>Meena</strong> pays <strong>Ravi</strong> ₹2.00",
    ):
        assert line in page
    assert "Add a player" not in page and "Sit out" not in page


def test_htmx_posts_swap_in_the_game(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"))
    response = post(client, game, "join", htmx=True, name="Dev", after="")
    assert response.status_code == 200
    fragment = text(response)
    assert "<html" not in fragment and 'id="game"' in fragment
    assert "Dev joined, at the end of the table (balance 0)" in fragment
    response = post(client, game, "sit-out", htmx=True, player="Dev")
    assert response.status_code == 200
    assert 'Dev <span class="badge">Sits out</span>' in text(response)
    response = post(client, game, "sit-in", htmx=True, player="Dev")
    assert response.status_code == 200
    response = post(client, game, "leave", htmx=True, player="Dev")
    assert response.status_code == 200
    assert game.state().player("Dev").status == "left"


def test_the_pool_latecomer_through_the_screen(client):
    game = new_game(client, fmt="pool-101", players=("Asha", "Ravi", "Meena"), entry_fee="50")
    play(client, game, "Asha", Ravi=30, Meena="middle_drop")
    page = text(client.get(game.get_absolute_url()))
    # H = 40: a joiner starts at 41, and the pot grows from 150 to 200.
    assert "A new player starts at 41; the pot becomes ₹200.00." in page
    assert "Sit out" not in page  # only points has sit-outs
    assert post(client, game, "join", name="Dev", after="Asha").status_code == 302
    page = text(client.get(game.get_absolute_url()))
    assert "Pool 101 · pot ₹200.00" in page
    assert "Dev joined, after Asha (total 41)" in page
    assert "Enter deal 2 <small>Dev deals</small>" in page


# ------------------------------------------------------------ refusals, beside the field


def assert_nothing_saved(game, events):
    assert game.events.count() == events
    assert Event.objects.filter(game=game).count() == events


@pytest.mark.parametrize("htmx", [False, True])
def test_a_name_already_at_the_table_is_refused_beside_the_name(client, htmx):
    game = new_game(client, fmt="points", players=("Asha", "Ravi"))
    response = post(client, game, "join", htmx=htmx, name="asha", after="Ravi")
    assert response.status_code == 422
    page = text(response)
    assert (
        '<p class="error" id="err-join-name" role="alert">asha cannot join: Asha is already '
        "seated in this game, so the new player needs another name</p>"
    ) in page
    assert 'value="asha"' in page  # what was typed stays
    assert '<option value="Ravi" selected>' in page
    assert '<details class="confirm add-player" id="add-player" open>' in page
    assert_nothing_saved(game, 0)


def test_a_blank_name_and_an_unknown_seat_are_refused(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi"))
    response = post(client, game, "join", name="  ")
    assert response.status_code == 422
    assert "Type the new player&#x27;s name" in text(response)
    response = post(client, game, "join", name="Dev", after="Zed")
    assert response.status_code == 422
    assert 'id="err-join-after" role="alert">After must name a player seated' in text(response)
    assert_nothing_saved(game, 0)


def test_a_join_in_deals_is_refused(client):
    game = new_game(client, fmt="deals-2", players=("Asha", "Ravi"))
    page = text(client.get(game.get_absolute_url()))
    assert "Add a player" not in page and "join" not in page.lower()
    response = post(client, game, "join", name="Dev")
    assert response.status_code == 302
    page = text(client.get(response["Location"]))
    assert "Dev cannot join: every player&#x27;s chips are fixed at the start" in page
    response = post(client, game, "join", htmx=True, name="Dev")
    assert response.status_code == 422
    assert "Dev cannot join: every player&#x27;s chips are fixed" in text(response)
    # A blank name too is told why nobody joins here, not to type a name in a form not shown.
    response = post(client, game, "join", htmx=True, name=" ")
    assert response.status_code == 422
    assert "A new player cannot join: every player&#x27;s chips are fixed" in text(response)
    assert_nothing_saved(game, 0)


def test_an_eleventh_player_is_refused(client):
    names = [f"P{i}" for i in range(1, 10)]
    game = new_game(client, fmt="points", players=names)
    assert post(client, game, "join", name="Ten").status_code == 302
    page = text(client.get(game.get_absolute_url()))
    assert "Add a player" not in page
    assert "Nobody can join now: a game has at most 10 players." in page
    response = post(client, game, "join", name="Eleven", htmx=True)
    assert response.status_code == 422
    assert "Eleven cannot join: a game has at most 10 players" in text(response)
    assert_nothing_saved(game, 1)


def test_a_pool_join_above_the_cutoff_or_with_rejoins_off_is_refused(client):
    game = new_game(client, fmt="pool-101", players=("Asha", "Ravi", "Meena"))
    play(client, game, "Asha", Ravi=80, Meena=10)
    page = text(client.get(game.get_absolute_url()))
    assert (
        "Nobody can join now: the highest total still in is 80, above the rejoin cutoff 79." in page
    )
    response = post(client, game, "join", name="Dev", htmx=True)
    assert response.status_code == 422
    assert "Dev cannot join: the highest total still in is 80" in text(response)
    assert_nothing_saved(game, 1)
    off = Game.create("pool", {"rejoin": False}, ["Asha", "Ravi"])
    response = post(client, off, "join", name="Dev", htmx=True)
    assert response.status_code == 422
    assert "Dev cannot join: rejoins are off at this table" in text(response)
    assert_nothing_saved(off, 0)


@pytest.mark.parametrize("htmx", [False, True])
def test_a_sit_out_that_leaves_fewer_than_two_dealt_in_is_refused(client, htmx):
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"))
    assert post(client, game, "sit-out", player="Meena").status_code == 302
    page = text(client.get(game.get_absolute_url()))
    assert "Sit out Asha" not in page  # no Sit out or Leave button with two left
    response = post(client, game, "sit-out", htmx=htmx, player="Asha")
    message = "Asha cannot sit out: at least two players must stay dealt in"
    if htmx:
        assert response.status_code == 422
        assert message in text(response)
    else:
        assert response.status_code == 302
        assert message in text(client.get(response["Location"]))
    response = post(client, game, "leave", player="Ravi")
    assert "Ravi cannot leave: at least two" in text(client.get(response["Location"]))
    assert_nothing_saved(game, 1)


def test_a_sit_in_after_a_leave_is_refused(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"))
    assert post(client, game, "leave", player="Meena").status_code == 302
    page = text(client.get(game.get_absolute_url()))
    assert "Back in Meena" not in page
    response = post(client, game, "sit-in", player="Meena", htmx=True)
    assert response.status_code == 422
    assert "Meena has left and cannot sit back in" in text(response)
    assert_nothing_saved(game, 1)


def test_a_result_for_a_player_sitting_out_is_not_taken(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"))
    before_sit_out = deal_form(game, "Asha", Ravi=10, Meena=20)
    assert post(client, game, "sit-out", player="Meena").status_code == 302
    # The form made before Meena sat out is refused whole, and nothing is saved.
    response = client.post(f"/g/{game.edit_token}/deal/", before_sit_out)
    assert response.status_code == 409
    assert "Here is the new score" in text(response)
    assert_nothing_saved(game, 1)
    # A box for Meena posted anyway is refused, not ignored (rules.md, "Bad input").
    data = {**deal_form(game, "Asha", Ravi=10), "r3": "points", "p3": "20"}
    response = client.post(f"/g/{game.edit_token}/deal/", data)
    assert response.status_code == 422
    assert "Meena sits out and has no result" in text(response)
    assert_nothing_saved(game, 1)


def test_an_edit_that_makes_a_later_join_impossible_is_refused_naming_it(client):
    game = new_game(client, fmt="pool-101", players=("Asha", "Ravi", "Meena"))
    play(client, game, "Asha", Ravi=60, Meena=10)
    assert post(client, game, "join", name="Dev").status_code == 302
    edit_url = event_url(game, 0)
    data = deal_form(game, "Asha", Ravi=80, Meena=10)
    response = client.post(edit_url, data)
    assert response.status_code == 422
    assert (
        "Not saved: Dev could no longer join after deal 1: the highest total still in is 80, "
        "above the rejoin cutoff 79."
    ) in text(response)
    assert game.state().player("Ravi").total == 60


def test_undo_of_a_join_a_later_deal_needs_is_refused_naming_the_deal(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi"))
    assert post(client, game, "join", name="Dev").status_code == 302
    play(client, game, "Asha", Ravi=10, Dev=20)
    page = text(client.get(game.get_absolute_url()))
    join_undo = event_url(game, 0, "delete/")
    assert f'action="{join_undo}"' in page  # the join's Undo
    response = client.post(join_undo, {"version": str(revision(game))})
    assert response.status_code == 302
    page = text(client.get(response["Location"]))
    assert "Not deleted: deal 1 would no longer stand (Dev is not at this table)." in page
    assert game.events.count() == 2
    # Undo of the deal, then of the join, works.
    deal_undo = event_url(game, 1, "delete/")
    assert client.post(deal_undo, {"version": str(revision(game))}).status_code == 302
    assert client.post(join_undo, {"version": str(revision(game))}).status_code == 302
    assert [p.name for p in game.state().players] == ["Asha", "Ravi"]


def test_the_view_link_shows_who_sits_out_but_changes_nothing():
    client = Client()
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"))
    post(client, game, "sit-out", player="Meena")
    page = text(client.get(game.get_view_url()))
    assert 'Meena <span class="badge">Sits out</span>' in page
    assert "<form" not in without_language_switch(page) and "Add a player" not in page
    for what in ("join", "sit-out", "sit-in", "leave"):
        response = client.post(f"/g/{game.view_token}/{what}/", {"player": "Asha", "name": "X"})
        assert response.status_code == 404
    assert_nothing_saved(game, 1)


def test_the_new_forms_need_a_csrf_token():
    client = Client(enforce_csrf_checks=True)
    game = Game.create("points", {}, ["A", "B", "C"])
    for what, data in (("join", {"name": "D"}), ("sit-out", {"player": "C"})):
        response = client.post(f"/g/{game.edit_token}/{what}/", {**data, "version": "0"})
        assert response.status_code == 403
    assert_nothing_saved(game, 0)


def test_the_new_urls_take_only_posts(client):
    game = Game.create("points", {}, ["A", "B", "C"])
    for what in ("join", "sit-out", "sit-in", "leave"):
        assert client.get(f"/g/{game.edit_token}/{what}/").status_code == 405


@pytest.mark.parametrize(("fmt", "players", "history", "words"), IMPORT_REFUSALS)
def test_the_import_page_refuses_what_the_rules_refuse(client, fmt, players, history, words):
    doc = {"schema": game_json.SCHEMA, "format": fmt, "players": players, "history": history}
    upload = SimpleUploadedFile("game.json", json.dumps(doc).encode(), "application/json")
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 422
    page = text(response)
    # Readable: no document path (history[0], results.C), just the event and the words.
    assert "Not imported: " in page and "history[" not in page
    core = re.sub(r"^(history\[\d+\] \([^)]*\): )?((player|type|results\.\w+):)? ?", "", words)
    assert html.escape(core, quote=True) in page
    assert Game.objects.count() == 0 and Event.objects.count() == 0


def test_the_import_page_takes_a_worked_game_with_a_joiner(client):
    doc = load_example(our_example_paths()[0])
    upload = SimpleUploadedFile("game.json", json.dumps(input_part(doc)).encode())
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.as_document() == doc
    page = text(client.get(response["Location"]))
    assert 'Kiran <span class="badge">Left</span>' in page


def test_undo_of_a_join_a_later_sit_out_needs_is_refused_naming_it(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"))
    assert post(client, game, "sit-out", player="Meena").status_code == 302
    assert post(client, game, "join", name="Dev").status_code == 302
    assert post(client, game, "sit-out", player="Ravi").status_code == 302  # Asha and Dev play
    response = client.post(event_url(game, 1, "delete/"), {"version": str(revision(game))}, **HTMX)
    assert response.status_code == 422
    assert (
        "Not deleted: Ravi could no longer sit out before the first deal: at least two players "
        "must stay dealt in."
    ) in text(response)
    assert game.events.count() == 3


def test_correcting_a_deal_before_a_join_shows_only_who_was_dealt_in(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi"))
    play(client, game, "Asha", Ravi=10)
    assert post(client, game, "join", name="Dev", after="Asha").status_code == 302
    play(client, game, "Dev", Asha=5, Ravi=7)
    page = text(client.get(event_url(game, 0)))
    assert "Asha" in page and "Ravi" in page and "Dev" not in page
    # Deal 1 corrected to 20: the seats of deal 1 (Ravi was seat 2) are the form's.
    response = client.post(
        event_url(game, 0),
        {"winner": "1", "r2": "points", "p2": "20", "version": str(revision(game))},
    )
    assert response.status_code == 302
    # Asha +20 -5, Ravi -20 -7, Dev +12.
    assert balances(game) == {"Asha": 15, "Dev": 12, "Ravi": -27}


def _press(client, page, label):
    """What a browser posts when the seating list's button `label` is pressed,
    without JavaScript: the one form's fields, and the button's own name and
    value, to the button's formaction."""
    seating = page[page.index('<details class="seating"') :]
    seating = seating[: seating.index('<p class="hint">')]
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', seating))
    labelled = rf'<button [^>]*aria-label="{label}"[^>]*>|<button [^>]*>{label}</button>'
    button = re.search(labelled, seating)
    assert button, f"no button {label!r} in {seating}"
    attrs = dict(re.findall(r'(\w+)="([^"]*)"', button.group(0)))
    fields[attrs["name"]] = html.unescape(attrs["value"])
    return client.post(html.unescape(attrs["formaction"]), fields)


def test_who_plays_next_is_one_form_folded_while_everybody_plays(client):
    game = new_game(client, fmt="points", players=("Asha", "Ravi", "Meena"))
    play(client, game, "Ravi", Asha=10, Meena=20)
    page = text(client.get(game.get_absolute_url()))
    # Everybody plays: folded under the board, the deal form right after it.
    assert '<details class="seating">' in page
    assert page.index('<details class="seating">') < page.index('id="deal-entry"')
    # One form for the whole list (not two a player), its token and version once.
    listed = page[page.index('<details class="seating">') : page.index('id="deal-entry"')]
    assert listed.count("<form") == 1 and listed.count('name="csrfmiddlewaretoken"') == 1
    assert listed.count('name="version"') == 1
    # Sit out Meena, as a phone without JavaScript presses it.
    response = _press(client, page, "Sit out Meena")
    assert response.status_code == 302
    assert game.history()[-1] == {"type": "sit_out", "player": "Meena"}
    # While she sits out the list is open, her Back in button showing.
    page = text(client.get(game.get_absolute_url()))
    assert '<details class="seating" open>' in page
    assert 'aria-label="Back in Meena"' in page and 'aria-label="Sit out Meena"' not in page
    assert _press(client, page, "Back in Meena").status_code == 302
    assert game.history()[-1] == {"type": "sit_in", "player": "Meena"}
    page = text(client.get(game.get_absolute_url()))
    assert '<details class="seating">' in page
    # Ravi leaves: the button behind Leave's question posts to leave.
    assert _press(client, page, "Yes, Ravi leaves").status_code == 302
    assert game.history()[-1] == {"type": "leave", "player": "Ravi"}
    state = game.state()
    assert [p.name for p in state.players if p.status == "in"] == ["Asha", "Meena"]
