"""A table's games and their copies, Play again's names, Undo last deal, downloads named
in their own script, one word for a table, a table's New game and its CSV sheet."""

import json
import re
from urllib.parse import unquote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation

from tests.languages import LOCALE
from tests.views.test_games import revision, text
from tests.views.test_tables import finish_pool, make_table, member_ids, table_game, version
from tracker.models import Game

pytestmark = pytest.mark.django_db


def upload(client, table, name, content, **extra):
    data = {"file": SimpleUploadedFile(name, content), "version": version(table), **extra}
    return client.post(f"/t/{table.edit_token}/upload/", data)


def money(client, table):
    document = json.loads(client.get(f"/t/{table.edit_token}/table.json").content)
    return {m["name"]: m["money"] for m in document["stats"]["members"] if m["games"]}


# ---------------------------------------------------------------- 4. one game, counted once


def removed_and_imported_again(client, kind="json"):
    """A finished pool of Asha and Ravi, saved to a file, removed, and its file
    imported into the table again (accepted: the game was removed)."""
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"], entry_fee="10")
    finish_pool(client, game, "Asha", "Ravi")
    saved = client.get(f"/g/{game.edit_token}/game.{kind}").content
    client.post(f"/g/{game.edit_token}/remove/", {"version": str(revision(game))})
    assert upload(client, table, f"g.{kind}", saved).status_code == 302
    return table, game, saved


@pytest.mark.parametrize("kind", ["json", "csv"])
def test_a_game_put_back_after_its_file_was_imported_is_refused_and_counted_once(kind):
    client = Client()
    table, game, _ = removed_and_imported_again(client, kind)
    response = client.post(f"/g/{game.edit_token}/put-back/")
    assert response["Location"] == table.get_absolute_url()
    page = text(client.get(response["Location"]))
    assert "This game is already in the table (“Pool 101”), so it was not put back" in page
    assert table.games.kept().count() == 1
    assert Game.objects.get(pk=game.pk).removed_at is not None
    # Asha won the pot of 20 having paid 10: +10; Ravi paid 10: -10. Once, not twice.
    assert money(client, table) == {"Asha": "10.00", "Ravi": "-10.00"}
    # Still under Removed, to be put back once the copy is removed.
    assert 'id="removed"' in page


def test_the_copy_removed_the_game_is_put_back():
    client = Client()
    table, game, _ = removed_and_imported_again(client)
    copy = table.games.kept().get()
    client.post(f"/g/{copy.edit_token}/remove/", {"version": str(revision(copy))})
    assert client.post(f"/g/{game.edit_token}/put-back/")["Location"] == game.get_absolute_url()
    assert list(table.games.kept()) == [Game.objects.get(pk=game.pk)]
    assert money(client, table) == {"Asha": "10.00", "Ravi": "-10.00"}


def test_refusals_of_a_second_copy_name_the_game_in_the_readers_language():
    english = Client()
    table, game, saved = removed_and_imported_again(english)
    tamil = Client(HTTP_ACCEPT_LANGUAGE="ta")
    page = text(tamil.get(tamil.post(f"/g/{game.edit_token}/put-back/")["Location"]))
    assert "(“பூல் 101”)" in page and "Pool 101" not in page
    refused = text(upload(tamil, table, "g.json", saved))
    assert "ஏற்கனவே டேபிளில் உள்ளது (“பூல் 101”)" in refused
    exported = tamil.get(f"/t/{table.edit_token}/table.json").content
    refused = text(upload(tamil, table, "t.json", exported))
    assert "ஏற்கனவே டேபிளில் உள்ளது (“பூல் 101”)" in refused
    assert 'name="again"' in refused
    assert table.games.kept().count() == 1


# ---------------------------------------------------------------- 1. Play again keeps the name


def again_from_table(client, table, game):
    made = client.post(f"/t/{table.edit_token}/again/{game.pk}/", {"version": version(table)})
    return Game.objects.get(edit_token=made["Location"].split("/")[2])


