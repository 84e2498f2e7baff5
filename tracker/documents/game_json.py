"""The game document (shared/docs/game-json.md): reading and writing it.

Pure Python like the rules engine: a document is checked by replaying its
history through `rules.replay`, so a file the tracker would refuse deal by
deal is refused whole, with the engine's message for the first bad event.
"""

from __future__ import annotations

import json
from typing import TypedDict

from .. import rules
from ..rules.money import money
from ..rules.shapes import Document, Event, Rules
from ..rules.state import GameState, Row
from ..rules.table import N_

SCHEMA = "rummy-tracker.game/1"
MAX_NAME_LENGTH = 80
INPUT_KEYS = ("schema", "name", "format", "rules", "players", "first_dealer", "history")


class Game(TypedDict):
    """The input part of a game document, as `read` checked it: every rule
    filled in, names trimmed, each event as the engine read it."""

    schema: str
    name: str
    format: str
    rules: Rules
    players: list[str]  # the seats at the start; joiners are events of the history
    first_dealer: str
    history: list[Event]


def default_name(fmt: str, game_rules: Rules) -> str:
    return rules.FORMATS[fmt].default_name(game_rules)


def check_name(name: object, fmt: str | None = None, game_rules: Rules | None = None) -> str:
    if name is None or (isinstance(name, str) and not name.strip()):
        return default_name(fmt, game_rules) if fmt and game_rules is not None else ""
    if not isinstance(name, str):
        raise rules.RuleError(N_("the game's name must be text"), field="name")
    name = " ".join(name.split())
    if rules.has_control_characters(name):
        raise rules.RuleError(
            N_("the game's name has a character that is not a letter"), field="name"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise rules.RuleError(
            N_("the game's name is longer than %(n)s letters"),
            params={"n": MAX_NAME_LENGTH},
            field="name",
        )
    return name


def check_length(history: object, max_events: int | None) -> None:
    """Refuse a history longer than `max_events` (a server's limit, EVENTS_PER_GAME),
    counted before anything is replayed. None: no limit."""
    if max_events is not None and isinstance(history, list) and len(history) > max_events:
        raise rules.RuleError(
            N_("the history has %(count)s events: a game keeps at most %(n)s"),
            params={"count": len(history), "n": max_events},
            field="history",
        )


def check_room(state: GameState, max_events: int | None) -> None:
    """Refuse one more event when the game already keeps `max_events`."""
    if max_events is not None and state.row_count >= max_events:
        raise rules.RuleError(
            N_("this game keeps %(n)s events, the most a game keeps: start a new game"),
            params={"n": max_events},
            field="history",
        )


def read(doc: object, max_events: int | None = None) -> tuple[Game, GameState]:
    """Check a document's input part and replay it.

    Returns (game, state): `game` the input part with every rule filled in,
    `state` the engine's GameState. Raises RuleError naming what is wrong.
    `max_events`: the most events a history may hold, checked first.
    """
    if not isinstance(doc, dict):
        raise rules.RuleError(N_("a game document is a JSON object"), field="document")
    if doc.get("schema") != SCHEMA:
        raise rules.RuleError(
            N_('schema must be "%(schema)s"'), params={"schema": SCHEMA}, field="schema"
        )
    unknown = sorted(set(doc) - set(INPUT_KEYS) - {"state"}, key=str)
    if unknown:
        raise rules.RuleError(
            N_("%(key)s is not part of a game document"),
            params={"key": unknown[0]},
            field=unknown[0],
        )
    fmt = doc.get("format")
    game_rules = doc.get("rules", {})
    if game_rules is None:
        game_rules = {}
    if not isinstance(game_rules, dict):
        raise rules.RuleError(N_("rules must be an object"), field="rules")
    game_rules = rules.normalize_rules(fmt, game_rules)
    name = check_name(doc.get("name"), fmt, game_rules)
    history = doc.get("history", [])
    check_length(history, max_events)
    state = rules.replay(fmt, game_rules, doc.get("players"), history, doc.get("first_dealer"))
    game: Game = {
        "schema": SCHEMA,
        "name": name,
        "format": state.format,
        "rules": game_rules,
        # The seats at the start; joiners are events of the history (game-json.md).
        "players": rules.check_players(doc.get("players")),
        "first_dealer": state.first_dealer,
        "history": [
            named_as_seated(clean_event(event), row)
            for event, row in zip(history, state.rows, strict=True)
        ],
    }
    return game, state


def named_as_seated(event: Event, row: Row) -> Event:
    """The event as the engine read it, to be stored: its player named as the
    engine seated them ("Kiran\tK" joins as "Kiran K"), so the history and the
    state it replays to name them alike; a custom split's shares written as
    money is ("100" and "100.0" both "100.00"), one form however they were sent."""
    if "player" in event and row.player is not None:
        event = {**event, "player": row.player}
    if event.get("type") == "split" and event.get("method") == "custom" and row.shares:
        event = {**event, "shares": {name: money(share) for name, share in row.shares.items()}}
    return event


def clean_event(event: Event) -> Event:
    """An event as the document writes it: its type first, then its fields."""
    out = {"type": event["type"]}
    for key in ("winner", "results", "rummy", "player", "after", "method", "shares"):
        if key in event:
            out[key] = event[key]
    if out.get("rummy") is False:  # absent means false (game-json.md)
        del out["rummy"]
    if out["type"] == "join":
        out.setdefault("after", None)  # absent and null both mean after the last seat
    return out


def write(game: Game, state: GameState) -> Document:
    """The whole document: the input part and the `state` the engine gives."""
    return {
        "schema": game["schema"],
        "name": game["name"],
        "format": game["format"],
        "rules": game["rules"],
        "players": game["players"],
        "first_dealer": game["first_dealer"],
        "history": game["history"],
        "state": state.document(),
    }


def loads(text: str | bytes) -> object:
    """Parse JSON text into a document, refusing what is not JSON with a clear line."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise rules.RuleError(
            N_("not a JSON document: %(error)s"), params={"error": error}, field="document"
        ) from None


def dumps(doc: object, compact: bool = False) -> str:
    """The document as text: indented, or `compact` (one line, no spaces), which
    Python's C encoder writes several times faster (a large table document)."""
    if compact:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
