"""How fast the hand calculator scores hands: `.venv/bin/python bench/hands.py` (and `make bench`).

Deals 2,000 random 13-card hands from a two-deck shoe with 4 printed jokers
(the wild rank from a turned-up card), and 2,000 joker-heavy 14-card hands
(3 to 6 jokers, printed or wild), scores each under the default house rules
and prints hands per second and the 50th and 99th percentile CPU time per hand.
Targets in pure Python: p99 at most 1 ms for 13 cards, 10 ms for 14 with jokers.
"""

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tracker.rules.hand import RANKS, SUITS, score_hand

HANDS = 2000
SEED = 13
SHOE = [rank + suit for suit in SUITS for rank in RANKS] * 2 + ["PJ"] * 4


def random_hand(rng, size=13):
    """A deal: the card turned up sets the wild rank (a printed joker: aces)."""
    shoe = SHOE[:]
    rng.shuffle(shoe)
    up = shoe.pop()
    return shoe[:size], "PJ" if up == "PJ" else up[:-1]


def joker_heavy_hand(rng, size=14):
    """3 to 6 jokers, printed or of the wild rank, and the rest of the hand at random."""
    wild = rng.choice([*RANKS, "PJ"])
    wild_rank = "A" if wild == "PJ" else wild
    jokers = ["PJ"] * 4 + [wild_rank + suit for suit in SUITS] * 2
    others = [card for card in SHOE if card != "PJ" and card[:-1] != wild_rank]
    count = rng.randint(3, 6)
    return rng.sample(jokers, count) + rng.sample(others, size - count), wild


def timings(hands):
    seconds = []
    for cards, wild in hands:
        start = time.process_time()
        score_hand(cards, wild)
        seconds.append(time.process_time() - start)
    return seconds


def measure(say=print):
    """{label: (hands a second, p50 ms, p99 ms)}, each also said on a line."""
    rng = random.Random(SEED)
    ordinary = [random_hand(rng) for _ in range(HANDS)]
    heavy = [joker_heavy_hand(rng) for _ in range(HANDS)]
    timings(ordinary[:50])  # warm up
    figures = {}
    for label, hands in (("13-card", ordinary), ("14-card joker-heavy", heavy)):
        seconds = timings(hands)
        cuts = statistics.quantiles(seconds, n=100, method="inclusive")
        figures[label] = (len(seconds) / sum(seconds), cuts[49] * 1000, cuts[98] * 1000)
        say(
            f"hands {label}: {figures[label][0]:.0f}/s p50 {figures[label][1]:.2f} ms "
            f"p99 {figures[label][2]:.2f} ms max {max(seconds) * 1000:.2f} ms"
        )
    return figures


if __name__ == "__main__":
    measure()
