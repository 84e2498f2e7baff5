"""The running-totals chart: one line per player over the deals.

Pure Python like the rules engine: `running_totals` reads a
`rules.GameState` and returns the chart as plain data (coordinates already
written as numbers, labels, colours, legend rows), which
templates/tracker/chart.svg draws; the view serves it as `image/svg+xml` and
the game page shows it as an image.

The site's Content-Security-Policy is `style-src 'self'`, so the SVG has no
`style` attribute and no `<style>` element: every look is a presentation
attribute (`stroke`, `fill`, `stroke-dasharray`, `font-size`, ...).

Structure (all coordinates in a `viewBox` 360 wide, `width="100%"`, so it
scales to a 360 px phone and up; the height grows with the legend):

- `<title>` and `<desc>` first: the chart's name and the figures after the
  last deal, for screen readers.
- `g class="grid"`: one `line class="tick-y" data-value="N"` per y tick
  (light grid line) with its label, and `line class="zero"` when the range
  crosses 0 (points balances).
- `g class="axes"`: the two axis lines, `text class="tick-x"` deal numbers
  along the bottom (`data-value` the deal number), the axis names.
- where the format draws one (`Format.chart_line`: the pool limit, Basic
  Rummy's target): `line class="limit" data-value="VALUE"`, dashed, with a
  label.
- one `polyline class="line" data-player="NAME"` per player, in seat order,
  with a `<title>` holding the name; see `running_totals` for its points.
- `path class="out" data-player="NAME"`: a cross where a deal put a player
  out of a pool game; `circle class="rejoin" data-player="NAME"`: a ring at
  the total a rejoiner starts at, drawn at the deal after which they
  rejoined. Each has a `<title>` saying what happened.
- `g class="legend"`: per player a `g class="key" data-player="NAME"` with a
  sample of the line and the name in the player's colour.
- with no deal yet: `text class="note"` in the plot and no lines.

The palette has 10 colours chosen to stay apart under the common colour
vision deficiencies (checked by simulation) with a contrast of at least
4.5:1 on white, so the names in the legend read as text; each player also
has their own dash pattern, so no line depends on colour alone. The dark
theme's 10 (`DARK_COLOURS`, on black: `palette("dark")`) are the same hues
lightened, 7.6:1 or better on black; the page asks for its theme's chart.
"""

from __future__ import annotations

import math
import re

from django.utils.translation import gettext, ngettext

from ..i18n import phrase

# Seat order: blue, vermillion, bluish green, near black, reddish purple,
# violet, brown, indigo, crimson, olive.
COLOURS = (
    "#0072B2", "#C24E00", "#00795B", "#222222", "#A8447F",
    "#8A2BE2", "#612800", "#32289F", "#D4004F", "#5A7A00",
)  # fmt: skip
DASHES = (
    None, "7 3", "2 3", "9 3 2 3", "4 4",
    "12 4", "2 2 6 2", "7 2 2 2 2 2", "1 4", "10 3 3 3 3 3",
)  # fmt: skip
# Every other colour the charts draw with, in one place: the templates read
# them as `colours.paper` and so on.
LIGHT = {"paper": "#FFFFFF", "ink": "#222222", "muted": "#555555", "grid": "#DDDDDD"}
# The dark theme's: the same values as static/tracker.css's
# dark --chart-*, on black. Each player's colour is 7.6:1 or better on it, so
# the legend's names read as text; the same hues in the same seats, lightened.
DARK_COLOURS = (
    "#56B4E9", "#E69F00", "#2EC4A0", "#E8EAED", "#E07BB0",
    "#B38BFF", "#D2A679", "#8C9EFF", "#FF6B8B", "#A5C93A",
)  # fmt: skip
DARK = {"paper": "#000000", "ink": "#E8EAED", "muted": "#A7AFB7", "grid": "#3B4148"}
# A chart is drawn in the theme of the page that shows it ("light" unless "dark").
THEMES = {"light": (LIGHT, COLOURS), "dark": (DARK, DARK_COLOURS)}


def palette(theme):
    """(the chart's colours, the players' colours) of the theme: light unless "dark"."""
    return THEMES.get(theme, THEMES["light"])


WIDTH = 360
PLOT_HEIGHT = 150
RIGHT = WIDTH - 12
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
# Generous average advances of a letter, to fit text without measuring it.
CHAR_WIDTH = 6.4  # font-size 11
LEGEND_CHAR = 7.0  # font-size 12
TITLE_CHAR = 8.0  # font-size 13, bold
LEGEND_ROW = 17

