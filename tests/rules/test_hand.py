"""The hand calculator (tracker/rules/hand.py): worked examples, bad input, the
command, and the search checked against a brute force on thousands of hands."""

import io
import itertools
import json
import os
import random
from collections import Counter
from functools import cache

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tracker.rules.hand import HandError, parse_cards, parse_wild, score_hand

SUITS = "SHDC"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SHOE = [rank + suit for suit in SUITS for rank in RANKS] * 2 + ["PJ"] * 4


def hand(text):
    return text.split()


def same_cards(a, b):
    return Counter(a) == Counter(b)


# ---------------------------------------------------------------- worked examples


def test_greedy_groupings_miss_the_fewest_points():
    # Sets first takes the four 8s, leaving 2H-3H-4H the only sequence: every
    # card counts (87, capped at 80). Sequences first takes 6S-7S-8S, 6C-7C-8C
    # and 2H-3H-4H, leaving 8D 8H KD KS = 36. Best: break 6C-7C-8C to make the
    # set 8C 8D 8H, leaving 6C 7C KD KS = 33.
    result = score_hand(hand("6S 7S 8S 6C 7C 8C 8D 8H 2H 3H 4H KD KS"))
    assert result.points == 33
    assert not result.valid
    assert same_cards(result.ungrouped, ["6C", "7C", "KD", "KS"])
    assert sorted(map(sorted, result.groups)) == [
        ["2H", "3H", "4H"],
        ["6S", "7S", "8S"],
        ["8C", "8D", "8H"],
    ]
    assert result.discard is None


def test_valid_show():
    result = score_hand(hand("AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C JC QC"))
    assert result.as_dict() == {
        "points": 0,
        "valid": True,
        "groups": [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["9C", "10C", "JC", "QC"],
                   ["7S", "7D", "7C"]],
        "ungrouped": [],
        "discard": None,
    }  # fmt: skip


def test_a_show_with_a_joker_in_the_second_sequence_is_valid():
    result = score_hand(hand("AS 2S 3S 4H PJ 6H 7D 7C 7S 9C 10C JC QC"))
    assert result.valid and result.points == 0
    assert ["4H", "PJ", "6H"] in result.groups  # the joker stands where the 5H would


def test_two_sequences_but_none_pure_is_not_a_show():
    # 4H PJ 6H and 9C PJ JC are sequences, neither pure: every card counts.
    cards = hand("4H PJ 6H 9C PJ JC 7D 7C 7S KS KH KD 2C")
    result = score_hand(cards, full_count=200)
    assert not result.valid
    assert result.points == 4 + 6 + 9 + 10 + 21 + 30 + 2


# A pure sequence only through the wild 5H in its own place; 8S PJ 10S JS is impure.
NATURAL_WILD_HAND = "4H 5H 6H 8S PJ 10S JS 7C 7D 7S KC KD KS"


def test_natural_wild_card_keeps_a_sequence_pure_by_default():
    result = score_hand(hand(NATURAL_WILD_HAND), "5")
    assert result.valid and result.points == 0
    assert ["4H", "5H", "6H"] in result.groups


def test_natural_wild_card_counts_as_a_joker_by_house_rule():
    result = score_hand(hand(NATURAL_WILD_HAND), "5", natural_wild="joker", full_count=200)
    assert not result.valid
    # No pure sequence: every card counts, the wild 5H and the PJ at 0.
    assert result.points == 4 + 6 + 8 + 10 + 10 + 21 + 30
    assert score_hand(hand(NATURAL_WILD_HAND), "5", natural_wild="joker").points == 80


def test_wild_card_out_of_its_place_makes_a_sequence_impure():
    # The wild 5S stands for the 5H: 4H 5S 6H is impure whatever natural_wild says.
    cards = hand("4H 5S 6H 8S PJ 10S JS 7C 7D 7S KC KD KS")
    assert not score_hand(cards, "5").valid
    assert score_hand(cards, "5").points == 80


def test_printed_joker_turned_up_makes_aces_wild():
    # The AD stands in 9C AD JC; the AH stands for the 7H in a set.
    cards = hand("2S 3S 4S 9C AD JC 7S 7D AH KS KD KC 5D")
    result = score_hand(cards, "PJ")
    assert result.points == 5 and not result.valid
    assert result.ungrouped == ["5D"]
    no_wild = 2 + 3 + 4 + 9 + 10 + 10 + 7 + 7 + 10 + 30 + 5  # one sequence: all count
    assert score_hand(cards, None, full_count=200).points == no_wild


