"""The rules engine: every figure the tracker shows comes from here.

Pure Python: no Django, no I/O. It takes a game's format, table rules, seats
and history (a list of events, as in shared/docs/game-json.md) and replays
them into a `GameState`. Every rule is written once, here, as
shared/docs/rules.md words it; the web pages, the import command and the
tests all call `replay` and so refuse the same things with the same words.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction

FORMATS = ("pool", "deals", "points")
RESULT_WORDS = ("first_drop", "middle_drop", "full_count", "wrong_show")
DROPS = ("first_drop", "middle_drop")
SPLIT_METHODS = ("drops", "equal", "custom")
MONEY_UNITS = ("0.01", "1")
MIN_PLAYERS, MAX_PLAYERS = 2, 10
MAX_NAME_LENGTH = 30

# The order rules are written in a game document, per format.
RULE_KEYS = {
    "pool": (
        "pool_limit", "out_at", "first_drop", "middle_drop", "full_count", "wrong_show",
        "ace_value", "entry_fee", "rejoin", "rejoin_cutoff", "max_rejoins", "max_drops",
        "money_unit",
    ),
    "deals": (
        "deal_count", "starting_chips", "drops_allowed", "first_drop", "middle_drop",
        "full_count", "wrong_show", "ace_value", "entry_fee", "money_unit",
    ),
    "points": (
        "point_value", "first_drop", "middle_drop", "full_count", "wrong_show", "ace_value",
        "money_unit",
    ),
}  # fmt: skip

# House rules of the hand calculator (issue: "the house rules are part of the
# game's table rules"). Optional in every format; a game document carries
# them only where the table changed them, so documents of other tools and the
# worked examples stay exactly as shared/docs/game-json.md writes them.
CARD_RULES = {"natural_wild": "pure", "jokers_in_sets": True, "hand_count": "all"}
HAND_COUNTS = ("all", "except_pure", "groups_excluded")

RULE_LABELS = {
    "natural_wild": "wild card in its own place",
    "jokers_in_sets": "jokers in sets",
    "hand_count": "a loser counts",
    "pool_limit": "pool limit",
    "out_at": "out at",
    "first_drop": "first drop",
    "middle_drop": "middle drop",
    "full_count": "full count",
    "wrong_show": "wrong show",
    "ace_value": "ace value",
    "entry_fee": "entry fee",
    "rejoin": "rejoin",
    "rejoin_cutoff": "rejoin cutoff",
    "max_rejoins": "most rejoins",
    "max_drops": "most drops",
    "money_unit": "money unit",
    "deal_count": "number of deals",
    "starting_chips": "starting chips",
    "drops_allowed": "drops allowed",
    "point_value": "point value",
}

RESULT_LABELS = {
    "first_drop": "First drop",
    "middle_drop": "Middle drop",
    "full_count": "Full count",
    "wrong_show": "Wrong show",
}


class RuleError(ValueError):
    """A refusal, with the place it belongs to.

    `field` is a dotted path in the game document (`rules.first_drop`,
    `players`, `results.Ravi`, `winner`); `event` is the index in the history
    of the event refused, or None; `player` names the player the message is
    about, so a form can show it beside that player's box.
    """

    def __init__(self, message, *, field=None, event=None, player=None, label=None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.event = event
        self.player = player
        self.label = label

    @property
    def for_player(self):
        """The message as a player reads it beside the box: "Ravi: ..."."""
        if not self.player or self.message.startswith(f"{self.player} "):
            return self.message
        return f"{self.player}: {self.message}"

    def __str__(self):
        parts = []
        if self.event is not None:
            parts.append(f"history[{self.event}]" + (f" ({self.label})" if self.label else ""))
        if self.field:
            parts.append(self.field)
        parts.append(self.for_player)
        return ": ".join(parts)


# ---------------------------------------------------------------- table rules


def pool_defaults(limit):
    """Drop and cap values that follow the pool limit (rules.md)."""
    if limit == 61:
        return {"first_drop": 15, "middle_drop": 30, "full_count": 60, "wrong_show": 60}
    if limit == 201:
        return {"first_drop": 25, "middle_drop": 50, "full_count": 80, "wrong_show": 80}
    return {"first_drop": 20, "middle_drop": 40, "full_count": 80, "wrong_show": 80}


def out_total(rules):
    """T: the lowest total that puts a player out of a pool game."""
    return rules["pool_limit"] + (1 if rules["out_at"] == "exceed" else 0)


def default_rejoin_cutoff(rules):
    """The highest total that still leaves a rejoiner one drop: T - first_drop - 2."""
    return max(0, out_total(rules) - rules["first_drop"] - 2)


def _whole(rules, key, low=None, high=None, nullable=False):
    value = rules[key]
    label = RULE_LABELS[key]
    where = f"rules.{key}"
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"{label} must be a whole number", field=where)
    if low is not None and value < low:
        if low == 0:
            raise RuleError(f"{label} must not be negative", field=where)
        raise RuleError(f"{label} must be at least {low}", field=where)
    if high is not None and value > high:
        raise RuleError(f"{label} must be at most {high}", field=where)
    return value


def _money(rules, key, unit):
    value = rules[key]
    label = RULE_LABELS[key]
    where = f"rules.{key}"
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise RuleError(f'{label} must be an amount such as "10" or "0.25"', field=where)
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise RuleError(f'{label} must be an amount such as "10" or "0.25"', field=where) from None
    if not amount.is_finite():
        raise RuleError(f'{label} must be an amount such as "10" or "0.25"', field=where)
    if amount < 0:
        raise RuleError(f"{label} must not be negative", field=where)
    if amount > MAX_MONEY:
        raise RuleError(f"{label} must be at most {MAX_MONEY}", field=where)
    if not in_units(amount, Decimal(unit)):
        raise RuleError(f"{label} has more decimals than the money unit {unit}", field=where)
    return str(amount)


MAX_MONEY = Decimal(1_000_000)


def in_units(amount, unit):
    """Whether `amount` is a whole number of money units (0.01 or 1).

    By quantizing, not by remainder: 1E-999999999 % 0.01 underflows to 0.
    Only for amounts already checked to be at most MAX_MONEY.
    """
    return amount == amount.quantize(unit)


def _choice(rules, key, choices):
    value = rules[key]
    if isinstance(value, bool) or value not in choices:
        shown = " or ".join(str(c) for c in choices)
        raise RuleError(f"{RULE_LABELS[key]} must be {shown}", field=f"rules.{key}")
    return value


def _flag(rules, key):
    value = rules[key]
    if not isinstance(value, bool):
        raise RuleError(f"{RULE_LABELS[key]} must be true or false", field=f"rules.{key}")
    return value


def normalize_rules(fmt, rules=None):
    """Check a game's table rules and fill in every default (rules.md).

    Returns a new dict in document order; raises RuleError naming the rule.
    """
    if fmt not in FORMATS:
        raise RuleError("format must be pool, deals or points", field="format")
    rules = dict(rules or {})
    if not isinstance(rules, dict):
        raise RuleError("rules must be an object", field="rules")
    unknown = sorted(set(rules) - set(RULE_KEYS[fmt]) - set(CARD_RULES), key=str)
    if unknown:
        raise RuleError(f"{unknown[0]} is not a rule of {fmt} rummy", field=f"rules.{unknown[0]}")

    out = {}
    money_unit = rules.setdefault("money_unit", "0.01")
    if isinstance(money_unit, (int, float)) and not isinstance(money_unit, bool):
        money_unit = rules["money_unit"] = "1" if money_unit == 1 else str(money_unit)
    out["money_unit"] = _choice(rules, "money_unit", MONEY_UNITS)

    if fmt == "pool":
        rules.setdefault("pool_limit", 101)
        out["pool_limit"] = _whole(rules, "pool_limit", 20, 10_000)
        rules.setdefault("out_at", "reach")
        out["out_at"] = _choice(rules, "out_at", ("reach", "exceed"))
        defaults = pool_defaults(out["pool_limit"])
    else:
        defaults = pool_defaults(None)
    for key in ("first_drop", "middle_drop", "full_count", "wrong_show"):
        rules.setdefault(key, defaults[key])
        out[key] = _whole(rules, key, 0, 200)
    rules.setdefault("ace_value", 10)
    out["ace_value"] = _choice(rules, "ace_value", (10, 1))

    # 0 <= first_drop <= middle_drop <= full_count <= 200, 0 <= wrong_show <= full_count.
    if fmt == "pool" and out["first_drop"] < 1:
        raise RuleError("first drop must be at least 1 in pool", field="rules.first_drop")
    if out["middle_drop"] < out["first_drop"]:
        raise RuleError(
            "middle drop must not be less than the first drop", field="rules.middle_drop"
        )
    if out["full_count"] < out["middle_drop"]:
        raise RuleError(
            "full count must not be less than the middle drop", field="rules.full_count"
        )
    if out["wrong_show"] > out["full_count"]:
        raise RuleError("wrong show must not be more than the full count", field="rules.wrong_show")

    if fmt in ("pool", "deals"):
        rules.setdefault("entry_fee", "0")
        out["entry_fee"] = _money(rules, "entry_fee", out["money_unit"])
    if fmt == "pool":
        rules.setdefault("rejoin", True)
        out["rejoin"] = _flag(rules, "rejoin")
        if rules.get("rejoin_cutoff") is None:
            rules["rejoin_cutoff"] = default_rejoin_cutoff(out)
        out["rejoin_cutoff"] = _whole(rules, "rejoin_cutoff", 0)
        if out["rejoin_cutoff"] >= out_total(out):
            raise RuleError(
                f"rejoin cutoff must be below {out_total(out)}, the total that puts a player out",
                field="rules.rejoin_cutoff",
            )
        rules.setdefault("max_rejoins", None)
        out["max_rejoins"] = _whole(rules, "max_rejoins", 0, nullable=True)
        rules.setdefault("max_drops", None)
        out["max_drops"] = _whole(rules, "max_drops", 0, nullable=True)
    elif fmt == "deals":
        rules.setdefault("deal_count", 2)
        out["deal_count"] = _whole(rules, "deal_count", 1, 100)
        rules.setdefault("starting_chips", 80 * out["deal_count"])
        out["starting_chips"] = _whole(rules, "starting_chips", 0, 1_000_000)
        rules.setdefault("drops_allowed", True)
        out["drops_allowed"] = _flag(rules, "drops_allowed")
    else:
        rules.setdefault("point_value", "1")
        out["point_value"] = _money(rules, "point_value", out["money_unit"])
    ordered = {key: out[key] for key in RULE_KEYS[fmt]}
    if "natural_wild" in rules:
        ordered["natural_wild"] = _choice(rules, "natural_wild", ("pure", "joker"))
    if "jokers_in_sets" in rules:
        ordered["jokers_in_sets"] = _flag(rules, "jokers_in_sets")
    if "hand_count" in rules:
        ordered["hand_count"] = _choice(rules, "hand_count", HAND_COUNTS)
    for key, default in CARD_RULES.items():
        if ordered.get(key, default) == default:
            ordered.pop(key, None)
    return ordered


def card_rules(rules):
    """The calculator's house rules of a table, defaults filled in."""
    return {key: rules.get(key, default) for key, default in CARD_RULES.items()}


