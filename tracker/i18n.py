"""The engine's refusals in the reader's language.

The rules package stays free of Django: it words each refusal in English as a
template with its parameters (tracker/rules/table.py, `N_` and `Phrase`). Here,
at the edge, the template is translated and the parameters put in; a phrase
among them (why a player cannot win, a rule's name) is translated too. The
commands and the game and table documents keep the English `error.message`.
"""

import re

from django.utils.translation import gettext

from .rules import FORMATS
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


def game_name(name, fmt, game_rules):
    """A game's name as the reader reads it: a name left as its format's default
    ("Pool 101", "Points rummy", and "Pool 101 · 2" after Play again) in the active
    language; a name the family typed, as typed."""
    default = default_name(fmt, game_rules)
    if not default:
        return name
    if name == default:
        return phrase(default)
    again = _played_again(name, default)
    return name if again is None else f"{phrase(default)}{again[0]}{again[1]}"


def default_name(fmt, game_rules):
    """The name of a game of `fmt` left unnamed, a Phrase (its English words), or None."""
    spec = FORMATS.get(fmt)
    try:
        return spec.default_name(game_rules) if spec else None
    except (KeyError, TypeError):  # rules from before a rule existed
        return None


# What Play again puts between a default name and its number: " · " ("Pool 101 · 2"),
# so the number is never read from the format's own (the 101); " " before that.
AGAIN = (" · ", " ")


def again_number(name, default):
    """The number Play again put after the default name: 2 of "Pool 101 · 2" (or
    "Pool 101 2"); None for any other name."""
    again = _played_again(name, default)
    return None if again is None else int(again[1])


def _played_again(name, default):
    for apart in AGAIN:
        head, _, number = name.rpartition(apart)
        if head == default and re.fullmatch("[0-9]{1,6}", number):
            return apart, number
    return None


def phrase(value):
    if isinstance(value, Phrase):
        return translate(value.template, value.params)
    return value


def refusal(error):
    """What the engine (or the hand calculator, tracker/rules/hand.py) refused, in the
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


# ------------------------------------------------------------ another phone's change

# The change another phone made, as the game notes it (`Game.last_change`,
# tracker/models.py: {"change": "added", "event": "deal", "n": 3}), worded in
# the reader's language for the stale notice.
SOMEONE_ELSE = N_("Someone else just changed the game.")
CHANGES = {
    ("added", "deal"): N_("Someone else just saved deal %(n)s."),
    ("changed", "deal"): N_("Someone else just changed deal %(n)s."),
    ("undone", "deal"): N_("Someone else just deleted deal %(n)s."),
    ("added", "rejoin"): N_("Someone else just rejoined %(name)s."),
    ("undone", "rejoin"): N_("Someone else just undid %(name)s's rejoin."),
    ("added", "split"): N_("Someone else just split the pot."),
    ("undone", "split"): N_("Someone else just undid the split."),
    ("added", "end"): N_("Someone else just ended the session."),
    ("undone", "end"): N_("Someone else just undid the end of the session."),
    ("added", "join"): N_("Someone else just added %(name)s."),
    ("undone", "join"): N_("Someone else just undid adding %(name)s."),
    ("added", "sit_out"): N_("Someone else just sat %(name)s out."),
    ("undone", "sit_out"): N_("Someone else just undid %(name)s sitting out."),
    ("added", "sit_in"): N_("Someone else just brought %(name)s back in."),
    ("undone", "sit_in"): N_("Someone else just undid %(name)s coming back in."),
    ("added", "leave"): N_("Someone else just noted that %(name)s left."),
    ("undone", "leave"): N_("Someone else just undid %(name)s leaving."),
    ("put_back", None): N_("Someone else just put the game back."),
}


def someone_else(change):
    """The stale notice's first sentence: "Someone else just deleted deal 2."
    A change this list does not word (or none noted) is "changed the game"."""
    change = change if isinstance(change, dict) else {}
    template = CHANGES.get((change.get("change"), change.get("event")))
    if template is None:
        return gettext(SOMEONE_ELSE)
    return translate(template, {k: change[k] for k in ("n", "name") if k in change})
