"""Replaying a history: the table rules checked, then every event in order.

The steps every format shares (who may win, a result for every loser, the
dealer's turn) are here; what a format decides (what a result scores, when
the game ends) is asked of its format object.
"""

from __future__ import annotations

from typing import TypedDict

from .base import Format
from .formats import FORMATS, format_names
from .shapes import Event, Rules
from .state import GameState, Player, Row
from .table import (
    CARD_RULES,
    MAX_PLAYERS,
    N_,
    Phrase,
    RuleError,
    check_card_rules,
    check_players,
    check_seat_name,
    money_unit,
    stray_name,
)

EVENT_TYPES = ("deal", "rejoin", "split", "end", "join", "sit_out", "sit_in", "leave")
# People come and go (rules.md): a seat taken mid-game, a player stepping away or home.
PRESENCE = {"sit_out": "sitting_out", "sit_in": "in", "leave": "left"}


class _Named(TypedDict):
    """A refusal's words about the player named in a presence event."""

    params: dict[str, str]
    field: str


def spec_of(fmt: object) -> Format:
    """The format object for a format name, or RuleError."""
    spec = FORMATS.get(fmt) if isinstance(fmt, str) else None
    if spec is None:
        raise RuleError(
            N_("format must be %(names)s"), params={"names": format_names()}, field="format"
        )
    return spec


def normalize_rules(fmt: object, rules: object = None) -> Rules:
    """Check a game's table rules and fill in every default (rules.md).

    Returns a new dict in document order; raises RuleError naming the rule.
    """
    spec = spec_of(fmt)
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        raise RuleError(N_("rules must be an object"), field="rules")
    rules = dict(rules)
    allowed = set(spec.rule_keys) | (set(CARD_RULES) if spec.calculator else set())
    unknown = sorted(set(rules) - allowed, key=str)
    if unknown:
        raise RuleError(
            N_("%(rule)s is not a rule of %(format)s rummy"),
            params={"rule": unknown[0], "format": fmt},
            field=f"rules.{unknown[0]}",
        )
    out = {"money_unit": money_unit(rules)}
    spec.fill_rules(rules, out)
    ordered = {key: out[key] for key in spec.rule_keys}
    return check_card_rules(rules, ordered)


def new_game(
    fmt: object, rules: object, players: object, first_dealer: str | None = None
) -> GameState:
    """The state before the first deal. Checks the rules and the seats."""
    rules = normalize_rules(fmt, rules)
    names = check_players(players)
    if first_dealer is None or first_dealer == "":
        first_dealer = names[0]
    if first_dealer not in names:
        raise RuleError(
            N_("%(name)s is not one of the players"),
            params={"name": first_dealer},
            field="first_dealer",
        )
    spec = spec_of(fmt)  # checked by normalize_rules
    state = GameState(
        format=spec.name,
        rules=rules,
        players=[Player(name=n, seat=i) for i, n in enumerate(names, start=1)],
        first_dealer=first_dealer,
        spec=spec,
    )
    spec.start(state)
    state.in_after_last_deal = [p.name for p in state.players]
    spec.refresh(state)
    return state


def replay(
    fmt: object, rules: object, players: object, history: object, first_dealer: str | None = None
) -> GameState:
    """Replay a whole history. Raises RuleError naming the first event refused."""
    state = new_game(fmt, rules, players, first_dealer)
    if not isinstance(history, list):
        raise RuleError(N_("history must be a list of events"), field="history")
    for event in history:
        apply(state, event)
    return state


def apply(state: GameState, event: object) -> Row:
    """Apply one event to `state` in place, or raise RuleError and leave it unchanged.

    Every check comes before the first change, so a refused event can be
    tried against the same state again (the web pages rely on it).
    """
    index = state.row_count
    number = state.deals_played + 1  # a deal's number, for the label of its refusal
    kind = event.get("type") if isinstance(event, dict) else None
    try:
        if not isinstance(event, dict):
            raise RuleError(N_("an event must be an object"), field="type")
        if kind not in EVENT_TYPES:
            raise RuleError(
                N_("type must be deal, rejoin, split, end, join, sit_out, sit_in or leave"),
                field="type",
            )
        row = _STEPS.get(kind, _presence)(state, event)
    except RuleError as error:
        error.event = index
        error.label = _label(kind, number)
        raise
    spec = state.spec
    figure = spec.figure
    row.index = index
    row.totals = {p.name: figure(state, p) for p in state.players}
    state.rows.append(row)
    spec.refresh(state)
    return row


