"""The hand calculator's page state: the cards tapped so far and the answer.

Kept in the query string (GET), so every tap works without JavaScript and
changes nothing on the server; htmx only swaps the panel in place.
"""

from collections.abc import Mapping

from django.utils.translation import gettext, gettext_noop

from .. import i18n
from ..rules import hand
from ..rules.shapes import Rules

RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUIT_NAMES = [
    ("S", "♠", gettext_noop("spades")),
    ("H", "♥", gettext_noop("hearts")),
    ("D", "♦", gettext_noop("diamonds")),
    ("C", "♣", gettext_noop("clubs")),
]
WILD_CHOICES = [
    ("", gettext_noop("No wild card")),
    ("PJ", gettext_noop("Printed joker (aces wild)")),
]
WILD_CHOICES += [(rank, f"{rank}s wild") for rank in RANK_ORDER]
MAX_CARDS = 14


def label(card: str) -> str:
    """How a card is shown: 10♥, A♠, Joker."""
    if card == hand.PRINTED_JOKER:
        return gettext("Joker")
    symbol = {code: sign for code, sign, _ in SUIT_NAMES}[card[-1]]
    return card[:-1] + symbol


def is_red(card: str) -> bool:
    return card[-1:] in ("H", "D")


class Calculator:
    """What was tapped (from the query string) and what it adds up to."""

    def __init__(
        self, params: Mapping[str, str], table_rules: Rules | None = None, wild: str | None = None
    ) -> None:
        self.error: str | None = None  # what was refused, in the reader's language
        self.result: hand.HandResult | None = None
        table_rules = table_rules or {}
        self.full_count = table_rules.get("full_count", 80)
        self.ace_value = table_rules.get("ace_value", 10)
        self.natural_wild = params.get("natural_wild") or table_rules.get("natural_wild", "pure")
        sets = params.get("jokers_in_sets")
        self.jokers_in_sets = (
            table_rules.get("jokers_in_sets", True) if sets is None else sets == "1"
        )
        self.count = params.get("count") or table_rules.get("hand_count", "all")
        self.wild = params.get("wild", wild if wild is not None else "")
        if self.wild not in dict(WILD_CHOICES):
            self.wild = ""
        try:
            self.cards = hand.parse_cards((params.get("cards") or "")[:200])[:MAX_CARDS]
        except hand.HandError:
            self.cards = []
        self._tap(params)
        self._score()

    def _tap(self, params: Mapping[str, str]) -> None:
        if params.get("clear"):
            self.cards = []
            return
        if params.get("remove") is not None:
            try:
                index = int(params["remove"])
            except ValueError:
                index = -1
            if 0 <= index < len(self.cards):
                self.cards.pop(index)
        added = params.get("add")
        if added:
            if len(self.cards) >= MAX_CARDS:
                self.error = gettext("A hand has at most 14 cards (13, and one just drawn).")
                return
            try:
                self.cards = hand.parse_cards([*self.cards, added[:3]])
            except hand.HandError as refused:
                self.error = i18n.full_stop(i18n.sentence(refused))

    def _score(self) -> None:
        if len(self.cards) not in (13, 14):
            return
        try:
            self.result = hand.score_hand(
                self.cards,
                self.wild or None,
                natural_wild=self.natural_wild
                if self.natural_wild in ("pure", "joker")
                else "pure",
                jokers_in_sets=self.jokers_in_sets,
                count=self.count if self.count in hand.COUNT_RULES else "all",
                ace_value=self.ace_value,
                full_count=self.full_count,
            )
        except hand.HandError as refused:
            self.error = i18n.refusal(refused)

    @property
    def wild_choices(self) -> list[tuple[str, str]]:
        """(value, text) of the wild-card menu, in the reader's language."""
        first = [(value, gettext(text)) for value, text in WILD_CHOICES[:2]]
        return first + [(rank, gettext("%(rank)ss wild") % {"rank": rank}) for rank in RANK_ORDER]

    @property
    def query(self) -> str:
        """The cards as the next tap carries them."""
        return " ".join(self.cards)

    def picked(self) -> list[dict[str, object]]:
        return [
            {"card": c, "label": label(c), "red": is_red(c), "index": i}
            for i, c in enumerate(self.cards)
        ]

    def picker(self) -> list[dict[str, object]]:
        """Rows of rank buttons per suit; a card is greyed once both decks' copies are in."""
        rows = []
        for code, sign, name in SUIT_NAMES:
            buttons = []
            for rank in RANK_ORDER:
                card = rank + code
                buttons.append({"card": card, "rank": rank, "full": self.cards.count(card) >= 2})
            rows.append(
                {
                    "code": code,
                    "sign": sign,
                    "name": gettext(name),
                    "red": code in "HD",
                    "cards": buttons,
                }
            )
        return rows

    def jokers_full(self) -> bool:
        return self.cards.count(hand.PRINTED_JOKER) >= 4

    def groups(self) -> list[list[dict[str, object]]]:
        if not self.result:
            return []
        return [
            [{"label": label(c), "red": is_red(c)} for c in group] for group in self.result.groups
        ]

    def ungrouped(self) -> list[dict[str, object]]:
        if not self.result:
            return []
        return [{"label": label(c), "red": is_red(c)} for c in self.result.ungrouped]

    def discard(self) -> str | None:
        if not self.result or not self.result.discard:
            return None
        return label(self.result.discard)
