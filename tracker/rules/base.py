"""The format object: everything a format of the rummy family decides.

A format module (pool.py, deals.py, points.py, basic.py) makes one subclass
of `Format` and an instance of it; formats.py lists them in `FORMATS`. The
engine (engine.py) asks the format how to check its rules, score a deal and
end the game; the pages ask it what to show (columns, badges, presets). The
defaults here are what most formats do, so a format writes only what differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from .shapes import Badge, Cell, Document, Event, Payment, Result, Rules
from .state import GameState, Player, Row
from .table import N_, RuleError


@dataclass(frozen=True)
class Preset:
    """One tap on the new-game screen: a format with some rules fixed.

    `typed` names the one rule typed beside the preset (pool_limit for "Pool,
    other limit"), with its label and placeholder, or is None.
    """

    key: str
    label: str
    fixed: Rules = field(default_factory=dict)
    typed: str | None = None
    typed_label: str = ""
    placeholder: str = ""
    decimal: bool = False  # the typed rule is an amount, not a whole number
    initial: str = ""  # what the typed box shows on a fresh form


@dataclass(frozen=True)
class RuleInput:
    """How the new-game form shows one table rule."""

    kind: str = "whole"  # whole | money | flag | choice
    help: str = ""
    choices: tuple[tuple[str, str], ...] = ()  # (value, text) for a choice
    optional: bool = False  # blank means none (null)


# Beside an entry fee or a point value: what the engine takes (table.money_rule).
PLAIN_AMOUNT_HELP = N_("A plain amount such as 0.25, digits 0-9")
MONEY_UNIT_INPUT = RuleInput(
    "choice", N_("0.01, or 1 for whole rupees"), (("0.01", "0.01"), ("1", N_("1 (whole)")))
)


class Format:
    name = ""
    label = ""
    rule_keys: tuple[str, ...] = ()  # in the order a game document writes them
    calculator = True  # the hand calculator and its house rules are offered
    deal_keys: tuple[str, ...] = ()  # keys a deal may carry besides winner and results
    ends_by_family = False  # an `end` event closes the game (points)
    figure_name = N_("Total")  # the figure the history and chart show after each deal
    chart_title = N_("Running totals")
    chart_below_zero = False  # the figure can fall below 0 (points balances)
    presets: tuple[Preset, ...] = ()  # Preset, in the order the new-game screen shows them
    form_rules: tuple[str, ...] = ()  # the table rules the new-game form shows, in order
    rule_inputs: dict[str, RuleInput] = {}  # key -> RuleInput for the rules this format adds
    settles = False  # the game screen shows who pays whom
    not_playing = N_("is not in the tie-breaker")  # why a player not dealt in has no result
    takes_joins = False  # a new player may take a seat mid-game (pool, points)
    sits_out = False  # players may sit out, come back in and leave (points)
    result_noun = N_("points")  # what a loser's typed figure is called on the deal form
    result_short = N_("pts")  # the same, as the box's placeholder
    missing_result = N_("type the points or tap a drop")
    deal_prompt = N_("Tap the winner, then each other player's points or drop")

    # -- table rules

    def fill_rules(self, rules: Rules, out: Rules) -> None:
        """Check this format's rules in `rules` (defaults set in place) into `out`."""
        raise NotImplementedError

    def default_name(self, rules: Rules) -> str:
        """The name of a game left unnamed: a Phrase, stored in English (it reads
        as its English words) and shown in the reader's language."""
        raise NotImplementedError

    def listing_label(self, rules: Rules) -> str:
        """The format in a list of games: "Pool 101", "Deals, best of 3" (each format words it)."""
        raise NotImplementedError

    # -- replaying

    def start(self, state: GameState) -> None:
        """Set up the figures before the first deal."""

    def result(self, state: GameState, player: Player, value: object, where: str) -> int:
        """The points a loser's result scores, or RuleError."""
        raise NotImplementedError

    def check_deal(self, state: GameState, event: Event) -> None:
        """Refuse what is wrong with the deal as a whole (before anything changes)."""

    def score_deal(self, state: GameState, row: Row, winner: str) -> None:
        """Add the deal's points (row.points) to the figures."""
        raise NotImplementedError

    def after_deal(self, state: GameState, row: Row) -> None:
        """Who is out, whether the game is over, after the deal has been scored."""

    def not_playing_for(self, state: GameState, player: Player) -> str:
        """Why `player` is not dealt the next deal ("is out", "sits out")."""
        return self.not_playing

    def join_refusal(self, state: GameState) -> str | None:
        """Why nobody may join now (after the checks of every format), or None."""
        return N_("only pool and points games take a new player mid-game")

    def join_total(self, state: GameState) -> int:
        """The total a joiner starts at."""
        return 0

    def figure(self, state: GameState, player: Player) -> int:
        """The figure the history table and chart show after an event."""
        return player.total

    def refresh(self, state: GameState) -> None:
        """Work out derived figures again after any event."""

    def leaders(self, state: GameState) -> list[str]:
        return []

    def tied(self, state: GameState) -> list[Player]:
        return []

    def deals_left(self, state: GameState) -> int:
        return 0

    def pot(self, state: GameState) -> Decimal:
        return Decimal(0)

    def amount(self, state: GameState, player: Player) -> Decimal:
        return Decimal(0)

    def settlement(self, state: GameState) -> list[Payment]:
        return []

    def money_rows(self, state: GameState) -> list[dict[str, str]] | None:
        """The game sheet's money columns (tracker/documents/game_csv.py): for each
        row, player -> the money they have won (negative: paid) after it; None where
        no money passes between the players (pool and deals have a pot, a split
        row shows each share) or the table plays for fun."""
        return None

    def rejoin_refusal(self, state: GameState, name: str) -> str | None:
        return N_("only pool has rejoins")

    def drop_warning(self, state: GameState, player: Player, result: Result) -> str | None:
        """A warning to confirm before this result is saved (a drop for a player
        with no drops left), or None. Saved as it is once confirmed."""
        return None

    def why_out(self, state: GameState, player: Player) -> str | None:
        """How `player` went out ("84 + 20 = 104 ≥ 101"), or None."""
        return None

    def can_split(self, state: GameState) -> bool:
        return False

    def split_shares(self, state: GameState, method: object, shares: object) -> dict[str, Decimal]:
        raise RuleError(N_("only pool games are split"), field="type")

    def player_document(self, state: GameState, player: Player) -> Document:
        """What the document's `state.players[]` adds for this format."""
        return {}

    def state_document(self, state: GameState) -> Document:
        """What the document's `state` adds for this format."""
        return {}

    # -- the family table (shared/docs/tables.md), from a finished game's document

    def table_winner(self, rules: Rules, state: Document) -> str | None:
        """Who won one game, as the table's Wins count it; `state` is the
        document's `state`. By default the game's own winner."""
        return state.get("winner")

    def table_money(self, rules: Rules, state: Document) -> dict[str, Decimal]:
        """Each player's net money over one finished game, as Decimals.

        `state` is the document's `state`. By default: where the settlement
        leaves each player (points and basic).
        """
        out = {p["name"]: Decimal(0) for p in state["players"]}
        for pay in state.get("settlement", []):
            amount = Decimal(pay["amount"])
            out[pay["from"]] -= amount
            out[pay["to"]] += amount
        return out

    def standing(self, rules: Rules, player: Document, last_dealt: int) -> tuple[int, ...]:
        """How far one player (not the winner) finished: of two, the greater is ahead.

        `player` is the document's `state.players[]` entry; `last_dealt` the
        number of the last deal they were dealt in. Every format words its
        own (the lower total, the more chips, the better balance ...).
        """
        raise NotImplementedError

    # -- what the pages show

    def meta(self, state: GameState, pot: str) -> str:
        """The line under the game's name, after the format's label (every format has one).

        `pot` is the pot as the document writes money ("150.00")."""
        raise NotImplementedError

    def columns(self, state: GameState) -> list[str]:
        """The scoreboard's column headers after the player's name."""
        return [self.figure_name]

    def cells(self, state: GameState, player: Player, line: Mapping[str, object]) -> list[Cell]:
        """The scoreboard's cells for one player, in the order of `columns`.

        Each is {"text": ..., "badge": optional (text, css class)}.
        """
        return [{"text": str(self.figure(state, player))}]

    def badges(self, state: GameState, player: Player) -> list[Badge]:
        """Badges beside a player's name besides leader, winner and dealer: [(text, class)]."""
        return []

    def row_classes(self, state: GameState, player: Player) -> list[str]:
        """Extra classes of a player's scoreboard row."""
        return []

    def tie_breaker_note(self, state: GameState) -> str:
        """The note over the board in a tie-breaker: a format that plays one
        (deals, basic) says who is level on what."""
        raise NotImplementedError

    def settlement_note(self, state: GameState) -> str:
        """What the settlement says when nobody has to pay."""
        return N_("Nobody owes anything.")

    def chart_start(self, rules: Rules) -> int:
        """The figure every line starts at (deal 0)."""
        return 0

    def chart_line(self, rules: Rules) -> tuple[int, str, str] | None:
        """A dashed line across the chart: (value, title, label), or None."""
        return None

    def result_buttons(self, rules: Rules) -> list[tuple[str, str, int]]:
        """One-tap results on the deal form: [(word, label, value)]."""
        return []

    def rummy_mark(self, rules: Rules) -> bool:
        """Whether the deal form offers the "went rummy" mark."""
        return False

    def won_label(self, row: Row) -> str:
        """How the history marks the winner's box."""
        return N_("Won")
