"""The game screen's per-player and per-row markup, laid out in Python.

`{% load game_parts %}` in templates/tracker/game.html and deal_fields.html.
Six players' Sit out and Leave buttons and the deal form's six rows were most
of a fresh edit-link render in the template engine (a {% blocktranslate %}
and a {% url %} or two each; bench/README.md). These tags print the same
HTML from tracker/scoreboard.py and tracker/forms.py, every value escaped
there. (The history's Edit links: `scoreboard.with_deal_heads`.)
"""

from django import template

from .. import scoreboard
from ..forms import deal_rows_html
from ..urltag import cached_reverse

register = template.Library()


@register.simple_tag(takes_context=True)
def seating_items(context):
    """The items of "Who plays the next deal": a Sit out and a Leave button each."""
    token = context["game"].edit_token
    urls = {name: cached_reverse(name, [token]) for name in ("sit_in", "sit_out", "leave")}
    players = context["seating"]["players"]
    return scoreboard.seating_items_html(players, urls)


@register.simple_tag(takes_context=True)
def deal_rows(context, entry):
    """The deal form's rows, one a player dealt in; "Count cards" where shown."""
    token = context["game"].edit_token if context.get("show_count") else None
    return deal_rows_html(entry, token)
