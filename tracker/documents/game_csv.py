"""A game as CSV, for spreadsheets, and back.

Pure Python like the rules engine. `write_csv` turns a game document's
input part (shared/docs/game-json.md) and its replayed state into CSV text;
`read_csv` turns that text back into the input part, so
`game_json.read(read_csv(write_csv(game, state)))` gives back `game`.
`load_csv` does both steps of an import and says which CSV row and column
a refused event comes from.

The file (RFC 4180: commas, double quotes, CRLF line ends) has a few
key/value rows, one row per table rule, a blank row, then the table:

    schema,rummy-tracker.game/1
    game,Sunday pool at Nani's
    format,pool
    players,Asha,Ravi,Om
    first dealer,Asha
    rule pool_limit,101
    rule out_at,reach
    ...
    rule entry_fee,50
    rule rejoin,true
    rule rejoin_cutoff,79
    rule max_rejoins,none
    rule max_drops,none
    rule money_unit,0.01

    event,deal,dealer,winner,detail,Asha result,Ravi result,Om result,Asha total,Ravi total,Om total
    deal,1,Asha,Asha,,,34,first_drop,0,34,20
    deal,2,Ravi,Om,out: Ravi,60,80,,60,114,20
    rejoin,,,,Ravi,,,,60,61,20
    split,,,,custom,50.00,60.00,90.00,60,61,20

A game where someone joined has an `after` column after `detail`, and
result and total columns for the joiner too:

    event,deal,dealer,winner,detail,after,Asha result,Dev result,Ravi result,Asha total,...
    deal,1,Asha,Asha,,,,,30,0,,30
    join,,,,Dev,Asha,,,,0,31,30

A Points or Basic game played for money (a point value above 0) has a
`NAME money` column for each player after the totals: what the player
wins (or, negative, pays) as the settlement has it. In points that is the
balance times the point value after every event; in basic the money is
settled once, at the end, so only the row that ends the game has it:

    rule point_value,0.25
    ...
    event,deal,dealer,winner,detail,Om result,Dev result,Om total,Dev total,Om money,Dev money
    deal,1,Om,Om,,,12,12,-12,3.00,-3.00

Key/value rows (the first must be `schema`; keys are read ignoring case):

- `schema`: `rummy-tracker.game/1`.
- `game`: the game's name. `format`: one of the registry's formats
  (`tracker.rules.FORMATS`: pool, deals, points, basic).
- `players`: the names in seat order, one a cell.
- `first dealer`: the first deal's dealer.
- `rule NAME`: one row per table rule, every rule filled in, in the
  format's order (`rule_keys`), then the calculator's house rules a table
  changed: the rule's name as the game document writes it in column A,
  its value in column B. A yes/no rule is `true` or `false`, a rule
  without a limit `none` (a blank cell reads as none too), money a
  decimal string. A value is read as the type of that rule's default, so
  `50` is money for `entry_fee` and a number for `pool_limit`. A key per
  row, rather than one cell, so a family reads and changes a rule in a
  spreadsheet as they read the game's other rows.
- `rules`: files written before the `rule` rows kept the table rules as
  one JSON object in one cell; they are still read. A rule given in both
  is refused as given twice.

The table: a header row, then one row per event of the history, in order.
Columns: `event`, `deal`, `dealer`, `winner`, `detail`, (`after`, only when
someone joined), then `NAME result` for each player in seat order, then
`NAME total` for each player, then (points and basic for money) `NAME
money` for each player. The players are everyone seated by the end,
joiners included, in their seat order then; the `players` row stays the
seats at the start.

- `event` is `deal`, `rejoin`, `split`, `end`, `join`, `sit_out`, `sit_in`
  or `leave`.
- A deal row has the deal's number, its dealer, its winner, and each loser's
  result as entered: a whole number or first_drop, middle_drop, full_count,
  wrong_show. The winner's result cell is blank, and so is the cell of a
  player not in that deal (out of a pool game, or not in a tie-breaker).
  `detail` notes `tie-breaker`, `rummy` (a Basic Rummy deal won by going
  rummy) and who went `out:`, separated by `; `.
- A rejoin row has the rejoining player's name in `detail`.
- A split row has the method (drops, equal or custom) in `detail`, blank
  when the history gave none (the engine's default, drops), and each
  player's share of the pot in their result column.
- An end row (points: the family ended the session) has nothing more.
- A join row has the new player's name in `detail` and the player they sit
  after in `after` (blank: after the last seat). A sit_out, sit_in or leave
  row has the player's name in `detail`. A joiner's cells are blank in the
  rows before they joined.
- The total columns of every row hold the figure after that event that
  the format charts (`Format.figure`): the pool total, the chips in deals,
  the balance in points, the total in basic. The money columns hold plain
  decimal strings with two places, as the game document writes money.

What `read_csv` reads: the key/value and rule rows, `event`, `winner` and
the result columns of deal rows (and a `rummy` note in their `detail`),
`detail` of rejoin, split, join, sit_out, sit_in and leave rows, `after`
of join rows, and the result columns of a custom split (the shares, read
as decimal strings as the document writes money: a share a document gave
as a JSON number comes back as the same amount written as a string). The
rest (deal numbers, dealers, totals, money, the detail of deal rows but
its `rummy` note, the shares of a drops or equal split) is what the
tracker worked out: `read_csv` checks the numbers are numbers but
otherwise ignores them, and `game_json.read` works them out again from
the history. The `deal`, `dealer`, total and money columns may be left out
of a hand-made file, and so may a rule row (the rule takes its default);
every other column must be there. Blank rows are skipped, and so are
blank cells past the last column (spreadsheets pad rows). A leading byte
order mark is allowed.

Formula injection: a spreadsheet runs a cell starting with `=`, `+`, `-`
or `@` as a formula. So every text cell that comes from a person (the
game's name, player names in the players row, the headers, dealer, winner,
detail and a rule's value) is written with a leading `'` when it starts
with one of those characters, or when it starts with `'` followed by one
of them or by another `'`; `read_csv` removes that one `'` again. Numbers
are written as numbers: a negative balance stays `-12`, a payment `-3.00`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Sequence
from typing import NotRequired, TypedDict

from ..rules import (
    CARD_RULES,
    EVENT_TYPES,
    FORMATS,
    RESULT_WORDS,
    SPLIT_METHODS,
    RuleError,
    money,
    normalize_rules,
)
from ..rules.shapes import Document, Event, Rules
from ..rules.state import GameState
from ..rules.table import N_, Phrase, plain_amount
from . import game_json
from .game_json import Game

SCHEMA = game_json.SCHEMA
FIXED_COLUMNS = ("event", "deal", "dealer", "winner", "detail")
JOIN_COLUMN = "after"  # written only when someone joined
REQUIRED_FIXED = ("event", "winner", "detail")
PARTS = {"result": "results", "total": "totals", "money": "money"}  # `NAME result` ...
NAMED_EVENTS = ("join", "sit_out", "sit_in", "leave")  # the player in `detail`
KEYS = {
    "schema": "schema",
    "game": "name",
    "format": "format",
    "rules": "rules",  # the old form: every rule in one JSON cell
    "players": "players",
    "first dealer": "first_dealer",
}
RULE = "rule "  # a rule row's key: `rule entry_fee`
NO_LIMIT = "none"  # a rule's null: no limit, no target
FORMULA_START = ("=", "+", "-", "@")
# Up to 12 digits: more than any figure of a game, and safely under int()'s limit.
WHOLE = re.compile(r"[+-]?[0-9]{1,12}")


# ---------------------------------------------------------------- formula guard


def guard(text: object) -> str:
    """A text cell safe from formula injection: see the module docstring."""
    text = "" if text is None else str(text)
    if text.startswith(FORMULA_START) or (
        text.startswith("'") and text[1:2] in (*FORMULA_START, "'")
    ):
        return "'" + text
    return text


def unguard(cell: str) -> str:
    """The text `guard` was given: one leading `'` before `=+-@'` removed."""
    if cell.startswith("'") and cell[1:2] in (*FORMULA_START, "'"):
        return cell[1:]
    return cell


# ---------------------------------------------------------------- writing


def _cell(value: object) -> object:
    return "" if value is None else value


def _rule_cell(value: object) -> str:
    """A rule's value as its cell: true/false, none, or the number or words."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return NO_LIMIT
    return guard(value)


