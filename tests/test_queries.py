"""The number of SQL queries does not grow with the length of a game."""

import random
import re
from unittest import mock

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tracker.models import Game

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata"]


def points_game(deals):
    pick = random.Random(deals)
    history = []
    for _ in range(deals):
        winner = pick.choice(NAMES)
        results = {n: pick.choice([0, 2, 17, 40, "first_drop"]) for n in NAMES if n != winner}
        history.append({"type": "deal", "winner": winner, "results": results})
    return Game.create("points", {}, NAMES, history=history)


def queries(action):
    cache.clear()  # the rendering path, not a page cached for this revision
    with CaptureQueriesContext(connection) as captured:
        response = action()
    assert response.status_code < 400, response.status_code
    return len(captured), [q["sql"] for q in captured.captured_queries]


def deal_post(client, game):
    data = {"winner": "1", "version": str(game.events.count())}
    for seat in range(2, 7):
        data[f"r{seat}"], data[f"p{seat}"] = "points", "5"
    return lambda: client.post(f"/g/{game.edit_token}/deal/", data, **HTMX)


ACTIONS = {
    "game page": lambda client, game: lambda: client.get(game.get_absolute_url()),
    "view page": lambda client, game: lambda: client.get(game.get_view_url()),
    "fragment": lambda client, game: lambda: client.get(f"/w/{game.view_token}/live/?v=0", **HTMX),
    "unchanged poll": lambda client, game: (
        lambda: client.get(f"/w/{game.view_token}/live/?v={game.revision}", **HTMX)
    ),
    "deal save": deal_post,
}


@pytest.mark.parametrize("what", list(ACTIONS))
def test_queries_do_not_grow_with_the_history(what):
    counts = {}
    for deals in (5, 500):
        game = points_game(deals)
        client = Client()
        client.get(game.get_absolute_url())  # a returning phone: session already set
        counts[deals], sql = queries(ACTIONS[what](client, game))
    assert counts[5] == counts[500], sql


# The budget of each: a change that adds a query shows up here.
BUDGET = {"game page": 3, "view page": 3, "fragment": 4, "unchanged poll": 1, "deal save": 8}


@pytest.mark.parametrize("what", list(ACTIONS))
def test_query_budget(what, django_assert_max_num_queries):
    game = points_game(5)
    client = Client()
    client.get(game.get_absolute_url())
    action = ACTIONS[what](client, game)
    cache.clear()
    with django_assert_max_num_queries(BUDGET[what]):
        action()


def test_a_fragment_already_rendered_for_this_revision_reads_one_row():
    game = points_game(50)
    client = Client()
    url = f"/w/{game.view_token}/live/?v=0"
    first = client.get(url, **HTMX)
    with CaptureQueriesContext(connection) as captured:
        again = client.get(url, **HTMX)
    assert len(captured) == 1
    assert again.content == first.content


def test_after_a_save_the_watchers_first_poll_reads_only_the_revision():
    """The save leaves the new state in the shared cache: the watcher's first
    poll of the new revision renders the board without replaying the history."""
    game = points_game(50)
    client = Client()
    client.get(game.get_absolute_url())
    cache.clear()
    assert deal_post(client, game)().status_code == 200
    game.refresh_from_db()
    with CaptureQueriesContext(connection) as captured:
        board = Client().get(f"/w/{game.view_token}/live/?v={game.revision - 1}", **HTMX)
    assert len(captured) == 1, [q["sql"] for q in captured.captured_queries]
    page = board.content.decode()
    assert f'data-revision="{game.revision}"' in page
    assert "51 deals played" in page


def test_after_a_save_the_other_editors_first_poll_is_the_fragment_the_save_answered():
    """The save answers with the edit link's live fragment and keeps it for the
    new revision: another editing phone's first poll reads one row, renders nothing."""
    game = points_game(50)
    saver, other = Client(), Client()
    saver.get(game.get_absolute_url())
    other.get(game.get_absolute_url())
    cache.clear()
    saved = deal_post(saver, game)()
    assert saved.status_code == 200
    game.refresh_from_db()
    rendered = AssertionError("the poll rendered the fragment again")
    with (
        CaptureQueriesContext(connection) as captured,
        mock.patch("tracker.views._game_context", side_effect=rendered),
    ):
        board = other.get(f"/g/{game.edit_token}/live/?v={game.revision - 1}", **HTMX)
    assert len(captured) == 1, [q["sql"] for q in captured.captured_queries]
    page = board.content.decode()
    assert f'data-revision="{game.revision}"' in page
    assert "51 deals played" in page
    assert "Enter deal 52" in page


