"""Basic Rummy (format `basic`): the Western family game, scored to a target.

rules.md, "Basic Rummy": every loser counts all the cards left in hand (the
family types the count, 0 to 999). In `winner_collects` (the default) the
deal's winner adds the sum of the counts; in `penalty` each loser adds their
own. A deal marked `rummy` (the winner went out in one turn) counts double,
or each count + 10, or is refused, as `going_rummy` says. The game ends after
the deal in which a total reaches the target, or after `deal_count` deals,
whichever comes first; players level for the win play tie-breaker deals
until one is alone in front. With a point value the losers pay the winner
the difference of the totals at the end.
"""

from __future__ import annotations

from decimal import Decimal

from .base import MONEY_UNIT_INPUT, Format, Preset, RuleInput
from .money import money
from .shapes import Document, Event, Payment, Rules
from .state import GameState, Player, Row
from .table import N_, RULE_LABELS, Phrase, RuleError, and_list, choice, money_rule, whole

SCORINGS = ("winner_collects", "penalty")
GOING_RUMMY = ("double", "plus_10", "off")
MAX_COUNT = 999

RULE_LABELS.update(
    {
        "scoring": N_("scoring"),
        "target": N_("target"),
        "going_rummy": N_("going rummy"),
        "deal_count": N_("number of deals"),
        "point_value": N_("point value"),
    }
)


