"""Money: amounts as the document writes them, rounding to the unit, fewest payments."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from .state import Player

MAX_MONEY = Decimal(1_000_000)


def in_units(amount: Decimal, unit: Decimal) -> bool:
    """Whether `amount` is a whole number of money units (0.01 or 1).

    By quantizing, not by remainder: 1E-999999999 % 0.01 underflows to 0.
    Only for amounts already checked to be at most MAX_MONEY.
    """
    return amount == amount.quantize(unit)


_CENT = Decimal("0.01")


def money(amount: Decimal | int | str) -> str:
    """Money as the document writes it: a decimal string with two places."""
    return str(Decimal(amount).quantize(_CENT))


def round_shares(
    live: list[Player], exact: dict[str, Fraction], pot: Decimal, unit: Decimal
) -> dict[str, Decimal]:
    """Round each share down to the money unit; the units left over go one each to
    the shares that lost the most, ties to the lowest total, then the earliest seat."""
    unit_f = Fraction(unit)
    units = {name: math.floor(share / unit_f) for name, share in exact.items()}
    left = int(Fraction(pot) / unit_f) - sum(units.values())
    order = sorted(live, key=lambda p: (-(exact[p.name] - units[p.name] * unit_f), p.total, p.seat))
    for p in order[:left]:
        units[p.name] += 1
    return {p.name: units[p.name] * unit for p in live}


def fewest_payments(balances: dict[str, int]) -> list[tuple[str, str, int]]:
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
    sums = [0]  # the sum of each subset, by mask (bit i: values[i]), a doubling a person
    for value in values:
        sums += [s + value for s in sums]
    # Unless a smaller group clears among itself, everybody is one group.
    groups = _zero_sum_groups(size, sums) if 0 in sums[1 : size - 1] else [list(range(k))]
    payments = []
    for group in groups:
        members = sorted(group)  # in the balances' order: a tie goes to the earliest
        owed = {i: values[i] for i in members}
        while any(owed.values()):
            debtor = creditor = members[0]
            for i in members:  # the most owing and the most owed, the earliest of equals
                if owed[i] < owed[debtor]:
                    debtor = i
                if owed[i] > owed[creditor]:
                    creditor = i
            amount = min(-owed[debtor], owed[creditor])
            payments.append((debtor, creditor, amount))
            owed[debtor] += amount
            owed[creditor] -= amount
    payments.sort(key=lambda pay: (-pay[2], pay[0]))
    return [(names[debtor], names[creditor], amount) for debtor, creditor, amount in payments]


def _zero_sum_groups(size: int, sums: list[int]) -> list[list[int]]:
    """The most groups (each a list of indexes) that each sum to zero, by the
    subset dynamic programme over `sums` (the sum of each subset, by mask)."""
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
    return groups
