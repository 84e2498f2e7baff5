"""Installable and readable offline: the manifest, the service worker and the offline page.

The worker itself is tracker/sw.js; it is served from the site root so its
scope is the whole site. Its version is a hash of its own text and of the
static files it keeps, so a change to either installs a new worker, which
drops the old static files (the pages kept stay).
"""

import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

from ..context_processors import PAGE_COLOURS, THEME_COLOURS
from .common import HtmxHttpRequest

SOURCE = Path(__file__).resolve().parent.parent / "sw.js"

# What every page loads; the worker keeps these from the first visit on.
PRECACHE = [
    "tracker.css",
    "tracker.js",
    "aloud.js",
    "django_htmx/htmx-2.min.js",
    "favicon.svg",
    "manifest.webmanifest",
    "icon-192.png",
    "icon-512.png",
    "icon-maskable-192.png",
    "icon-maskable-512.png",
]


def _version(source):
    digest = hashlib.sha256(source.encode())
    for name in PRECACHE:
        digest.update(static(name).encode())
        found = finders.find(name)
        if found:
            digest.update(Path(found).read_bytes())
    return digest.hexdigest()[:16]


@require_safe
def manifest(request: HtmxHttpRequest, language: str, theme: str = "light") -> HttpResponse:
    """static/manifest.webmanifest with its name and description in `language`,
    its splash and bar in the colours of `theme`.

    The language and the theme are in the address, as each page links its own: a
    browser fetches a manifest without cookies, so the switches' choices would
    not reach it. The icons are given from the static files' own addresses."""
    if language not in dict(settings.LANGUAGES):
        raise Http404
    document = json.loads(Path(str(finders.find("manifest.webmanifest"))).read_text())
    with translation.override(language):
        document |= {
            "lang": language,
            "background_color": PAGE_COLOURS[theme],
            "theme_color": THEME_COLOURS[theme],
            "name": gettext("Rummy score"),
            "short_name": gettext("Rummy"),
            "description": gettext(
                "Score Indian 13-card rummy at the table: pool, deals and points."
            ),
        }
    document["icons"] = [icon | {"src": static(icon["src"])} for icon in document["icons"]]
    return JsonResponse(
        document,
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )


@require_safe
def service_worker(request: HtmxHttpRequest) -> HttpResponse:
    source = SOURCE.read_text()
    config = {
        "VERSION": _version(source),
        "PRECACHE": [static(name) for name in PRECACHE],
        "STATIC_PREFIX": settings.STATIC_URL,
        "OFFLINE_URL": reverse("offline"),
    }
    head = "".join(f"const {name} = {json.dumps(value)};\n" for name, value in config.items())
    response = HttpResponse(head + source, content_type="application/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    # Always asked again, so a new version is found on the next visit.
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def offline(request: HtmxHttpRequest) -> HttpResponse:
    """Shown by the worker for a page this phone never opened, when there is no network."""
    return render(request, "tracker/offline.html")