def test_jokers_in_sets_by_default_and_not_by_house_rule():
    cards = hand("AS 2S 3S 9C 10C JC QC 7D 7H PJ KH KS KC")
    assert score_hand(cards).valid
    result = score_hand(cards, jokers_in_sets=False)
    assert not result.valid
    # The joker can only join a sequence now: 7D and 7H are left.
    assert result.points == 14
    assert same_cards(result.ungrouped, ["7D", "7H"])


def test_ace_low_and_ace_high_sequences():
    result = score_hand(hand("AS 2S 3S QH KH AH 5C 5D 5S 9D 9C 9H 4C"))
    assert result.points == 4
    assert ["AS", "2S", "3S"] in result.groups
    assert ["QH", "KH", "AH"] in result.groups


def test_no_sequence_round_the_corner():
    # K-A-2 is no sequence: AS 2S 3S is the only one, so every card counts.
    result = score_hand(hand("AS 2S 3S KD AD 2D 5C 5D 5S 9D 9C 9H 4C"), full_count=200)
    assert result.points == 10 + 2 + 3 + 10 + 10 + 2 + 15 + 27 + 4


def test_duplicate_cards_do_not_make_a_set():
    result = score_hand(hand("AS 2S 3S 4D 5D 6D 9C 10C JC QC 7H 7H 7S"))
    assert result.points == 21 and not result.valid
    assert same_cards(result.ungrouped, ["7H", "7H", "7S"])
    assert score_hand(hand("AS 2S 3S 4D 5D 6D 9C 10C JC QC 7H 7D 7S")).valid


def test_duplicate_cards_can_sit_in_two_sequences():
    result = score_hand(hand("5H 6H 7H 5H 6H 7H 9S 10S JS 2C 2D 2S KD"))
    assert result.points == 10
    assert result.groups.count(["5H", "6H", "7H"]) == 2


def test_ace_value_one():
    cards = hand("2S 3S 4S 6H 7H 8H 9D 9C 9H KS KD AC AD")
    assert score_hand(cards).points == 40
    assert score_hand(cards, ace_value=1).points == 22


def test_full_count_caps_the_points():
    cards = hand("2S 5S 9S KS 3H 7H JH 4D 8D QD AC 6C 10C")  # nothing melds: 94
    assert score_hand(cards).points == 80
    assert score_hand(cards, full_count=60).points == 60
    assert score_hand(cards, full_count=120).points == 94


# A pure sequence, a set and no second sequence.
ONE_SEQUENCE_HAND = "2S 3S 4S 5S 9D 9C 9H KS KD 3C 7H JC QD"


def test_count_all_counts_every_card_without_a_second_sequence():
    result = score_hand(hand(ONE_SEQUENCE_HAND), full_count=200)
    assert result.points == 14 + 27 + 20 + 3 + 7 + 20
    assert not result.valid


def test_count_except_pure_leaves_out_the_pure_sequence():
    result = score_hand(hand(ONE_SEQUENCE_HAND), count="except_pure", full_count=200)
    assert result.points == 27 + 20 + 3 + 7 + 20
    assert result.groups == [["2S", "3S", "4S", "5S"]]


def test_count_groups_excluded_counts_only_ungrouped_cards():
    result = score_hand(hand(ONE_SEQUENCE_HAND), count="groups_excluded")
    assert result.points == 20 + 3 + 7 + 20
    assert not result.valid


def test_every_count_rule_counts_only_ungrouped_cards_with_two_sequences():
    cards = hand("AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C KC KD")
    for count in ("all", "except_pure", "groups_excluded"):
        assert score_hand(cards, count=count).points == 39


def test_fourteen_cards_best_discard_is_not_the_highest_leftover():
    # Kept whole, the 14 cards group best as QS KS AS, QC KC AC, 8H PJ 10H and
    # 10S 10D 10C, leaving 3S 4S (7); dropping the 4S would leave 3. Discarding
    # the 8H instead frees the joker for 3S 4S PJ: a valid show.
    cards = hand("AS 3S 4S 10S QS KS 8H 10H 10D AC 10C QC KC PJ")
    result = score_hand(cards)
    assert result.points == 0 and result.valid
    assert result.discard == "8H"
    assert ["3S", "4S", "PJ"] in result.groups


