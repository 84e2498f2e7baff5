"""The theme switch without JavaScript: a form post that keeps the choice in a
cookie and goes back to the page it was on (tracker.js does the same in the page,
without the round trip). The cookie lives as the language's does."""

from django.conf import settings
from django.http import HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from ..context_processors import THEME_COOKIE, THEMES
from .common import HtmxHttpRequest


@require_POST
def set_theme(request: HtmxHttpRequest) -> HttpResponse:
    """Keep "light" or "dark"; anything else ("auto") follows the phone again."""
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = "/"
    response = HttpResponseRedirect(back)
    choice = request.POST.get("theme", "")
    if choice in THEMES:
        response.set_cookie(
            THEME_COOKIE,
            choice,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            samesite="Lax",
            secure=settings.LANGUAGE_COOKIE_SECURE,
        )
    else:
        response.delete_cookie(THEME_COOKIE, samesite="Lax")
    return response
