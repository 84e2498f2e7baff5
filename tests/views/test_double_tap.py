"""Save tapped twice: the deal is stored once, and the second tap is no refusal."""

import pytest

from tests.views.test_games import HTMX, deal_data, new_game, text
from tracker.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]


def test_a_second_tap_on_the_fresh_blank_form_is_no_refusal(client):
    game = new_game(client)
    saved = client.post(
        f"/g/{game.edit_token}/deal/", deal_data(game, "Asha", Ravi=20, Meena=30, Kiran=2), **HTMX
    )
    assert saved.status_code == 200
    blank = {"version": str(Game.objects.get(pk=game.pk).revision)}
    for seat in range(1, 5):
        blank[f"r{seat}"] = "points"
        blank[f"p{seat}"] = ""
    response = client.post(f"/g/{game.edit_token}/deal/", blank, **HTMX)
    assert response.status_code == 200
    page = text(response)
    assert 'class="error"' not in page and "Tap the player who won the deal" not in page
    assert Game.objects.get(pk=game.pk).events.count() == 1