def _rule_order(fmt: str, game_rules: Rules) -> list[str]:
    """The rules' keys in the format's order, then any other (the house rules)."""
    keys = FORMATS[fmt].rule_keys if fmt in FORMATS else ()
    return [key for key in keys if key in game_rules] + [
        key for key in game_rules if key not in keys
    ]


def write_csv(game_doc: Game, state: GameState) -> str:
    """The game as CSV text (see the module docstring for the layout).

    `game_doc` is the input part of the game document as `game_json.read`
    returns it; `state` is the GameState replayed from it.
    """
    history = game_doc.get("history") or []
    # Everyone seated by the end, joiners included, in their seat order then.
    players = [p.name for p in state.players]
    joined = any(event["type"] == "join" for event in history)
    fixed = (*FIXED_COLUMNS, JOIN_COLUMN) if joined else FIXED_COLUMNS
    money_rows = state.spec.money_rows(state)
    paying = players if money_rows is not None else []
    if money_rows is None:
        money_rows = [{}] * len(state.rows)
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\r\n")
    out.writerow(["schema", SCHEMA])
    out.writerow(["game", guard(game_doc.get("name") or "")])
    out.writerow(["format", game_doc["format"]])
    out.writerow(["players", *(guard(name) for name in game_doc["players"])])
    out.writerow(["first dealer", guard(game_doc.get("first_dealer") or "")])
    game_rules = game_doc.get("rules") or {}
    for key in _rule_order(game_doc["format"], game_rules):
        out.writerow([RULE + key, _rule_cell(game_rules[key])])
    out.writerow([])
    out.writerow(
        [
            *fixed,
            *(guard(f"{name} result") for name in players),
            *(guard(f"{name} total") for name in players),
            *(guard(f"{name} money") for name in paying),
        ]
    )
    for event, row, paid in zip(history, state.rows, money_rows, strict=True):
        kind = event["type"]
        number: int | str | None = ""  # a deal's number
        dealer = winner = detail = after = ""
        cells = dict.fromkeys(players, "")
        if kind == "deal":
            number, dealer, winner = row.number, guard(row.dealer), guard(event["winner"])
            notes = ["tie-breaker"] if row.tie_breaker else []
            if row.rummy:
                notes.append("rummy")
            if row.went_out:
                notes.append("out: " + ", ".join(row.went_out))
            detail = "; ".join(notes)
            cells.update({name: _cell(value) for name, value in event["results"].items()})
        elif kind == "rejoin" or kind in NAMED_EVENTS:
            detail = guard(event["player"])
            after = guard(event.get("after") or "")
        elif kind == "split":
            detail = event.get("method") or ""
            if detail == "custom":
                cells.update({name: _cell(value) for name, value in event["shares"].items()})
            else:
                cells.update({name: money(share) for name, share in (row.shares or {}).items()})
        out.writerow(
            [
                kind,
                number,
                dealer,
                winner,
                detail,
                *([after] if joined else []),
                *(cells[name] for name in players),
                *(_cell(row.totals.get(name)) for name in players),
                *(paid.get(name, "") for name in paying),
            ]
        )
    return buffer.getvalue()


