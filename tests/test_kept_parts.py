"""The game screen's parts laid out once per process show what a fresh render shows.

`{% kept %}` keeps the board's Add a player, Sit out and End session forms by
the values they show, and a blank deal form's rows are kept by their players
(bench/README.md). Here every worked game is shown deal after deal, each part
rendered with everything kept from before (this game's earlier deals and the
games of the tests before) and again with nothing kept: the two must be the
same, and every form must carry the revision it is shown at.
"""

import copy
import json
from decimal import Decimal

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory

from tracker import forms, views
from tracker.models import Game
from tracker.templatetags.once import VERSION_SLOT, KeptNode

from .conftest import EXAMPLES, our_example_paths

WORKED = sorted(EXAMPLES.glob("*.json")) + our_example_paths()


def _render(part, context):
    return render_to_string(f"tracker/game.html#{part}", context, RequestFactory().get("/"))


def _nothing_kept():
    KeptNode.kept.clear()
    forms._BLANK_ROWS.clear()


def _contexts(game):
    """(events shown, context) of the edit link after each event of `game`'s history."""
    history, names = game.history(), game.seat_names()
    for count in range(len(history) + 1):
        state = game.replay(history[:count], names)
        shown = copy.copy(game)
        shown.revision = 100 + count  # what every form must carry
        context = views._game_context(shown, state, True)
        context["csrf_token"] = views.CSRF_SLOT
        yield count, context


@pytest.mark.django_db
@pytest.mark.parametrize("path", WORKED, ids=lambda p: p.stem)
def test_kept_parts_are_what_a_fresh_render_shows_at_every_deal(path):
    game = Game.import_document(json.loads(path.read_text()))
    fresh = {}
    for count, context in _contexts(game):
        for part in ["board"] + ([] if context["state"].finished else ["deal-form"]):
            _nothing_kept()
            fresh[count, part] = (_render(part, dict(context)), context)
    shown = 0
    # Then each again, last first, with every part of every deal kept: a part
    # kept under a key that leaves out something it shows would be found here
    # for a deal that shows it otherwise.
    for (count, part), (html, context) in reversed(fresh.items()):
        kept = _render(part, dict(context))
        assert kept == html, f"{part} after {count} events"
        assert VERSION_SLOT not in kept
        versions = kept.count('name="version" value=')
        assert kept.count(f'name="version" value="{100 + count}"') == versions
        shown += versions
    assert shown > 0  # the forms were there to check


_REJOIN = [{"name": "Ravi", "start": 79, "pot": Decimal("300.50")}]


class _Changed:
    """The state as the template sees it, with some of its values changed."""

    def __init__(self, state, **values):
        self._state, self._values = state, values

    def __getattr__(self, name):
        return self._values[name] if name in self._values else getattr(self._state, name)


def _with_rejoin(context, pot):
    context.update(rejoins=_REJOIN, pot=Decimal(pot))


