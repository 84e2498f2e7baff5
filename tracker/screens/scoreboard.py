"""What the game screen shows, laid out from the engine's state as plain data.

Pure presentation of figures the engine computed: nothing is scored here,
and no markup is made here either: templates/tracker/game.html draws it.
The columns, badges and lines that differ between formats come from the
game's format object (`state.spec`, see tracker/rules/base.py), so the
template loops over them and never names a format.
"""

from collections.abc import Sequence
from decimal import Decimal
from typing import TypedDict, TypeVar

from django.utils.translation import gettext

from ..i18n import phrase
from ..rules import FORMATS, MAX_PLAYERS, RESULT_LABELS, money
from ..rules.money_format import format_money
from ..rules.shapes import Badge, Cell, Result
from ..rules.state import GameState, Row

SHORT_RESULTS = dict(RESULT_LABELS)
RECENT = 12  # events the game screen lists; the rest are one tap away

Words = TypeVar("Words", str, str | None)


class SeatChange(TypedDict):
    """A player's changes of seat the game screen offers (points)."""

    name: str
    away: bool  # sits out now: offered to come back in
    can_go: bool  # may sit out or leave (at least two must stay dealt in)
    # What its buttons say to a screen reader, and the question before leaving.
    back_or_out: str  # "Back in Ravi" when away, else "Sit out Ravi"
    leave: str
    leave_question: str
    leave_yes: str


class Seating(TypedDict):
    """Who may join, sit out, come back or leave now (`seating`)."""

    joinable: bool
    join_note: str
    players: list[SeatChange]
    sits_out: bool
    away: bool


def said(text: Words) -> Words:
    """Words of the format module in the reader's language: a Phrase with its
    places, or words marked N_ (plain English words are looked up too)."""
    if not text or not isinstance(text, str):
        return text
    if hasattr(text, "template"):
        return phrase(text)
    return gettext(text)


def format_label(format_name: str) -> str:
    """The format's name in the reader's language ("Pool", "Deals")."""
    return said(FORMATS[format_name].label) if format_name in FORMATS else format_name


def standings(state: GameState) -> list[dict[str, object]]:
    """One line per seat: the figures a family reads at a glance, and the
    badges beside the name (leader or winner, who deals next, the format's own)."""
    spec = state.spec
    leaders = set(state.leaders) if state.deals_played else set()
    next_dealer = state.next_dealer
    lines = []
    for p in state.players:
        line: dict[str, object] = {
            "name": p.name,
            "seat": p.seat,
            "total": p.total,
            "out": p.status == "out",  # out of a pool game
            "away": p.status in ("sitting_out", "left"),  # points: not dealt in, balance kept
            "deals_next": p.name == next_dealer,
            "leader": p.name in leaders and not state.split,
            "winner": p.name == state.winner,
        }
        line["cells"] = [_cell(c) for c in spec.cells(state, p, line)]
        classes = ["out"] if line["out"] else []
        classes += ["away"] if line["away"] else []
        classes += ["leader"] if line["leader"] else []
        classes += spec.row_classes(state, p)
        classes += ["winner"] if line["winner"] else []
        line["classes"] = " ".join(classes)
        line["badges"] = _name_badges(line, state, spec.badges(state, p))
        lines.append(line)
    return lines


def _name_badges(line: dict[str, object], state: GameState, own: list[Badge]) -> list[Badge]:
    """(text, CSS classes) of each badge after a standing's name. A finished game
    without a winner (a points session) has no "Winner": the top balance is only that."""
    badges = []
    if line["leader"]:
        if not state.finished:
            badges.append((gettext("Leader"), "badge lead"))
        elif state.winner:
            badges.append((gettext("Winner"), "badge lead"))
        else:
            badges.append((gettext("Top balance"), "badge lead"))
    elif line["winner"]:
        badges.append((gettext("Winner"), "badge lead"))
    if line["deals_next"]:
        badges.append((gettext("Deals next"), "badge dealer"))
    badges += [(said(text), f"badge {kind}" if kind else "badge") for text, kind in own]
    return badges


def _cell(cell: Cell) -> Cell:
    """A cell with its badge in the reader's language, or None (the template asks for it)."""
    badge = cell.get("badge")
    if badge:
        text, kind = badge
        return {**cell, "badge": (said(text), kind)}
    return {**cell, "badge": None}


