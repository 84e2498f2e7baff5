"""The family table's screens, as plain posts (redirect) and as htmx (fragment)."""

import html
import re

import pytest
from django.test import Client

from tests.conftest import without_language_switch
from tests.views.test_games import HTMX, post_deal, text
from tracker.models import Game, Member, Table

pytestmark = pytest.mark.django_db

FAMILY = ["Asha", "Ravi", "Meena", "Kiran"]


def make_table(client, name="Nani's table", members=FAMILY):
    response = client.post("/tables/new/", {"name": name, "members": "\n".join(members)})
    assert response.status_code == 302, text(response)[:3000]
    return Table.objects.get(edit_token=response["Location"].split("/")[2])


def version(table):
    """The table's revision as its forms post it: read from the database, as a page is."""
    return str(Table.objects.get(pk=table.pk).revision)


def member_ids(table, *names):
    return [str(m.pk) for m in table.members.all() if m.name in names]


def table_game(client, table, seats, fmt="pool-101", dealer=None, **extra):
    ids = member_ids(table, *seats)
    data = {"format": fmt, "rules_for": fmt, "seat": ids, "rules_shown": "1", **extra}
    data["version"] = version(table)
    if dealer:
        data["dealer"] = member_ids(table, dealer)[0]
    response = client.post(f"/t/{table.edit_token}/new/", data)
    assert response.status_code == 302, text(response)[:3000]
    return Game.objects.get(edit_token=response["Location"].split("/")[2])


def test_make_a_table_and_start_a_game_from_its_members():
    client = Client()
    table = make_table(client)
    assert table.member_names() == FAMILY
    page = text(client.get(table.get_absolute_url()))
    assert "Nani&#x27;s table" in page and "4 members · 0 games" in page
    game = table_game(client, table, ["Asha", "Meena", "Kiran"], entry_fee="10")
    assert game.table == table
    assert game.seat_names() == ["Asha", "Meena", "Kiran"]
    assert game.rules["entry_fee"] == "10"
    page = text(client.get(table.get_absolute_url()))
    assert "1 game" in page and "Asha, Meena, Kiran" in page and "In progress" in page
    assert game.get_absolute_url() in page


def finish_pool(client, game, winner, loser):
    """Two deals of 80 put a loser out of pool 101 (80 + 80 = 160 >= 101)."""
    post_deal(client, game, winner, **{loser: 80})
    post_deal(client, game, winner, **{loser: 80})
    assert game.state().winner == winner


def test_play_again_keeps_format_rules_and_seats_and_passes_the_first_deal_on():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Meena"], entry_fee="20", dealer="Meena")
    page = text(client.get(table.get_absolute_url()))
    assert "Play again" not in page  # only on finished games
    response = client.post(f"/t/{table.edit_token}/again/{game.pk}/", {"version": version(table)})
    assert response.status_code == 422
    assert "That game is still being played." in text(response)
    assert Game.objects.count() == 1
    finish_pool(client, game, "Asha", "Meena")
    page = text(client.get(table.get_absolute_url()))
    assert "Finished: Asha won" in page and "Play again" in page
    response = client.post(f"/t/{table.edit_token}/again/{game.pk}/", {"version": version(table)})
    again = Game.objects.get(edit_token=response["Location"].split("/")[2])
    assert again.pk != game.pk and again.table == table
    assert (again.format, again.rules, again.seat_names()) == (
        game.format,
        game.rules,
        ["Asha", "Meena"],
    )
    # Meena (seat 2) dealt first last time: seat 1, Asha, deals first now.
    assert again.state().next_dealer == "Asha"
    # And again from the new one (once finished): back to Meena.
    finish_pool(client, again, "Meena", "Asha")
    response = client.post(
        f"/t/{table.edit_token}/again/{again.pk}/", {"version": version(table)}, **HTMX
    )
    third = Game.objects.order_by("-pk").first()
    assert response["HX-Redirect"] == third.get_absolute_url()
    assert third.state().next_dealer == "Meena"


