"""Many phones saving deals at once, through real gunicorn workers.

Each test runs `gunicorn tracker.wsgi` with several workers on 127.0.0.1
against a database of its own: a SQLite file shared by the workers, and,
when this run's DATABASE_URL is PostgreSQL, a PostgreSQL database created for
the test (see tests/servers/gunicorn.py). `pytest -s` shows the figures.
"""

import threading
from collections import Counter

import pytest

from tests.servers.fixtures import live_db_fixture, server_fixture  # noqa: F401 (the fixtures)
from tests.servers.gunicorn import (
    check_points_state,
    deal_event,
    deal_fields,
    deal_form,
    in_threads,
    live_server,
    points_game_doc,
    revision_of,
)
from tests.servers.postgres import needs_postgres

POSTERS = 32  # threads posting a deal each, all against the same version at first
LOCKED = "database is locked"


def new_game(db, deals=2):
    game = db.import_game(points_game_doc(deals=deals))
    game["deals"] = deals
    return game


def check_stored(db, game, expected_events):
    """The stored rows are whole and in order, and replay to what export says.

    Returns the exported document.
    """
    rows = db.stored_events(game["id"])
    positions = [position for position, _, _ in rows["events"]]
    assert positions == list(range(len(positions))), f"event positions {positions}"
    # The revision is bumped in the same transaction as each saved event.
    assert rows["revision"] == len(positions), (
        f"revision {rows['revision']} for {len(positions)} events"
    )
    doc = db.export_game(game["view_token"])
    stored = [{"type": kind, **data} for _, kind, data in rows["events"]]
    assert doc["history"] == stored
    assert doc["history"][game["deals"] :] == expected_events
    check_points_state(doc)
    return doc


def server_errors(server):
    log = server.log_text()
    return [line for line in log.splitlines() if LOCKED in line or "Traceback" in line]


@pytest.mark.slow
def test_simultaneous_deal_posts_record_one_deal_per_event_number(live_db, server):
    game = new_game(live_db)
    path = f"/g/{game['edit_token']}/"
    start_version = game["deals"]
    ready = threading.Barrier(POSTERS, timeout=120)
    answers = []  # (poster, version posted against, status, body has "database is locked")
    first_posts = []  # each poster's first answer, all made against start_version
    failures = []
    lock = threading.Lock()

    def poster(k):
        try:
            phone = server.browser()
            page = phone.get(path)
            assert page.status == 200, page.status
            csrf, version = deal_form(page.body)
            ready.wait()
            for attempt in range(4 * POSTERS):
                answer = phone.post(f"{path}deal/", deal_fields(k, version), csrf)
                with lock:
                    answers.append((k, version, answer.status, LOCKED in answer.body))
                    if attempt == 0:
                        first_posts.append((version, answer.status))
                if answer.status == 409:
                    assert "Someone else just saved deal" in answer.body
                    csrf, version = deal_form(answer.body)  # the new score and form
                    continue
                if answer.status == 302:
                    assert answer.location == path, answer.location
                else:
                    with lock:
                        failures.append(f"poster {k}: {answer.status} {answer.body[:500]}")
                return
            failures.append(f"poster {k}: still refused after {4 * POSTERS} tries")
        except Exception as error:  # reported below, with the figures
            ready.abort()  # no poster waits for one that failed
            with lock:
                failures.append(f"poster {k}: {error!r}")

    took = in_threads(poster, POSTERS, timeout=180)

    statuses = Counter(status for _, _, status, _ in answers)
    locked = sum(1 for *_, is_locked in answers if is_locked)
    wins = {}  # version -> posters that got 302 for it
    for k, version, status, _ in answers:
        if status == 302:
            wins.setdefault(version, []).append(k)
    first_round = Counter(status for _, status in first_posts)
    figures = (
        f"[{live_db.backend}] {POSTERS} posters, {len(answers)} posts in {took:.1f}s; "
        f"statuses {dict(sorted(statuses.items()))}; first round against version "
        f"{start_version}: {dict(first_round)}; {locked} bodies with {LOCKED!r}"
    )
    print(f"\n{figures}")
    assert not failures, "\n".join([figures, *failures[:10]])
    assert locked == 0, figures
    assert set(statuses) <= {302, 409}, figures  # a Points game never ends: no 422
    assert statuses[302] == POSTERS, figures
    assert [v for v, _ in first_posts] == [start_version] * POSTERS, figures
    assert first_round == {302: 1, 409: POSTERS - 1}, figures
    expected_versions = list(range(start_version, start_version + POSTERS))
    assert sorted(wins) == expected_versions, f"{figures}; versions won: {sorted(wins)}"
    assert all(len(ks) == 1 for ks in wins.values()), f"{figures}; {wins}"
    assert not server_errors(server), "\n".join(server_errors(server)[:20])

    doc = check_stored(live_db, game, [deal_event(wins[v][0]) for v in expected_versions])
    recorded = len(doc["history"]) - start_version
    print(
        f"[{live_db.backend}] deals recorded {recorded}, expected {POSTERS} "
        f"(one per 302; events 0..{len(doc['history']) - 1}, no gap or duplicate)"
    )
    assert recorded == statuses[302] == POSTERS


