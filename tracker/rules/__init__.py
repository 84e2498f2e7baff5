"""The rules engine: every figure the tracker shows comes from here.

Pure Python: no Django, no I/O. It takes a game's format, table rules, seats
and history (a list of events, as in shared/docs/game-json.md) and replays
them into a `GameState`. Every rule is written once, as shared/docs/rules.md
words it; the web pages, the import command and the tests all call `replay`
and so refuse the same things with the same words.

- table.py: the refusal (`RuleError`), rule checks shared by every format, seats.
- money.py: amounts, rounding to the money unit, the fewest payments.
- state.py: `GameState`, its players and rows.
- shapes.py: the names the type hints give the plain data (rules, events, the
  document's parts, a scoreboard cell).
- engine.py: `normalize_rules`, `new_game`, `replay`, `apply`.
- base.py: `Format`, what a format decides; thirteen.py: what pool, deals
  and points share.
- pool.py, deals.py, points.py: one module per format.
- formats.py: the registry, `FORMATS` (name -> format object).
- money_format.py: money as the screen shows it (rupee sign, Indian grouping).
- hand.py: the hand calculator's search (tracker/calculator.py is its page).
"""

from .base import Format, Preset, RuleInput
from .engine import EVENT_TYPES, apply, new_game, normalize_rules, replay, spec_of
from .formats import FORMATS, PRESETS
from .money import MAX_MONEY, fewest_payments, in_units, money, round_shares
from .pool import SPLIT_METHODS, default_rejoin_cutoff, out_total
from .state import GameState, Player, Row
from .table import (
    CARD_RULES,
    HAND_COUNTS,
    MAX_NAME_LENGTH,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MONEY_UNITS,
    RULE_LABELS,
    RuleError,
    card_rules,
    check_players,
    has_control_characters,
)
from .thirteen import DROPS, RESULT_LABELS, RESULT_WORDS, TYPED_RESULT

RULE_KEYS = {name: spec.rule_keys for name, spec in FORMATS.items()}

__all__ = [
    "CARD_RULES",
    "DROPS",
    "EVENT_TYPES",
    "FORMATS",
    "HAND_COUNTS",
    "MAX_MONEY",
    "MAX_NAME_LENGTH",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MONEY_UNITS",
    "PRESETS",
    "RESULT_LABELS",
    "RESULT_WORDS",
    "RULE_KEYS",
    "RULE_LABELS",
    "SPLIT_METHODS",
    "TYPED_RESULT",
    "Format",
    "GameState",
    "Player",
    "Preset",
    "Row",
    "RuleError",
    "RuleInput",
    "apply",
    "card_rules",
    "check_players",
    "default_rejoin_cutoff",
    "fewest_payments",
    "has_control_characters",
    "in_units",
    "money",
    "new_game",
    "normalize_rules",
    "out_total",
    "replay",
    "round_shares",
    "spec_of",
]