def has_control_characters(text):
    """Invisible control characters (U+0000 among them, which PostgreSQL cannot store)."""
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in text)


def check_players(players):
    """Seat names: 2 to 10, not blank, unique ignoring case. Returns them trimmed."""
    if not isinstance(players, list):
        raise RuleError("players must be a list of names", field="players")
    if len(players) < MIN_PLAYERS:
        raise RuleError(f"a game needs at least {MIN_PLAYERS} players", field="players")
    if len(players) > MAX_PLAYERS:
        raise RuleError(f"a game has at most {MAX_PLAYERS} players", field="players")
    names, seen = [], set()
    for seat, name in enumerate(players, start=1):
        where = f"players[{seat - 1}]"
        if not isinstance(name, str) or not name.strip():
            raise RuleError(f"player {seat} needs a name", field=where)
        name = " ".join(name.split())
        if len(name) > MAX_NAME_LENGTH:
            raise RuleError(
                f"player {seat}'s name is longer than {MAX_NAME_LENGTH} letters", field=where
            )
        if has_control_characters(name):
            raise RuleError(
                f"player {seat}'s name has a character that is not a letter", field=where
            )
        if name.casefold() in seen:
            raise RuleError(f"{name} is at the table twice: names must differ", field=where)
        seen.add(name.casefold())
        names.append(name)
    return names