@pytest.mark.slow
def test_the_same_form_posted_twice_is_recorded_once(live_db, server):
    game = new_game(live_db)
    path = f"/g/{game['edit_token']}/"
    phone = server.browser()
    csrf, version = deal_form(phone.get(path).body)

    # One form, sent 8 times at once (a double tap, a retrying phone).
    copies = 8
    form = deal_fields(1, version)
    ready = threading.Barrier(copies, timeout=60)
    statuses = []

    def send():
        try:
            ready.wait()
            answer = phone.post(f"{path}deal/", form, csrf)
        except Exception as error:  # counted as missing below
            ready.abort()
            statuses.append((repr(error), False))
            return
        statuses.append((answer.status, LOCKED in answer.body))

    in_threads(lambda _: send(), copies, timeout=120)
    at_once = Counter(status for status, _ in statuses)

    # The same form again, one after the other.
    csrf, version = deal_form(phone.get(path).body)
    form = deal_fields(2, version)
    first = phone.post(f"{path}deal/", form, csrf)
    again = phone.post(f"{path}deal/", form, csrf)

    figures = (
        f"[{live_db.backend}] {copies} copies at once: {dict(at_once)}; "
        f"then one after the other: {first.status}, {again.status}"
    )
    print(f"\n{figures}")
    assert len(statuses) == copies, figures
    assert not any(is_locked for _, is_locked in statuses), figures
    assert at_once == {302: 1, 409: copies - 1}, figures
    assert (first.status, again.status) == (302, 409), figures
    assert "Someone else just saved deal" in again.body
    check_stored(live_db, game, [deal_event(1), deal_event(2)])


@pytest.mark.slow
@pytest.mark.parametrize("live_db", [pytest.param("postgres", marks=needs_postgres)], indirect=True)
def test_two_servers_on_one_postgresql_database_share_every_deal(live_db, server, tmp_path):
    """The app keeps no state of its own: two servers, one database, one game."""
    with live_server(live_db, tmp_path) as other:
        game = new_game(live_db)
        edit, view = f"/g/{game['edit_token']}/", f"/w/{game['view_token']}/"
        phone, watcher = server.browser(), other.browser()
        page = phone.get(edit)
        csrf, version = deal_form(page.body)
        revision = revision_of(watcher.get(view).body)
        assert watcher.get(f"{view}live/?v={revision}").status == 204

        # Saved through the first server, seen by the second.
        saved = phone.post(f"{edit}deal/", deal_fields(7, version), csrf)
        assert saved.status == 302, saved.body[:2000]
        fragment = watcher.get(f"{view}live/?v={revision}")
        assert fragment.status == 200
        assert fragment.headers.get("cache-control") == "no-store"
        seen = revision_of(fragment.body)
        assert seen == revision + 1
        assert "<html" not in fragment.body
        assert f"{version + 1} deals played" in fragment.body
        assert watcher.get(f"{view}live/?v={seen}").status == 204

        # The other way round, with the first server's cookie and CSRF token:
        # the second server signs and checks them with the same key, nothing more.
        other_phone = other.browser()
        other_phone.cookies = dict(phone.cookies)
        saved = other_phone.post(f"{edit}deal/", deal_fields(8, version + 1), csrf)
        assert saved.status == 302, saved.body[:2000]
        fragment = phone.get(f"{edit}live/?v={seen}")
        assert fragment.status == 200
        assert revision_of(fragment.body) == seen + 1
        assert f"{version + 2} deals played" in fragment.body
        assert phone.get(f"{edit}live/?v={seen + 1}").status == 204
        # The form made before either deal is stale on both servers.
        stale = other_phone.post(f"{edit}deal/", deal_fields(9, version), csrf)
        assert stale.status == 409
        print(
            f"\n[{live_db.backend}] server :{server.port} saved deal {version + 1}, "
            f":{other.port} showed it (revision {revision} -> {seen}); :{other.port} saved "
            f"deal {version + 2}, :{server.port} showed it; a stale form got 409 on either"
        )
    check_stored(live_db, game, [deal_event(7), deal_event(8)])