def _label(kind: object, number: int) -> str:
    """How a refusal names its event: "deal 4", "rejoin", or "event"."""
    if kind == "deal":
        return Phrase(N_("deal %(n)s"), {"n": number})  # "deal 4"
    return str(kind) if kind in EVENT_TYPES else "event"


def _extra_keys(event: Event, allowed: tuple[str, ...]) -> None:
    extra = event.keys() - allowed
    extra.discard("type")
    if extra:
        name = sorted(extra, key=str)[0]
        raise RuleError(
            N_("%(name)s does not belong in a %(event)s"),
            params={"name": name, "event": event["type"]},
            field=str(name),
        )


def _deal(state: GameState, event: Event) -> Row:
    spec = state.spec
    _extra_keys(event, ("winner", "results", *spec.deal_keys))
    if state.finished:
        raise RuleError(N_("the game is over: no more deals"), field="type")
    seated = {p.name: p for p in state.players}
    playing = state.in_players
    playing_names = {p.name for p in playing}
    winner = event.get("winner")
    if not isinstance(winner, str) or not winner:
        raise RuleError(N_("pick the one winner of the deal"), field="winner")
    if winner not in seated:
        raise RuleError(
            N_("%(name)s is not at this table"), params={"name": winner}, field="winner"
        )
    if winner not in playing_names:
        why = Phrase(spec.not_playing_for(state, seated[winner]))
        raise RuleError(
            N_("%(name)s %(why)s, so cannot win"),
            params={"name": winner, "why": why},
            field="winner",
        )
    results = event.get("results")
    if not isinstance(results, dict):
        raise RuleError(N_("results must give every loser's result"), field="results")
    if winner in results:
        raise RuleError(
            N_("%(name)s won the deal, so has no result: one winner only"),
            params={"name": winner},
            field=f"results.{winner}",
            player=winner,
        )
    for name in results:
        if name not in seated:
            raise stray_name(name, "results")
        if name not in playing_names:
            raise RuleError(
                N_("%(name)s %(why)s and has no result"),
                params={"name": name, "why": Phrase(spec.not_playing_for(state, seated[name]))},
                field=f"results.{name}",
                player=name,
            )
    entered = {}  # the losers' results as entered, in seat order
    points = {}
    for p in playing:
        name = p.name
        if name == winner:
            continue
        where = f"results.{name}"
        if name not in results:
            raise RuleError(N_("result missing"), field=where, player=name)
        entered[name] = results[name]
        points[name] = spec.result(state, p, entered[name], where)
    spec.check_deal(state, event)

    number = state.deals_played + 1
    dealer = state._dealer_for_next_deal(playing)
    assert dealer is not None  # the winner is among those playing
    row = Row(
        index=0,
        type="deal",
        number=number,
        dealer=dealer,
        winner=winner,
        results=entered,
        points=points,
        tie_breaker=state.tie_breaker,
        rummy=event.get("rummy") is True,
    )
    state.last_dealer = seated[dealer].seat
    state.deals_played = number
    spec.score_deal(state, row, winner)
    spec.after_deal(state, row)
    return row


def _rejoin(state: GameState, event: Event) -> Row:
    _extra_keys(event, ("player",))
    name = event.get("player")
    if not isinstance(name, str) or not name:
        raise RuleError(N_("name the player who rejoins"), field="player")
    why = state.rejoin_refusal(name)
    if why:
        raise _cannot(name, why, again=True)
    p = state.seated(name)
    start = state.rejoin_total()
    assert start is not None  # rejoin_refusal has let the rejoin through
    p.total = start
    p.status = "in"
    p.rejoins += 1
    p.drops_taken = 0
    return Row(index=0, type="rejoin", player=name, start_total=start)


def _cannot(name: str, why: str, field: str = "player", *, again: bool = False) -> RuleError:
    """A join (a rejoin, `again`) refused, the why in words of its own."""
    if again:
        template = N_("%(name)s cannot rejoin: %(why)s")
    else:
        template = N_("%(name)s cannot join: %(why)s")
    return RuleError(template, params={"name": name, "why": Phrase(why)}, field=field)


def _split(state: GameState, event: Event) -> Row:
    _extra_keys(event, ("method", "shares"))
    method = event.get("method", "drops")
    shares = state.split_shares(method, event.get("shares"))
    state.split = shares
    state.status = "finished"
    return Row(index=0, type="split", shares=dict(shares), results={"method": method})


