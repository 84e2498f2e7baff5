"""The plain shapes the engine takes and gives, named once for the type hints.

Rules, events and the document's parts are JSON objects (shared/docs/game-json.md).
The type of each value follows from its key and is checked by the engine as it
reads it (a refusal names the key), so these are dicts of str to Any, not a
type per key.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NotRequired, TypeAlias, TypedDict

# A game's table rules: key -> a whole number, an amount string, a flag or a choice.
Rules: TypeAlias = dict[str, Any]
# One event of the history, as a game document writes it (checked as it is applied).
Event: TypeAlias = dict[str, Any]
# A JSON object of the game document: its `state`, an entry of `state.players`.
Document: TypeAlias = dict[str, Any]
# A loser's result as it was entered: points (a count), or a result word (first_drop ...).
Result: TypeAlias = int | str
# Who pays whom: (from, to, amount).
Payment: TypeAlias = tuple[str, str, Decimal]
# A badge beside a name or in a cell: (text, css class).
Badge: TypeAlias = tuple[str, str]


class Cell(TypedDict):
    """One cell of a player's scoreboard row after the name."""

    text: str
    badge: NotRequired[Badge | None]
