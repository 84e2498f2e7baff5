"""One cache for every worker and server: what is worked out once per revision
of a game (a table page's figures for each of its games) is right on every
server.

The default is Django's file cache in a folder the app owns (no extra
server); CACHE_URL switches to a real Redis (Debian's redis-server, started
here on a free port, see tests/liveredis.py). Two gunicorn servers on one
database and one cache stand for two workers, or two machines: a deal saved
on one is on the other's pages at once, and in the table's figures.
"""

import json
import re
import subprocess
import sys

import pytest

from .livegunicorn import (
    NAMES,
    ROOT,
    deal_fields,
    deal_form,
    live_database,
    live_server,
    points_game_doc,
    revision_of,
    server_env,
)
from .liveredis import redis_server, redis_skip_reason

needs_redis = pytest.mark.skipif(redis_skip_reason() is not None, reason=str(redis_skip_reason()))
BACKENDS = ["files", pytest.param("redis", marks=needs_redis)]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    reason = redis_skip_reason()
    if reason:
        print(f"\nRedis cache tests skipped: {reason}")
        pytest.skip(reason)
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


def cache_env(kind, tmp_path, redis_url=None):
    """The environment that points a server at a cache of its own kind."""
    if kind == "redis":
        return {"CACHE_URL": redis_url}
    return {"CACHE_DIR": str(tmp_path / "cache"), "CACHE_URL": "", "REDIS_URL": ""}


def settings_in_a_process(**env):
    """The cache settings a fresh process reads from this environment."""
    code = (
        "import json; from django.conf import settings; "
        "c = settings.CACHES['default']; "
        "print(json.dumps({'backend': c['BACKEND'], 'location': str(c['LOCATION'])}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=server_env("", DJANGO_SETTINGS_MODULE="tracker.settings", **env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_default_cache_is_a_folder_the_app_owns():
    found = settings_in_a_process(CACHE_URL="", REDIS_URL="", CACHE_DIR="")
    assert found["backend"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert found["location"] == str(ROOT / "var" / "cache")


def test_cache_url_or_redis_url_switches_to_djangos_redis_backend():
    url = "redis://10.0.0.5:6380/2"
    for name in ("CACHE_URL", "REDIS_URL"):
        found = settings_in_a_process(**{name: url})
        assert found == {"backend": "django.core.cache.backends.redis.RedisCache", "location": url}


# ------------------------------------------------------------ two servers


@pytest.fixture(scope="module")
def live_db(tmp_path_factory):
    with live_database("sqlite", tmp_path_factory.mktemp("live-shared-cache")) as db:
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
    url = request.getfixturevalue("redis_url") if kind == "redis" else None
    env = cache_env(kind, tmp_path, url)
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