def seating(state: GameState, pot_after_join: str) -> Seating:
    """Who may join, sit out, come back or leave now (rules.md "People come and go").

    `joinable`: whether "Add a player" is offered; `join_note` says why not, or
    what a joiner starts at in pool. `players`: per player the changes offered.
    """
    spec = state.spec
    out: Seating = {
        "joinable": False,
        "join_note": "",
        "players": [],
        "sits_out": spec.sits_out,
        "away": False,  # someone sits out: the list is shown open
    }
    if state.finished:
        return out
    if spec.takes_joins:
        why = spec.join_refusal(state)
        if len(state.players) >= MAX_PLAYERS:
            why = gettext("a game has at most %(n)s players") % {"n": MAX_PLAYERS}
        if why:
            out["join_note"] = gettext("Nobody can join now: %(why)s.") % {"why": said(why)}
        else:
            out["joinable"] = True
            # Pool: a joiner starts at H + 1 and pays in; points: balance 0, nothing to say.
            start = spec.join_total(state)
            notes = [gettext("A new player starts at %(n)s") % {"n": start}] if start else []
            if pot_after_join != money(state.pot):
                pot = format_money(pot_after_join, state.rules)
                notes.append(gettext("the pot becomes %(pot)s") % {"pot": pot})
            note = "; ".join(notes)
            out["join_note"] = note[:1].upper() + note[1:] + "." if note else ""
    if spec.sits_out:
        dealt_in = len(state.in_players)
        for p in state.players:
            if p.status == "left":
                continue
            away = p.status == "sitting_out"
            named = {"name": p.name}
            out["players"].append(
                {
                    "name": p.name,
                    "away": away,
                    # At least two must stay dealt in.
                    "can_go": p.status != "in" or dealt_in > 2,
                    "back_or_out": (
                        gettext("Back in %(name)s") if away else gettext("Sit out %(name)s")
                    )
                    % named,
                    "leave": gettext("Leave %(name)s") % named,
                    "leave_question": gettext(
                        "%(name)s goes home for good? Their balance stays in the settlement."
                    )
                    % named,
                    "leave_yes": gettext("Yes, %(name)s leaves") % named,
                }
            )
        out["away"] = any(p["away"] for p in out["players"])
    return out


def layout(state: GameState, pot: str) -> dict[str, object]:
    """The parts of the board that differ between formats, for the template."""
    spec = state.spec
    return {
        "meta": said(spec.meta(state, pot)),
        "columns": [said(c) for c in spec.columns(state)],
        "tie_note": said(spec.tie_breaker_note(state)) if state.tie_breaker else None,
        "settles": spec.settles or bool(state.settlement),
        "settlement_note": said(spec.settlement_note(state)),
    }


def result_text(result: Result) -> str:
    if isinstance(result, str):
        return said(SHORT_RESULTS.get(result, result))
    return str(result)


def history(
    state: GameState, event_ids: Sequence[int], limit: int | None = None
) -> list[dict[str, object]]:
    """The events, newest first (the newest `limit` of them). A deal has a box
    a player: its result, the figure after it, whether they dealt or went out.
    `event_ids` are the stored events' ids, in the history's order."""
    names = [p.name for p in state.players]
    rows = []
    for row in state.rows[-limit:] if limit else state.rows:
        entry: dict[str, object] = {
            "event_id": event_ids[row.index],
            "type": row.type,
            "number": row.number,
            "player": row.player,
            "start_total": row.start_total,
            "tie_breaker": row.tie_breaker,
        }
        if row.type == "deal":
            entry["boxes"] = _boxes(row, names, said(state.spec.won_label(row)))
            entry["edit_label"] = gettext("Edit deal %(n)s") % {"n": row.number}
        elif row.type == "join":
            assert row.player is not None  # a join names who joins
            if row.after:
                seat = gettext("after %(name)s") % {"name": row.after}
            else:
                seat = gettext("at the end of the table")
            figure = f"{gettext(state.spec.figure_name).lower()} {row.totals.get(row.player)}"
            entry["text"] = gettext("%(name)s joined, %(seat)s (%(figure)s)") % {
                "name": row.player,
                "seat": seat,
                "figure": figure,
            }
        elif row.type == "split":
            entry["method"] = row.results.get("method")
            entry["shares"] = [(name, money(share)) for name, share in (row.shares or {}).items()]
        rows.append(entry)
    rows.reverse()
    return rows


def _boxes(row: Row, names: list[str], won_label: str) -> list[dict[str, object]]:
    """A deal's box a player: the result (a dash for who was not dealt in), then
    the figure after it (none before a joiner sat down)."""
    boxes: list[dict[str, object]] = []
    for name in names:
        won = name == row.winner
        played = won or name in row.results
        if won:
            shown = won_label
        elif played:
            shown = result_text(row.results[name])
        else:
            shown = "\u2013"  # an en dash: sat out
        after = row.totals.get(name)
        classes = [k for k, on in (("won", won), ("sat-out", not played)) if on]
        classes += ["went-out"] if name in row.went_out else []
        boxes.append(
            {
                "shown": shown,
                "after": "" if after is None else str(after),
                "classes": " ".join(classes),
                "dealt": name == row.dealer,
                "went_out": name in row.went_out,
            }
        )
    return boxes


