"""`{% translate %}`, `{% blocktranslate %}` and `{% static %}` worked out once
per language or path, and `{% kept %}`: a part of a page laid out once for what
it shows.

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

import hmac
from decimal import Decimal

from django import template
from django.conf import settings
from django.core.signals import setting_changed
from django.template.base import render_value_in_context
from django.templatetags.i18n import (
    BlockTranslateNode,
    LanguageNode,
    TranslateNode,
    do_block_translate,
    do_translate,
)
from django.templatetags.i18n import language as do_language
from django.templatetags.static import StaticNode
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

register = template.Library()


def _language(context):
    """The active language, read once a render: each `get_language()` reads a
    thread-local (a lock, a context variable and two attribute errors raised
    inside asgiref), and a board's answer asked a dozen times. Only `{% language
    %}` changes it within a render; this library's own tag of that name (below)
    reads it afresh inside its block."""
    return render_once(context, _LANGUAGE, get_language)


_LANGUAGE = object()  # the key of the render's language in its render_context


def _render_state(context):
    """The state of this render of a template, with its partials and includes:
    the dict its `Template.render` pushed onto `context.render_context`, made
    afresh by each render and dropped after it (so a context rendered again later
    starts again); None outside a render."""
    dicts = context.render_context.dicts
    return dicts[1] if len(dicts) > 1 else None


def render_once(context, key, find):
    """`find()`, found once a render and kept under `key` in its state."""
    state = _render_state(context)
    if state is None:
        return find()
    found = state.get(key)
    if found is None:
        found = state[key] = find()
    return found


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
        key = (_language(context), context.autoescape)
        said = self.said.get(key)
        if said is None:
            said = self.said[key] = super().render(context)
        return said


@register.tag("translate")
@register.tag("trans")
def translate(parser, token):
    return OnceTranslateNode(do_translate(parser, token))


SAID_MANY = 4096  # translations a {% blocktranslate %} keeps; past that it starts again


class OnceBlockTranslateNode(BlockTranslateNode):
    """Django's `{% blocktranslate %}`, with its message looked up once per
    language (and count), not on every render.

    Django's tag builds the message id from its tokens, pushes the `with`
    values onto the context, asks gettext (which reads the active language
    from a thread-local) and pops the context again, in every render; the
    game screen renders eight of them and a deal's answer six. Here the message
    ids are built once, when the template is read, the translation is kept per
    language and count, and the values are put in as Django's tag puts them
    (escaped, localized). `context` and `asvar`, and a translation that does not
    fit its values, are left to Django's tag.
    """

    def __init__(self, node):
        super().__init__(
            node.extra_context,
            node.singular,
            node.plural,
            node.countervar,
            node.counter,
            node.message_context,
            node.trimmed,
            node.asvar,
            node.tag_name,
        )
        self.once = self.message_context is None and self.asvar is None
        self.counted = bool(self.plural and self.countervar and self.counter)
        self.message, self.names = self.render_token_list(self.singular)
        if self.counted:
            self.plural_message, plural_names = self.render_token_list(self.plural)
            self.names = self.names + plural_names
        self.said = {}

    def render(self, context, nested=False):
        if not self.once:
            return super().render(context, nested)
        values = {name: value.resolve(context) for name, value in self.extra_context.items()}
        count = None
        if self.counted:
            count = self.counter.resolve(context)
            if isinstance(count, bool) or not isinstance(count, (int, float, Decimal)):
                return super().render(context, nested)  # Django's own error
            values[self.countervar] = count
        key = (_language(context), count)
        said = self.said.get(key)
        if said is None:
            if self.counted:
                said = translation.ngettext(self.message, self.plural_message, count)
            else:
                said = translation.gettext(self.message)
            if len(self.said) >= SAID_MANY:
                self.said.clear()
            self.said[key] = said
        missing = context.template.engine.string_if_invalid
        data = {}
        for name in self.names:
            if name in values:
                value = values[name]
            elif name in context:
                value = context[name]
            else:
                value = missing % name if "%s" in missing else missing
            data[name] = _shown(value, context)
        try:
            return said % data
        except (KeyError, ValueError):
            return super().render(context, nested)  # Django's fallback to English


def _shown(value, context):
    """A value as Django's tag puts it in (`render_value_in_context`): a whole
    number (the deals played, the next deal's number) straight as its digits,
    which is what Django's localizing gives it while numbers are not grouped
    (USE_THOUSAND_SEPARATOR), without its three format lookups by language."""
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)
    return render_value_in_context(value, context)


@register.tag("blocktranslate")
@register.tag("blocktrans")
def blocktranslate(parser, token):
    return OnceBlockTranslateNode(do_block_translate(parser, token))


class OnceLanguageNode(LanguageNode):
    """Django's `{% language %}`, with the language kept on the context (`_language`)
    read afresh inside its block and put back after it."""

    def render(self, context):
        state = _render_state(context)
        outer = state.pop(_LANGUAGE, None) if state is not None else None
        try:
            return super().render(context)  # the language read afresh inside
        finally:
            if state is not None:
                state.pop(_LANGUAGE, None)
                if outer is not None:
                    state[_LANGUAGE] = outer


@register.tag("language")
def language(parser, token):
    node = do_language(parser, token)
    return OnceLanguageNode(node.nodelist, node.language)


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


# What a {% kept %} part holds in place of the forms' version until it is shown:
# made from the secret key, so no name a player types can match it.
VERSION_SLOT = (
    "version-slot-" + hmac.new(settings.SECRET_KEY.encode(), b"version", "sha256").hexdigest()[:32]
)
KEPT_PARTS = 512  # parts a process keeps; past that it starts again


class KeptNode(template.Node):
    """`{% kept "name" value ... %}...{% endkept %}`: the part rendered once per
    process for the values it names, as Django's `{% cache %}` varies on its
    arguments, and kept in memory. `{% kept "name" if value ... %}` keeps it
    only while `value` holds, and else renders it each time (a deal form with
    something typed in it).

    Every value the part shows must be named, as with `{% cache %}`; the
    language, autoescape and the CSRF token (the cached pages' slot, or a
    browser's own) are added to the key here. The one value that changes with
    every deal, the `version` in its forms (the revision they were made
    against), is rendered as VERSION_SLOT and put in on the way out, so a part
    is laid out again only when what it shows changes: the Add a player, Sit
    out and End session forms of the game screen, and its blank deal form
    (bench/README.md).
    """

    kept = {}

    def __init__(self, nodelist, name, values, condition=None):
        self.nodelist, self.name, self.values = nodelist, name, values
        self.condition = condition  # `if value`: kept only while it holds

    def render(self, context):
        if self.condition is not None and not self.condition.resolve(context):
            return self.nodelist.render(context)
        key = (
            self.name,
            _language(context),
            context.autoescape,
            str(context.get("csrf_token")),
            repr([value.resolve(context) for value in self.values]),
        )
        html = self.kept.get(key)
        if html is None:
            with context.push(version=VERSION_SLOT):
                html = self.nodelist.render(context)
            if len(self.kept) >= KEPT_PARTS:
                self.kept.clear()
            self.kept[key] = html
        return mark_safe(html.replace(VERSION_SLOT, str(context.get("version"))))


@register.tag
def kept(parser, token):
    bits = token.split_contents()
    if len(bits) < 2:
        raise template.TemplateSyntaxError("{% kept %} takes a name, then the values it shows")
    name, values, condition = bits[1], bits[2:], None
    if values[:1] == ["if"]:  # {% kept "name" if value ... %}: kept only while value holds
        if len(values) < 2:
            raise template.TemplateSyntaxError("{% kept ... if %} needs the value it keeps by")
        condition, values = parser.compile_filter(values[1]), values[2:]
    nodelist = parser.parse(("endkept",))
    parser.delete_first_token()
    return KeptNode(nodelist, name, [parser.compile_filter(bit) for bit in values], condition)
