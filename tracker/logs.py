"""Logs that give nobody a game: a link's token is written shortened.

A game's or a table's link is its token (`/g/<edit token>/`, `/w/<view
token>/`, `/t/...`, `/tw/...`), so a log file shared for help would hand out
the game. Every line gunicorn writes (the access log's request line and
Referer, the error log; tracker/serving.py) and every line Django logs
(`Not Found: /g/.../`, settings.LOGGING) passes through `ShortLinks`, which
keeps the first three characters of a token: `/g/Abc…/deal/`.
"""

import logging
import re

# A segment after /g/, /w/, /t/ or /tw/, anywhere in a line (a Referer too).
LINK = re.compile(r"(/(?:g|w|t|tw)/)([^/\s?#\"'<>]{3})[^/\s?#\"'<>]+")


def shorten(text):
    return LINK.sub(r"\1\2…", text)


class ShortLinks(logging.Filter):
    """Rewrites a record's message with every link's token shortened."""

    def filter(self, record):
        message = record.getMessage()
        short = shorten(message)
        if short != message:
            record.msg, record.args = short, ()
        return True