# (what is changed, the board before it or None for the game's own, the change)
CHANGES = [
    ("rejoin", None, lambda c: c.update(rejoins=_REJOIN)),
    (
        "rejoin note",
        None,
        lambda c: c.update(rejoin_notes=["Ravi may rejoin until the next deal."]),
    ),
    ("join note", None, lambda c: c.update(seating={**c["seating"], "join_note": "Nobody joins."})),
    ("not joinable", None, lambda c: c.update(seating={**c["seating"], "joinable": False})),
    ("can split", None, lambda c: c.update(state=_Changed(c["state"], can_split=True))),
    ("cannot end", None, lambda c: c.update(state=_Changed(c["state"], can_end=False))),
    ("join error", None, lambda c: c["join_entry"].errors.update(name="Type the new name")),
    ("name typed", None, lambda c: setattr(c["join_entry"], "name", "Dev")),
    ("seat chosen", None, lambda c: setattr(c["join_entry"], "after", "Ravi")),
    ("another game", None, lambda c: c.update(game=Game(edit_token="another-edit-link-0123456"))),
    (
        "seats",
        None,
        lambda c: setattr(
            c["join_entry"], "state", _Changed(c["state"], players=c["state"].players[:3])
        ),
    ),
    ("rejoin at the pot", lambda c: _with_rejoin(c, "200"), lambda c: _with_rejoin(c, "300.50")),
    (
        "money shown another way",
        lambda c: _with_rejoin(c, "200"),
        lambda c: c.update(state=_Changed(c["state"], rules={"money_unit": "1"})),
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize("base, change", [c[1:] for c in CHANGES], ids=[c[0] for c in CHANGES])
def test_a_kept_board_is_laid_out_again_when_what_it_shows_changes(base, change):
    """Each value the kept board shows, changed alone, is shown changed."""
    players = ["Asha", "Ravi", "Meena", "Kiran"]
    deal = {"type": "deal", "winner": "Asha", "results": {"Ravi": 10, "Meena": 20, "Kiran": 30}}
    game = Game.create("points", {}, players, None, "Kept", [deal])
    state = game.state()
    contexts = []
    for _ in range(2):
        context = views._game_context(game, state, True)
        context["csrf_token"] = views.CSRF_SLOT
        if base is not None:
            base(context)
        contexts.append(context)
    _shown_changed("board", *contexts, change)


def _shown_changed(part, before, changed, change):
    """`part` rendered for `before`, then for `changed` with `change` made to it,
    with everything kept: the same as a fresh render, and not what it was."""
    first = _render(part, before)
    change(changed)
    kept = _render(part, dict(changed))
    _nothing_kept()
    assert kept == _render(part, dict(changed))
    assert kept != first


@pytest.mark.django_db
def test_a_kept_board_follows_a_player_sitting_out_and_coming_back(client):
    """The same game, the same totals: only who sits out differs, and the
    board's forms say so each time (kept parts are keyed by what they show)."""
    players = ["Asha", "Ravi", "Meena", "Kiran"]
    deal = {"type": "deal", "winner": "Asha", "results": {"Ravi": 10, "Meena": 20, "Kiran": 30}}
    game = Game.create("points", {}, players, None, "Sit out", [deal])
    page = client.get(game.get_absolute_url()).content.decode()
    assert "Sit out Meena" in page and "Back in Meena" not in page
    version = game.revision
    client.post(f"/g/{game.edit_token}/sit-out/", {"player": "Meena", "version": version})
    page = client.get(game.get_absolute_url()).content.decode()
    assert "Back in Meena" in page and "Sit out Meena" not in page
    client.post(f"/g/{game.edit_token}/sit-in/", {"player": "Meena", "version": version + 1})
    page = client.get(game.get_absolute_url()).content.decode()
    assert "Sit out Meena" in page and "Back in Meena" not in page
    assert f'name="version" value="{version + 2}"' in page


@pytest.mark.django_db
def test_blank_deal_rows_are_kept_apart_for_each_game_rule_and_format():
    """The same four players at five tables: each blank deal form shows its own
    game's Count cards links, its own drop values and its own words."""
    players = ["Asha", "Ravi", "Meena", "Kiran"]
    games = [
        Game.create("points", {}, players, None, "Points"),
        Game.create("points", {"first_drop": 25}, players, None, "Points, first drop 25"),
        Game.create("pool", {"pool_limit": 101}, players, None, "Pool 101"),
        Game.create("basic", {}, players, None, "Basic"),
        Game.create("points", {}, players, None, "Points again"),
    ]
    contexts = []
    for game in games:
        context = views._game_context(game, game.state(), True)
        context["csrf_token"] = views.CSRF_SLOT
        contexts.append(context)
    kept = [_render("deal-form", dict(c)) for c in contexts]
    for game, context, html in zip(games, contexts, kept, strict=True):
        _nothing_kept()
        assert html == _render("deal-form", dict(context)), game.name
    assert f"/g/{games[4].edit_token}/count/" in kept[4]
    assert games[0].edit_token not in kept[4]
    assert "<b>25</b>" in kept[1] and "<b>25</b>" not in kept[0]
    assert "Count " not in kept[3]  # Basic Rummy: every card counts


@pytest.mark.django_db
def test_blank_deal_rows_without_count_links_are_kept_apart_by_rule_and_format():
    """Laid out with no Count cards links, the same players' blank rows still
    differ by the game's drop values and its words ("pts" or "count")."""
    players = ["Asha", "Ravi", "Meena", "Kiran"]
    states = [
        Game.create("points", {}, players).state(),
        Game.create("points", {"first_drop": 25}, players).state(),
        Game.create("pool", {"pool_limit": 201}, players).state(),
        Game.create("basic", {}, players).state(),
    ]
    kept = [forms.deal_rows_html(forms.DealEntry(s, s.in_players)) for s in states]
    for state, html in zip(states, kept, strict=True):
        _nothing_kept()
        assert html == forms.deal_rows_html(forms.DealEntry(state, state.in_players))
    assert len(set(kept)) == 4


def _entry(context, state=None, playing=None):
    """The context with a blank deal form for `state` (its own, changed) dealt to `playing`."""
    state = state or context["state"]
    context.update(state=state, entry=forms.DealEntry(state, playing or state.in_players))


# (what is changed in the blank deal form, the change), each alone
DEAL_FORM_CHANGES = [
    ("another game", lambda c: c.update(game=Game(edit_token="another-edit-link-0123456"))),
    ("all events page", lambda c: c.update(all_events=True)),
    ("deal number", lambda c: _entry(c, _Changed(c["state"], deals_played=7))),
    ("dealer", lambda c: _entry(c, _Changed(c["state"], next_dealer="Kiran"))),
    ("version", lambda c: c.update(version="123")),
    ("players dealt in", lambda c: _entry(c, playing=c["state"].players[:3])),
    ("tie-breaker", lambda c: _entry(c, _Changed(c["state"], tie_breaker=True))),
    (
        "drop values",
        lambda c: _entry(c, _Changed(c["state"], rules={**c["state"].rules, "first_drop": 25})),
    ),
    ("going rummy offered", lambda c: c.update(entry=_Changed(c["entry"], rummy_offered=True))),
    ("prompt", lambda c: c.update(entry=_Changed(c["entry"], prompt="Tap who won"))),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change", [c[1] for c in DEAL_FORM_CHANGES], ids=[c[0] for c in DEAL_FORM_CHANGES]
)
def test_a_kept_deal_form_is_laid_out_again_when_what_it_shows_changes(change):
    """The blank deal form is kept by what it shows: each value changed alone is shown changed."""
    players = ["Asha", "Ravi", "Meena", "Kiran"]
    deal = {"type": "deal", "winner": "Asha", "results": {"Ravi": 10, "Meena": 20, "Kiran": 30}}
    game = Game.create("points", {}, players, None, "Kept", [deal])
    state = game.state()
    before, changed = (views._game_context(game, state, True) for _ in range(2))
    before["csrf_token"] = changed["csrf_token"] = views.CSRF_SLOT
    _shown_changed("deal-form", before, changed, change)


@pytest.mark.django_db
def test_a_deal_form_with_something_typed_or_refused_is_never_kept():
    """What one phone typed and had refused is shown to it alone: the blank form
    after it, for the same game and deal, has nothing of it."""
    players = ["Asha", "Ravi", "Meena", "Kiran"]
    game = Game.create("points", {}, players, None, "Typed")
    state = game.state()
    typed, blank = (views._game_context(game, state, True) for _ in range(2))
    typed["csrf_token"] = blank["csrf_token"] = views.CSRF_SLOT
    posted = {"winner": "1", "p2": "12", "p3": "99999", "p4": "7"}
    typed["entry"] = entry = forms.DealEntry(state, state.in_players, data=posted)
    assert entry.event() is None  # 99999 is refused
    refused = _render("deal-form", typed)
    assert 'value="12"' in refused and 'aria-invalid="true"' in refused
    shown = _render("deal-form", blank)
    assert 'value="12"' not in shown and 'aria-invalid="true"' not in shown
    assert "Enter deal 1" in shown


def test_the_language_read_once_a_render_follows_a_language_block():
    """{% translate %}, {% blocktranslate %} and {% kept %} read the language once a
    render; inside {% language %} they read it afresh, and after it the outer one."""
    from django.template import engines
    from django.utils import translation

    source = (
        "{% load i18n once %}{% translate 'Leader' %}|"
        "{% language 'hi' %}{% translate 'Leader' %}|"
        "{% blocktranslate count n=deals %}{{ n }} deal played{% plural %}"
        "{{ n }} deals played{% endblocktranslate %}|"
        "{% kept 'words' deals %}{% translate 'Leader' %}{% endkept %}{% endlanguage %}|"
        "{% translate 'Leader' %}|{% kept 'words' deals %}{% translate 'Leader' %}{% endkept %}"
    )
    template = engines["django"].from_string(source)
    with translation.override("en"):
        shown = template.render({"deals": 3})
        again = template.render({"deals": 3})
    assert shown == again == "Leader|आगे|3 डील हुईं|आगे|Leader|Leader"
    with translation.override("hi"):
        assert template.render({"deals": 3}).split("|")[0] == "आगे"
    # A context rendered again in another language reads the language again.
    from django.template import Context, Template

    again = Template("{% load i18n once %}{% translate 'Leader' %}")
    context = Context({})
    with translation.override("en"):
        assert again.render(context) == "Leader"
    with translation.override("hi"):
        assert again.render(context) == "आगे"