def test_an_unnamed_pool_played_again_is_pool_101_numbered_apart_in_the_readers_language():
    client = Client()
    table = make_table(client)
    first = table_game(client, table, ["Asha", "Ravi"])
    finish_pool(client, first, "Asha", "Ravi")
    second = again_from_table(client, table, first)
    assert second.name == "Pool 101 · 2" and second.rules["pool_limit"] == 101
    finish_pool(client, second, "Ravi", "Asha")
    third = again_from_table(client, table, second)
    assert third.name == "Pool 101 · 3"

    tamil = Client(HTTP_ACCEPT_LANGUAGE="ta")
    listed = text(tamil.get(table.get_absolute_url()))
    assert "<strong>பூல் 101 · 2</strong>" in listed and "<strong>பூல் 101 · 3</strong>" in listed
    assert "102" not in listed and "103" not in listed
    client.post(f"/g/{third.edit_token}/remove/", {"version": str(revision(third))})
    listed = text(tamil.get(table.get_absolute_url()))
    removed = listed[listed.index('id="removed"') :]
    assert "<strong>பூல் 101 · 3</strong>" in removed


@pytest.mark.parametrize(
    ("fmt", "rules", "first", "second", "tamil"),
    [
        ("deals", {"deal_count": 2}, "Deals, best of 2", "Deals, best of 2 · 2", "டீல்ஸ், 2 டீல் · 2"),
        (
            "basic",
            {"target": 100, "deal_count": None},
            "Basic Rummy to 100",
            "Basic Rummy to 100 · 2",
            "பேசிக் ரம்மி, 100 வரை · 2",
        ),
    ],
)
def test_play_again_never_counts_on_the_formats_own_numbers(fmt, rules, first, second, tamil):
    game = Game.create(fmt, rules, ["Asha", "Ravi"])
    assert game.name == first
    again = game.play_again()
    assert again.name == second and again.rules == game.rules
    assert game.play_again() == again  # made once
    assert again.play_again().name == second.replace("· 2", "· 3")
    with translation.override("ta"):
        assert again.shown_name == tamil


def test_a_game_named_by_the_family_is_numbered_as_before():
    game = Game.create("pool", {}, ["Asha", "Ravi"], name="Diwali pool")
    again = game.play_again()
    assert again.name == "Diwali pool 2"
    assert Game.create("pool", {}, ["Asha", "Ravi"], name="Night 2").play_again().name == "Night 3"


# ---------------------------------------------------------------- 7. Undo the last deal


def test_undo_last_deal_posts_the_version_and_a_stale_one_undoes_nothing():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"])
    finish_pool(client, game, "Asha", "Ravi")
    page = text(client.get(game.get_absolute_url()))
    undo = page[page.index('class="confirm undo-last"') :]
    last = game.events.get(position=1).serial
    action = f"/g/{game.edit_token}/event/{last}/delete/"
    assert f'action="{action}"' in undo[:1000]
    assert f'name="version" value="{revision(game)}"' in undo[:1500]
    stale = client.post(action, {"version": str(revision(game) - 1)})
    assert stale.status_code == 409
    assert game.events.count() == 2
    assert client.post(action, {"version": str(revision(game))}).status_code == 302
    assert game.events.count() == 1


# ---------------------------------------------------------------- 6. smaller ones


@pytest.mark.parametrize("kind", ["csv", "json"])
def test_a_game_named_in_tamil_downloads_under_its_whole_name(kind):
    client = Client()
    game = Game.create("pool", {}, ["Asha", "Ravi"], name="இரவு ஆட்டம்")
    response = client.get(f"/g/{game.edit_token}/game.{kind}")
    disposition = response["Content-Disposition"]
    assert disposition.startswith(f"attachment; filename=\"game.{kind}\"; filename*=UTF-8''")
    assert unquote(disposition.split("''", 1)[1]) == f"இரவு-ஆட்டம்.{kind}"
    english = Game.create("pool", {}, ["Asha", "Ravi"], name="Diwali pool")
    plain = client.get(f"/w/{english.view_token}/game.{kind}")["Content-Disposition"]
    assert plain == f'attachment; filename="diwali-pool.{kind}"'


