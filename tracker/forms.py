"""Forms turn what was typed into events and table rules for the rules engine.

They check only what the engine cannot see (is it a number at all?); every
rule is left to `rules.py`, whose refusals are put back beside the field
they name, so the pages and the import command refuse with the same words.
"""

from decimal import Decimal, InvalidOperation
from html import escape

from django.utils.safestring import mark_safe

from . import rules

# One tap picks the format: (key, label, format, fixed rules).
FORMAT_CHOICES = [
    ("pool-101", "Pool 101", "pool", {"pool_limit": 101}),
    ("pool-201", "Pool 201", "pool", {"pool_limit": 201}),
    ("pool-61", "Pool 61", "pool", {"pool_limit": 61}),
    ("pool-other", "Pool, other limit", "pool", {}),
    ("deals-2", "Deals, best of 2", "deals", {"deal_count": 2}),
    ("deals-3", "Deals, best of 3", "deals", {"deal_count": 3}),
    ("deals-6", "Deals, best of 6", "deals", {"deal_count": 6}),
    ("deals-other", "Deals, other number", "deals", {}),
    ("points", "Points", "points", {}),
]
FORMATS_BY_KEY = {key: (label, fmt, fixed) for key, label, fmt, fixed in FORMAT_CHOICES}

# Table rules the new-game form shows, per format, in the order shown.
TABLE_RULES = {
    "pool": [
        "first_drop", "middle_drop", "full_count", "wrong_show", "out_at", "entry_fee",
        "rejoin", "rejoin_cutoff", "max_rejoins", "max_drops", "ace_value", "money_unit",
    ],
    "deals": [
        "first_drop", "middle_drop", "full_count", "wrong_show", "starting_chips",
        "drops_allowed", "entry_fee", "ace_value", "money_unit",
    ],
    "points": ["first_drop", "middle_drop", "full_count", "wrong_show", "ace_value", "money_unit"],
}  # fmt: skip
WHOLE_RULES = {
    "first_drop", "middle_drop", "full_count", "wrong_show", "rejoin_cutoff", "max_rejoins",
    "max_drops", "starting_chips", "pool_limit", "deal_count", "ace_value",
}  # fmt: skip
FLAG_RULES = {"rejoin", "drops_allowed"}
OPTIONAL_RULES = {"max_rejoins", "max_drops"}  # blank means no limit
RULE_HELP = {
    "out_at": "Out on reaching the limit, or only on going past it",
    "rejoin_cutoff": "Nobody may rejoin once the highest total still in is above this",
    "max_rejoins": "Blank: no limit",
    "max_drops": "Blank: only the total limits drops",
    "money_unit": "0.01, or 1 for whole rupees",
    "ace_value": "10, or 1",
}
MAX_TYPED = 12  # characters: longer than any figure the rules allow


def format_rules(key, limit=None, deal_count=None, point_value=None):
    """(format, rules) for a format key, with the typed limit, count or point value."""
    _, fmt, fixed = FORMATS_BY_KEY[key]
    chosen = dict(fixed)
    if key == "pool-other" and limit is not None:
        chosen["pool_limit"] = limit
    if key == "deals-other" and deal_count is not None:
        chosen["deal_count"] = deal_count
    if fmt == "points" and point_value not in (None, ""):
        chosen["point_value"] = point_value
    return fmt, chosen


def defaults_for(key, limit=None, deal_count=None, point_value=None):
    """Every table rule's default for a format key, as the engine fills them."""
    fmt, chosen = format_rules(key, limit, deal_count, point_value)
    try:
        return rules.normalize_rules(fmt, chosen)
    except rules.RuleError:
        return rules.normalize_rules(fmt, {})


def shown(value):
    """A rule as the form shows it."""
    if value is None:
        return ""
    if value is True:
        return "on"
    if value is False:
        return ""
    return str(value)


def parse_whole(text):
    text = (text or "").strip()
    if len(text) > MAX_TYPED:
        raise ValueError
    return int(text)


