"""Each client's allowance of new games (issue 27, items 2 and 3).

Every game a document makes is charged (a 144 KB table document stored 2,000
games past GAMES_PER_HOUR), a refused upload is charged the games it held,
the count is made inside the transaction (60 posts at once made 31 games
against a limit of 30), and behind a proxy the address counted is the one
the proxy appended to X-Forwarded-For, not the one the client wrote
(`X-Forwarded-For: 203.0.113.N, 127.0.0.1` made 40 games of 40 past the limit).
"""

import json
import threading
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from tests.documents.test_stats import G1, G2, G3
from tests.documents.test_table_document import table_doc
from tests.servers.gunicorn import BACKENDS, CSRF, in_threads, live_database, live_server
from tests.views.test_games import HTMX
from tracker.models import Game, Table

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

NEW_GAME = {
    "format": "pool-101",
    "rules_for": "pool-101",
    "player": ["Asha", "Ravi"],
    "dealer": "0",
}
TOO_MANY = "Too many new games from this address in the last hour."


def made(client, **headers):
    return client.post("/new/", NEW_GAME, **headers).status_code


def upload(client, path, doc, **data):
    body = json.dumps(doc).encode()
    data["file"] = SimpleUploadedFile("saved.json", body, content_type="application/json")
    return client.post(path, data)


def games_doc(count):
    """A table document of `count` games: G1, G2, G3 over and over."""
    return table_doc([[G1, G2, G3][k % 3] for k in range(count)])


# ------------------------------------------------------------ every game a document makes


def test_a_table_document_is_charged_every_game_it_makes(client, settings):
    settings.GAMES_PER_HOUR = 5
    response = upload(client, "/tables/import/", games_doc(6))
    assert response.status_code == 422
    assert "the file has 6 games, more than this address may make now (5 an hour)" in (
        response.content.decode()
    )
    assert (Table.objects.count(), Game.objects.count()) == (0, 0)
    # Refused, it counted as its six games: the allowance is spent for now.
    assert made(client) == 429
    assert Game.objects.count() == 0


def test_games_a_table_document_made_leave_that_much_less(client, settings):
    settings.GAMES_PER_HOUR = 5
    assert upload(client, "/tables/import/", games_doc(3)).status_code == 302
    assert Game.objects.count() == 3
    assert [made(client) for _ in range(3)] == [302, 302, 429]
    assert Game.objects.count() == 5


def test_an_upload_into_a_table_is_charged_every_game(client, settings):
    settings.GAMES_PER_HOUR = 4
    assert upload(client, "/tables/import/", games_doc(2)).status_code == 302
    table = Table.objects.get()
    data = {"version": str(table.revision)}
    response = upload(client, f"/t/{table.edit_token}/upload/", games_doc(3), **data)
    assert response.status_code == 422
    assert "the file has 3 games" in response.content.decode()
    assert Game.objects.count() == 2
    # Refused, it spent the two games that were left.
    assert made(client) == 429


def test_refused_uploads_count_against_the_allowance(client, settings):
    settings.GAMES_PER_HOUR = 3
    bad = {"schema": "rummy-tracker.game/1", "format": "pool", "players": ["A"]}
    for _ in range(3):
        assert upload(client, "/import/", bad).status_code == 422
    response = made(client)
    assert response == 429
    assert Game.objects.count() == 0


def test_after_an_hour_a_client_may_make_games_again(client, settings, monkeypatch):
    settings.GAMES_PER_HOUR = 2
    assert [made(client) for _ in range(3)] == [302, 302, 429]
    later = timezone.now() + timedelta(minutes=31)
    monkeypatch.setattr(timezone, "now", lambda: later)
    # One game back every half hour (2 an hour).
    assert [made(client) for _ in range(2)] == [302, 429]
    assert Game.objects.count() == 3


def test_a_refusal_for_too_many_games_says_so_beside_start(client, settings):
    settings.GAMES_PER_HOUR = 1
    assert made(client) == 302
    response = client.post("/new/", NEW_GAME, **HTMX)
    assert response.status_code == 429
    assert TOO_MANY in response.content.decode()


# ------------------------------------------------------------ the address behind a proxy


def test_behind_a_proxy_the_address_is_the_one_the_proxy_appended(client, settings):
    settings.BEHIND_PROXY = True
    settings.TRUSTED_PROXIES = 1
    settings.GAMES_PER_HOUR = 3
    # The client writes any address it likes; the proxy appends the one it saw.
    statuses = [
        made(client, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}, 127.0.0.1", REMOTE_ADDR="10.0.0.2")
        for n in range(6)
    ]
    assert statuses == [302, 302, 302, 429, 429, 429]
    # Another client behind the same proxy has its own allowance.
    assert made(client, HTTP_X_FORWARDED_FOR="198.51.100.7", REMOTE_ADDR="10.0.0.2") == 302


def test_two_proxies_count_back_two_addresses(client, settings):
    settings.BEHIND_PROXY = True
    settings.TRUSTED_PROXIES = 2  # a CDN, then the server's own proxy
    settings.GAMES_PER_HOUR = 2
    statuses = [
        made(client, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}, 198.51.100.7, 192.0.2.1")
        for n in range(3)
    ]
    assert statuses == [302, 302, 429]


def test_without_a_proxy_x_forwarded_for_is_not_read(client, settings):
    settings.BEHIND_PROXY = False
    settings.GAMES_PER_HOUR = 2
    statuses = [made(client, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}") for n in range(3)]
    assert statuses == [302, 302, 429]


# ------------------------------------------------------------ many posts at once


@pytest.fixture(scope="module", params=BACKENDS)
def limited_server(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"allowance-{request.param}")
    with live_database(request.param, tmp / "db") as db:  # noqa: SIM117
        with live_server(db, tmp / "log", env={"GAMES_PER_HOUR": "30"}) as server:
            yield db, server


@pytest.mark.django_db(False)
def test_sixty_new_game_posts_at_once_make_exactly_the_thirty_allowed(limited_server):
    db, server = limited_server
    phone = server.browser()
    page = phone.get("/new/").body
    token = CSRF.search(page).group(1)
    posters = 60
    ready = threading.Barrier(posters, timeout=120)
    statuses = []

    def post():
        browser = server.browser()
        browser.cookies = dict(phone.cookies)
        fields = {**NEW_GAME, "csrfmiddlewaretoken": token}
        ready.wait()
        answer = browser.request("POST", "/new/", fields=fields, headers={"X-CSRFToken": token})
        statuses.append(answer.status)

    in_threads(lambda _: post(), posters, timeout=180)
    assert sorted(statuses) == [302] * 30 + [429] * 30, statuses
    count = db.manage("shell", "-c", "from tracker.models import Game; print(Game.objects.count())")
    assert count.strip().splitlines()[-1] == "30"
    assert "Traceback" not in server.log_text()
