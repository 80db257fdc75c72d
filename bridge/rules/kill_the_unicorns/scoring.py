"""Final scoring (KU-7), in the order of the rules: stars, modifiers, then collections and rainbow sets.

The collections part is an exact optimiser (KU-7.3): over every colour the ``owner_choice`` tokens and tricks may
give their unicorns, and every number r of rainbow sets, it takes the best total, as a player would (S3-37).
Only colour counts matter unless ``sixth_scores_nothing`` (AMB-KU-09), when the unicorns of a colour collection
beyond ``collection_cap`` score no printed stars: the player leaves the lowest-starred ones there, so the choice
unicorns are then told apart by their stars. Legendary unicorns join no collection unless a token gives them a
colour (KU-7.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any, Iterable, Sequence

from bridge.rules.values import frozen_value
from bridge.rules.kill_the_unicorns.effects import OWNER_CHOICE
from bridge.rules.kill_the_unicorns.records import Rules


@dataclass(frozen=True)
class ScoredUnicorn:
    """One captured unicorn as scoring sees it: printed stars, its colour after fixed colour effects (``None``:
    legendary; :data:`OWNER_CHOICE`: any), and the modifiers on it (extra stars and points)."""

    stars: int
    colour: str | None
    modifiers: int = 0


@frozen_value  # every game's end makes these (Collections, Standing, GameOutcome)
class Collections:
    """The best collection choice: bonus of the colour collections, of the rainbow sets, their number, the printed
    stars lost to the cap (AMB-KU-09), the colour counts chosen, and whether two rainbow sets were possible."""

    collections: int
    rainbows: int
    rainbow_sets: int
    lost_stars: int
    colours: dict[str, int]
    double_rainbow: bool

    @property
    def total(self) -> int:
        return self.collections + self.rainbows - self.lost_stars


def _compositions(total: int, parts: int) -> Iterable[tuple[int, ...]]:
    """Every way to write ``total`` as ``parts`` non-negative integers, in a fixed order."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


_BEST: dict[int, tuple[Rules, dict[Any, Collections]]] = {}
"""Per rules (by identity): the best collections of each distinct input (what the optimiser reads of it)."""


def best_collections(unicorns: Sequence[ScoredUnicorn], colours: Sequence[str], rules: Rules) -> Collections:
    """The exact best of KU-7.3 for one player's unicorns (see the module docstring)."""
    found = _remembered_best(unicorns, colours, rules)
    return Collections(found.collections, found.rainbows, found.rainbow_sets, found.lost_stars, dict(found.colours),
                       found.double_rainbow)


def _remembered_best(unicorns: Sequence[ScoredUnicorn], colours: Sequence[str], rules: Rules) -> Collections:
    """:func:`best_collections`, the remembered value itself: its ``colours`` must not be changed (copy it)."""
    fixed: dict[str, list[int]] = {c: [] for c in colours}
    choice_stars: list[int] = []
    for u in unicorns:
        if u.colour == OWNER_CHOICE:
            choice_stars.append(u.stars)
        elif u.colour is not None:
            fixed[u.colour].append(u.stars)
    sixth = rules.sixth_scores_nothing
    # Choice unicorns that differ in nothing that matters are interchangeable: group them.
    groups: dict[int, int] = {}
    for stars in choice_stars:
        key = stars if sixth else 0
        groups[key] = groups.get(key, 0) + 1
    group_items = sorted(groups.items())
    # The optimiser reads only the colours, each colour's count (with sixth_scores_nothing, its sorted stars)
    # and the groups: the same of those, the same answer (games repeat them: it is worked out once).
    cache = _BEST.get(id(rules))
    if cache is None or cache[0] is not rules:
        cache = _BEST[id(rules)] = (rules, {})
    memo = cache[1]
    key = (tuple(colours), tuple(tuple(sorted(fixed[c])) if sixth else len(fixed[c]) for c in colours),
           tuple(group_items))
    found = memo.get(key)
    if found is None:
        if len(memo) > 65536:  # bounded
            memo.clear()
        found = memo[key] = _best_collections(fixed, group_items, colours, rules)
    return found


