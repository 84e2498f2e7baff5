"""Money as a family reads it: the rupee sign and the Indian grouping.

Pure Python (no Django): the engine writes money as decimal strings such as
"1234567.50"; this lays them out for the screen only. The CSV and JSON
documents keep the engine's plain strings, which other tools read.

- Digits are always 0-9, in every language.
- Groups of three for the last three digits, then groups of two: 1,00,000
  and 12,34,567.50 (the grouping below a lakh, 99,999, is the usual one).
- Decimals as the table's money unit gives: two for 0.01, none for whole
  rupees (unless an amount is not whole, which then keeps its paise).
- The rupee sign only where the table plays for money (an entry fee or a
  point value that is not 0); otherwise the plain figure.
"""

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

RUPEE = "\u20b9"
MINUS = "-"


def plays_for_money(rules: Mapping[str, object] | None) -> bool:
    """Whether the table's rules put money on the game (an entry fee or a point value).

    A rule that is not a number puts no money on the game."""
    rules = rules or {}
    for key in ("entry_fee", "point_value"):
        try:
            if Decimal(str(rules.get(key, "0"))) != 0:
                return True
        except InvalidOperation:
            continue
    return False


def indian_grouping(digits: str) -> str:
    """'1234567' -> '12,34,567': the last three digits, then pairs."""
    if len(digits) <= 3:
        return digits
    head, last = digits[:-3], digits[-3:]
    pairs: list[str] = []
    while len(head) > 2:
        pairs.insert(0, head[-2:])
        head = head[:-2]
    if head:
        pairs.insert(0, head)
    return ",".join([*pairs, last])


def format_money(amount: object, rules: Mapping[str, object] | None = None) -> str:
    """One amount for the screen, under a table's rules (money_unit, entry_fee, point_value).

    None or "" gives "" (nothing to show); anything that is not a number is
    returned as it came, so a page never fails over a figure.
    """
    if amount is None or amount == "":
        return ""
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        return str(amount)
    if not value.is_finite():
        return str(amount)
    rules = rules or {}
    whole_units = str(rules.get("money_unit", "0.01")) == "1"
    places = 0 if whole_units and value == value.to_integral_value() else 2
    fixed = f"{abs(value):.{places}f}"
    whole, _, paise = fixed.partition(".")
    text = indian_grouping(whole) + (f".{paise}" if paise else "")
    if plays_for_money(rules):
        text = RUPEE + text
    negative = value < 0 and Decimal(fixed) != 0
    return MINUS + text if negative else text
