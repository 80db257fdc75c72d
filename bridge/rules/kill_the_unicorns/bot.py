"""Kill the Unicorns for bots: the world sampler search needs, and a heuristic player.

**The sampler** (:func:`determinize`): what a seat cannot see is the other players' hunting hands and their
face-down played hunting cards (before the reveal), every trick deck and drawn trick of the others, the faces
of placed tricks (their owner's included: KU-1.3), the order of its own trick deck and the unicorn deck. A world
deals each of those pools anew (hunting cards of a seat among its hand and face-down play; trick cards of a
seat among its deck, its drawn tricks and its face-down placed tricks; the seat's own deck and placed tricks;
the unicorn deck). Pools are sorted before they are shuffled, so a world is a function of the view and the seed.

**The heuristic** (:class:`Heuristic`): *which unicorn is worth a bid, and what to pay*.

1. A unicorn is worth its stars, +1.5 while my collection of its colour is under five, +1 more when I have
   none of that colour yet (rainbow sets want one of each).
2. A unicorn worth less than 60 % of the best one still in today's line is let go (pass).
3. Otherwise bid its share of my hand — hand total × its worth ÷ the worth of today's remaining unicorns,
   a fifth more for the best one — with the cards whose total comes closest.
4. At the black market buy something when I can (the hunting cards come back at the end of the day anyway).
5. A power is used when offered; tricks are placed and chosen at random (their faces are hidden or unknown).
"""

from __future__ import annotations

from typing import Any, Sequence

from bridge.rules.kill_the_unicorns.actions import Buy, Join, Open, Pass, UsePower
from bridge.rules.kill_the_unicorns.state import GameState
from bridge.rules.random import SeededRandom

LET_GO_BELOW = 0.6
BEST_BONUS = 1.2


def determinize(state: GameState, player: int, seed: int) -> GameState:
    """A world ``player`` cannot tell from ``state`` (module docstring), from ``seed``."""
    other = state.copy()
    rng = SeededRandom(seed)
    revealed = other.hunt is not None and other.hunt["sums"] is not None
    placed: dict[int, list[tuple[int, int]]] = {}
    for i, pair in enumerate(other.slots):
        for s, card in enumerate(pair):
            if card is not None:
                placed.setdefault(other.t.trick_character[card], []).append((i, s))
    for seat in range(other.players):
        char = other.chars[seat]
        spots = placed.get(char, [])
        if seat == player:
            pool = sorted(other.trick_deck[seat] + [other.slots[i][s] for i, s in spots])
            rng.shuffle(pool)
            for (i, s), card in zip(spots, pool):
                other.slots[i][s] = card
            other.trick_deck[seat] = pool[len(spots):]
            continue
        hunting = sorted(other.hand[seat] + ([] if revealed else other.played[seat]))
        rng.shuffle(hunting)
        size = len(other.hand[seat])
        if revealed:
            other.hand[seat] = hunting
        else:
            other.hand[seat], other.played[seat] = hunting[:size], hunting[size:]
        tricks = sorted(other.trick_deck[seat] + other.trick_hand[seat] + [other.slots[i][s] for i, s in spots])
        rng.shuffle(tricks)
        for (i, s), card in zip(spots, tricks):
            other.slots[i][s] = card
        rest = tricks[len(spots):]
        cut = len(other.trick_deck[seat])
        other.trick_deck[seat], other.trick_hand[seat] = rest[:cut], rest[cut:]
    deck = sorted(other.unicorn_deck)
    rng.shuffle(deck)
    other.unicorn_deck = deck
    other.market_buys = None
    return other


class Heuristic:
    """The heuristic :class:`bridge.rules.game.Policy` of Kill the Unicorns (module docstring)."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def __call__(self, state: GameState, legal: Sequence[Any], rng: SeededRandom) -> Any:
        seat = state.to_move()
        own = [a for a in legal if a.player == seat]
        bids = [a for a in own if isinstance(a, (Open, Join))]
        if bids:
            return self._bid(state, seat, bids, own)
        buys = [a for a in own if isinstance(a, Buy)]
        if buys:
            return buys[rng.randbelow(len(buys))]
        power = next((a for a in own if isinstance(a, UsePower)), None)
        if power is not None:
            return power
        return own[rng.randbelow(len(own))]

    def worth(self, state: GameState, seat: int, unicorn: str) -> float:
        card = state.t.unicorn[unicorn]
        value = float(card.stars)
        if card.colour is not None:
            mine = sum(1 for u, _, _ in state.catch[seat] if state.t.unicorn[u].colour == card.colour)
            if mine < 5:
                value += 1.5
            if mine == 0:
                value += 1.0
        return value

    def _bid(self, state: GameState, seat: int, bids: list[Any], own: list[Any]) -> Any:
        hunt = state.hunt
        index = hunt["index"] if hunt is not None else 0
        line = state.line
        here = line[index] if index < len(line) else None
        passing = next((a for a in own if isinstance(a, Pass)), None)
        if here is None:
            return passing or bids[0]
        ahead = [self.worth(state, seat, u) for u in line[index:] if u is not None]
        mine = self.worth(state, seat, here)
        best = max(ahead)
        if passing is not None and mine < LET_GO_BELOW * best:
            return passing
        value = state.t.value
        budget = sum(value[c] for c in state.hand[seat])
        target = budget * mine / sum(ahead) * (BEST_BONUS if mine >= best else 1.0)
        return min(bids, key=lambda a: (abs(sum(value[c] for c in a.cards) - target), a.cards))
