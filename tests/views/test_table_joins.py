"""A player who joins a table's game becomes a member of the table (tables.md),
so the table's page, its view link and its document never fail, whatever its
games hold."""

import json
import sqlite3

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.servers.gunicorn import manage
from tests.views.test_games import text
from tests.views.test_people import deal_form, post
from tests.views.test_tables import make_table, table_game
from tracker.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

FIVE = ["Asha", "Ravi", "Meena", "Kiran", "Dev"]


def play(client, game, winner, **results):
    response = client.post(f"/g/{game.edit_token}/deal/", deal_form(game, winner, **results))
    assert response.status_code == 302, text(response)[-3000:]


def table_pages(client, table):
    """The table page, its view link and its document, each answered 200."""
    page = client.get(table.get_absolute_url())
    watched = client.get(table.get_view_url())
    document = client.get(f"/t/{table.edit_token}/table.json")
    for response in (page, watched, document):
        assert response.status_code == 200, text(response)[:2000]
    return text(page), text(watched), json.loads(document.content)


def test_a_latecomer_in_a_points_session_becomes_a_member_and_the_table_settles():
    client = Client()
    table = make_table(client, members=FIVE)
    game = table_game(client, table, ["Asha", "Ravi", "Meena"], fmt="points", point_value="1")
    play(client, game, "Asha", Ravi=20, Meena=40)
    assert post(client, game, "join", name="Chachu").status_code == 302
    play(client, game, "Ravi", Asha=10, Meena=2, Chachu=30)
    assert post(client, game, "end").status_code == 302

    assert table.member_names() == [*FIVE, "Chachu"]
    page, watched, document = table_pages(client, table)
    # Deal 1: Asha +60, Ravi -20, Meena -40. Deal 2: Ravi +42, Asha -10,
    # Meena -2, Chachu -30. So Asha +50, Ravi +22, Meena -42, Chachu -30.
    money = {m["name"]: m["money"] for m in document["stats"]["members"]}
    assert money == {
        "Asha": "50.00",
        "Ravi": "22.00",
        "Meena": "-42.00",
        "Kiran": "0.00",
        "Dev": "0.00",
        "Chachu": "-30.00",
    }
    # Meena pays Asha 42, Chachu pays Ravi 22 and Asha 8: three payments.
    paid = {(p["from"], p["to"]): p["amount"] for p in document["stats"]["settlement"]}
    assert sum(float(a) for a in paid.values()) == 72
    assert len(paid) == 3
    assert "Chachu" in page and "Chachu" in watched


def test_a_join_that_would_make_too_many_members_is_refused_beside_the_name():
    client = Client()
    many = [f"Player {n}" for n in range(1, 31)]
    table = make_table(client, members=many)
    game = table_game(client, table, many[:3], fmt="points")
    response = post(client, game, "join", name="Chachu")
    assert response.status_code == 422
    assert "more than 30 members" in text(response)
    assert Game.objects.get(pk=game.pk).seat_names() == many[:3]
    assert "Chachu" not in table.member_names()


NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Chachu", "Nani"]


@st.composite
def evenings(draw):
    """A few games of a table, each a few deals with a latecomer now and then,
    some ended (points) and some left in progress."""
    games = []
    for _ in range(draw(st.integers(1, 3))):
        fmt = draw(st.sampled_from(["points", "pool-101"]))
        seated = draw(st.lists(st.sampled_from(NAMES[:4]), min_size=2, max_size=4, unique=True))
        steps = draw(
            st.lists(
                st.one_of(
                    st.tuples(st.just("deal"), st.integers(0, 9), st.integers(0, 80)),
                    st.tuples(st.just("join"), st.sampled_from(NAMES[4:]), st.just(0)),
                ),
                max_size=6,
            )
        )
        games.append((fmt, seated, steps, draw(st.booleans())))
    return games


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(evening=evenings())
def test_no_evening_of_games_makes_the_table_pages_fail(evening, settings):
    settings.GAMES_PER_HOUR = 10**6
    client = Client()
    table = make_table(client, members=NAMES[:4])
    for fmt, seated, steps, ended in evening:
        game = table_game(client, table, seated, fmt=fmt, point_value="1")
        for kind, pick, points in steps:
            state = Game.objects.get(pk=game.pk).state()
            if state.finished:
                break
            if kind == "join":
                post(client, game, "join", name=pick)
                continue
            playing = [p.name for p in state.in_players]
            winner = playing[pick % len(playing)]
            results = {n: points for n in playing if n != winner}
            client.post(f"/g/{game.edit_token}/deal/", deal_form(game, winner, **results))
        if ended and fmt == "points":
            post(client, game, "end")
    _, _, document = table_pages(client, table)
    seated = {n for g in Game.objects.filter(table=table) for n in g.seat_names()}
    assert seated <= set(table.member_names())
    total = sum(float(m["money"]) for m in document["stats"]["members"])
    assert abs(total) < 0.005