# The one word for a family's table in each language (locale/*/README.md), as
# its inflected forms begin: டேபிளில், டேபிளின் ...
TABLE_WORD = {"hi": "टेबल", "ta": "டேபிள", "te": "టేబుల"}
# A CSV file's table of events is another table (a grid): அட்டவணை, పట్టిక.
GRID = ("the table of events", "come before the table")


@pytest.mark.parametrize("language", sorted(TABLE_WORD))
def test_a_family_table_is_one_word_in_each_language(language):
    po = (LOCALE / language / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    other = []
    for entry in po.split("\n\n"):
        msgid = re.search(r'^msgid "(.*)"$', entry, re.M)
        if not msgid or not re.search(r"\btables?\b", msgid.group(1), re.I):
            continue
        if any(grid in msgid.group(1) for grid in GRID):
            continue
        said = re.findall(r'^msgstr(?:\[\d\])? "(.*)"$', entry, re.M)
        if not all(TABLE_WORD[language] in text for text in said):
            other.append((msgid.group(1), said))
    assert not other


def test_the_tables_share_line_says_table_as_its_pages_do():
    client = Client(HTTP_ACCEPT_LANGUAGE="ta")
    table = make_table(client)
    page = text(client.get(table.get_absolute_url()))
    assert "எங்கள் ரம்மி டேபிளில் விளையாடுங்கள்: Nani&#x27;s table" in page
    assert "மேசை" not in page


def ticked(page):
    return re.findall(r'name="seat" value="(\d+)" checked', page)


def test_the_first_new_game_of_a_table_ticks_every_member():
    client = Client()
    six = ["Asha", "Ravi", "Meena", "Kiran", "Karthik", "Lata"]
    table = make_table(client, members=six)
    page = text(client.get(f"/t/{table.edit_token}/new/"))
    assert sorted(ticked(page)) == sorted(member_ids(table, *six))
    # Once a game was played, it ticks that game's players.
    table_game(client, table, ["Asha", "Lata"])
    page = text(client.get(f"/t/{table.edit_token}/new/"))
    assert sorted(ticked(page)) == sorted(member_ids(table, "Asha", "Lata"))


def test_a_table_of_twelve_ticks_the_first_ten_a_game_can_seat():
    client = Client()
    twelve = [f"Player {n}" for n in range(1, 13)]
    table = make_table(client, members=twelve)
    page = text(client.get(f"/t/{table.edit_token}/new/"))
    assert sorted(ticked(page)) == sorted(member_ids(table, *twelve[:10]))


def test_a_table_offers_the_csv_sheet_of_its_games_and_stats():
    client = Client()
    table = make_table(client)
    pool = table_game(client, table, ["Asha", "Ravi"], entry_fee="10", name="Diwali pool")
    finish_pool(client, pool, "Asha", "Ravi")
    table_game(client, table, ["Meena", "Kiran"], fmt="points")
    page = text(client.get(table.get_view_url()))
    assert f'href="/tw/{table.view_token}/table.csv" download>CSV (spreadsheet)</a>' in page
    response = client.get(f"/tw/{table.view_token}/table.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="nanis-table.csv"'
    day = pool.created_at.date().isoformat()
    # Asha won the pot of 20 having paid 10: +10; Ravi -10. Two deals, both Asha's.
    assert response.content.decode("utf-8-sig") == (
        "table,Nani's table\r\n"
        "members,Asha,Ravi,Meena,Kiran\r\n"
        "\r\n"
        "game,date,format,players,status,winner,"
        "Asha money,Ravi money,Meena money,Kiran money\r\n"
        f"Diwali pool,{day},Pool 101,Asha; Ravi,finished,Asha,10.00,-10.00,,\r\n"
        f"Points rummy,{day},Points at ₹1.00,Meena; Kiran,in progress,,,,,\r\n"
        "\r\n"
        "member,games,wins,deals,deals won,drops,wrong shows,full counts,money\r\n"
        "Asha,1,1,2,2,0,0,0,10.00\r\n"
        "Ravi,1,0,2,0,0,0,0,-10.00\r\n"
        "Meena,1,0,0,0,0,0,0,0.00\r\n"
        "Kiran,1,0,0,0,0,0,0,0.00\r\n"
        "\r\n"
        "pays,to,amount\r\n"
        "Ravi,Asha,10.00\r\n"
    )
