"""Hypothesis strategies for tests/views/test_fuzz.py: form data, links and import files.

Every strategy mixes plausible data (so some requests succeed and the game moves
on) with malformed data: missing fields, huge, tiny, negative and non-numbers,
unknown players, unicode, control characters and 10,000-character names, garbage
buttons and stale versions.
"""

import copy
import csv
import io
import json
from decimal import Decimal

from hypothesis import strategies as st

from tests.histories import game as valid_history
from tests.histories import valid_result
from tracker import forms, rules
from tracker.documents import game_csv, game_json
from tracker.rules import hand

# ---------------------------------------------------------------- text

LONG_NAME = "x" * 10_000
WIDE_NAME = "\u0928\u093e" * 5_000  # 10,000 characters of Devanagari

NUMBERISH = [
    "", " ", "0", "-0", "00", "1", "-1", "+1", " 7 ", "2", "10", "79", "80", "81", "101",
    "200", "201", "-5", "-80", "99999999999", "999999999999", "9999999999999", "-99999999999",
    "1.5", "0.01", "0.001", "10.50", "1e3", "1E2", "1e-2", "0x1F", "0b1", "1_0", "1,000",
    "\u0661\u0662", "\uff15", "\u2167", "\u00bd", "\u0967\u0966", "NaN", "nan", "Infinity",
    "-inf", "sNaN", "1" + "0" * 30, "9" * 5000, "-" + "9" * 40,
]  # fmt: skip
# Amounts beyond the decimal context: 1e30 % 0.01 cannot be worked out, and the
# remainder of 1e-999999999 underflows to 0.
EXTREME_MONEY = ["1e30", "9E999999", "1E+26", "12e99999999", "1e-999999999", "5E-9999999"]
NUMBERISH += EXTREME_MONEY

WORDS = [
    "None", "null", "true", "false", "on", "off", "[]", "{}", '"', "'", "\\", "%", "%00", "%s",
    "{0}", "\x00", "\r\n", "\t", "\u2028", "<script>alert(1)</script>", "' OR '1'='1",
    "=cmd|' /C calc'!A0", "@SUM(A1)", "\u202eevil", "\u200b", "\U0001f600", "\ufeff", "\ufffd",
    "first_drop", "middle_drop", "full_count", "wrong_show", "points", "drops", "equal",
    "custom", "pool-101", "deals-2", "points ", "POINTS", LONG_NAME, WIDE_NAME,
]  # fmt: skip

nasty_text = st.one_of(
    st.sampled_from(NUMBERISH),
    st.sampled_from(WORDS),
    st.text(max_size=20),
    st.integers(-(10**15), 10**15).map(str),
)

# Amounts of money as typed: shares, entry fees, point values.
MONEY_WORDS = [
    "0", "0.00", "5", "10", "10.50", "0.01", "0.005", "-5", "-0", "1,000", "", " 5 ",
    "\u0663\u0660", "NaN", "Infinity", "sNaN", "1e1", "5E-1", "0e999999",
]  # fmt: skip
money_text = st.one_of(
    st.sampled_from(MONEY_WORDS),
    st.builds("{}e{}".format, st.integers(-99, 999), st.integers(-40, 40)),
    st.decimals(-(10**6), 10**6, allow_nan=False, places=2).map(str),
    st.sampled_from(EXTREME_MONEY),
    st.sampled_from(EXTREME_MONEY),
    nasty_text,
)
LINE_BREAKS = ["A\nB", "x\r\ny", "p\u2028q", "\n", "r\x85s"]

# Names as a player types them: padded, blank, long, in any script.
TYPED_NAMES = [
    "Asha", "ravi", "RAVI", "Ravi ", " Meena", "Kiran\tK", "a\nb", "", "   ", "\u3000",
    "\u0905\u0936\u093e", "\u0bb0\u0bb5\u0bbf", "\u674e\u96f7", "\U0001f0a1 Ace",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467", "Zo\u00eb", "Zoe\u0308", "\u202eevil",
    "O'Brien", '"Quoted"', "a,b", "<b>bold</b>", "=1+1", "+91 98", "-5", "@home", "'=x",
    "1", "2", "10", "first_drop", "None", "x" * 30, "x" * 31, "\u0130stanbul", "stra\u00dfe",
    "STRASSE", "\u200b", "\x00", "A\x00B", LONG_NAME, WIDE_NAME,
]  # fmt: skip


