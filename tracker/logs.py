"""Logs that give nobody a game: a link's token is written shortened.

A game's or a table's link is its token (`/g/<edit token>/`, `/w/<view
token>/`, `/t/...`, `/tw/...`), so a log file shared for help would hand out
the game. Every line gunicorn writes (the access log's request line and
Referer, the error log; tracker/serving.py) and every line Django logs
(`Not Found: /g/.../`, settings.LOGGING) passes through `ShortLinks`, which
keeps the first three characters of a token: `/g/Abc…/deal/`.

The server reads `/%67/<token>/` as `/g/<token>/`, so a line is shortened as
it is read: its percent-escapes decoded first (again, while any are left) (those that decode to a
control character, which would forge a line, are left as they are), and the
links' letters and slashes taken as the server takes them.
"""

import logging
import re
from urllib.parse import unquote

# A segment after /g/, /w/, /t/ or /tw/, anywhere in a line (a Referer too).
LINK = re.compile(r"(/(?:g|w|t|tw)/+)([^/\s?#\"'<>]{3})[^/\s?#\"'<>]+", re.IGNORECASE)
ESCAPED = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _decoded(escaped):
    text = unquote(escaped.group(), errors="replace")
    return escaped.group() if CONTROL.search(text) else text


def shorten(text):
    for _ in range(4):  # "%2567" is "%67" is "g": decoded until nothing changes
        decoded = ESCAPED.sub(_decoded, text)
        if decoded == text:
            break
        text = decoded
    return LINK.sub(r"\1\2…", text)


class ShortLinks(logging.Filter):
    """Rewrites a record's message with every link's token shortened."""

    def filter(self, record):
        message = record.getMessage()
        short = shorten(message)
        if short != message:
            record.msg, record.args = short, ()
        return True
