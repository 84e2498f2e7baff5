"""A table's two charts, drawn on the server as SVG like the running totals.

Pure Python. Presentation attributes only (the Content-Security-Policy
allows no inline style); a `viewBox` 360 wide, so they fit a 360 px phone.

- `wins_svg(rows)`: one bar per member, `rect class="bar" data-member="NAME"
  data-value="WINS"`, the count at its end.
- `money_svg(members, timeline)`: one `polyline class="line"
  data-member="NAME"` per member through their money after each finished
  game (the start at 0 first), a `line class="zero"`, and a legend.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import gettext

from ..rules.money_format import format_money
from .chart import (
    COLOURS,
    DASHES,
    FONT,
    GRID,
    INK,
    MUTED,
    WIDTH,
    _attr,
    _nice_ticks,
    _num,
    _short,
    _text,
)

LEFT = 96
RIGHT = WIDTH - 28
BAR = 18
GAP = 8


def _open(height, title, desc):
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {_num(height)}" '
        f'width="100%" role="img" font-family="{_attr(FONT)}">',
        f"<title>{_text(title)}</title>",
        f"<desc>{_text(desc)}</desc>",
        f'<rect width="{WIDTH}" height="{_num(height)}" fill="#FFFFFF"/>',
    ]


def wins_svg(rows, title=None):
    """A bar per member of the games they won."""
    most = max([r["wins"] for r in rows] + [1])
    top = 28
    height = top + len(rows) * (BAR + GAP) + 12
    title = title or gettext("Wins per member")
    desc = ", ".join(f"{r['name']} {r['wins']}" for r in rows) or gettext("No members.")
    out = _open(height, title, desc)
    out.append(
        f'<text x="12" y="18" font-size="13" font-weight="bold" fill="{INK}">{_text(title)}</text>'
    )
    for i, row in enumerate(rows):
        y = top + i * (BAR + GAP)
        width = (RIGHT - LEFT) * row["wins"] / most
        colour = COLOURS[i % len(COLOURS)]
        out.append(
            f'<text x="{LEFT - 6}" y="{_num(y + BAR - 5)}" font-size="12" text-anchor="end" '
            f'fill="{INK}">{_text(_short(row["name"], LEFT - 14))}</text>'
        )
        out.append(
            f'<rect class="bar" data-member="{_attr(row["name"])}" data-value="{row["wins"]}" '
            f'x="{LEFT}" y="{_num(y)}" width="{_num(width)}" height="{BAR}" fill="{colour}"/>'
        )
        out.append(
            f'<text x="{_num(LEFT + width + 4)}" y="{_num(y + BAR - 5)}" font-size="12" '
            f'fill="{INK}">{row["wins"]}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def money_svg(members, timeline, title=None, rules=None):
    """A line per member through their money after each finished game.

    `rules` say how money is written (`stats.money_rules`): "₹1,00,000" on a
    table that plays for money, in the summary and the axis's labels."""
    title = title or gettext("Money per member over the games")
    rules = rules or {}
    games = len(timeline) - 1
    values = [float(point["money"][m]) for point in timeline for m in members] + [0.0]
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 1, high + 1
    ticks = _nice_ticks(low, high)
    low, high = min(ticks[0], low), max(ticks[-1], high)
    top, plot = 30, 150
    legend_rows = (len(members) + 1) // 2
    height = top + plot + 34 + legend_rows * 17
    whole = {**rules, "money_unit": "1"}  # the axis's round figures
    labels = {tick: format_money(tick, whole) for tick in ticks}
    # Room for the longest label at 11 px (about 6.5 px a character).
    left, right = max(48, 8 + round(6.5 * max(map(len, labels.values())))), WIDTH - 12

    def x(i):
        return left + (right - left) * (i / games if games else 0)

    def y(v):
        return top + plot - plot * (float(v) - low) / (high - low)

    last = timeline[-1]["money"]
    desc = (
        gettext("After the last finished game:")
        + " "
        + ", ".join(f"{m} {format_money(Decimal(last[m]), rules)}" for m in members)
    )
    out = _open(height, title, desc)
    out.append(
        f'<text x="12" y="18" font-size="13" font-weight="bold" fill="{INK}">{_text(title)}</text>'
    )
    out.append('<g class="grid">')
    for tick in ticks:
        out.append(
            f'<line class="tick-y" data-value="{tick}" x1="{left}" x2="{right}" '
            f'y1="{_num(y(tick))}" y2="{_num(y(tick))}" stroke="{GRID}"/>'
        )
        out.append(
            f'<text x="{left - 4}" y="{_num(y(tick) + 4)}" font-size="11" text-anchor="end" '
            f'fill="{MUTED}">{_text(labels[tick])}</text>'
        )
    out.append(
        f'<line class="zero" x1="{left}" x2="{right}" y1="{_num(y(0))}" y2="{_num(y(0))}" '
        f'stroke="{INK}"/>'
    )
    out.append("</g>")
    axis = gettext("finished games, oldest first (%(n)s)") % {"n": games}
    none_yet = gettext("No finished game yet")
    out.append(
        f'<text x="{_num((left + right) / 2)}" y="{top + plot + 16}" font-size="11" '
        f'text-anchor="middle" fill="{MUTED}">'
        f"{_text(axis)}</text>"
    )
    if not games:
        out.append(
            f'<text class="note" x="{_num((left + right) / 2)}" y="{_num(top + plot / 2)}" '
            f'font-size="12" text-anchor="middle" fill="{MUTED}">'
            f"{_text(none_yet)}</text>"
        )
    for i, m in enumerate(members):
        colour, dash = COLOURS[i % len(COLOURS)], DASHES[i % len(DASHES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        if games:
            points = " ".join(
                f"{_num(x(k))},{_num(y(point['money'][m]))}" for k, point in enumerate(timeline)
            )
            out.append(
                f'<polyline class="line" data-member="{_attr(m)}" points="{points}" fill="none" '
                f'stroke="{colour}" stroke-width="2"{dashed}><title>{_text(m)}</title></polyline>'
            )
        lx = 12 + (i % 2) * 174
        ly = top + plot + 34 + (i // 2) * 17
        out.append(
            f'<g class="key" data-member="{_attr(m)}"><line x1="{lx}" x2="{lx + 22}" '
            f'y1="{ly - 4}" y2="{ly - 4}" stroke="{colour}" stroke-width="2"{dashed}/>'
            f'<text x="{lx + 28}" y="{ly}" font-size="12" fill="{colour}">'
            f"{_text(_short(m, 140))}</text></g>"
        )
    out.append("</svg>")
    return "\n".join(out)