def test_games_newest_first_with_filters_by_status_and_format():
    client = Client()
    table = make_table(client)
    first = table_game(client, table, ["Asha", "Ravi"], name="First pool")
    finish_pool(client, first, "Ravi", "Asha")
    table_game(client, table, ["Meena", "Kiran"], fmt="points", name="Points night")
    page = text(client.get(table.get_absolute_url()))
    assert page.index("Points night") < page.index("First pool")
    assert "Finished: Ravi won" in page
    page = text(client.get(table.get_absolute_url() + "?show=finished"))
    assert "First pool" in page and "Points night" not in page
    page = text(client.get(table.get_absolute_url() + "?format=points"))
    assert "First pool" not in page and "Points night" in page
    fragment = text(
        client.get(table.get_absolute_url() + "?show=in_progress", HTTP_HX_TARGET="games", **HTMX)
    )
    assert "<html" not in fragment and 'id="games"' in fragment
    assert "Points night" in fragment and "First pool" not in fragment


def test_the_stats_change_when_a_game_finishes():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"], entry_fee="10")
    post_deal(client, game, "Ravi", Asha=80)
    page = text(client.get(table.get_absolute_url()))
    # In progress: a game and deals counted, no money yet.
    assert re.search(
        r"<th scope=\"row\"><span class=\"who\" title=\"Ravi\">Ravi</span></th>"
        r"<td class=\"num\">1</td><td class=\"num\">0</td>"
        r"<td class=\"num\">1</td><td class=\"num\">1</td>",
        page,
    )
    assert "Nobody owes anything" in page
    post_deal(client, game, "Ravi", Asha=80)
    page = text(client.get(table.get_absolute_url()))
    # Ravi won the pot of 20, having paid 10 in: +10; Asha -10. The table plays
    # for money (an entry fee): shown in rupees.
    assert re.search(
        r"Ravi</span></th>(<td class=\"num\">[^<]*</td>){7}<td class=\"num\">₹10.00</td>", page
    )
    assert "<strong>Asha</strong> pays <strong>Ravi</strong> ₹10.00" in page
    svg = client.get(f"/t/{table.edit_token}/wins.svg").content.decode()
    assert re.search(r'data-member="Ravi" data-value="1"', svg)
    svg = client.get(f"/tw/{table.view_token}/money.svg").content.decode()
    assert svg.count('class="line"') == 4


def test_members_are_added_and_removed_only_while_unseated():
    client = Client()
    table = make_table(client)
    response = client.post(
        f"/t/{table.edit_token}/members/", {"name": "  Dev  ", "version": version(table)}
    )
    assert response.status_code == 302
    assert table.member_names() == [*FAMILY, "Dev"]
    table_game(client, table, ["Asha", "Ravi"])
    page = text(client.get(table.get_absolute_url()))
    assert 'aria-label="Remove Dev"' in page and 'aria-label="Remove Asha"' not in page
    dev = table.members.get(name="Dev")
    response = client.post(
        f"/t/{table.edit_token}/members/{dev.pk}/remove/", {"version": version(table)}, **HTMX
    )
    assert response.status_code == 200 and "<html" not in text(response)
    assert "Dev" not in table.member_names()


def test_the_view_link_shows_the_games_view_links_only():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"])
    watcher = Client()
    page = text(watcher.get(table.get_view_url()))
    assert game.get_view_url() in page
    assert game.edit_token not in page and table.edit_token not in page
    assert "<form" not in without_language_switch(page) and "New game" not in page
    assert watcher.get(f"/t/{table.view_token}/").status_code == 404