def test_fourteen_cards_discard_when_no_show():
    # 9C 10C KC KD QH are left (49): any card worth 10 goes.
    result = score_hand(hand("AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C KC KD QH"))
    assert result.discard in ("10C", "KC", "KD", "QH")
    assert result.points == 39
    assert len(result.ungrouped) + sum(map(len, result.groups)) == 13


def test_a_group_of_jokers_only_is_an_impure_sequence():
    # With no jokers in sets, the four jokers can only be the second sequence
    # on their own: any natural card taken for them breaks a set.
    cards = hand("2S 3S 4S 9D 9C 9H KS KD KC PJ PJ PJ PJ")
    result = score_hand(cards, jokers_in_sets=False)
    assert result.valid
    assert ["PJ", "PJ", "PJ", "PJ"] in result.groups
    # Jokers alone are never pure: wild 5s and printed jokers make no show.
    result = score_hand(hand("PJ PJ 5S 5H 5D 5C 9D 9C 9H KS KD KC QC"), "5", full_count=200)
    assert not result.valid
    assert result.points == 27 + 30 + 10


def test_card_notation():
    assert parse_cards("as 10h, Th tc pj KD") == ["AS", "10H", "10H", "10C", "PJ", "KD"]
    assert parse_cards(["2S,3S", "4S"]) == ["2S", "3S", "4S"]
    result = score_hand("as 2s 3s 4h 5h 6h 7d 7c 7s 9c tc jc qc")
    assert result.valid and ["9C", "10C", "JC", "QC"] in result.groups
    # The wild rank may be given as the card turned up.
    assert score_hand(NATURAL_WILD_HAND, "5d") == score_hand(NATURAL_WILD_HAND, "5")
    assert score_hand(ONE_SEQUENCE_HAND, "t") == score_hand(ONE_SEQUENCE_HAND, "10")


@pytest.mark.parametrize(
    ("cards", "wild", "message"),
    [
        ("AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C JC 1X", None, 'unknown card "1X"'),
        ("AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C JC Q", None, 'unknown card "Q"'),
        (
            "7H 7H 7H 4H 5H 6H 7D 7C 7S 9C 10C JC QC",
            None,
            "7H appears 3 times: two decks hold at most 2",
        ),
        (
            "PJ PJ PJ PJ PJ 6H 7D 7C 7S 9C 10C JC QC",
            None,
            "5 printed jokers: two decks hold at most 4",
        ),
        (
            "AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C JC",
            None,
            "a hand has 13 cards, or 14 before the discard, not 12",
        ),
        (
            "AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C JC QC KC KD",
            None,
            "a hand has 13 cards, or 14 before the discard, not 15",
        ),
        ("AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C JC QC", "11", 'unknown wild rank "11"'),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(cards, wild, message):
    with pytest.raises(HandError) as caught:
        score_hand(cards, wild)
    assert str(caught.value).startswith(message)  # the unknown ones go on to the notation


def test_a_refusal_keeps_its_words_and_figures_apart_for_the_translation():
    # The calculator page translates the English words and then puts the figures in.
    with pytest.raises(HandError) as caught:
        score_hand("7H 7H 7H 4H 5H 6H 7D 7C 7S 9C 10C JC QC")
    assert caught.value.template == (
        "%(card)s appears %(times)s times: two decks hold at most %(most)s"
    )
    assert caught.value.params == {"card": "7H", "times": 3, "most": 2}


SHOW = "AS 2S 3S 4H 5H 6H 7D 7C 7S 9C 10C JC QC"
CARD_HELP = (
    "write a rank (A, 2-10 or T, J, Q, K) and a suit (S, H, D, C), or PJ for a printed joker"
)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"natural_wild": "maybe"}, 'natural_wild must be "pure" or "joker"'),
        ({"jokers_in_sets": "yes"}, "jokers_in_sets must be true or false"),
        ({"count": "some"}, 'count must be "all", "except_pure" or "groups_excluded"'),
        ({"ace_value": 11}, "ace_value must be 10 or 1"),
        ({"ace_value": True}, "ace_value must be 10 or 1"),
        ({"full_count": -1}, "full_count must be a whole number, 0 or more"),
        ({"full_count": "80"}, "full_count must be a whole number, 0 or more"),
        ({"full_count": True}, "full_count must be a whole number, 0 or more"),
    ],
)
def test_bad_house_rules_are_refused(change, message):
    with pytest.raises(HandError) as caught:
        score_hand(SHOW, **change)
    assert str(caught.value) == message