# ---------------------------------------------------------------- reading


def column_letter(index: int) -> str:
    """The spreadsheet's name for a 0-based column: 0 -> A, 26 -> AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _where(
    row: int | str, column: int | None = None, name: str | None = None, label: str | None = None
) -> Phrase:
    """The place in the file, as a Phrase the import screen translates:
    "row 7", "row 7 (deal 2)", "row 7, column C (winner)"."""
    if label:
        row = Phrase(N_("%(row)s (%(label)s)"), {"row": row, "label": label})
    if column is None:
        return Phrase(N_("row %(row)s"), {"row": row})
    params = {"row": row, "column": column_letter(column), "name": name}
    if name:
        return Phrase(N_("row %(row)s, column %(column)s (%(name)s)"), params)
    return Phrase(N_("row %(row)s, column %(column)s"), params)


def _placed(where: str, why: str) -> RuleError:
    """A refusal at a place: "row 7, column C (winner): ..."; `why` a Phrase too."""
    return RuleError(N_("%(where)s: %(why)s"), params={"where": where, "why": why})


def _refuse(
    message: str, row: int, column: int | None = None, name: str | None = None, **params: object
) -> RuleError:
    """The refusal `message` (English marked N_, with %(name)s places for
    `params`) at a row, and column, of the file: each part translated at the edge."""
    return _placed(_where(row, column, name), Phrase(message, params))


class _Places(TypedDict):
    """Where the parts of the document came from in the file, by row number."""

    events: list[int]  # each event's row
    keys: dict[str, int]  # a key/value row's field -> its row
    rules: dict[str, tuple[int, str]]  # a rule -> its row and its label as written
    header: NotRequired[_Table]
    known_rules: NotRequired[set[str]]  # the rules of the game's format


def _last_filled(cells: Sequence[str]) -> int:
    end = len(cells)
    while end and not cells[end - 1]:
        end -= 1
    return end


class _Table:
    """The header: which column holds what."""

    def __init__(self, cells: list[str], number: int, players: list[str]) -> None:
        self.names: dict[int, str] = {}  # column index -> header name as written (unguarded)
        self.fixed: dict[str, int] = {}  # fixed column -> index
        self.results: dict[str, int] = {}  # player -> index
        self.totals: dict[str, int] = {}  # player -> index
        self.money: dict[str, int] = {}  # player -> index (points and basic played for money)
        self.joiners: dict[str, int] = {}  # a player not in the players row -> the header's column
        self.row = number
        wanted = {key: ("fixed", key) for key in (*FIXED_COLUMNS, JOIN_COLUMN)}
        for name in players:
            wanted[f"{name} result".casefold()] = ("results", name)
            wanted[f"{name} total".casefold()] = ("totals", name)
            wanted[f"{name} money".casefold()] = ("money", name)
        for index, raw in enumerate(cells[: _last_filled(cells)]):
            label = unguard(raw)
            if not label:
                raise _refuse(
                    N_("this header cell is blank: every column needs its name"), number, index
                )
            key = label.casefold()
            name, _, ending = label.rpartition(" ")
            joiners_part = PARTS.get(ending.casefold())
            if key not in wanted and name and joiners_part:
                # A joiner's column: the join row must name them (checked after the table).
                wanted[key] = (joiners_part, name)
                self.joiners.setdefault(name, index)
            if key not in wanted:
                raise _refuse(
                    N_(
                        "%(label)s is not a column of a game CSV: the columns are "
                        "event, deal, dealer, winner, detail, after (when someone joined), "
                        "then NAME result, NAME total and (points and basic) NAME money "
                        "for each player in the players row"
                    ),
                    number,
                    index,
                    label=repr(label),
                )
            part, what = wanted[key]
            place = getattr(self, part)
            if what in place:
                raise _refuse(N_("%(label)s is a column twice"), number, index, label=repr(label))
            place[what] = index
            self.names[index] = label
        for key in REQUIRED_FIXED:
            if key not in self.fixed:
                raise _refuse(N_("the %(key)s column is missing"), number, key=repr(key))
        for name in players:
            if name not in self.results:
                raise _refuse(
                    N_("the %(key)s column is missing"), number, key=repr(f"{name} result")
                )
        self.width = _last_filled(cells)

    def get(self, cells: list[str], index: int | None) -> str:
        if index is None or index >= len(cells):
            return ""
        return cells[index]


def _whole(text: str, row: int, column: int | None, name: str | None) -> int:
    if not WHOLE.fullmatch(text):
        raise _refuse(N_("%(text)s is not a whole number"), row, column, name, text=repr(text))
    return int(text)


def _result(text: str, row: int, column: int | None, name: str | None) -> int | str:
    if WHOLE.fullmatch(text):
        return int(text)
    word = re.sub(r"[\s-]+", "_", text.casefold())
    if word in RESULT_WORDS:
        return word
    raise _refuse(
        N_(
            "%(text)s is not a result: give points (a whole number), first_drop, middle_drop, "
            "full_count or wrong_show"
        ),
        row,
        column,
        name,
        text=repr(text),
    )


def _amount(text: str, row: int, column: int | None, name: str | None) -> str:
    """An amount cell (a share, money): a plain amount, as the engine reads one."""
    if plain_amount(text) is None:
        raise _refuse(
            N_("%(text)s is not an amount such as 120 or 62.50"), row, column, name, text=repr(text)
        )
    return text


def _rows(text: object) -> Iterator[tuple[int, list[str]]]:
    """(row number, cells stripped) for every row of the CSV text."""
    if not isinstance(text, str):
        raise RuleError(N_("a game CSV is text"))
    text = text.removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    number = 0
    try:
        for number, cells in enumerate(reader, start=1):
            yield number, [cell.strip() for cell in cells]
    except csv.Error as error:
        raise _refuse(N_("not a CSV file: %(error)s"), number + 1, error=error) from None


def _read(text: object) -> tuple[Document, _Places]:
    """read_csv's work, also giving where each event, key/value and rule row came from."""
    doc: Document = {"schema": None}
    places: _Places = {"events": [], "keys": {}, "rules": {}}
    table = None
    history = []
    started = False
    for number, cells in _rows(text):
        if not any(cells):
            continue
        if not started:
            started = True
            if cells[0].casefold() != "schema" or len(cells) < 2:
                raise _refuse(
                    N_("not a game CSV of this tracker: it must start with schema,%(schema)s"),
                    number,
                    schema=SCHEMA,
                )
        if table is None:
            key = cells[0].casefold().replace("_", " ")
            if key == "event":
                if "players" not in doc:
                    raise _refuse(N_("the players row must come before the table"), number)
                table = _Table(cells, number, doc["players"])
                places["header"] = table
                continue
            if key.startswith(RULE) and key.removeprefix(RULE).strip():
                _rule_row(doc, places, key, cells, number)
            else:
                _key_row(doc, places, key, cells, number)
            continue
        history.append(_event_row(table, cells, number))
        places["events"].append(number)
    if not started:
        raise _refuse(
            N_("the file is empty: a game CSV starts with schema,%(schema)s"), 1, schema=SCHEMA
        )
    if table is None:
        raise RuleError(N_("the table of events is missing: its header row starts with event"))
    joined = {event["player"] for event in history if event["type"] == "join"}
    for name, index in table.joiners.items():
        if name not in joined:
            raise _refuse(
                N_(
                    "%(label)s is not a column of this game: %(player)s is neither in "
                    "the players row nor named by a join row"
                ),
                table.row,
                index,
                label=repr(table.names[index]),
                player=name,
            )
    _type_rules(doc, places)
    doc["history"] = history
    return doc, places


