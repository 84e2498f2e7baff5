"""Sharing: view links change nothing, the live poll, downloads and the import page."""

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.conftest import example_paths, input_part, load_example, without_language_switch
from tests.views.test_games import HTMX, deal_data, new_game, post_deal, text
from tracker.models import Event, Game

pytestmark = pytest.mark.django_db


def game_patterns():
    """Every URL pattern of the app that takes a game token."""
    found = []

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                continue  # the admin
            if isinstance(pattern, URLPattern) and "token" in pattern.pattern.regex.groupindex:
                found.append(pattern)

    walk(get_resolver().url_patterns)
    return found


def url_for(pattern, token, event_id=1, values=None):
    regex = pattern.pattern.regex.pattern
    path = regex.lstrip("^").rstrip("$").replace("\\Z", "")
    path = re.sub(r"\(\?P<token>[^)]*\)", token, path)
    path = re.sub(r"\(\?P<kind>[^)]*\)", "edit", path)
    path = re.sub(r"\(\?P<event_id>[^)]*\)", str(event_id), path)
    path = re.sub(r"\(\?P<seat>[^)]*\)", "1", path)
    for name, value in (values or {}).items():
        path = re.sub(rf"\(\?P<{name}>[^)]*\)", str(value), path)
    path = re.sub(r"\(\?P<[a-z_]+>[^)]*\)", "1", path)  # any other id: a made-up one
    return "/" + path.replace("\\", "")


def test_a_view_token_cannot_change_anything_through_any_endpoint():
    client = Client()
    game = new_game(client)
    post_deal(client, game, "Asha", Ravi=10, Meena=10, Kiran=10)
    before = game.as_document()
    patterns = game_patterns()
    assert len(patterns) >= 10
    posted = 0
    for pattern in patterns:
        # A real event id: only the link may be what refuses the change.
        url = url_for(pattern, game.view_token, game.events.get().serial)
        for headers in ({}, HTMX):
            data = {
                **deal_data(game, "Asha", Ravi=5, Meena=5, Kiran=5),
                "player": "Ravi",
                "method": "equal",
                "confirm": "1",
            }
            response = client.post(url, data, **headers)
            posted += 1
            assert response.status_code in (403, 404, 405), (url, response.status_code)
    assert posted >= 20
    game.refresh_from_db()
    assert game.as_document() == before
    assert Event.objects.count() == 1


def test_a_tables_view_token_cannot_change_anything_through_any_endpoint():
    from tracker import tables
    from tracker.models import Member, Table

    client = Client()
    table = Table.start("Nani's table", ["Asha", "Ravi", "Meena"])
    game = Game.create("pool", {}, ["Asha", "Ravi"], table=table)
    post_deal(client, game, "Asha", Ravi=80)
    post_deal(client, game, "Asha", Ravi=80)
    meena = table.members.get(name="Meena")
    before = tables.export(table)
    patterns = game_patterns()
    table_urls = [p for p in patterns if str(p.pattern).startswith(("t/", "^t/", "tw/", "^tw/"))]
    assert len(table_urls) >= 12
    values = {"member": meena.pk, "game": game.pk, "kind": "edit"}
    posted = 0
    for pattern in patterns:
        url = url_for(pattern, table.view_token, values=values)
        for headers in ({}, HTMX):
            data = {
                "name": "Dev",
                "seat": [m.pk for m in table.members.all()],
                "format": "pool-101",
                "file": SimpleUploadedFile("t.json", json.dumps(before).encode()),
                # The table's own version: only the link may be what refuses the change.
                "version": str(table.revision),
            }
            response = client.post(url, data, **headers)
            posted += 1
            assert response.status_code in (403, 404, 405), (url, response.status_code)
    assert posted >= 2 * len(patterns)
    revision = table.revision
    table.refresh_from_db()
    assert table.revision == revision
    assert tables.export(table) == before
    assert (Game.objects.count(), Member.objects.count(), Table.objects.count()) == (1, 3, 1)
    # The same post with the edit link is taken: it was the link that refused it.
    data = {"name": "Dev", "version": str(table.revision)}
    assert client.post(f"/t/{table.edit_token}/members/", data).status_code == 302
    assert table.member_names() == ["Asha", "Ravi", "Meena", "Dev"]