@pytest.mark.parametrize("card", ["AX", "1S", "Q", "10", "KSS", "11C"])
def test_an_unknown_card_is_named_with_the_notation(card):
    cards = [*SHOW.split()[:12], card]
    with pytest.raises(HandError) as caught:
        score_hand(cards)
    assert str(caught.value) == f'unknown card "{card}": {CARD_HELP}'


def test_a_cap_of_zero_counts_every_loser_zero():
    # The cap is the most a loser scores: 0 is a house rule some tables play.
    result = score_hand("6S 7S 8S 6C 7C 8C 8D 8H 2H 3H 4H KD KS", full_count=0)
    assert (result.points, result.valid) == (0, False)


@pytest.mark.parametrize(("wild", "rank"), [("10D", 10), ("10", 10), ("T", 10), ("5h", 5)])
def test_the_wild_rank_read_from_a_card_or_a_rank(wild, rank):
    assert parse_wild(wild) == rank
    with pytest.raises(HandError) as caught:
        parse_wild("S")
    assert str(caught.value) == 'unknown wild rank "S": give a rank such as 5, 10 or K, or PJ'


# ---------------------------------------------------------------- the command


def run_command(*args):
    out = io.StringIO()
    call_command("score_hand", *args, stdout=out)
    return out.getvalue()


def test_command_prints_one_json_line():
    output = run_command(*hand("6S 7S 8S 6C 7C 8C 8D 8H 2H 3H 4H KD KS"))
    assert output.count("\n") == 1
    assert json.loads(output) == {
        "points": 33,
        "valid": False,
        "groups": [["6S", "7S", "8S"], ["2H", "3H", "4H"], ["8H", "8D", "8C"]],
        "ungrouped": ["KS", "KD", "6C", "7C"],
        "discard": None,
    }


def test_command_passes_the_house_rules():
    cards = hand("AS 3S 4S 10S QS KS 8H 10H 10D AC 10C QC KC PJ")
    args = ["--wild", "PJ", "--natural-wild", "joker", "--no-jokers-in-sets"]
    args += ["--count", "except_pure", "--ace-value", "1", "--full-count", "60"]
    # Aces wild, and a wild card in its own place a joker: AC no longer makes QC KC AC
    # pure, so there is no pure sequence and every card counts, aces and the joker 0:
    # 3 + 4 + 8 + 8 x 10 = 95, less the best discard (a 10) = 85, capped at 60.
    out = json.loads(run_command(*cards, *args))
    assert (out["points"], out["valid"]) == (60, False)
    # By default the same hand counts far less: QC KC AC is pure.
    assert json.loads(run_command(*cards))["points"] < 60
    assert json.loads(run_command(*cards))["discard"] == "8H"


def test_command_refuses_bad_input():
    with pytest.raises(CommandError, match="7H appears 3 times"):
        run_command(*hand("7H 7H 7H 4H 5H 6H 7D 7C 7S 9C 10C JC QC"))


# ---------------------------------------------------------------- brute force
#
# Slow and obviously correct: it shares no code or shortcut with tracker/rules/hand.py.
# Every group is checked against the rules word for word (every way of letting
# each wild card be natural or a joker), and every split of the hand into groups
# and ungrouped cards is tried: take the first card, leave it ungrouped or put it
# in a group with any choice of the cards after it. Cards are ordered naturals,
# then wild cards, then printed jokers, so a natural first card's group can only
# add cards of its suit or rank, or jokers; once the first card is a joker, so
# is every card after it. Remembering the best result per multiset of cards left
# makes this fast enough.


@cache
def rank_of(card):
    return None if card == "PJ" else RANKS.index(card[:-1]) + 1


def suit_of(card):
    return None if card == "PJ" else card[-1]


