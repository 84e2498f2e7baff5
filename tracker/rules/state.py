"""The state a history replays to: the seats, their figures, and the rows of events.

What differs between formats is asked of the game's format object
(`state.spec`, one of `FORMATS`); what is the same everywhere (the dealer's
rotation, lookups, the shape of the document) is written here once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from .shapes import Document, Payment, Result, Rules

if TYPE_CHECKING:
    from .base import Format


@dataclass
class Player:
    name: str
    seat: int
    total: int = 0
    status: str = "in"  # in, out (pool); sitting_out, left (points)
    rejoins: int = 0
    drops_taken: int = 0  # since the player last joined: for max_drops
    chips: int = 0
    balance: int = 0
    drops_left: int = 0  # pool: the drops left before going out (each refresh works it out)

    @property
    def is_in(self) -> bool:
        return self.status == "in"


@dataclass
class Row:
    """One event of the history as the scoreboard shows it, with the figures after it."""

    index: int
    type: str
    number: int | None = None  # the deal's number, for deals
    dealer: str | None = None
    winner: str | None = None
    player: str | None = None  # who rejoined, joined, sat out, came back or left
    after: str | None = None  # a joiner's seat: after this player (None: after the last)
    results: dict[str, Result] = field(default_factory=dict)  # name -> result as entered
    points: dict[str, int] = field(default_factory=dict)  # name -> points it scored
    totals: dict[str, int] = field(default_factory=dict)  # name -> the figure the chart draws
    went_out: list[str] = field(default_factory=list)
    tie_breaker: bool = False
    rummy: bool = False  # basic: the winner went rummy
    start_total: int | None = None  # a rejoiner's or joiner's new total
    shares: dict[str, Decimal] | None = None


@dataclass
class GameState:
    format: str
    rules: Rules
    players: list[Player]
    first_dealer: str
    spec: Format  # the format: FORMATS[format]
    status: str = "in_progress"
    winner: str | None = None
    deals_played: int = 0
    split: dict[str, Decimal] | None = None  # name -> share, once split
    tie_breaker: bool = False
    level: list[str] = field(default_factory=list)  # basic: who plays the tie-breaker
    rows: list[Row] = field(default_factory=list)  # one Row per event, oldest first
    last_dealer: int | None = None  # seat index of the last deal's dealer
    in_after_last_deal: list[str] = field(default_factory=list)

    # -- the rows

    @property
    def row_count(self) -> int:
        """How many events the history has."""
        return len(self.rows)

    def recent_rows(self, count: int) -> list[Row]:
        """The newest `count` rows (every row when there are fewer), oldest first."""
        return self.rows[-count:] if count > 0 else []

    @property
    def newest_deals(self) -> int:
        """How many of the newest rows, back from the last, are deals: whether
        the rows the game screen shows are all deals."""
        count = 0
        for row in reversed(self.rows):
            if row.type != "deal":
                break
            count += 1
        return count

    # -- lookups

    @property
    def version(self) -> int:
        return self.row_count

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def player(self, name: str) -> Player | None:
        for p in self.players:
            if p.name == name:
                return p
        return None

    def seated(self, name: str) -> Player:
        """The player of that name, whom the history has already seated."""
        return next(p for p in self.players if p.name == name)

    @property
    def in_players(self) -> list[Player]:
        """Who is dealt the next deal: in pool those not out; in a tie-breaker the tied."""
        if self.tie_breaker:
            return self.tied
        return [p for p in self.players if p.status == "in"]

    @property
    def tied(self) -> list[Player]:
        """Who is level for the win (in a tie-breaker: who plays it)."""
        return self.spec.tied(self)

    @property
    def next_dealer(self) -> str | None:
        if self.finished:
            return None
        return self._dealer_for_next_deal()

    def _dealer_for_next_deal(self, dealt: list[Player] | None = None) -> str | None:
        """The next deal's dealer; `dealt`: who is dealt it, when the caller has them."""
        playing = {p.seat for p in (self.in_players if dealt is None else dealt)}
        n = len(self.players)
        if self.last_dealer is None:
            # The first dealer, or the next seat dealt in when they sit out the first deal.
            start, steps = self.seated(self.first_dealer).seat, range(n)
        else:
            start, steps = self.last_dealer, range(1, n + 1)
        for step in steps:
            seat = (start + step - 1) % n + 1
            if seat in playing:
                return self.players[seat - 1].name
        return None

    @property
    def deals_left(self) -> int:
        return self.spec.deals_left(self)

    @property
    def pot(self) -> Decimal:
        return self.spec.pot(self)

    @property
    def leaders(self) -> list[str]:
        """Who is ahead, as the format counts it."""
        return self.spec.leaders(self)

    @property
    def can_end(self) -> bool:
        """Whether the family may end the game now (a points session)."""
        return self.spec.ends_by_family and not self.finished

    # -- rejoins and splits (pool)

    def rejoin_total(self) -> int | None:
        """H + 1: what a rejoiner starts at, or None when nobody may rejoin now."""
        # Rejoiners of this break do not count, so the order of rejoins does not matter.
        stayed = [self.seated(name) for name in self.in_after_last_deal]
        if len(stayed) < 2:
            return None
        return max(p.total for p in stayed) + 1

    def rejoin_refusal(self, name: str) -> str | None:
        """Why `name` may not rejoin now, or None when they may."""
        return self.spec.rejoin_refusal(self, name)

    @property
    def can_rejoin(self) -> list[str]:
        if self.finished:
            return []
        return [p.name for p in self.players if not p.is_in and not self.rejoin_refusal(p.name)]

    @property
    def can_split(self) -> bool:
        return self.spec.can_split(self)

    def split_shares(self, method: object, shares: object = None) -> dict[str, Decimal]:
        """Each in player's share of the pot by `method`; raises RuleError when not allowed."""
        return self.spec.split_shares(self, method, shares)

    # -- money

    def amount(self, player: Player) -> Decimal:
        return self.spec.amount(self, player)

    @property
    def settlement(self) -> list[Payment]:
        """Who pays whom: [(from, to, amount), ...]."""
        return self.spec.settlement(self)

    # -- the document

    def document(self) -> Document:
        """The `state` of the game document (shared/docs/game-json.md)."""
        players = []
        for p in self.players:
            entry = {"name": p.name, "seat": p.seat, "total": p.total, "status": p.status}
            entry.update(self.spec.player_document(self, p))
            players.append(entry)
        doc = {
            "status": self.status,
            "winner": self.winner,
            "deals_played": self.deals_played,
            "next_dealer": self.next_dealer,
            "players": players,
        }
        doc.update(self.spec.state_document(self))
        return doc
