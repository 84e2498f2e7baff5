"""What the game screen shows, laid out from the engine's state.

Pure presentation of figures the engine computed: nothing is scored here.
"""

from .money_format import format_money
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
        lines.append(line)
    return lines


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
            entry["cells"] = [
                {
                    "name": name,
                    "won": name == row.winner,
                    "played": name == row.winner or name in row.results,
                    "result": result_text(row.results[name]) if name in row.results else "",
                    "points": row.points.get(name),
                    "after": row.totals[name],
                    "out": name in row.went_out,
                }
                for name in names
            ]
        elif row.type == "split":
            entry["method"] = row.results.get("method")
            entry["shares"] = [(name, money(share)) for name, share in row.shares.items()]
        rows.append(entry)
    rows.reverse()
    return rows


def banner(state):
    """The game-over line, or None while the game goes on."""
    if not state.finished:
        return None
    if state.split:
        shares = ", ".join(f"{n} {format_money(s, state.rules)}" for n, s in state.split.items())
        return f"Game over: split the pot ({shares})."
    if state.winner:
        return f"{state.winner} wins!"
    return "Session ended. Settle up below."


def settlement(state):
    return [{"from": a, "to": b, "amount": money(amount)} for a, b, amount in state.settlement]


def figure_name(state):
    return {"pool": "Total", "deals": "Chips", "points": "Balance"}[state.format]