def normal(name):
    return " ".join(name.split())


def storable(name):
    """A player name the engine accepts (it decides: its rules may change)."""
    try:
        rules.check_players([name, "y" if normal(name).casefold() == "x" else "x"])
    except rules.RuleError:
        return False
    return True


def storable_title(name):
    """A game name the engine accepts."""
    try:
        game_json.check_name(name, "points", {})
    except rules.RuleError:
        return False
    return True


typed_name = st.one_of(st.sampled_from(TYPED_NAMES), st.text(max_size=35), nasty_text)
odd_name = (
    st.one_of(st.sampled_from(TYPED_NAMES), st.text(min_size=1, max_size=30))
    .filter(storable)
    .map(normal)
)


# ---------------------------------------------------------------- games


def rename_history(history, mapping):
    """The history with every player name replaced through `mapping`."""
    out = []
    for event in history:
        event = dict(event)
        if "winner" in event:
            event["winner"] = mapping[event["winner"]]
        if "results" in event:
            event["results"] = {mapping[n]: r for n, r in event["results"].items()}
        if "player" in event:
            event["player"] = mapping[event["player"]]
        if event.get("after") is not None:
            event["after"] = mapping[event["after"]]
        if "shares" in event:
            event["shares"] = {mapping[n]: s for n, s in event["shares"].items()}
        out.append(event)
    return out


@st.composite
def game_input(draw, max_events=12):
    """The input part of a game document the engine accepts, names sometimes odd."""
    shape = draw(st.sampled_from(["whole", "cut", "cut", "knockout", "knockout"]))
    games = valid_history(max_events=max_events)
    if shape == "knockout":
        games = games.filter(lambda g: g[0] == "pool" and len(g[2]) >= 3)
    fmt, game_rules, players, first, history = draw(games)
    if draw(st.booleans()):
        # Joiners are renamed too: every name ever seated differs ignoring case.
        everyone = players + [e["player"] for e in history if e["type"] == "join"]
        names = draw(
            st.lists(
                odd_name,
                min_size=len(everyone),
                max_size=len(everyone),
                unique_by=str.casefold,
            )
        )
        mapping = dict(zip(everyone, names, strict=True))
        players = names[: len(players)]
        first = mapping[first]
        history = rename_history(history, mapping)
    if shape != "whole":
        # Most games drawn are over by the end: go back to a point in play.
        history = history[: draw(st.integers(0, len(history)))]
    if shape == "knockout":
        history = knock_out(fmt, game_rules, players, first, history)
    name = draw(
        st.one_of(
            st.none(),
            st.sampled_from(["Sunday pool at Nani's", "\u0926\u093f\u0935\u093e\u0932\u0940"]),
            st.text(max_size=80).filter(storable_title),
        )
    )
    return {
        "schema": game_json.SCHEMA,
        "name": name,
        "format": fmt,
        "rules": game_rules,
        "players": players,
        "first_dealer": first,
        "history": history,
    }


def knock_out(fmt, game_rules, players, first, history):
    """The history, then deals that put one player out of a pool game (so a rejoin is
    likely possible): the highest total loses each deal with a full count."""
    state = rules.replay(fmt, game_rules, players, history, first)
    history = list(history)
    if fmt != "pool" or state.finished or len(state.in_players) < 3:
        return history
    victim = max(state.in_players, key=lambda p: p.total)
    for _ in range(30):
        if not victim.is_in or state.finished:
            break
        playing = state.in_players
        winner = min((p for p in playing if p is not victim), key=lambda p: p.total)
        event = {
            "type": "deal",
            "winner": winner.name,
            "results": {
                p.name: "full_count" if p is victim else 0 for p in playing if p is not winner
            },
        }
        rules.apply(state, event)
        history.append(event)
    return history