def _rule_row(doc: Document, places: _Places, key: str, cells: list[str], number: int) -> None:
    """A `rule NAME` row: the value kept as text until the format is known."""
    label = cells[0]
    name = "_".join(key.removeprefix(RULE).split())
    values = cells[1 : _last_filled(cells)]
    if len(values) > 1:
        raise _refuse(N_("%(key)s takes one value, in column B"), number, 2, key=label)
    game_rules = doc.setdefault("rules", {})
    if name in game_rules:
        raise _refuse(N_("%(key)s is given twice"), number, 0, key=repr(label))
    game_rules[name] = unguard(values[0]) if values else ""
    places["rules"][name] = (number, label)


def _type_rules(doc: Document, places: _Places) -> None:
    """Read each rule row's text as the type of that rule's default."""
    fmt = doc.get("format")
    spec = FORMATS.get(fmt) if isinstance(fmt, str) else None
    if spec is None or not places["rules"]:
        return  # no rule rows, or game_json.read refuses the format first
    defaults = normalize_rules(spec.name, {})
    if spec.calculator:
        defaults = {**CARD_RULES, **defaults}
    places["known_rules"] = set(defaults)
    for name in places["rules"]:
        doc["rules"][name] = _rule_value(doc["rules"][name], defaults.get(name, ""))


