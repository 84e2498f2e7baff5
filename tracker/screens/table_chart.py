"""A table's two charts, as plain data for templates/tracker/table_chart.svg.

Pure Python like the running totals (chart.py); the template draws them with
presentation attributes only (the Content-Security-Policy allows no inline
style), in a `viewBox` 360 wide, so they fit a 360 px phone.

- `wins(rows)`: one bar per member, `rect class="bar" data-member="NAME"
  data-value="WINS"`, the count at its end.
- `money(members, timeline)`: one `polyline class="line"
  data-member="NAME"` per member through their money after each finished
  game (the start at 0 first), a `line class="zero"`, and a legend.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import gettext, gettext_lazy

from ..rules.money_format import format_money
from .chart import DASHES, FONT, WIDTH, nice_ticks, num, palette, short, xml_text

LEFT = 96
RIGHT = WIDTH - 28
BAR = 18
GAP = 8


TITLES = {
    "wins": gettext_lazy("Wins per member"),
    "money": gettext_lazy("Money per member over the games"),
}


def _chart(kind, height, title, summary, theme, **drawn):
    """What both charts have: the frame, the title (the kind's own if none is
    given), the summary for screen readers."""
    return {
        "kind": kind,
        "colours": palette(theme)[0],
        "font": FONT,
        "width": WIDTH,
        "height": num(height),
        "title": xml_text(title or TITLES[kind]),
        "summary": xml_text(summary),
        **drawn,
    }


def wins(rows, title=None, theme="light"):
    """A bar per member of the games they won; `theme` "dark" draws it on black."""
    seat_colours = palette(theme)[1]
    most = max([r["wins"] for r in rows] + [1])
    top = 28
    height = top + len(rows) * (BAR + GAP) + 12
    summary = ", ".join(f"{r['name']} {r['wins']}" for r in rows) or gettext("No members.")
    bars = []
    for i, row in enumerate(rows):
        y = top + i * (BAR + GAP)
        width = (RIGHT - LEFT) * row["wins"] / most
        bars.append(
            {
                "name": xml_text(row["name"]),
                "shown": xml_text(short(row["name"], LEFT - 14)),
                "wins": row["wins"],
                "colour": seat_colours[i % len(seat_colours)],
                "y": num(y),
                "text_y": num(y + BAR - 5),
                "width": num(width),
                "count_x": num(LEFT + width + 4),
            }
        )
    return _chart(
        "wins", height, title, summary, theme, bars=bars, left=LEFT, name_x=LEFT - 6, bar_height=BAR
    )


def money(members, timeline, title=None, rules=None, theme="light"):
    """A line per member through their money after each finished game.

    `rules` say how money is written (`stats.money_rules`): "₹1,00,000" on a
    table that plays for money, in the summary and the axis's labels."""
    rules = rules or {}
    seat_colours = palette(theme)[1]
    games = len(timeline) - 1
    values = [float(point["money"][m]) for point in timeline for m in members] + [0.0]
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 1, high + 1
    ticks = nice_ticks(low, high)
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
    summary = (
        gettext("After the last finished game:")
        + " "
        + ", ".join(f"{m} {format_money(Decimal(last[m]), rules)}" for m in members)
    )
    lines = []
    for i, m in enumerate(members):
        key_x, key_y = 12 + (i % 2) * 174, top + plot + 34 + (i // 2) * 17
        lines.append(
            {
                "name": xml_text(m),
                "shown": xml_text(short(m, 140)),
                "colour": seat_colours[i % len(seat_colours)],
                "dash": DASHES[i % len(DASHES)],
                # "x,y x,y ...", from the start at 0 to the last finished game.
                "points": " ".join(
                    f"{num(x(k))},{num(y(point['money'][m]))}" for k, point in enumerate(timeline)
                ),
                "key_x": key_x,
                "key_x2": key_x + 22,
                "text_x": key_x + 28,
                "key_y": key_y,
                "line_y": key_y - 4,
            }
        )
    return _chart(
        "money",
        height,
        title,
        summary,
        theme,
        left=left,
        right=right,
        label_x=left - 4,
        ticks=[
            {"value": tick, "label": labels[tick], "y": num(y(tick)), "label_y": num(y(tick) + 4)}
            for tick in ticks
        ],
        zero=num(y(0)),
        middle=num((left + right) / 2),
        axis=gettext("finished games, oldest first (%(n)s)") % {"n": games},
        axis_y=top + plot + 16,
        games=games,
        note=gettext("No finished game yet"),
        note_y=num(top + plot / 2),
        lines=lines,
    )
