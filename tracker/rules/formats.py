"""The registry: every format the tracker scores, by the name a game document uses.

Adding a format is a module with a `Format` subclass (see base.py) and one
line here; the model's choices, the new-game screen, the scoreboard, the
chart, the document and the CSV all read this dict.
"""

from __future__ import annotations

from collections import OrderedDict

from . import basic, deals, points, pool
from .base import Format, Preset

# An ordered mapping, so that tests can draw a format from it (hypothesis samples
# only from ordered collections).
FORMATS: OrderedDict[str, Format] = OrderedDict(
    (spec.name, spec) for spec in (pool.FORMAT, deals.FORMAT, points.FORMAT, basic.FORMAT)
)

# Every preset of the new-game screen, in order: key -> (preset, format).
PRESETS: dict[str, tuple[Preset, Format]] = {
    preset.key: (preset, spec) for spec in FORMATS.values() for preset in spec.presets
}


def format_names() -> str:
    """The formats as a refusal lists them: "pool, deals or points"."""
    names = list(FORMATS)
    return ", ".join(names[:-1]) + " or " + names[-1]
