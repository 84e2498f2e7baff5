"""What every format shares: the refusal, the checks of table rules, the seats.

A format module (pool.py, deals.py, ...) checks its own rule keys with the
helpers here, so a rule is refused with the same words in every format.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TypeVar

from .money import MAX_MONEY, in_units
from .shapes import Rules

MONEY_UNITS = ("0.01", "1")
MIN_PLAYERS, MAX_PLAYERS = 2, 10
MAX_NAME_LENGTH = 30

Choice = TypeVar("Choice")  # one of a rule's choices, as they are given


def N_(text: str) -> str:
    """Mark a refusal's words for translation, changing nothing.

    The rules package imports nothing from Django: `manage.py makemessages
    --keyword=N_` finds these words, and the edge (tracker/i18n.py) translates
    them. A refusal is written as a template with %(name)s places and its
    parameters, so the translation can put the names where Hindi wants them.
    """
    return text


class Phrase(str):
    """A parameter of a refusal that is words to translate too (a rule's name,
    a reason), not a name or a number. It reads as its English words."""

    template: str
    params: dict[str, object]

    def __new__(cls, template: str, params: Mapping[str, object] | None = None) -> Phrase:
        if isinstance(template, Phrase) and not params:
            return template
        text = template % params if params else template
        phrase = super().__new__(cls, text)
        phrase.template = template
        phrase.params = dict(params or {})
        return phrase


# House rules of the hand calculator (issue: "the house rules are part of the
# game's table rules"). Optional in every format that offers the calculator; a
# game document carries them only where the table changed them, so documents
# of other tools and the worked examples stay exactly as game-json.md writes them.
CARD_RULES = {"natural_wild": "pure", "jokers_in_sets": True, "hand_count": "all"}
HAND_COUNTS = ("all", "except_pure", "groups_excluded")

# The name of every rule as a family reads it. A format module adds its own
# keys here (`RULE_LABELS.update(...)`) when it is imported.
RULE_LABELS = {
    "natural_wild": N_("wild card in its own place"),
    "jokers_in_sets": N_("jokers in sets"),
    "hand_count": N_("a loser counts"),
    "money_unit": N_("money unit"),
}


def and_list(names: Sequence[str]) -> str:
    """ "Asha", "Asha and Ravi", "Asha and Ravi and Meena", as words to translate."""
    if len(names) < 2:
        return "".join(names)
    return Phrase(N_("%(first)s and %(last)s"), {"first": and_list(names[:-1]), "last": names[-1]})


class RuleError(ValueError):
    """A refusal, with the place it belongs to.

    `field` is a dotted path in the game document (`rules.first_drop`,
    `players`, `results.Ravi`, `winner`); `event` is the index in the history
    of the event refused, or None; `player` names the player the message is
    about, so a form can show it beside that player's box.

    `message` is the refusal in English (what the commands print and the
    documents keep); `template` and `params` are the same refusal before its
    names were put in, for the translation (tracker/i18n.py).
    """

    def __init__(
        self,
        message: str,
        *,
        params: Mapping[str, object] | None = None,
        field: str | None = None,
        event: int | None = None,
        player: str | None = None,
        label: str | None = None,
    ) -> None:
        self.template = message
        self.params = dict(params or {})
        if params:
            message = message % self.params
        super().__init__(message)
        self.message = message
        self.field = field
        self.event = event
        self.player = player
        self.label = label

    @property
    def for_player(self) -> str:
        """The message as a player reads it beside the box: "Ravi: ..."."""
        if not self.player or self.message.startswith(f"{self.player} "):
            return self.message
        return f"{self.player}: {self.message}"

    def __str__(self) -> str:
        parts = []
        if self.event is not None:
            parts.append(f"history[{self.event}]" + (f" ({self.label})" if self.label else ""))
        if self.field:
            parts.append(self.field)
        parts.append(self.for_player)
        return ": ".join(parts)


def stray_name(name: object, where: str) -> RuleError:
    """The refusal of a name in a deal's results (`where`) that is not at the table,
    or in a split's shares that is not in the game: beside that name's box."""
    if where == "results":
        template = N_("%(name)s is not at this table")
    else:
        template = N_("%(name)s is not in the game, so has no share")
    return RuleError(template, params={"name": name}, field=f"{where}.{name}", player=str(name))


# ---------------------------------------------------------------- rule checks


def label_of(key: str) -> Phrase:
    return Phrase(RULE_LABELS[key])  # every rule of every format has its label


def whole(
    rules: Rules, key: str, low: int | None = None, high: int | None = None, nullable: bool = False
) -> int | None:
    """A whole-number rule between `low` and `high` (None allowed when `nullable`)."""
    value = rules[key]
    label = label_of(key)
    where = f"rules.{key}"
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(
            N_("%(label)s must be a whole number"), params={"label": label}, field=where
        )
    if low is not None and value < low:
        if low == 0:
            raise RuleError(
                N_("%(label)s must not be negative"), params={"label": label}, field=where
            )
        raise RuleError(
            N_("%(label)s must be at least %(low)s"),
            params={"label": label, "low": low},
            field=where,
        )
    if high is not None and value > high:
        raise RuleError(
            N_("%(label)s must be at most %(high)s"),
            params={"label": label, "high": high},
            field=where,
        )
    return value


AMOUNT = N_("%(label)s must be a plain amount such as 0.25, digits 0-9")
# A plain amount as a family types it: digits 0-9 and at most one point. Not
# what Decimal() also takes: 1E+5, +5, 1_0, Arabic-Indic or full-width digits.
PLAIN_AMOUNT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def plain_amount(value: object) -> Decimal | None:
    """`value` as a Decimal if it is a plain amount (PLAIN_AMOUNT, and no -0),
    else None. Every amount of money the engine reads goes through it: an entry
    fee, a point value, a split's share."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        return None
    text = str(value).strip()
    if not PLAIN_AMOUNT.fullmatch(text):
        return None
    amount = Decimal(text)
    if text.startswith("-") and not amount:
        return None
    return amount