class BruteForce:
    def __init__(self, wild, natural_wild, jokers_in_sets, ace_value):
        self.wild_rank = None if wild is None else 1 if wild == "PJ" else RANKS.index(wild) + 1
        self.natural_wild = natural_wild
        self.jokers_in_sets = jokers_in_sets
        self.ace_value = ace_value
        for method in ("is_wild", "order", "kinds", "splits"):  # remember every answer
            setattr(self, method, cache(getattr(self, method)))

    def is_wild(self, card):
        return card != "PJ" and rank_of(card) == self.wild_rank

    def value(self, card):
        if card == "PJ" or self.is_wild(card):
            return 0
        rank = rank_of(card)
        return self.ace_value if rank == 1 else min(rank, 10)

    def order(self, card):
        return (card == "PJ", self.is_wild(card), SUITS.find(card[-1]), rank_of(card) or 0)

    def sort(self, cards):
        return tuple(sorted(cards, key=self.order))

    def kinds(self, group):
        """What a group (in order) can be: "pure", "impure" (sequences), "set"."""
        found = set()
        wilds = [i for i, card in enumerate(group) if self.is_wild(card)]
        if self.natural_wild == "pure":
            choices = itertools.product((True, False), repeat=len(wilds))
        else:
            choices = [(True,) * len(wilds)]
        size = len(group)
        for choice in choices:
            standing_in = {i for i, joker in zip(wilds, choice, strict=True) if joker}
            naturals = [c for i, c in enumerate(group) if c != "PJ" and i not in standing_in]
            jokers = size - len(naturals)
            if not naturals:
                if size >= 3:
                    found.add("impure")  # our rule: jokers alone make an impure sequence
                continue
            if (
                size in (3, 4)
                and len({rank_of(c) for c in naturals}) == 1
                and len({suit_of(c) for c in naturals}) == len(naturals)
                and (jokers == 0 or self.jokers_in_sets)
            ):
                found.add("set")
            if size >= 3 and len({suit_of(c) for c in naturals}) == 1:
                for ace, low, high in ((1, 1, 13), (14, 2, 14)):
                    ranks = [ace if rank_of(c) == 1 else rank_of(c) for c in naturals]
                    if len(set(ranks)) == len(ranks) and any(
                        all(start <= r < start + size for r in ranks)
                        for start in range(low, high - size + 2)
                    ):
                        found.add("pure" if jokers == 0 else "impure")
        return frozenset(found)

    def splits(self, cards):
        """{(has a pure sequence, sequences up to 2, nothing ungrouped): fewest points
        of the ungrouped cards} over every split of `cards` (a sorted tuple)."""
        if not cards:
            return {(False, 0, True): 0}
        first, rest = cards[0], cards[1:]
        best = {}

        def keep(key, points):
            if points < best.get(key, 10**9):
                best[key] = points

        for (pure, sequences, _), points in self.splits(rest).items():
            keep((pure, sequences, False), points + self.value(first))
        if first == "PJ" or self.is_wild(first):
            related = rest
        else:
            related = [
                c
                for c in rest
                if c == "PJ"
                or self.is_wild(c)
                or suit_of(c) == suit_of(first)
                or rank_of(c) == rank_of(first)
            ]
        copies = sorted(Counter(related).items(), key=lambda item: self.order(item[0]))
        for picks in itertools.product(*(range(n + 1) for _, n in copies)):
            if sum(picks) < 2:
                continue
            partners = [card for (card, _), n in zip(copies, picks, strict=True) for _ in range(n)]
            kinds = self.kinds((first, *partners))
            if not kinds:
                continue
            left = list(rest)
            for card in partners:
                left.remove(card)
            for (pure, sequences, grouped), points in self.splits(tuple(left)).items():
                for kind in kinds:
                    sequences_now = min(2, sequences + (kind != "set"))
                    keep((pure or kind == "pure", sequences_now, grouped), points)
        return best

    def best_pure(self, cards):
        """The most points one pure sequence of `cards` holds (0 for none)."""
        best = 0
        for suit in SUITS:
            mine = Counter(c for c in cards if suit_of(c) == suit)
            items = sorted(mine.items(), key=lambda item: self.order(item[0]))
            for picks in itertools.product(*(range(n + 1) for _, n in items)):
                group = self.sort(
                    card for (card, _), n in zip(items, picks, strict=True) for _ in range(n)
                )
                if len(group) >= 3 and "pure" in self.kinds(group):
                    best = max(best, sum(map(self.value, group)))
        return best

    def score13(self, cards, count):
        """(points before the cap, valid) of 13 cards."""
        splits = self.splits(self.sort(cards))
        total = sum(map(self.value, cards))
        show = min((p for (pure, seqs, _), p in splits.items() if pure and seqs == 2), default=None)
        valid = any(pure and seqs == 2 and grouped for (pure, seqs, grouped) in splits)
        if count == "groups_excluded":
            return min(splits.values()), valid
        fallback = total - self.best_pure(cards) if count == "except_pure" else total
        return min(fallback, total if show is None else show), valid

    def score(self, cards, count):
        """(points before the cap, valid, the discards that reach them)."""
        if len(cards) == 13:
            return (*self.score13(cards, count), None)
        results = {}
        for discard in set(cards):
            kept = list(cards)
            kept.remove(discard)
            results[discard] = self.score13(kept, count)
        points, valid = min(results.values(), key=lambda r: (r[0], not r[1]))
        return points, valid, {d for d, r in results.items() if r == (points, valid)}

    def grouping_points(self, groups, ungrouped, count):
        """Points of a given grouping under the count rule, before the cap."""
        kinds = [self.kinds(self.sort(group)) for group in groups]
        assert all(kinds), f"not a group: {groups}"
        sequences = [g for g, k in zip(groups, kinds, strict=True) if k & {"pure", "impure"}]
        pure = [g for g, k in zip(groups, kinds, strict=True) if "pure" in k]
        total = sum(self.value(c) for group in groups for c in group)
        total += sum(map(self.value, ungrouped))
        loose = sum(map(self.value, ungrouped))
        if count == "groups_excluded" or (pure and len(sequences) >= 2):
            return loose
        if count == "except_pure" and pure:
            return total - sum(map(self.value, pure[0]))
        return total