class NewGame:
    """The new-game form: format, seats, first dealer and table rules.

    A plain class rather than a Django Form: the seats are a list the player
    edits (add, remove, move) by posting the form back, which works the same
    with and without JavaScript.
    """

    def __init__(self, data=None):
        self.errors = {}
        self.data = data
        if data is None:
            self.key = "pool-101"
            self.limit = ""
            self.deal_count = ""
            self.point_value = "1"
            self.name = ""
            self.players = ["", "", "", ""]
            self.dealer = 0
            self.rules_for = self.key
            self.rule_values = {k: shown(v) for k, v in defaults_for(self.key).items()}
            return
        self.key = data.get("format", "pool-101")
        if self.key not in FORMATS_BY_KEY:
            self.errors["format"] = "Pick a format"
            self.key = "pool-101"
        self.limit = (data.get("pool_limit") or "").strip()[:MAX_TYPED]
        self.deal_count = (data.get("deal_count") or "").strip()[:MAX_TYPED]
        self.point_value = (data.get("point_value") or "").strip()[:MAX_TYPED]
        self.name = (data.get("name") or "")[:200]
        self.players = [str(p)[:200] for p in data.getlist("player")][: rules.MAX_PLAYERS + 1]
        try:
            self.dealer = int(data.get("dealer", 0))
        except ValueError:
            self.dealer = 0
        self.rules_for = data.get("rules_for", self.key)
        if self.rules_for not in FORMATS_BY_KEY:
            self.rules_for = self.key
        self.rule_values = {
            key: (data.get(key) or "").strip()[:MAX_TYPED]
            for key in set().union(*TABLE_RULES.values())
        }
        # An unticked box is not posted at all: read the boxes only when the
        # form that shows them was posted.
        self.rules_shown = bool(data.get("rules_shown"))
        for key in FLAG_RULES:
            if self.rules_shown:
                self.rule_values[key] = "on" if data.get(key) else ""
            else:
                self.rule_values[key] = shown(self._defaults(self.rules_for).get(key))

    @property
    def fmt(self):
        return FORMATS_BY_KEY[self.key][1]

    # -- the seat list, edited by posting the form back

    def edit_seats(self, action):
        """Apply an add / remove / up / down button; returns True if it was one."""
        what, _, where = (action or "").partition("-")
        try:
            seat = int(where) if where else None
        except ValueError:
            return False
        players = self.players
        if what == "add" and len(players) < rules.MAX_PLAYERS:
            players.append("")
        elif what == "remove" and seat is not None and 0 <= seat < len(players):
            players.pop(seat)
            if self.dealer >= len(players) or self.dealer == seat:
                self.dealer = 0
            elif self.dealer > seat:
                self.dealer -= 1
        elif what in ("up", "down") and seat is not None and 0 <= seat < len(players):
            other = seat - 1 if what == "up" else seat + 1
            if 0 <= other < len(players):
                players[seat], players[other] = players[other], players[seat]
                if self.dealer in (seat, other):
                    self.dealer = other if self.dealer == seat else seat
        elif what != "refresh":
            return False
        if what == "refresh" or self.rules_for != self.key:
            self._refill_rules()
        return True

    def _refill_rules(self):
        """Show the new format's defaults where the rules were left as they were."""
        old = {k: shown(v) for k, v in self._defaults(self.rules_for).items()}
        new = {k: shown(v) for k, v in self._defaults(self.key).items()}
        for key in self.rule_values:
            if self.rule_values[key] == old.get(key, self.rule_values[key]):
                self.rule_values[key] = new.get(key, "")
        self.rules_for = self.key

    def _defaults(self, key):
        try:
            limit = int(self.limit) if self.limit else None
            count = int(self.deal_count) if self.deal_count else None
        except ValueError:
            limit = count = None
        return defaults_for(key, limit, count, self.point_value or None)

    # -- checking

    def table_rules(self):
        """The rules to give the engine: typed values, less those left at the defaults
        of the format they were filled for (so a format changed without JavaScript
        takes its own defaults)."""
        fmt, chosen = self._chosen()
        old = {k: shown(v) for k, v in self._defaults(self.rules_for).items()}
        for key in TABLE_RULES[fmt]:
            typed = self.rule_values.get(key, "")
            if key in FLAG_RULES:
                # A checkbox left as filled keeps the default, as any other rule.
                if typed != old.get(key, typed):
                    chosen[key] = typed == "on"
                continue
            if typed == old.get(key, typed) or (typed == "" and key not in OPTIONAL_RULES):
                continue
            if typed == "" and key in OPTIONAL_RULES:
                chosen[key] = None
            elif key in WHOLE_RULES:
                try:
                    chosen[key] = parse_whole(typed)
                except ValueError:
                    self.errors[f"rules.{key}"] = (
                        f"{rules.RULE_LABELS[key].capitalize()} must be a whole number"
                    )
            else:
                chosen[key] = typed
        return fmt, chosen

    def _chosen(self):
        limit = count = None
        if self.key == "pool-other":
            try:
                limit = parse_whole(self.limit)
            except ValueError:
                self.errors["rules.pool_limit"] = "Type the pool limit, a whole number"
        if self.key == "deals-other":
            try:
                count = parse_whole(self.deal_count)
            except ValueError:
                self.errors["rules.deal_count"] = "Type the number of deals, a whole number"
        value = self.point_value if self.fmt == "points" else None
        if value is not None and value != "":
            try:
                Decimal(value)
            except InvalidOperation:
                self.errors["rules.point_value"] = 'Point value must be an amount such as "0.25"'
                value = None
        return format_rules(self.key, limit, count, value)

    def seats(self):
        """The typed names, blanks dropped, and the first dealer's name."""
        names = [" ".join(p.split()) for p in self.players]
        dealer_name = names[self.dealer] if 0 <= self.dealer < len(names) else ""
        named = [n for n in names if n]
        return named, dealer_name if dealer_name else (named[0] if named else None)

    def add_error(self, error):
        """Put an engine refusal beside its field."""
        where = error.field or "form"
        if where.startswith("players"):
            where = "players"
        self.errors.setdefault(where, error.message[0].upper() + error.message[1:])

    def rule_fields(self):
        """(key, label, value, help, error) for the table rules of the chosen format."""
        out = []
        for key in TABLE_RULES[self.fmt]:
            out.append(
                {
                    "key": key,
                    "label": rules.RULE_LABELS[key].capitalize(),
                    "value": self.rule_values.get(key, ""),
                    "help": RULE_HELP.get(key, ""),
                    "error": self.errors.get(f"rules.{key}"),
                    "flag": key in FLAG_RULES,
                    "choices": {
                        "out_at": [("reach", "Reach the limit"), ("exceed", "Go past it")],
                        "ace_value": [("10", "10"), ("1", "1")],
                        "money_unit": [("0.01", "0.01"), ("1", "1 (whole)")],
                    }.get(key),
                    "numeric": key in WHOLE_RULES,
                }
            )
        return out


