"""A table's stats against figures worked out by hand (shared/docs/tables.md).

The family: Asha, Ravi, Meena, Kiran. Five games, replayed by the rules
engine into their documents; every expected figure below is worked out in
the comments, never by the code under test.
"""

from decimal import Decimal

from tracker.documents import game_json, stats

MEMBERS = ["Asha", "Ravi", "Meena", "Kiran"]


def deal(winner, **results):
    return {"type": "deal", "winner": winner, "results": results}


def game_doc(name, fmt, rules, players, history):
    """A game document as the tracker writes it: the engine replays the history."""
    doc = {"schema": game_json.SCHEMA, "name": name, "format": fmt, "rules": rules}
    doc |= {"players": players, "first_dealer": players[0], "history": history}
    return game_json.write(*game_json.read(doc))


# G1, pool 101, entry fee 10, Asha Ravi Meena, a rejoin (cutoff 101-20-2 = 79):
#   deal 1  Asha wins; Ravi 80, Meena first drop 20     A 0   R 80   M 20
#   deal 2  Meena wins; Asha 10, Ravi 25                A 10  R 105 out  M 20
#   rejoin  Ravi at the highest still in + 1 = 21 (20 <= 79); pot 10 x 4 = 40
#   deal 3  Asha wins; Ravi full count 80 -> 101 out, Meena 80 -> 100
#   deal 4  Asha wins; Meena wrong show 80 -> 180 out: Asha wins the game.
# Money: Asha 40 - 10 = +30; Ravi -10 x (1 + 1 rejoin) = -20; Meena -10.
# Ravi went out in deal 3, Meena in deal 4: Meena finished ahead of Ravi.
G1 = game_doc(
    "Pool with a rejoin",
    "pool",
    {"entry_fee": "10"},
    ["Asha", "Ravi", "Meena"],
    [
        deal("Asha", Ravi=80, Meena="first_drop"),
        deal("Meena", Asha=10, Ravi=25),
        {"type": "rejoin", "player": "Ravi"},
        deal("Asha", Ravi="full_count", Meena=80),
        deal("Asha", Meena="wrong_show"),
    ],
)

# G2, deals best of 2, entry fee 20, 160 chips each, Asha Ravi Kiran:
#   deal 1  Ravi wins; Asha 30, Kiran 10                A 130  R 200  K 150
#   deal 2  Asha wins; Ravi 30, Kiran 10                A 170  R 170  K 140
#   Asha and Ravi level on 170: a tie-breaker between the two.
#   deal 3  Ravi wins; Asha 20                          A 150  R 190  K 140
# Money: Ravi +20 x (3 - 1) = +40; Asha -20; Kiran -20.
G2 = game_doc(
    "Deals with a tie-breaker",
    "deals",
    {"deal_count": 2, "entry_fee": "20"},
    ["Asha", "Ravi", "Kiran"],
    [deal("Ravi", Asha=30, Kiran=10), deal("Asha", Ravi=30, Kiran=10), deal("Ravi", Asha=20)],
)

# G3, points at 2 a point, Meena Kiran Asha, ended:
#   deal 1  Kiran wins; Meena 20, Asha middle drop 40   K +60  M -20  A -40
#   deal 2  Asha wins; Meena 10, Kiran 5                K +55  M -30  A -25
# Money (x 2): Kiran +110, Meena -60, Asha -50. No winner in points.
G3 = game_doc(
    "Points at 2",
    "points",
    {"point_value": "2"},
    ["Meena", "Kiran", "Asha"],
    [deal("Kiran", Meena=20, Asha="middle_drop"), deal("Asha", Meena=10, Kiran=5), {"type": "end"}],
)

# G4, pool 101, entry fee 10, Ravi Kiran Meena, split equally:
#   deal 1  Ravi wins; Kiran full count 80, Meena 10    R 0  K 80  M 10
#   deal 2  Meena wins; Kiran 30 -> 110 out, Ravi 5     R 5  M 10
#   split equally between Ravi and Meena: pot 30, 15 each; no winner.
# Money: Ravi 15 - 10 = +5, Meena +5, Kiran -10.
G4 = game_doc(
    "Pool split",
    "pool",
    {"entry_fee": "10"},
    ["Ravi", "Kiran", "Meena"],
    [
        deal("Ravi", Kiran="full_count", Meena=10),
        deal("Meena", Kiran=30, Ravi=5),
        {"type": "split", "method": "equal"},
    ],
)

# G5, pool 101, entry fee 50, Asha Kiran, still in progress after one deal
# (Asha wins, Kiran 40): counts in games and deals, not in money.
G5 = game_doc(
    "Unfinished pool", "pool", {"entry_fee": "50"}, ["Asha", "Kiran"], [deal("Asha", Kiran=40)]
)

GAMES = [G1, G2, G3, G4, G5]


def by_name(result):
    return {row["name"]: row for row in result["members"]}