# ---------------------------------------------------------------- form fields


@st.composite
def version_field(draw, version):
    """The hidden `version`: right, missing (None), stale or garbage."""
    return draw(
        st.one_of(
            st.just(str(version)),
            st.just(str(version)),
            st.just(None),
            st.integers(-3, 3).filter(bool).map(lambda d: str(version + d)),
            nasty_text,
        )
    )


def put(data, key, value):
    if value is None:
        data.pop(key, None)
    else:
        data[key] = value


@st.composite
def mutate(draw, data, keys):
    """Spoil 1-3 fields of a form: drop, garble, repeat, or add a stray one."""
    data = dict(data)
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(set(keys) | set(data))))
        how = draw(st.sampled_from(["drop", "text", "text", "repeat", "stray"]))
        if how == "drop":
            data.pop(key, None)
        elif how == "text":
            data[key] = draw(nasty_text)
        elif how == "repeat":
            # Several values for one field: Django reads the last.
            values = [draw(nasty_text), str(data.get(key, ""))]
            data[key] = values if draw(st.booleans()) else values[::-1]
        else:
            data[draw(st.sampled_from(["x", "csrfmiddlewaretoken", "r", "p", "s", "\u00e9"]))] = (
                draw(nasty_text)
            )
    return data


SEATS_ASIDE = ["0", "11", "12", "99", "-1"]


@st.composite
def deal_form(draw, state, playing, version):
    """POST data for /deal/ and /event/<id>/ (an edit): a deal of `playing`, or garbage."""
    data = {}
    winner = draw(st.sampled_from(playing)) if playing else None
    if winner is not None:
        data["winner"] = str(winner.seat)
    for p in playing:
        if p is winner:
            continue
        result = valid_result(draw, state, p)
        if isinstance(result, int):
            data[f"r{p.seat}"] = "points"
            data[f"p{p.seat}"] = str(result)
        else:
            data[f"r{p.seat}"] = result
    put(data, "version", draw(version_field(version)))
    if draw(st.booleans()):
        return data  # plausible: the engine decides
    keys = ["winner", "version"]
    for seat in [*(str(p.seat) for p in state.players), *SEATS_ASIDE]:
        keys += [f"r{seat}", f"p{seat}"]
    return draw(mutate(data, keys))


@st.composite
def custom_shares(draw, state):
    """Typed shares of the pot for the players still in, adding up to it (or not)."""
    live = [p for p in state.players if p.is_in]
    if not live:
        return {}
    unit = Decimal(state.rules["money_unit"])
    units = int(state.pot / unit)
    cuts = sorted(
        draw(st.lists(st.integers(0, units), min_size=len(live) - 1, max_size=len(live) - 1))
    )
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, units], strict=True)]
    shares = {p.seat: str(n * unit) for p, n in zip(live, parts, strict=True)}
    if draw(st.integers(0, 2)):
        seat = draw(st.sampled_from(sorted(shares)))
        shares[seat] = draw(money_text)
    return shares


@st.composite
def split_form(draw, state, version):
    """Data for GET or POST /split/: a method, typed shares, confirm, version."""
    method = draw(st.sampled_from(["custom", "custom", "drops", "equal", "?"]))
    if method == "?":
        method = draw(nasty_text)
    data = {"method": method}
    if method == "custom" or draw(st.booleans()):
        for seat, share in draw(custom_shares(state)).items():
            data[f"s{seat}"] = share
    if draw(st.integers(0, 3)):
        data["confirm"] = draw(st.sampled_from(["1", "", "0", "no"]))
    put(data, "version", draw(version_field(version)))
    if draw(st.booleans()):
        return data
    keys = ["method", "confirm", "version", *(f"s{p.seat}" for p in state.players)]
    return draw(mutate(data, [*keys, "s0", "s11"]))


