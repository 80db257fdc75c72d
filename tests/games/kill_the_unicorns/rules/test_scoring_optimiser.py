"""KU-7.3: the optimiser over rainbow sets and colour choices is exact — checked against a brute force that tries
every colour for every choice unicorn, every split of every colour into rainbow and collection unicorns, and
(with sixth_scores_nothing) every choice of which collection unicorns keep their stars."""

from __future__ import annotations

import dataclasses
from itertools import combinations, product

from bridge.rules.kill_the_unicorns.records import Rules
from bridge.rules.kill_the_unicorns.scoring import ScoredUnicorn, best_collections
from bridge.rules.random import SeededRandom

COLOURS = ("green", "blue", "pink", "yellow")


def brute_force(unicorns, rules: Rules) -> int:
    best = None
    choice = [i for i, u in enumerate(unicorns) if u.colour == "owner_choice"]
    for picks in product(COLOURS, repeat=len(choice)):
        colour = [u.colour for u in unicorns]
        for i, c in zip(choice, picks):
            colour[i] = c
        coloured = [i for i, c in enumerate(colour) if c is not None]
        # every subset of coloured unicorns marked "in a rainbow set": valid when each colour has r of them
        for mask in product((False, True), repeat=len(coloured)):
            rainbow = [i for i, m in zip(coloured, mask) if m]
            per = [sum(1 for i in rainbow if colour[i] == c) for c in COLOURS]
            if len(set(per)) != 1:
                continue
            r = per[0]
            value = rules.rainbow_bonus * r
            for c in COLOURS:
                rest = [i for i in coloured if colour[i] == c and i not in rainbow]
                value += rules.bonus(len(rest))
                if rules.sixth_scores_nothing and len(rest) > rules.collection_cap:
                    # the player picks which collection unicorns count; the others lose their stars
                    value -= min(sum(unicorns[i].stars for i in rest if i not in kept)
                                 for kept in combinations(rest, rules.collection_cap))
            best = value if best is None else max(best, value)
    return best


def random_collection(rng: SeededRandom, size: int):
    out = []
    for _ in range(size):
        roll = rng.randbelow(10)
        colour = None if roll == 0 else "owner_choice" if roll <= 2 else COLOURS[rng.randbelow(4)]
        out.append(ScoredUnicorn(rng.randbelow(5) - 1, colour))
    return out


def test_the_optimiser_equals_brute_force_on_random_small_collections():
    rng = SeededRandom(2024)
    for sixth in (False, True):
        rules = dataclasses.replace(Rules(), sixth_scores_nothing=sixth, collection_cap=3,
                                    collection_bonus=(0, 0, 2, 5))
        for _ in range(120):
            unicorns = random_collection(rng, 1 + rng.randbelow(9))
            assert best_collections(unicorns, COLOURS, rules).total == brute_force(unicorns, rules), unicorns


def test_with_the_real_table_too():
    rng = SeededRandom(7)
    rules = Rules()
    for _ in range(100):
        unicorns = random_collection(rng, 6 + rng.randbelow(4))
        assert best_collections(unicorns, COLOURS, rules).total == brute_force(unicorns, rules), unicorns


def test_a_choice_token_completes_a_rainbow():
    unicorns = [ScoredUnicorn(1, "green"), ScoredUnicorn(1, "blue"), ScoredUnicorn(1, "pink"),
                ScoredUnicorn(1, "owner_choice")]
    best = best_collections(unicorns, COLOURS, Rules())
    assert (best.rainbow_sets, best.rainbows, best.colours["yellow"]) == (1, 8, 1)
