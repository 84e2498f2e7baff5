"""What counts as untranslated English on a Hindi page.

A page in Hindi may still show player and game names (typed by the family),
digits, the rupee sign and punctuation, a few words that are the same in
both languages (file types, the app's own short names), and codes: cards
(AS, 10H) and the column letters of a CSV file. Any other word of
ASCII letters in the visible text is English that was not translated.
"""

import re
from html.parser import HTMLParser

# Words a Hindi page shows as they are: file formats and codes written in
# Latin letters in Hindi too, the card ranks, and the language switch.
KEPT = {
    "English",
    "JSON",
    "CSV",
    "QR",
    "UTF",
    "json",
    "csv",
    "A",
    "J",
    "Q",
    "K",
    "PJ",
    "first_drop",
    "middle_drop",
    "full_count",
    "wrong_show",
}
WORD = re.compile("[A-Za-z0-9]*[A-Za-z][A-Za-z'\u2019]*")
# Codes a Hindi page shows in Latin letters as the card players type them: a
# card (AS, 10H, KD), a suit or rank letter (S, H, D, C, T) and a spreadsheet's
# column letter (C, K) in a CSV refusal. A lone "I" or "a" is English.
CODE = re.compile(r"(?:A|[2-9]|10|T|J|Q|K)[SHDC]|[A-HJ-Z]")


def english_words(text, names=()):
    """The ASCII words of `text` that are neither names nor kept words."""
    allowed = set(KEPT)
    for name in names:
        allowed.update(WORD.findall(name))
    return [w for w in WORD.findall(text) if w not in allowed and not CODE.fullmatch(w)]


class VisibleText(HTMLParser):
    """The text a reader sees or hears: text nodes outside script, style and
    template, and the alt, title, placeholder and aria-label attributes."""

    HIDDEN = {"script", "style"}
    SPOKEN = ("alt", "title", "placeholder", "aria-label")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.chunks = []

    def handle_starttag(self, tag, attrs):
        if tag in self.HIDDEN:
            self.depth += 1
        elif not self.depth:
            for key, value in attrs:
                if key in self.SPOKEN and value:
                    self.chunks.append(value)

    def handle_endtag(self, tag):
        if tag in self.HIDDEN and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth and data.strip():
            self.chunks.append(data.strip())


def visible_text(html):
    parser = VisibleText()
    parser.feed(html)
    return parser.chunks


def untranslated(html, names=()):
    """Each visible chunk of `html` with English words left in it."""
    found = []
    for chunk in visible_text(html):
        words = english_words(chunk, names)
        if words:
            found.append(f"{chunk!r}: {' '.join(words)}")
    return found