@st.composite
def rejoin_form(draw, state, version):
    names = [p.name for p in state.players]
    player = draw(
        st.one_of(
            *[st.sampled_from(state.can_rejoin or names)] * 3,
            st.sampled_from(names),
            st.sampled_from(names).map(str.upper),
            typed_name,
            st.just(None),
        )
    )
    data = {}
    put(data, "player", player)
    put(data, "version", draw(version_field(version)))
    return data


@st.composite
def join_form(draw, state, version):
    """ "Add a player": a fresh name mostly, sometimes one already seated or a nasty one."""
    names = [p.name for p in state.players]
    seated = {n.casefold() for n in names}
    fresh = [n for n in ("Dev", "Lata", "\u0909\u092e\u093e", "Zoya") if n.casefold() not in seated]
    name = draw(
        st.one_of(
            *[st.sampled_from(fresh or names)] * 3,
            st.sampled_from(names).map(str.upper),
            typed_name,
            st.just(None),
        )
    )
    after = draw(st.one_of(st.just(""), st.sampled_from(names), typed_name, st.just(None)))
    data = {}
    put(data, "name", name)
    put(data, "after", after)
    put(data, "version", draw(version_field(version)))
    return data


@st.composite
def seat_form(draw, state, version):
    """Sit out, back in or leave: a seated player mostly."""
    names = [p.name for p in state.players]
    player = draw(st.one_of(*[st.sampled_from(names)] * 3, typed_name, st.just(None)))
    data = {}
    put(data, "player", player)
    put(data, "version", draw(version_field(version)))
    return data


@st.composite
def end_form(draw, version):
    data = {}
    put(data, "version", draw(version_field(version)))
    if draw(st.booleans()):
        data = draw(mutate(data, ["version", "confirm"]))
    return data


# ---------------------------------------------------------------- the hand calculator

card = st.one_of(
    st.builds(lambda r, s: r + s, st.sampled_from(hand.RANKS), st.sampled_from(hand.SUITS)),
    st.sampled_from(["PJ", "pj", "10h", "Th", "1S", "11C", "ZZ", "AS,"]),
)


@st.composite
def calculator_query(draw):
    """GET parameters of the calculator: the cards so far and one tap, or garbage."""
    data = {}
    if draw(st.integers(0, 3)):
        cards = draw(st.lists(card, max_size=15))
        data["cards"] = draw(st.sampled_from([" ", ",", ", "])).join(cards)
    for key, values in [
        ("add", card),
        ("remove", st.integers(-1, 15).map(str)),
        ("wild", st.sampled_from(["", "PJ", "5", "10", "K", "A", "5H"])),
        ("natural_wild", st.sampled_from(["pure", "joker"])),
        ("jokers_in_sets", st.sampled_from(["0", "1"])),
        ("count", st.sampled_from(["all", "except_pure", "groups_excluded"])),
        ("clear", st.just("1")),
    ]:
        if draw(st.integers(0, 3)) == 0:
            data[key] = draw(st.one_of(values, values, nasty_text))
    return data


# ---------------------------------------------------------------- the new-game form

SEAT_ACTIONS = ["add", "refresh", "remove-0", "remove-1", "up-0", "up-1", "down-0", "down-1"]