def test_home_lists_the_tables_and_games_this_phone_opened_with_dates():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"])
    page = text(client.get("/"))
    assert "Your tables" in page and table.get_absolute_url() in page
    assert re.search(
        r"Nani&#x27;s table</strong> <span class=\"meta\"><time [^>]*>[^<]+</time> · 1 game<", page
    )
    assert game.get_absolute_url() in page
    assert page.count("<time datetime=") >= 2
    other = Client()
    other.get(table.get_view_url())
    page = text(other.get("/"))
    assert table.get_view_url() in page and table.edit_token not in page
    assert Member.objects.count() == 4


# ------------------------------------------------------------ bad input


def field_error(page, field):
    """The message shown beside a field: the alert right after it."""
    match = re.search(rf'<p class="error" id="{field}-error" role="alert">([^<]*)</p>', page)
    return html.unescape(match.group(1)) if match else None


@pytest.mark.parametrize(
    ("members", "words"),
    [
        (["Asha", "Ravi", "asha"], "asha is a member twice: names must differ"),
        (["Asha"], "A table needs at least 2 members"),
        ([f"Player {n}" for n in range(31)], "A table has at most 30 members"),
        (["Asha", "R" * 31], "a name is at most 30 letters"),
    ],
)
def test_a_new_table_with_bad_members_says_why_beside_the_box(members, words):
    client = Client()
    for headers in ({}, HTMX):
        data = {"name": "Nani", "members": "\n".join(members)}
        response = client.post("/tables/new/", data, **headers)
        assert response.status_code == 422
        assert words in field_error(text(response), "members")
    response = client.post("/tables/new/", {"name": "  ", "members": "Asha\nRavi"})
    assert field_error(text(response), "name") == "Give the table a name"
    assert Table.objects.count() == Member.objects.count() == 0


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("RAVI", "RAVI is already a member: names must differ"),
        ("   ", "Type the member's name"),
        ("Dev\x00", "the name has a character that is not a letter"),
    ],
)
def test_adding_a_bad_member_says_why_beside_the_box_and_adds_nobody(name, words):
    client = Client()
    table = make_table(client)
    for headers in ({}, HTMX):
        data = {"name": name, "version": version(table)}
        response = client.post(f"/t/{table.edit_token}/members/", data, **headers)
        assert response.status_code == 422
        assert words in field_error(text(response), "member")
    assert table.member_names() == FAMILY


def test_a_thirty_first_member_is_refused():
    client = Client()
    table = make_table(client, members=[f"Player {n}" for n in range(1, 31)])
    data = {"name": "Dev", "version": version(table)}
    response = client.post(f"/t/{table.edit_token}/members/", data)
    assert response.status_code == 422
    assert field_error(text(response), "member") == "A table has at most 30 members"
    assert len(table.member_names()) == 30


def test_a_member_who_sits_in_a_game_cannot_be_removed():
    client = Client()
    table = make_table(client)
    table_game(client, table, ["Asha", "Ravi"])
    # A game imported with a member's name in capitals seats that member too.
    from tracker import tables

    table.add_member("Zoë", made_against=int(version(table)))
    doc = {"schema": "rummy-tracker.game/1", "format": "pool", "players": ["ZOË", "Asha"]}
    tables.import_game(table, doc, made_against=int(version(table)))
    assert table.member_names() == [*FAMILY, "Zoë"]
    zoe = table.members.get(name="Zoë")
    response = client.post(
        f"/t/{table.edit_token}/members/{zoe.pk}/remove/", {"version": version(table)}
    )
    assert response.status_code == 422
    assert "Zoë sits in a game of this table, so stays a member" in text(response)
    asha = table.members.get(name="Asha")
    for headers in ({}, HTMX):
        response = client.post(
            f"/t/{table.edit_token}/members/{asha.pk}/remove/",
            {"version": version(table)},
            **headers,
        )
        assert response.status_code == 422
        assert "Asha sits in a game of this table, so stays a member" in text(response)
    assert table.member_names() == [*FAMILY, "Zoë"]


