"""The Four Humours game state: legal actions, applying them, the outcome, per-player views, snapshots.

A game runs in three phases::

    placement ──(two full scenes | all passed | nobody can place)──▶ resolution
    resolution ──(every potion placed, goals marked, parties resolved)──▶ placement (next round) | ended

In *placement* the active seat places a potion or passes; any seat holding four identical potions may
redraw.  In *resolution* the engine resolves the four scenes, then moves winners and sneakers one by one
(rules FH-6.6 order); a potion with more than one possible cell waits for its owner's ``choose``.  Goals are
checked when every potion has landed; each new goal marker resolves the next party tile, whose winners
land the same way; then the round is cleaned up and the next one dealt, unless the game is over.

Randomness (bag draws, shuffles, the first player) comes from the state's own :class:`SeededRandom`, so a
snapshot carries it and the same seed replays the same game.

Hidden information — hands, bag contents, face-down potions — leaves the state only through
:meth:`GameState.to_snapshot` (the full state, for the bridge and the table) and never through
:meth:`GameState.view`, events or error messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from bridge.rules.contract import SNAPSHOT_FORMAT
from bridge.rules.errors import IllegalAction
from bridge.rules.four_humours import events as ev
from bridge.rules.four_humours import snapshot
from bridge.rules.four_humours.actions import Action, Choose, Pass, Place, Redraw, Target
from bridge.rules.four_humours.goals import Check, checker
from bridge.rules.four_humours.records import GAME_ID, HUMOURS, Board, FourHumoursData, Phase, Termination
from bridge.rules.four_humours.resolution import SlotPotion, card_result, resolve_card
from bridge.rules.random import SeededRandom

REFUSAL_REASONS: dict[str, str] = {
    "game_over": "the game is over: nothing more is played",
    "no_such_player": "the action names a seat that is not at the table",
    "not_your_turn": "another seat decides now: the active seat in placement, the potion's owner when a ruling "
                     "waits for a cell",
    "nothing_to_choose": "a cell was chosen, but no potion waits for one",
    "wrong_cell": "the chosen cell is not one the waiting potion may go to",
    "not_placement_phase": "the round is being resolved: only the cells potions wait for are chosen now "
                           "(placements, passes and redraws wait for the next round)",
    "redraw_off": "the four-identical redraw is switched off (game.toml four_identical_redraw)",
    "no_redraw": "a redraw needs a hand of four identical potions",
    "nothing_to_redraw": "the bag holds no potion of another humour, so a redraw would draw the same four",
    "no_such_card": "the target card is not on the table (a scene not face up, a party tile not in the row)",
    "no_such_slot": "the target card has no slot of that number",
    "wrong_humour": "the slot's citizen does not take a potion of that humour",
    "slot_taken": "the target slot already holds a potion",
    "party_limit": "the player already has as many potions on that party tile as the party limit allows",
    "not_in_hand": "the player holds no potion of that humour",
    "round_not_over": "end_round without force while no round-end condition holds (no two full scenes, not "
                      "everyone passed, someone can still place)",
}
"""Every ``reason`` a refusal carries (:meth:`GameState.check`, and ``end_round``'s ``round_not_over``), with its
cause: the ``reason`` table of docs/games/four_humours/protocol.md."""
_HI = {h: i for i, h in enumerate(HUMOURS)}

Potion = tuple[int, str]  # (owner seat, humour)


# The members as module globals: ``Phase.ENDED`` is an enum class attribute lookup, ten times the cost of a global,
# and the hot path asks for the phase several times an action.
_PLACEMENT, _RESOLUTION, _ENDED = Phase.PLACEMENT, Phase.RESOLUTION, Phase.ENDED


@dataclass(frozen=True)
class Standing:
    """One player's score line: goals, then the FH-10.4 tie-break figures."""

    player: int
    goals: int
    placed: int
    by_humour: tuple[int, int, int, int]  # in HUMOURS order

    @property
    def key(self) -> tuple[int, ...]:
        """Larger is better: goals, potions placed, cholerics, sanguines, melancholics (FH-10.4)."""
        return (self.goals, self.placed, self.by_humour[0], self.by_humour[1], self.by_humour[2])

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "goals": self.goals,
            "placed": self.placed,
            **{h: n for h, n in zip(HUMOURS, self.by_humour)},
        }


@dataclass(frozen=True)
class GameOutcome:
    """The end of a game: why, who won (several seats share a tie), and everyone's standing."""

    termination: Termination
    winners: tuple[int, ...]
    standings: tuple[Standing, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "termination": self.termination.value,
            "winners": list(self.winners),
            "standings": [s.to_json() for s in self.standings],
        }


@dataclass(frozen=True)
class Pending:
    """A revealed potion on its way to a board: ``cells`` are where it may go (empty: back to the bag)."""

    owner: int
    humour: str
    source: Target
    reason: str  # "win" | "sneak"
    board: str
    cells: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner,
            "humour": self.humour,
            "from": self.source.to_json(),
            "reason": self.reason,
            "board": self.board,
            "cells": list(self.cells),
        }



def pending(owner: int, humour: str, source: Target, reason: str, board: str, cells: tuple[str, ...]) -> Pending:
    """``Pending(owner, humour, source, reason, board, cells)``, made without the frozen dataclass's per-field
    ``object.__setattr__`` (the resolution makes one for every winner and sneaker)."""
    made = object.__new__(Pending)
    fields = made.__dict__
    fields["owner"] = owner
    fields["humour"] = humour
    fields["source"] = source
    fields["reason"] = reason
    fields["board"] = board
    fields["cells"] = cells
    return made