def test_the_watch_page_has_no_write_form():
    client = Client()
    game = new_game(client)
    page = text(client.get(game.get_view_url()))
    assert "<form" not in without_language_switch(page)
    assert 'method="post"' not in without_language_switch(page)
    assert game.edit_token not in page


def test_posts_need_a_csrf_token():
    client = Client(enforce_csrf_checks=True)
    game = Game.create("pool", {}, ["A", "B"])
    response = client.post(f"/g/{game.edit_token}/deal/", deal_data(game, "A", B=10))
    assert response.status_code == 403
    assert game.events.count() == 0


def test_live_poll_answers_204_until_a_deal_is_saved_elsewhere():
    watcher, scorer = Client(), Client()
    game = new_game(scorer)
    page = text(watcher.get(game.get_view_url()))
    poll = re.search(r'hx-get="(/w/[^"]+/live/\?v=\d+)"', page).group(1)
    response = watcher.get(poll, **HTMX)
    assert response.status_code == 204
    assert response.content == b""
    # Another phone scores a deal.
    post_deal(scorer, game, "Asha", Ravi=34, Meena=2, Kiran=2)
    response = watcher.get(poll, **HTMX)
    assert response.status_code == 200
    fresh = text(response)
    assert "<html" not in fresh
    assert re.search(r"Ravi.*?<td class=\"num\">34</td>", fresh)
    assert 'hx-swap-oob="true"' in fresh  # the history comes along
    new_poll = re.search(r'hx-get="(/w/[^"]+/live/\?v=\d+)"', fresh).group(1)
    assert new_poll != poll
    assert watcher.get(new_poll, **HTMX).status_code == 204
    # The scorer's own poll sees the same.
    assert scorer.get(f"/g/{game.edit_token}/live/?v=0", **HTMX).status_code == 200


def test_polling_stops_when_the_game_is_over():
    client = Client()
    game = new_game(client, players=("A", "B"))
    post_deal(client, game, "A", B=80)
    assert "every 2s" in text(client.get(game.get_view_url()))
    post_deal(client, game, "A", B=80)
    page = text(client.get(game.get_view_url()))
    assert "A wins!" in page
    assert "every 2s" not in page


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_json_download_round_trips_through_the_import_page(path):
    client = Client()
    doc = load_example(path)
    upload = SimpleUploadedFile("game.json", json.dumps(input_part(doc)).encode())
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 302
    game = Game.objects.get(edit_token=response["Location"].split("/")[2])
    download = client.get(f"/w/{game.view_token}/game.json")
    assert download["Content-Type"] == "application/json"
    assert "attachment" in download["Content-Disposition"]
    exported = json.loads(download.content)
    want = load_example(path)
    if "settlement" in want["state"]:
        assert len(exported["state"].pop("settlement")) == len(want["state"].pop("settlement"))
    assert exported == want
    # And again: the download imports to the same document.
    upload = SimpleUploadedFile("again.json", download.content)
    again = client.post("/import/", {"file": upload})
    second = Game.objects.get(edit_token=again["Location"].split("/")[2])
    assert second.as_document() == game.as_document()
    assert second.edit_token != game.edit_token


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{nope", "Not imported: not a JSON document"),
        (b"\xff\xfe\x00", "not a text file"),
        (
            json.dumps(
                {
                    "schema": "rummy-tracker.game/1",
                    "format": "pool",
                    "players": ["A", "B"],
                    "history": [{"type": "deal", "winner": "A", "results": {"B": 1}}],
                }
            ).encode(),
            "Not imported: Deal 1, B: points must be 0 or between 2 and 80.",
        ),
    ],
)
def test_import_page_refuses_a_bad_file_and_creates_nothing(content, words):
    client = Client()
    response = client.post("/import/", {"file": SimpleUploadedFile("bad.json", content)})
    assert response.status_code == 422
    assert words in text(response)
    assert Game.objects.count() == 0
    response = client.post("/import/", {})
    assert "Choose a game file" in text(response)