# ---------------------------------------------------------------- the state


@dataclass
class Player:
    name: str
    seat: int
    total: int = 0
    status: str = "in"
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
    player: str | None = None  # who rejoined
    results: dict = field(default_factory=dict)  # name -> result as entered
    points: dict = field(default_factory=dict)  # name -> points it scored
    totals: dict = field(default_factory=dict)  # name -> the figure the chart draws
    went_out: list = field(default_factory=list)
    tie_breaker: bool = False
    start_total: int | None = None  # a rejoiner's new total
    shares: dict | None = None


@dataclass
class GameState:
    format: str
    rules: dict
    players: list
    first_dealer: str
    status: str = "in_progress"
    winner: str | None = None
    deals_played: int = 0
    split: dict | None = None  # name -> Decimal share, once split
    split_method: str | None = None
    ended: bool = False
    tie_breaker: bool = False
    rows: list = field(default_factory=list)
    last_dealer: int | None = None  # seat index of the last deal's dealer
    rejoined_this_break: set = field(default_factory=set)
    in_after_last_deal: list = field(default_factory=list)

    # -- lookups

    @property
    def version(self):
        return len(self.rows)

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
        return [p for p in self.players if p.is_in]

    @property
    def tied(self):
        top = max(p.chips for p in self.players)
        return [p for p in self.players if p.chips == top]

    @property
    def next_dealer(self):
        if self.finished:
            return None
        return self._dealer_for_next_deal()

    def _dealer_for_next_deal(self):
        playing = {p.seat for p in self.in_players}
        if self.last_dealer is None:
            return self.first_dealer
        n = len(self.players)
        for step in range(1, n + 1):
            seat = (self.last_dealer + step - 1) % n + 1
            if seat in playing:
                return self.players[seat - 1].name
        return None

    @property
    def deals_left(self):
        if self.format != "deals" or self.tie_breaker:
            return 0
        return max(0, self.rules["deal_count"] - self.deals_played)

    @property
    def pot(self):
        if self.format != "pool":
            return Decimal(0)
        entries = len(self.players) + sum(p.rejoins for p in self.players)
        return Decimal(self.rules["entry_fee"]) * entries

    @property
    def leaders(self):
        """Who is ahead: lowest total in pool, most chips in deals, best balance in points."""
        if self.format == "pool":
            live = [p for p in self.players if p.is_in]
            best = min(p.total for p in live)
            return [p.name for p in live if p.total == best]
        if self.format == "deals":
            return [p.name for p in self.tied]
        best = max(p.balance for p in self.players)
        if best == 0 and all(p.balance == 0 for p in self.players):
            return []
        return [p.name for p in self.players if p.balance == best]

    # -- pool figures

    def rejoin_total(self):
        """H + 1: what a rejoiner starts at, or None when nobody may rejoin now."""
        # Rejoiners of this break do not count, so the order of rejoins does not matter.
        stayed = [self.player(name) for name in self.in_after_last_deal]
        if len(stayed) < 2:
            return None
        return max(p.total for p in stayed) + 1

    def rejoin_refusal(self, name):
        """Why `name` may not rejoin now, or None when they may."""
        if self.format != "pool":
            return "only pool has rejoins"
        p = self.player(name)
        if p is None:
            return f"{name} is not at this table"
        if self.finished:
            return "the game is over"
        if p.is_in:
            return f"{name} is still in"
        if not self.rules["rejoin"]:
            return "rejoins are off at this table"
        limit = self.rules["max_rejoins"]
        if limit is not None and p.rejoins >= limit:
            return f"{name} has rejoined {p.rejoins} times, the most this table allows"
        start = self.rejoin_total()
        if start is None:
            return "a rejoin needs at least two players still in"
        high = start - 1
        if high > self.rules["rejoin_cutoff"]:
            return (
                f"the highest total still in is {high}, above the rejoin cutoff "
                f"{self.rules['rejoin_cutoff']}"
            )
        if start >= out_total(self.rules):
            return f"{name} would start at {start}, which is out"
        return None

    @property
    def can_rejoin(self):
        if self.format != "pool" or self.finished:
            return []
        return [p.name for p in self.players if not p.is_in and not self.rejoin_refusal(p.name)]

    @property
    def can_split(self):
        return self.format == "pool" and not self.finished and 2 <= len(self.in_players) <= 3

    def split_shares(self, method, shares=None):
        """Each in player's share of the pot by `method`; raises RuleError when not allowed."""
        if self.format != "pool":
            raise RuleError("only pool games are split", field="type")
        if self.finished:
            raise RuleError("the game is over", field="type")
        live = [p for p in self.players if p.is_in]
        if not 2 <= len(live) <= 3:
            raise RuleError(
                f"a split needs two or three players still in, not {len(live)}", field="method"
            )
        if method not in SPLIT_METHODS:
            raise RuleError("split method must be drops, equal or custom", field="method")
        pot = self.pot
        unit = Decimal(self.rules["money_unit"])
        if method == "custom":
            return _custom_shares(live, shares, pot, unit)
        if shares is not None:
            raise RuleError("shares are typed only for a custom split", field="shares")
        exact = {p.name: Fraction(0) for p in live}
        fraction_pot = Fraction(pot)
        if method == "drops":
            # Bring every drops left down to the lowest; each excess drop pays one
            # entry fee (or pot / all excess drops when that is worth more than the pot).
            low = min(p.drops_left for p in live)
            excess = {p.name: p.drops_left - low for p in live}
            all_excess = sum(excess.values())
            fee = Fraction(Decimal(self.rules["entry_fee"]))
            if all_excess and all_excess * fee > fraction_pot:
                fee = fraction_pot / all_excess
            for p in live:
                exact[p.name] = excess[p.name] * fee
        rest = fraction_pot - sum(exact.values())
        for p in live:
            exact[p.name] += rest / len(live)
        return _round_shares(live, exact, pot, unit)

    # -- points figures

    def amount(self, player):
        return Decimal(player.balance) * Decimal(self.rules["point_value"])

    @property
    def settlement(self):
        """The fewest payments that clear every balance: [(from, to, amount), ...]."""
        if self.format != "points":
            return []
        value = Decimal(self.rules["point_value"])
        if value == 0:
            return []
        balances = {p.name: p.balance for p in self.players}
        return [(a, b, points * value) for a, b, points in fewest_payments(balances)]

    # -- the document

    def document(self):
        """The `state` of the game document (shared/docs/game-json.md)."""
        players = []
        for p in self.players:
            entry = {"name": p.name, "seat": p.seat, "total": p.total, "status": p.status}
            if self.format == "pool":
                entry["drops_left"] = p.drops_left
                entry["rejoins"] = p.rejoins
            elif self.format == "deals":
                entry["chips"] = p.chips
            else:
                entry["balance"] = p.balance
                entry["amount"] = money(self.amount(p))
            players.append(entry)
        doc = {
            "status": self.status,
            "winner": self.winner,
            "deals_played": self.deals_played,
            "next_dealer": self.next_dealer,
            "players": players,
        }
        if self.format == "pool":
            doc["pot"] = money(self.pot)
            doc["can_rejoin"] = self.can_rejoin
            doc["can_split"] = self.can_split
            doc["split"] = (
                {name: money(share) for name, share in self.split.items()} if self.split else None
            )
        elif self.format == "deals":
            doc["deals_left"] = self.deals_left
        else:
            doc["settlement"] = [
                {"from": a, "to": b, "amount": money(amount)} for a, b, amount in self.settlement
            ]
        return doc


