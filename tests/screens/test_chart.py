"""The running-totals chart: tracker/screens/chart.py's data drawn by
templates/tracker/chart.svg, as /g/<token>/chart.svg serves it. No database."""

import random
import xml.etree.ElementTree as ET

import pytest
from django.template.loader import render_to_string
from hypothesis import given, settings

from tests.conftest import example_paths, input_part, load_example
from tests.histories import game as random_game
from tracker import rules
from tracker.documents import game_json
from tracker.screens.chart import COLOURS, DASHES, running_totals

SVG = "{http://www.w3.org/2000/svg}"


def running_totals_svg(state, title=None):
    return render_to_string("tracker/chart.svg", running_totals(state, title=title))


def parse(svg):
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def by_class(root, tag, cls):
    return [el for el in root.iter(f"{SVG}{tag}") if el.get("class") == cls]


def lines(root):
    return by_class(root, "polyline", "line")


def coords(line):
    return [tuple(float(v) for v in pair.split(",")) for pair in line.get("points").split()]


def y_scale(root):
    """value -> y, from the y ticks the chart labels."""
    ticks = by_class(root, "line", "tick-y")
    (v0, y0), (v1, y1) = [(int(t.get("data-value")), float(t.get("y1"))) for t in ticks[:2]]
    return lambda value: y0 + (value - v0) * (y1 - y0) / (v1 - v0)


def x_scale(root):
    """deal number -> x, from the axis's deal labels."""
    ticks = [t for t in by_class(root, "text", "tick-x") if t.get("text-anchor") == "middle"]
    (d0, x0), (d1, x1) = [(int(t.get("data-value")), float(t.get("x"))) for t in ticks[:2]]
    return lambda deal: x0 + (deal - d0) * (x1 - x0) / (d1 - d0)


def example(stem):
    path = next(p for p in example_paths() if p.stem.startswith(stem))
    return game_json.read(input_part(load_example(path)))[1]


def deal(winner, **results):
    return {"type": "deal", "winner": winner, "results": results}


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_one_line_per_player_with_a_point_per_deal_plus_the_start(path):
    example = load_example(path)
    state = game_json.read(input_part(example))[1]
    root = parse(running_totals_svg(state))
    drawn = lines(root)
    assert [line.get("data-player") for line in drawn] == example["players"]
    for line in drawn:
        assert len(coords(line)) == example["state"]["deals_played"] + 1
        assert line.find(f"{SVG}title").text == line.get("data-player")
    # The points follow the figures the engine gives, deal by deal.
    y_of = y_scale(root)
    start = state.rules.get("starting_chips", 0) if state.format == "deals" else 0
    deal_rows = [row for row in state.rows if row.type == "deal"]
    for line in drawn:
        name = line.get("data-player")
        want = [start] + [row.totals[name] for row in deal_rows]
        assert [y for _, y in coords(line)] == pytest.approx([y_of(v) for v in want], abs=0.06)
    xs = [x for x, _ in coords(drawn[0])]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)


def test_a_joiner_s_line_starts_at_the_deal_they_sat_down():
    # Points: C joins after deal 1 at balance 0, then deal 2: A wins, B 10, C 20.
    history = [deal("A", B=5), {"type": "join", "player": "C"}, deal("A", B=10, C=20)]
    state = rules.replay("points", {}, ["A", "B"], history)
    root = parse(running_totals_svg(state))
    drawn = {line.get("data-player"): line for line in lines(root)}
    y_of, x_of = y_scale(root), x_scale(root)
    assert [y for _, y in coords(drawn["C"])] == pytest.approx([y_of(0), y_of(-20)], abs=0.06)
    assert [x for x, _ in coords(drawn["C"])] == pytest.approx([x_of(1), x_of(2)], abs=0.06)
    assert len(coords(drawn["A"])) == 3


def test_pool_limit_line_at_the_limit():
    for limit in (101, 201, 61):
        state = rules.replay(
            "pool", {"pool_limit": limit}, ["Asha", "Ravi"], [deal("Asha", Ravi=30)]
        )
        root = parse(running_totals_svg(state))
        (line,) = by_class(root, "line", "limit")
        assert line.get("data-value") == str(limit)
        assert line.get("stroke-dasharray")
        assert float(line.get("y1")) == float(line.get("y2"))
        assert float(line.get("y1")) == pytest.approx(y_scale(root)(limit), abs=0.06)
        # The y range takes in 0 and the limit.
        values = [int(t.get("data-value")) for t in by_class(root, "line", "tick-y")]
        assert min(values) <= 0 and max(values) >= limit


def test_no_limit_line_outside_pool():
    for stem in ("09", "11"):
        assert not by_class(parse(running_totals_svg(example(stem))), "line", "limit")


