"""What counts as English on a page in Hindi, Tamil or Telugu.

A translated page may still show player and game names (typed by the family),
digits, the rupee sign and punctuation, a few words that are the same in
every language (file types, codes), and codes: cards (AS, 10H) and the column
letters of a CSV file. Any other word of ASCII letters in the visible text is
English that was not translated.

Where a family says the English word (rummy, drop, points), the page writes it
in the family's script: each language's README lists those under "Kept words".
`english_share` counts both on a page: the words in Latin letters, which a
page is held to a share of, and the kept words, for the record.
"""

import re
from html.parser import HTMLParser
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"
# The translated languages (English is the source), and the name each calls itself.
TRANSLATED = ("hi", "ta", "te")
NAMES = {"en": "English", "hi": "हिंदी", "ta": "தமிழ்", "te": "తెలుగు"}

# The card ranks in Latin letters, as on the cards (A, J, Q, K; PJ the printed joker).
RANKS = {"A", "J", "Q", "K", "PJ"}
# Words a translated page shows in Latin letters: file formats and codes, the
# card ranks, a CSV's keys, and the language switch's "English".
KEPT = {
    "English",
    "JSON",
    "CSV",
    "QR",
    "UTF",
    "json",
    "csv",
    *RANKS,
    "first_drop",
    "middle_drop",
    "full_count",
    "wrong_show",
}
WORD = re.compile("[A-Za-z0-9]*[A-Za-z][A-Za-z'\u2019]*")
# Codes a page shows in Latin letters as the card players type them: a card
# (AS, 10H, KD), a suit or rank letter (S, H, D, C, T) and a spreadsheet's
# column letter (C, K) in a CSV refusal. A lone "I" or "a" is English.
CODE = re.compile(r"(?:A|[2-9]|10|T|J|Q|K)[SHDC]|[A-HJ-Z]")
# A word in any of the four scripts: letters with their vowel signs and
# viramas (which Python's \w leaves out), the zero-width (non-)joiner Telugu
# and Tamil print inside a word, and a hyphen or apostrophe between letters.
LETTERS = "\\w\u0900-\u097f\u0b80-\u0bff\u0c00-\u0c7f\u200c\u200d"
ANY_WORD = re.compile(f"[{LETTERS}]+(?:[-'\u2019][{LETTERS}]+)*")
LATIN = re.compile("[A-Za-z]")


def kept_words(language):
    """The English words written in the language's own script, as its README
    lists them under "Kept words" (one a line in a fenced block); none for a
    README without the list."""
    readme = (LOCALE / language / "README.md").read_text(encoding="utf-8")
    part = readme.partition("\n## Kept words\n")[2]
    block = re.search(r"```\n(.*?)```", part, re.S)
    lines = block.group(1).splitlines() if block else []
    return {line.strip() for line in lines if line.strip()}


def english_words(text, names=()):
    """The ASCII words of `text` that are neither names nor kept words."""
    allowed = set(KEPT)
    for name in names:
        allowed.update(WORD.findall(name))
    return [w for w in WORD.findall(text) if w not in allowed and not CODE.fullmatch(w)]


def english_share(texts, language, names=()):
    """(English words, kept words, all words) in `texts`, names, bare
    numbers and cards left out.

    English: a word in Latin letters, file types too (a card or a column
    letter, AS, 10H, K, is a mark, not a word). Kept: an
    English word written in the language's script, from its README's list;
    the page is meant to show those, as the family says them."""
    kept = kept_words(language)
    name_words = {w for name in names for w in WORD.findall(name)}
    english = kept_count = total = 0
    for text in texts:
        for word in ANY_WORD.findall(text):
            latin = WORD.findall(word)
            if word.isdigit() or (latin and set(latin) <= name_words):
                continue
            if word in RANKS or CODE.fullmatch(word):
                continue
            total += 1
            if LATIN.search(word):
                english += 1
            elif word in kept:
                kept_count += 1
    return english, kept_count, total


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