@st.composite
def new_game_form(draw):
    """POST data for /new/: mostly a game that can start, often spoilt."""
    key = draw(st.sampled_from([k for k, *_ in forms.FORMAT_CHOICES]))
    data = {"format": key, "rules_for": key, "dealer": "0"}
    count = draw(st.integers(2, 6))
    data["player"] = draw(
        st.lists(odd_name, min_size=count, max_size=count, unique_by=str.casefold)
    )
    data["dealer"] = str(draw(st.integers(0, count - 1)))
    if key == "pool-other":
        data["pool_limit"] = str(draw(st.integers(20, 500)))
    if key == "deals-other":
        data["deal_count"] = str(draw(st.integers(1, 10)))
    if key == "points":
        data["point_value"] = draw(st.one_of(st.sampled_from(["1", "0.25", "2", ""]), money_text))
    if draw(st.booleans()):
        # The whole form as the page posts it: every rule shown, some changed.
        data["rules_shown"] = "1"
        fmt = forms.FORMATS_BY_KEY[key][1]
        for rule, value in forms.defaults_for(key).items():
            if rule in forms.TABLE_RULES[fmt]:
                shown = forms.shown(value)
                if rule in forms.FLAG_RULES:
                    if shown:
                        data[rule] = "on"
                else:
                    data[rule] = shown
        if draw(st.booleans()):
            data["entry_fee"] = draw(
                st.one_of(st.sampled_from(["0", "10", "50", "0.50"]), money_text)
            )
    if draw(st.integers(0, 4)) == 0:
        data["name"] = draw(st.one_of(st.text(max_size=90), nasty_text))
    if draw(st.integers(0, 5)) == 0:
        seat = draw(st.integers(-1, 12))
        what = draw(st.sampled_from(["add", "remove", "up", "down", "refresh", "zap", ""]))
        data["action"] = draw(
            st.one_of(st.sampled_from(SEAT_ACTIONS), st.just(f"{what}-{seat}"), nasty_text)
        )
    if draw(st.integers(0, 9)) < 4:
        return data
    # Spoil it: players blank, repeated, long or too many; rules as garbage.
    if draw(st.booleans()):
        players = list(data["player"])
        for _ in range(draw(st.integers(1, 3))):
            how = draw(st.sampled_from(["typed", "repeat", "drop", "more"]))
            if how == "typed" and players:
                players[draw(st.integers(0, len(players) - 1))] = draw(typed_name)
            elif how == "repeat" and players:
                players.append(draw(st.sampled_from(players)).swapcase())
            elif how == "drop" and players:
                players.pop()
            else:
                players += draw(st.lists(typed_name, max_size=8))
        data["player"] = players
    keys = [
        "format", "rules_for", "dealer", "pool_limit", "deal_count", "point_value", "name",
        "rules_shown", "action", *sorted(set().union(*forms.TABLE_RULES.values())),
    ]  # fmt: skip
    return draw(mutate(data, keys))


# ---------------------------------------------------------------- import files

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**4000), 10**4000),  # json reads up to 4,300 digits
    st.integers(-100, 300),
    st.floats(),
    nasty_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(nasty_text, st.sampled_from(game_json.INPUT_KEYS)), inner, max_size=4
        ),
    ),
    max_leaves=12,
)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _paths(inner, (*path, index))


def _get(value, path):
    for step in path:
        value = value[step]
    return value


@st.composite
def mutated_document(draw):
    """A game document with 0-3 changes anywhere in it."""
    doc = draw(game_input())
    if draw(st.booleans()):
        game_doc, state = game_json.read(doc)
        doc = game_json.write(game_doc, state)
    if draw(st.integers(0, 3)) == 0:
        return doc
    names = list(doc["players"])
    targeted = st.one_of(
        json_values,
        st.sampled_from(names),
        st.sampled_from([*rules.RESULT_WORDS, *rules.SPLIT_METHODS, *rules.FORMATS, "end"]),
        st.sampled_from([{"type": "end"}, {"type": "split", "method": "custom", "shares": {}}]),
        st.builds(lambda n: {"type": "rejoin", "player": n}, st.sampled_from(names)),
        st.builds(
            lambda a, b: {
                "type": "split",
                "method": "custom",
                "shares": {names[0]: a, names[1]: b},
            },
            money_text,
            money_text,
        ),
        money_text,
        st.sampled_from(LINE_BREAKS),
    )
    for _ in range(draw(st.integers(1, 3))):
        if isinstance(doc, dict) and draw(st.integers(0, 5)) == 0:
            # A stray key in the document itself, named with a line break or garbage.
            doc = {**doc, draw(st.one_of(st.sampled_from(LINE_BREAKS), nasty_text)): 1}
            continue
        path = draw(st.sampled_from(list(_paths(doc))))
        if not path:
            doc = draw(json_values)
            continue
        doc = copy.deepcopy(doc)
        parent = _get(doc, path[:-1])
        last = path[-1]
        how = draw(st.sampled_from(["replace", "replace", "delete", "wrap", "insert", "copy"]))
        if how == "replace":
            parent[last] = draw(targeted)
        elif how == "delete":
            del parent[last]
        elif how == "wrap":
            parent[last] = [parent[last]]
        elif how == "insert" and isinstance(parent, list):
            parent.insert(last, draw(targeted))
        elif how == "insert":
            parent[draw(st.one_of(nasty_text, st.sampled_from(LINE_BREAKS)))] = draw(targeted)
        elif isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        else:
            parent[last] = copy.deepcopy(parent)
    return doc