class _Catalog:
    """Per-data lookup tables for the hot path: slot humour pairs as indexes and the action values.

    Actions are frozen values, so one instance per (seat, humour, slot) serves every state of every game
    played on the same data; building them once makes random playouts several times faster.
    """

    MAX_SEATS = 8

    def __init__(self, data: FourHumoursData) -> None:
        self.data = data  # keeps id(data) from being reused while the catalog lives
        self.scene_pairs = {c.id: tuple((_HI[s.humours[0]], _HI[s.humours[1]]) for s in c.slots) for c in data.scenes}
        self.party_pairs = {p.id: tuple((_HI[s.humours[0]], _HI[s.humours[1]]) for s in p.slots) for p in data.parties}
        self.scene_places = {c.id: self._places("scene", c.id, len(c.slots)) for c in data.scenes}
        self.party_places = {p.id: self._places("party", p.id, len(p.slots)) for p in data.parties}
        self.passes = [Pass(seat) for seat in range(self.MAX_SEATS)]
        self.scene_full = {c.id: (1 << len(c.slots)) - 1 for c in data.scenes}
        self.party_full = {p.id: (1 << len(p.slots)) - 1 for p in data.parties}
        # Seat count -> (scene tables, party tables): card -> its table of Place actions in games of that many
        # seats, see _Tables; a card's table is made whole the first time a game meets it, so a playout never misses.
        self._tables: dict[int, tuple[_Tables, _Tables]] = {}
        # Values made again and again: a potion on a slot being resolved, a slot, the choices of a potion.
        self.slot_potions: dict[tuple[int, Potion], SlotPotion] = {}
        self.targets = {("scene", c.id): [Target("scene", c.id, i) for i in range(len(c.slots))] for c in data.scenes}
        self.targets.update({("party", p.id): [Target("party", p.id, i) for i in range(len(p.slots))]
                             for p in data.parties})
        self._chooses: dict[tuple[int, tuple[str, ...]], tuple[Choose, ...]] = {}
        # (kind, card) -> {humour on each slot (None: empty): the card's plan}, see plan(). A plan depends on the
        # card's step list and the pattern alone, so the cards with the same list (most follow the default one)
        # share one table: a pattern worked out on one card serves them all.
        by_steps: dict[tuple, dict[tuple[str | None, ...], tuple]] = {}
        self.plans: dict[tuple[str, str], dict[tuple[str | None, ...], tuple]] = {
            (kind, card.id): by_steps.setdefault(data.resolution_for(card), {})
            for kind, cards in (("scene", data.scenes), ("party", data.parties)) for card in cards}
        # What the resolution of a card reads, in one look-up: (kind, card) -> (its plans, its slots' targets, the
        # open mask of the card emptied, {(slot, "win" | "sneak", board, mode): where that potion may land}).
        self.resolving: dict[tuple[str, str], tuple[dict, list[Target], int, dict]] = {
            ("scene", c.id): (self.plans["scene", c.id], self.targets["scene", c.id], self.scene_full[c.id], {})
            for c in data.scenes}
        self.resolving.update({
            ("party", p.id): (self.plans["party", p.id], self.targets["party", p.id], self.party_full[p.id], {})
            for p in data.parties})
        self.goal_checks: dict[tuple[str, str], Check] = {}  # (goal, board) -> goal_check()
        self.seat_orders: dict[tuple[int, int], tuple[int, ...]] = {}  # (first player, seats) -> _seat_order()
        self.hand_info = _HandInfo(data.rules.hand_size)  # hand counts -> (hand mask, hand_size of one humour?)

    def slot_potion(self, slot: int, potion: Potion) -> SlotPotion:
        found = self.slot_potions.get((slot, potion))
        if found is None:
            found = self.slot_potions[(slot, potion)] = SlotPotion(slot, potion[0], potion[1])
        return found

    def plan(self, kind: str, card: str, pattern: tuple[str | None, ...]) -> tuple:
        """How card ``card`` resolves with ``pattern`` (the humour on each slot, None for an empty one): the
        steps that fired, then the slots holding a potion, the winning, the sneaking and the discarded slots,
        each in slot order, and the movers, (slot, "win") then (slot, "sneak") — :func:`resolve_card` of those
        potions, whose owners play no part in it (nor does the card, beyond its step list: the plan is kept for
        every card with that list)."""
        record = self.data.scene_by_id[card] if kind == "scene" else self.data.party_by_id[card]
        result = resolve_card([SlotPotion(i, 0, h) for i, h in enumerate(pattern) if h is not None],
                              self.data.resolution_for(record), sneak_stops=self.data.rules.sneak_stops_resolution)
        plan = (result.steps, tuple(p.slot for p in result.revealed), tuple(p.slot for p in result.winners),
                tuple(p.slot for p in result.sneakers), tuple(p.slot for p in result.discards),
                tuple((p.slot, "win") for p in result.winners) + tuple((p.slot, "sneak") for p in result.sneakers))
        self.plans[kind, card][pattern] = plan
        return plan

    def goal_check(self, goal: str, board_id: str, board: Board) -> Check:
        """``occupancy -> satisfied(goal's predicate, board, occupancy)``, kept in :attr:`goal_checks`."""
        found = self.goal_checks.get((goal, board_id))
        if found is None:
            found = self.goal_checks[(goal, board_id)] = checker(self.data.goal_by_id[goal].predicate, board)
        return found

    def chooses(self, owner: int, cells: tuple[str, ...]) -> tuple[Choose, ...]:
        """``Choose(owner, cell)`` for each of ``cells`` (the board's own cell tuples, so few distinct keys)."""
        found = self._chooses.get((owner, cells))
        if found is None:
            if len(self._chooses) > 4096:  # cells come from the boards, but a snapshot may bring others
                self._chooses.clear()
            found = self._chooses[(owner, cells)] = tuple(Choose(owner, cell) for cell in cells)
        return found

    def tables(self, seats: int) -> tuple[_Tables, _Tables]:
        """The scene and party tables of Place actions for games of ``seats`` seats (see :class:`_Tables`)."""
        found = self._tables.get(seats)
        if found is None:
            found = self._tables[seats] = (_Tables(self.scene_pairs, self.scene_places, seats),
                                           _Tables(self.party_pairs, self.party_places, seats))
        return found

    def _places(self, kind: str, card: str, slots: int) -> list[list[list[Place]]]:
        return [
            [[Place(seat, h, Target(kind, card, index)) for seat in range(self.MAX_SEATS)] for h in HUMOURS]
            for index in range(slots)
        ]


Row = list  # a card's row for one open mask: entry seat << 4 | hand_mask -> tuple of Place actions


class _HandInfo(dict):
    """A hand's counts (a tuple in HUMOURS order) -> (its hand mask: bit i set when it holds ``HUMOURS[i]``,
    whether it holds ``hand_size`` potions of one humour), worked out on first use."""

    def __init__(self, hand_size: int) -> None:
        super().__init__()
        self.hand_size = hand_size

    def __missing__(self, hand: tuple[int, ...]) -> tuple[int, bool]:
        found = self[hand] = (sum(1 << i for i, n in enumerate(hand) if n > 0), self.hand_size in hand)
        return found


class _Tables(dict):
    """Card -> its table of Place actions in games of ``seats`` seats, made whole on first use: entry ``open_mask``
    (bit i set: slot i is empty) is the card's *row* for those empty slots, whose entry ``seat << 4 | hand_mask``
    (bit i of the hand mask: ``HUMOURS[i]`` in hand) lists that seat's Place actions on the card, in slot order.

    A state keeps the row of each card on the table (``_scene_rows``, ``_party_rows``), so listing a seat's
    placements reads one entry per card."""

    def __init__(self, pairs: dict[str, tuple[tuple[int, int], ...]], places: dict[str, list[list[list[Place]]]],
                 seats: int) -> None:
        super().__init__()
        self.pairs, self.places, self.seats = pairs, places, seats

    def __missing__(self, card: str) -> list[Row]:
        pairs, places, seats = self.pairs[card], self.places[card], self.seats
        # The actions on slot i for each seat and hand mask: the slot's first humour, then its second, when in hand.
        on_slot = [[tuple(places[i][h][seat] for h in pair if hand >> h & 1) for seat in range(seats)
                    for hand in range(16)] for i, pair in enumerate(pairs)]
        table: list[Row] = [[()] * (seats << 4)]
        for open_mask in range(1, 1 << len(pairs)):
            lowest = open_mask & -open_mask  # the lowest open slot comes first, then the rest in slot order
            first, rest = on_slot[lowest.bit_length() - 1], table[open_mask ^ lowest]
            table.append([a + b for a, b in zip(first, rest)])
        self[card] = table
        return table


_CATALOGS: dict[int, _Catalog] = {}

BOOKKEEPING = ("_scene_open", "_full_scenes", "_party_open", "_party_count", "_party_room", "_occ", "_hand_masks",
               "_fours", "_goal_checks", "_tables", "_scene_rows", "_party_rows")
"""The state's fields derived from the others and kept up to date move by move (``GameState._derive`` works them
out afresh, as a state read from a snapshot does)."""


def _catalog(data: FourHumoursData) -> _Catalog:
    catalog = _CATALOGS.get(id(data))
    if catalog is None or catalog.data is not data:
        if len(_CATALOGS) > 16:  # a long-lived bridge reloading data: keep the table small
            _CATALOGS.clear()
        catalog = _CATALOGS[id(data)] = _Catalog(data)
    return catalog


