"""`{% translate %}` and `{% static %}` worked out once per language or path.

`{% load ... once %}` after `{% load i18n static %}` (templates/base.html,
templates/tracker/game.html) puts these in place of Django's tags of the same
name. A `{% translate "Scores" %}` gives the same text in every render in one
language, and `{% static "tracker.css" %}` the same address in every render,
yet Django looked each one up again each time: a gettext (which reads the
active language from a thread-local) and the template variable machinery,
or the static files manifest. An edit-link page renders 38 of the one and
five of the other (bench/README.md). The text is the one Django's own tag
gives, kept per language (and autoescape) for a constant string; a variable,
a filter, `noop`, `as` or `context` is left to Django's tag as before.
"""

from django import template
from django.core.signals import setting_changed
from django.templatetags.i18n import TranslateNode, do_translate
from django.templatetags.static import StaticNode
from django.utils.translation import get_language

register = template.Library()


class OnceTranslateNode(TranslateNode):
    def __init__(self, node):
        super().__init__(node.filter_expression, node.noop, node.asvar, node.message_context)
        expression = self.filter_expression
        self.once = (
            not self.noop
            and self.asvar is None
            and self.message_context is None
            and not expression.filters
            and getattr(expression.var, "literal", None) is not None
        )
        self.said = {}

    def render(self, context):
        if not self.once:
            return super().render(context)
        key = (get_language(), context.autoescape)
        said = self.said.get(key)
        if said is None:
            said = self.said[key] = super().render(context)
        return said


@register.tag("translate")
@register.tag("trans")
def translate(parser, token):
    return OnceTranslateNode(do_translate(parser, token))


_ADDRESSES = {}  # a static file's path: its address, for this process


def _forget_addresses(*, setting, **kwargs):
    if setting in ("STATIC_URL", "STORAGES", "INSTALLED_APPS", "STATIC_ROOT"):
        _ADDRESSES.clear()


setting_changed.connect(_forget_addresses)


class OnceStaticNode(StaticNode):
    def url(self, context):
        path = self.path.resolve(context)
        address = _ADDRESSES.get(path)
        if address is None:
            address = _ADDRESSES[path] = self.handle_simple(path)
        return address


@register.tag("static")
def static(parser, token):
    node = StaticNode.handle_token(parser, token)
    return OnceStaticNode(node.varname, node.path)