def money(amount):
    """Money as the document writes it: a decimal string with two places."""
    return str(Decimal(amount).quantize(Decimal("0.01")))


def _custom_shares(live, shares, pot, unit):
    if not isinstance(shares, dict):
        raise RuleError("a custom split needs a share for every player still in", field="shares")
    names = {p.name for p in live}
    for name in shares:
        if name not in names:
            raise RuleError(
                f"{name} is not in the game, so has no share", field=f"shares.{name}", player=name
            )
    out = {}
    for p in live:
        where = f"shares.{p.name}"
        if p.name not in shares:
            raise RuleError("share missing", field=where, player=p.name)
        raw = shares[p.name]
        try:
            if isinstance(raw, bool):
                raise InvalidOperation
            amount = Decimal(str(raw).strip())
            if not amount.is_finite():
                raise InvalidOperation
        except InvalidOperation:
            raise RuleError("share must be an amount", field=where, player=p.name) from None
        if amount < 0:
            raise RuleError("share must not be negative", field=where, player=p.name)
        if amount > MAX_MONEY:
            raise RuleError(f"share must be at most {MAX_MONEY}", field=where, player=p.name)
        if not in_units(amount, unit):
            raise RuleError(
                f"share must be in whole money units of {unit}", field=where, player=p.name
            )
        out[p.name] = amount
    total = sum(out.values())
    if total != pot:
        raise RuleError(
            f"shares add up to {money(total)}, but the pot is {money(pot)}", field="shares"
        )
    return out