class GameState:
    """A Four Humours game in progress.  Build one with :func:`new_game` or :meth:`from_snapshot`.

    :meth:`apply` checks the action and raises :class:`IllegalAction` (with a ``reason`` code) when it is
    not allowed; :meth:`legal_actions` lists every action allowed now.
    """

    def __init__(self, data: FourHumoursData) -> None:
        self.data = data
        self.rules = data.rules
        self._cat = _catalog(data)
        self._history: list[GameState] | None = None
        # Every other attribute is set by new_game() or from_snapshot().
        self.mode = "kingdom"
        self.colours: tuple[str, ...] = ()
        self.rng = SeededRandom(0)
        self.first_player = 0
        self.active = 0
        self.round_starter = 0
        self.last_actor: int | None = None
        self.passes = 0
        self.passed_this_round: set[int] = set()
        self.round_no = 0
        self.turn_no = 0
        self.phase = _PLACEMENT
        self.round_end_reason: str | None = None
        self.termination: Termination | None = None
        self.bags: list[list[int]] = []
        self.hands: list[list[int]] = []
        self.fiefs: list[str] = []
        self.scene_deck: list[str] = []
        self.scene_discard: list[str] = []
        self.scenes: list[str] = []
        self.scene_slots: dict[str, list[Potion | None]] = {}
        self.parties: list[str] = []
        self.party_slots: dict[str, list[Potion | None]] = {}
        self.resolved_parties: list[str] = []
        self.goals: list[str] = []
        self.marks: dict[str, list[int]] = {}
        self.boards: dict[str, dict[str, list[Potion]]] = {}
        self.pending: list[Pending] = []
        self.goal_queue: list[tuple[int, str]] = []
        # Bookkeeping derived from the fields above, kept up to date move by move (_derive builds it afresh;
        # BOOKKEEPING names it, and the bookkeeping test checks it against a state read from a snapshot):
        self._scene_open: dict[str, int] = {}        # scene on the table -> bit i set: slot i is empty
        self._scene_rows: dict[str, Row] = {}         # scene on the table, in table order -> its row (_Tables)
        self._party_rows: dict[str, Row] = {}         # the same for the unresolved parties
        self._tables: tuple[_Tables, _Tables] = ({}, {})  # _Catalog.tables of this game's seat count
        self._full_scenes = 0                         # scenes on the table with no empty slot (FH-4.1)
        self._party_open: dict[str, int] = {}        # the same for the unresolved parties
        self._party_count: dict[str, list[int]] = {}  # party -> potions on it of each seat, then in all
        self._occ: list[dict[str, int]] = []          # seat -> occupancy (what goals read)
        self._goal_dirty: set[int] = set()            # seats whose occupancy changed since goals were checked
        self._party_rule: tuple[int, bool] = (1, False)  # party_limit, whether it counts every seat's potions
        self._party_room: list[list[str]] = []        # seat -> the parties it may still place on (_party_has_room)
        self._goal_checks: tuple[tuple[str, tuple[Check, ...]], ...] = ()  # each goal in play, with the check
        #                                               of each seat's board (goals and boards are fixed at set-up)
        self._hand_masks: list[int] = []              # seat -> bit i set: HUMOURS[i] in hand (_note_hand keeps it)
        self._fours = 0                               # bit s: seat s holds hand_size potions of one humour (the
        #                                               hands _may_redraw is asked about; _note_hand keeps it)
        # The Place actions of the seat to move, found by the "can anyone still place" check at the end of the
        # last turn (seat, list), for legal_actions to take once; None when there are none to take.
        self._next_places: tuple[int, list[Action]] | None = None

    # ------------------------------------------------------------------ basic facts

    @property
    def num_players(self) -> int:
        return len(self.colours)

    @property
    def party_limit(self) -> int:
        """Potions one player may have on one party tile (FH-3.6, AMB-FH-12)."""
        return self.rules.party_limit_two_players if self.num_players == 2 else self.rules.party_limit

    def board_of(self, seat: int) -> str:
        """The id of the board where ``seat``'s winners land: the kingdom map, or that player's fief."""
        return "kingdom" if self.mode == "kingdom" else self.fiefs[seat]

    def board(self, board_id: str) -> Board:
        return self.data.kingdom if board_id == "kingdom" else self.data.fief_by_id[board_id]

    def hand(self, seat: int) -> dict[str, int]:
        """``seat``'s hand as humour → count (hidden from the other players)."""
        return {h: self.hands[seat][i] for i, h in enumerate(HUMOURS) if self.hands[seat][i]}

    def bag(self, seat: int) -> dict[str, int]:
        return {h: self.bags[seat][i] for i, h in enumerate(HUMOURS)}

    def is_over(self) -> bool:
        return self.phase is _ENDED

    def awaiting(self) -> Pending | None:
        """The potion waiting for its owner's ``choose``, if any."""
        if self.phase is _RESOLUTION and self.pending and len(self.pending[0].cells) > 1:
            return self.pending[0]
        return None

    def to_move(self) -> int | None:
        """The seat whose decision the game waits for (``None`` once the game is over)."""
        if self.phase is _PLACEMENT:
            return self.active
        pending = self.awaiting()
        return pending.owner if pending else None

    # ------------------------------------------------------------------ legality

    def legal_actions(self) -> list[Action]:
        """Every action allowed now, of every seat that may act (redraws may come from any seat)."""
        phase = self.phase
        if phase is not _PLACEMENT:
            if phase is _ENDED:
                return []
            pending = self.awaiting()
            return list(self._cat.chooses(pending.owner, pending.cells)) if pending else []
        seat = self.active
        found = self._next_places
        if found is not None and found[0] == seat:
            self._next_places = None  # taken once: the list is extended below
            actions = found[1]
        else:
            actions = self._places_of(seat)
        actions.append(self._cat.passes[seat])
        fours = self._fours
        if fours and self.rules.four_identical_redraw:
            for other in range(len(self.hands)):
                if fours >> other & 1 and self._may_redraw(other):
                    actions.append(Redraw(other))
        return actions

    def _places_of(self, seat: int) -> list[Action]:
        """Every Place ``seat`` may make now, scenes first, then parties with room, in slot order."""
        hand_mask = self._hand_masks[seat]
        actions: list[Action] = []
        if not hand_mask:
            return actions
        at = seat << 4 | hand_mask
        for row in self._scene_rows.values():
            actions += row[at]
        room = self._party_room[seat]
        if room:
            rows = self._party_rows
            for party in room:
                actions += rows[party][at]
        return actions

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalAction` if ``action`` is not allowed now, its ``reason`` one of
        :data:`REFUSAL_REASONS`; return quietly if it is allowed."""
        if self.phase is _ENDED:
            raise IllegalAction("the game is over", "game_over")
        if not 0 <= action.player < self.num_players:
            raise IllegalAction(f"there is no player {action.player}", "no_such_player")
        if isinstance(action, Choose):
            pending = self.awaiting()
            if pending is None:
                raise IllegalAction("no potion is waiting for a choice", "nothing_to_choose")
            if action.player != pending.owner:
                raise IllegalAction(f"player {pending.owner} chooses now, not {action.player}", "not_your_turn")
            if action.cell not in pending.cells:
                raise IllegalAction(f"cell {action.cell!r} is not one of {', '.join(pending.cells)}", "wrong_cell")
            return
        if self.phase is not _PLACEMENT:
            raise IllegalAction("potions are being resolved; only choices are allowed", "not_placement_phase")
        if isinstance(action, Redraw):
            if not self.rules.four_identical_redraw:
                raise IllegalAction("the four-identical redraw is switched off", "redraw_off")
            if not self._may_redraw(action.player):
                if max(self.hands[action.player]) == self.rules.hand_size == sum(self.hands[action.player]):
                    raise IllegalAction("the bag holds no potion of another humour: a redraw would draw the same "
                                        "four", "nothing_to_redraw")
                raise IllegalAction("a redraw needs four identical potions in hand", "no_redraw")
            return
        if action.player != self.active:
            raise IllegalAction(f"it is player {self.active}'s turn", "not_your_turn")
        if isinstance(action, Pass):
            return
        assert isinstance(action, Place)
        self._check_place(action)

    def _check_place(self, action: Place) -> None:
        target = action.target
        if target.kind == "scene":
            if target.card not in self.scene_slots:
                raise IllegalAction(f"scene {target.card!r} is not face up", "no_such_card")
            card_slots = self.data.scene_by_id[target.card].slots
            occupied = self.scene_slots[target.card]
        else:
            if target.card not in self.party_slots:
                raise IllegalAction(f"party {target.card!r} is not on the table", "no_such_card")
            card_slots = self.data.party_by_id[target.card].slots
            occupied = self.party_slots[target.card]
        if not 0 <= target.slot < len(card_slots):
            raise IllegalAction(f"{target.card!r} has no slot {target.slot}", "no_such_slot")
        slot = card_slots[target.slot]
        if action.humour not in slot.humours:
            raise IllegalAction(
                f"this {slot.citizen} takes only {slot.humours[0]} or {slot.humours[1]} potions", "wrong_humour"
            )
        if occupied[target.slot] is not None:
            raise IllegalAction("that slot already holds a potion", "slot_taken")
        if target.kind == "party" and not self._party_has_room(action.player, target.card):
            raise IllegalAction(f"at most {self.party_limit} potion(s) per player on a party", "party_limit")
        if not self.hands[action.player][_HI[action.humour]]:
            raise IllegalAction("that potion is not in the player's hand", "not_in_hand")

    def _party_has_room(self, seat: int, party: str) -> bool:
        """Whether ``seat`` is under the party limit on ``party`` (FH-3.6, AMB-FH-12; ``_party_room`` keeps the
        answers for the parties on the table, asking again after a placement only the seats whose answer reads a
        count that changed: the placer's own, or every seat's under a per-tile limit)."""
        limit, per_tile = self._party_rule
        return self._party_count[party][len(self.colours) if per_tile else seat] < limit

    def _note_hand(self, seat: int) -> None:
        """Keep ``seat``'s hand mask and bit of ``_fours`` after its hand changed."""
        self._hand_masks[seat], four = self._cat.hand_info[tuple(self.hands[seat])]
        if four:
            self._fours |= 1 << seat
        else:
            self._fours &= ~(1 << seat)

    def _note_hands(self) -> None:
        """Work the hand masks and ``_fours`` out afresh (hands dealt anew)."""
        self._hand_masks = [0] * len(self.hands)
        self._fours = 0
        for seat in range(len(self.hands)):
            self._note_hand(seat)

    def _may_redraw(self, seat: int) -> bool:
        if not self.rules.four_identical_redraw:
            return False
        hand = self.hands[seat]
        size = self.rules.hand_size
        if max(hand) != size or hand[0] + hand[1] + hand[2] + hand[3] != size:
            return False
        i = hand.index(size)
        bag = self.bags[seat]
        return bag[0] + bag[1] + bag[2] + bag[3] - bag[i] > 0

    def _can_place(self, seat: int) -> bool:
        hand_mask = self._hand_masks[seat]
        if not hand_mask:
            return False
        at = seat << 4 | hand_mask
        for row in self._scene_rows.values():
            if row[at]:
                return True
        rows = self._party_rows
        for party in self._party_room[seat]:
            if rows[party][at]:
                return True
        return False

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: Action) -> list[ev.Event]:
        """Check and apply ``action``; return the events that happened, in order."""
        self.check(action)
        return self.apply_trusted(action)

    def apply_trusted(self, action: Action) -> list[ev.Event]:
        """Apply ``action``, taken from :meth:`legal_actions` of this state, without checking it again: what
        :meth:`apply` does after its check (random playouts and search)."""
        events: list[ev.Event] = []
        self._play(action, events)
        return events

    def _play(self, action: Action, events: list[ev.Event] | None = None) -> None:
        """Apply ``action`` (trusted); append what happened to ``events`` unless it is None (nobody reads them:
        every event is made only ``if events is not None``).

        Called without ``events`` this is :meth:`apply_quiet`: :meth:`apply_trusted` without making the events
        (a playout that reads none), the same state after."""
        if self._history is not None:
            self._history.append(self.copy())
        self._next_places = None
        kind = type(action)
        if kind is Place:
            self._place(action, events)
        elif kind is Pass:
            if events is not None:
                events.append(ev.Passed(action.player))
            self.passes += 1
            self.passed_this_round.add(action.player)
            self._after_turn(action.player, events)
        elif kind is Redraw:
            self._redraw(action.player, events)
        else:
            assert kind is Choose
            pending = self.pending.pop(0)
            self._land(pending, action.cell, True, events)
            self._advance(events)

    # apply_quiet(action) is _play with no list for the events: one call less on every action of a playout.
    apply_quiet = _play

    def enable_undo(self) -> None:
        """Keep a copy of the state before every :meth:`apply` so that :meth:`undo` can step back."""
        if self._history is None:
            self._history = []

    def undo(self) -> None:
        """Take back the last applied action (needs :meth:`enable_undo` before it was applied)."""
        if not self._history:
            raise IndexError("nothing to undo")
        previous = self._history.pop()
        history = self._history
        self.__dict__.update(previous.__dict__)
        self._history = history

    def _place(self, action: Place, events: list[ev.Event] | None) -> None:
        seat, target, humour = action.player, action.target, action.humour
        hand = self.hands[seat]
        hand[_HI[humour]] -= 1
        card, slot = target.card, target.slot
        if target.kind == "scene":
            self.scene_slots[card][slot] = (seat, humour)
            scene_open = self._scene_open
            left = scene_open[card] = scene_open[card] & ~(1 << slot)
            self._scene_rows[card] = self._tables[0][card][left]
            if not left:
                self._full_scenes += 1
        else:
            self.party_slots[card][slot] = (seat, humour)
            left = self._party_open[card] = self._party_open[card] & ~(1 << slot)
            self._party_rows[card] = self._tables[1][card][left]
            count = self._party_count[card]
            count[seat] += 1
            count[-1] += 1
            # Who may have reached the limit on the party now: the seat's answer reads its own count, or the
            # tile's total when the limit is per tile (every seat's answer then).
            for other in (range(len(self.colours)) if self._party_rule[1] else (seat,)):
                room = self._party_room[other]
                if card in room and not self._party_has_room(other, card):
                    room.remove(card)
        if events is not None:
            events.append(ev.PotionPlaced(seat, target))
        if self.rules.draw_after_place:
            bag = self.bags[seat]
            total = bag[0] + bag[1] + bag[2] + bag[3]
            if total:  # _draw(seat, 1), inlined: a draw follows almost every placement
                r = self.rng.randbelow(total)
                i = 0
                while r >= bag[i]:
                    r -= bag[i]
                    i += 1
                bag[i] -= 1
                hand[i] += 1
                if events is not None:
                    events.append(ev.PotionsDrawn(seat, 1))
        self._note_hand(seat)
        self.passes = 0
        self._after_turn(seat, events)

    def _after_turn(self, seat: int, events: list[ev.Event] | None) -> None:
        self.last_actor = seat
        self.turn_no += 1
        players = len(self.colours)
        upcoming = (seat + 1) % players
        # round_over_reason(upcoming), its usual answer (None: the next seat has a placement) found first
        rules = self.rules
        if (self._full_scenes < 2 and rules.round_ends_when_stuck
                and (len(self.passed_this_round) if rules.passes_to_end_round == "each_once" else self.passes)
                < players):
            places = self._places_of(upcoming)
            if places:
                self._next_places = (upcoming, places)
                self.active = upcoming
                return
        reason = self.round_over_reason(upcoming)
        if reason:
            self._end_round(reason, events)
        else:
            self.active = upcoming

    def round_over_reason(self, upcoming: int | None = None) -> str | None:
        """Why the placement phase ends now (FH-4.1 … 4.3): ``two_scenes_full``, ``all_passed``, ``stuck``; or ``None``.

        ``upcoming``: the seat that moves next if the round goes on (the end of a turn passes it), whose
        placements the "stuck" check lists first and keeps for :meth:`legal_actions`."""
        if self._full_scenes >= 2:
            return "two_scenes_full"
        players = len(self.colours)
        if self.rules.passes_to_end_round == "each_once":
            if len(self.passed_this_round) >= players:
                return "all_passed"
        elif self.passes >= players:
            return "all_passed"
        if self.rules.round_ends_when_stuck and not self._anyone_can_place(upcoming):
            return "stuck"
        return None

    def _anyone_can_place(self, upcoming: int | None = None) -> bool:
        """Whether some seat has a legal placement. ``upcoming`` (the seat that moves next if the round goes on)
        is asked first, by listing its placements, which :meth:`legal_actions` then takes rather than list them
        again; then the active seat, then the others."""
        if upcoming is not None:
            places = self._places_of(upcoming)
            if places:
                self._next_places = (upcoming, places)
                return True
        players = len(self.colours)
        active = self.active
        if active != upcoming and self._can_place(active):
            return True
        return any(self._can_place(s) for s in range(players) if s != active and s != upcoming)

    def _redraw(self, seat: int, events: list[ev.Event] | None) -> None:
        for i in range(len(HUMOURS)):
            self.bags[seat][i] += self.hands[seat][i]
            self.hands[seat][i] = 0
        drawn = self._draw(seat, self.rules.hand_size)
        self._note_hand(seat)
        if events is not None:
            events.append(ev.Redrew(seat))
            events.append(ev.PotionsDrawn(seat, drawn))

    def _draw(self, seat: int, count: int) -> int:
        """Draw up to ``count`` random potions from ``seat``'s bag into the hand; return how many came."""
        bag, hand = self.bags[seat], self.hands[seat]
        drawn = 0
        for _ in range(count):
            total = bag[0] + bag[1] + bag[2] + bag[3]
            if not total:
                break
            r = self.rng.randbelow(total)
            for i in range(4):
                if r < bag[i]:
                    bag[i] -= 1
                    hand[i] += 1
                    break
                r -= bag[i]
            drawn += 1
        return drawn

    # ------------------------------------------------------------------ resolution

    def _seat_order(self) -> tuple[int, ...]:
        """Seats clockwise from the first player (FH-6.6)."""
        n, first = len(self.colours), self.first_player
        order = self._cat.seat_orders.get((first, n))
        if order is None:
            order = self._cat.seat_orders[(first, n)] = tuple((first + i) % n for i in range(n))
        return order

    def end_round(self, reason: str) -> list[ev.Event]:
        """End the placement phase now (the bridge's ``end_round``) and resolve as far as the rules go."""
        if self.phase is not _PLACEMENT:
            raise IllegalAction("the round is not in its placement phase", "not_placement_phase")
        events: list[ev.Event] = []
        self._end_round(reason, events)
        return events

    def _end_round(self, reason: str, events: list[ev.Event] | None) -> None:
        self.phase = _RESOLUTION
        self.round_end_reason = reason
        if events is not None:
            events.append(ev.RoundEnded(self.round_no, reason))
        for card in self.scenes:
            slots = self.scene_slots[card]
            if not self.rules.resolve_all_scenes and None in slots:
                continue  # AMB-FH-11 off: a partly filled card is only cleaned up
            self._resolve("scene", card, slots, events)
        self._advance(events)

    def _resolve(self, kind: str, card_id: str, slots: list[Potion | None], events: list[ev.Event] | None) -> None:
        catalog = self._cat
        # What the card's steps do depends on the humours on its slots alone: the plan of that pattern says which
        # steps fired and which slots win, sneak and are discarded (resolve_card's answer, worked out once).
        pattern = tuple([None if p is None else p[1] for p in slots])
        plans, targets, emptied, destinations = catalog.resolving[kind, card_id]
        plan = plans.get(pattern)
        if plan is None:
            plan = catalog.plan(kind, card_id, pattern)
        fired, on_card, win, sneak, discard, moving = plan
        # The potions as (owner, humour) by slot; SlotPotion values are made only for the event.
        raw: list[Potion | None] = [None] * len(slots)
        for i in on_card:
            raw[i] = slots[i]
            slots[i] = None
        if events is not None:
            sp = {i: catalog.slot_potion(i, raw[i]) for i in on_card}
            events.append(ev.CardResolved(kind, card_id, card_result(
                tuple([sp[i] for i in on_card]), fired, tuple([sp[i] for i in win]), tuple([sp[i] for i in sneak]),
                tuple([sp[i] for i in discard]))))
        if kind == "scene":
            self._full_scenes += (not emptied) - (not self._scene_open[card_id])
            self._scene_open[card_id] = emptied
            self._scene_rows[card_id] = self._tables[0][card_id][emptied]
        bags = self.bags
        for i in discard:
            owner, humour = raw[i]
            bags[owner][_HI[humour]] += 1
            if events is not None:
                events.append(ev.PotionReturned(owner, humour, targets[i], "discard"))
        if not moving:
            return
        if len(moving) > 1:
            n = len(self.colours)
            first = self.first_player
            moving = sorted(moving, key=lambda item: ((raw[item[0]][0] - first) % n, item[0]))  # seat order (FH-6.6)
        mode = self.mode
        for i, why in moving:
            owner, humour = raw[i]
            board_id = "kingdom" if mode == "kingdom" else self.fiefs[owner]  # board_of(owner)
            key = (i, why, board_id, mode)
            cells = destinations.get(key)
            if cells is None:
                card = self.data.scene_by_id[card_id] if kind == "scene" else self.data.party_by_id[card_id]
                cells = destinations[key] = self._destinations(kind, card, card.slots[i].citizen, why, board_id)
            self.pending.append(pending(owner, humour, targets[i], why, board_id, cells))

    def _destinations(self, kind: str, card: Any, citizen: str, why: str, board_id: str) -> tuple[str, ...]:
        """Where a winner or sneaker may land (FH-6, FH-8.3, FH-11; AMB-FH-04, 06, 08)."""
        rules = self.rules
        board = self.board(board_id)
        if kind == "party":
            target = rules.party_winner_target if why == "win" else rules.party_sneak_target
            if target == "bag":
                return ()
            if self.mode == "kingdom":
                return board.cell_ids
        if self.mode == "fief":
            joker = self.data.citizen_by_id[citizen].joker
            matching = tuple(c.id for c in board.cells if c.citizen == citizen)
            if why == "win":
                if joker or rules.fief_winner_target == "any_cell" or not matching:
                    return board.cell_ids
                return matching
            if joker:
                return board.cell_ids
            if rules.fief_sneak_target == "bag":
                return ()
            near = {n for c in matching for n in board.neighbours[c]}
            return tuple(c for c in board.cell_ids if c in near)
        if card.is_animal:
            scope = rules.animal_scope if why == "win" else rules.animal_sneak_scope
            if scope == "zone":
                return board.cells_of_tile.get(card.zone, ())
            return board.cell_ids if scope == "any" else ()
        return (card.cell,) if why == "win" else board.neighbours[card.cell]

    def _land(self, pending: Pending, cell: str | None, chosen: bool, events: list[ev.Event] | None) -> None:
        if cell is None:
            self.bags[pending.owner][_HI[pending.humour]] += 1
            if events is not None:
                events.append(ev.PotionReturned(pending.owner, pending.humour, pending.source, "no_cell"))
            return
        cells = self.boards[pending.board]
        here = cells.get(cell)
        if here is None:
            cells[cell] = [(pending.owner, pending.humour)]
        else:
            here.append((pending.owner, pending.humour))
        occ = self._occ[pending.owner]
        occ[cell] = occ.get(cell, 0) + 1
        self._goal_dirty.add(pending.owner)
        if events is not None:
            events.append(ev.PotionMoved(
                pending.owner, pending.humour, pending.source, pending.reason, pending.board, cell, chosen))

    def _advance(self, events: list[ev.Event] | None) -> None:
        """Run the resolution until a player must choose, then stop; or on to the next round / the end."""
        while True:
            # Potions with one place to go (or none) land first; choices do not interact before goals
            # are checked (FH-6.6), so the table moves all it can before it asks anyone.
            waiting = []
            for item in self.pending:
                if len(item.cells) > 1:
                    waiting.append(item)
                else:
                    self._land(item, item.cells[0] if item.cells else None, False, events)
            self.pending = waiting
            if waiting:
                head = waiting[0]
                if events is not None:
                    events.append(
                        ev.DecisionRequired(head.owner, head.humour, head.source, head.reason, head.board, head.cells)
                    )
                return
            self.goal_queue.extend(self._new_goal_completions())
            if not self.goal_queue:
                break
            seat, goal = self.goal_queue.pop(0)
            self.marks[goal].append(seat)
            if events is not None:
                events.append(ev.GoalMarked(seat, goal))
            if self.parties:  # FH-8.1: every marker resolves the next party tile
                party = self.parties.pop(0)
                self.resolved_parties.append(party)
                del self._party_open[party], self._party_count[party], self._party_rows[party]
                for room in self._party_room:
                    if party in room:
                        room.remove(party)
                self._resolve("party", party, self.party_slots.pop(party), events)
        self._cleanup(events)

    def occupancy(self, seat: int) -> dict[str, int]:
        """Cell → number of ``seat``'s potions on ``seat``'s board (what goals look at)."""
        return dict(self._occ[seat])

    def _new_goal_completions(self) -> list[tuple[int, str]]:
        """(seat, goal) pairs newly met, by goal then seat order. Potions only ever land on boards, so a seat
        whose occupancy has not changed since the last check meets no goal it did not meet then (those were
        queued then): only the seats in ``_goal_dirty`` are looked at."""
        dirty = self._goal_dirty
        if not dirty:
            return []
        if len(dirty) == 1:
            seats = list(dirty)
        else:
            seats = [seat for seat in self._seat_order() if seat in dirty]
        dirty.clear()
        queued = self.goal_queue  # (seat, goal) pairs, mostly none: a list is searched as fast as a set is made
        found = []
        occs = self._occ
        marks = self.marks
        for goal_id, checks in self._goal_checks:
            marked = marks[goal_id]
            for seat in seats:
                if seat in marked or (queued and (seat, goal_id) in queued):
                    continue
                if checks[seat](occs[seat]):
                    found.append((seat, goal_id))
        return found

    def _cleanup(self, events: list[ev.Event] | None) -> None:
        scene_open, emptied = self._scene_open, self._cat.scene_full
        for card in self.scenes:
            if scene_open[card] == emptied[card]:
                continue  # every slot is empty (the card resolved, or nobody placed on it)
            for index, p in enumerate(self.scene_slots[card]):
                if p is not None:  # only when AMB-FH-11 is off: the card did not resolve
                    self.bags[p[0]][_HI[p[1]]] += 1
                    if events is not None:
                        events.append(ev.PotionReturned(p[0], None, Target("scene", card, index), "cleanup"))
        self.scene_discard.extend(self.scenes)
        self.scenes = []
        self.scene_slots = {}
        self._scene_open = {}
        self._scene_rows = {}
        self._full_scenes = 0
        termination = self._termination()
        if termination:
            self._finish(termination, events)
        else:
            self._start_round(events)

    def _termination(self) -> Termination | None:
        if not self.parties:
            return Termination.PARTIES_RESOLVED
        if len(self.scene_deck) < self.rules.scenes_face_up:
            return Termination.SCENE_DECK_EXHAUSTED
        short = [sum(self.hands[s]) + sum(self.bags[s]) < self.rules.hand_size for s in range(len(self.colours))]
        if (all(short) if self.rules.end_when_short == "all" else any(short)):
            return Termination.POTIONS_EXHAUSTED
        return None

    def _next_starter(self) -> int:
        rule = self.rules.next_round_starter
        n = self.num_players
        if rule == "first_player":
            return self.first_player
        if rule == "rotate":
            return (self.round_starter + 1) % n
        return self.first_player if self.last_actor is None else (self.last_actor + 1) % n

    def _start_round(self, events: list[ev.Event] | None, starter: int | None = None) -> None:
        self.round_no += 1
        self.turn_no = 0
        self.passes = 0
        self.passed_this_round = set()
        self.round_end_reason = None
        self.phase = _PLACEMENT
        count = self.rules.scenes_face_up
        self.scenes, self.scene_deck = self.scene_deck[:count], self.scene_deck[count:]
        self.scene_slots = {c: [None] * len(self.data.scene_by_id[c].slots) for c in self.scenes}
        full = self._cat.scene_full
        self._scene_open = {c: full[c] for c in self.scenes}
        tables = self._tables[0]
        self._scene_rows = {c: tables[c][full[c]] for c in self.scenes}
        self._full_scenes = [*self._scene_open.values()].count(0)
        self.round_starter = self.active = self._next_starter() if starter is None else starter
        if events is not None:
            events.append(ev.RoundStarted(self.round_no, tuple(self.scenes), self.active))
        for seat in self._seat_order():
            drawn = self._draw(seat, self.rules.hand_size - sum(self.hands[seat]))
            if drawn:
                if events is not None:
                    events.append(ev.PotionsDrawn(seat, drawn))
        self._note_hands()
        # The seat to move is asked first: the placements listed for it are kept for legal_actions.
        if self.rules.round_ends_when_stuck and not self._anyone_can_place(self.active):
            self._end_round("stuck", events)

    def _finish(self, termination: Termination, events: list[ev.Event] | None) -> None:
        self.phase = _ENDED
        self.termination = termination
        if events is not None:
            events.append(ev.GameEnded(self.outcome()))

    # ------------------------------------------------------------------ scoring

    def standings(self) -> list[Standing]:
        """Every player's goals and tie-break figures now (FH-10.4), in seat order."""
        n = self.num_players
        by_humour = [[0, 0, 0, 0] for _ in range(n)]
        home = [self.board_of(seat) for seat in range(n)]
        for board_id, cells in self.boards.items():  # one pass: a potion counts on its owner's board
            for potions in cells.values():
                for owner, humour in potions:
                    if home[owner] == board_id:
                        by_humour[owner][_HI[humour]] += 1
        if self.rules.tiebreak_counts_parties:
            for slots in self.party_slots.values():
                for p in slots:
                    if p is not None:
                        by_humour[p[0]][_HI[p[1]]] += 1
        goals = [0] * n
        for marked in self.marks.values():
            for seat in set(marked):
                goals[seat] += 1
        return [Standing(seat, goals[seat], sum(by_humour[seat]), tuple(by_humour[seat])) for seat in range(n)]

    def leaders(self) -> tuple[int, ...]:
        """The seats that would win if the game ended now (ties share)."""
        return self._leaders(self.standings())

    @staticmethod
    def _leaders(standings: list[Standing]) -> tuple[int, ...]:
        best = max(s.key for s in standings)
        return tuple(s.player for s in standings if s.key == best)

    def outcome(self) -> GameOutcome | None:
        """The result once the game is over, else ``None``."""
        if self.termination is None:
            return None
        standings = self.standings()
        return GameOutcome(self.termination, self._leaders(standings), tuple(standings))

    # ------------------------------------------------------------------ views and snapshots

    def view(self, player: int) -> dict[str, Any]:
        """What ``player`` may know, as JSON: no other hand, no bag content but their own, no hidden humour."""
        if not 0 <= player < self.num_players:
            raise IllegalAction(f"there is no player {player}", "no_such_player")

        def slot_json(p: Potion | None) -> dict[str, Any] | None:
            if p is None:
                return None
            return {"owner": p[0], "humour": p[1] if p[0] == player else None}

        snapshot = self.to_snapshot()
        players = []
        for seat, entry in enumerate(snapshot["players"]):
            mine = seat == player
            players.append(
                {
                    "seat": seat,
                    "colour": entry["colour"],
                    "fief": entry["fief"],
                    "hand_size": len(entry["hand"]),
                    "bag_size": sum(entry["bag"].values()),
                    "hand": entry["hand"] if mine else None,
                    "bag": entry["bag"] if mine else None,
                }
            )
        return {
            "ttsmod_view": SNAPSHOT_FORMAT,
            "game": GAME_ID,
            "player": player,
            "mode": self.mode,
            "phase": self.phase.value,
            "round": self.round_no,
            "first_player": self.first_player,
            "active_player": self.active,
            "consecutive_passes": self.passes,
            "players": players,
            "scene_deck_size": len(self.scene_deck),
            "scene_discard": list(self.scene_discard),
            "scenes": [{"card": c, "slots": [slot_json(p) for p in self.scene_slots[c]]} for c in self.scenes],
            "parties": [{"party": t, "slots": [slot_json(p) for p in self.party_slots[t]]} for t in self.parties],
            "resolved_parties": list(self.resolved_parties),
            "goals": snapshot["goals"],
            "boards": snapshot["boards"],
            "pending": snapshot["pending"],  # revealed potions only
            "goal_queue": snapshot["goal_queue"],
            "legal_actions": [str(a) for a in self.legal_actions() if a.player == player],
        }

    def to_snapshot(self) -> dict[str, Any]:
        """The full state as JSON (hidden information included): the contract with the table, see
        docs/games/four_humours/protocol.md (:mod:`.snapshot` declares it)."""
        return snapshot.write(self)

    @classmethod
    def from_snapshot(cls, data: FourHumoursData, snapshot_json: Any) -> "GameState":
        """Rebuild a state from :meth:`to_snapshot` JSON or from what the mod read off the table, once the
        contract (:func:`bridge.rules.contract.prepare_snapshot`) has checked its envelope and filled in the
        engine-written keys the mod may leave out (``rng`` and those of :func:`snapshot_defaults`): each of them
        must be there. Of the table's own keys, ``phase``, ``round``, ``first_player``, ``active_player``,
        ``consecutive_passes``, the piles, cards, goals and boards may be left out (a game not begun: placement,
        round 1, seat 0, nothing on the table). Read through the schema of :mod:`.snapshot`, then what spans
        keys; raises :class:`SnapshotError` naming the path of the first problem, e.g. ``players[1].hand[2]:
        "bile" is not a humour``. The state is then built from the checked tree (:func:`_from_tree`).
        """
        return _from_tree(data, snapshot.read(data, snapshot_json))

    def copy(self) -> "GameState":
        """An independent state equal to this one (undo history not included): every container copied."""
        other = GameState.__new__(GameState)
        fields = dict(self.__dict__)
        fields.update(
            _history=None,
            rng=SeededRandom(self.rng.state),
            passed_this_round=set(self.passed_this_round),
            bags=[list(bag) for bag in self.bags],
            hands=[list(hand) for hand in self.hands],
            fiefs=list(self.fiefs),
            scene_deck=list(self.scene_deck),
            scene_discard=list(self.scene_discard),
            scenes=list(self.scenes),
            scene_slots={card: list(slots) for card, slots in self.scene_slots.items()},
            parties=list(self.parties),
            party_slots={party: list(slots) for party, slots in self.party_slots.items()},
            resolved_parties=list(self.resolved_parties),
            goals=list(self.goals),
            marks={goal: list(seats) for goal, seats in self.marks.items()},
            boards={board: {cell: list(potions) for cell, potions in cells.items()}
                    for board, cells in self.boards.items()},
            pending=list(self.pending),
            goal_queue=list(self.goal_queue),
            _scene_open=dict(self._scene_open),
            _party_open=dict(self._party_open),
            _scene_rows=dict(self._scene_rows),
            _party_rows=dict(self._party_rows),
            _party_count={party: list(count) for party, count in self._party_count.items()},
            _party_room=list(map(list, self._party_room)),
            _hand_masks=list(self._hand_masks),
            _occ=[dict(occ) for occ in self._occ],
            _goal_dirty=set(self._goal_dirty),
            _next_places=None,
        )
        other.__dict__.update(fields)
        return other

    def _derive(self) -> None:
        """Build the bookkeeping kept move by move (the fields :data:`BOOKKEEPING` names, and the goal checks'
        dirty seats) afresh from the state."""
        players = len(self.colours)

        def open_mask(slots: list[Potion | None]) -> int:
            return sum(1 << i for i, p in enumerate(slots) if p is None)

        self._scene_open = {card: open_mask(self.scene_slots[card]) for card in self.scenes}
        self._full_scenes = [*self._scene_open.values()].count(0)
        self._party_open = {party: open_mask(self.party_slots[party]) for party in self.parties}
        self._tables = scene_tables, party_tables = self._cat.tables(players)
        self._scene_rows = {card: scene_tables[card][self._scene_open[card]] for card in self.scenes}
        self._party_rows = {party: party_tables[party][self._party_open[party]] for party in self.parties}
        self._party_count = {}
        for party in self.parties:
            count = [0] * (players + 1)
            for p in self.party_slots[party]:
                if p is not None:
                    count[p[0]] += 1
                    count[-1] += 1
            self._party_count[party] = count
        self._occ = [{} for _ in range(players)]
        for seat in range(players):
            occ = self._occ[seat]
            for cell, potions in self.boards[self.board_of(seat)].items():
                n = sum(1 for p in potions if p[0] == seat)
                if n:
                    occ[cell] = n
        self._goal_dirty = set(range(players))
        self._party_rule = (self.party_limit, self.rules.party_limit_scope == "per_tile")
        self._party_room = [[party for party in self.parties if self._party_has_room(seat, party)]
                            for seat in range(players)]
        self._note_hands()
        boards = [self.board_of(seat) for seat in range(players)]
        self._goal_checks = tuple(
            (goal, tuple(self._cat.goal_check(goal, board, self.board(board)) for board in boards))
            for goal in self.goals)


def new_game(
    data: FourHumoursData,
    players: int,
    *,
    mode: str = "kingdom",
    seed: int = 0,
    first_player: int | None = None,
    colours: Iterable[str] | None = None,
) -> GameState:
    """Set up a game (FH-2): goals drawn, scene deck shuffled, four scenes up, four potions in every hand.

    ``first_player`` is the host's choice (FH-2.6); without it the seeded random source picks one.
    """
    info = data.info
    if mode not in info.modes:
        raise ValueError(f"mode must be one of {', '.join(info.modes)}")
    if not info.min_players <= players <= info.max_players:
        raise ValueError(f"{info.name.en} takes {info.min_players} to {info.max_players} players")
    state = GameState(data)
    state.mode = mode
    state.colours = tuple(colours) if colours is not None else info.player_colours[:players]
    if len(state.colours) != players:
        raise ValueError("give one colour per player")
    state.rng = rng = SeededRandom(seed)
    composition = [data.rules.bag_composition.get(h, 0) for h in HUMOURS]
    state.bags = [list(composition) for _ in range(players)]
    state.hands = [[0, 0, 0, 0] for _ in range(players)]
    goal_pool = [g.id for g in data.goals_of_mode(mode)]
    rng.shuffle(goal_pool)
    state.goals = goal_pool[: data.rules.goals_per_game]
    state.marks = {g: [] for g in state.goals}
    deck = [s.id for s in data.scenes]
    rng.shuffle(deck)
    state.scene_deck = deck
    state.parties = [p.id for p in sorted(data.parties, key=lambda p: p.order)]
    state.party_slots = {p: [None] * len(data.party_by_id[p].slots) for p in state.parties}
    if mode == "fief":
        state.fiefs = [f.id for f in data.fiefs[:players]]
        state.boards = {f: {} for f in state.fiefs}
    else:
        state.boards = {"kingdom": {}}
    if first_player is None:
        first_player = rng.randbelow(players)
    if not 0 <= first_player < players:
        raise ValueError(f"first player must be a seat from 0 to {players - 1}")
    state.first_player = first_player
    state.last_actor = None
    state.round_starter = first_player
    state._derive()
    state._start_round([], starter=first_player)  # the first round is dealt like every other one
    return state

# ---------------------------------------------------------------------------------------------------------------
_PHASE_OF = {phase.value: phase for phase in Phase}
_TERMINATION_OF = {termination.value: termination for termination in Termination}


def _from_tree(data: FourHumoursData, tree: Mapping[str, Any]) -> GameState:
    """The state a checked snapshot tree (:func:`.snapshot.read`) describes: what the tree leaves out filled in
    (a seat's colour, the active seat, a card's empty slots) and the bookkeeping derived."""
    state = GameState(data)
    state.mode = mode = tree["mode"]
    state.phase = _PHASE_OF[tree["phase"]]
    state.round_no, state.turn_no = tree["round"], tree["turn"]
    default_colours = data.info.player_colours
    players = tree["players"]
    colours = []
    for seat, entry in enumerate(players):
        colour = entry["colour"]
        colours.append(default_colours[seat] if colour is None else colour)
        hand, bag = entry["hand"], entry["bag"]
        state.hands.append([hand.count(humour) for humour in HUMOURS])
        state.bags.append([bag.get(humour, 0) for humour in HUMOURS])
    state.colours = tuple(colours)
    if mode == "fief":
        state.fiefs = [entry["fief"] for entry in players]
    state.first_player = tree["first_player"]
    active = tree["active_player"]
    state.active = state.first_player if active is None else active
    state.round_starter, state.last_actor = tree["round_starter"], tree["last_actor"]
    state.passes = tree["consecutive_passes"]
    state.passed_this_round = set(tree["passed_this_round"])
    state.round_end_reason = tree["round_end_reason"]
    termination = tree["termination"]
    state.termination = _TERMINATION_OF[termination] if termination else None
    state.scene_deck, state.scene_discard = tree["scene_deck"], tree["scene_discard"]
    by_id = data.scene_by_id
    for entry in tree["scenes"]:
        card = entry["card"]
        state.scenes.append(card)
        state.scene_slots[card] = _slots(entry["slots"], len(by_id[card].slots))
    by_id = data.party_by_id
    for entry in tree["parties"]:
        party = entry["party"]
        state.parties.append(party)
        state.party_slots[party] = _slots(entry["slots"], len(by_id[party].slots))
    state.resolved_parties = tree["resolved_parties"]
    for entry in tree["goals"]:
        goal = entry["goal"]
        state.goals.append(goal)
        state.marks[goal] = entry["marked_by"]
    state.boards = boards = {board_id: {} for board_id in (["kingdom"] if mode == "kingdom" else state.fiefs)}
    for board_id, cells in tree["boards"].items():
        placed_on = boards[board_id]
        for cell, potions in cells.items():
            if potions:
                placed_on[cell] = [(potion["owner"], potion["humour"]) for potion in potions]
    for entry in tree["pending"]:
        source = entry["from"]
        state.pending.append(pending(entry["owner"], entry["humour"],
                                     Target(source["kind"], source["card"], source["slot"]),
                                     entry["reason"], state.board_of(entry["owner"]), tuple(entry["cells"])))
    state.goal_queue = [(entry["player"], entry["goal"]) for entry in tree["goal_queue"]]
    state.rng = SeededRandom.from_text(tree["rng"])
    state._derive()
    return state


def _slots(slots: list[Any] | None, count: int) -> list[Potion | None]:
    """A card's ``count`` slots as the state keeps them (``slots`` left out: all empty)."""
    if slots is None:
        return [None] * count
    return [None if potion is None else (potion["owner"], potion["humour"]) for potion in slots]


# The engine's bookkeeping a snapshot may leave out: the contract (bridge.rules.contract.prepare_snapshot) fills
# each missing key in from snapshot_defaults before from_snapshot reads it. A default is what the rest of the
# table says where it can say it, else "none of it yet". It reads the snapshot as it came, unchecked: whatever
# is malformed gets the "none yet" value here and is refused by name when the snapshot is read.

def snapshot_defaults(data: FourHumoursData) -> dict[str, Callable[[Mapping[str, Any]], Any]]:
    """The keys :meth:`GameState.to_snapshot` writes that a snapshot may leave out (or send as ``null``), each
    with its value derived from the snapshot, in the order the contract derives them (a later one may read an
    earlier one): the table in docs/games/four_humours/protocol.md."""
    row = tuple(party.id for party in sorted(data.parties, key=lambda party: party.order))

    def resolved_parties(snap: Mapping[str, Any]) -> list[str]:
        """Every tile starts in the row (FH-2) and each goal marker resolves the front one (FH-8.1): the
        resolved tiles are the row's tiles no longer in it, in row order."""
        parties = snap.get("parties")
        in_row = {entry.get("party") for entry in parties if isinstance(entry, dict)} \
            if isinstance(parties, list) else set()
        return [party for party in row if party not in in_row]

    return {
        "turn": lambda snap: 0,
        "last_actor": _default_last_actor,
        "round_starter": _default_round_starter,
        "passed_this_round": _default_passed_this_round,
        "round_end_reason": lambda snap: None,
        "termination": lambda snap: None,
        "scene_discard": lambda snap: [],
        "resolved_parties": resolved_parties,
        "pending": lambda snap: [],
        "goal_queue": lambda snap: [],
    }


def _whole(value: Any) -> int | None:
    return value if type(value) is int else None


def _seat_count(snap: Mapping[str, Any]) -> int:
    players = snap.get("players")
    return len(players) if isinstance(players, list) else 0


def _active_seat(snap: Mapping[str, Any]) -> int | None:
    """The active seat as :func:`_read_turn_order` reads it (the first player's when left out)."""
    return _whole(snap.get("active_player", snap.get("first_player", 0)))


def _default_last_actor(snap: Mapping[str, Any]) -> int | None:
    """In placement, once a turn was taken this round, the seat before the active one (every turn passes the
    table on to the next seat); else none is known."""
    seats, active = _seat_count(snap), _active_seat(snap)
    if snap.get("phase", "placement") == "placement" and seats and _whole(snap.get("turn")) and active is not None:
        return (active - 1) % seats
    return None


def _default_round_starter(snap: Mapping[str, Any]) -> int | None:
    """The seat that took the round's first turn: one seat on from the last actor, less a seat for every turn
    taken; the active seat while no turn was taken."""
    seats, turn, last = _seat_count(snap), _whole(snap.get("turn")), _whole(snap.get("last_actor"))
    if seats and turn and last is not None:
        return (last + 1 - turn) % seats
    return _active_seat(snap)


def _default_passed_this_round(snap: Mapping[str, Any]) -> list[int]:
    """The seats of the passes in a row that end the turns so far (the last actor's and the seats' before it):
    each passed this round. A pass before the last placement is not on the table."""
    seats, passes, last = _seat_count(snap), _whole(snap.get("consecutive_passes")), _whole(snap.get("last_actor"))
    if not seats or not passes or passes < 0 or last is None:
        return []
    return sorted({(last - i) % seats for i in range(min(passes, seats))})
