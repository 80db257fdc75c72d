"""Four Humours for bots: the world sampler search needs, and a heuristic player.

**The sampler** (:func:`determinize`): what a seat cannot see is every other player's hand, bag and face-down
potions (on scene cards and party tiles), and the order of the scene deck. A world deals the other players'
unseen potions anew from the humours they can still hold (their 20 less what lies face up), each face-down
potion keeping a humour its slot accepts, and shuffles the scene deck. Every pool is sorted before it is
shuffled, so the world is a function of the seat's view and the seed only.

**The heuristic** (:class:`Heuristic`), a few rules from the resolution lists and the goals:

1. *Where a potion is likely to win*: a placement is worth the potions of mine it makes win on that card
   (the card resolved with my own face-down potions, whose humours I know) minus those it made win before, less
   a risk for every other player's potion on the card (their humours are hidden and may spoil the count);
   party tiles are worth a little more (their winners land anywhere).
2. No placement gains a winner → start a pair that would win (two sanguines, two melancholics) when the hand
   holds the second potion; else place where no winner of mine is lost (placing draws a fresh potion); pass only
   when every placement would cost a winner.
3. Four identical potions → redraw them (one humour wins at most once a card).
4. A winner to put down → the cell that completes a goal I have not marked, else the one where I have the fewest
   potions (goals want zones and cells covered).
"""

from __future__ import annotations

from typing import Any, Sequence

from bridge.rules.four_humours.actions import Choose, Pass, Place, Redraw
from bridge.rules.four_humours.goals import one_more
from bridge.rules.four_humours.records import HUMOURS
from bridge.rules.four_humours.resolution import SlotPotion, resolve_card
from bridge.rules.four_humours.state import _HI, GameState, Phase
from bridge.rules.random import SeededRandom

RISK_PER_OTHER_POTION = 0.3
PARTY_BONUS = 0.2
SETUP_VALUE = 0.3
DUMP_VALUE = 0.02
SHORTLIST = 5
"""Placements (one per card and humour) or cells a search weighs at its root (:meth:`Heuristic.shortlist`)."""

_SUBSETS = range(1, 1 << len(HUMOURS))


def determinize(state: GameState, player: int, seed: int) -> GameState:
    """A world ``player`` cannot tell from ``state`` (module docstring), from ``seed``.

    Dealt on a copy of the state (search samples a world every iteration): the same world, draw for draw, as
    dealing into the state's snapshot and reading it back."""
    world = state.copy()
    rng = SeededRandom(seed)
    data = state.data
    placement = state.phase is Phase.PLACEMENT
    # Every card that may hold face-down potions, in the snapshot's order: parties, then (while placing) scenes.
    cards = [(world.party_slots[party], data.party_by_id[party].slots) for party in world.parties]
    if placement:
        cards += [(world.scene_slots[card], data.scene_by_id[card].slots) for card in world.scenes]
    for seat in range(world.num_players):
        if seat == player:
            continue
        # Face-down potions of this seat: (allowed humours bit mask, the card's slot list, the slot).
        face_down: list[tuple[int, list[Any], int]] = []
        for slots, specs in cards:
            for index, (slot, spec) in enumerate(zip(slots, specs)):
                if slot is not None and slot[0] == seat:
                    face_down.append((_mask(spec.humours), slots, index))
        hand, bag = world.hands[seat], world.bags[seat]
        counts = [hand[i] + bag[i] for i in range(len(HUMOURS))]
        for _, slots, index in face_down:
            counts[_HI[slots[index][1]]] += 1
        # Slots in a canonical order (cards and slots are public), then dealt one by one, never into a corner.
        for position, (mask, slots, index) in enumerate(face_down):
            options = [i for i in range(len(HUMOURS)) if mask >> i & 1 and counts[i]]
            pick = _weighted(options, [counts[i] for i in options], rng)
            counts[pick] -= 1
            if not _feasible([m for m, _, _ in face_down[position + 1:]], counts):
                counts[pick] += 1
                pick = next(i for i in options if i != pick)
                counts[pick] -= 1
            slots[index] = (seat, HUMOURS[pick])
        pool = [i for i in range(len(HUMOURS)) for _ in range(counts[i])]
        rng.shuffle(pool)
        size = sum(hand)
        world.hands[seat] = [pool[:size].count(i) for i in range(len(HUMOURS))]
        world.bags[seat] = [pool[size:].count(i) for i in range(len(HUMOURS))]
    deck = sorted(world.scene_deck)
    rng.shuffle(deck)
    world.scene_deck = deck
    world._goal_dirty = set(range(world.num_players))  # as a state read from a snapshot starts
    world._note_hands()  # the hands were dealt anew
    return world


