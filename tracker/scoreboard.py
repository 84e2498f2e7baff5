"""What the game screen shows, laid out from the engine's state.

Pure presentation of figures the engine computed: nothing is scored here.
"""

from html import escape

from django.utils.safestring import mark_safe

from .rules import money

SHORT_RESULTS = {
    "first_drop": "First drop",
    "middle_drop": "Middle drop",
    "full_count": "Full count",
    "wrong_show": "Wrong show",
}


def standings(state):
    """One line per seat: the figures a family reads at a glance."""
    leaders = set(state.leaders) if state.deals_played or state.format == "deals" else set()
    if state.format == "deals" and not state.deals_played:
        leaders = set()
    next_dealer = state.next_dealer
    lines = []
    for p in state.players:
        line = {
            "name": p.name,
            "seat": p.seat,
            "total": p.total,
            "out": not p.is_in,
            "deals_next": p.name == next_dealer,
            "leader": p.name in leaders and not state.split,
            "winner": p.name == state.winner,
        }
        if state.format == "pool":
            line["drops_left"] = p.drops_left
            line["no_drops"] = p.is_in and p.drops_left == 0
            line["rejoins"] = p.rejoins
            if state.split:
                line["share"] = money(state.split[p.name]) if p.name in state.split else None
        elif state.format == "deals":
            line["chips"] = p.chips
            line["tied"] = state.tie_breaker and p in state.tied
        else:
            line["balance"] = p.balance
            line["amount"] = money(state.amount(p))
        line["css"], line["badges"] = _standing_marks(line, state.finished)
        lines.append(line)
    return lines


def _standing_marks(line, finished):
    """A standing's row classes and the badges after the name, laid out here so
    the template prints them in one go (bench/README.md)."""
    css = " ".join(
        c
        for c, on in (
            ("out", line["out"]),
            ("leader", line["leader"]),
            ("no-drops", line.get("no_drops")),
            ("winner", line["winner"]),
        )
        if on
    )
    badges = []
    if line["leader"]:
        badges.append(f' <span class="badge lead">{"Winner" if finished else "Leader"}</span>')
    elif line["winner"]:
        badges.append(' <span class="badge lead">Winner</span>')
    if line["deals_next"]:
        badges.append(' <span class="badge dealer">Deals next</span>')
    if line["out"]:
        badges.append(' <span class="badge">Out</span>')
    rejoins = line.get("rejoins")
    if rejoins:
        times = f" \u00d7{int(rejoins)}" if rejoins > 1 else ""
        badges.append(f' <span class="badge">Rejoined{times}</span>')
    return css, mark_safe("".join(badges))  # safe: fixed words and a number


def result_text(result):
    if isinstance(result, str):
        return SHORT_RESULTS.get(result, result)
    return str(result)


RECENT = 12  # events the game screen lists; the rest are one tap away


def history(state, limit=None):
    """The events, newest first (the newest `limit` of them), with each
    player's result and figure after it."""
    names = [p.name for p in state.players]
    rows = []
    for row in state.rows[-limit:] if limit else state.rows:
        entry = {
            "position": row.index,
            "type": row.type,
            "number": row.number,
            "dealer": row.dealer,
            "winner": row.winner,
            "player": row.player,
            "start_total": row.start_total,
            "tie_breaker": row.tie_breaker,
            "went_out": row.went_out,
        }
        if row.type == "deal":
            entry["cells"] = _cells_html(row, names)
        elif row.type == "split":
            entry["method"] = row.results.get("method")
            entry["shares"] = [(name, money(share)) for name, share in row.shares.items()]
        rows.append(entry)
    rows.reverse()
    return rows


def _cells_html(row, names):
    """A deal row's boxes, one a player: the result, then the figure after it.

    Built here, not in the template: 6 players and 12 rows are 72 boxes, and
    the template engine took longer over them than everything else a fresh
    scoreboard costs (bench/README.md).
    """
    cells = []
    for name in names:
        won = name == row.winner
        played = won or name in row.results
        out = name in row.went_out
        if won:
            shown = "Won"
        elif played:
            shown = escape(result_text(row.results[name]))
        else:
            shown = "\u2013"  # an en dash: sat out
        css = " ".join(
            c for c, on in (("won", won), ("sat-out", not played), ("went-out", out)) if on
        )
        after = escape(str(row.totals[name]))
        badges = (DEALT if name == row.dealer else "") + (OUT if out else "")
        cells.append(
            f'<td class="{css}"><span class="res">{shown}</span>'
            f'<span class="after">{after}</span>{badges}</td>'
        )
    return mark_safe("".join(cells))  # safe: every value in it is escaped


DEALT = '<span class="badge dealer" title="dealt">D</span>'
OUT = '<span class="badge">Out</span>'


def banner(state):
    """The game-over line, or None while the game goes on."""
    if not state.finished:
        return None
    if state.split:
        shares = ", ".join(f"{n} {money(s)}" for n, s in state.split.items())
        return f"Game over: split the pot ({shares})."
    if state.winner:
        return f"{state.winner} wins!"
    return "Session ended. Settle up below."


def settlement(state):
    return [{"from": a, "to": b, "amount": money(amount)} for a, b, amount in state.settlement]


def figure_name(state):
    return {"pool": "Total", "deals": "Chips", "points": "Balance"}[state.format]
