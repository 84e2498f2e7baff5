"""The admin (issue 37, item 4): mounted only with ADMIN_ENABLED (off by default),
its logins throttled per address (ADMIN_LOGINS_PER_HOUR), and read-only: a
game's history changes only through the model methods that move its revision."""

import pytest
from django.contrib.auth.models import User

from tests.documents.test_stats import G1
from tests.documents.test_table_document import table_doc
from tracker.models import Event, Game, Table

pytestmark = pytest.mark.django_db


def test_the_admin_is_not_there_unless_enabled(client):
    for path in ("/admin/", "/admin/login/"):
        assert client.get(path).status_code == 404
    assert client.post("/admin/login/", {"username": "a", "password": "b"}).status_code == 404


def attempt(client, password, address="203.0.113.7"):
    data = {"username": "owner", "password": password, "next": "/admin/"}
    return client.post("/admin/login/", data, REMOTE_ADDR=address)


def test_logins_are_throttled_per_address(client, admin_on):
    User.objects.create_superuser("owner", "", "right horse battery")
    assert client.get("/admin/login/").status_code == 200
    for _ in range(3):
        response = attempt(client, "wrong")
        assert response.status_code == 200
        assert "Please enter the correct username and password" in response.content.decode()
    refused = attempt(client, "right horse battery")  # the fourth in the hour: not even tried
    assert refused.status_code == 429
    assert "Too many attempts to log in from this address" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    # Another address has its own attempts.
    assert attempt(client, "right horse battery", "198.51.100.2").status_code == 302


def test_every_game_and_table_is_shown_read_only(client, admin_on):
    from tracker import tables

    table = tables.import_document(table_doc([G1]))
    game = Game.objects.get()
    event = game.events.first()
    owner = User.objects.create_superuser("owner", "", "right horse battery")
    client.force_login(owner)
    page = client.get(f"/admin/tracker/game/{game.pk}/change/")
    assert page.status_code == 200
    shown = page.content.decode()
    assert game.name in shown
    assert 'name="_save"' not in shown
    assert 'name="events-0-type"' not in shown  # no event edited in place
    for model in ("game", "event", "player", "table", "member"):
        assert client.get(f"/admin/tracker/{model}/").status_code == 200
        assert client.get(f"/admin/tracker/{model}/add/").status_code == 403
    revision, data = game.revision, event.data
    edit = {"position": "0", "serial": str(event.serial), "type": "deal", "data": "{}"}
    assert client.post(f"/admin/tracker/event/{event.pk}/change/", edit).status_code == 403
    assert client.post(f"/admin/tracker/game/{game.pk}/delete/", {"post": "yes"}).status_code == 403
    assert (
        client.post(f"/admin/tracker/table/{table.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    game.refresh_from_db()
    assert (game.revision, Event.objects.get(pk=event.pk).data) == (revision, data)
    assert Table.objects.count() == 1