@st.composite
def json_text(draw):
    """Text of a JSON upload: a mutated document, any JSON, or broken JSON."""
    kind = draw(st.sampled_from(["document", "document", "document", "json", "broken"]))
    value = draw(mutated_document() if kind == "document" else json_values)
    text = json.dumps(
        value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2]))
    )
    if kind == "broken":
        how = draw(st.sampled_from(["cut", "prefix", "suffix", "deep"]))
        if how == "cut":
            text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
        elif how == "prefix":
            text = "{" + text
        elif how == "suffix":
            text += draw(st.sampled_from(["}", ",", " x", "\x00", "]" * 3]))
        else:
            depth = draw(st.integers(1, 100_000))
            text = '{"history": ' + "[" * depth + "]" * depth + "}"
    return text


LONG_INTS = ["9" * 5000, "-" + "1" * 4400]


csv_cells = st.one_of(
    st.sampled_from(NUMBERISH),
    st.sampled_from(WORDS),
    st.text(max_size=12),
    st.integers(-(10**6), 10**6).map(str),
    money_text,
    st.sampled_from(LONG_INTS),  # more digits than int() reads
)


@st.composite
def csv_text(draw):
    """A game CSV as the tracker writes it, with 0-3 changes to rows, cells or text."""
    game_doc, state = game_json.read(draw(game_input()))
    text = game_csv.write_csv(game_doc, state)
    if draw(st.integers(0, 3)) == 0:
        return text
    rows = list(csv.reader(io.StringIO(text, newline="")))
    for _ in range(draw(st.integers(1, 3))):
        if not rows:
            rows.append([draw(csv_cells)])
            continue
        at = draw(st.integers(0, len(rows) - 1))
        how = draw(st.sampled_from(["cell", "cell", "cell", "drop", "copy", "swap", "widen"]))
        if how == "cell" and rows[at]:
            rows[at][draw(st.integers(0, len(rows[at]) - 1))] = draw(csv_cells)
        elif how == "drop":
            del rows[at]
        elif how == "copy":
            rows.insert(at, list(rows[at]))
        elif how == "swap":
            other = draw(st.integers(0, len(rows) - 1))
            rows[at], rows[other] = rows[other], rows[at]
        else:
            rows[at].append(draw(csv_cells))
    out = io.StringIO()
    csv.writer(out, lineterminator=draw(st.sampled_from(["\r\n", "\n"]))).writerows(rows)
    text = out.getvalue()
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at] + draw(st.sampled_from(['"', "\x00", ",", "\r", "\ufeff", "'"])) + text[at:]
        )
    return text


@st.composite
def upload(draw):
    """(file name, bytes, kind) for the import page: JSON, CSV, or just bytes."""
    kind = draw(st.sampled_from(["json", "json", "csv", "csv", "bytes", "text"]))
    if kind == "bytes":
        content = draw(st.binary(max_size=300))
        return draw(st.sampled_from(["game.json", "game.csv", "x"])), content, kind
    text = draw(json_text() if kind == "json" else csv_text() if kind == "csv" else nasty_text)
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1"]))
    content = text.encode(encoding, errors="replace")
    return draw(st.sampled_from(["game.json", "game.csv", "\u00e9.txt"])), content, kind
