"""The hand calculator: any hand (`/calculator/`), or one player's hand of the
deal being entered, under the game's table rules ("Count cards")."""

from django.http import Http404, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from ..screens.calculator import Calculator
from .common import HtmxHttpRequest, get_game_or_404, page_or_part

WILD_KEPT = "wild"  # session key: the wild rank last used for a game's deal


@require_safe
def calculator(request: HtmxHttpRequest) -> HttpResponse:
    """Count any hand: the fewest points, whether it is a valid show, what to discard."""
    calc = Calculator(request.GET)
    context = {"calc": calc, "action": reverse("calculator"), "rules_shown": True}
    return page_or_part(request, "tracker/calculator.html", "panel", context)


@require_safe
def count_cards(request: HtmxHttpRequest, token: str, seat: int) -> HttpResponse:
    """The calculator for one player of the deal being entered, under the table's rules."""
    game = get_game_or_404(token, can_edit=True)
    state = game.state()
    player = next((p for p in state.in_players if p.seat == seat), None)
    if player is None or state.finished:
        raise Http404("That player is not in this deal.")
    if not state.spec.calculator:
        raise Http404("Every card counts in this game: type the count.")
    # The wild rank typed for one player is offered again for the others of the deal.
    deal = [game.view_key[:12], state.deals_played + 1]
    kept = request.session.get(WILD_KEPT, [None, None, ""])
    calc = Calculator(request.GET, game.rules, wild=kept[2] if kept[:2] == deal else "")
    if kept != [*deal, calc.wild]:
        request.session[WILD_KEPT] = [*deal, calc.wild]
    context = {
        "calc": calc,
        "game": game,
        "player": player,
        "action": reverse("count_cards", args=[token, seat]),
        "in_dialog": bool(request.htmx),
    }
    return page_or_part(request, "tracker/calculator.html", "panel", context)
