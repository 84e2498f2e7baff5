"""{{ amount|money:state.rules }}: an amount with the rupee sign and Indian grouping."""

from django import template

from ..rules.money_format import format_money

register = template.Library()


@register.filter(name="money")
def money_filter(amount, rules=None):
    return format_money(amount, rules)
