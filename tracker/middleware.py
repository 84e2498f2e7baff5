"""A request is settled before anything reads it; a body that cannot be read is refused.

Two halves, first and last of MIDDLEWARE:

- `RequestGuard` runs first. A body longer than REQUEST_MAX_BYTES (said by
  its Content-Length) is never read. Every other form is read here, once,
  inside try: Django raises while it parses a body it cannot read (a form
  that says it is not UTF-8, too many fields, a multipart upload without a
  boundary), and left to itself it turns that into a 400 whose handler
  checks CSRF, which parses the body again and raises again: a 500. That
  happens on any refusal made before the views (a bad Host header), so the
  form is read before all of them. A refused body is left empty behind it,
  so nothing can parse it again. An HX-Current-URL that is no URL is
  dropped, as if not sent (htmx always sends the page's whole URL;
  django-htmx's `current_url_abs_path` raises on such a header).
- `UnreadableBody` runs last, so every header the middleware above adds
  (CSP, nosniff, ...) is on its answer: 413 for a body too big, 400 for one
  that could not be read. Nothing has been changed by then.

Every answer carries the same security headers (`security_headers`): the
Permissions-Policy (PERMISSIONS_POLICY: no camera, microphone or geolocation;
the screen wake lock for this site), and those SecurityMiddleware,
XFrameOptionsMiddleware and CSPMiddleware add, which an answer made before
them lacks (SecurityMiddleware's redirect to HTTPS, a DisallowedHost 400):
RequestGuard, first of all, adds to an answer whichever it lacks. The
answers tracker/asgi.py makes itself carry them too.
"""

import codecs
from urllib.parse import unquote, urlsplit

from csp.utils import build_policy
from django.conf import settings
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import QueryDict, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

UNREADABLE = _(
    "The form could not be read, so nothing was changed: go back, reload the page and try again."
)
NOT_UTF8 = _(
    "The form could not be read, so nothing was changed: it must be sent as UTF-8. "
    "Go back, reload the page and try again."
)
TOO_BIG = _("That was too big to be sent here, so nothing was read or changed.")


class RemovedGames:
    """A removed game's links answer 410 with the page that says so, and where
    it can be put back (`views.common.get_game_or_404` raises GameRemoved). A
    phone showing the game loads that page at once (htmx's HX-Refresh)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from .models import GameRemoved

        if not isinstance(exception, GameRemoved):
            return None
        game = exception.game
        can_edit = request.resolver_match and request.resolver_match.kwargs.get("can_edit", True)
        editing = can_edit and request.path.startswith("/g/")
        response = render(
            request, "tracker/removed.html", {"game": game, "can_edit": editing}, status=410
        )
        if getattr(request, "htmx", False):
            response["HX-Refresh"] = "true"
        return response


SECURITY_HEADERS = (
    "Content-Security-Policy",
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
)  # what SecurityMiddleware, XFrameOptionsMiddleware and CSPMiddleware add


def security_headers(secure):
    """{name: value} of the security headers every answer carries; HSTS over HTTPS only."""
    headers = {
        "Content-Security-Policy": build_policy(),
        "X-Frame-Options": settings.X_FRAME_OPTIONS,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": settings.SECURE_REFERRER_POLICY,
        "Cross-Origin-Opener-Policy": settings.SECURE_CROSS_ORIGIN_OPENER_POLICY,
        "Permissions-Policy": settings.PERMISSIONS_POLICY,
    }
    if secure and settings.SECURE_HSTS_SECONDS:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        headers["Strict-Transport-Security"] = hsts
    return headers


def too_big(content_length):
    """Whether a Content-Length header says more than the largest upload, REQUEST_MAX_BYTES.

    For a server in front of Django that reads the body itself (an ASGI router)."""
    try:
        return int(content_length or 0) > settings.REQUEST_MAX_BYTES
    except ValueError:
        return False  # Django reads such a body as empty


class RequestGuard:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.refused_body = None  # (status, reason), answered by UnreadableBody
        if too_big(request.META.get("CONTENT_LENGTH")):
            request.refused_body = (413, TOO_BIG)
            _leave_unread(request)
        elif request.method == "POST":
            _read_form(request)
        _drop_unreadable_current_url(request)
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        if any(name not in response.headers for name in SECURITY_HEADERS):
            _add_security_headers(request, response)  # an answer made before the middleware
        return response


def _add_security_headers(request, response):
    debug_page = settings.DEBUG and response.status_code in (404, 500)
    for name, value in security_headers(request.is_secure()).items():
        if name == "Content-Security-Policy" and debug_page:
            continue  # Django's debug pages, as CSPMiddleware leaves them
        response.headers.setdefault(name, value)


class UnreadableBody:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refused = getattr(request, "refused_body", None)
        if refused is not None:
            status, reason = refused
            return render(request, "400.html", {"reason": reason}, status=status)
        return self.get_response(request)


def _read_form(request):
    charset = (request.content_params or {}).get("charset")
    if charset is not None and not _is_utf8(charset):
        # Django reads a charset it does not know as UTF-8: refused as any other.
        request.refused_body = (400, NOT_UTF8)
        _leave_unread(request)
        return
    if request.encoding and _is_utf8(request.encoding):
        request.encoding = "utf-8"  # "utf8", "UTF-8": the same, as Django spells it
    try:
        request.POST  # noqa: B018 (parses the body, or raises)
    except (BadRequest, SuspiciousOperation, MultiPartParserError, UnreadablePostError):
        utf8 = request.encoding is None or _is_utf8(request.encoding)
        request.refused_body = (400, UNREADABLE if utf8 else NOT_UTF8)
        _leave_unread(request)


def _leave_unread(request):
    """Nothing may parse the body later: the form is left empty.

    POST's setter, as HttpRequest.__init__ itself sets it. FILES has none, and
    needs none: only the upload views read it, and UnreadableBody answers
    before any view runs."""
    request.POST = QueryDict()


def _drop_unreadable_current_url(request):
    url = request.META.get("HTTP_HX_CURRENT_URL")
    if url is None:
        return
    if request.META.get("HTTP_HX_CURRENT_URL_URI_AUTOENCODED") == "true":
        url = unquote(url)  # as django-htmx reads it
    try:
        urlsplit(url)
    except ValueError:  # "http://[history=all": an unclosed IPv6 bracket
        del request.META["HTTP_HX_CURRENT_URL"]


def _is_utf8(charset):
    try:
        return codecs.lookup(charset).name == "utf-8"
    except LookupError:
        return False