def test_chart_has_one_line_per_player_with_a_point_per_deal():
    client = Client()
    game = new_game(client, entry_fee="10")
    post_deal(client, game, "Asha", Ravi=80, Meena=10, Kiran=40)
    post_deal(client, game, "Meena", Asha=30, Ravi=25, Kiran=20)
    client.post(f"/g/{game.edit_token}/rejoin/", {"player": "Ravi", "version": "2"})
    post_deal(client, game, "Kiran", Asha=5, Ravi=5, Meena=5)
    response = client.get(f"/w/{game.view_token}/chart.svg")
    assert response["Content-Type"] == "image/svg+xml"
    svg = response.content.decode()
    lines = re.findall(r'<polyline[^>]*class="line"[^>]*>', svg)
    assert len(lines) == 4
    for line in lines:
        points = re.search(r'points="([^"]*)"', line).group(1).split()
        assert len(points) == 3 + 1  # the start and one per deal
    assert 'class="limit"' in svg
    assert 'class="out"' in svg and 'class="rejoin"' in svg
    page = text(client.get(game.get_view_url()))
    assert f"/w/{game.view_token}/chart.svg" in page


def test_csv_download_round_trips_through_the_import_page():
    client = Client()
    game = new_game(client, entry_fee="10", players=("Asha", "Ravi", "Meena"))
    post_deal(client, game, "Asha", Ravi=80, Meena="first_drop")
    post_deal(client, game, "Meena", Asha=30, Ravi=25)
    client.post(f"/g/{game.edit_token}/rejoin/", {"player": "Ravi", "version": "2"})
    post_deal(client, game, "Ravi", Asha="full_count", Meena=7)
    download = client.get(f"/g/{game.edit_token}/game.csv")
    assert download["Content-Type"].startswith("text/csv")
    body = download.content.decode("utf-8-sig")
    deal_rows = [line for line in body.splitlines() if line.startswith("deal,")]
    assert len(deal_rows) == 3
    upload = SimpleUploadedFile("game.csv", download.content)
    response = client.post("/import/", {"file": upload})
    assert response.status_code == 302
    copy = Game.objects.get(edit_token=response["Location"].split("/")[2])
    assert copy.as_document() == game.as_document()


def test_import_page_names_the_csv_row_of_a_bad_deal():
    client = Client()
    game = new_game(client, players=("Asha", "Ravi"))
    post_deal(client, game, "Asha", Ravi=30)
    body = client.get(f"/g/{game.edit_token}/game.csv").content.decode("utf-8-sig")
    bad = body.replace("deal,1,Asha,Asha,,,30", "deal,1,Asha,Asha,,,1")
    assert bad != body
    response = client.post("/import/", {"file": SimpleUploadedFile("bad.csv", bad.encode())})
    assert response.status_code == 422
    assert "points must be 0 or between 2 and 80" in text(response)
    assert "row " in text(response)
    assert Game.objects.count() == 1


def test_a_cached_page_is_replaced_by_the_next_revision_and_carries_each_browsers_token():
    one, two = Client(), Client()
    game = new_game(one, players=("A", "B"))
    first = text(one.get(game.get_absolute_url()))
    again = text(one.get(game.get_absolute_url()))
    token_one = one.cookies["csrftoken"].value
    assert "csrf-slot-" not in again
    # Another browser gets the same page with a token that works for it.
    page_two = text(two.get(game.get_absolute_url()))
    token_two = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page_two).group(1)
    assert two.cookies["csrftoken"].value != token_one
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = two.cookies
    data = {**deal_data(game, "A", B=30), "csrfmiddlewaretoken": token_two}
    assert strict.post(f"/g/{game.edit_token}/deal/", data).status_code == 302
    # The saved deal shows at once: the page of the old revision is not served again.
    page = text(one.get(game.get_absolute_url()))
    assert page != first
    assert re.search(r"B.*?<td class=\"num\">30</td>", page)


def test_the_game_screen_lists_recent_events_and_all_on_request():
    client = Client()
    game = new_game(client, fmt="points", players=("A", "B"))
    for _ in range(15):
        post_deal(client, game, "A", B=2)
    page = text(client.get(game.get_absolute_url()))
    assert page.count('aria-label="Edit deal') == 12
    assert "Show all 15 events" in page
    page = text(client.get(game.get_absolute_url() + "?history=all"))
    assert page.count('aria-label="Edit deal') == 15
    assert "Show all" not in page
