"""The hand calculator: the grouping of a rummy hand with the fewest points.

Pure Python: no Django, no I/O. Given the 13 cards of a hand (or 14, just
after a draw) and the deal's wild rank, `score_hand` finds the grouping into
sequences and sets that leaves the fewest points, says whether it is a valid
show, and for 14 cards which card to discard.

The rules, as the table plays them:

- Two decks: at most 2 copies of a card, at most 4 printed jokers (PJ).
- Every card of the wild rank is a joker. If the card turned up is a printed
  joker, aces are wild.
- A sequence is 3 or more cards of one suit in a row, ace low (A-2-3) or high
  (Q-K-A), never round the corner (K-A-2). It is pure when no joker stands in.
  A wild card in its own natural place keeps it pure (natural_wild="pure") or
  counts as a joker (natural_wild="joker").
- A set is 3 or 4 cards of one rank in different suits; jokers may stand in
  unless jokers_in_sets is False.
- A valid show groups all 13 cards with at least two sequences, one pure.
- A loser counts the ungrouped cards when the hand has a pure sequence and a
  second sequence; otherwise every card counts (count="all"), every card but
  the pure sequence (count="except_pure"), or groups never count
  (count="groups_excluded"). J, Q, K, 10 are 10, an ace ace_value, jokers 0,
  other cards their number; the total stops at full_count.

Where the rules are silent, this module decides:

- A group of jokers only (3 or more, printed or wild) is an impure sequence:
  it stands for some run, but nothing stands naturally in it, so it is never
  pure. It can be a hand's second sequence, never its pure one.
- A set holds at most 4 cards, jokers included; one natural card and two
  jokers is a set too (though as a sequence it does more).
- A wild card counts 0 wherever it lies, ungrouped too.
- When every card counts anyway, the groups shown are those leaving the fewest
  points ungrouped; under except_pure without a second sequence, only the pure
  sequence worth most is shown. Jokers no group needs go to a sequence that
  need not stay pure, or stay ungrouped at 0.
- With 14 cards and several discards scoring the same, a valid show is
  preferred, then whichever the search meets first.

The search is exact: a depth-first search over the hand's distinct cards that
always places the first card left (ungrouped, discarded, or in a meld with
later cards) and remembers every position it reaches, so each is solved once.
Jokers are pooled: a meld takes only the jokers it needs and spare ones are
handed out at the end. With 14 cards the discard is one more choice inside the
same search, so the 14 possible discards share their work. A branch stops as
soon as nothing can beat it (no points left, or no pure sequence possible).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .table import N_

SUITS = "SHDC"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
PRINTED_JOKER = "PJ"
HAND_SIZES = (13, 14)
MAX_COPIES = 2
MAX_PRINTED_JOKERS = 4

NATURAL_WILD_RULES = ("pure", "joker")
COUNT_RULES = ("all", "except_pure", "groups_excluded")
ACE_VALUES = (10, 1)

_ACE = 1
_PJ = 52  # a natural card is suit * 13 + rank - 1, so 0..51
_PURE, _IMPURE, _SET = 0, 1, 2
_INF = 10**6

# What a grouping still needs, packed as pure * 3 + sequences: a show needs one
# pure sequence and two sequences in all; a free grouping needs nothing.
_SHOW = 1 * 3 + 2
_FREE = 0
_AFTER = {
    _PURE: tuple(max(need % 3 - 1, 0) for need in range(6)),
    _IMPURE: tuple(need // 3 * 3 + max(need % 3 - 1, 0) for need in range(6)),
    _SET: tuple(range(6)),
}


class HandError(ValueError):
    """A hand, wild card or house rule that cannot be scored; the message says why.

    As the engine's refusals (tracker/rules/table.py): `template` is the English
    words marked `N_`, with %(name)s places, and `params` what goes in them, so
    the calculator translates it at the edge (tracker/i18n.py); `str()` is the
    English sentence the command prints."""

    def __init__(self, template: str, params: Mapping[str, object] | None = None) -> None:
        self.template = template
        self.params = dict(params or {})
        super().__init__(template % self.params if params else template)


@dataclass
class HandResult:
    """The answer: points after the full-count cap, whether the 13 cards kept
    make a valid show, the groups (each in the order a player lays them, jokers
    where they stand), the ungrouped cards, and the card to discard (14 cards)."""

    points: int
    valid: bool
    groups: list[list[str]] = field(default_factory=list)
    ungrouped: list[str] = field(default_factory=list)
    discard: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "points": self.points,
            "valid": self.valid,
            "groups": [list(group) for group in self.groups],
            "ungrouped": list(self.ungrouped),
            "discard": self.discard,
        }


# ---------------------------------------------------------------- cards


def _suit(code):
    return code // 13


def _rank(code):
    return code % 13 + 1


def card_name(code: int) -> str:
    """The canonical name of an internal card code: "10H", "AS", "PJ"."""
    if code == _PJ:
        return PRINTED_JOKER
    return RANKS[_rank(code) - 1] + SUITS[_suit(code)]


def _parse_rank(text):
    text = text.strip().upper()
    if text == "T":
        text = "10"
    return RANKS.index(text) + 1 if text in RANKS else None


def _card_code(token):
    text = token.strip().upper()
    if text == PRINTED_JOKER:
        return _PJ
    rank = _parse_rank(text[:-1])
    suit = text[-1:]
    if rank is None or len(suit) != 1 or suit not in SUITS:
        raise HandError(
            N_(
                'unknown card "%(card)s": write a rank (A, 2-10 or T, J, Q, K) '
                "and a suit (S, H, D, C), or PJ for a printed joker"
            ),
            {"card": token},
        )
    return SUITS.index(suit) * 13 + rank - 1


def _parse_codes(tokens):
    if isinstance(tokens, str):
        tokens = [tokens]
    words = [word for token in tokens for word in re.split(r"[\s,]+", str(token)) if word]
    codes = [_card_code(word) for word in words]
    copies = Counter(codes)
    for code, times in copies.items():
        if code != _PJ and times > MAX_COPIES:
            raise HandError(
                N_("%(card)s appears %(times)s times: two decks hold at most %(most)s"),
                {"card": card_name(code), "times": times, "most": MAX_COPIES},
            )
    if copies[_PJ] > MAX_PRINTED_JOKERS:
        raise HandError(
            N_("%(times)s printed jokers: two decks hold at most %(most)s"),
            {"times": copies[_PJ], "most": MAX_PRINTED_JOKERS},
        )
    return codes


def parse_cards(tokens: str | Iterable[str]) -> list[str]:
    """Cards in canonical form from a list of tokens or one string ("AS 10h, tc pj").

    Raises HandError for an unknown card, more than 2 copies of a card or more
    than 4 printed jokers. Any number of cards is accepted; `score_hand` wants 13 or 14.
    """
    return [card_name(code) for code in _parse_codes(tokens)]


def parse_wild(wild: str | int | None) -> int | None:
    """The wild rank (1 for aces .. 13 for kings) from "5", "10", "T", "K", a card
    such as "5H", or "PJ" (a printed joker turned up: aces are wild); None for no wild rank.
    """
    if wild is None:
        return None
    text = str(wild).strip().upper()
    if text == PRINTED_JOKER:
        return _ACE
    rank = _parse_rank(text)
    if rank is None and len(text) >= 2 and text[-1] in SUITS:
        rank = _parse_rank(text[:-1])
    if rank is None:
        raise HandError(
            N_('unknown wild rank "%(wild)s": give a rank such as 5, 10 or K, or PJ'),
            {"wild": wild},
        )
    return rank


def _check_rules(natural_wild, jokers_in_sets, count, ace_value, full_count):
    if natural_wild not in NATURAL_WILD_RULES:
        raise HandError(N_('natural_wild must be "pure" or "joker"'))
    if not isinstance(jokers_in_sets, bool):
        raise HandError(N_("jokers_in_sets must be true or false"))
    if count not in COUNT_RULES:
        raise HandError(N_('count must be "all", "except_pure" or "groups_excluded"'))
    if isinstance(ace_value, bool) or ace_value not in ACE_VALUES:
        raise HandError(N_("ace_value must be 10 or 1"))
    if isinstance(full_count, bool) or not isinstance(full_count, int) or full_count < 0:
        raise HandError(N_("full_count must be a whole number, 0 or more"))


# ---------------------------------------------------------------- scoring


def score_hand(
    cards: str | Iterable[str],
    wild: str | int | None = None,
    *,
    natural_wild: str = "pure",
    jokers_in_sets: bool = True,
    count: str = "all",
    ace_value: int = 10,
    full_count: int = 80,
) -> HandResult:
    """Score a hand of 13 cards, or 14 with the best discard. See the module docstring."""
    _check_rules(natural_wild, jokers_in_sets, count, ace_value, full_count)
    codes = _parse_codes(cards)
    if len(codes) not in HAND_SIZES:
        raise HandError(
            N_("a hand has 13 cards, or 14 before the discard, not %(n)s"), {"n": len(codes)}
        )
    search = _Search(codes, parse_wild(wild), natural_wild == "pure", jokers_in_sets, ace_value)
    raw, valid, layout = search.best_layout(count)
    groups, ungrouped, discard = layout
    return HandResult(
        points=min(raw, full_count),
        valid=valid,
        groups=[[card_name(code) for code in group] for group in groups],
        ungrouped=[card_name(code) for code in sorted(ungrouped)],
        discard=None if discard is None else card_name(discard),
    )


def _lowest(left, twice):
    """The lowest card type of `left` (its bit and index), and the types left, and held
    twice, once one copy of it is taken: a type held twice stays, held once."""
    bit = left & -left
    if twice & bit:
        return bit, bit.bit_length() - 1, left, twice ^ bit
    return bit, bit.bit_length() - 1, left ^ bit, twice


class _Search:
    """One hand under one set of table rules, with its candidate melds precomputed.

    The hand's natural cards become "types" (distinct cards, 1 or 2 copies),
    ordered so a search always places the first type left. A position is two
    bit masks over the types (those with a copy left, those with two left),
    the jokers in the pool, what the grouping still needs and whether a
    discard is still to be made (14 cards).
    """

    def __init__(self, codes, wild_rank, wild_keeps_pure, jokers_in_sets, ace_value):
        self.codes = codes
        self.spare = len(codes) == 14

        def value(code):
            if code == _PJ or _rank(code) == wild_rank:
                return 0
            rank = _rank(code)
            return ace_value if rank == _ACE else min(rank, 10)

        self.card_value = value
        self.total = sum(value(code) for code in codes)

        # Printed jokers, and wild cards when they always count as jokers, only
        # ever stand in. With natural_wild="pure" a wild card is a type of its
        # own: it either joins the pool or sits naturally in a pure sequence.
        self.joker_cards = [
            c for c in codes if c == _PJ or (not wild_keeps_pure and _rank(c) == wild_rank)
        ]
        copies = Counter(c for c in codes if c not in self.joker_cards)
        # Wild types first: their choice (joker or natural) is made before any
        # meld draws on the pool. Then suit by suit, ace first.
        self.types = sorted(copies, key=lambda c: (_rank(c) != wild_rank, c))
        types = self.types
        self.wild = [_rank(c) == wild_rank for c in types]
        self.values = [value(c) for c in types]
        most_jokers = len(self.joker_cards) + sum(copies[c] for c in types if _rank(c) == wild_rank)

        self.melds = [self._melds_of(i, most_jokers, jokers_in_sets) for i in range(len(types))]
        self.pure_masks = [m[0] for melds in self.melds for m in melds if m[2] == _PURE]

        # A card in no meld at all stays ungrouped whatever else happens: leave
        # it out of the search. With a discard to make, the best of them may go.
        meldable = 0
        for melds in self.melds:
            for meld in melds:
                meldable |= meld[0]
        self.stranded = [
            t for i, t in enumerate(types) if not self.wild[i] and not meldable >> i & 1
        ]
        self.stranded_points = sum(self.values[types.index(t)] * copies[t] for t in self.stranded)
        self.top_stranded = max(self.stranded, key=value, default=None)
        self.start = (
            sum(1 << i for i, t in enumerate(types) if meldable >> i & 1 or self.wild[i]),
            sum(
                1 << i
                for i, t in enumerate(types)
                if copies[t] == 2 and (meldable >> i & 1 or self.wild[i])
            ),
            len(self.joker_cards),
        )
        self._searches = {}

    # -- candidate melds

    def _melds_of(self, i, most_jokers, jokers_in_sets):
        """Melds whose first type is i, as (mask, jokers, kind, worth, members).

        Only later types join, so each meld is found once. A meld takes the
        fewest jokers it can: more would only leave fewer for the rest.
        """
        types = self.types
        card = types[i]
        later = range(i + 1, len(types))
        found = {}

        # Sequences: i and any later cards of its suit, jokers filling the gaps.
        # A wild type only ever sits naturally in a pure sequence: anywhere
        # else it does no more than a joker would.
        budget = 0 if self.wild[i] else most_jokers
        same_suit = [j for j in later if _suit(types[j]) == _suit(card) and not self.wild[j]]
        ace = next((j for j in [i, *same_suit] if _rank(types[j]) == _ACE), None)
        for ace_rank in (1, 14) if ace is not None else (1,):
            placed = sorted((ace_rank if j == ace else _rank(types[j]), j) for j in [i, *same_suit])
            # With the ace high, only runs that use it: the rest are found with it low.
            must = {i, ace} if ace_rank == 14 else {i}
            for members, jokers in _runs(placed, must, budget):
                mask = sum(1 << j for j in members)
                if mask not in found or found[mask][1] > jokers:
                    kind = _PURE if jokers == 0 else _IMPURE
                    found[mask] = (mask, jokers, kind, members)

        # Sets: i and later cards of its rank (so other suits). A set of one
        # card and two jokers is left out: as a sequence it does more.
        if not self.wild[i]:
            same_rank = [j for j in later if _rank(types[j]) == _rank(card)]
            for pick in range(1, 1 << len(same_rank)):
                members = [i] + [same_rank[b] for b in range(len(same_rank)) if pick >> b & 1]
                jokers = max(0, 3 - len(members))
                if jokers and (not jokers_in_sets or jokers > most_jokers):
                    continue
                mask = sum(1 << j for j in members)
                found[mask] = (mask, jokers, _SET, members)

        melds = [
            (mask, jokers, kind, sum(self.values[j] for j in members), members)
            for mask, jokers, kind, members in found.values()
        ]
        # Big melds first: a grouping with nothing left over ends the search early.
        melds.sort(key=lambda m: (-m[3], m[1], -len(m[4])))
        return melds

    # -- the search

    def _search(self, can_discard, joker_discard, stranded_discard):
        """The best-points function for one discard policy, with its own memo.

        can_discard: mask of types that may be discarded; joker_discard: a
        joker may go; stranded_discard: the top stranded card may go.
        """
        policy = (can_discard, joker_discard, stranded_discard)
        if policy in self._searches:
            return self._searches[policy]
        memo = {}
        melds = self.melds
        values = self.values
        wild = self.wild
        pure_masks = self.pure_masks
        after = _AFTER
        stranded_discard = stranded_discard and self.top_stranded is not None
        saved = self.card_value(self.top_stranded) if stranded_discard else 0

        def finish(jokers, need, spare):
            """No types left: is what the grouping needs met, and the discard made?"""
            if need >= 3:
                return _INF
            if not spare:
                return 0 if need <= jokers // 3 else _INF
            if stranded_discard and need <= jokers // 3:
                return -saved
            if joker_discard and jokers and need <= (jokers - 1) // 3:
                return 0
            return _INF

        def best(left, twice, jokers, need, spare):
            """Fewest points of the types left (the discard saves its value)."""
            key = (left, twice, jokers, need, spare)
            result = memo.get(key)
            if result is not None:
                return result
            if not left:
                result = finish(jokers, need, spare)
            elif need >= 3 and not any(mask & left == mask for mask in pure_masks):
                result = _INF
            else:
                floor = -saved if spare else 0
                bit, first, rest, rest_twice = _lowest(left, twice)
                result = _INF
                for mask, needed, kind, _worth, _members in melds[first]:
                    if needed <= jokers and mask & left == mask:
                        points = best(
                            left & ~(mask & ~twice),
                            twice & ~mask,
                            jokers - needed,
                            after[kind][need],
                            spare,
                        )
                        if points < result:
                            result = points
                            if result <= floor:
                                break
                if result > floor:
                    if wild[first]:
                        points = best(rest, rest_twice, jokers + 1, need, spare)
                    else:
                        points = values[first] + best(rest, rest_twice, jokers, need, spare)
                        if spare and can_discard & bit and points > floor:
                            points = min(points, best(rest, rest_twice, jokers, need, 0))
                    result = min(result, points)
            memo[key] = result
            return result

        self._searches[policy] = best
        return best

    def _policy(self, only_worth=None):
        """Which cards may be discarded (14 cards): any, or only those worth `only_worth`."""
        if not self.spare:
            return (0, False, False)
        if only_worth is None:
            return (sum(1 << i for i, w in enumerate(self.wild) if not w), True, True)
        can = sum(
            1 << i
            for i, (w, v) in enumerate(zip(self.wild, self.values, strict=True))
            if not w and v == only_worth
        )
        top = self.top_stranded
        return (can, only_worth == 0, top is not None and self.card_value(top) == only_worth)

    def fewest_points(self, need, policy):
        """The fewest points of ungrouped cards over groupings meeting `need`."""
        best = self._search(*policy)
        left, twice, jokers = self.start
        points = best(left, twice, jokers, need, int(self.spare))
        return points + self.stranded_points if points < _INF else _INF

    def layout(self, need, policy):
        """Replay the search's choices: (groups, ungrouped, discard) as card codes.
        Jokers the groups do not need stay in `ungrouped` (at 0 points)."""
        best = self._search(*policy)
        can_discard, _joker_discard, stranded_discard = policy
        left, twice, jokers = self.start
        spare = int(self.spare)
        types, values, wild, melds = self.types, self.values, self.wild, self.melds
        pool = list(self.joker_cards)
        chosen = []  # (kind, natural codes, jokers taken)
        ungrouped = [c for c in self.codes if c in self.stranded]  # every copy
        discard = None
        while left:
            target = best(left, twice, jokers, need, spare)
            bit, first, rest, rest_twice = _lowest(left, twice)
            for mask, needed, kind, _worth, members in melds[first]:
                if needed <= jokers and mask & left == mask:
                    after_need = _AFTER[kind][need]
                    new = (left & ~(mask & ~twice), twice & ~mask, jokers - needed)
                    if best(*new, after_need, spare) == target:
                        chosen.append((kind, [types[j] for j in members], needed))
                        left, twice, jokers = new
                        need = after_need
                        break
            else:
                card = types[first]
                if wild[first] and best(rest, rest_twice, jokers + 1, need, spare) == target:
                    pool.append(card)
                    jokers += 1
                elif not wild[first] and (
                    values[first] + best(rest, rest_twice, jokers, need, spare) == target
                ):
                    ungrouped.append(card)
                elif (
                    spare
                    and can_discard & bit
                    and best(rest, rest_twice, jokers, need, 0) == target
                ):
                    discard = card
                    spare = 0
                else:
                    raise AssertionError("the replay lost the search's path")
                left, twice = rest, rest_twice
        if spare:
            if stranded_discard and self.top_stranded is not None and need <= jokers // 3:
                discard = self.top_stranded
                ungrouped.remove(discard)
            else:
                discard = pool.pop()
        groups, spare_jokers = self._dress(chosen, pool, need % 3)
        return groups, ungrouped + spare_jokers, discard

    def _dress(self, chosen, pool, joker_runs):
        """Hand out the pool's cards: to the melds that took jokers, to the
        sequences of jokers the grouping needs, and any left to a sequence
        that need not stay pure. Returns groups in display order."""
        groups = []
        for kind, naturals, needed in chosen:
            groups.append([kind, naturals, [pool.pop() for _ in range(needed)]])
        for _ in range(joker_runs):
            groups.append([_IMPURE, [], [pool.pop() for _ in range(3)]])
        if pool:
            impure = [g for g in groups if g[0] == _IMPURE]
            pure = [g for g in groups if g[0] == _PURE]
            if impure:
                impure[0][2].extend(pool)
            elif len(pure) >= 2:
                pure[1][0] = _IMPURE
                pure[1][2].extend(pool)
            elif len(pool) >= 3:
                groups.append([_IMPURE, [], list(pool)])
            else:
                return self._ordered(groups), list(pool)
        return self._ordered(groups), []

    @staticmethod
    def _ordered(groups):
        groups.sort(key=lambda g: (g[0], sorted(g[1])))
        return [_arrange(kind, naturals, jokers) for kind, naturals, jokers in groups]

    # -- the answer

    def best_layout(self, count):
        """(points before the cap, valid, (groups, ungrouped, discard)) under a count rule."""
        anything = self._policy()
        if count == "groups_excluded":
            free = self.fewest_points(_FREE, anything)
            if free == 0 and self.fewest_points(_SHOW, anything) == 0:
                return 0, True, self.layout(_SHOW, anything)
            return free, False, self.layout(_FREE, anything)

        show = self.fewest_points(_SHOW, anything)
        top = max(map(self.card_value, self.codes)) if self.spare else None
        single = self._best_single_pure() if count == "except_pure" else None
        if single is not None:
            fallback, fallback_layout = single
        else:
            fallback, fallback_layout = self.total - (top or 0), None
        if show <= fallback:
            return show, show == 0, self.layout(_SHOW, anything)
        if fallback_layout is None:
            # Every card counts whatever the grouping: show the most melded one.
            fallback_layout = self.layout(_FREE, self._policy(top))
        return fallback, False, fallback_layout

    def _best_single_pure(self):
        """except_pure without a second sequence: every card but one pure
        sequence counts. The best such sequence (and discard), or None."""
        best = None
        for melds in self.melds:
            for _mask, _jokers, kind, worth, members in melds:
                if kind != _PURE:
                    continue
                rest = list(self.codes)
                for j in members:
                    rest.remove(self.types[j])
                discard = max(rest, key=self.card_value) if self.spare else None
                saved = worth + (self.card_value(discard) if self.spare else 0)
                if best is None or saved > best[0]:
                    if discard is not None:
                        rest.remove(discard)
                    naturals = [self.types[j] for j in members]
                    best = (saved, ([_arrange(_PURE, naturals, [])], rest, discard))
        if best is None:
            return None
        saved, layout = best
        return self.total - saved, layout


def _runs(placed, must, budget):
    """Every choice from `placed` ((rank, type) pairs of one suit, rank order)
    that holds all of `must` and makes a sequence with at most `budget` jokers:
    (types, jokers needed). The holes between chosen ranks only grow as
    higher ranks join, so a choice over budget is not extended."""
    found = []
    chosen = []

    def walk(k, low, high, holes):
        if k == len(placed):
            if chosen and must.issubset(chosen):
                jokers = max(3, high - low + 1) - len(chosen)
                if jokers <= budget:
                    found.append((list(chosen), jokers))
            return
        rank, j = placed[k]
        gap = rank - high - 1 if chosen else 0
        if holes + gap <= budget:
            chosen.append(j)
            walk(k + 1, low if len(chosen) > 1 else rank, rank, holes + gap)
            chosen.pop()
        if j not in must:
            walk(k + 1, low, high, holes)

    walk(0, 0, 0, 0)
    return found


def _arrange(kind, naturals, jokers):
    """A meld's cards in the order a player lays them: a sequence in rank order
    with each joker in the place it stands for, a set by suit then its jokers."""
    if kind == _SET or not naturals:
        return sorted(naturals) + list(jokers)
    length = len(naturals) + len(jokers)
    for ace in (1, 14):
        placed = {(ace if _rank(c) == _ACE else _rank(c)): c for c in naturals}
        low, high = min(placed), max(placed)
        if len(placed) == len(naturals) and high - low + 1 <= length:
            top = 13 if ace == 1 else 14
            start = min(low, top - length + 1)
            spare = list(jokers)
            return [placed[r] if r in placed else spare.pop() for r in range(start, start + length)]
    raise AssertionError("not a sequence")
