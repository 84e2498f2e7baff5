"""A table as a CSV sheet for spreadsheets: its games, then who is ahead.

Pure Python, written only (a table is imported from its JSON document,
shared/docs/tables.md). RFC 4180 as the game's sheet (game_csv.py), text
cells guarded from formula injection the same way:

    table,Nani's table
    members,Asha,Ravi,Meena

    game,date,format,players,status,winner,Asha money,Ravi money,Meena money
    Diwali pool,2026-12-07,Pool 101,Asha; Ravi,finished,Asha,10.00,-10.00,
    Points rummy,2026-12-07,Points at ₹0.25,Asha; Ravi; Meena,in progress,,,,

    member,games,wins,deals,deals won,drops,wrong shows,full counts,money
    Asha,2,1,3,2,0,0,0,10.00
    ...

    pays,to,amount
    Ravi,Asha,10.00

A table that plays for fun has no money columns and no settle-up rows.
"""

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from .game_csv import guard
from .stats import GameSummary, money

COUNTS = ("games", "wins", "deals", "deals_won", "drops", "wrong_shows", "full_counts")
STATUS = {"finished": "finished", "in_progress": "in progress"}


def write_csv(
    name: str,
    members: Sequence[str],
    games: Iterable[tuple[str, str, str, GameSummary]],
    figures: dict[str, Any],
    for_money: bool,
) -> str:
    """The sheet. `games`: (name, date, format label, summary) oldest first, each
    summary a stats.game_summary; `figures`: stats.table_stats of the same games."""
    out = io.StringIO()
    sheet = csv.writer(out, lineterminator="\r\n")
    sheet.writerow(["table", guard(name)])
    sheet.writerow(["members", *map(guard, members)])
    sheet.writerow([])
    money_heads = [f"{guard(m)} money" for m in members] if for_money else []
    sheet.writerow(["game", "date", "format", "players", "status", "winner", *money_heads])
    for game_name, date, label, summary in games:
        row = [
            guard(game_name),
            date,
            guard(label),
            guard("; ".join(summary["players"])),
            STATUS.get(summary["status"], summary["status"]),
            guard(summary["winner"] or ""),
        ]
        if for_money:
            won = {n.casefold(): v for n, v in (summary["money"] or {}).items()}
            row += [money(won[m.casefold()]) if m.casefold() in won else "" for m in members]
        sheet.writerow(row)
    sheet.writerow([])
    heads = [c.replace("_", " ") for c in COUNTS] + (["money"] if for_money else [])
    sheet.writerow(["member", *heads])
    for row in figures["members"]:
        cells = [row[c] for c in COUNTS] + ([row["money"]] if for_money else [])
        sheet.writerow([guard(row["name"]), *cells])
    if for_money and figures["settlement"]:
        sheet.writerow([])
        sheet.writerow(["pays", "to", "amount"])
        for pay in figures["settlement"]:
            sheet.writerow([guard(pay["from"]), guard(pay["to"]), pay["amount"]])
    return out.getvalue()