def test_after_a_save_the_watchers_first_poll_is_kept_by_the_save():
    """When someone watches, the save also keeps the view link's live fragment
    of the new revision: a watcher's first poll reads one row, renders nothing,
    and shows the board a render of its own would (no Edit link, no deal form)."""
    game = points_game(50)
    saver = Client()
    saver.get(game.get_absolute_url())
    cache.clear()
    assert Client().get(game.get_view_url()).status_code == 200  # a watcher opens the game
    assert deal_post(saver, game)().status_code == 200
    game.refresh_from_db()
    url = f"/w/{game.view_token}/live/?v={game.revision - 1}"
    rendered = AssertionError("the poll rendered the fragment again")
    with (
        CaptureQueriesContext(connection) as captured,
        mock.patch("tracker.views._game_context", side_effect=rendered),
    ):
        board = Client().get(url, **HTMX)
    assert len(captured) == 1, [q["sql"] for q in captured.captured_queries]
    page = board.content.decode()
    assert f'data-revision="{game.revision}"' in page
    assert "51 deals played" in page
    assert "Enter deal" not in page
    assert game.edit_token not in page and "csrfmiddlewaretoken" not in page
    # A step from the board before: the same board and newest row a render of
    # the whole board and history shows, and the rows past the newest 12 taken off.
    cache.clear()
    whole = Client().get(url, **HTMX).content.decode()
    board = re.compile(r'<section id="board".*?</section>\n(?=\n|<)', re.S)
    assert board.search(page).group() == board.search(whole).group()
    row = r'\s*(<tr id="event-\d+">.*?</tr>)'
    newest = re.compile(r'<tbody id="history-rows" data-recent>' + row, re.S)
    step = re.search(r'hx-swap-oob="afterbegin:#history-rows">' + row, page, re.S)
    assert step.group(1) == newest.search(whole).group(1)
    assert "delete:#history-rows[data-recent] > tr:nth-child(n+13)" in page
    assert "Show all 51 events" in page


def test_a_game_nobody_watches_is_saved_without_the_watchers_board():
    """No view link was opened: the save renders only the edit link's board.
    The first watcher renders their own (from the state the save kept, without
    replaying), and from then on each save renders it for them."""
    game = points_game(50)
    saver = Client()
    saver.get(game.get_absolute_url())
    cache.clear()
    with mock.patch("tracker.views._watch_context", side_effect=AssertionError("watchers")):
        assert deal_post(saver, game)().status_code == 200
    game.refresh_from_db()
    watcher = Client()
    with CaptureQueriesContext(connection) as captured:
        board = watcher.get(f"/w/{game.view_token}/live/?v={game.revision - 1}", **HTMX)
    assert len(captured) == 1, [q["sql"] for q in captured.captured_queries]
    page = board.content.decode()
    assert f'data-revision="{game.revision}"' in page and "51 deals played" in page
    assert "Enter deal" not in page and game.edit_token not in page
    assert deal_post(saver, game)().status_code == 200
    game.refresh_from_db()
    rendered = AssertionError("the poll rendered the fragment again")
    with mock.patch("tracker.views._game_context", side_effect=rendered):
        board = watcher.get(f"/w/{game.view_token}/live/?v={game.revision - 1}", **HTMX)
    assert "52 deals played" in board.content.decode()


def test_the_state_a_save_keeps_once_serves_an_edit_link_too():
    """Kept once, under the view link's key: an editing phone in Hindi (a page
    of its own, not the one the save rendered) renders it without replaying."""
    game = points_game(50)
    client = Client()
    client.get(game.get_absolute_url())
    cache.clear()
    assert deal_post(client, game)().status_code == 200
    game.refresh_from_db()
    with CaptureQueriesContext(connection) as captured:
        board = Client().get(
            f"/g/{game.edit_token}/live/?v={game.revision - 1}", HTTP_ACCEPT_LANGUAGE="hi", **HTMX
        )
    assert len(captured) == 1, [q["sql"] for q in captured.captured_queries]
    page = board.content.decode()
    assert f'data-revision="{game.revision}"' in page
    assert "51 डील हुईं" in page


def test_a_watchers_board_has_no_form_and_sets_no_csrf_cookie_an_editors_has_its_token():
    game = points_game(5)
    watcher = Client().get(f"/w/{game.view_token}/live/?v=0", **HTMX)
    assert "csrftoken" not in watcher.cookies
    assert "csrfmiddlewaretoken" not in watcher.content.decode()
    editor = Client()
    board = editor.get(f"/g/{game.edit_token}/live/?v=0", **HTMX).content.decode()
    assert 'name="csrfmiddlewaretoken" value="' in board
    assert "csrf-slot-" not in board
    assert "csrftoken" in editor.cookies