def _rule_value(text: str, default: object) -> str | bool | int | None:
    """A rule's cell as the type its rule takes: words, true or false, or a
    whole number or none. Anything else stays text, for the rules to refuse
    by the rule's name."""
    if isinstance(default, str):
        return text  # words, and money as the document writes it: "50", "0.25"
    word = text.casefold()
    if isinstance(default, bool):
        return {"true": True, "false": False}.get(word, text)
    if word in ("", NO_LIMIT, "null"):
        return None
    return int(text) if WHOLE.fullmatch(text) else text


def _key_row(doc: Document, places: _Places, key: str, cells: list[str], number: int) -> None:
    if key not in KEYS:
        raise _refuse(
            N_(
                "%(key)s is not a key of a game CSV: the rows before the table are "
                "schema, game, format, players, first dealer and rule NAME (one row per "
                "table rule), then the header row starting with event"
            ),
            number,
            0,
            key=repr(cells[0]),
        )
    field = KEYS[key]
    if field in places["keys"]:
        raise _refuse(N_("%(key)s is given twice"), number, 0, key=repr(cells[0]))
    places["keys"][field] = number
    values = cells[1 : _last_filled(cells)]
    if field == "players":
        seen = set()
        for index, value in enumerate(values, start=1):
            if not value:
                raise _refuse(N_("a player needs a name"), number, index)
            key = " ".join(unguard(value).split()).casefold()
            if key in seen:
                raise _refuse(
                    N_("%(player)s is in the players row twice"),
                    number,
                    index,
                    player=unguard(value),
                )
            seen.add(key)
        doc["players"] = [unguard(value) for value in values]
        return
    if len(values) > 1:
        raise _refuse(N_("%(key)s takes one value, in column B"), number, 2, key=cells[0])
    value = values[0] if values else ""
    if field == "schema":
        if value != SCHEMA:
            raise _refuse(N_('schema must be "%(schema)s"'), number, 1, schema=SCHEMA)
        doc["schema"] = value
    elif field == "rules":
        if not value:
            doc.setdefault("rules", {})
            return
        try:
            rules = json.loads(value)
        except (ValueError, RecursionError) as error:
            raise _refuse(N_("the rules are not JSON: %(error)s"), number, 1, error=error) from None
        if not isinstance(rules, dict):
            raise _refuse(N_("the rules must be a JSON object"), number, 1)
        game_rules = doc.setdefault("rules", {})
        for name in rules:
            if name in game_rules:
                raise _refuse(N_("%(key)s is given twice"), number, 1, key=repr(RULE + name))
        game_rules.update(rules)
    elif field == "format":
        doc["format"] = value
    else:
        doc[field] = unguard(value) or None


