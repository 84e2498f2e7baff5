"""Edits, deletes, rejoins, splits and ends from several phones at once, through
real gunicorn workers (tests/servers/gunicorn.py), on SQLite and on PostgreSQL.

Every change names its event by id and carries the version it was made
against: the same post sent several times is applied once, a form made before
another phone's change is refused with 409, and a load of delete and edit
retries from several phones ends with every acknowledged change applied
exactly once. `pytest -s` shows the figures.
"""

import http.client
import json
import random
import threading
import time
from collections import Counter

import pytest

from tests.servers.fixtures import live_db_fixture, server_fixture  # noqa: F401 (the fixtures)
from tests.servers.gunicorn import (
    CSRF,
    NAMES,
    VERSION,
    deal_event,
    deal_fields,
    in_threads,
    points_game_doc,
)
from tests.views.test_changes import CHARSETS, Page

LOCKED = "database is locked"
D1 = {"type": "deal", "winner": "Asha", "results": {"Ravi": 80, "Meena": 10, "Kiran": 40}}
D2 = {"type": "deal", "winner": "Meena", "results": {"Asha": 30, "Ravi": 25, "Kiran": 20}}
REJOIN = {"type": "rejoin", "player": "Ravi"}


def pool_doc(history):
    """Pool 101, entry fee 50: after D1 and D2 Ravi is out on 105 and may rejoin at 61."""
    return {
        "schema": "rummy-tracker.game/1",
        "name": "Live pool",
        "format": "pool",
        "rules": {"entry_fee": "50"},
        "players": NAMES,
        "first_dealer": NAMES[0],
        "history": list(history),
    }


def stored(db, game):
    """(revision, [(serial, event)] in history order) as the ORM reads the rows."""
    code = (
        "import json\n"
        "from tracker.models import Game\n"
        f"game = Game.objects.get(pk={int(game['id'])})\n"
        "rows = [(e.position, e.serial, e.as_dict()) for e in game.events.all()]\n"
        "print(json.dumps({'revision': game.revision, 'rows': rows}))\n"
    )
    found = json.loads(db.manage("shell", "-c", code).strip().splitlines()[-1])
    positions = [position for position, _, _ in found["rows"]]
    assert positions == list(range(len(positions))), f"positions {positions}"
    return found["revision"], [(serial, event) for _, serial, event in found["rows"]]


def history(db, game):
    revision, rows = stored(db, game)
    return revision, [event for _, event in rows]


def server_errors(server):
    return [
        line for line in server.log_text().splitlines() if LOCKED in line or "Traceback" in line
    ]


def page_of(phone, path):
    answer = phone.get(path)
    assert answer.status == 200, (path, answer.status, answer.body[:1000])
    return Page(answer.body)


def edit_page(phone, game, number):
    edit = f"/g/{game['edit_token']}/"
    return page_of(phone, page_of(phone, edit).link(f"Edit deal {number}"))


def send(phone, form, typed=None):
    action, fields = form
    return phone.post(action, {**fields, **(typed or {})}, fields["csrfmiddlewaretoken"])


def typed_deal(winner, **results):
    seat = {name: i for i, name in enumerate(NAMES, start=1)}
    fields = {"winner": str(seat[winner])}
    for name, points in results.items():
        fields[f"r{seat[name]}"], fields[f"p{seat[name]}"] = "points", str(points)
    return fields


def at_once(copies, post):
    """Call `post` from `copies` threads released together; their answers' statuses."""
    ready = threading.Barrier(copies, timeout=60)
    statuses, lock = [], threading.Lock()

    def one():
        try:
            ready.wait()
            answer = post()
            status = (answer.status, LOCKED in answer.body)
        except Exception as error:  # counted as a wrong answer below
            ready.abort()
            status = (repr(error), False)
        with lock:
            statuses.append(status)

    in_threads(lambda _: one(), copies, timeout=120)
    return statuses


# ------------------------------------------------------------ one form, sent many times at once