# ---------------------------------------------------------------- hands to check


def deal(rng, size):
    """A random hand from a two-deck shoe; the card turned up sets the wild rank."""
    shoe = SHOE[:]
    rng.shuffle(shoe)
    up = shoe.pop()
    return shoe[:size], "PJ" if up == "PJ" else up[:-1]


def deal_joker_heavy(rng, size):
    wild = rng.choice([*RANKS, "PJ", None])
    wild_rank = "A" if wild == "PJ" else wild
    jokers = ["PJ"] * 4 + ([wild_rank + s for s in SUITS] * 2 if wild else [])
    others = [c for c in SHOE if c != "PJ" and c[:-1] != wild_rank]
    count = rng.randint(2, min(6, len(jokers)))
    return rng.sample(jokers, count) + rng.sample(others, size - count), wild


def deal_near_show(rng, size):
    """Sequences and sets drawn from the shoe, then a card or two swapped out."""
    shoe = SHOE[:]
    rng.shuffle(shoe)
    up = shoe.pop()
    cards = []

    def take(card):
        if card in shoe:
            shoe.remove(card)
            cards.append(card)
        else:
            cards.append(shoe.pop())

    while len(cards) < 13:
        room = 13 - len(cards)
        if room < 3:
            take(shoe[-1])
        elif rng.random() < 0.6:
            suit, length = rng.choice(SUITS), rng.randint(3, min(5, room))
            start = rng.randint(1, 15 - length)
            for rank in range(start, start + length):
                take("PJ" if rng.random() < 0.15 else RANKS[(rank - 1) % 13] + suit)
        else:
            rank = rng.choice(RANKS)
            for suit in rng.sample(SUITS, min(rng.choice((3, 4)), room)):
                take("PJ" if rng.random() < 0.1 else rank + suit)
    for _ in range(rng.randint(0, 2)):
        i = rng.randrange(13)
        shoe.insert(0, cards[i])
        cards[i] = shoe.pop()
    rng.shuffle(cards)
    if size == 14:
        cards.append(shoe.pop())
    return cards, "PJ" if up == "PJ" else up[:-1]


TABLES = [
    {"natural_wild": natural_wild, "jokers_in_sets": in_sets, "ace_value": ace}
    for natural_wild in ("pure", "joker")
    for in_sets in (True, False)
    for ace in (10, 1)
]
COUNTS = ("all", "except_pure", "groups_excluded")
DEALS = {"random": deal, "joker-heavy": deal_joker_heavy, "near-show": deal_near_show}


# `make mutants` runs this for every mutant of the calculator, on fewer hands.
BRUTE_FORCE_HANDS = int(os.environ.get("MUTANTS_BRUTE_FORCE_HANDS", "400"))