def _event_row(table: _Table, cells: list[str], number: int) -> Event:
    extra = _last_filled(cells)
    if extra > table.width:
        raise _refuse(N_("this cell is past the last column of the header"), number, extra - 1)

    def cell(index: int | None) -> str:
        return table.get(cells, index)

    def named(index: int | None) -> tuple[int, int | None, str | None]:
        return number, index, None if index is None else table.names.get(index)

    kind_at = table.fixed["event"]
    kind = cell(kind_at).casefold()
    if kind not in EVENT_TYPES:
        shown = cell(kind_at)
        if shown:
            why = Phrase(N_("%(text)s is not an event"), {"text": repr(shown)})
        else:
            why = Phrase(N_("the event is missing"))
        raise _refuse(
            N_("%(why)s: give deal, rejoin, split, end, join, sit_out, sit_in or leave"),
            *named(kind_at),
            why=why,
        )

    for index in (table.fixed.get("deal"), *table.totals.values()):
        if cell(index):
            _whole(cell(index), *named(index))
    for index in table.money.values():
        if cell(index):
            _amount(cell(index), *named(index))

    winner_at = table.fixed["winner"]
    detail_at = table.fixed["detail"]
    winner = unguard(cell(winner_at))
    detail = unguard(cell(detail_at))
    if kind == "deal":
        if not winner:
            raise _refuse(N_("a deal needs its winner"), *named(winner_at))
        results = {}
        for name, index in table.results.items():
            if cell(index):
                results[name] = _result(cell(index), *named(index))
        event: Event = {"type": "deal", "winner": winner, "results": results}
        if "rummy" in (note.strip().casefold() for note in detail.split(";")):
            event["rummy"] = True
        return event

    if winner:
        raise _refuse(
            N_("a %(kind)s row has no winner: leave it blank"), *named(winner_at), kind=kind
        )
    filled = {name: index for name, index in table.results.items() if cell(index)}
    after_at = table.fixed.get(JOIN_COLUMN)
    after = unguard(cell(after_at))
    if after and kind != "join":
        raise _refuse(
            N_("a %(kind)s row has no after: leave it blank"), *named(after_at), kind=kind
        )
    if kind in NAMED_EVENTS:
        if not detail:
            raise _refuse(N_("a %(kind)s row names the player here"), *named(detail_at), kind=kind)
        if filled:
            index = next(iter(filled.values()))
            raise _refuse(
                N_("a %(kind)s row has no results: leave them blank"), *named(index), kind=kind
            )
        named_event: Event = {"type": kind, "player": detail}
        if kind == "join":
            named_event["after"] = after or None
        return named_event
    if kind == "rejoin":
        if not detail:
            raise _refuse(N_("a rejoin row names the player who rejoins here"), *named(detail_at))
        if filled:
            index = next(iter(filled.values()))
            raise _refuse(N_("a rejoin row has no results: leave them blank"), *named(index))
        return {"type": "rejoin", "player": detail}
    if kind == "split":
        split: Event = {"type": "split"}
        if detail:
            method = detail.casefold()
            if method not in SPLIT_METHODS:
                raise _refuse(
                    N_("%(text)s is not a split method: give drops, equal or custom"),
                    *named(detail_at),
                    text=repr(detail),
                )
            split["method"] = method
        shares = {name: _amount(cell(index), *named(index)) for name, index in filled.items()}
        if split.get("method") == "custom":
            split["shares"] = shares
        return split
    if detail:
        raise _refuse(N_("an end row has no detail: leave it blank"), *named(detail_at))
    if filled:
        index = next(iter(filled.values()))
        raise _refuse(N_("an end row has no results: leave them blank"), *named(index))
    return {"type": "end"}