def test_a_game_seating_a_non_member_is_refused_and_nothing_is_saved():
    client = Client()
    table = make_table(client)
    other = make_table(client, "Cousins", ["Dev", "Lata"])
    dev = other.members.get(name="Dev")
    data = {
        "format": "pool-101",
        "rules_for": "pool-101",
        "seat": [*member_ids(table, "Asha"), dev.pk],
        "version": version(table),
    }
    for headers in ({}, HTMX):
        response = client.post(f"/t/{table.edit_token}/new/", data, **headers)
        assert response.status_code == 422
        assert "That seat is not a member of this table" in text(response)
    # Through the model too: a name that is not a member.
    from tracker import tables
    from tracker.models import MemberError

    with pytest.raises(MemberError, match="Dev is not a member of this table"):
        tables.start_game(
            table, "pool", {}, ["Asha", "Dev"], "Asha", made_against=int(version(table))
        )
    assert Game.objects.count() == 0
    # One seat is no game: the engine's words, beside the seats.
    response = client.post(
        f"/t/{table.edit_token}/new/", {**data, "seat": member_ids(table, "Asha")}
    )
    assert response.status_code == 422
    assert "A game needs at least 2 players" in text(response)
    assert Game.objects.count() == 0


def test_an_upload_that_is_not_json_is_refused_beside_the_field():
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = Client()
    table = make_table(client)
    upload = SimpleUploadedFile("t.json", b'{"schema": "rummy-tracker.table/1", "games": [')
    data = {"file": upload, "version": version(table)}
    response = client.post(f"/t/{table.edit_token}/upload/", data)
    assert response.status_code == 422
    assert "Not imported: document: not a JSON document" in field_error(text(response), "file")
    response = client.post("/tables/import/", {"file": SimpleUploadedFile("t.json", b"[]")})
    assert response.status_code == 422
    assert "a table document is a JSON object" in field_error(text(response), "import")
    assert Table.objects.count() == 1 and Game.objects.count() == 0


def test_a_csv_game_uploaded_into_the_table_joins_it():
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = Client()
    table = make_table(client)
    game = Game.create("pool", {"entry_fee": "5"}, ["Asha", "Dev"])
    post_deal(client, game, "Dev", Asha=80)
    post_deal(client, game, "Dev", Asha=80)
    csv = client.get(f"/g/{game.edit_token}/game.csv").content
    response = client.post(
        f"/t/{table.edit_token}/upload/",
        {"file": SimpleUploadedFile("g.csv", csv), "version": version(table)},
    )
    assert response.status_code == 302
    assert table.member_names() == [*FAMILY, "Dev"]
    copy = table.games.get()
    assert copy.as_document() == game.as_document()
    page = text(client.get(table.get_absolute_url()))
    # Dev won the pot of 10, having paid 5: +5; Asha -5.
    assert "<strong>Asha</strong> pays <strong>Dev</strong> ₹5.00" in page


def test_the_table_pages_keep_to_the_security_policy():
    client = Client()
    table = make_table(client)
    table_game(client, table, ["Asha", "Ravi"])
    urls = ["/tables/new/", table.get_absolute_url(), table.get_view_url()]
    urls += [f"/t/{table.edit_token}/new/", f"/t/{table.edit_token}/wins.svg"]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "script-src 'self'" in response["Content-Security-Policy"]
        assert response["X-Frame-Options"] == "DENY"
        page = response.content.decode()
        assert "<style" not in page and ' style="' not in page, url
        for script in page.split("<script")[1:]:
            assert script.lstrip().startswith("src="), url


def test_new_tables_per_address_are_limited(settings):
    settings.GAMES_PER_HOUR = 2
    client = Client()
    make_table(client, "One")
    make_table(client, "Two")
    response = client.post("/tables/new/", {"name": "Three", "members": "Asha\nRavi"})
    assert response.status_code == 422
    assert "Too many new tables from this address" in text(response)
    assert Table.objects.count() == 2