def test_the_games_replay_as_worked_out():
    assert (G1["state"]["status"], G1["state"]["winner"], G1["state"]["pot"]) == (
        "finished",
        "Asha",
        "40.00",
    )
    assert G2["state"]["winner"] == "Ravi"
    assert G4["state"]["split"] == {"Ravi": "15.00", "Meena": "15.00"}
    assert G5["state"]["status"] == "in_progress"


def test_each_members_figures_over_all_five_games():
    rows = by_name(stats.stats_of_documents(MEMBERS, GAMES))
    # Asha: G1, G2, G3, G5. Wins: G1 only (G3's best balance is Kiran's, G5 unfinished).
    # Deals 4 + 3 + 2 + 1 = 10; won 3 (G1) + 1 (G2) + 1 (G3) + 1 (G5) = 6;
    # the middle drop of G3. Money +30 - 20 - 50 = -40 (G5 left out).
    assert rows["Asha"] == {
        "name": "Asha",
        "games": 4,
        "wins": 1,
        "deals": 10,
        "deals_won": 6,
        "drops": 1,
        "wrong_shows": 0,
        "full_counts": 0,
        "money": "-40.00",
    }
    # Ravi: G1, G2, G4; wins G2. Deals 3 + 3 + 2 = 8, won 0 + 2 + 1 = 3;
    # the full count of G1. Money -20 + 40 + 5 = +25.
    assert rows["Ravi"] == {
        "name": "Ravi",
        "games": 3,
        "wins": 1,
        "deals": 8,
        "deals_won": 3,
        "drops": 0,
        "wrong_shows": 0,
        "full_counts": 1,
        "money": "25.00",
    }
    # Meena: G1, G3, G4, no win. Deals 4 + 2 + 2 = 8, won 1 + 0 + 1 = 2; the
    # first drop and the wrong show of G1. Money -10 - 60 + 5 = -65.
    assert rows["Meena"] == {
        "name": "Meena",
        "games": 3,
        "wins": 0,
        "deals": 8,
        "deals_won": 2,
        "drops": 1,
        "wrong_shows": 1,
        "full_counts": 0,
        "money": "-65.00",
    }
    # Kiran: G2, G3, G4, G5. Wins G3, the points session's best balance at the
    # end (tables.md): Kiran +60 - 5 = +55, Asha -40 + 15 = -25, Meena -20 - 10
    # = -30. Deals 2 + 2 + 2 + 1 = 7, won 1 (G3); the full count of G4.
    # Money -20 + 110 - 10 = +80.
    assert rows["Kiran"] == {
        "name": "Kiran",
        "games": 4,
        "wins": 1,
        "deals": 7,
        "deals_won": 1,
        "drops": 0,
        "wrong_shows": 0,
        "full_counts": 1,
        "money": "80.00",
    }


def test_money_adds_up_to_zero_and_the_settle_up_clears_it_in_the_fewest_payments():
    result = stats.stats_of_documents(MEMBERS, GAMES)
    money = {row["name"]: Decimal(row["money"]) for row in result["members"]}
    assert sum(money.values()) == 0  # -40 + 25 - 65 + 80
    # No two of -40, +25, -65, +80 cancel, so four people need 4 - 1 = 3 payments.
    # The largest debtor pays the largest creditor: Meena 65 to Kiran; then
    # Asha (-40) pays Ravi 25, and the 15 left to Kiran.
    assert result["settlement"] == [
        {"from": "Meena", "to": "Kiran", "amount": "65.00"},
        {"from": "Asha", "to": "Ravi", "amount": "25.00"},
        {"from": "Asha", "to": "Kiran", "amount": "15.00"},
    ]
    for pay in result["settlement"]:
        money[pay["from"]] += Decimal(pay["amount"])
        money[pay["to"]] -= Decimal(pay["amount"])
    assert set(money.values()) == {0}


def test_head_to_head_counts_finished_games_both_sat_in():
    result = stats.stats_of_documents(MEMBERS, GAMES)
    pairs = {(h["a"], h["b"]): (h["a_ahead"], h["b_ahead"]) for h in result["head_to_head"]}
    assert pairs == {
        # G1 Asha won; G2 Ravi won.
        ("Asha", "Ravi"): (1, 1),
        # G1 Asha won; G3 Asha -25 is ahead of Meena -30.
        ("Asha", "Meena"): (2, 0),
        # G2 Asha 150 chips to Kiran's 140; G3 Kiran +55 to Asha -25; G5 unfinished.
        ("Asha", "Kiran"): (1, 1),
        # G1 Meena went out a deal after Ravi; G4 both still in at the split: level.
        ("Ravi", "Meena"): (0, 1),
        # G2 Ravi won; G4 Ravi in at the split, Kiran out.
        ("Ravi", "Kiran"): (2, 0),
        # G3 Kiran +55 to Meena -30; G4 Meena in at the split, Kiran out.
        ("Meena", "Kiran"): (1, 1),
    }


def test_an_unfinished_game_counts_in_games_but_not_in_money():
    only = stats.stats_of_documents(MEMBERS, [G5])
    rows = by_name(only)
    assert (rows["Asha"]["games"], rows["Asha"]["deals"], rows["Asha"]["wins"]) == (1, 1, 0)
    assert rows["Kiran"]["games"] == 1
    assert {row["money"] for row in only["members"]} == {"0.00"}
    assert only["settlement"] == []
    assert only["head_to_head"] == []


