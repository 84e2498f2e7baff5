"""Fuzzing the table's forms: never a 500, a refusal says why, the table stays valid."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzz_strategies as fz
from tests.views.test_fuzz import MESSAGE
from tracker.models import MAX_MEMBERS, Game, Member, Table

pytestmark = pytest.mark.both_databases

FUZZ = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
CLIENT = Client()
HTMX = {"HTTP_HX_REQUEST": "true"}
FORMATS = ["pool-101", "deals-2", "points", "pool-other", "deals-other", "nope", ""]


def world():
    return (
        sorted(Table.objects.values_list("pk", "revision")),
        Game.objects.count(),
        sorted(Member.objects.values_list("table_id", "order", "name")),
    )


def check_members(table):
    names = table.member_names()
    assert 2 <= len(names) <= MAX_MEMBERS
    assert len({n.casefold() for n in names}) == len(names)
    assert all(n == " ".join(n.split()) and 0 < len(n) <= 30 for n in names)


@st.composite
def table_request(draw, table, game):
    t = table.edit_token
    kind = draw(st.sampled_from(["add", "remove", "new", "again", "upload", "read"]))
    # Mostly the version the table's page shows now; else stale, missing or malformed.
    now = Table.objects.get(pk=table.pk).revision
    version = draw(
        st.one_of(
            st.just({"version": str(now)}),
            st.sampled_from([{}, {"version": ""}, {"version": "2.0"}, {"version": str(now + 1)}]),
            st.builds(lambda v: {"version": v}, fz.nasty_text),
        )
    )
    if kind == "add":
        name = draw(st.one_of(st.sampled_from(fz.TYPED_NAMES), fz.nasty_text))
        return f"/t/{t}/members/", {"name": name, **version}
    if kind == "remove":
        ids = [m.pk for m in table.members.all()]
        pk = draw(st.one_of(st.sampled_from(ids), st.integers(0, 10**6)))
        return f"/t/{t}/members/{pk}/remove/", {**version}
    if kind == "new":
        ids = [str(m.pk) for m in table.members.all()]
        seats = draw(st.lists(st.one_of(st.sampled_from(ids), fz.nasty_text), max_size=12))
        fmt = draw(st.sampled_from(FORMATS))
        form = {"format": fmt, "rules_for": fmt, "seat": seats, "rules_shown": "1"}
        form["dealer"] = draw(st.one_of(st.sampled_from(ids), fz.nasty_text))
        form["entry_fee"] = draw(fz.money_text)
        form["name"] = draw(fz.nasty_text)
        return f"/t/{t}/new/", {**form, **version}
    if kind == "again":
        pk = draw(st.one_of(st.just(game.pk), st.integers(0, 10**6)))
        return f"/t/{t}/again/{pk}/", {**version}
    if kind == "upload":
        content = draw(
            st.one_of(
                st.binary(max_size=200),
                st.sampled_from([b"{", b"[]", b'{"schema": "rummy-tracker.table/1"}']),
                st.builds(
                    lambda m: json.dumps(
                        {"schema": "rummy-tracker.table/1", "members": m, "games": []}
                    ).encode(),
                    st.lists(st.sampled_from(fz.TYPED_NAMES), max_size=35),
                ),
            )
        )
        return f"/t/{t}/upload/", {"file": SimpleUploadedFile("f.json", content), **version}
    query = draw(st.sampled_from(["", "?show=finished", "?format=x", "?games=all&show=\x00"]))
    return f"/t/{t}/{query}", None


@pytest.mark.slow
@pytest.mark.django_db
@settings(max_examples=120, **FUZZ)
@given(data=st.data())
def test_table_forms(data):
    table = Table.start("Fuzz", ["Asha", "Ravi", "Meena"])
    game = Game.create("pool", {}, ["Asha", "Ravi"], table=table)
    game.add_event({"type": "deal", "winner": "Asha", "results": {"Ravi": 80}}, 0)
    game.add_event({"type": "deal", "winner": "Asha", "results": {"Ravi": 80}}, 1)
    for step in range(data.draw(st.integers(2, 8), label="requests")):
        path, form = data.draw(table_request(table, game), label=f"request {step}")
        htmx = data.draw(st.booleans(), label="htmx")
        CLIENT.cookies.clear()
        table.refresh_from_db()
        before = world()
        headers = HTMX if htmx else {}
        if form is None:
            response = CLIENT.get(path, **headers)
        else:
            response = CLIENT.post(path, form, **headers)
        status = response.status_code
        assert status < 500, (path, form)
        if form is not None and form.get("version") != str(table.revision):
            # Missing or malformed: 400; a whole number but another one: stale, 409.
            posted = form.get("version", "")
            well_formed = posted.isascii() and posted.isdigit() and len(posted) <= 10
            if not (well_formed and int(posted) == table.revision):
                assert status == (409 if well_formed else 400), (path, form, status)
        if status in (400, 404, 409, 422, 429):
            # Refused (stale, no version, bad input): nothing changed, and a refused form says why.
            assert world() == before
            if status != 404:
                assert MESSAGE.search(response.content.decode()), response.content[:2000]
        check_members(table)