def deal_summary(state: GameState, row: Row) -> str | None:
    """One line for a deal, as the other phone saved it: "deal 3: Meena won; Asha 2, Ravi 3"."""
    if row.type != "deal":
        return None
    results = ", ".join(f"{name} {result_text(result)}" for name, result in row.results.items())
    return gettext("deal %(n)s: %(winner)s won; %(results)s.") % {
        "n": row.number,
        "winner": row.winner,
        "results": results,
    }


def banner(state: GameState) -> str | None:
    """The game-over line, or None while the game goes on."""
    if not state.finished:
        return None
    if state.split:
        shares = ", ".join(f"{n} {format_money(s, state.rules)}" for n, s in state.split.items())
        return gettext("Game over: split the pot (%(shares)s).") % {"shares": shares}
    if state.winner:
        if state.pot:
            pot = format_money(money(state.pot), state.rules)
            return gettext("%(name)s wins the pot of %(pot)s!") % {"name": state.winner, "pot": pot}
        won: Decimal | int = sum(amount for _, to, amount in state.settlement if to == state.winner)
        won -= sum(amount for paid, _, amount in state.settlement if paid == state.winner)
        if won > 0 and state.spec.settles:  # basic for money: paid at the end, below
            amount = format_money(money(won), state.rules)
            return gettext("%(name)s wins and is paid %(amount)s in all!") % {
                "name": state.winner,
                "amount": amount,
            }
        if won > 0:  # deals for money: the prize is every entry fee, the winner's own too
            fee = Decimal(state.rules.get("entry_fee", "0"))
            return gettext(
                "%(name)s wins the prize of %(prize)s: %(net)s more than the %(fee)s entry fee!"
            ) % {
                "name": state.winner,
                "prize": format_money(money(won + fee), state.rules),
                "net": format_money(money(won), state.rules),
                "fee": format_money(money(fee), state.rules),
            }
        return gettext("%(name)s wins!") % {"name": state.winner}
    return gettext("Session ended. Settle up below.")


def rejoin_notes(state: GameState) -> list[str]:
    """Why each player who is out is not offered a rejoin now ("Ravi can't rejoin: ...")."""
    if state.finished:
        return []
    offered = set(state.can_rejoin)
    notes = []
    for p in state.players:
        if p.status != "out" or p.name in offered:
            continue
        why = state.rejoin_refusal(p.name)
        if why:
            notes.append(
                gettext("%(name)s can't rejoin: %(why)s.") % {"name": p.name, "why": said(why)}
            )
    return notes


def what_moved(before: GameState, after: GameState, changed: int) -> str | None:
    """What a correction at history index `changed` moved besides that deal,
    for the notice after it ("Ravi's rejoin start moved 66 → 71"), or None."""
    lines = []
    for old, new in zip(before.rows, after.rows, strict=False):
        if old.index == changed:
            continue
        if old.type == "rejoin" and old.start_total != new.start_total:
            moved = gettext("%(name)s's rejoin start moved %(old)s → %(new)s")
            lines.append(
                moved % {"name": old.player, "old": old.start_total, "new": new.start_total}
            )
    for was, now in zip(before.players, after.players, strict=False):
        if was.status != now.status:
            if now.status == "out":
                lines.append(gettext("%(name)s is now out") % {"name": now.name})
            elif was.status == "out":
                lines.append(gettext("%(name)s is back in") % {"name": now.name})
    if before.winner != after.winner:
        if after.winner:
            lines.append(gettext("%(name)s now wins the game") % {"name": after.winner})
        else:
            lines.append(gettext("the game is no longer over"))
    if not lines:
        return None
    text = "; ".join(lines)
    return gettext("Saved. %(what)s.") % {"what": text[:1].upper() + text[1:]}


def figure_name(state: GameState) -> str:
    return gettext(state.spec.figure_name)


def figure_plural(state: GameState) -> str:
    """The figure's name in the plural, for "Chart of the totals" (chips stay chips)."""
    name = state.spec.figure_name.lower()
    translated = gettext(state.spec.figure_name)
    if translated != state.spec.figure_name:
        return translated  # Hindi has no -s plural to add
    return name if name.endswith("s") else f"{name}s"


def settlement(state: GameState) -> list[dict[str, str]]:
    """Who pays whom, and how much."""
    return [
        {"from": payer, "to": payee, "amount": money(amount)}
        for payer, payee, amount in state.settlement
    ]
