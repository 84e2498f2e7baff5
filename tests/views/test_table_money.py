"""The family table's money in rupees (issue 14, part 2): the stats, the
settle-up and the money chart show ₹ and the Indian grouping where the table
plays for money, as the game screens do; a table playing for nothing shows
plain figures. Every expected figure is worked out by hand below."""

import re

import pytest
from django.test import Client

from tests.views.test_games import post_deal, revision, text
from tests.views.test_tables import make_table, table_game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]


def finish(client, game):
    response = client.post(f"/g/{game.edit_token}/end/", {"version": revision(game)})
    assert response.status_code == 302, text(response)[:2000]


def money_cell(page, name):
    """The Money column (the ninth) of a member's row in the stats."""
    name_cell = rf'<th scope="row"><span class="who"[^>]*>{name}</span></th>'
    row = re.search(rf'{name_cell}((?:<td class="num">[^<]*</td>)+)', page)
    return re.findall(r'<td class="num">([^<]*)</td>', row.group(1))[7]


def lakh_table(client, **rules):
    """Points at ₹1,250 a point: Meena wins, Asha and Ravi lose 80 each.
    Meena +160 x 1,250 = ₹2,00,000; Asha and Ravi -80 x 1,250 = -₹1,00,000."""
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi", "Meena"], fmt="points", **rules)
    post_deal(client, game, "Meena", Asha=80, Ravi=80)
    finish(client, game)
    return table


def test_the_stats_show_rupees_in_the_indian_grouping():
    client = Client()
    table = lakh_table(client, point_value="1250")
    page = text(client.get(table.get_absolute_url()))
    assert money_cell(page, "Meena") == "₹2,00,000.00"
    assert money_cell(page, "Asha") == "-₹1,00,000.00"
    assert money_cell(page, "Ravi") == "-₹1,00,000.00"
    assert "<strong>Asha</strong> pays <strong>Meena</strong> ₹1,00,000.00" in page
    assert "<strong>Ravi</strong> pays <strong>Meena</strong> ₹1,00,000.00" in page


def test_whole_rupees_show_no_paise_and_hindi_keeps_the_same_figures():
    client = Client(HTTP_ACCEPT_LANGUAGE="hi")
    table = lakh_table(client, point_value="1250", money_unit="1")
    page = text(client.get(table.get_absolute_url()))
    assert money_cell(page, "Meena") == "₹2,00,000"
    assert money_cell(page, "Asha") == "-₹1,00,000"
    assert "Asha</strong> से <strong>Meena</strong> को ₹1,00,000" in page, page[-6000:]


def test_the_money_chart_labels_rupees():
    client = Client()
    table = lakh_table(client, point_value="1250", money_unit="1")
    svg = client.get(f"/t/{table.edit_token}/money.svg").content.decode()
    assert "After the last finished game: Asha -₹1,00,000, Ravi -₹1,00,000, Meena ₹2,00,000" in (
        svg
    )
    # The axis: round figures from -₹1,00,000 to ₹2,00,000.
    labels = re.findall(r'text-anchor="end" fill="[^"]+">([^<]*)</text>', svg)
    assert "₹2,00,000" in labels and "-₹1,00,000" in labels and "₹0" in labels
    assert "200000" not in labels


def test_a_table_playing_for_nothing_shows_plain_figures():
    client = Client()
    table = make_table(client)
    game = table_game(client, table, ["Asha", "Ravi"], entry_fee="0")
    post_deal(client, game, "Ravi", Asha=80)
    post_deal(client, game, "Ravi", Asha=80)  # Asha 160: out, Ravi wins
    page = text(client.get(table.get_absolute_url()))
    # Played for nothing: no money column, no settle-up of nothing (issue 26.12).
    assert ">Money<" not in page and "Settle up" not in page
    assert "₹" not in page
    svg = client.get(f"/t/{table.edit_token}/money.svg").content.decode()
    assert "₹" not in svg


def test_the_game_list_names_a_points_game_by_its_rupees_a_point():
    client = Client()
    table = lakh_table(client, point_value="1250", money_unit="1")
    page = text(client.get(table.get_absolute_url()))
    assert "Points at ₹1,250" in page
    assert "Points at 1250" not in page