def test_elimination_marked_with_a_cross():
    state = example("01")  # Kiran out at 101
    root = parse(running_totals_svg(state))
    outs = by_class(root, "path", "out")
    went_out = [(name, row.number, row.totals[name]) for row in state.rows for name in row.went_out]
    assert went_out
    assert [(o.get("data-player"), int(o.get("data-deal"))) for o in outs] == [
        (name, number) for name, number, _ in went_out
    ]
    x_of, y_of = x_scale(root), y_scale(root)
    for marker, (_, number, total) in zip(outs, went_out, strict=True):
        # The cross is centred on the total that put the player out.
        pairs = marker.get("d").replace("M", " ").replace("L", " ").split()
        xs = [float(p.split(",")[0]) for p in pairs]
        ys = [float(p.split(",")[1]) for p in pairs]
        assert sum(xs) / 4 == pytest.approx(x_of(number), abs=0.1)
        assert sum(ys) / 4 == pytest.approx(y_of(total), abs=0.1)
        assert "out" in marker.find(f"{SVG}title").text


def test_rejoin_marked_with_a_ring_at_the_new_total():
    state = example("02")  # D and C rejoin at 62 after deal 2
    root = parse(running_totals_svg(state))
    rings = by_class(root, "circle", "rejoin")
    assert [r.get("data-player") for r in rings] == ["D", "C"]
    y_of, x_of = y_scale(root), x_scale(root)
    for ring in rings:
        assert float(ring.get("cy")) == pytest.approx(y_of(62), abs=0.06)
        assert float(ring.get("cx")) == pytest.approx(x_of(2), abs=0.06)
        assert ring.get("data-deal") == "2"


def test_names_are_escaped():
    names = ['A<&>"B', "Tom & Jerry", "<script>", "O'Neil"]
    history = [deal(names[0], **{n: 20 for n in names[1:]})]
    svg = running_totals_svg(rules.replay("points", {}, names, history), title="<b>&Co</b>")
    assert "<script>" not in svg and "A&lt;&amp;&gt;&quot;B" in svg
    root = parse(svg)
    assert [line.get("data-player") for line in lines(root)] == names
    assert [line.find(f"{SVG}title").text for line in lines(root)] == names
    keys = [g for g in root.iter(f"{SVG}g") if g.get("class") == "key"]
    assert [g.get("data-player") for g in keys] == names
    assert root.find(f"{SVG}title").text == "<b>&Co</b>"


def test_characters_xml_cannot_hold_do_not_break_it():
    # The rules refuse control characters in names; a title is any text.
    state = rules.replay("points", {}, ["Asha", "Ravi"], [deal("Ravi", Asha=5)])
    root = parse(running_totals_svg(state, title="Bad\x01title"))
    assert len(lines(root)) == 2


def test_points_with_negative_balances():
    state = example("11")  # balances +9 -5 -7 -4 -9 +16
    root = parse(running_totals_svg(state))
    values = [int(t.get("data-value")) for t in by_class(root, "line", "tick-y")]
    assert min(values) <= -9 and max(values) >= 16 and 0 in values
    (zero,) = by_class(root, "line", "zero")
    y_of = y_scale(root)
    assert float(zero.get("y1")) == pytest.approx(y_of(0), abs=0.06)
    (e_line,) = [line for line in lines(root) if line.get("data-player") == "E"]
    assert coords(e_line)[-1][1] == pytest.approx(y_of(-9), abs=0.06)
    assert coords(e_line)[-1][1] > float(zero.get("y1"))  # below the zero line


def test_deals_start_at_the_starting_chips():
    state = example("09")
    root = parse(running_totals_svg(state))
    y_of = y_scale(root)
    for line in lines(root):
        assert coords(line)[0][1] == pytest.approx(y_of(state.rules["starting_chips"]), abs=0.06)


def all_svgs():
    for path in example_paths():
        yield running_totals_svg(game_json.read(input_part(load_example(path)))[1], title="T")
    yield running_totals_svg(rules.new_game("points", {}, ["A", "B"]))


def test_no_style_attribute_or_element_anywhere():
    for svg in all_svgs():
        root = parse(svg)
        for element in root.iter():
            assert "style" not in element.attrib
            assert element.tag != f"{SVG}style"
        assert "style" not in svg


def test_readable_on_a_phone():
    for svg in all_svgs():
        root = parse(svg)
        assert root.get("width") == "100%"
        assert root.get("viewBox").split()[:3] == ["0", "0", "360"]
        sizes = [float(e.get("font-size")) for e in root.iter() if e.get("font-size")]
        assert sizes and min(sizes) >= 11
        # Every text sits inside the view box.
        width = float(root.get("viewBox").split()[2])
        height = float(root.get("viewBox").split()[3])
        for text in root.iter(f"{SVG}text"):
            assert 0 <= float(text.get("x")) <= width
            assert 0 <= float(text.get("y")) <= height


