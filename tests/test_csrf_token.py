"""The CSRF token an answer carries (tracker/csrf_token.py): masked afresh for
every answer from one draw, and checked by Django's middleware as its own."""

import re
from collections import Counter

import pytest
from django.middleware.csrf import CSRF_ALLOWED_CHARS, _unmask_cipher_token
from django.test import Client, RequestFactory

from tracker.csrf_token import masked_token
from tracker.models import Game

from .test_views import HTMX, deal_data

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def tokens_in(response):
    return set(TOKEN.findall(response.content.decode()))


def test_an_editing_phone_saves_deal_after_deal_with_the_tokens_it_is_answered_with():
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"])
    phone = Client(enforce_csrf_checks=True)
    (token,) = tokens_in(phone.get(f"/g/{game.edit_token}/"))
    secret = phone.cookies["csrftoken"].value
    seen = {token}
    for n in range(1, 5):
        data = {**deal_data(game, "Asha", Ravi=10 * n, Meena=5), "csrfmiddlewaretoken": token}
        answer = phone.post(f"/g/{game.edit_token}/deal/", data, **HTMX)
        assert answer.status_code == 200
        assert f"Enter deal {n + 1}" in answer.content.decode()  # the fresh form
        (token,) = tokens_in(answer)  # every form of the answer carries the same one
        assert token not in seen  # masked afresh
        assert _unmask_cipher_token(token) == secret
        seen.add(token)
    assert game.state().deals_played == 4


def test_a_token_changed_in_one_character_is_refused_and_nothing_is_saved():
    game = Game.create("points", {}, ["Asha", "Ravi", "Meena"])
    phone = Client(enforce_csrf_checks=True)
    (token,) = tokens_in(phone.get(f"/g/{game.edit_token}/"))
    last = token[-1]
    changed = token[:-1] + ("a" if last != "a" else "b")
    data = {**deal_data(game, "Asha", Ravi=10, Meena=5), "csrfmiddlewaretoken": changed}
    assert phone.post(f"/g/{game.edit_token}/deal/", data, **HTMX).status_code == 403
    assert game.state().deals_played == 0


def test_a_token_is_the_secret_under_a_fresh_mask_and_renews_the_cookie():
    secret = "AbC123xyz" + "q" * 22 + "9"
    request = RequestFactory().get("/")
    request.META["CSRF_COOKIE"] = secret
    tokens = [masked_token(request) for _ in range(300)]
    assert request.META["CSRF_COOKIE_NEEDS_UPDATE"] is True
    assert len(set(tokens)) == 300
    for token in tokens:
        assert len(token) == 64 and set(token) <= set(CSRF_ALLOWED_CHARS)
        assert _unmask_cipher_token(token) == secret
    # The masks' 9,600 characters: each of the 62 drawn, none far from 1 in 62 (155).
    drawn = Counter("".join(token[:32] for token in tokens))
    assert set(drawn) == set(CSRF_ALLOWED_CHARS)
    assert min(drawn.values()) > 80 and max(drawn.values()) < 240


def test_a_request_without_a_secret_yet_gets_one_from_django():
    request = RequestFactory().get("/")
    token = masked_token(request)
    secret = request.META["CSRF_COOKIE"]
    assert len(secret) == 32 and _unmask_cipher_token(token) == secret
    assert request.META["CSRF_COOKIE_NEEDS_UPDATE"] is True