def _round_shares(live, exact, pot, unit):
    """Round each share down to the money unit; the units left over go one each to
    the shares that lost the most, ties to the lowest total, then the earliest seat."""
    unit_f = Fraction(unit)
    units = {name: math.floor(share / unit_f) for name, share in exact.items()}
    left = int(Fraction(pot) / unit_f) - sum(units.values())
    order = sorted(live, key=lambda p: (-(exact[p.name] - units[p.name] * unit_f), p.total, p.seat))
    for p in order[:left]:
        units[p.name] += 1
    return {p.name: units[p.name] * unit for p in live}


def fewest_payments(balances):
    """The fewest payments that clear integer balances summing to zero.

    Exact, not greedy: the fewest is (people owed or owing) minus the most
    groups they split into that each sum to zero. A subset dynamic programme
    finds that split (2**10 subsets for a full table); within a group, the
    largest debtor pays the largest creditor, which needs one payment fewer
    than the group has members.
    """
    names = [name for name, b in balances.items() if b]
    values = [balances[name] for name in names]
    k = len(names)
    if not k:
        return []
    if sum(values):
        raise ValueError("balances must sum to zero")
    size = 1 << k
    sums = [0] * size
    for mask in range(1, size):
        low = (mask & -mask).bit_length() - 1
        sums[mask] = sums[mask & (mask - 1)] + values[low]
    best = [0] * size
    step = [0] * size
    for mask in range(1, size):
        top, pick = -1, 0
        rest = mask
        while rest:
            bit = rest & -rest
            rest ^= bit
            if best[mask ^ bit] > top:
                top, pick = best[mask ^ bit], bit
        best[mask] = top + (sums[mask] == 0)
        step[mask] = pick
    # Walk back from everybody; each zero-sum point closes a group.
    groups, current, mask = [], [], size - 1
    while mask:
        bit = step[mask]
        current.append(bit.bit_length() - 1)
        mask ^= bit
        if sums[mask] == 0:
            groups.append(current)
            current = []
    payments = []
    for group in groups:
        owed = {names[i]: values[i] for i in group}
        while any(owed.values()):
            debtor = min(owed, key=lambda n: (owed[n], names.index(n)))
            creditor = max(owed, key=lambda n: (owed[n], -names.index(n)))
            amount = min(-owed[debtor], owed[creditor])
            payments.append((debtor, creditor, amount))
            owed[debtor] += amount
            owed[creditor] -= amount
    payments.sort(key=lambda pay: (-pay[2], names.index(pay[0])))
    return payments


