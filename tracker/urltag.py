"""`{% url %}` with a memory: each link is reversed once per process.

A game screen has about 30 links (a deal's Edit, the polls, the forms), and
Django's `{% url %}` reverses each one afresh on every render: close to a
millisecond of a fresh page (bench/README.md). The links of a game never
change, so here a reversed link is kept, keyed by everything the answer
depends on: the name, the arguments, the current app, the script prefix and
the URLconf. Installed in place of Django's tag as a template builtin
(tracker/settings.py), so templates keep writing `{% url %}`.
"""

from functools import lru_cache

from django.conf import settings
from django.template import Library, defaulttags
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

from .templatetags.once import render_once

register = Library()


@lru_cache(maxsize=8192)
def _reversed(view_name, args, kwargs, current_app, prefix, urlconf):
    return reverse(
        view_name, urlconf=urlconf, args=args, kwargs=dict(kwargs), current_app=current_app
    )


def cached_reverse(view_name, args=(), kwargs=None, current_app=None):
    urlconf = get_urlconf() or settings.ROOT_URLCONF
    return _reverse_at(view_name, args, kwargs, current_app, get_script_prefix(), urlconf)


def _reverse_at(view_name, args, kwargs, current_app, prefix, urlconf):
    key_kwargs = tuple(sorted((kwargs or {}).items()))
    try:
        return _reversed(view_name, tuple(args), key_kwargs, current_app, prefix, urlconf)
    except TypeError:  # an argument that cannot be a key: reverse it as Django does
        return reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)


_WHERE = object()  # the key of a render's (current app, prefix, URLconf) in its render_context


def _where(context):
    request = getattr(context, "request", None)
    current_app = getattr(request, "current_app", None)
    if current_app is None:
        current_app = getattr(getattr(request, "resolver_match", None), "namespace", None)
    return (current_app, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)


class CachedURLNode(defaulttags.URLNode):
    def render(self, context):
        args = [arg.resolve(context) for arg in self.args]
        kwargs = {k: v.resolve(context) for k, v in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        # The current app, script prefix and URLconf, found once a render
        # (`render_once`): the two last are thread-locals (asgiref), read for
        # every link, and nothing changes them within a render.
        where = render_once(context, _WHERE, lambda: _where(context))
        url = _reverse_at(view_name, args, kwargs, *where)
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    node = defaulttags.url(parser, token)
    return CachedURLNode(node.view_name, node.args, node.kwargs, node.asvar)
