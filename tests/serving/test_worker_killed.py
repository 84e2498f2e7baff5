"""A gunicorn worker killed (`kill -9`) while phones are saving deals.

Phones post deals without pause through a real gunicorn with several
workers; workers are killed one after another in the middle of it. Every
deal that got its success answer must be stored, where its form said; none
may be half stored; and the server must go on answering. Runs on a SQLite
file shared by the workers, and on PostgreSQL when this run's DATABASE_URL
is PostgreSQL (see tests/servers/gunicorn.py). `pytest -s` shows the figures.
"""

import itertools
import os
import random
import signal
import sqlite3
import threading
import time
from collections import Counter

import pytest

from tests.servers.gunicorn import (
    BACKENDS,
    Dropped,
    check_points_state,
    deal_event,
    deal_fields,
    deal_form,
    deal_number,
    live_database,
    live_server,
    points_game_doc,
)

PHONES = 8  # more phones than workers, so every worker is busy when one is killed
KILLS = 4
LOCKED = "database is locked"


@pytest.fixture(params=BACKENDS)
def live_db(request, tmp_path):
    with live_database(request.param, tmp_path / "db") as db:
        yield db


@pytest.mark.slow
def test_a_killed_worker_loses_no_saved_deal_and_half_stores_none(live_db, tmp_path):
    with live_server(live_db, tmp_path / "logs") as server:
        game = live_db.import_game(points_game_doc(deals=2))
        path = f"/g/{game['edit_token']}/"
        numbers = itertools.count()  # deal k: every post of one deal carries the same k
        attempts = []  # (k, version posted against, status or "dropped")
        failures = []
        lock = threading.Lock()
        stop = threading.Event()

        def fresh_form(phone):
            """Read the game page again, riding out dropped connections."""
            for _ in range(50):
                try:
                    page = phone.get(path)
                except Dropped:
                    time.sleep(0.05)
                    continue
                if page.status == 200:
                    return deal_form(page.body)
                raise AssertionError(f"GET {path}: {page.status} {page.body[:500]}")
            raise AssertionError(f"GET {path}: dropped 50 times")

        def phone_loop():
            phone = server.browser()
            try:
                csrf, version = fresh_form(phone)
                while not stop.is_set():
                    with lock:
                        k = next(numbers)
                    while not stop.is_set():
                        try:
                            answer = phone.post(f"{path}deal/", deal_fields(k, version), csrf)
                        except Dropped:
                            # Maybe stored, maybe not: never posted again, so it
                            # can be stored at most once.
                            with lock:
                                attempts.append((k, version, "dropped"))
                            csrf, version = fresh_form(phone)
                            break
                        with lock:
                            attempts.append((k, version, answer.status))
                        if LOCKED in answer.body or answer.status not in (302, 409):
                            with lock:
                                failures.append(f"deal {k}: {answer.status} {answer.body[:500]}")
                            csrf, version = fresh_form(phone)
                            break
                        if answer.status == 302:
                            version += 1  # a guess: a 409 tells the right one
                            break
                        csrf, version = deal_form(answer.body)
            except Exception as error:  # reported below, with the figures
                with lock:
                    failures.append(repr(error))

        def successes():
            with lock:
                return sum(1 for *_, status in attempts if status == 302)

        started = time.monotonic()
        phones = [threading.Thread(target=phone_loop) for _ in range(PHONES)]
        for thread in phones:
            thread.start()
        killed = []
        pick = random.Random(9)
        try:
            for _ in range(KILLS):
                # Let some deals through first, then kill a worker in the middle of them.
                before = successes()
                deadline = time.monotonic() + 30
                while successes() < before + 8 and time.monotonic() < deadline:
                    time.sleep(0.02)
                workers = server.worker_pids()
                assert workers, "gunicorn has no workers"
                victim = pick.choice(workers)
                os.kill(victim, signal.SIGKILL)
                killed.append((victim, successes()))
            before = successes()
            deadline = time.monotonic() + 30
            while successes() < before + 8 and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            stop.set()
            for thread in phones:
                thread.join(timeout=120)
        took = time.monotonic() - started

        # The server goes on answering, with its full count of workers again.
        assert server.wait_for_workers(), f"workers now: {server.worker_pids()}"
        assert not set(server.worker_pids()) & {pid for pid, _ in killed}
        phone = server.browser()
        csrf, version = fresh_form(phone)
        last = next(numbers)
        after = phone.post(f"{path}deal/", deal_fields(last, version), csrf)
        assert after.status == 302, after.body[:2000]
        attempts.append((last, version, 302))
        log = server.log_text()

    statuses = Counter(status for *_, status in attempts)
    saved = {k: version for k, version, status in attempts if status == 302}
    dropped = {k for k, _, status in attempts if status == "dropped"}
    posted = {k for k, _, _ in attempts}

    doc = live_db.export_game(game["view_token"])
    rows = live_db.stored_events(game["id"])
    positions = [position for position, _, _ in rows["events"]]
    new = doc["history"][2:]
    stored = [deal_number(event) for event in new]
    stored_at = {k: position for position, k in enumerate(stored, start=2)}
    dropped_stored = sorted(dropped & set(stored))
    figures = (
        f"[{live_db.backend}] {PHONES} phones, {len(attempts)} posts in {took:.1f}s, "
        f"{len(killed)} workers killed with kill -9 (after {[n for _, n in killed]} saved deals); "
        f"statuses {dict(sorted(statuses.items(), key=str))}; deals recorded {len(new)}, "
        f"expected {len(saved)} answered 302 + {len(dropped_stored)} of the "
        f"{len(dropped)} whose connection dropped"
    )
    print(f"\n{figures}")
    assert not failures, "\n".join([figures, *failures[:10]])
    assert LOCKED not in log, figures
    assert "Traceback" not in log, f"{figures}\n{log[-4000:]}"
    assert len(killed) == KILLS, figures

    # Nothing half stored: every row is a whole deal that was posted, each once,
    # in positions without gap, with the revision bumped in the same transaction.
    assert positions == list(range(len(positions))), f"{figures}; positions {positions}"
    assert rows["revision"] == len(positions), f"{figures}; revision {rows['revision']}"
    assert None not in stored, f"{figures}; not a whole posted deal: {new[stored.index(None)]}"
    assert len(set(stored)) == len(stored), f"{figures}; a deal stored twice"
    assert set(stored) <= posted, figures
    # Every deal that was answered 302 is stored, where its form said.
    assert {k: stored_at.get(k) for k in saved} == saved, figures
    # The others were refused (409) or lost with their connection, never stored.
    assert set(stored) - set(saved) <= dropped, figures
    assert len(new) == len(saved) + len(dropped_stored), figures
    assert [deal_event(k) for k in stored] == new
    check_points_state(doc)
    if live_db.path is not None:
        check = sqlite3.connect(live_db.path)
        try:
            assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            check.close()
