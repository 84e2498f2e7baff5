"""Points rummy: a session of single deals, balances in points and money, fewest payments."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from .base import PLAIN_AMOUNT_HELP, Preset, RuleInput
from .money import fewest_payments, money
from .money_format import format_money, plays_for_money
from .shapes import Badge, Cell, Document, Payment, Rules
from .state import GameState, Player
from .table import N_, RULE_LABELS, Phrase, money_rule
from .thirteen import CARD_INPUTS, Thirteen

RULE_LABELS.update({"point_value": N_("point value")})


class Points(Thirteen):
    name = "points"
    label = N_("Points")
    rule_keys = (
        "point_value", "first_drop", "middle_drop", "full_count", "wrong_show", "ace_value",
        "money_unit",
    )  # fmt: skip
    ends_by_family = True
    takes_joins = True
    sits_out = True
    settles = True
    figure_name = N_("Balance")
    chart_title = N_("Balances after each deal")
    chart_below_zero = True
    presets = (
        Preset(
            "points",
            N_("Points"),
            {},
            "point_value",
            N_("Point value"),
            "1",
            decimal=True,
            initial="1",
        ),
    )
    form_rules = (
        "first_drop",
        "middle_drop",
        "full_count",
        "wrong_show",
        "ace_value",
        "money_unit",
    )
    rule_inputs = {**CARD_INPUTS, "point_value": RuleInput("money", PLAIN_AMOUNT_HELP)}

    def fill_tail(self, rules: Rules, out: Rules) -> None:
        rules.setdefault("point_value", "1")
        out["point_value"] = money_rule(rules, "point_value", out["money_unit"])

    def default_name(self, rules: Rules) -> str:
        return Phrase(N_("Points rummy"))

    def listing_label(self, rules: Rules) -> str:
        value = format_money(rules["point_value"], rules)
        return Phrase(N_("Points at %(value)s"), {"value": value})

    def not_playing_for(self, state: GameState, player: Player) -> str:
        return N_("has left") if player.status == "left" else N_("sits out")

    def join_refusal(self, state: GameState) -> str | None:
        return None  # a joiner starts at balance 0

    def pay(self, state: GameState, loser: Player, winner: Player, value: int) -> None:
        loser.balance -= value
        winner.balance += value

    def figure(self, state: GameState, player: Player) -> int:
        return player.balance

    def leaders(self, state: GameState) -> list[str]:
        best = max(p.balance for p in state.players)
        if best == 0:  # balances add up to 0: a best of 0 is everybody at 0, nobody ahead
            return []
        return [p.name for p in state.players if p.balance == best]

    def amount(self, state: GameState, player: Player) -> Decimal:
        return Decimal(player.balance) * Decimal(state.rules["point_value"])

    def settlement(self, state: GameState) -> list[Payment]:
        """The fewest payments that clear every balance."""
        value = Decimal(state.rules["point_value"])
        if value == 0:
            return []
        balances = {p.name: p.balance for p in state.players}
        return [(a, b, points * value) for a, b, points in fewest_payments(balances)]

    def money_rows(self, state: GameState) -> list[dict[str, str]] | None:
        """A balance is money at any time: balance x point value (`amount`)."""
        value = Decimal(state.rules["point_value"])
        if value == 0:
            return None
        return [
            {name: money(Decimal(total) * value) for name, total in row.totals.items()}
            for row in state.rows
        ]

    def player_document(self, state: GameState, player: Player) -> Document:
        return {"balance": player.balance, "amount": money(state.amount(player))}

    def table_winner(self, rules: Rules, state: Document) -> str | None:
        """A session has no winner in the engine; the table counts the best
        balance at the end as its winner (tables.md), if one player alone has it."""
        if state["status"] != "finished":
            return None
        balances = [p["balance"] for p in state["players"]]
        best = max(balances, default=None)
        top = [p["name"] for p in state["players"] if p["balance"] == best]
        return top[0] if len(top) == 1 else None

    def state_document(self, state: GameState) -> Document:
        return {
            "settlement": [
                {"from": a, "to": b, "amount": money(amount)} for a, b, amount in state.settlement
            ]
        }

    # -- the family table

    def standing(self, rules: Rules, player: Document, last_dealt: int) -> tuple[int, ...]:
        return (player["balance"],)  # the better balance

    # -- what the pages show

    def meta(self, state: GameState, pot: str) -> str:
        if not plays_for_money(state.rules):  # played for fun: points only
            return Phrase(N_(" · for fun"))
        value = format_money(state.rules["point_value"], state.rules)
        return Phrase(N_(" · %(value)s a point"), {"value": value})

    def columns(self, state: GameState) -> list[str]:
        if not plays_for_money(state.rules):
            return [N_("Balance (points)")]
        return [N_("Balance (points)"), N_("Money")]

    def badges(self, state: GameState, player: Player) -> list[Badge]:
        if player.status == "sitting_out":
            return [(N_("Sits out"), "")]
        if player.status == "left":
            return [(N_("Left"), "")]
        return []

    def cells(self, state: GameState, player: Player, line: Mapping[str, object]) -> list[Cell]:
        sign = "+" if player.balance > 0 else ""
        balance: Cell = {"text": f"{sign}{player.balance}"}
        if not plays_for_money(state.rules):
            return [balance]
        return [balance, {"text": format_money(money(state.amount(player)), state.rules)}]


FORMAT = Points()