def _end(state: GameState, event: Event) -> Row:
    _extra_keys(event, ())
    if not state.spec.ends_by_family:
        raise RuleError(N_("only a points session is ended by the family"), field="type")
    if state.finished:
        raise RuleError(N_("the session has already ended"), field="type")
    state.status = "finished"
    return Row(index=0, type="end")


def _join(state: GameState, event: Event) -> Row:
    """A new player takes a seat between deals (rules.md, "People come and go")."""
    spec = state.spec
    _extra_keys(event, ("player", "after"))
    name = event.get("player")
    shown = name if isinstance(name, str) and name.strip() else Phrase(N_("A new player"))
    if not spec.takes_joins:
        raise _cannot(shown, str(spec.join_refusal(state)), field="type")
    if state.finished:
        raise _cannot(shown, N_("the game is over"), field="type")
    if not isinstance(name, str) or not name.strip():
        raise RuleError(N_("name the player who joins"), field="player")
    name = check_seat_name(name, None, "player")
    for p in state.players:
        if p.name.casefold() == name.casefold():
            raise RuleError(
                N_(
                    "%(name)s cannot join: %(seated)s is already seated in this game, "
                    "so the new player needs another name"
                ),
                params={"name": name, "seated": p.name},
                field="player",
            )
    if len(state.players) >= MAX_PLAYERS:
        raise RuleError(
            N_(
                "%(name)s cannot join: a game has at most %(most)s players, "
                "those who are out or gone included"
            ),
            params={"name": name, "most": MAX_PLAYERS},
            field="player",
        )
    after = event.get("after")
    if after is not None and (not isinstance(after, str) or state.player(after) is None):
        raise RuleError(
            N_("after must name a player seated at this table, not %(after)s"),
            params={"after": repr(after)},
            field="after",
        )
    why = spec.join_refusal(state)
    if why:
        raise _cannot(name, why)
    start = spec.join_total(state)
    dealer = state.players[state.last_dealer - 1].name if state.last_dealer else None
    where = state.players.index(state.seated(after)) + 1 if after else len(state.players)
    state.players.insert(where, Player(name=name, seat=0, total=start))
    # Seats are numbered 1..n in the final order; the rotation goes on from the same dealer.
    for seat, p in enumerate(state.players, start=1):
        p.seat = seat
    if dealer is not None:
        state.last_dealer = state.seated(dealer).seat
    return Row(index=0, type="join", player=name, after=after, start_total=start)


def _presence(state: GameState, event: Event) -> Row:
    """sit_out, sit_in, leave: points only (rules.md, "People come and go")."""
    spec = state.spec
    kind = event["type"]
    _extra_keys(event, ("player",))
    if not spec.sits_out:
        raise RuleError(
            N_("players sit out, come back in and leave only in points, not in %(format)s"),
            params={"format": spec.name},
            field="type",
        )
    if state.finished:
        raise RuleError(N_("the session has ended"), field="type")
    name = event.get("player")
    if not isinstance(name, str) or not name:
        raise RuleError(N_("name the player"), field="player")
    p = state.player(name)
    named: _Named = {"params": {"name": name}, "field": "player"}
    if p is None:
        raise RuleError(N_("%(name)s is not at this table"), **named)
    if p.status == "left":
        if kind == "sit_in":
            raise RuleError(
                N_(
                    "%(name)s has left and cannot sit back in "
                    "(they can join again under another name)"
                ),
                **named,
            )
        raise RuleError(N_("%(name)s has already left"), **named)
    if kind == "sit_out" and p.status == "sitting_out":
        raise RuleError(N_("%(name)s already sits out"), **named)
    if kind == "sit_in" and p.status == "in":
        raise RuleError(N_("%(name)s is already in"), **named)
    if kind in ("sit_out", "leave") and p.is_in and len(state.in_players) - 1 < 2:
        if kind == "sit_out":
            raise RuleError(
                N_("%(name)s cannot sit out: at least two players must stay dealt in"), **named
            )
        raise RuleError(
            N_("%(name)s cannot leave: at least two players must stay dealt in"), **named
        )
    p.status = PRESENCE[kind]
    return Row(index=0, type=kind, player=name)


# The step of each event type; the rest (sit_out, sit_in, leave) is `_presence`.
_STEPS = {"deal": _deal, "rejoin": _rejoin, "split": _split, "end": _end, "join": _join}
