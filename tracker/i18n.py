"""The engine's refusals in the reader's language.

The rules package stays free of Django: it words each refusal in English as a
template with its parameters (tracker/rules/table.py, `N_` and `Phrase`). Here,
at the edge, the template is translated and the parameters put in; a phrase
among them (why a player cannot win, a rule's name) is translated too. The
commands and the game and table documents keep the English `error.message`.
"""

from django.utils.translation import gettext

from .rules.table import N_, Phrase


def translate(template, params=None):
    """`template` in the active language with `params` put in. A translation
    that does not take the parameters falls back to the English words."""
    text = gettext(template)
    if not params:
        return text
    values = {key: phrase(value) for key, value in params.items()}
    try:
        return text % values
    except (KeyError, TypeError, ValueError):
        return template % values


def phrase(value):
    if isinstance(value, Phrase):
        return translate(value.template, value.params)
    return value


def refusal(error):
    """What the engine (or the hand calculator, tracker/hand.py) refused, in the
    active language: anything with the English `template` and its `params`."""
    return translate(error.template, error.params)


def sentence(error):
    """The refusal as a sentence: its first letter a capital (English)."""
    text = refusal(error)
    return text[:1].upper() + text[1:]


def full_stop(text):
    """A sentence ended as the language ends one: "." in English, "।" in Hindi."""
    return translate(N_("%(sentence)s."), {"sentence": text})


def for_player(error):
    """The refusal as a player reads it beside the box: "Ravi: ..."."""
    text = refusal(error)
    if not error.player or error.message.startswith(f"{error.player} "):
        return text
    return f"{error.player}: {text}"


def with_place(error):
    """The refusal with where it was found, as `str(error)` gives it in English:
    "history[3] (deal 4): results.Ravi: ..."."""
    parts = []
    if error.event is not None:
        parts.append(
            f"history[{error.event}]" + (f" ({phrase(error.label)})" if error.label else "")
        )
    if error.field:
        parts.append(error.field)
    parts.append(for_player(error))
    return ": ".join(parts)