COPIES = 8
KINDS = {
    # kind: (history imported, make the form on a phone, history after the change)
    "edit": (
        [D1, D2],
        lambda phone, game: (
            edit_page(phone, game, 1).form("Save deal 1"),
            typed_deal("Asha", Ravi=80, Meena=10, Kiran=45),
        ),
        [{**D1, "results": {"Ravi": 80, "Meena": 10, "Kiran": 45}}, D2],
    ),
    "delete": (
        [D1, D2],
        lambda phone, game: (edit_page(phone, game, 1).form("Yes, delete deal 1"), None),
        [D2],
    ),
    "rejoin": (
        [D1, D2],
        lambda phone, game: (
            page_of(phone, f"/g/{game['edit_token']}/").form("Rejoin Ravi at 61"),
            None,
        ),
        [D1, D2, REJOIN],
    ),
    "undo": (
        [D1, D2, REJOIN],
        lambda phone, game: (page_of(phone, f"/g/{game['edit_token']}/").form("Yes, undo"), None),
        [D1, D2],
    ),
    "split": (
        [D1, D2],
        lambda phone, game: (
            page_of(phone, f"/g/{game['edit_token']}/split/").form("Split by drops"),
            None,
        ),
        [D1, D2, {"type": "split", "method": "drops"}],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", [*KINDS, "end"])
def test_one_change_sent_many_times_at_once_is_applied_once(live_db, server, kind):
    phone = server.browser()
    if kind == "end":
        game = live_db.import_game(points_game_doc(deals=2))
        expected = [*history(live_db, game)[1], {"type": "end"}]
        page = page_of(phone, f"/g/{game['edit_token']}/")
        form, typed = page.form("Yes, end the session"), None
    else:
        imported, make, expected = KINDS[kind]
        game = live_db.import_game(pool_doc(imported))
        form, typed = make(phone, game)
    revision = history(live_db, game)[0]
    statuses = at_once(COPIES, lambda: send(phone, form, typed))
    counted = Counter(status for status, _ in statuses)
    print(f"\n[{live_db.backend}] {kind}: {COPIES} copies at once: {dict(counted)}")
    assert not any(is_locked for _, is_locked in statuses), statuses
    assert counted == {302: 1, 409: COPIES - 1}, counted
    assert history(live_db, game) == (revision + 1, expected)
    # And once more, after they all came back.
    assert send(phone, form, typed).status == 409
    assert history(live_db, game) == (revision + 1, expected)
    assert not server_errors(server), "\n".join(server_errors(server)[:20])


# ------------------------------------------------------------ forms made before another change

OTHERS = {
    "delete": (
        lambda phone, game: send(phone, edit_page(phone, game, 1).form("Yes, delete deal 1")),
        [D2],
    ),
    "edit": (
        lambda phone, game: send(
            phone,
            edit_page(phone, game, 2).form("Save deal 2"),
            typed_deal("Meena", Asha=30, Ravi=25, Kiran=22),
        ),
        [D1, {**D2, "results": {"Asha": 30, "Ravi": 25, "Kiran": 22}}],
    ),
    "rejoin": (
        lambda phone, game: send(
            phone, page_of(phone, f"/g/{game['edit_token']}/").form("Rejoin Ravi at 61")
        ),
        [D1, D2, REJOIN],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("other", list(OTHERS))
def test_every_form_made_before_another_phones_change_is_refused(live_db, server, other):
    game = live_db.import_game(pool_doc([D1, D2]))
    phone_a, phone_b = server.browser(), server.browser()
    edit = f"/g/{game['edit_token']}/"
    game_page, deal_2 = page_of(phone_a, edit), edit_page(phone_a, game, 2)
    forms = {
        "deal": (game_page.form("Save deal 3"), typed_deal("Asha", Meena=2, Kiran=2)),
        "edit": (deal_2.form("Save deal 2"), typed_deal("Meena", Asha=35, Ravi=25, Kiran=20)),
        "delete": (deal_2.form("Yes, delete deal 2"), None),
        "rejoin": (game_page.form("Rejoin Ravi at 61"), None),
        "split": (page_of(phone_a, f"{edit}split/").form("Split by drops"), None),
    }
    change, after = OTHERS[other]
    assert change(phone_b, game).status == 302
    assert history(live_db, game) == (3, after)
    answers = {kind: send(phone_a, form, typed) for kind, (form, typed) in forms.items()}
    statuses = {kind: answer.status for kind, answer in answers.items()}
    print(f"\n[{live_db.backend}] after another phone's {other}: {statuses}")
    assert set(statuses.values()) == {409}, statuses
    assert all("Someone else just" in answer.body for answer in answers.values())
    assert history(live_db, game) == (3, after)


# ------------------------------------------------------------ a load of retried edits and deletes

PHONES = 6
DEALS = 36  # phone p owns the deals whose id is p + 1 (mod PHONES)
ATTEMPTS = 80  # per change: bounded, so a phone that never gets through fails the test
LOAD_SECONDS = 240


def plan(p):
    """Phone p's changes, on its own deals: edits (to a deal only it types) and deletes."""
    own = [serial for serial in range(1, DEALS + 1) if (serial - 1) % PHONES == p]
    k = 20_000 + 10 * p  # deal_event(k) tells the phone and the edit back
    return [
        ("edit", own[0], k),
        ("delete", own[1], None),
        ("edit", own[2], k + 1),
        ("edit", own[2], k + 2),  # the same deal corrected twice: the last one stays
        ("delete", own[3], None),
        ("edit", own[4], k + 3),
        ("delete", own[4], None),  # corrected, then deleted
    ]  # own[5] is left alone


@pytest.mark.slow
def test_delete_and_edit_retries_from_several_phones_apply_each_acknowledged_change_once(
    live_db, server
):
    game = live_db.import_game(points_game_doc(deals=DEALS))
    start_revision, rows = stored(live_db, game)
    assert [serial for serial, _ in rows] == list(range(1, DEALS + 1))
    edit = f"/g/{game['edit_token']}"
    deadline = time.monotonic() + LOAD_SECONDS
    acks = {}  # (phone, step) -> number of 302s for that change, over every copy and retry
    statuses = Counter()
    ways = Counter()
    failures = []
    lock = threading.Lock()

    def phone_run(p):
        rng = random.Random(p)
        phone = server.browser()
        try:
            for step, (kind, serial, k) in enumerate(plan(p)):
                for _ in range(ATTEMPTS):
                    if time.monotonic() > deadline:
                        raise AssertionError("out of time")
                    page = phone.get(f"{edit}/event/{serial}/")
                    assert page.status == 200, (kind, serial, page.status)
                    csrf = CSRF.search(page.body).group(1)
                    version = int(VERSION.search(page.body).group(1))
                    if kind == "edit":
                        path, fields = f"{edit}/event/{serial}/", deal_fields(k, version)
                    else:
                        path, fields = f"{edit}/event/{serial}/delete/", {"version": str(version)}
                    # A flaky phone: the same post once, twice in a row, or twice at once.
                    way = rng.choice(["once", "twice in a row", "twice at once"])
                    if way == "twice at once":
                        post = lambda path=path, fields=fields, csrf=csrf: phone.post(  # noqa: E731
                            path, fields, csrf
                        )
                        got = [s for s, _ in at_once(2, post)]
                    else:
                        got = [phone.post(path, fields, csrf).status]
                        if way == "twice in a row":
                            got.append(phone.post(path, fields, csrf).status)
                    with lock:
                        ways[way] += 1
                        statuses.update(got)
                        acks[p, step] = acks.get((p, step), 0) + got.count(302)
                    if set(got) - {302, 409}:
                        raise AssertionError(f"{kind} {serial}: answers {got}")
                    if 302 in got:
                        break
                    time.sleep(rng.random() * 0.03)  # told it was stale: look again
                else:
                    raise AssertionError(f"{kind} {serial}: refused {ATTEMPTS} times")
        except Exception as error:  # reported below, with the figures
            with lock:
                failures.append(f"phone {p}: {error!r}")

    took = in_threads(phone_run, PHONES, timeout=LOAD_SECONDS + 60)
    changes = sum(len(plan(p)) for p in range(PHONES))
    figures = (
        f"[{live_db.backend}] {PHONES} phones, {changes} changes, "
        f"{sum(statuses.values())} posts in {took:.1f}s; "
        f"statuses {dict(sorted(statuses.items()))}; posted {dict(ways)}"
    )
    print(f"\n{figures}")
    assert not failures, "\n".join([figures, *failures])
    # Every change acknowledged exactly once, over all its copies and retries.
    assert sorted(acks.values()) == [1] * changes, f"{figures}; {acks}"
    assert statuses[302] == changes, figures

    # What the history must be: worked out from the plans, not from the server.
    expected = {serial: deal_event(10_000 + serial - 1) for serial in range(1, DEALS + 1)}
    for p in range(PHONES):
        for kind, serial, k in plan(p):
            if kind == "edit":
                expected[serial] = deal_event(k)
            else:
                del expected[serial]
    revision, rows = stored(live_db, game)
    assert rows == sorted(expected.items()), figures  # the order kept, ids unmoved
    assert revision == start_revision + changes, figures
    assert len(rows) == DEALS - 3 * PHONES
    assert not server_errors(server), "\n".join(server_errors(server)[:20])


# ------------------------------------------------------------ bodies in another charset


def raw_post(server, path, body, content_type, cookies):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request(
            "POST",
            path,
            body=body,
            headers={
                "Host": f"127.0.0.1:{server.port}",
                "Content-Type": content_type,
                "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
                "X-CSRFToken": cookies.get("csrftoken", ""),
                "Connection": "close",
            },
        )
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def posts_in_other_charsets(server, paths, cookies):
    """A form body in each charset of CHARSETS posted to every path: each is a 400
    saying the form could not be read. The count of answers by status."""
    answers = Counter()
    for charset, body in CHARSETS.items():
        for path in paths:
            content_type = f"application/x-www-form-urlencoded; charset={charset}"
            status, text = raw_post(server, path, body, content_type, cookies)
            answers[status] += 1
            assert status == 400, (charset, path, status, text[:500])
            assert "The form could not be read" in text
    return answers


@pytest.mark.slow
def test_a_body_in_another_charset_is_a_400_on_every_post_endpoint(live_db, server):
    game = live_db.import_game(pool_doc([D1, D2]))
    phone = server.browser()
    phone.get(f"/g/{game['edit_token']}/")  # a real CSRF cookie and session
    assert "csrftoken" in phone.cookies
    t = game["edit_token"]
    paths = ["/new/", "/import/", f"/g/{t}/deal/", f"/g/{t}/event/1/", f"/g/{t}/event/1/delete/"]
    paths += [f"/g/{t}/rejoin/", f"/g/{t}/split/", f"/g/{t}/end/", "/admin/login/"]
    before = history(live_db, game)
    answers = posts_in_other_charsets(server, paths, phone.cookies)
    print(f"\n[{live_db.backend}] {sum(answers.values())} posts in other charsets: {dict(answers)}")
    assert history(live_db, game) == before
    assert not server_errors(server), "\n".join(server_errors(server)[:20])
