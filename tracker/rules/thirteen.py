"""What the three formats of Indian 13-card rummy share: drops, full count, wrong show.

Pool, deals and points score a loser's result the same way (points, or one
of the result words at the table's value); `Thirteen` writes that once.
"""

from __future__ import annotations

from .base import MONEY_UNIT_INPUT, PLAIN_AMOUNT_HELP, Format, RuleInput
from .shapes import Rules
from .state import GameState, Player, Row
from .table import N_, RULE_LABELS, RuleError, choice, whole

TYPED_RESULT = "points"  # a result typed as a number, as the deal form names its kind
RESULT_WORDS = ("first_drop", "middle_drop", "full_count", "wrong_show")
DROPS = ("first_drop", "middle_drop")
CARD_KEYS = ("first_drop", "middle_drop", "full_count", "wrong_show", "ace_value")

RESULT_LABELS = {
    "first_drop": N_("First drop"),
    "middle_drop": N_("Middle drop"),
    "full_count": N_("Full count"),
    "wrong_show": N_("Wrong show"),
}

RULE_LABELS.update(
    {
        "first_drop": N_("first drop"),
        "middle_drop": N_("middle drop"),
        "full_count": N_("full count"),
        "wrong_show": N_("wrong show"),
        "ace_value": N_("ace value"),
        "entry_fee": N_("entry fee"),
    }
)

CARD_INPUTS = {
    "first_drop": RuleInput(),
    "middle_drop": RuleInput(),
    "full_count": RuleInput(),
    "wrong_show": RuleInput(),
    "ace_value": RuleInput("whole", N_("10, or 1"), (("10", "10"), ("1", "1"))),
    "money_unit": MONEY_UNIT_INPUT,
    "entry_fee": RuleInput("money", PLAIN_AMOUNT_HELP),
}


def card_defaults(limit: int | None = None) -> dict[str, int]:
    """Drop and cap values, which follow the pool limit (rules.md)."""
    if limit == 61:
        return {"first_drop": 15, "middle_drop": 30, "full_count": 60, "wrong_show": 60}
    if limit == 201:
        return {"first_drop": 25, "middle_drop": 50, "full_count": 80, "wrong_show": 80}
    return {"first_drop": 20, "middle_drop": 40, "full_count": 80, "wrong_show": 80}


class Thirteen(Format):
    min_first_drop = 0

    def fill_rules(self, rules: Rules, out: Rules) -> None:
        self.fill_head(rules, out)
        defaults = card_defaults(out.get("pool_limit"))
        for key in ("first_drop", "middle_drop", "full_count", "wrong_show"):
            rules.setdefault(key, defaults[key])
            out[key] = whole(rules, key, 0, 200)
        rules.setdefault("ace_value", 10)
        out["ace_value"] = choice(rules, "ace_value", (10, 1))
        # 0 <= first_drop <= middle_drop <= full_count <= 200, 0 <= wrong_show <= full_count.
        if out["first_drop"] < self.min_first_drop:
            raise RuleError(
                N_("first drop must be at least %(n)s in %(format)s"),
                params={"n": self.min_first_drop, "format": self.name},
                field="rules.first_drop",
            )
        if out["middle_drop"] < out["first_drop"]:
            raise RuleError(
                N_("middle drop must not be less than the first drop"), field="rules.middle_drop"
            )
        if out["full_count"] < out["middle_drop"]:
            raise RuleError(
                N_("full count must not be less than the middle drop"), field="rules.full_count"
            )
        if out["wrong_show"] > out["full_count"]:
            raise RuleError(
                N_("wrong show must not be more than the full count"), field="rules.wrong_show"
            )
        self.fill_tail(rules, out)

    def fill_head(self, rules: Rules, out: Rules) -> None:
        """The rules checked before the drops and the cap."""

    def fill_tail(self, rules: Rules, out: Rules) -> None:
        """The rules checked after them."""

    def drops_off(self, rules: Rules) -> bool:
        return False

    def check_drop(self, state: GameState, player: Player, where: str) -> None:
        """Refuse a drop the table does not allow this player now."""

    def result(self, state: GameState, player: Player, result: object, where: str) -> int:
        rules = state.rules
        if isinstance(result, str):
            if result not in RESULT_WORDS:
                raise RuleError(
                    N_(
                        "%(result)s is not a result: give points, first_drop, middle_drop, "
                        "full_count or wrong_show"
                    ),
                    params={"result": repr(result)},
                    field=where,
                    player=player.name,
                )
            if result in DROPS:
                if self.drops_off(rules):
                    raise RuleError(
                        N_("drops are off at this table"), field=where, player=player.name
                    )
                self.check_drop(state, player, where)
            return rules[result]
        if isinstance(result, bool) or not isinstance(result, int):
            raise RuleError(N_("points must be a whole number"), field=where, player=player.name)
        low = 1 if rules["ace_value"] == 1 else 2
        if result != 0 and not low <= result <= rules["full_count"]:
            raise RuleError(
                N_("points must be 0 or between %(low)s and %(high)s"),
                params={"low": low, "high": rules["full_count"]},
                field=where,
                player=player.name,
            )
        return result

    def score_deal(self, state: GameState, row: Row, winner: str) -> None:
        seated = {p.name: p for p in state.players}
        win = seated[winner]
        for name, value in row.points.items():
            p = seated[name]
            p.total += value
            if row.results[name] in DROPS:
                p.drops_taken += 1
            self.pay(state, p, win, value)

    def pay(self, state: GameState, loser: Player, winner: Player, value: int) -> None:
        """Move what the loser's result is worth to the winner (chips, balance)."""

    def result_buttons(self, rules: Rules) -> list[tuple[str, str, int]]:
        words = [w for w in RESULT_WORDS if not (w in DROPS and self.drops_off(rules))]
        return [(w, RESULT_LABELS[w], rules[w]) for w in words]
