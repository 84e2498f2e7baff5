"""Deals rummy (best of 2, 3, 6 or any number): chips change hands, most chips wins."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from .base import Preset, RuleInput
from .money_format import format_money
from .shapes import Cell, Document, Payment, Rules
from .state import GameState, Player, Row
from .table import N_, RULE_LABELS, Phrase, and_list, flag, money_rule, whole
from .thirteen import CARD_INPUTS, Thirteen

RULE_LABELS.update(
    {
        "deal_count": N_("number of deals"),
        "starting_chips": N_("starting chips"),
        "drops_allowed": N_("drops allowed"),
    }
)


class Deals(Thirteen):
    name = "deals"
    label = N_("Deals")
    rule_keys = (
        "deal_count", "starting_chips", "drops_allowed", "first_drop", "middle_drop",
        "full_count", "wrong_show", "ace_value", "entry_fee", "money_unit",
    )  # fmt: skip
    figure_name = N_("Chips")
    chart_title = N_("Chips after each deal")
    presets = (
        Preset("deals-2", N_("Deals, best of 2"), {"deal_count": 2}),
        Preset("deals-3", N_("Deals, best of 3"), {"deal_count": 3}),
        Preset("deals-6", N_("Deals, best of 6"), {"deal_count": 6}),
        Preset(
            "deals-other",
            N_("Deals, other number"),
            {},
            "deal_count",
            N_("Number of deals"),
            N_("e.g. 4"),
        ),
    )
    form_rules = (
        "first_drop", "middle_drop", "full_count", "wrong_show", "starting_chips",
        "drops_allowed", "entry_fee", "ace_value", "money_unit",
    )  # fmt: skip
    rule_inputs = {
        **CARD_INPUTS,
        "deal_count": RuleInput(),
        "starting_chips": RuleInput(),
        "drops_allowed": RuleInput("flag"),
    }

    def fill_tail(self, rules: Rules, out: Rules) -> None:
        rules.setdefault("entry_fee", "0")
        out["entry_fee"] = money_rule(rules, "entry_fee", out["money_unit"])
        rules.setdefault("deal_count", 2)
        out["deal_count"] = whole(rules, "deal_count", 1, 100)
        rules.setdefault("starting_chips", 80 * out["deal_count"])
        out["starting_chips"] = whole(rules, "starting_chips", 0, 1_000_000)
        rules.setdefault("drops_allowed", True)
        out["drops_allowed"] = flag(rules, "drops_allowed")

    def default_name(self, rules: Rules) -> str:
        return Phrase(N_("Deals, best of %(n)s"), {"n": rules["deal_count"]})

    def listing_label(self, rules: Rules) -> str:
        return Phrase(N_("Deals, best of %(n)s"), {"n": rules["deal_count"]})

    def start(self, state: GameState) -> None:
        for p in state.players:
            p.chips = state.rules["starting_chips"]

    def join_refusal(self, state: GameState) -> str | None:
        return N_("every player's chips are fixed at the start of a deals game")

    def drops_off(self, rules: Rules) -> bool:
        return not rules["drops_allowed"]

    def pay(self, state: GameState, loser: Player, winner: Player, value: int) -> None:
        # Chips never go below 0: a loser pays at most what they hold.
        paid = min(value, loser.chips)
        loser.chips -= paid
        winner.chips += paid

    def after_deal(self, state: GameState, row: Row) -> None:
        if state.tie_breaker:
            state.tie_breaker = False
            state.status = "finished"
            state.winner = row.winner
        elif row.number >= state.rules["deal_count"]:
            top = state.tied
            if len(top) == 1:
                state.status = "finished"
                state.winner = top[0].name
            else:
                state.tie_breaker = True

    def figure(self, state: GameState, player: Player) -> int:
        return player.chips

    def tied(self, state: GameState) -> list[Player]:
        top = max(p.chips for p in state.players)
        return [p for p in state.players if p.chips == top]

    def leaders(self, state: GameState) -> list[str]:
        return [p.name for p in state.tied]

    def deals_left(self, state: GameState) -> int:
        if state.tie_breaker:
            return 0
        return max(0, state.rules["deal_count"] - state.deals_played)

    def settlement(self, state: GameState) -> list[Payment]:
        """At the end, every other player pays the winner an entry fee."""
        fee = Decimal(state.rules["entry_fee"])
        if not state.finished or not state.winner or not fee:
            return []
        return [(p.name, state.winner, fee) for p in state.players if p.name != state.winner]

    def player_document(self, state: GameState, player: Player) -> Document:
        return {"chips": player.chips}

    def state_document(self, state: GameState) -> Document:
        return {"deals_left": state.deals_left}

    # -- the family table

    def table_money(self, rules: Rules, state: Document) -> dict[str, Decimal]:
        """The winner gains an entry fee from every other player."""
        fee = Decimal(rules["entry_fee"])
        others = len(state["players"]) - 1
        winner = state.get("winner")
        return {p["name"]: fee * others if p["name"] == winner else -fee for p in state["players"]}

    def standing(self, rules: Rules, player: Document, last_dealt: int) -> tuple[int, ...]:
        return (player["chips"],)

    # -- what the pages show

    def meta(self, state: GameState, pot: str) -> str:
        if state.tie_breaker:
            left = Phrase(N_("tie-breaker"))
        elif state.deals_left == 1:
            left = Phrase(N_("1 deal left"))
        else:
            left = Phrase(N_("%(n)s deals left"), {"n": state.deals_left})
        best_of = Phrase(
            N_(" · best of %(n)s · %(left)s"), {"n": state.rules["deal_count"], "left": left}
        )
        fee = Decimal(state.rules["entry_fee"])
        if not fee or state.finished:
            return best_of
        # The winner collects every other player's entry fee: the whole prize.
        prize = format_money(fee * len(state.players), state.rules)
        return Phrase(N_("%(meta)s · prize %(prize)s"), {"meta": best_of, "prize": prize})

    def columns(self, state: GameState) -> list[str]:
        return [N_("Chips"), N_("Points")]

    def cells(self, state: GameState, player: Player, line: Mapping[str, object]) -> list[Cell]:
        return [{"text": str(player.chips)}, {"text": str(player.total)}]

    def tie_breaker_note(self, state: GameState) -> str:
        names = and_list(list(state.leaders))
        return Phrase(
            N_("Tie-breaker! %(names)s are level on chips and play on until one wins a deal."),
            {"names": names},
        )

    def chart_start(self, rules: Rules) -> int:
        return rules["starting_chips"]


FORMAT = Deals()
