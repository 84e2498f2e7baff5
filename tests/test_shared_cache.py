"""One cache for every worker and server: a page is rendered once per revision.

The default is files in a folder the app owns (no extra server); CACHE_URL
switches to a real Redis (Debian's redis-server, started here on a free port,
see tests/liveredis.py). Two gunicorn servers on one database and one cache
stand for two workers, or two machines: what one renders the other serves,
and a saved deal is never answered with the page from before it.

To tell a page served from the cache from one rendered afresh, a test renames
the game straight in the database, behind the app's back (no revision bump):
a cached page still shows the old name, a fresh render the new one.
"""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from tracker.models import Game

from .livegunicorn import (
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
    assert found["backend"] == "tracker.cache.SharedFileCache"
    assert found["location"] == str(ROOT / "var" / "cache")


def test_cache_url_or_redis_url_switches_to_djangos_redis_backend():
    url = "redis://10.0.0.5:6380/2"
    for name in ("CACHE_URL", "REDIS_URL"):
        found = settings_in_a_process(**{name: url})
        assert found == {"backend": "django.core.cache.backends.redis.RedisCache", "location": url}


# ------------------------------------------------------------ in-process


@pytest.fixture(params=BACKENDS)
def shared_cache(request, tmp_path):
    """CACHES for this test: a fresh folder, or the Redis server."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        config = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    else:
        config = {"BACKEND": "tracker.cache.SharedFileCache", "LOCATION": str(tmp_path)}
    with override_settings(CACHES={"default": {**config, "TIMEOUT": 3600}}):
        caches["default"].clear()
        yield caches["default"]
        caches["default"].clear()


def new_points_game(client):
    data = {"format": "points", "name": "Sunday", "player": ["Asha", "Ravi"], "dealer": "0"}
    response = client.post("/new/", {**data, "rules_for": "points"})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Game.objects.get()


def save_deal(client, game, ravi_points):
    version = game.events.count()
    data = {"version": str(version), "winner": "1", "r2": "points", "p2": str(ravi_points)}
    response = client.post(f"/g/{game.edit_token}/deal/", data)
    assert response.status_code == 302, response.content.decode()[:2000]


@pytest.mark.django_db
def test_a_page_comes_from_the_shared_cache_until_the_next_deal(shared_cache):
    client = Client()
    game = new_points_game(client)
    save_deal(client, game, 30)
    page = client.get(game.get_absolute_url()).content.decode()
    assert "Sunday" in page and "1 deal played" in page
    Game.objects.filter(pk=game.pk).update(name="Renamed behind the app")
    # The same revision: the page rendered before, from the cache.
    page = Client().get(game.get_absolute_url()).content.decode()
    assert "Sunday" in page and "Renamed behind the app" not in page
    save_deal(client, game, 45)
    page = Client().get(game.get_absolute_url()).content.decode()
    assert "2 deals played" in page and "Renamed behind the app" in page
    # Ravi lost 30 then 45: 75 points down.
    assert '<td class="num">-75</td>' in page


# ------------------------------------------------------------ two servers


@pytest.fixture(scope="module")
def live_db(tmp_path_factory):
    with live_database("sqlite", tmp_path_factory.mktemp("live-shared-cache")) as db:
        yield db


def rename_behind_the_app(db, game_id, name):
    with sqlite3.connect(db.path) as conn:
        conn.execute("UPDATE tracker_game SET name = ? WHERE id = ?", (name, game_id))


@pytest.mark.slow
@pytest.mark.parametrize("kind", BACKENDS)
def test_what_one_server_renders_the_other_serves_and_a_new_deal_is_never_stale(
    kind, live_db, tmp_path, request
):
    url = request.getfixturevalue("redis_url") if kind == "redis" else None
    env = cache_env(kind, tmp_path, url)
    game = live_db.import_game({**points_game_doc(name=f"Shared {kind}", deals=3)})
    edit, view = f"/g/{game['edit_token']}/", f"/w/{game['view_token']}/"
    with (
        live_server(live_db, tmp_path / "a", workers=2, env=env) as one,
        live_server(live_db, tmp_path / "b", workers=2, env=env) as two,
    ):
        # Behind one name, as a load balancer would put them (the page shows its links).
        host = {"Host": f"127.0.0.1:{one.port}"}
        htmx = {**host, "HX-Request": "true"}
        one_phone = one.browser()
        page = one_phone.get(edit, headers=host)
        assert page.status == 200 and f"Shared {kind}" in page.body
        revision = revision_of(page.body)
        watched = one.browser().get(view, headers=host)
        assert watched.status == 200 and "3 deals played" in watched.body
        live = one.browser().get(f"{view}live/?v=0", headers=htmx)
        assert live.status == 200 and "3 deals played" in live.body

        rename_behind_the_app(live_db, game["id"], "Renamed behind the app")
        # The other server never rendered this revision: it serves the cached pages.
        for _ in range(4):
            for path, headers in (
                (edit, host),
                (view, host),
                (f"{view}live/?v=0", htmx),
            ):
                answer = two.browser().get(path, headers=headers)
                assert answer.status == 200
                assert f"Shared {kind}" in answer.body, path
                assert "Renamed behind the app" not in answer.body, path

        # A deal saved on the second server: both show it at once.
        token, version = deal_form(page.body)
        phone = two.browser()
        phone.cookies = dict(one_phone.cookies)  # the same browser, now on the other server
        saved = phone.post(f"{edit}deal/", deal_fields(10_004, version), token)
        assert saved.status == 302
        for server in (one, two, one, two):
            for path in (edit, view):
                answer = server.browser().get(path, headers=host)
                assert "4 deals played" in answer.body, path
                assert "Renamed behind the app" in answer.body
            poll = server.browser().get(f"{view}live/?v={revision}", headers=htmx)
            assert poll.status == 200 and "4 deals played" in poll.body
            assert revision_of(poll.body) == revision + 1
            unchanged = server.browser().get(f"{view}live/?v={revision + 1}", headers=htmx)
            assert unchanged.status == 204
        for server in (one, two):
            assert "Traceback" not in server.log_text()


# ------------------------------------------------------------ the parts


def test_the_folder_cache_keeps_pages_in_memory_and_every_value_in_files(tmp_path):
    from tracker.cache import SharedFileCache

    one = SharedFileCache(str(tmp_path), {"TIMEOUT": 60})
    two = SharedFileCache(str(tmp_path), {"TIMEOUT": 60})  # another worker
    one.set("game-html:abc", "<p>deal 3</p>")
    one.set("game-state:abc:3", b"state")
    assert two.get("game-html:abc") == "<p>deal 3</p>"
    assert two.get("game-state:abc:3") == b"state"
    # The page is now in the second worker's memory as well as in the folder.
    for path in tmp_path.iterdir():
        path.unlink()
    assert two.get("game-html:abc") == "<p>deal 3</p>"
    assert two.get("game-state:abc:3") is None
    two.clear()
    assert two.get("game-html:abc") is None


def test_one_large_state_kept_under_both_links_is_compressed_once_and_read_by_either(
    tmp_path, monkeypatch
):
    from tracker import cache as shared

    made = []
    compress = shared.zlib.compress
    monkeypatch.setattr(shared.zlib, "compress", lambda *a: made.append(1) or compress(*a))
    cache = shared.SharedFileCache(str(tmp_path), {"TIMEOUT": 60})
    kept = b"the game and its state at revision 7" * 3000  # 108 KB: a long game
    cache.set_many({"game-state:edit:7": kept, "game-state:view:7": kept})
    assert len(made) == 1
    other = shared.SharedFileCache(str(tmp_path), {"TIMEOUT": 60})  # another worker
    assert other.get("game-state:edit:7") == kept
    assert other.get("game-state:view:7") == kept
    # A different value is compressed afresh, not mistaken for the last one.
    cache.set("game-state:view:8", b"revision 8" * 10000)
    assert len(made) == 2
    assert other.get("game-state:view:8") == b"revision 8" * 10000
    assert sum(f.stat().st_size for f in tmp_path.glob("*.djcache")) < 20_000


def test_pages_and_small_states_are_written_plain_and_older_files_still_read(tmp_path, monkeypatch):
    import pickle
    import zlib

    from tracker import cache as shared

    made = []
    compress = shared.zlib.compress
    monkeypatch.setattr(shared.zlib, "compress", lambda *a: made.append(1) or compress(*a))
    cache = shared.SharedFileCache(str(tmp_path), {"TIMEOUT": 60})
    page = "<section id=board>Asha 120</section>" * 300  # 11 KB
    cache.set("game-html:abc", page)
    cache.set("game-state:abc:3", b"a 50-deal state" * 600)  # 9 KB
    assert made == []  # neither compressed
    other = shared.SharedFileCache(str(tmp_path), {"TIMEOUT": 60})
    assert other.get("game-html:abc") == page
    assert other.get("game-state:abc:3") == b"a 50-deal state" * 600
    # A file written compressed (as before) is still read.
    path = other._key_to_file("game-state:abc:4")
    with open(path, "wb") as f:
        f.write(pickle.dumps(other.get_backend_timeout(60), pickle.HIGHEST_PROTOCOL))
        f.write(zlib.compress(pickle.dumps(b"revision 4", pickle.HIGHEST_PROTOCOL)))
    assert other.get("game-state:abc:4") == b"revision 4"
    assert other.touch("game-state:abc:4", 120) and other.get("game-state:abc:4") == b"revision 4"
    assert other.touch("game-state:nothing") is False
    # No temporary file is left behind by the writes.
    assert not list(tmp_path.glob("*.tmp"))


def test_a_full_folder_is_culled_now_and_then_not_on_every_write(tmp_path):
    from tracker.cache import SharedFileCache

    cache = SharedFileCache(str(tmp_path), {"TIMEOUT": 60, "OPTIONS": {"MAX_ENTRIES": 300}})
    for i in range(3000):
        cache.set(f"game-state:{i}", i)
    kept = len(list(tmp_path.glob("*.djcache")))
    # Culled back near MAX_ENTRIES (over it by at most a few rounds of writes between culls).
    assert 150 < kept < 300 + 5 * SharedFileCache.CULL_EVERY


def test_a_folder_far_from_full_is_counted_rarely(tmp_path, monkeypatch):
    """Counting 5,000 files takes milliseconds: a process counts them again only
    when its own writes since could have filled the folder (shared by SHARERS)."""
    from tracker.cache import SharedFileCache

    cache = SharedFileCache(str(tmp_path), {"TIMEOUT": 60, "OPTIONS": {"MAX_ENTRIES": 5000}})
    counted = []
    count_files = cache._count_files
    monkeypatch.setattr(cache, "_count_files", lambda: counted.append(1) or count_files())
    for i in range(1000):
        cache.set(f"game-state:{i}", i)
    # The first write counts 0 files; the next count is 625 writes later (5,000 / 8).
    assert len(counted) == 2
    assert len(list(tmp_path.glob("*.djcache"))) == 1000


def test_links_reversed_once_are_the_links_django_makes():
    from django.template import Context, Template
    from django.urls import reverse, set_script_prefix

    template = Template("{% url 'edit_deal' token 3 %}|{% url 'home' as home %}{{ home }}")
    context = Context({"token": "a" * 32})
    assert template.render(context) == f"/g/{'a' * 32}/event/3/|/"
    set_script_prefix("/rummy/")  # served under a prefix: the links follow it
    try:
        assert template.render(context) == f"/rummy/g/{'a' * 32}/event/3/|/rummy/"
        assert reverse("home") == "/rummy/"
    finally:
        set_script_prefix("/")


@pytest.mark.django_db
def test_a_game_is_kept_beside_its_state_as_its_values_and_read_back_as_the_row():
    """The shared cache keeps a game's fields' values beside its state: a watcher
    reads back the game as the database gives it, and a game kept as a pickled
    model (before) is still read."""
    import pickle

    from tracker import views

    from .events import deal

    made = Game.create(
        "points", {}, ["Asha", "Ravi", "Meena"], history=[deal("Asha", Ravi=10, Meena=20)]
    )
    game = Game.by_link(made.edit_token, can_edit=True)
    state = game.state()
    views._keep_state(game, state)
    names = [f.attname for f in Game._meta.concrete_fields]
    back, back_state = views._game_and_state(made.view_token, False, game.revision, game.view_key)
    assert [getattr(back, n) for n in names] == [getattr(game, n) for n in names]
    assert back.event_ids == game.event_ids == [e.serial for e in made.events.all()]
    assert back_state.document() == state.document()
    back.name = "Sunday"
    back.save()  # a game read back is saved as a row, not added again
    assert Game.objects.count() == 1 and Game.objects.get().name == "Sunday"
    # An editing phone's save takes only the event ids from it.
    reader = Game.by_link(made.edit_token, can_edit=True)
    assert views._state(reader).document() == state.document()
    assert reader.event_ids == game.event_ids
    # A game kept as its model, as before, is still read.
    key = views._state_key(game.view_key, game.revision)
    caches["default"].set(key, pickle.dumps((game, state), pickle.HIGHEST_PROTOCOL))
    older, _ = views._game_and_state(made.view_token, False, game.revision, game.view_key)
    assert older.name == game.name and older.event_ids == game.event_ids
    reader = Game.by_link(made.edit_token, can_edit=True)
    views._state(reader)
    assert reader.event_ids == game.event_ids


def _cache_files():
    cache = caches["default"]
    return sorted(p.name for p in Path(cache._dir).glob("*.djcache"))


@pytest.mark.django_db
def test_a_deal_saved_writes_one_cache_file_its_steps_kept_beside_its_state():
    """A save that is answered with a step keeps the step (and the watchers', when
    someone watches) in the same entry as its new state: one file, and the phones
    one revision behind are sent those steps from it."""
    import re

    from tracker.cache import SharedFileCache

    from .test_all_events_live import DEAL_16, FIFTEEN, HTMX

    cache = caches["default"]
    if not isinstance(cache, SharedFileCache):
        pytest.skip("counts the files of the file-based cache")
    cache.clear()
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"], history=FIFTEEN)
    watcher = Client()
    assert watcher.get(f"/w/{game.view_token}/live/?v=0", **HTMX).status_code == 200
    before = _cache_files()
    saved = (
        Client()
        .post(f"/g/{game.edit_token}/deal/", {"version": "15", **DEAL_16}, **HTMX)
        .content.decode()
    )
    assert "afterbegin:#history-rows" in saved  # a step
    assert len(_cache_files()) == len(before) + 1
    assert Game.objects.get().revision == 16

    def token_out(html):
        return re.sub(r'value="[^"]{64}"|"X-CSRFToken": "[^"]{64}"', "", html)

    poll = Client().get(f"/g/{game.edit_token}/live/?v=15", **HTMX).content.decode()
    assert "afterbegin:#history-rows" in poll and token_out(saved).startswith(token_out(poll))
    watched = watcher.get(f"/w/{game.view_token}/live/?v=15", **HTMX).content.decode()
    assert "afterbegin:#history-rows" in watched and "Edit deal" not in watched
    assert len(_cache_files()) == len(before) + 1  # both found, nothing rendered


@pytest.mark.django_db
def test_a_state_kept_alone_or_by_an_older_version_is_read_and_has_no_step():
    """An entry of the state alone (a change other than a deal, a reader that
    replayed it, a version before the steps were kept beside it) is still read;
    a phone one revision behind is then sent the whole board, as a fresh poll."""
    import pickle

    from tracker import views

    from .test_all_events_live import FIFTEEN, HTMX

    caches["default"].clear()
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"], history=FIFTEEN)
    game = Game.by_link(game.edit_token, can_edit=True)
    state = game.state()
    key = views._state_key(game.view_key, game.revision)
    caches["default"].set(key, pickle.dumps((game.as_kept(), state), pickle.HIGHEST_PROTOCOL))
    reader = Game.by_link(game.edit_token, can_edit=True)
    assert views._state(reader).document() == state.document()
    back, _ = views._game_and_state(game.view_token, False, game.revision, game.view_key)
    assert back.name == game.name and back.event_ids == game.event_ids
    behind = Client().get(f"/w/{game.view_token}/live/?v=14", **HTMX).content.decode()
    fresh = Client().get(f"/w/{game.view_token}/live/?v=0", **HTMX).content.decode()
    assert behind == fresh and 'id="history"' in behind


def test_an_expired_or_empty_file_reads_as_missing_and_is_deleted(tmp_path):
    """A file is read whole in one go (`_read`): what Django's own read does with
    an entry past its time, or an empty file, it still does: none, and the file
    deleted. An entry kept for ever (timeout None) is read."""
    from tracker.cache import SharedFileCache

    cache = SharedFileCache(str(tmp_path), {"TIMEOUT": 60})
    cache.set("game-html:old", b"<p>old</p>", timeout=-1)  # past its time at once
    cache.set("game-state:abc:3", (b"state", {"k": b"step"}), timeout=None)
    path = cache._key_to_file("game-state:abc:4")
    open(path, "wb").close()
    other = SharedFileCache(str(tmp_path), {"TIMEOUT": 60})
    assert other.get("game-html:old") is None
    assert other.get("game-state:abc:4", "missing") == "missing"
    assert other.get("game-state:abc:3") == (b"state", {"k": b"step"})
    assert len(list(tmp_path.glob("*.djcache"))) == 1
