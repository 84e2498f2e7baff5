"""What every page's template is given besides its own context."""

from django.conf import settings
from django.utils.translation import get_language


def i18n(request):
    """Django's `i18n` context processor, reading the active language once: it
    read it three times (once, then twice for `get_language_bidi`), each a
    thread-local (asgiref's, with its lock), in every render with a request."""
    language = get_language()
    return {
        "LANGUAGES": settings.LANGUAGES,
        "LANGUAGE_CODE": language,
        "LANGUAGE_BIDI": language is not None and language.split("-")[0] in settings.LANGUAGES_BIDI,
    }
