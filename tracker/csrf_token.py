"""A form's CSRF token for an answer, masked as Django masks it, from one draw.

Django's `get_token` masks the browser's secret afresh for every answer (so
the token in a page differs each time, against BREACH): a mask of 32 characters
drawn one `secrets.choice` at a time, each a read of the system's random source,
then both halves looked up character by character. That was 0.3M instructions
and 32 system calls of every deal saved and of every poll an editing phone is
answered with a kept step (bench/README.md). Here the mask's 32 characters come
from one read of the same source: each byte below 248 (4 x 62) falls evenly on
the 62 characters, the others are passed over, so every character of the mask
is as evenly drawn as Django's. The token is Django's: the mask, then the secret
shifted by it, which the CSRF middleware unmasks and checks as its own.
"""

import secrets

from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, get_token

_CHARS = CSRF_ALLOWED_CHARS
_COUNT = len(_CHARS)  # 62
_INDEX = {char: i for i, char in enumerate(_CHARS)}
_EVEN_BELOW = 256 - 256 % _COUNT  # 248: the bytes that fall evenly on the characters
_DRAWN = 48  # bytes read at once: fewer than 32 below 248 in about 1 read in 10^13


def _mask():
    """CSRF_SECRET_LENGTH characters' places, each evenly drawn from the 62."""
    places = []
    while len(places) < CSRF_SECRET_LENGTH:
        places += [byte % _COUNT for byte in secrets.token_bytes(_DRAWN) if byte < _EVEN_BELOW]
    return places[:CSRF_SECRET_LENGTH]


def masked_token(request):
    """What `django.middleware.csrf.get_token(request)` gives, with the same
    effect on the request (the cookie renewed with the answer). A request with
    no secret yet, or one that is not Django's 32 characters, is left to Django."""
    secret = request.META.get("CSRF_COOKIE")
    if not isinstance(secret, str) or len(secret) != CSRF_SECRET_LENGTH:
        return get_token(request)
    try:
        places = [_INDEX[char] for char in secret]
    except KeyError:
        return get_token(request)
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True
    mask = _mask()
    shifted = [_CHARS[(s + m) % _COUNT] for s, m in zip(places, mask, strict=True)]
    return "".join([_CHARS[m] for m in mask] + shifted)