def test_ten_players_get_ten_looks_and_a_legend():
    names = [f"Player {i}" for i in range(10)]
    state = rules.replay("pool", {}, names, [deal(names[0], **{n: 10 for n in names[1:]})])
    root = parse(running_totals_svg(state))
    looks = {(line.get("stroke"), line.get("stroke-dasharray")) for line in lines(root)}
    assert len(looks) == 10
    assert len({line.get("stroke") for line in lines(root)}) == 10
    assert len(COLOURS) == len(set(COLOURS)) == len(DASHES) == len(set(DASHES)) == 10
    keys = [g for g in root.iter(f"{SVG}g") if g.get("class") == "key"]
    assert [g.find(f"{SVG}text").text for g in keys] == names
    for key, line in zip(keys, lines(root), strict=True):
        assert key.find(f"{SVG}text").get("fill") == line.get("stroke")


def test_long_names_fit_the_legend():
    names = ["W" * 30, "Ravi", "Meena"]
    state = rules.replay("points", {}, names, [deal("Ravi", **{names[0]: 5, "Meena": 2})])
    root = parse(running_totals_svg(state))
    keys = [g for g in root.iter(f"{SVG}g") if g.get("class") == "key"]
    width = float(root.get("viewBox").split()[2])
    for key, name in zip(keys, names, strict=True):
        text = key.find(f"{SVG}text")
        assert text.text == name
        # At most ~7 px a letter at font-size 12: the name ends inside the view box.
        assert float(text.get("x")) + 7 * len(name) <= width


def test_a_long_title_is_cut_to_the_width():
    state = rules.new_game("points", {}, ["Asha", "Ravi"])
    root = parse(running_totals_svg(state, title="Sunday " * 20))
    (heading,) = by_class(root, "text", "heading")
    assert heading.text.endswith("\u2026") and len(heading.text) * 8 <= 360
    assert root.find(f"{SVG}title").text == "Sunday " * 20


def test_no_deals_gives_axes_and_a_note():
    for fmt in rules.FORMATS:
        root = parse(running_totals_svg(rules.new_game(fmt, {}, ["Asha", "Ravi"])))
        assert not lines(root)
        assert by_class(root, "text", "note")[0].text == "No deals yet"
        assert by_class(root, "line", "tick-y")
        assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "key"]) == 2


def test_one_deal():
    state = rules.replay("pool", {}, ["Asha", "Ravi"], [deal("Asha", Ravi="first_drop")])
    root = parse(running_totals_svg(state))
    assert [len(coords(line)) for line in lines(root)] == [2, 2]
    assert [t.get("data-value") for t in by_class(root, "text", "tick-x")] == ["0", "1"]


def thousand_deals():
    names = ["Asha", "Ravi", "Meena", "Kiran", "Dev", "Lata"]
    pick = random.Random(7)
    history = []
    for _ in range(1000):
        winner = pick.choice(names)
        history.append(
            deal(
                winner,
                **{n: pick.choice([0, 2, 25, 80, "first_drop"]) for n in names if n != winner},
            )
        )
    return rules.replay("points", {}, names, history)


def test_a_thousand_deals_keeps_every_point_and_few_labels():
    # How fast it draws is measured by `make bench`, not here.
    svg = running_totals_svg(thousand_deals())
    root = parse(svg)
    assert [len(coords(line)) for line in lines(root)] == [1001] * 6
    labels = [int(t.get("data-value")) for t in by_class(root, "text", "tick-x")]
    assert labels[0] == 0 and labels[-1] == 1000 and len(labels) <= 8


@settings(max_examples=100, deadline=None)
@given(random_game(max_events=40))
def test_random_games_draw_every_player_deal_and_marker(drawn):
    fmt, game_rules, players, first, history = drawn
    state = rules.replay(fmt, game_rules, players, history, first)
    root = parse(running_totals_svg(state))
    if state.deals_played:
        assert [line.get("data-player") for line in lines(root)] == [p.name for p in state.players]
        # A joiner's line starts at the deal after which they sat down.
        joined_after, deals = {}, 0
        for row in state.rows:
            deals += row.type == "deal"
            if row.type == "join":
                joined_after[row.player] = deals
        assert [len(coords(line)) for line in lines(root)] == [
            state.deals_played + 1 - joined_after.get(p.name, 0) for p in state.players
        ]
    else:
        assert not lines(root) and by_class(root, "text", "note")
    went_out = [name for row in state.rows for name in row.went_out]
    rejoined = [row.player for row in state.rows if row.type == "rejoin"]
    assert [o.get("data-player") for o in by_class(root, "path", "out")] == went_out
    assert [r.get("data-player") for r in by_class(root, "circle", "rejoin")] == rejoined
    assert bool(by_class(root, "line", "limit")) == (fmt == "pool")
    height = float(root.get("viewBox").split()[3])
    for line in lines(root):
        assert all(0 <= x <= 360 and 0 <= y <= height for x, y in coords(line))