# ---------------------------------------------------------------- replaying


def new_game(fmt, rules, players, first_dealer=None):
    """The state before the first deal. Checks the rules and the seats."""
    rules = normalize_rules(fmt, rules)
    names = check_players(players)
    if first_dealer is None or first_dealer == "":
        first_dealer = names[0]
    if first_dealer not in names:
        raise RuleError(f"{first_dealer} is not one of the players", field="first_dealer")
    state = GameState(
        format=fmt,
        rules=rules,
        players=[Player(name=n, seat=i) for i, n in enumerate(names, start=1)],
        first_dealer=first_dealer,
    )
    for p in state.players:
        if fmt == "deals":
            p.chips = rules["starting_chips"]
    state.in_after_last_deal = [p.name for p in state.players]
    _refresh(state)
    return state


def replay(fmt, rules, players, history, first_dealer=None):
    """Replay a whole history. Raises RuleError naming the first event refused."""
    state = new_game(fmt, rules, players, first_dealer)
    if not isinstance(history, list):
        raise RuleError("history must be a list of events", field="history")
    for event in history:
        apply(state, event)
    return state


EVENT_TYPES = ("deal", "rejoin", "split", "end")


def apply(state, event):
    """Apply one event to `state` in place, or raise RuleError and leave it unchanged.

    Every check comes before the first change, so a refused event can be
    tried against the same state again (the web pages rely on it).
    """
    index = len(state.rows)
    kind = event.get("type") if isinstance(event, dict) else None
    label = kind if kind in EVENT_TYPES else "event"
    if kind == "deal":
        label = f"deal {state.deals_played + 1}"
    try:
        if not isinstance(event, dict):
            raise RuleError("an event must be an object", field="type")
        if kind not in EVENT_TYPES:
            raise RuleError("type must be deal, rejoin, split or end", field="type")
        row = {"deal": _deal, "rejoin": _rejoin, "split": _split, "end": _end}[kind](state, event)
    except RuleError as error:
        error.event = index
        error.label = label
        raise
    row.index = index
    row.totals = _figures(state)
    state.rows.append(row)
    _refresh(state)
    return row