@pytest.mark.slow
@pytest.mark.parametrize("size", [13, 14])
@pytest.mark.parametrize("dealer", DEALS)
def test_search_matches_brute_force(dealer, size):
    """400 hands per dealer and size (2,400 in all), each under one of the 8
    tables in turn and every count rule, with a cap of 80 or none."""
    rng = random.Random(f"{dealer}-{size}")
    for number in range(BRUTE_FORCE_HANDS):
        cards, wild = DEALS[dealer](rng, size)
        table = TABLES[number % len(TABLES)]
        full_count = 80 if number % 3 == 0 else 1000
        brute = BruteForce(wild, **table)
        for count in COUNTS:
            result = score_hand(cards, wild, count=count, full_count=full_count, **table)
            where = f"{' '.join(cards)} wild {wild} {table} count {count}"
            points, valid, discards = brute.score(cards, count)
            assert (result.points, result.valid) == (min(points, full_count), valid), where
            kept = list(cards)
            if size == 14:
                assert result.discard in discards, where
                kept.remove(result.discard)
            else:
                assert result.discard is None
            laid = [card for group in result.groups for card in group] + result.ungrouped
            assert same_cards(laid, kept), where
            own = brute.grouping_points(result.groups, result.ungrouped, count)
            assert min(own, full_count) == result.points, where
            if result.valid:
                assert not result.ungrouped, where


def test_fourteen_cards_throw_the_dearest_card_that_fits_nowhere():
    # Three pure sequences and a set of 9s hold 12 cards; KS and 2C fit in no group
    # (no other spade near the king, one other king, no club near the 2). Throwing
    # the king leaves 2 points; throwing the 2 would leave 10.
    result = score_hand("3H 4H 5H 6D 7D 8D 9S 9C 9H JC QC KC KS 2C")
    assert (result.points, result.valid, result.discard) == (2, False, "KS")
    assert result.ungrouped == ["2C"]


def test_jokers_stand_where_a_player_lays_them():
    # KS with two jokers is J Q K (the jokers below the king: a king is the top
    # when the ace is low); KS AS with a joker is Q K A (the joker the queen).
    low = score_hand("KS PJ PJ 2H 3H 4H 9D 9C 9H 5C 6C 7C 8C")
    assert low.valid and ["PJ", "PJ", "KS"] in low.groups
    high = score_hand("KS AS PJ 2H 3H 4H 9D 9C 9H 5C 6C 7C 8C")
    assert high.valid and ["PJ", "KS", "AS"] in high.groups
    middle = score_hand("QS AS PJ 2H 3H 4H 9D 9C 9H 5C 6C 7C 8C")
    assert middle.valid and ["QS", "PJ", "AS"] in middle.groups


def test_three_jokers_alone_are_the_second_sequence():
    # No jokers in sets: the 9s and kings are sets, 2-5S the pure sequence, and the
    # three jokers on their own the second sequence: a show.
    result = score_hand("2S 3S 4S 5S 9D 9C 9H KS KD KC PJ PJ PJ", jokers_in_sets=False)
    assert (result.points, result.valid, result.ungrouped) == (0, True, [])
    assert ["PJ", "PJ", "PJ"] in result.groups


def test_jokers_no_group_needs_are_laid_as_a_sequence_of_their_own():
    # Wild jacks: the PJ, JS and JH are jokers; the 3s, kings and 9s are sets of
    # natural cards, so no group needs a joker and the three lie together as a
    # sequence of jokers (never pure). No pure sequence: every card counts, the
    # jokers 0: 4 x 3 + 3 x 10 + 3 x 9 = 12 + 30 + 27 = 69.
    result = score_hand("PJ JS JH 3S 3H 3D 3C KS KC KD 9H 9C 9D", "J")
    assert (result.points, result.valid, result.ungrouped) == (69, False, [])
    assert sorted(map(sorted, result.groups)) == [
        ["3C", "3D", "3H", "3S"],
        ["9C", "9D", "9H"],
        ["JH", "JS", "PJ"],
        ["KC", "KD", "KS"],
    ]


def test_except_pure_with_one_sequence_throws_the_dearest_card():
    # One pure sequence (2-4S) and nothing else melds: under except_pure every
    # other card counts, 6 + 9 + 10 + 10 + 8 + 10 + 7 + 10 + 2 + 5 + 3 = 80, less
    # the best discard, a 10 (not the 2C, the highest card code): 70.
    cards = "2S 3S 4S 6H 9D KH QD 8H JS 7D 10D 2C 5H 3D"
    result = score_hand(cards, count="except_pure")
    assert (result.points, result.valid, result.discard) == (70, False, "KH")
    assert result.groups == [["2S", "3S", "4S"]]
    # Counting all, the sequence counts too: 80 + 9 - 10.
    assert score_hand(cards).points == 79