def _mask(humours: Sequence[str]) -> int:
    return sum(1 << HUMOURS.index(h) for h in humours)


def _weighted(options: list[int], weights: list[int], rng: SeededRandom) -> int:
    r = rng.randbelow(sum(weights))
    for option, weight in zip(options, weights):
        if r < weight:
            return option
        r -= weight
    return options[-1]


def _feasible(masks: list[int], counts: list[int]) -> bool:
    """Hall's condition: every set of slots can take humours from ``counts`` (each slot one of its mask's)."""
    for subset in _SUBSETS:
        need = sum(1 for m in masks if m & ~subset == 0)
        if need > sum(counts[i] for i in range(len(HUMOURS)) if subset >> i & 1):
            return False
    return True


class Heuristic:
    """The heuristic :class:`bridge.rules.game.Policy` of Four Humours (module docstring)."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self._values: dict[tuple, float] = {}
        self._one_more: dict[tuple[str, str], Any] = {}  # (goal, board) -> goals.one_more of its predicate

    def __call__(self, state: GameState, legal: Sequence[Any], rng: SeededRandom) -> Any:
        seat = state.to_move()
        own = [a for a in legal if a.player == seat]
        first = own[0]
        if isinstance(first, Choose):
            return self._cell(state, seat, own, rng)
        for action in own:
            if isinstance(action, Redraw):
                return action
        best: list[Any] = []
        best_value = 0.0
        # A placement's value is worked out once per (card, humour), from the first such placement listed; what
        # the seat sees of each card is read once per call (search calls this for every playout decision).
        values: dict[tuple[str, str, str], float] = {}
        seen: dict[tuple[str, str], tuple] = {}
        hand = state.hands[seat]
        for action in own:
            if not isinstance(action, Place):
                continue
            target = action.target
            key = (target.kind, target.card, action.humour)
            value = values.get(key)
            if value is None:
                value = values[key] = self._value(state, seat, action, hand, seen)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif abs(value - best_value) <= 1e-9 and best_value > 0:
                best.append(action)
        if not best:
            return next((a for a in own if isinstance(a, Pass)), own[rng.randbelow(len(own))])
        return best[rng.randbelow(len(best))]

    def shortlist(self, state: GameState, legal: Sequence[Any]) -> list[Any]:
        """The moves worth a search here (:class:`bridge.rules.bots.ismcts.Ismcts` keeps its root to them): the
        :data:`SHORTLIST` best placements by the heuristic's value, one per card and humour, with passing and
        redrawing; or the :data:`SHORTLIST` best cells for a winner. Reads what the seat may know only."""
        seat = state.to_move()
        own = [a for a in legal if a.player == seat]
        if not own:
            return own
        if isinstance(own[0], Choose):
            keys = self._cell_keys(state, seat, own)
            ranked = sorted(range(len(own)), key=lambda i: keys[i], reverse=True)
            return [own[i] for i in sorted(ranked[:SHORTLIST])]
        values: dict[tuple[str, str, str], tuple[float, int]] = {}
        seen: dict[tuple[str, str], tuple] = {}
        hand = state.hands[seat]
        rest = []
        for index, action in enumerate(own):
            if not isinstance(action, Place):
                rest.append(action)
                continue
            target = action.target
            key = (target.kind, target.card, action.humour)
            if key not in values:
                values[key] = (self._value(state, seat, action, hand, seen), index)
        best = sorted(values.values(), key=lambda found: (-found[0], found[1]))[:SHORTLIST]
        return [own[index] for _, index in sorted(best, key=lambda found: found[1])] + rest

    def _value(self, state: GameState, seat: int, action: Place, hand: list[int] | None = None,
               seen: dict[tuple[str, str], tuple] | None = None) -> float:
        target = action.target
        kind, card = target.kind, target.card
        slots = (state.scene_slots if kind == "scene" else state.party_slots)[card]
        # What the value depends on (what the seat sees of the card, and whether it holds a second potion):
        # playouts meet the same few situations again and again.
        pattern = seen.get((kind, card)) if seen is not None else None
        if pattern is None:
            pattern = tuple([None if p is None else (p[1] if p[0] == seat else "?") for p in slots])
            if seen is not None:
                seen[(kind, card)] = pattern
        second = (state.hands[seat] if hand is None else hand)[_HI[action.humour]] >= 2
        key = (kind, card, target.slot, action.humour, second, pattern)
        found = self._values.get(key)
        if found is None:
            if len(self._values) > 100_000:
                self._values.clear()
            found = self._values[key] = self._compute_value(seat, action, slots, second)
        return found

    def _compute_value(self, seat: int, action: Place, slots: list[Any], second: bool) -> float:
        target = action.target
        data = self.data
        card = data.scene_by_id[target.card] if target.kind == "scene" else data.party_by_id[target.card]
        steps = data.resolution_for(card)
        stops = data.rules.sneak_stops_resolution
        mine = [SlotPotion(i, seat, p[1]) for i, p in enumerate(slots) if p is not None and p[0] == seat]
        others = sum(1 for p in slots if p is not None and p[0] != seat)
        before = len(resolve_card(mine, steps, sneak_stops=stops).winners) if mine else 0
        after = resolve_card(mine + [SlotPotion(target.slot, seat, action.humour)], steps, sneak_stops=stops)
        gain = len(after.winners) - before
        if gain < 0:
            return -1.0
        if gain == 0:
            # A pair in the making: another potion of this humour in hand and a free slot here that takes it,
            # and the two would win together.
            free = [i for i, p in enumerate(slots) if p is None and i != target.slot
                    and action.humour in card.slots[i].humours]
            if free and second:
                pair = mine + [SlotPotion(target.slot, seat, action.humour), SlotPotion(free[0], seat, action.humour)]
                if len(resolve_card(pair, steps, sneak_stops=stops).winners) > before:
                    return SETUP_VALUE - RISK_PER_OTHER_POTION * others / 2
            # Placing still draws a fresh potion (FH-3.7): better than passing with a hand that cannot win.
            return DUMP_VALUE
        value = gain - RISK_PER_OTHER_POTION * others
        if target.kind == "party":
            value += PARTY_BONUS
        return max(value, SETUP_VALUE + 0.01)

    def _cell(self, state: GameState, seat: int, own: list[Any], rng: SeededRandom) -> Any:
        best: list[Any] = []
        best_key: tuple[int, int] | None = None
        for action, key in zip(own, self._cell_keys(state, seat, own)):
            if best_key is None or key > best_key:
                best, best_key = [action], key
            elif key == best_key:
                best.append(action)
        return best[rng.randbelow(len(best))]

    def _cell_keys(self, state: GameState, seat: int, own: list[Any]) -> list[tuple[int, int]]:
        """For each ``choose`` of ``own``: (goals that cell completes, minus the seat's potions already there)."""
        board_id = state.board_of(seat)
        board = state.board(board_id)
        occ = state._occ[seat]
        # Only the goals the seat has not marked and does not meet yet can be completed by one more potion;
        # each is asked of every cell through goals.one_more (the same answers as checking the grown occupancy).
        grown = []
        for goal in state.goals:
            if seat in state.marks[goal]:
                continue
            if not goal_check(state, goal, board_id, board)(occ):
                prepare = self._one_more.get((goal, board_id))
                if prepare is None:
                    prepare = self._one_more[(goal, board_id)] = one_more(self.data.goal_by_id[goal].predicate, board)
                grown.append(prepare(occ))
        keys = []
        for action in own:
            cell = action.cell
            completes = 0
            for completed in grown:
                if completed(cell):
                    completes += 1
            keys.append((completes, -occ.get(cell, 0)))
        return keys


def goal_check(state: GameState, goal: str, board_id: str, board: Any) -> Any:
    """The engine's compiled check of ``goal`` on ``board_id`` (``occupancy -> bool``), made once per data."""
    catalog = state._cat
    found = catalog.goal_checks.get((goal, board_id))
    return found if found is not None else catalog.goal_check(goal, board_id, board)