def _extra_keys(event, allowed):
    extra = sorted(set(event) - set(allowed) - {"type"}, key=str)
    if extra:
        raise RuleError(f"{extra[0]} does not belong in a {event['type']}", field=str(extra[0]))


def _deal(state, event):
    _extra_keys(event, ("winner", "results"))
    if state.finished:
        raise RuleError("the game is over: no more deals", field="type")
    rules = state.rules
    playing = state.in_players
    playing_names = {p.name for p in playing}
    winner = event.get("winner")
    if not isinstance(winner, str) or not winner:
        raise RuleError("pick the one winner of the deal", field="winner")
    if state.player(winner) is None:
        raise RuleError(f"{winner} is not at this table", field="winner")
    if winner not in playing_names:
        why = "is out" if state.format == "pool" else "is not in the tie-breaker"
        raise RuleError(f"{winner} {why}, so cannot win", field="winner")
    results = event.get("results")
    if not isinstance(results, dict):
        raise RuleError("results must give every loser's result", field="results")
    if winner in results:
        raise RuleError(
            f"{winner} won the deal, so has no result: one winner only",
            field=f"results.{winner}",
            player=winner,
        )
    for name in results:
        if state.player(name) is None:
            raise RuleError(
                f"{name} is not at this table", field=f"results.{name}", player=str(name)
            )
        if name not in playing_names:
            why = "is out" if state.format == "pool" else "is not in the tie-breaker"
            raise RuleError(f"{name} {why} and has no result", field=f"results.{name}", player=name)
    points = {}
    for p in playing:
        if p.name == winner:
            continue
        where = f"results.{p.name}"
        if p.name not in results:
            raise RuleError("result missing", field=where, player=p.name)
        points[p.name] = _result(state, p, results[p.name], where)

    number = state.deals_played + 1
    dealer = state._dealer_for_next_deal()
    row = Row(
        index=0,
        type="deal",
        number=number,
        dealer=dealer,
        winner=winner,
        results={p.name: results[p.name] for p in playing if p.name != winner},
        points=points,
        tie_breaker=state.tie_breaker,
    )
    state.last_dealer = state.player(dealer).seat
    state.deals_played = number
    state.rejoined_this_break = set()
    win = state.player(winner)
    for name, value in points.items():
        p = state.player(name)
        p.total += value
        if results[name] in DROPS:
            p.drops_taken += 1
        if state.format == "deals":
            paid = min(value, p.chips)
            p.chips -= paid
            win.chips += paid
        elif state.format == "points":
            p.balance -= value
            win.balance += value

    if state.format == "pool":
        limit = out_total(rules)
        for p in playing:
            if p.is_in and p.total >= limit:
                p.status = "out"
                row.went_out.append(p.name)
        left = [p for p in state.players if p.is_in]
        state.in_after_last_deal = [p.name for p in left]
        if len(left) == 1:
            state.status = "finished"
            state.winner = left[0].name
    elif state.format == "deals":
        if state.tie_breaker:
            state.tie_breaker = False
            state.status = "finished"
            state.winner = winner
        elif number >= rules["deal_count"]:
            top = state.tied
            if len(top) == 1:
                state.status = "finished"
                state.winner = top[0].name
            else:
                state.tie_breaker = True
    return row


