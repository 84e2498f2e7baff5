"""Two gunicorn servers on one database, as two machines behind one name: a
deal saved on one is on the other's pages at once, and in the table's figures,
whether their pushed updates go between them by Redis or not at all."""

import json
import re

import pytest

from tests.servers.fixtures import redis_fixture  # noqa: F401 (the fixture)
from tests.servers.gunicorn import (
    NAMES,
    deal_fields,
    deal_form,
    live_database,
    live_server,
    points_game_doc,
    revision_of,
)
from tests.servers.redis import redis_skip_reason

needs_redis = pytest.mark.skipif(redis_skip_reason() is not None, reason=str(redis_skip_reason()))
BACKENDS = ["local", pytest.param("redis", marks=needs_redis)]


def fanout_env(kind, redis_url=None):
    """The environment of a server whose pushed updates go by `kind`."""
    return {"REDIS_URL": redis_url if kind == "redis" else ""}


# ------------------------------------------------------------ two servers


@pytest.fixture(scope="module")
def live_db(tmp_path_factory):
    with live_database("sqlite", tmp_path_factory.mktemp("live-two-servers")) as db:
        yield db


def table_document(name, game):
    return {
        "schema": "rummy-tracker.table/1",
        "name": name,
        "members": game["players"],
        "games": [game],
    }


def member_deals(answer):
    return {m["name"]: m["deals"] for m in json.loads(answer.body)["stats"]["members"]}


@pytest.mark.slow
@pytest.mark.parametrize("kind", BACKENDS)
def test_a_deal_saved_on_one_server_is_on_every_servers_pages_and_table_at_once(
    kind, live_db, tmp_path, request
):
    url = request.getfixturevalue("redis")[0] if kind == "redis" else None
    env = fanout_env(kind, url)
    doc = points_game_doc(name=f"Shared {kind}", deals=3)
    made = json.loads(
        live_db.manage("import_table", "-", stdin=json.dumps(table_document(kind, doc)))
    )
    table = made["edit_url"]
    with (
        live_server(live_db, tmp_path / "a", workers=2, env=env) as one,
        live_server(live_db, tmp_path / "b", workers=2, env=env) as two,
    ):
        host = {"Host": f"127.0.0.1:{one.port}"}
        htmx = {**host, "HX-Request": "true"}
        page = one.browser().get(table, headers=host)
        assert page.status == 200 and f"Shared {kind}" in page.body
        edit = re.search(r'href="(/g/[^/"]+/)"', page.body).group(1)
        for server in (one, two):
            assert member_deals(server.browser().get(f"{table}table.json")) == dict.fromkeys(
                NAMES, 3
            )
        # A deal saved on the second server: both show it at once, the table's figures too.
        phone = two.browser()
        game_page = phone.get(edit, headers=host)
        revision = revision_of(game_page.body)
        token, version = deal_form(game_page.body)
        saved = phone.post(f"{edit}deal/", deal_fields(10_004, version), token)
        assert saved.status == 302
        for server in (one, two, one, two):
            answer = server.browser().get(edit, headers=host)
            assert "4 deals played" in answer.body
            poll = server.browser().get(f"{edit}live/?v={revision}", headers=htmx)
            assert poll.status == 200 and "4 deals played" in poll.body
            assert revision_of(poll.body) == revision + 1
            unchanged = server.browser().get(f"{edit}live/?v={revision + 1}", headers=htmx)
            assert unchanged.status == 204
            figures = member_deals(server.browser().get(f"{table}table.json"))
            assert figures == dict.fromkeys(NAMES, 4)
        for server in (one, two):
            assert "Traceback" not in server.log_text()