def test_one_game_of_each_format_alone():
    # Pool with a rejoin: +30, -20, -10 as in G1.
    rows = by_name(stats.stats_of_documents(MEMBERS, [G1]))
    assert [rows[n]["money"] for n in ("Asha", "Ravi", "Meena")] == ["30.00", "-20.00", "-10.00"]
    assert rows["Kiran"]["games"] == 0
    # Deals: the winner gains 20 x 2, the others lose 20 each.
    rows = by_name(stats.stats_of_documents(MEMBERS, [G2]))
    assert [rows[n]["money"] for n in ("Ravi", "Asha", "Kiran")] == ["40.00", "-20.00", "-20.00"]
    # Points: the settlement, Meena pays Kiran 60 and Asha pays Kiran 50.
    result = stats.stats_of_documents(MEMBERS, [G3])
    rows = by_name(result)
    assert [rows[n]["money"] for n in ("Kiran", "Meena", "Asha")] == ["110.00", "-60.00", "-50.00"]
    assert result["settlement"] == [
        {"from": "Meena", "to": "Kiran", "amount": "60.00"},
        {"from": "Asha", "to": "Kiran", "amount": "50.00"},
    ]
    # The pool split: 15 each to Ravi and Meena out of a pot of 30.
    rows = by_name(stats.stats_of_documents(MEMBERS, [G4]))
    assert [rows[n]["money"] for n in ("Ravi", "Meena", "Kiran")] == ["5.00", "5.00", "-10.00"]
    assert rows["Ravi"]["wins"] == rows["Meena"]["wins"] == 0


def test_members_are_matched_ignoring_case_and_non_members_left_out():
    result = stats.stats_of_documents(["ASHA", "ravi", "Meena"], [G1])
    rows = by_name(result)
    assert rows["ASHA"]["money"] == "30.00"
    assert rows["ravi"]["wins"] == 0 and rows["ASHA"]["wins"] == 1
    assert "Kiran" not in rows


def basic_example(stem):
    from tests.conftest import OUR_EXAMPLES, load_example

    return load_example(OUR_EXAMPLES / f"{stem}.json")


def test_a_basic_game_counts_by_its_settlement_and_penalty_totals_rank_lowest_first():
    # Worked example basic-04 (penalty, target 50, 2 a point, whole rupees): totals
    # Asha 52, Ravi 34, Meena 21; Meena wins with the lowest. Asha pays (52 - 21) x 2
    # = 62, Ravi (34 - 21) x 2 = 26.
    doc = basic_example("basic-04-penalty-double-target-settlement")
    result = stats.stats_of_documents(MEMBERS, [doc])
    rows = by_name(result)
    assert (rows["Meena"]["money"], rows["Asha"]["money"], rows["Ravi"]["money"]) == (
        "88.00",
        "-62.00",
        "-26.00",
    )
    # Penalty: the lower total finished ahead, so Ravi (34) is ahead of Asha (52).
    pairs = {(h["a"], h["b"]): (h["a_ahead"], h["b_ahead"]) for h in result["head_to_head"]}
    assert pairs[("Asha", "Ravi")] == (0, 1)
    assert pairs[("Asha", "Meena")] == (0, 1)
    assert pairs[("Ravi", "Meena")] == (0, 1)


def test_winner_collects_totals_rank_highest_first():
    # Worked example basic-02 (winner collects, 3 deals, 0.50 a point): totals
    # Asha 25, Ravi 12, Meena 27; Meena wins. Asha pays (27 - 25) x 0.5 = 1.00,
    # Ravi (27 - 12) x 0.5 = 7.50; Asha (25) finished ahead of Ravi (12).
    doc = basic_example("basic-02-winner-collects-plus-10-deal-count-settlement")
    result = stats.stats_of_documents(MEMBERS, [doc])
    rows = by_name(result)
    assert (rows["Meena"]["money"], rows["Asha"]["money"], rows["Ravi"]["money"]) == (
        "8.50",
        "-1.00",
        "-7.50",
    )
    pairs = {(h["a"], h["b"]): (h["a_ahead"], h["b_ahead"]) for h in result["head_to_head"]}
    assert pairs[("Asha", "Ravi")] == (1, 0)


def test_money_over_time_steps_once_per_finished_game():
    summaries = [stats.game_summary(doc) for doc in GAMES]
    line = stats.money_over_time(MEMBERS, summaries)
    # The start, then G1 to G4 (G5 is unfinished).
    assert [point["game"] for point in line] == [
        "",
        "Pool with a rejoin",
        "Deals with a tie-breaker",
        "Points at 2",
        "Pool split",
    ]
    # Asha: 0, +30, +10, -40, -40.
    assert [point["money"]["Asha"] for point in line] == [0, 30, 10, -40, -40]
    # Kiran: 0, 0, -20, +90, +80.
    assert [point["money"]["Kiran"] for point in line] == [0, 0, -20, 90, 80]