def read_csv(text: object) -> Document:
    """The game document's input part from CSV text that `write_csv` wrote.

    Results that are whole numbers come back as ints, result words as
    strings. Raises RuleError, its message naming the row and column, for
    what is not such a file: another CSV, an unknown key or column, a bad
    number, a result that is neither points nor a result word, ... The rules
    of the game (who may win, what a rejoin needs) are checked by
    `game_json.read`, or by `load_csv`, which names the row of the event.
    """
    doc, _ = _read(text)
    return doc


FIELD_KEYS = ("schema", "name", "format", "rules", "players", "first_dealer")


def load_csv(text: object, max_events: int | None = None) -> tuple[Game, GameState]:
    """Read CSV text and replay it: (game, state) as `game_json.read` gives.

    A refusal of the engine is raised again as a RuleError whose message
    starts with the CSV row (and column, when the field maps to one) of the
    event, key/value or rule row it is about. `max_events` as `game_json.read`'s.
    """
    doc, places = _read(text)
    try:
        return game_json.read(doc, max_events)
    except RuleError as error:
        raise _relocate(error, places) from None


def _relocate(error: RuleError, places: _Places) -> RuleError:
    field = error.field or ""
    if error.event is not None and error.event < len(places["events"]):
        number = places["events"][error.event]
        table = places["header"]
        head, _, rest = field.partition(".")
        index = None
        if head in ("results", "shares") and rest in table.results:
            index = table.results[rest]
        elif head in ("winner", "type"):
            index = table.fixed["winner" if head == "winner" else "event"]
        elif head in ("player", "method"):
            index = table.fixed["detail"]
        elif head == "after":
            index = table.fixed.get(JOIN_COLUMN)
        name = table.names[index] if index is not None else None
        where = _where(number, index, name, label=error.label)
        return _placed(where, Phrase(error.template, error.params))
    head = re.split(r"[.\[]", field, maxsplit=1)[0]
    rule = field.removeprefix("rules.") if head == "rules" else None
    if rule in places["rules"]:
        number, label = places["rules"][rule]
        why = Phrase(error.template, error.params)
        if rule not in places.get("known_rules", ()):
            return _placed(_where(number, 0), why)  # no such rule: its name is wrong
        return _placed(_where(number, 1, label), why)
    if head in FIELD_KEYS and head in places["keys"]:
        number = places["keys"][head]
        column = 1
        seat = re.fullmatch(r"players\[(\d+)\]", field)
        if seat:
            column = int(seat.group(1)) + 1
        why = Phrase(error.template, error.params)
        if error.player and not error.message.startswith(f"{error.player} "):
            why = Phrase(N_("%(player)s: %(why)s"), {"player": error.player, "why": why})
        if field != head:
            why = Phrase("%(field)s: %(why)s", {"field": field, "why": why})
        return _placed(_where(number, column), why)
    return RuleError(str(error))