# Characters XML 1.0 does not allow, and lone surrogates that UTF-8 cannot
# encode: a title is any text, and a game document may hold them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value):
    """The text with what XML cannot hold replaced by U+FFFD; the template escapes the rest."""
    return _NOT_XML.sub("\ufffd", str(value))


def num(value):
    """A coordinate: at most one decimal, no trailing `.0`."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def short(name, width, char_width=LEGEND_CHAR):
    """The text, cut with an ellipsis to fit `width` px."""
    most = max(3, int(width // char_width))
    return name if len(name) <= most else name[: most - 1] + "\u2026"


def nice_ticks(low, high, most=6):
    """Whole-number ticks covering [low, high]: steps of 1, 2, 2.5 or 5 x 10^k."""
    span = high - low
    power = 10 ** max(0, math.floor(math.log10(span)) - 1)
    while True:
        for mantissa in (1, 2, 2.5, 5):
            step = mantissa * power
            if step != int(step):
                continue
            step = int(step)
            first = math.floor(low / step)
            last = math.ceil(high / step)
            if last - first <= most:
                return [k * step for k in range(first, last + 1)]
        power *= 10


def _deal_ticks(deals, most=7):
    """Deal numbers to label: 0 to `deals` in a round step, at most `most` + 1 of them."""
    if deals <= 0:
        return [0]
    power = 1
    while True:
        for mantissa in (1, 2, 5):
            step = mantissa * power
            if deals // step <= most:
                return list(range(0, deals + 1, step))
        power *= 10


def _series(state):
    """Per player the figure at the start and after each deal, and the markers.

    Returns (points, outs, rejoins, deals): `points` maps each name to a list
    of deals + 1 figures (None for the deals before a joiner sat down); `outs`
    and `rejoins` are lists of (name, deal, figure).
    """
    names = [p.name for p in state.players]
    start = state.spec.chart_start(state.rules)
    joiners = {row.player for row in state.rows if row.type == "join"}
    points = {name: [start] if name not in joiners else [] for name in names}
    outs, rejoins = [], []
    deals = 0
    for row in state.rows:
        if row.type == "join":
            # A joiner's line starts where they sat down: None for the deals before.
            points[row.player] = [None] * deals + [row.totals[row.player]]
        elif row.type == "deal":
            deals += 1
            totals = row.totals
            for name in names:
                if points[name]:
                    points[name].append(totals[name])
            for name in row.went_out:
                outs.append((name, deals, totals[name]))
        elif row.type == "rejoin":
            rejoins.append((row.player, deals, row.start_total))
    return points, outs, rejoins, deals


def running_totals(state, *, title=None, theme="light"):
    """The running figure per player over the deals, as the data chart.svg draws.

    The figure is the one `row.totals` holds: the pool total, the chips in
    deals, the balance in points. With D deals played, each player's
    `polyline class="line"` has exactly D + 1 points: the start (deal 0: 0 in
    pool and points, the starting chips in deals) and the figure after each
    deal row, in order. A player who joined after deal J has D + 1 - J: the
    figure they joined at, drawn at deal J, then one per deal. Rejoins, splits,
    sit-outs and an end add no point (a rejoin's new total shows in the next
    deal's point and as a `class="rejoin"` ring).
    With no deal played there are no lines: the axes, a note and the legend.

    The y range always includes 0, every figure drawn, and the format's line
    (the pool limit, basic's target: a dashed `class="limit"` line).

    `theme` "dark" draws it on black in the dark colours (`palette`).
    """
    colours, seat_colours = palette(theme)
    spec = state.spec
    names = [xml_text(p.name) for p in state.players]
    points, outs, rejoins, deals = _series(state)
    line = spec.chart_line(state.rules)  # (value, title, label): the pool limit, a target
    limit = line[0] if line else None

    values = [v for series in points.values() for v in series if v is not None]
    low = min([0, *values])
    high = max([0, *values, *(v for _, _, v in rejoins)])
    if limit is not None:
        high = max(high, limit)
    if high == low:  # nothing but zeros yet: a small range above (and in points below) 0
        high += 10
        low -= 10 if spec.chart_below_zero else 0
    ticks = nice_ticks(low, high)
    y_low, y_high = ticks[0], ticks[-1]

    heading = 20 if title else 0
    top = heading + 22
    bottom = top + PLOT_HEIGHT
    label_width = max(len(str(t)) for t in ticks) * CHAR_WIDTH
    left = round(max(30.0, 10 + label_width))
    plot_width = RIGHT - left
    x_scale = plot_width / max(deals, 1)
    y_scale = PLOT_HEIGHT / (y_high - y_low)

    def x_of(deal):
        return left + deal * x_scale

    def y_of(value):
        return bottom - (value - y_low) * y_scale

    # The legend: as many columns as the longest name allows (3, 2 or 1).
    longest = max(len(name) for name in names)
    columns = 1
    for count in (3, 2):
        if 26 + longest * LEGEND_CHAR <= (WIDTH - 16) / count:
            columns = count
            break
    column_width = (WIDTH - 16) / columns
    legend_top = bottom + 50
    height = round(legend_top + math.ceil(len(names) / columns) * LEGEND_ROW + 2)

    figure = gettext(spec.figure_name)
    if deals:
        lasts = (series[-1] for series in points.values())
        last = ", ".join(f"{name} {value}" for name, value in zip(names, lasts, strict=True))
        summary = ngettext(
            "%(figure)s per player over %(n)s deal.",
            "%(figure)s per player over %(n)s deals.",
            deals,
        ) % {"figure": figure, "n": deals}
        summary += " " + gettext("After deal %(n)s: %(last)s.") % {"n": deals, "last": last}
    else:
        summary = gettext("No deals yet.")

    seat = {p.name: i % len(COLOURS) for i, p in enumerate(state.players)}
    x_ticks = []
    for deal in _deal_ticks(deals):
        x = label_x = num(x_of(deal))
        # A label that would run off the right edge ends at the edge instead.
        anchor = "middle"
        if x_of(deal) + len(str(deal)) * CHAR_WIDTH / 2 > WIDTH - 2:
            label_x, anchor = num(WIDTH - 2), "end"
        x_ticks.append({"value": deal, "x": x, "label_x": label_x, "anchor": anchor})
    xs = [num(x_of(d)) for d in range(deals + 1)]
    out_after = gettext("%(name)s out after deal %(deal)s at %(value)s")
    rejoined_at = gettext("%(name)s rejoined after deal %(deal)s at %(value)s")

    def marker(name, deal, value, words):
        x, y = x_of(deal), y_of(value)
        return {
            "name": xml_text(name),
            "deal": deal,
            "colour": seat_colours[seat[name]],
            "title": words % {"name": xml_text(name), "deal": deal, "value": value},
            "x": num(x),
            "y": num(y),
            # The cross of an elimination: two strokes through (x, y).
            "cross": f"M{num(x - 4)},{num(y - 4)}L{num(x + 4)},{num(y + 4)}"
            f"M{num(x - 4)},{num(y + 4)}L{num(x + 4)},{num(y - 4)}",
        }

    players = []
    for i, (name, series) in enumerate(zip(names, points.values(), strict=True)):
        key_x = 8 + (i % columns) * column_width
        key_y = legend_top + (i // columns) * LEGEND_ROW
        players.append(
            {
                "name": name,
                "shown": short(name, column_width - 30),
                "colour": seat_colours[i % len(seat_colours)],
                "dash": DASHES[i % len(DASHES)],
                # "x,y x,y ...": a joiner's line starts at the deal they sat down.
                "points": " ".join(
                    f"{x},{num(y_of(v))}" for x, v in zip(xs, series, strict=True) if v is not None
                ),
                "key_x1": num(key_x),
                "key_x2": num(key_x + 20),
                "text_x": num(key_x + 25),
                "key_y": key_y,
                "line_y": key_y - 4,
            }
        )

    return {
        "colours": colours,
        "font": FONT,
        "width": WIDTH,
        "height": height,
        "title": xml_text(title or gettext(spec.chart_title)),
        "summary": summary,
        "heading": short(xml_text(title), WIDTH - 16, TITLE_CHAR) if title else None,
        "left": left,
        "right": RIGHT,
        "top": top,
        "bottom": bottom,
        "tick_end": bottom + 4,
        "tick_label_y": bottom + 16,
        "middle": num(left + plot_width / 2),
        "deal_word": gettext("Deal"),
        "deal_word_y": bottom + 30,
        "figure": figure,
        "figure_y": top - 8,
        "y_label_x": left - 5,
        "y_ticks": [
            {"value": tick, "y": num(y_of(tick)), "label_y": num(y_of(tick) + 4)} for tick in ticks
        ],
        "zero": num(y_of(0)) if y_low < 0 < y_high else None,
        "x_ticks": x_ticks,
        "limit": {
            "value": limit,
            "y": num(y_of(limit)),
            "label_x": left + 4,
            "label_y": num(y_of(limit) - 4),
            "title": phrase(line[1]),
            "label": phrase(line[2]),
        }
        if line
        else None,
        "note_y": num(top + PLOT_HEIGHT / 2),
        "deals": deals,
        "players": players,
        "outs": [marker(*out, out_after) for out in outs],
        "rejoins": [marker(*rejoin, rejoined_at) for rejoin in rejoins],
    }
