"""A request body that cannot be read is answered 400, before anything reads it.

Django raises while it parses such a body (a form that says it is not UTF-8,
too many fields, a broken multipart upload). Left to itself it turns that
into a 400 whose handler checks CSRF, which parses the body again and raises
again: a 500. Reading the form here first, inside try, stops that.
"""

import codecs

from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import QueryDict, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext_lazy as _

UNREADABLE = _(
    "The form could not be read, so nothing was changed: go back, reload the page and try again."
)
NOT_UTF8 = _(
    "The form could not be read, so nothing was changed: it must be sent as UTF-8. "
    "Go back, reload the page and try again."
)


class UnreadableBody:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # Runs before any view and before CsrfViewMiddleware.process_view, which
        # are the first to read the form.
        if request.method == "POST":
            if request.encoding and _is_utf8(request.encoding):
                request.encoding = "utf-8"  # "utf8", "UTF-8": the same, as Django spells it
            try:
                request.POST  # noqa: B018 (parses the body, or raises)
            except (BadRequest, SuspiciousOperation, MultiPartParserError, UnreadablePostError):
                # Nothing may parse it again on the way out.
                request._post, request._files = QueryDict(), MultiValueDict()
                utf8 = request.encoding is None or _is_utf8(request.encoding)
                reason = UNREADABLE if utf8 else NOT_UTF8
                return render(request, "400.html", {"reason": reason}, status=400)
        return self.get_response(request)


def _is_utf8(charset):
    try:
        return codecs.lookup(charset).name == "utf-8"
    except LookupError:
        return False
