"""15 Days for bots: a heuristic player (the sampler is the game's ``redeal_hidden``: nothing is face down on the
table, so the other hands, the draw piles and the cards removed unseen are all a world hides).

The heuristic (:class:`Heuristic`) values a card by what it would do on my board — *which card costs least
and feeds an animal*:

- a card into its season's corner is worth the length it adds to that corner's longest run, plus 1 when it
  costs 1 (at the open end) rather than 2, plus 2 when it brings my count of that season to the animal (three
  cards, or the owner's count); a card whose value the corner already has is worth nothing;
- a card of a season with no corner yet is worth 1.5 while a corner is empty (an empty corner costs 2 points).

On its turn it plays the best card worth at least 1.5 (paying with the cards worth least), else takes the best
face-up card (market tops, the discard) worth at least 1.5, else takes a wild when it may, else draws. A wild goes
where it lengthens a run most; the hand is cut down by discarding the cards worth least; feathers are kept.
Everything it reads is public or its own hand.
"""

from __future__ import annotations

from typing import Any, Sequence

from bridge.rules.fifteen_days.actions import (Discard, Done, Draw, EndTurn, Feather, Pay, Play, PutWild, Refill,
                                               Take, TakeWild)
from bridge.rules.fifteen_days.state import GameState, longest_run, placement_cost
from bridge.rules.random import SeededRandom

PLAY_AT_LEAST = 1.5
TAKE_AT_LEAST = 1.5
NEW_CORNER = 1.5
CHEAP = 1.0
ANIMAL = 2.0


class Heuristic:
    """The heuristic :class:`bridge.rules.game.Policy` of 15 Days (module docstring)."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def __call__(self, state: GameState, legal: Sequence[Any], rng: SeededRandom) -> Any:
        seat = state.to_move()
        own = [a for a in legal if a.player == seat]
        plays = [a for a in own if isinstance(a, Play)]
        pays = [a for a in own if isinstance(a, Pay)]
        if pays:
            return min(pays, key=lambda a: (self.worth(state, seat, a.card), a.card))
        if any(isinstance(a, PutWild) for a in own):
            return max((a for a in own if isinstance(a, PutWild)), key=lambda a: (self._wild_gain(state, seat, a),
                                                                                   -a.corner, a.value))
        discards = [a for a in own if isinstance(a, Discard)]
        if discards:
            return min(discards, key=lambda a: (self.worth(state, seat, a.card), a.card))
        if plays:
            best = max(plays, key=lambda a: (self._play_worth(state, seat, a), a.card, -a.corner))
            if self._play_worth(state, seat, best) >= PLAY_AT_LEAST:
                return best
        done = next((a for a in own if isinstance(a, (Done, EndTurn))), None)
        if state.pending == "play" and done is not None:
            return done
        takes = [a for a in own if isinstance(a, Take)]
        if takes:
            worth = {a: self._take_worth(state, seat, a) for a in takes}
            best_take = max(takes, key=lambda a: (worth[a], -(a.column if a.column is not None else 9)))
            if worth[best_take] >= TAKE_AT_LEAST or (state.pending == "take" and done is None):
                return best_take
        wilds = [a for a in own if isinstance(a, TakeWild)]
        if wilds:
            return min(wilds, key=lambda a: (sum(self.worth(state, seat, f) for f in a.cards), a.cards))
        draws = [a for a in own if isinstance(a, (Draw, Refill))]
        if draws:
            return draws[rng.randbelow(len(draws))]
        if done is not None:
            return done
        rest = [a for a in own if not isinstance(a, Feather)] or own
        return rest[rng.randbelow(len(rest))]

    # ------------------------------------------------------------------------------------------ values

    def worth(self, state: GameState, seat: int, face: Any) -> float:
        """What ``face`` would do on ``seat``'s board, played at its best corner."""
        board = state.seats[seat]
        for k, corner in enumerate(board.corners):
            if corner.season == face.season:
                return self._into(state, seat, k, face)
        if any(corner.season is None for corner in board.corners):
            return NEW_CORNER
        return 0.0

    def _into(self, state: GameState, seat: int, k: int, face: Any) -> float:
        board = state.seats[seat]
        corner = board.corners[k]
        if corner.season is None:
            return NEW_CORNER
        if face.value in corner.cards or face.value not in state.t.value_set:
            return 0.0
        values = corner.values()
        run = longest_run(values | {face.value}) - longest_run(values)
        value = float(run)
        if placement_cost(board.directions[k], corner, face.value) == 1:
            value += CHEAP
        count = state.season_count(seat, face.season) + 1
        animal = state.t.animal_of_season.get(face.season)
        if animal is not None:
            owner = state.owner.get(animal)
            if owner != seat and count >= state.rules.animal_threshold and (owner is None or count >= state.season_count(owner, face.season)):
                value += ANIMAL
        return value

    def _play_worth(self, state: GameState, seat: int, action: Play) -> float:
        return self._into(state, seat, action.corner, action.card)

    def _take_worth(self, state: GameState, seat: int, action: Take) -> float:
        pile = state.discard if action.column is None else state.market[action.column]
        if not pile:
            return 0.0
        return self.worth(state, seat, state.t.faces[state.t.face_id[pile[-1]]])

    def _wild_gain(self, state: GameState, seat: int, action: PutWild) -> int:
        corner = state.seats[seat].corners[action.corner]
        values = corner.values()
        if corner.wild is not None:
            values = set(values) - {corner.wild}
        return longest_run(values | {action.value}) - longest_run(values)
