"""Pool rummy (101, 201, 61 or any limit): totals, eliminations, rejoins, splits."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

from .base import Preset, RuleInput
from .money import MAX_MONEY, in_units, money, round_shares
from .money_format import format_money, plays_for_money
from .shapes import Badge, Cell, Document, Result, Rules
from .state import GameState, Player, Row
from .table import (
    N_,
    RULE_LABELS,
    Phrase,
    RuleError,
    choice,
    flag,
    money_rule,
    plain_amount,
    stray_name,
    whole,
)
from .thirteen import CARD_INPUTS, Thirteen

SPLIT_METHODS = ("drops", "equal", "custom")

RULE_LABELS.update(
    {
        "pool_limit": N_("pool limit"),
        "out_at": N_("out at"),
        "rejoin": N_("rejoin"),
        "rejoin_cutoff": N_("rejoin cutoff"),
        "max_rejoins": N_("most rejoins"),
        "max_drops": N_("most drops"),
    }
)


def out_total(rules: Rules) -> int:
    """T: the lowest total that puts a player out of a pool game."""
    return rules["pool_limit"] + (1 if rules["out_at"] == "exceed" else 0)


def default_rejoin_cutoff(rules: Rules) -> int:
    """The highest total that still leaves a rejoiner one drop: T - first_drop - 2."""
    return max(0, out_total(rules) - rules["first_drop"] - 2)


MOST_LIMITED = 1_000  # the most rejoins or drops a table may allow


class Pool(Thirteen):
    name = "pool"
    label = N_("Pool")
    rule_keys = (
        "pool_limit", "out_at", "first_drop", "middle_drop", "full_count", "wrong_show",
        "ace_value", "entry_fee", "rejoin", "rejoin_cutoff", "max_rejoins", "max_drops",
        "money_unit",
    )  # fmt: skip
    min_first_drop = 1
    not_playing = N_("is out")
    takes_joins = True
    presets = (
        Preset("pool-101", N_("Pool 101"), {"pool_limit": 101}),
        Preset("pool-201", N_("Pool 201"), {"pool_limit": 201}),
        Preset("pool-61", N_("Pool 61"), {"pool_limit": 61}),
        Preset(
            "pool-other",
            N_("Pool, other limit"),
            {},
            "pool_limit",
            N_("Pool limit"),
            N_("e.g. 151"),
        ),
    )
    form_rules = (
        "first_drop", "middle_drop", "full_count", "wrong_show", "out_at", "entry_fee",
        "rejoin", "rejoin_cutoff", "max_rejoins", "max_drops", "ace_value", "money_unit",
    )  # fmt: skip
    rule_inputs = {
        **CARD_INPUTS,
        "pool_limit": RuleInput(),
        "out_at": RuleInput(
            "choice",
            N_("Out on reaching the limit, or only on going past it"),
            (("reach", N_("Reach the limit")), ("exceed", N_("Go past it"))),
        ),
        "rejoin": RuleInput("flag"),
        "rejoin_cutoff": RuleInput(
            help=N_("Nobody may rejoin once the highest total still in is above this")
        ),
        "max_rejoins": RuleInput(help=N_("Blank: no limit"), optional=True),
        "max_drops": RuleInput(help=N_("Blank: only the total limits drops"), optional=True),
    }

    # -- table rules

    def fill_head(self, rules: Rules, out: Rules) -> None:
        rules.setdefault("pool_limit", 101)
        out["pool_limit"] = whole(rules, "pool_limit", 20, 10_000)
        rules.setdefault("out_at", "reach")
        out["out_at"] = choice(rules, "out_at", ("reach", "exceed"))

    def fill_tail(self, rules: Rules, out: Rules) -> None:
        rules.setdefault("entry_fee", "0")
        out["entry_fee"] = money_rule(rules, "entry_fee", out["money_unit"])
        rules.setdefault("rejoin", True)
        out["rejoin"] = flag(rules, "rejoin")
        if rules.get("rejoin_cutoff") is None:
            rules["rejoin_cutoff"] = default_rejoin_cutoff(out)
        out["rejoin_cutoff"] = whole(rules, "rejoin_cutoff", 0)
        if out["rejoin_cutoff"] >= out_total(out):
            raise RuleError(
                N_("rejoin cutoff must be below %(total)s, the total that puts a player out"),
                params={"total": out_total(out)},
                field="rules.rejoin_cutoff",
            )
        # Limits no family reaches (a pool is at most 10,000 points), so every
        # game stays one its CSV sheet can carry back.
        rules.setdefault("max_rejoins", None)
        out["max_rejoins"] = whole(rules, "max_rejoins", 0, MOST_LIMITED, nullable=True)
        rules.setdefault("max_drops", None)
        out["max_drops"] = whole(rules, "max_drops", 0, MOST_LIMITED, nullable=True)

    def default_name(self, rules: Rules) -> str:
        return Phrase(N_("Pool %(limit)s"), {"limit": rules["pool_limit"]})

    def listing_label(self, rules: Rules) -> str:
        return Phrase(N_("Pool %(limit)s"), {"limit": rules["pool_limit"]})

    # -- replaying

    def check_drop(self, state: GameState, player: Player, where: str) -> None:
        most = state.rules.get("max_drops")
        if most is not None and player.drops_taken >= most:
            raise RuleError(
                N_("has taken %(n)s drop, the most this table allows")
                if player.drops_taken == 1
                else N_("has taken %(n)s drops, the most this table allows"),
                params={"n": player.drops_taken},
                field=where,
                player=player.name,
            )

    def after_deal(self, state: GameState, row: Row) -> None:
        limit = out_total(state.rules)
        # Every player still in was dealt this deal (the winner or a result).
        for p in state.players:
            if p.is_in and p.total >= limit:
                p.status = "out"
                row.went_out.append(p.name)
        left = [p for p in state.players if p.is_in]
        state.in_after_last_deal = [p.name for p in left]
        if len(left) == 1:
            state.status = "finished"
            state.winner = left[0].name

    def refresh(self, state: GameState) -> None:
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

    def drop_warning(self, state: GameState, player: Player, result: Result) -> str | None:
        if result not in ("first_drop", "middle_drop") or not player.is_in:
            return None
        assert isinstance(result, str)  # a drop, checked above
        if player.drops_left > 0:
            return None
        value = state.rules[result]
        limit = out_total(state.rules)
        after = player.total + value
        if after < limit:
            # No drops left by the most-drops limit, not the total: check_drop refuses
            # the drop itself (the deal form checks each result before it warns).
            return None
        return Phrase(
            N_(
                "%(name)s has no drops left (must play): a drop puts %(name)s out "
                "(%(total)s + %(value)s = %(after)s ≥ %(limit)s). Save again to give the drop."
            ),
            {
                "name": player.name,
                "total": player.total,
                "value": value,
                "after": after,
                "limit": limit,
            },
        )

    def why_out(self, state: GameState, player: Player) -> str | None:
        if player.is_in:
            return None
        for row in reversed(state.rows):
            if row.type == "deal" and player.name in row.went_out:
                after = row.totals[player.name]
                value = row.points[player.name]
                return f"{after - value} + {value} = {after} ≥ {out_total(state.rules)}"
        return None

    def leaders(self, state: GameState) -> list[str]:
        live = [p for p in state.players if p.is_in]
        best = min(p.total for p in live)
        return [p.name for p in live if p.total == best]

    def pot(self, state: GameState) -> Decimal:
        # Players at the start, joiners (each in state.players) and rejoins.
        entries = len(state.players) + sum(p.rejoins for p in state.players)
        return Decimal(state.rules["entry_fee"]) * entries

    def rejoin_refusal(self, state: GameState, name: str) -> str | None:
        p = state.player(name)
        if p is None:
            return Phrase(N_("%(name)s is not at this table"), {"name": name})
        if state.finished:
            return N_("the game is over")
        if p.is_in:
            return Phrase(N_("%(name)s is still in"), {"name": name})
        if not state.rules["rejoin"]:
            return N_("rejoins are off at this table")
        limit = state.rules["max_rejoins"]
        if limit is not None and p.rejoins >= limit:
            return Phrase(
                N_("%(name)s has rejoined %(n)s times, the most this table allows"),
                {"name": name, "n": p.rejoins},
            )
        return self._entry_refusal(state, name)

    def join_refusal(self, state: GameState) -> str | None:
        # A joiner comes in exactly as a rejoiner would; max_rejoins does not limit joins.
        if not state.rules["rejoin"]:
            return N_("rejoins are off at this table, so nobody joins mid-game")
        return self._entry_refusal(state, None)

    def join_total(self, state: GameState) -> int:
        """H + 1, or 0 before the first deal."""
        if not state.deals_played:
            return 0
        start = state.rejoin_total()
        assert start is not None  # join_refusal has let the join through
        return start

    def _entry_refusal(self, state: GameState, name: str | None) -> str | None:
        """What a rejoin (of `name`) and a join (name None) both need: two still
        in, H at most the cutoff."""
        # Never None here: the game is not over (checked first), so at least two
        # were in after the last deal (one left ends it; pool has no sit-out or leave).
        start = state.rejoin_total()
        assert start is not None
        high = start - 1
        if high > state.rules["rejoin_cutoff"]:
            return Phrase(
                N_("the highest total still in is %(high)s, above the rejoin cutoff %(cutoff)s"),
                {"high": high, "cutoff": state.rules["rejoin_cutoff"]},
            )
        if start >= out_total(state.rules):
            if name is None:
                return Phrase(N_("they would start at %(n)s, which is out"), {"n": start})
            return Phrase(
                N_("%(name)s would start at %(n)s, which is out"), {"name": name, "n": start}
            )
        return None

    def can_split(self, state: GameState) -> bool:
        return not state.finished and 2 <= len(state.in_players) <= 3

    def split_shares(self, state: GameState, method: object, shares: object) -> dict[str, Decimal]:
        if state.finished:
            raise RuleError(N_("the game is over"), field="type")
        live = [p for p in state.players if p.is_in]
        if not 2 <= len(live) <= 3:
            raise RuleError(
                N_("a split needs two or three players still in, not %(n)s"),
                params={"n": len(live)},
                field="method",
            )
        if method not in SPLIT_METHODS:
            raise RuleError(N_("split method must be drops, equal or custom"), field="method")
        pot = state.pot
        unit = Decimal(state.rules["money_unit"])
        if method == "custom":
            return _custom_shares(live, shares, pot, unit)
        if shares is not None:
            raise RuleError(N_("shares are typed only for a custom split"), field="shares")
        exact = {p.name: Fraction(0) for p in live}
        fraction_pot = Fraction(pot)
        if method == "drops":
            # Bring every drops left down to the lowest; each excess drop pays one
            # entry fee (or pot / all excess drops when that is worth more than the pot).
            low = min(p.drops_left for p in live)
            excess = {p.name: p.drops_left - low for p in live}
            all_excess = sum(excess.values())
            fee = Fraction(Decimal(state.rules["entry_fee"]))
            if all_excess and all_excess * fee > fraction_pot:
                fee = fraction_pot / all_excess
            for p in live:
                exact[p.name] = excess[p.name] * fee
        rest = fraction_pot - sum(exact.values())
        for p in live:
            exact[p.name] += rest / len(live)
        return round_shares(live, exact, pot, unit)

    def player_document(self, state: GameState, player: Player) -> Document:
        return {"drops_left": player.drops_left, "rejoins": player.rejoins}

    def state_document(self, state: GameState) -> Document:
        return {
            "pot": money(state.pot),
            "can_rejoin": state.can_rejoin,
            "can_split": state.can_split,
            "split": (
                {name: money(share) for name, share in state.split.items()} if state.split else None
            ),
        }

    # -- the family table

    def table_money(self, rules: Rules, state: Document) -> dict[str, Decimal]:
        """What each won (the pot, or a share of a split) less what they paid in."""
        fee = Decimal(rules["entry_fee"])
        split = state.get("split") or {}
        out = {}
        for p in state["players"]:
            if p["name"] == state.get("winner"):
                won = Decimal(state["pot"])
            else:
                won = Decimal(split.get(p["name"], 0))
            out[p["name"]] = won - fee * (1 + p["rejoins"])  # player_document writes it
        return out

    def standing(self, rules: Rules, player: Document, last_dealt: int) -> tuple[int, ...]:
        # Still in (at a split) is ahead of out; of two out, the one dealt in a
        # later deal went out later.
        return (1, 0) if player["status"] == "in" else (0, last_dealt)

    # -- what the pages show

    def meta(self, state: GameState, pot: str) -> str:
        if not plays_for_money(state.rules):  # played for fun: no pot to speak of
            return Phrase(N_(" %(limit)s"), {"limit": state.rules["pool_limit"]})
        return Phrase(
            N_(" %(limit)s · pot %(pot)s"),
            {"limit": state.rules["pool_limit"], "pot": format_money(pot, state.rules)},
        )

    def columns(self, state: GameState) -> list[str]:
        return [N_("Total"), N_("Drops left"), *([N_("Share")] if state.split else [])]

    def cells(self, state: GameState, player: Player, line: Mapping[str, object]) -> list[Cell]:
        no_drops = player.is_in and player.drops_left == 0 and not state.finished
        drops: Cell = {"text": "\u2013" if not player.is_in else str(player.drops_left)}
        if no_drops:
            drops["badge"] = (N_("must play"), "warn")
        cells: list[Cell] = [{"text": str(player.total)}, drops]
        if state.split:
            share = state.split.get(player.name)
            shown = format_money(money(share), state.rules) if share is not None else "\u2013"
            cells.append({"text": shown})
        return cells

    def badges(self, state: GameState, player: Player) -> list[Badge]:
        out: list[Badge] = []
        if not player.is_in:
            # Out only by going out in a deal, so why_out finds the sum; it is figures
            # and signs ("81 + 20 = 101 ≥ 101"), the same in every language.
            out = [(Phrase(N_("Out: %(why)s"), {"why": self.why_out(state, player)}), "")]
        if player.rejoins:
            if player.rejoins > 1:
                out.append((Phrase(N_("Rejoined ×%(n)s"), {"n": player.rejoins}), ""))  # noqa: RUF001
            else:
                out.append((N_("Rejoined"), ""))
        return out

    def row_classes(self, state: GameState, player: Player) -> list[str]:
        must = player.is_in and player.drops_left == 0 and not state.finished
        return ["no-drops"] if must else []

    def chart_line(self, rules: Rules) -> tuple[int, str, str] | None:
        limit = rules["pool_limit"]
        return (
            limit,
            Phrase(
                N_("Pool limit %(limit)s: out at %(out)s"),
                {"limit": limit, "out": out_total(rules)},
            ),
            Phrase(N_("limit %(limit)s"), {"limit": limit}),
        )


SHARE_NOT_PLAIN = N_("share must be a plain amount such as 0.25, digits 0-9")


def _custom_shares(
    live: list[Player], shares: object, pot: Decimal, unit: Decimal
) -> dict[str, Decimal]:
    if not isinstance(shares, dict):
        raise RuleError(
            N_("a custom split needs a share for every player still in"), field="shares"
        )
    names = {p.name for p in live}
    for name in shares:
        if name not in names:
            raise stray_name(name, "shares")
    out = {}
    for p in live:
        where = f"shares.{p.name}"
        if p.name not in shares:
            raise RuleError(N_("share missing"), field=where, player=p.name)
        amount = plain_amount(shares[p.name])  # the entry fee's rule: digits 0-9
        if amount is None:
            raise RuleError(SHARE_NOT_PLAIN, field=where, player=p.name)
        if amount < 0:
            raise RuleError(N_("share must not be negative"), field=where, player=p.name)
        if amount > MAX_MONEY:
            raise RuleError(
                N_("share must be at most %(high)s"),
                params={"high": MAX_MONEY},
                field=where,
                player=p.name,
            )
        if not in_units(amount, unit):
            raise RuleError(
                N_("share must be in whole money units of %(unit)s"),
                params={"unit": unit},
                field=where,
                player=p.name,
            )
        out[p.name] = amount
    total = sum(out.values())
    if total != pot:
        raise RuleError(
            N_("shares add up to %(total)s, but the pot is %(pot)s"),
            params={"total": money(total), "pot": money(pot)},
            field="shares",
        )
    return out


FORMAT = Pool()
