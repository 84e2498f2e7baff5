"""What a phone says aloud after a change, worded here in the reader's language.

The figures are the replayed state's; what the change was is the game's note
of its latest change (`Game.last_change`: {"change": "added", "event": "deal",
"n": 3}), a note, not a figure. The page carries the sentence on its board
(templates/tracker/game.html, `data-said`) and static/tracker.js speaks it
only when a board comes in after a change, never for a page opened.
Numbers are written as figures, so the phone's voice reads a total as a
number ("one hundred and one"), not digit by digit.
"""

from django.utils.translation import gettext, ngettext

from ..i18n import full_stop
from ..rules.state import GameState, Row
from . import scoreboard


def sentence(state: GameState, change: object) -> str:
    """The few sentences said for the latest change `change` at `state`, or ""
    for a change that moved no score (or none noted)."""
    change = change if isinstance(change, dict) else {}
    kind, event = change.get("change"), change.get("event")
    parts = []
    if event == "deal" and kind == "added":
        parts.append(_deal_won(state, change.get("n")))
        parts += _went_out(state, change.get("n"))
    elif event == "deal" and kind == "changed":
        parts.append(gettext("Deal %(n)s corrected.") % {"n": change.get("n")})
        parts.append(_deal_won(state, change.get("n")))
        parts += _went_out(state, change.get("n"))
    elif event == "deal" and kind == "undone":
        parts.append(gettext("Deal %(n)s undone.") % {"n": change.get("n")})
    elif kind == "added" and event == "rejoin":
        rejoined = [r for r in state.rows if r.type == "rejoin" and r.player == change.get("name")]
        if rejoined:
            words = gettext("%(name)s rejoined at %(total)s")
            text = words % {"name": rejoined[-1].player, "total": rejoined[-1].start_total}
            parts.append(full_stop(text))
    elif kind == "undone" and event in ("rejoin", "join", "sit_out", "sit_in", "leave"):
        parts.append(gettext("%(name)s's change undone.") % {"name": change.get("name")})
    elif kind == "undone" and event in ("split", "end"):
        parts.append(gettext("The game goes on again."))
    elif not (kind == "added" and event in ("split", "end")):
        # Someone joined, sat out, came back or left; a game put back: the
        # board shows it, and nothing about the score moved to be said.
        return ""
    if state.finished:
        parts.append(scoreboard.banner(state) or "")
    else:
        parts += _may_rejoin(state)
        parts.append(_leaders(state))
        parts.append(_deals_left(state))
    return " ".join(part for part in parts if part)


def _deal_row(state: GameState, number: object) -> Row | None:
    for row in reversed(state.rows):
        if row.type == "deal" and row.number == number:
            return row
    return None


def _deal_won(state: GameState, number: object) -> str:
    """Deal N: who won it (basic: went rummy)."""
    row = _deal_row(state, number)
    if row is None or not row.winner:
        return ""
    if row.rummy:
        text = gettext("Deal %(n)s: %(name)s went rummy.")
    else:
        text = gettext("Deal %(n)s: %(name)s won.")
    return text % {"n": number, "name": row.winner}


def _went_out(state: GameState, number: object) -> list[str]:
    """Pool: who went out in deal N, and at what total."""
    row = _deal_row(state, number)
    if row is None:
        return []
    return [
        gettext("%(name)s is out at %(total)s.") % {"name": name, "total": row.totals.get(name)}
        for name in row.went_out
    ]


def _may_rejoin(state: GameState) -> list[str]:
    """Pool: who may rejoin now, and at what total."""
    start = state.rejoin_total()
    return [
        gettext("%(name)s may rejoin at %(total)s.") % {"name": name, "total": start}
        for name in state.can_rejoin
    ]


def _leaders(state: GameState) -> str:
    """Who leads, with the figure of the format (a pool total, chips, a balance)."""
    if not state.deals_played or state.split:
        return ""
    leaders = [state.seated(name) for name in state.leaders]
    if not leaders:
        return ""
    figure = state.spec.figure(state, leaders[0])
    if len(leaders) == 1:
        return gettext("%(name)s leads with %(figure)s.") % {
            "name": leaders[0].name,
            "figure": figure,
        }
    return gettext("%(names)s are level at %(figure)s.") % {
        "names": ", ".join(p.name for p in leaders),
        "figure": figure,
    }


def _deals_left(state: GameState) -> str:
    """Deals (and basic played over a set number of deals): how many are left."""
    left = state.deals_left
    if not left:
        return ""
    return ngettext("%(n)s deal left.", "%(n)s deals left.", left) % {"n": left}