def _result(state, player, result, where):
    rules = state.rules
    if isinstance(result, str):
        if result not in RESULT_WORDS:
            raise RuleError(
                f"{result!r} is not a result: give points, first_drop, middle_drop, "
                "full_count or wrong_show",
                field=where,
                player=player.name,
            )
        if result in DROPS:
            if state.format == "deals" and not rules["drops_allowed"]:
                raise RuleError("drops are off at this table", field=where, player=player.name)
            most = rules.get("max_drops")
            if state.format == "pool" and most is not None and player.drops_taken >= most:
                raise RuleError(
                    f"has taken {player.drops_taken} drops, the most this table allows",
                    field=where,
                    player=player.name,
                )
        return rules[result]
    if isinstance(result, bool) or not isinstance(result, int):
        raise RuleError("points must be a whole number", field=where, player=player.name)
    low = 1 if rules["ace_value"] == 1 else 2
    if result != 0 and not low <= result <= rules["full_count"]:
        raise RuleError(
            f"points must be 0 or between {low} and {rules['full_count']}",
            field=where,
            player=player.name,
        )
    return result


def _rejoin(state, event):
    _extra_keys(event, ("player",))
    name = event.get("player")
    if not isinstance(name, str) or not name:
        raise RuleError("name the player who rejoins", field="player")
    why = state.rejoin_refusal(name)
    if why:
        raise RuleError(f"{name} cannot rejoin: {why}", field="player", player=None)
    p = state.player(name)
    start = state.rejoin_total()
    p.total = start
    p.status = "in"
    p.rejoins += 1
    p.drops_taken = 0
    state.rejoined_this_break.add(name)
    return Row(index=0, type="rejoin", player=name, start_total=start)


def _split(state, event):
    _extra_keys(event, ("method", "shares"))
    method = event.get("method", "drops")
    shares = state.split_shares(method, event.get("shares"))
    state.split = shares
    state.split_method = method
    state.status = "finished"
    return Row(index=0, type="split", shares=dict(shares), results={"method": method})


def _end(state, event):
    _extra_keys(event, ())
    if state.format != "points":
        raise RuleError("only a points session is ended by the family", field="type")
    if state.finished:
        raise RuleError("the session has already ended", field="type")
    state.ended = True
    state.status = "finished"
    return Row(index=0, type="end")


def _figures(state):
    """The figure per player that the history table and chart show after an event."""
    if state.format == "deals":
        return {p.name: p.chips for p in state.players}
    if state.format == "points":
        return {p.name: p.balance for p in state.players}
    return {p.name: p.total for p in state.players}


def _refresh(state):
    if state.format != "pool":
        return
    rules = state.rules
    limit = out_total(rules)
    most = rules["max_drops"]
    for p in state.players:
        if not p.is_in:
            p.drops_left = 0
            continue
        left = max(0, (limit - 1 - p.total) // rules["first_drop"])
        if most is not None:
            left = min(left, max(0, most - p.drops_taken))
        p.drops_left = left
