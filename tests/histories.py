"""Hypothesis strategies: random games whose every event the rules allow."""

from hypothesis import strategies as st

from tracker import rules

NAMES = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata", "Om", "Uma", "Zoya", "Anil"]
# The formats of 13-card rummy, whose figures the general properties check;
# Basic Rummy has its own (tests/rules/test_properties.py, `formats=BASIC`).
THIRTEEN = ("pool", "deals", "points")
BASIC = ("basic",)


@st.composite
def table(draw, formats=THIRTEEN):
    fmt = draw(st.sampled_from(formats))
    if fmt == "basic":
        target = draw(st.sampled_from([None, 30, 100, 150]))
        deal_count = draw(st.sampled_from([None, 1, 3, 8] if target else [1, 3, 8]))
        game_rules = {
            "scoring": draw(st.sampled_from(["winner_collects", "penalty"])),
            "target": target,
            "deal_count": deal_count,
            "going_rummy": draw(st.sampled_from(["double", "plus_10", "off"])),
            "point_value": draw(st.sampled_from(["0", "1", "0.25"])),
        }
    elif fmt == "pool":
        limit = draw(st.sampled_from([101, 201, 61, 150]))
        game_rules = {
            "pool_limit": limit,
            "out_at": draw(st.sampled_from(["reach", "exceed"])),
            "entry_fee": draw(st.sampled_from(["0", "25", "50", "11", "10.50"])),
            "max_drops": draw(st.sampled_from([None, None, 2, 3])),
            "max_rejoins": draw(st.sampled_from([None, 1, 2])),
        }
        if game_rules["entry_fee"] != "10.50":
            game_rules["money_unit"] = draw(st.sampled_from(["0.01", "1"]))
    elif fmt == "deals":
        game_rules = {
            "deal_count": draw(st.integers(1, 6)),
            "drops_allowed": draw(st.booleans()),
        }
    else:
        game_rules = {"point_value": draw(st.sampled_from(["1", "0.25", "2", "0.10"]))}
    count = draw(st.integers(2, 6))
    return fmt, rules.normalize_rules(fmt, game_rules), NAMES[:count]


def valid_result(draw, state, player):
    """A result the rules allow for `player` in the next deal: points (more often) or a word."""
    game_rules = state.rules
    if state.format == "basic":  # a count of every card left in hand, 0 to 999
        return draw(st.one_of(st.integers(0, 40), st.integers(0, 40), st.integers(0, 999)))
    words = ["full_count", "wrong_show"]
    drops_ok = state.format != "deals" or game_rules["drops_allowed"]
    most = game_rules.get("max_drops")
    if drops_ok and (most is None or player.drops_taken < most):
        words += ["first_drop", "middle_drop"]
    low = 1 if game_rules["ace_value"] == 1 else 2
    points = st.one_of(st.just(0), st.integers(low, game_rules["full_count"]))
    return draw(st.one_of(points, points, st.sampled_from(words)))


@st.composite
def game(draw, max_events=25, formats=THIRTEEN):
    """(format, rules, players, first_dealer, history) of a game the engine accepts."""
    fmt, game_rules, players = draw(table(formats))
    first = draw(st.sampled_from(players))
    state = rules.new_game(fmt, game_rules, players, first)
    history = []
    for _ in range(draw(st.integers(0, max_events))):
        if state.finished:
            break
        choices = ["deal", "deal", "deal"]
        if state.can_rejoin:
            choices += ["rejoin", "rejoin"]
        if state.can_split:
            choices.append("split")
        if fmt == "points":
            choices.append("end")
        # People come and go (rules.md): joins in pool and points, sit-outs and leaves in points.
        joinable = state.spec.takes_joins and len(state.players) < rules.MAX_PLAYERS
        if joinable and not state.spec.join_refusal(state):
            choices.append("join")
        present = [p.name for p in state.players if p.status in ("in", "sitting_out")]
        if fmt == "points" and len(state.in_players) > 2:
            choices += ["sit_out", "leave"]
        if fmt == "points" and any(p.status == "sitting_out" for p in state.players):
            choices += ["sit_in", "sit_in"]
        kind = draw(st.sampled_from(choices))
        if kind == "deal":
            playing = state.in_players
            winner = draw(st.sampled_from([p.name for p in playing]))
            results = {p.name: valid_result(draw, state, p) for p in playing if p.name != winner}
            event = {"type": "deal", "winner": winner, "results": results}
            if state.spec.rummy_mark(game_rules) and draw(st.integers(0, 4)) == 0:
                event["rummy"] = True
        elif kind == "rejoin":
            event = {"type": "rejoin", "player": draw(st.sampled_from(state.can_rejoin))}
        elif kind == "split":
            event = {"type": "split", "method": draw(st.sampled_from(["drops", "equal"]))}
        elif kind == "join":
            seated = {p.name for p in state.players}
            name = next(n for n in NAMES if n not in seated)
            after = draw(st.sampled_from([None, *sorted(seated)]))
            event = {"type": "join", "player": name, "after": after}
        elif kind == "sit_out":
            event = {"type": kind, "player": draw(st.sampled_from(state.in_players)).name}
        elif kind == "sit_in":
            away = [p.name for p in state.players if p.status == "sitting_out"]
            event = {"type": kind, "player": draw(st.sampled_from(away))}
        elif kind == "leave":
            # From in, or from sitting out.
            event = {"type": kind, "player": draw(st.sampled_from(present))}
        else:
            event = {"type": "end"}
        rules.apply(state, event)
        history.append(event)
    return fmt, game_rules, players, first, history
