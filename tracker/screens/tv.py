"""The TV screen's layout: one card a player, read from across the room.

Plain data from what the game screen already lays out (scoreboard.standings
and scoreboard.history); templates/tracker/tv.html draws it.
"""

from collections.abc import Sequence
from typing import Any


def players(
    standings: Sequence[dict[str, Any]], columns: Sequence[str], history: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Per player: the name and badges, the big figure (the board's first column),
    the other columns with their names (drops left, a share), and what they
    scored in the last deal."""
    last = next((row for row in history if row["type"] == "deal"), None)
    cards = []
    for index, line in enumerate(standings):
        cells = line["cells"]
        box = last["boxes"][index] if last and index < len(last["boxes"]) else None
        cards.append(
            {
                "name": line["name"],
                "classes": line["classes"],
                "badges": line["badges"],
                "figure": cells[0]["text"] if cells else line["total"],
                "more": list(zip(columns[1:], cells[1:], strict=False)),
                "last": box["shown"] if box else "",
                "won_last": bool(box and "won" in box["classes"]),
            }
        )
    return {"cards": cards, "last_deal": last["number"] if last else None}