def money_rule(rules: Rules, key: str, unit: str) -> str:
    """An amount of money: a plain decimal, not negative, in whole money units."""
    label = label_of(key)
    where = f"rules.{key}"
    amount = plain_amount(rules[key])
    if amount is None:
        raise RuleError(N_(AMOUNT), params={"label": label}, field=where)
    if amount < 0:
        raise RuleError(N_("%(label)s must not be negative"), params={"label": label}, field=where)
    if amount > MAX_MONEY:
        raise RuleError(
            N_("%(label)s must be at most %(high)s"),
            params={"label": label, "high": MAX_MONEY},
            field=where,
        )
    if not in_units(amount, Decimal(unit)):
        raise RuleError(
            N_("%(label)s has more decimals than the money unit %(unit)s"),
            params={"label": label, "unit": unit},
            field=where,
        )
    return str(amount)


def choice(rules: Rules, key: str, choices: Sequence[Choice]) -> Choice:
    value = rules[key]
    if isinstance(value, bool) or value not in choices:
        shown = " or ".join(str(c) for c in choices)
        raise RuleError(
            N_("%(label)s must be %(shown)s"),
            params={"label": label_of(key), "shown": shown},
            field=f"rules.{key}",
        )
    return value


def flag(rules: Rules, key: str) -> bool:
    value = rules[key]
    if not isinstance(value, bool):
        raise RuleError(
            N_("%(label)s must be true or false"),
            params={"label": label_of(key)},
            field=f"rules.{key}",
        )
    return value


def money_unit(rules: Rules) -> str:
    """The table's money unit, "0.01" (the default) or "1"."""
    unit = rules.setdefault("money_unit", "0.01")
    if isinstance(unit, (int, float)) and not isinstance(unit, bool):
        unit = rules["money_unit"] = "1" if unit == 1 else str(unit)
    return choice(rules, "money_unit", MONEY_UNITS)


def card_rules(rules: Rules) -> Rules:
    """The calculator's house rules of a table, defaults filled in."""
    return {key: rules.get(key, default) for key, default in CARD_RULES.items()}


def check_card_rules(rules: Rules, ordered: Rules) -> Rules:
    """Add the calculator's house rules that differ from the defaults to `ordered`."""
    if "natural_wild" in rules:
        ordered["natural_wild"] = choice(rules, "natural_wild", ("pure", "joker"))
    if "jokers_in_sets" in rules:
        ordered["jokers_in_sets"] = flag(rules, "jokers_in_sets")
    if "hand_count" in rules:
        ordered["hand_count"] = choice(rules, "hand_count", HAND_COUNTS)
    for key, default in CARD_RULES.items():
        if ordered.get(key, default) == default:
            ordered.pop(key, None)
    return ordered


# ---------------------------------------------------------------- seats


def has_control_characters(text: str) -> bool:
    """Invisible control characters (U+0000 among them, which PostgreSQL cannot store)."""
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in text)


def check_seat_name(name: str, seat: int | None, where: str) -> str:
    """One seat's name, trimmed: not longer than MAX_NAME_LENGTH, no control characters.
    `seat`: the seat's number, or None for a player joining the game."""
    name = " ".join(name.split())
    if len(name) > MAX_NAME_LENGTH:
        if seat is None:
            template = N_("the new player's name is longer than %(n)s letters")
        else:
            template = N_("player %(seat)s's name is longer than %(n)s letters")
        raise RuleError(template, params={"seat": seat, "n": MAX_NAME_LENGTH}, field=where)
    if has_control_characters(name):
        if seat is None:
            template = N_("the new player's name has a character that is not a letter")
        else:
            template = N_("player %(seat)s's name has a character that is not a letter")
        raise RuleError(template, params={"seat": seat}, field=where)
    return name


def check_players(players: object) -> list[str]:
    """Seat names: 2 to 10, not blank, unique ignoring case. Returns them trimmed."""
    if not isinstance(players, list):
        raise RuleError(N_("players must be a list of names"), field="players")
    if len(players) < MIN_PLAYERS:
        raise RuleError(
            N_("a game needs at least %(n)s players"), params={"n": MIN_PLAYERS}, field="players"
        )
    if len(players) > MAX_PLAYERS:
        raise RuleError(
            N_("a game has at most %(n)s players"), params={"n": MAX_PLAYERS}, field="players"
        )
    names, seen = [], set()
    for seat, name in enumerate(players, start=1):
        where = f"players[{seat - 1}]"
        if not isinstance(name, str) or not name.strip():
            raise RuleError(N_("player %(seat)s needs a name"), params={"seat": seat}, field=where)
        name = check_seat_name(name, seat, where)
        if name.casefold() in seen:
            raise RuleError(
                N_("%(name)s is at the table twice: names must differ"),
                params={"name": name},
                field=where,
            )
        seen.add(name.casefold())
        names.append(name)
    return names
