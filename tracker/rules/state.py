"""The state a history replays to: the seats, their figures, and the rows of events.

What differs between formats is asked of the game's format object
(`state.spec`, one of `FORMATS`); what is the same everywhere (the dealer's
rotation, lookups, the shape of the document) is written here once.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field, fields
from decimal import Decimal
from operator import attrgetter


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
    drops_left: int | None = None

    @property
    def is_in(self):
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
    results: dict = field(default_factory=dict)  # name -> result as entered
    points: dict = field(default_factory=dict)  # name -> points it scored
    totals: dict = field(default_factory=dict)  # name -> the figure the chart draws
    went_out: list = field(default_factory=list)
    tie_breaker: bool = False
    rummy: bool = False  # basic: the winner went rummy
    start_total: int | None = None  # a rejoiner's or joiner's new total
    shares: dict | None = None


# A row's fields' values in the order Row(...) takes them: how a state is kept.
_row_values = attrgetter(*(f.name for f in fields(Row)))

# A kept state's newest rows, from KEPT_ROWS to twice as many, are kept one by
# one, each row's values pickled once, when the row was added; the older ones in
# runs of KEPT_ROWS, each pickled once, when it left the newest, and read only
# when something asks for every row. As many as the game screen's history shows
# (tracker/scoreboard.py RECENT), so a board is laid out from the newest rows alone.
KEPT_ROWS = 12


def _pickled(rows):
    return pickle.dumps([_row_values(row) for row in rows], pickle.HIGHEST_PROTOCOL)


def _pickled_row(row):
    return pickle.dumps(_row_values(row), pickle.HIGHEST_PROTOCOL)


def _rows_of(newest):
    """The newest rows as rows: one still as the bytes it was read back as is
    unpickled here."""
    return [Row(*pickle.loads(row)) if type(row) is bytes else row for row in newest]


@dataclass
class GameState:
    format: str
    rules: dict
    players: list
    first_dealer: str
    spec: object = None  # the format: FORMATS[format]
    status: str = "in_progress"
    winner: str | None = None
    deals_played: int = 0
    split: dict | None = None  # name -> Decimal share, once split
    tie_breaker: bool = False
    level: list = field(default_factory=list)  # basic: who plays the tie-breaker
    rows: list = field(default_factory=list)
    last_dealer: int | None = None  # seat index of the last deal's dealer
    in_after_last_deal: list = field(default_factory=list)
    # How many of the newest rows, back from the last, are deals: whether the rows
    # the game screen shows are all deals, told without reading them (a state kept
    # before this was counted reads 0: not all deals, as far as it can tell).
    newest_deals: int = 0

    # -- kept (pickled): the shared cache keeps the state of every revision

    # A state read back keeps its newest rows here until every row is asked for
    # (`_RowsReadBack`); a state played from the start has them all in `rows`.
    # A class default, not `self.__dict__`: reading an instance's dict makes
    # Python read its every attribute more slowly after (a replay 9 % slower).
    _newest = None
    # The pickles the newest rows were read back from, in their order: those rows
    # are kept again as these bytes (rows added since are pickled when kept). Each
    # stays as its bytes in `_newest` too until `recent_rows` or `rows` asks for it.
    _newest_kept = ()

    def __getstate__(self):
        """The state as pickled: each row as the tuple of its fields' values,
        not an object with its field names (a quarter smaller, and quicker to
        pickle and unpickle), and only the newest rows one by one.

        A deal saved reads the state kept for the revision before it, plays the
        deal on it and keeps the new state: the older rows (`_older`, runs of
        KEPT_ROWS rows, each pickled once) and the newest ones read back (each
        row pickled once, `_newest_kept`) are kept again as the bytes they were
        read as, not pickled again: only the deal's own row is. The scoreboard
        shows the newest rows only (`recent_rows`); `rows` reads the rest when asked.
        """
        kept = self.__dict__.copy()
        kept.pop("_newest_kept", None)
        if self._newest is None:  # every row is here: the older ones pickled in one run
            rows = kept.pop("rows")
            cut = max(0, len(rows) - KEPT_ROWS)
            older, older_count, newest = ([_pickled(rows[:cut])] if cut else []), cut, rows[cut:]
            pickled = []
        else:
            older, older_count, newest = list(self._older), self._older_count, self._newest
            pickled = list(self._newest_kept)  # of the first rows of `newest`
        while len(newest) >= 2 * KEPT_ROWS:
            older.append(_pickled(_rows_of(newest[:KEPT_ROWS])))
            older_count += KEPT_ROWS
            newest, pickled = newest[KEPT_ROWS:], pickled[KEPT_ROWS:]
        kept["_older"], kept["_older_count"] = older, older_count
        kept["_newest"] = pickled + [_pickled_row(row) for row in newest[len(pickled) :]]
        return kept

    def __setstate__(self, kept):
        if "rows" in kept:  # (a state kept before its older rows were kept apart)
            rows = kept["rows"]
            if rows and isinstance(rows[0], tuple):  # (and before that, as Row objects)
                kept["rows"] = [Row(*values) for values in rows]
        else:
            newest = kept["_newest"]
            if newest and isinstance(newest[0], bytes):  # each row pickled on its own
                kept["_newest_kept"] = newest
                kept["_newest"] = list(newest)  # each unpickled when first asked for
            else:  # (a state kept before its newest rows were pickled one by one)
                kept["_newest"] = [Row(*values) for values in newest]
        for name, value in kept.items():  # (not self.__dict__: see _newest)
            setattr(self, name, value)

    @property
    def row_count(self):
        """How many events the history has, without reading every row."""
        newest = self._newest
        if newest is None:
            return len(self.rows)
        return self._older_count + len(newest)

    def recent_rows(self, count):
        """The newest `count` rows (every row when there are fewer), oldest first."""
        newest = self._newest
        if newest is None or (len(newest) < count and self._older_count):
            newest = self.rows
        elif count > 0:  # the rows asked for, read now where still their bytes
            for i in range(max(0, len(newest) - count), len(newest)):
                if type(newest[i]) is bytes:
                    newest[i] = Row(*pickle.loads(newest[i]))
        return newest[-count:] if count > 0 else []

    def add_row(self, row):
        """A row after the last (the engine's, for the event it applied)."""
        newest = self._newest
        (self.rows if newest is None else newest).append(row)
        self.newest_deals = self.newest_deals + 1 if row.type == "deal" else 0

    # -- lookups

    @property
    def version(self):
        return self.row_count

    @property
    def finished(self):
        return self.status == "finished"

    def player(self, name):
        for p in self.players:
            if p.name == name:
                return p
        return None

    @property
    def in_players(self):
        """Who is dealt the next deal: in pool those not out; in a tie-breaker the tied."""
        if self.tie_breaker:
            return self.tied
        return [p for p in self.players if p.status == "in"]

    @property
    def tied(self):
        """Who is level for the win (in a tie-breaker: who plays it)."""
        return self.spec.tied(self)

    @property
    def next_dealer(self):
        if self.finished:
            return None
        return self._dealer_for_next_deal()

    def _dealer_for_next_deal(self, dealt=None):
        """The next deal's dealer; `dealt`: who is dealt it, when the caller has them."""
        playing = {p.seat for p in (self.in_players if dealt is None else dealt)}
        n = len(self.players)
        if self.last_dealer is None:
            # The first dealer, or the next seat dealt in when they sit out the first deal.
            start, steps = self.player(self.first_dealer).seat, range(n)
        else:
            start, steps = self.last_dealer, range(1, n + 1)
        for step in steps:
            seat = (start + step - 1) % n + 1
            if seat in playing:
                return self.players[seat - 1].name
        return None

    @property
    def deals_left(self):
        return self.spec.deals_left(self)

    @property
    def pot(self):
        return self.spec.pot(self)

    @property
    def leaders(self):
        """Who is ahead, as the format counts it."""
        return self.spec.leaders(self)

    @property
    def can_end(self):
        """Whether the family may end the game now (a points session)."""
        return self.spec.ends_by_family and not self.finished

    # -- rejoins and splits (pool)

    def rejoin_total(self):
        """H + 1: what a rejoiner starts at, or None when nobody may rejoin now."""
        # Rejoiners of this break do not count, so the order of rejoins does not matter.
        stayed = [self.player(name) for name in self.in_after_last_deal]
        if len(stayed) < 2:
            return None
        return max(p.total for p in stayed) + 1

    def rejoin_refusal(self, name):
        """Why `name` may not rejoin now, or None when they may."""
        return self.spec.rejoin_refusal(self, name)

    @property
    def can_rejoin(self):
        if self.finished:
            return []
        return [p.name for p in self.players if not p.is_in and not self.rejoin_refusal(p.name)]

    @property
    def can_split(self):
        return self.spec.can_split(self)

    def split_shares(self, method, shares=None):
        """Each in player's share of the pot by `method`; raises RuleError when not allowed."""
        return self.spec.split_shares(self, method, shares)

    # -- money

    def amount(self, player):
        return self.spec.amount(self, player)

    @property
    def settlement(self):
        """Who pays whom: [(from, to, amount), ...]."""
        return self.spec.settlement(self)

    # -- the document

    def document(self):
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


class _RowsReadBack:
    """`rows` of a state read back (`GameState.__setstate__`): its older rows
    unpickled when something first asks for every row, then kept in the state as
    any state's rows are. A descriptor the state's own `rows` hides, not a
    `__getattr__`, which would slow every other attribute read of a state."""

    def __get__(self, state, owner=None):
        if state is None:
            return self
        newest = state._newest
        if newest is None:
            raise AttributeError("rows")
        kept = state.__dict__
        rows = [Row(*values) for run in kept.pop("_older") for values in pickle.loads(run)]
        rows += _rows_of(newest)
        del kept["_newest"], kept["_older_count"]
        kept.pop("_newest_kept", None)
        kept["rows"] = rows
        return rows


GameState.rows = _RowsReadBack()

ZERO = Decimal(0)