def _best_collections(fixed: dict[str, list[int]], group_items: list[tuple[int, int]], colours: Sequence[str],
                      rules: Rules) -> Collections:
    sixth = rules.sixth_scores_nothing
    k = len(colours)
    fixed_counts = [len(fixed[c]) for c in colours]
    # the collection bonus of every count a colour can reach, looked up rather than asked of the rules each time
    bonus = [rules.bonus(n) for n in range(sum(fixed_counts) + sum(count for _, count in group_items) + 1)]
    rainbow_bonus = rules.rainbow_bonus
    best: Collections | None = None
    best_value = 0
    can_double = False
    for split in product(*(list(_compositions(count, k)) for _, count in group_items)):
        counts = list(fixed_counts)
        for parts in split:
            for j, n in enumerate(parts):
                counts[j] += n
        top_r = min(counts)
        if top_r >= 2:
            can_double = True
        ordered = None
        if sixth:  # each colour's stars, lowest first: the ones beyond the cap are left there
            lists = {c: list(fixed[c]) for c in colours}
            for (stars, _), parts in zip(group_items, split):
                for c, n in zip(colours, parts):
                    lists[c].extend([stars] * n)
            ordered = [sorted(lists[c]) for c in colours]
        for r in range(top_r + 1):
            collections = sum(bonus[n - r] for n in counts)
            lost = 0
            if ordered is not None:
                for n, stars in zip(counts, ordered):
                    excess = n - r - rules.collection_cap
                    if excess > 0:
                        lost += sum(stars[:excess])
            value = collections + rainbow_bonus * r - lost
            if best is None or value > best_value:
                best, best_value = Collections(collections, rainbow_bonus * r, r, lost, dict(zip(colours, counts)),
                                               False), value
    assert best is not None
    return Collections(best.collections, best.rainbows, best.rainbow_sets, best.lost_stars, best.colours, can_double)


@frozen_value
class Standing:
    """One player's score and its parts (``score`` = stars + modifiers + collections + rainbows)."""

    player: int
    score: int
    stars: int
    modifiers: int
    collections: int
    rainbows: int
    rainbow_sets: int
    unicorns: int
    colours: dict[str, int]
    double_rainbow: bool

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "score": self.score, "stars": self.stars, "modifiers": self.modifiers,
                "collections": self.collections, "rainbows": self.rainbows, "rainbow_sets": self.rainbow_sets,
                "unicorns": self.unicorns, "colours": dict(self.colours), "double_rainbow": self.double_rainbow}


def standing(player: int, unicorns: Sequence[ScoredUnicorn], player_points: int, colours: Sequence[str],
             rules: Rules) -> Standing:
    """KU-7 for one player: stars (KU-7.1), modifiers (KU-7.2), collections and rainbows (KU-7.3, 7.4)."""
    best = _remembered_best(unicorns, colours, rules)
    stars = sum(u.stars for u in unicorns) - best.lost_stars
    modifiers = sum(u.modifiers for u in unicorns) + player_points
    score = stars + modifiers + best.collections + best.rainbows
    return Standing(player, score, stars, modifiers, best.collections, best.rainbows, best.rainbow_sets,
                    len(unicorns), dict(best.colours), best.double_rainbow and rules.double_rainbow_wins)


def decide(standings: Sequence[Standing], rules: Rules) -> tuple[tuple[int, ...], str]:
    """The winners and what decided (KU-7.5, 7.6): ``double_rainbow`` (AMB-KU-10), ``score``, ``unicorns``
    (most unicorns among the tied, AMB-KU-11) or ``shared``."""
    pool = list(standings)
    decided = "score"
    rainbow = [s for s in pool if s.double_rainbow]
    if rainbow:
        pool, decided = rainbow, "double_rainbow"
    top = max(s.score for s in pool)
    pool = [s for s in pool if s.score == top]
    if len(pool) > 1 and rules.tie_break == "most_unicorns":
        most = max(s.unicorns for s in pool)
        fewer = [s for s in pool if s.unicorns == most]
        if len(fewer) < len(pool):
            pool, decided = fewer, ("unicorns" if decided == "score" else decided)
    if len(pool) > 1 and decided != "double_rainbow":
        decided = "shared"
    return tuple(s.player for s in pool), decided


@frozen_value
class GameOutcome:
    """How a game ended: winners (ties share), what decided, every standing."""

    winners: tuple[int, ...]
    decided_by: str
    standings: tuple[Standing, ...]

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "decided_by": self.decided_by,
                "standings": [s.to_json() for s in self.standings]}