@pytest.mark.django_db(transaction=True)
def test_a_table_that_already_has_a_latecomer_who_is_no_member_gets_them_as_a_member():
    """A table saved before joiners became members is mended when the server is updated."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("tracker", "0007_table_revision")])
    apps = executor.loader.project_state([("tracker", "0007_table_revision")]).apps
    table = apps.get_model("tracker", "Table").objects.create(
        name="Old table", edit_key="e", view_key="v"
    )
    for order, name in enumerate(["Asha", "Ravi"], start=1):
        table.members.create(name=name, order=order)
    game = apps.get_model("tracker", "Game").objects.create(
        name="Old game",
        format="points",
        rules={},
        first_dealer=1,
        table=table,
        edit_key="ge",
        view_key="gv",
    )
    for seat, name in enumerate(["Asha", "ravi", "Chachu"], start=1):
        game.players.create(seat=seat, name=name)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    members = apps.get_model("tracker", "Member").objects.filter(table_id=table.pk)
    assert sorted(members.values_list("order", "name")) == [(1, "Asha"), (2, "Ravi"), (3, "Chachu")]


@pytest.mark.parametrize("typed, seated", [("Kiran\tK", "Kiran K"), ("0 ", "0"), ("  Dev ", "Dev")])
def test_a_joiner_named_with_odd_spaces_is_stored_as_seated_and_the_game_saves_and_loads(
    typed, seated
):
    """Found by the fuzzer: the name stored as typed made the game's CSV
    unreadable and its document unlike its state."""
    client = Client()
    game = Game.create("points", {}, ["Asha", "Ravi"])
    assert post(client, game, "join", name=typed).status_code == 302
    play(client, game, "Asha", Ravi=10, **{seated: 20})
    game = Game.objects.get(pk=game.pk)
    assert game.history()[0] == {"type": "join", "player": seated, "after": None}
    document = json.loads(client.get(f"/g/{game.edit_token}/game.json").content)
    assert [p["name"] for p in document["state"]["players"]] == ["Asha", "Ravi", seated]
    sheet = client.get(f"/g/{game.edit_token}/game.csv").content
    from django.core.files.uploadedfile import SimpleUploadedFile

    imported = client.post("/import/", {"file": SimpleUploadedFile("g.csv", sheet)})
    assert imported.status_code == 302, text(imported)[-2000:]
    again = Game.objects.get(edit_token=imported["Location"].split("/")[2])
    assert again.as_document()["history"] == document["history"]


def latecomer_game():
    """A points session of Asha and Ravi that Chachu joined, ended: Asha +25,
    Ravi -15, Chachu -10."""
    history = [
        {"type": "join", "player": "Chachu", "after": None},
        {"type": "deal", "winner": "Asha", "results": {"Ravi": 15, "Chachu": 10}},
        {"type": "end"},
    ]
    return Game.create("points", {"point_value": "1"}, ["Asha", "Ravi"], history=history)


@pytest.mark.parametrize("kind", ["game.json", "game.csv"])
def test_a_game_with_a_latecomer_uploaded_into_a_table_makes_the_latecomer_a_member(kind):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.views.test_tables import version

    client = Client()
    table = make_table(client, members=["Asha", "Ravi"])
    file = client.get(f"/g/{latecomer_game().edit_token}/{kind}").content
    response = client.post(
        f"/t/{table.edit_token}/upload/",
        {"file": SimpleUploadedFile(kind, file), "version": version(table)},
    )
    assert response.status_code == 302, text(response)[-2000:]
    assert table.member_names() == ["Asha", "Ravi", "Chachu"]
    page, _, document = table_pages(client, table)
    money = {m["name"]: m["money"] for m in document["stats"]["members"]}
    assert money == {"Asha": "25.00", "Ravi": "-15.00", "Chachu": "-10.00"}
    assert "<strong>Chachu</strong> pays <strong>Asha</strong> ₹10.00" in page


def test_a_table_document_whose_game_has_a_latecomer_imports_with_the_latecomer_a_member():
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = Client()
    game = latecomer_game()
    document = {
        "schema": "rummy-tracker.table/1",
        "name": "Nani's table",
        "members": ["Asha", "Ravi"],
        "games": [game.as_document()],
    }
    upload = SimpleUploadedFile("t.json", json.dumps(document).encode())
    response = client.post("/tables/import/", {"file": upload})
    assert response.status_code == 302, text(response)[-2000:]
    from tracker.models import Table

    table = Table.objects.get(edit_token=response["Location"].split("/")[2])
    assert table.member_names() == ["Asha", "Ravi", "Chachu"]
    _, _, document = table_pages(client, table)
    assert [p["amount"] for p in document["stats"]["settlement"]] == ["15.00", "10.00"]


def test_a_member_who_joined_a_game_of_the_table_cannot_be_removed():
    from tests.views.test_tables import version

    client = Client()
    table = make_table(client, members=["Asha", "Ravi", "Meena"])
    game = table_game(client, table, ["Asha", "Ravi"], fmt="points", point_value="1")
    assert post(client, game, "join", name="Chachu").status_code == 302
    play(client, game, "Asha", Ravi=15, Chachu=10)
    chachu = table.members.get(name="Chachu")
    response = client.post(
        f"/t/{table.edit_token}/members/{chachu.pk}/remove/", {"version": version(table)}
    )
    assert response.status_code == 422
    assert "Chachu sits in a game of this table, so stays a member" in text(response)
    assert table.member_names() == ["Asha", "Ravi", "Meena", "Chachu"]
    assert post(client, game, "end").status_code == 302
    table_pages(client, table)


def test_migration_0011_makes_an_earlier_latecomer_a_member(tmp_path):
    """A table stored before latecomers became members: Chachu joined its game by
    "Add a player" and is still no member; migrating makes him one."""
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    manage(url, "migrate", "tracker", "0010_removed_games", "--noinput", "-v", "0")
    db = sqlite3.connect(tmp_path / "old.sqlite3")
    now = "2026-11-01 20:00:00"
    with db:
        db.execute(
            "INSERT INTO tracker_table (id, name, edit_token, view_token, edit_key, view_key,"
            " created_from, created_at, updated_at, revision)"
            " VALUES (1, 'Family', 'te', 'tv', 'tek', 'tvk', '', ?, ?, 1)",
            (now, now),
        )
        for order, name in enumerate(["Asha", "Ravi"], start=1):
            db.execute(
                'INSERT INTO tracker_member (table_id, name, "order") VALUES (1, ?, ?)',
                (name, order),
            )
        db.execute(
            "INSERT INTO tracker_game (id, name, format, rules, first_dealer, edit_token,"
            " view_token, edit_key, view_key, created_from, last_change, revision, table_id,"
            " created_at, updated_at) VALUES (1, 'Sunday points', 'points', '{}', 0, 'e', 'v',"
            " 'ek', 'vk', '', '', 2, 1, ?, ?)",
            (now, now),
        )
        for seat, name in enumerate(["Asha", "Ravi"]):
            db.execute(
                "INSERT INTO tracker_player (game_id, seat, name) VALUES (1, ?, ?)", (seat, name)
            )
        events = [
            ("deal", {"winner": "Asha", "results": {"Ravi": 20}}),
            ("join", {"player": "Chachu"}),
        ]
        for position, (kind, data) in enumerate(events):
            db.execute(
                "INSERT INTO tracker_event (game_id, position, serial, type, data, created_at)"
                " VALUES (1, ?, ?, ?, ?, ?)",
                (position, position + 1, kind, json.dumps(data), now),
            )
    manage(url, "migrate", "--noinput", "-v", "0")
    members = db.execute('SELECT name, "order" FROM tracker_member ORDER BY "order"').fetchall()
    db.close()
    assert members == [("Asha", 1), ("Ravi", 2), ("Chachu", 3)]