class DealEntry:
    """The deal form: a winner, and for every other player in, points or a word.

    Field names use seats (`winner` = seat, `r<seat>` = the result's kind,
    `p<seat>` = points), never names, so any name is safe in a form.
    """

    def __init__(self, state, playing, data=None, event=None):
        self.state = state
        self.playing = playing  # the players dealt this deal
        self.errors = {}
        self.winner = ""
        self.kinds = {p.seat: "points" for p in playing}
        self.points = {p.seat: "" for p in playing}
        if event is not None:
            winner = state.player(event["winner"])
            self.winner = str(winner.seat) if winner else ""
            for p in playing:
                result = event.get("results", {}).get(p.name)
                if isinstance(result, str):
                    self.kinds[p.seat] = result
                elif result is not None:
                    self.points[p.seat] = str(result)
        if data is not None:
            self.winner = (data.get("winner") or "")[:4]
            for p in playing:
                kind = data.get(f"r{p.seat}") or "points"
                self.kinds[p.seat] = kind if kind in rules.RESULT_WORDS else "points"
                self.points[p.seat] = (data.get(f"p{p.seat}") or "").strip()[:MAX_TYPED]

    def event(self):
        """The deal as an event for the engine, or None with self.errors filled."""
        by_seat = {str(p.seat): p for p in self.playing}
        winner = by_seat.get(self.winner)
        if winner is None:
            self.errors["winner"] = "Tap the player who won the deal"
            return None
        results = {}
        for p in self.playing:
            if p is winner:
                continue
            kind = self.kinds[p.seat]
            if kind != "points":
                results[p.name] = kind
                continue
            typed = self.points[p.seat]
            if typed == "":
                self.errors[p.seat] = f"{p.name}: type the points or tap a drop"
                continue
            try:
                results[p.name] = parse_whole(typed)
            except ValueError:
                self.errors[p.seat] = f"{p.name}: points must be a whole number"
        if self.errors:
            return None
        return {"type": "deal", "winner": winner.name, "results": results}

    def add_error(self, error):
        """Put an engine refusal beside the player (or the winner) it names."""
        player = self.state.player(error.player) if error.player else None
        if player is not None and player.seat in self.kinds:
            self.errors[player.seat] = error.for_player
        elif error.field == "winner":
            self.errors["winner"] = error.message[0].upper() + error.message[1:]
        else:
            self.errors["form"] = error.message[0].upper() + error.message[1:]

    def rows(self):
        """One row per player dealt in, for the template."""
        buttons = self.buttons()
        out = []
        for p in self.playing:
            out.append(
                {
                    "player": p,
                    "won": self.winner == str(p.seat),
                    "kind": self.kinds[p.seat],
                    "points": self.points[p.seat],
                    "error": self.errors.get(p.seat),
                    "chips": _word_chips(p.seat, self.kinds[p.seat], buttons),
                }
            )
        return out

    def buttons(self):
        """The one-tap results with this game's values."""
        words = list(rules.RESULT_WORDS)
        if self.state.format == "deals" and not self.state.rules["drops_allowed"]:
            words = ["full_count", "wrong_show"]
        return [(w, rules.RESULT_LABELS[w], self.state.rules[w]) for w in words]


def _word_chips(seat, kind, buttons):
    """A player's one-tap results (First drop 20, ...), the chosen one checked.

    Built here rather than looped in the template: six players of four chips
    each were a third of the deal form's rendering time (bench/README.md).
    """
    # Safe: the words, labels and values are escaped.
    return mark_safe(
        "".join(
            f'<label class="chip word"><input type="radio" name="r{int(seat)}" '
            f'value="{escape(str(word))}"{" checked" if kind == word else ""}>'
            f"<span>{escape(str(label))}</span> <b>{escape(str(value))}</b></label>"
            for word, label, value in buttons
        )
    )


def split_shares_typed(state, data):
    """Typed custom shares, by name, for the players still in."""
    return {
        p.name: (data.get(f"s{p.seat}") or "").strip()[:MAX_TYPED] for p in state.players if p.is_in
    }
