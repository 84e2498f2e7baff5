"""A table's stats (shared/docs/tables.md), from its games' documents.

Pure Python like the rules engine: no Django, no I/O. It reads the game
documents (their `history` and the `state` the engine replayed them to);
what differs between formats, each player's money over a finished game and
who finished ahead of whom, the format object says (`table_money` and
`standing` in tracker/rules/base.py and each format's module).

    summaries = [game_summary(doc) for doc in docs]      # once per game revision
    table_stats(members, summaries)                      # the "stats" of tables.md
    money_over_time(members, summaries)                  # the chart's lines
    money_rules(summaries)                               # how the money is shown

Nothing here is stored: every figure is worked out again from the documents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from itertools import combinations
from typing import TypedDict

from ..rules import FORMATS, fewest_payments
from ..rules.base import Format
from ..rules.money_format import plays_for_money
from ..rules.shapes import Document, Rules

DROPS = ("first_drop", "middle_drop")
COUNTED = ("games", "wins", "deals", "deals_won", "drops", "wrong_shows", "full_counts")
CENT = Decimal("0.01")


class GameSummary(TypedDict):
    """What the stats need of one game document (`game_summary`)."""

    name: str
    format: str
    players: list[str]  # seat order
    status: str
    winner: str | None
    counts: dict[str, dict[str, int]]  # player -> deals, deals_won, drops, wrong_shows, ...
    money: dict[str, Decimal] | None  # a finished game's, per player; None while in progress
    for_money: bool
    whole_rupees: bool
    # Of two players in a finished game, the greater finished ahead; None while in progress.
    standing: dict[str, tuple[int, ...]] | None


class MoneyPoint(TypedDict):
    """Each member's money after one finished game (the first: everyone at 0)."""

    game: str
    money: dict[str, Decimal]


def money(amount: Decimal | int | str) -> str:
    """Money as the documents write it: a decimal string with two places."""
    return str(Decimal(amount).quantize(CENT))


def game_summary(doc: Document) -> GameSummary:
    """What the stats need of one game document, small enough to keep per revision.

    `doc` is a whole game document (input part and `state`). Returns a dict:
    format, players (seat order), status, winner, counts (per player: deals,
    deals_won, drops, wrong_shows, full_counts), money (per player, a Decimal,
    for a finished game; None while in progress) and standing (per player, a
    tuple: of two players in a finished game the greater one finished ahead).
    """
    state = doc["state"]
    fmt = doc["format"]
    spec = FORMATS[fmt]
    names = [p["name"] for p in state["players"]]
    counts = {n: dict.fromkeys(COUNTED[2:], 0) for n in names}
    last_dealt = dict.fromkeys(names, -1)
    for index, event in enumerate(doc["history"]):
        if event.get("type") != "deal":
            continue
        winner = event["winner"]
        counts[winner]["deals"] += 1
        counts[winner]["deals_won"] += 1
        last_dealt[winner] = index
        for name, result in event.get("results", {}).items():
            counts[name]["deals"] += 1
            last_dealt[name] = index
            if result in DROPS:
                counts[name]["drops"] += 1
            elif result == "wrong_show":
                counts[name]["wrong_shows"] += 1
            elif result == "full_count":
                counts[name]["full_counts"] += 1
    finished = state["status"] == "finished"
    return {
        "name": doc.get("name", ""),
        "format": fmt,
        "players": names,
        "status": state["status"],
        "winner": spec.table_winner(doc["rules"], state),
        "counts": counts,
        "money": spec.table_money(doc["rules"], state) if finished else None,
        "for_money": plays_for_money(doc["rules"]),
        "whole_rupees": str(doc["rules"].get("money_unit", "0.01")) == "1",
        "standing": _standing(spec, doc["rules"], state, last_dealt) if finished else None,
    }