class Basic(Format):
    name = "basic"
    label = N_("Basic Rummy")
    rule_keys = ("scoring", "target", "deal_count", "going_rummy", "point_value", "money_unit")
    calculator = False  # every card counts: there is no fewest grouping to find
    deal_keys = ("rummy",)
    settles = True
    result_noun = N_("count")
    result_short = N_("count")
    missing_result = N_("type the count of the cards left in hand")
    deal_prompt = N_("Tap the winner, then each other player's count")
    presets = (
        Preset("basic-100", N_("Basic to 100"), {"target": 100}),
        Preset("basic-150", N_("Basic to 150"), {"target": 150}),
        Preset("basic-250", N_("Basic to 250"), {"target": 250}),
        Preset(
            "basic-deals",
            N_("Basic, number of deals"),
            {"target": None, "deal_count": 10},
            "deal_count",
            N_("Number of deals"),
            N_("e.g. 10"),
        ),
    )
    form_rules = ("scoring", "going_rummy", "target", "point_value", "money_unit")
    rule_inputs = {
        "scoring": RuleInput(
            "choice",
            N_("Who adds the counts: the deal's winner, or each loser their own"),
            (("winner_collects", N_("Winner collects")), ("penalty", N_("Penalty: losers add"))),
        ),
        "going_rummy": RuleInput(
            "choice",
            N_("A deal won in one turn, nothing melded before"),
            (
                ("double", N_("Counts double")),
                ("plus_10", N_("Each count + 10")),
                ("off", N_("Off")),
            ),
        ),
        "target": RuleInput(help=N_("Blank: no target, only the number of deals"), optional=True),
        "deal_count": RuleInput(help=N_("Blank: play to the target"), optional=True),
        "point_value": RuleInput(
            "money",
            N_(
                "Paid at the end for each point, a plain amount such as 0.25, "
                "digits 0-9; 0 to play for fun"
            ),
        ),
        "money_unit": MONEY_UNIT_INPUT,
    }

    # -- table rules

    def fill_rules(self, rules: Rules, out: Rules) -> None:
        rules.setdefault("scoring", "winner_collects")
        out["scoring"] = choice(rules, "scoring", SCORINGS)
        rules.setdefault("target", 100)
        out["target"] = whole(rules, "target", 1, 10_000, nullable=True)
        rules.setdefault("deal_count", None)
        out["deal_count"] = whole(rules, "deal_count", 1, 100, nullable=True)
        if out["target"] is None and out["deal_count"] is None:
            raise RuleError(
                N_("set a target or a number of deals (or both): the game needs an end"),
                field="rules.target",
            )
        rules.setdefault("going_rummy", "double")
        out["going_rummy"] = choice(rules, "going_rummy", GOING_RUMMY)
        rules.setdefault("point_value", "0")
        out["point_value"] = money_rule(rules, "point_value", out["money_unit"])

    def default_name(self, rules: Rules) -> str:
        return self.listing_label(rules)

    def listing_label(self, rules: Rules) -> str:
        """The format and when the game ends: "Basic Rummy to 100 or 10 deals"."""
        target, deals = rules["target"], rules["deal_count"]
        params = {"target": target, "n": deals}
        if target is not None and deals is not None:
            if deals == 1:
                return Phrase(N_("Basic Rummy to %(target)s or %(n)s deal"), params)
            return Phrase(N_("Basic Rummy to %(target)s or %(n)s deals"), params)
        if target is not None:
            return Phrase(N_("Basic Rummy to %(target)s"), params)
        if deals == 1:
            return Phrase(N_("Basic Rummy, %(n)s deal"), params)
        return Phrase(N_("Basic Rummy, %(n)s deals"), params)

    # -- replaying

    def result(self, state: GameState, player: Player, count: object, where: str) -> int:
        if isinstance(count, str):
            raise RuleError(
                N_(
                    "%(count)s is not a count: give the points of the cards left in hand, "
                    "0 to %(high)s"
                ),
                params={"count": repr(count), "high": MAX_COUNT},
                field=where,
                player=player.name,
            )
        if isinstance(count, bool) or not isinstance(count, int):
            raise RuleError(N_("count must be a whole number"), field=where, player=player.name)
        if not 0 <= count <= MAX_COUNT:
            raise RuleError(
                N_("count must be between 0 and %(high)s"),
                params={"high": MAX_COUNT},
                field=where,
                player=player.name,
            )
        return count

    def check_deal(self, state: GameState, event: Event) -> None:
        if "rummy" not in event:
            return
        mark = event["rummy"]
        if not isinstance(mark, bool):
            raise RuleError(N_("rummy must be true or false"), field="rummy")
        if mark and state.rules["going_rummy"] == "off":
            raise RuleError(
                N_("going rummy is off at this table: the deal cannot be marked rummy"),
                field="rummy",
            )

    def score_deal(self, state: GameState, row: Row, winner: str) -> None:
        mark = state.rules["going_rummy"] if row.rummy else None
        for name, count in row.points.items():
            if mark == "double":
                row.points[name] = count * 2
            elif mark == "plus_10":
                row.points[name] = count + 10
        if state.rules["scoring"] == "winner_collects":
            state.seated(winner).total += sum(row.points.values())
        else:
            for name, count in row.points.items():
                state.seated(name).total += count

    def after_deal(self, state: GameState, row: Row) -> None:
        if state.tie_breaker:
            level = self._best(state, [state.seated(n) for n in state.level])
        else:
            target = state.rules["target"]
            count = state.rules["deal_count"]
            reached = target is not None and any(p.total >= target for p in state.players)
            if not (reached or (count is not None and row.number >= count)):
                return
            level = self._best(state, state.players)
        if len(level) == 1:
            state.tie_breaker = False
            state.level = []
            state.status = "finished"
            state.winner = level[0].name
        else:
            state.tie_breaker = True
            state.level = [p.name for p in level]

    def _best(self, state: GameState, players: list[Player]) -> list[Player]:
        """Those of `players` in front: the highest total, or the lowest in penalty."""
        pick = max if state.rules["scoring"] == "winner_collects" else min
        best = pick(p.total for p in players)
        return [p for p in players if p.total == best]

    def tied(self, state: GameState) -> list[Player]:
        if state.tie_breaker:
            return [p for p in state.players if p.name in state.level]
        return self._best(state, state.players)

    def leaders(self, state: GameState) -> list[str]:
        if state.winner:
            return [state.winner]
        return [p.name for p in self.tied(state)]

    def settlement(self, state: GameState) -> list[Payment]:
        """At the end, every loser pays the winner the difference of the totals x point value."""
        value = Decimal(state.rules["point_value"])
        if not state.finished or not state.winner or value == 0:
            return []
        win = state.seated(state.winner)
        sign = 1 if state.rules["scoring"] == "winner_collects" else -1
        payments = []
        for p in state.players:
            owed = sign * (win.total - p.total) * value
            if p is not win and owed > 0:
                payments.append((p.name, win.name, owed, p.seat))
        payments.sort(key=lambda pay: (-pay[2], pay[3]))
        return [(a, b, amount) for a, b, amount, _ in payments]

    def money_rows(self, state: GameState) -> list[dict[str, str]] | None:
        """Basic settles once, at the end: only the row that ends the game has money."""
        if Decimal(state.rules["point_value"]) == 0:
            return None
        rows: list[dict[str, str]] = [{} for _ in state.rows]
        if state.finished and rows:
            net = {p.name: Decimal(0) for p in state.players}
            for payer, winner, amount in state.settlement:
                net[payer] -= amount
                net[winner] += amount
            rows[-1] = {name: money(amount) for name, amount in net.items()}
        return rows

    def state_document(self, state: GameState) -> Document:
        doc: Document = {
            "settlement": [
                {"from": a, "to": b, "amount": money(amount)} for a, b, amount in state.settlement
            ]
        }
        if state.tie_breaker:
            doc["tie_breaker"] = True
        return doc

    # -- the family table

    def standing(self, rules: Rules, player: Document, last_dealt: int) -> tuple[int, ...]:
        # Winner collects: the higher total is ahead; penalty: the lower.
        total = player["total"]
        return (total,) if rules["scoring"] == "winner_collects" else (-total,)

    # -- what the pages show

    def meta(self, state: GameState, pot: str) -> str:
        if state.rules["scoring"] == "winner_collects":
            scoring = Phrase(N_("winner collects"))
        else:
            scoring = Phrase(N_("penalty"))
        return Phrase(
            N_(" · %(end)s · %(scoring)s"),
            {"end": self._end_phrase(state.rules), "scoring": scoring},
        )

    @staticmethod
    def _end_phrase(rules: Rules) -> str:
        """When the game ends, as words to translate."""
        target, count = rules["target"], rules["deal_count"]
        deals = Phrase(N_("1 deal")) if count == 1 else Phrase(N_("%(n)s deals"), {"n": count})
        if target is not None and count is not None:
            return Phrase(N_("to %(target)s or %(deals)s"), {"target": target, "deals": deals})
        if target is not None:
            return Phrase(N_("to %(target)s"), {"target": target})
        return deals

    def tie_breaker_note(self, state: GameState) -> str:
        names = and_list([p.name for p in state.tied])
        total = state.tied[0].total
        return Phrase(
            N_(
                "Tie-breaker! %(names)s are level on %(total)s "
                "and play on until one is alone in front."
            ),
            {"names": names, "total": total},
        )

    def settlement_note(self, state: GameState) -> str:
        if Decimal(state.rules["point_value"]) == 0:
            return N_("Playing for fun: nobody pays.")
        return N_("When the game ends, each loser pays the winner the difference.")

    def chart_line(self, rules: Rules) -> tuple[int, str, str] | None:
        target = rules["target"]
        if target is None:
            return None
        return (
            target,
            Phrase(N_("Target %(target)s: the game ends there"), {"target": target}),
            Phrase(N_("target %(target)s"), {"target": target}),
        )

    def rummy_mark(self, rules: Rules) -> bool:
        return rules["going_rummy"] != "off"

    def won_label(self, row: Row) -> str:
        return N_("Rummy!") if row.rummy else N_("Won")


FORMAT = Basic()