def _standing(
    spec: Format, rules: Rules, state: Document, last_dealt: dict[str, int]
) -> dict[str, tuple[int, ...]]:
    """Per player a tuple; the greater of two finished ahead, equal ones level.

    The winner is ahead of everyone; the format says how the others stand.
    """
    winner = state.get("winner")
    return {
        p["name"]: (2,)
        if p["name"] == winner
        else (1, *spec.standing(rules, p, last_dealt[p["name"]]))
        for p in state["players"]
    }


def _member_of(members: Iterable[str]) -> Callable[[str], str | None]:
    by_fold = {m.casefold(): m for m in members}
    return lambda name: by_fold.get(name.casefold())


def table_stats(members: Sequence[str], summaries: Iterable[GameSummary]) -> Document:
    """The table's `stats` of tables.md: per member, the settle-up, head to head.

    `members` are the names in the table's order; `summaries` the games'
    `game_summary`, any order. Players who are not members are left out.
    """
    member = _member_of(members)
    # Each member's row of tables.md's `stats.members`, its money a Decimal until written.
    rows: dict[str, Document] = {
        m: {"name": m, **dict.fromkeys(COUNTED, 0), "money": Decimal(0)} for m in members
    }
    ahead = {pair: [0, 0] for pair in combinations(members, 2)}
    met: set[tuple[str, str]] = set()
    order = {m: i for i, m in enumerate(members)}
    for game in summaries:
        seated = {n: m for n in game["players"] if (m := member(n))}
        for name, m in seated.items():
            row = rows[m]
            row["games"] += 1
            row["wins"] += name == game["winner"]
            for key, value in game["counts"][name].items():
                row[key] += value
            if game["money"] is not None:
                row["money"] += game["money"][name]
        if game["standing"] is None:
            continue
        for x, y in combinations(seated, 2):
            a, b = sorted((x, y), key=lambda n: order[seated[n]])
            pair = (seated[a], seated[b])
            met.add(pair)
            if game["standing"][a] > game["standing"][b]:
                ahead[pair][0] += 1
            elif game["standing"][b] > game["standing"][a]:
                ahead[pair][1] += 1
    cents = {m: int(rows[m]["money"] / CENT) for m in members}
    settlement = [
        {"from": a, "to": b, "amount": money(Decimal(amount) * CENT)}
        for a, b, amount in fewest_payments(cents)
    ]
    for row in rows.values():
        row["money"] = money(row["money"])
    return {
        "members": [rows[m] for m in members],
        "settlement": settlement,
        "head_to_head": [
            {"a": a, "b": b, "a_ahead": ahead[a, b][0], "b_ahead": ahead[a, b][1]}
            for a, b in combinations(members, 2)
            if (a, b) in met
        ],
    }


def money_rules(summaries: Iterable[GameSummary]) -> dict[str, str]:
    """How the table's money is shown (the rules `format_money` reads): with the
    rupee sign when any of its games plays for money (an entry fee or a point
    value), in whole rupees when every such game keeps whole rupees. A table
    that plays for nothing shows its figures plain, as its games do."""
    paying = [game for game in summaries if game.get("for_money")]
    if not paying:
        return {"point_value": "0"}
    whole = all(game.get("whole_rupees") for game in paying)
    return {"point_value": "1", "money_unit": "1" if whole else "0.01"}


def money_over_time(members: Iterable[str], summaries: Iterable[GameSummary]) -> list[MoneyPoint]:
    """Each member's money after every finished game, oldest first.

    Returns a list of {"game": name, "money": {member: Decimal}}, starting
    from everyone at 0 before the first finished game.
    """
    member = _member_of(members)
    running = {m: Decimal(0) for m in members}
    points: list[MoneyPoint] = [{"game": "", "money": dict(running)}]
    for game in summaries:
        if game["money"] is None:
            continue
        for name, amount in game["money"].items():
            if m := member(name):
                running[m] += amount
        points.append({"game": game["name"], "money": dict(running)})
    return points


def stats_of_documents(members: Sequence[str], docs: Iterable[Document]) -> Document:
    """`table_stats` straight from game documents."""
    return table_stats(members, [game_summary(doc) for doc in docs])
