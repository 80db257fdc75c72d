"""The 15 Days game state: every rule FD-1 … FD-9 (rules spec §3), pure Python.

A turn is two actions (FD-2), each made of one or more decisions (:mod:`bridge.rules.fifteen_days.actions`);
between the decisions of one action the state keeps a *pending* decision (``draw``: more cards to draw;
``take``: a second face-up card with the rabbit; ``refill``: cards for an emptied market column; ``play``:
more placements or the payment; ``wild``: a place for a wild). Only the active seat ever decides.

Rulings not fixed by the rule text, beyond the AMB-FD flags of ``game.toml`` ``[rules]``
(docs/games/fifteen_days/rules.md; where a displaced wild may go, when an animal is checked and which wilds
break a tie are the flags ``displaced_wild_to``, ``steal_check`` and ``wild_tiebreak``, AMB-FD-11 … 13):

- The squirrel's third card and the rabbit's second card are optional (``done`` stops); a Play action may
  only place a card the hand can still pay for.
- The frog's discount belongs to the Play action that starts with the frog owned (or lent by a feather): a
  frog won by that action's own cards helps from the next Play action on (FD-E2: "total 3 cards").
- A feather buys a power the player does not own; the otter's (with ``feather_otter_raises_limit``) raises
  this turn's hand limit at once, the others apply to the next action of this turn.
- ``pass`` gives up an action only when no action is possible (both draw piles, the market and the discard
  empty and no card can be played), so that every game ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from bisect import insort
from itertools import combinations
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from bridge.rules import reader as r
from bridge.rules.errors import IllegalAction, InvalidAction
from bridge.rules.fifteen_days import events as ev
from bridge.rules.fifteen_days import snapshot
from bridge.rules.fifteen_days.snapshot import END_NOT_YET, PENDING_KINDS  # noqa: F401 (the state's vocabulary)
from bridge.rules.fifteen_days.actions import (
    Action, Discard, Done, Draw, EndTurn, Face, Feather, Pass, Pay, Play, PutWild, Refill, Take, TakeWild)
from bridge.rules.fifteen_days.records import (
    ASC, CORNERS_PER_BOARD, DISCOUNT, DRAW_DOWN, HAND_LIMIT, TAKE_UP, FifteenDaysData)
from bridge.rules.random import SeededRandom

GAME_ID = "fifteen-days"
NO_PLAYS: tuple[tuple[Any, ...], tuple[Any, ...]] = ((), ())
REFUSALS: Mapping[str, str] = MappingProxyType({
    # who and when
    "game_over": "the game is over",
    "not_your_turn": "it is another player's turn (only the active seat decides)",
    "decision_pending": "the action in progress asks for its own next decision first (the rest of a draw or "
                        "take, a column refill, a place for a wild, more cards or the payment of a Play action)",
    "no_actions_left": "both actions of the turn are made (only discarding to the hand limit, a feather on the "
                       "otter and ending the turn remain, FD-2, FD-8)",
    "actions_left": "the turn still has actions to make (discarding to the hand limit and ending the turn come "
                    "after both, FD-2, FD-8)",
    "nothing_open": "no action is in progress for it to continue (refill, put-wild, pay and done answer a "
                    "decision an action opened)",
    "can_act": "an action is still possible (a player passes only when none is)",
    # drawing and taking (FD-2.A, FD-2.B)
    "no_such_pile": "there is no such draw pile",
    "pile_empty": "that draw pile is empty",
    "no_such_column": "there is no such market column",
    "column_empty": "that market column is empty",
    "discard_empty": "the discard pile is empty",
    "own_discard": "the top of the discard pile was discarded by this player this turn (take_own_discard, "
                   "AMB-FD-10)",
    "draws_left": "the draw has cards still to draw (FD-2.A)",
    "takes_left": "the take has cards still to take (FD-2.B)",
    # playing and paying (FD-2.D, FD-3, FD-4)
    "not_in_hand": "a card it names is not in the player's hand",
    "no_such_corner": "there is no such corner on the board",
    "bad_value": "the value is not one of the game's values",
    "season_elsewhere": "the card's season already has another corner (FD-3.2)",
    "wrong_season": "the corner holds another season (FD-3.2)",
    "duplicate_value": "the corner already holds that value (FD-3.3)",
    "cannot_pay": "the rest of the hand cannot pay what the Play action would then cost (FD-4)",
    "paying": "the payment has begun (the Play action takes only its payment now)",
    "one_card_per_play": "a Play action places one card (play_many_cards, AMB-FD-04)",
    "payment_owed": "the cards played are not paid for yet (FD-4)",
    "nothing_owed": "nothing is owed for the cards played",
    # wilds (FD-2.C, FD-5)
    "no_wild_in_supply": "the wild supply is empty (FD-2.C)",
    "wild_card_count": "a wild costs exactly wild_discard_count cards (FD-2.C)",
    "not_on_board": "a card it names is identical to no real card on the player's board (FD-2.C)",
    "no_wild_place": "a wild would have no legal place on the player's board (FD-2.C, FD-5)",
    "corner_has_wild": "the corner holds a wild already (FD-5.1)",
    "empty_corner": "a wild goes only into a corner that holds a real card (wild_needs_real_card, FD-5.1)",
    "wild_left_corner": "a displaced wild may not go back to the corner it left (displaced_wild_to, AMB-FD-11)",
    # the end of the turn (FD-8)
    "hand_limit": "the hand is over its limit (discard down to it before ending the turn, FD-8)",
    "within_hand_limit": "the hand is within its limit (nothing to discard, no limit to raise, FD-8)",
    # feathers (FD-2.E)
    "no_feathers": "the player has no feather (FD-2.E)",
    "power_waiting": "a feather's power already waits for the next action (FD-2.E)",
    "own_animal": "the player owns that animal, so its power is theirs already",
    "otter_feather_off": "a feather does not buy the otter's power (feather_otter_raises_limit, AMB-FD-09)",
    "limit_raised": "a feather has raised this turn's hand limit already (FD-2.E)",
})
"""Every ``reason`` code a refused action carries (:meth:`GameState.check`), each with its cause: the sentence
after "… is not allowed now:" and the table of docs/games/fifteen_days/protocol.md."""


# ------------------------------------------------------------------------------------------------ tables

class Tables:
    """What the engine looks up on every decision, computed once per data (cards as small integers)."""

    def __init__(self, data: FifteenDaysData) -> None:
        self.data = data
        self.rules = data.rules
        self.ids = tuple(card.id for card in data.cards)
        self.index = {card_id: i for i, card_id in enumerate(self.ids)}
        self.season = tuple(card.season for card in data.cards)
        self.value = tuple(card.value for card in data.cards)
        self.back = tuple(card.back for card in data.cards)
        # Faces as small integers in Face order, and one shared Face object per face: sorting and hashing
        # plain integers keeps legal_actions cheap.
        self.faces = tuple(sorted({Face(card.season, card.value) for card in data.cards}))
        face_number = {face: i for i, face in enumerate(self.faces)}
        self.face_id = tuple(face_number[Face(card.season, card.value)] for card in data.cards)
        self.face = tuple(self.faces[i] for i in self.face_id)
        self.season_faces = {season: tuple(i for i, face in enumerate(self.faces) if face.season == season)
                             for season in sorted({face.season for face in self.faces})}
        # Faces are sorted by season first, so each season's face numbers are one run: [start, stop), with as
        # many Nones (what Board.placed writes over the run).
        self.season_run = {season: (found[0], found[-1] + 1, (None,) * len(found))
                           for season, found in self.season_faces.items()}
        self.face_season = tuple(face.season for face in self.faces)
        self.face_value = tuple(face.value for face in self.faces)
        self.animals = tuple(animal.id for animal in data.animals)
        self.animal_season = {animal.id: animal.season for animal in data.animals}
        self.animal_power = {animal.id: animal.power for animal in data.animals}
        self.animal_of_season = {animal.season: animal.id for animal in data.animals}
        self.power_animal = {animal.power: animal.id for animal in data.animals}
        self.otter = self.power_animal.get(HAND_LIMIT)    # the animal whose power raises the hand limit
        self.values = tuple(self.rules.values)
        self.value_set = frozenset(self.values)
        # The actions legal_actions lists, made once (actions are frozen values): seat -> ...
        seats = range(data.info.max_players)
        piles, columns = range(self.rules.draw_piles), range(self.rules.market_columns)
        corners = range(CORNERS_PER_BOARD)              # every board has as many (the data checks it)
        self.draws = [tuple(Draw(p, i) for i in piles) for p in seats]
        self.refills = [tuple(Refill(p, i) for i in piles) for p in seats]
        self.takes = [tuple(Take(p, i) for i in columns) for p in seats]
        self.draws_takes = [self.draws[p] + self.takes[p] for p in seats]
        self.take_discard = [Take(p, None) for p in seats]
        self.done = [Done(p) for p in seats]
        self.passes = [Pass(p) for p in seats]
        self.end_turn = [EndTurn(p) for p in seats]
        self.plays = [[tuple(Play(p, face, k) for k in corners) for face in self.faces] for p in seats]
        # A face's plays into one corner as Board.plays gives them, by the placement's cost: 0 (no play: the
        # corner holds the value), 1, 2 (a play that is not among those costing 1).
        self.corner_plays = [[tuple((NO_PLAYS, ((play,), (play,)), ((play,), ())) for play in row) for row in rows]
                             for rows in self.plays]
        # A face's plays into a set of corners (bit k: corner k), each costing 1: by seat, face number, set.
        self.spread = [[[(every, every) for every in (tuple(made[k] for k in corners if mask >> k & 1)
                                                      for mask in range(1 << len(corners)))]
                        for made in rows] for rows in self.plays]
        self.pays = [tuple(Pay(p, face) for face in self.faces) for p in seats]
        self.discards = [tuple(Discard(p, face) for face in self.faces) for p in seats]
        self.feathers = [tuple((animal, Feather(p, animal)) for animal in self.animals) for p in seats]
        self.put_wilds = [[{v: PutWild(p, k, v) for v in self.values} for k in corners] for p in seats]
        self._take_wilds: dict[tuple[int, tuple[int, ...]], TakeWild] = {}
        self._wild_lists: dict[tuple[int, tuple[int, ...]], list[TakeWild]] = {}

    def take_wilds(self, p: int, candidates: tuple[int, ...], need: int) -> list[TakeWild]:
        """Every ``TakeWild`` of seat ``p`` paying ``need`` of the faces numbered ``candidates`` (ascending, a
        face as often as it may be paid), in order (cached: the lists repeat)."""
        key = (p, candidates)
        found = self._wild_lists.get(key)
        if found is None:
            if len(self._wild_lists) > 65536:  # bounded
                self._wild_lists.clear()
            found = self._wild_lists[key] = [self.take_wild(p, combo)
                                             for combo in sorted(set(combinations(candidates, need)))]
        return found

    def take_wild(self, p: int, combo: tuple[int, ...]) -> TakeWild:
        """``TakeWild`` of seat ``p`` paying the faces numbered ``combo``."""
        found = self._take_wilds.get((p, combo))
        if found is None:
            found = self._take_wilds[(p, combo)] = TakeWild(p, tuple(self.faces[i] for i in combo))
        return found


_TABLES: dict[int, Tables] = {}


def tables_of(data: FifteenDaysData) -> Tables:
    found = _TABLES.get(id(data))
    if found is None or found.data is not data:
        found = _TABLES[id(data)] = Tables(data)
    return found


# ------------------------------------------------------------------------------------------------ board

class Corner:
    """One corner of a player board: its season (set by its first real card), real cards by value, a wild."""

    __slots__ = ("season", "cards", "wild")

    def __init__(self, season: str | None = None, cards: dict[int, int] | None = None,
                 wild: int | None = None) -> None:
        self.season = season
        self.cards: dict[int, int] = cards if cards is not None else {}
        self.wild = wild

    def copy(self) -> "Corner":
        return Corner(self.season, dict(self.cards), self.wild)

    def values(self) -> set[int]:
        found = set(self.cards)
        if self.wild is not None:
            found.add(self.wild)
        return found

    def is_empty(self) -> bool:
        return not self.cards and self.wild is None


class Seat:
    """One player's hand (card numbers), feathers and board, and ``wilds_played``: the wilds this seat placed
    from the supply in the game (FD-9.4, AMB-FD-13; a wild moved by its real card is not played again, one that
    then returned to the supply stays counted). ``count`` (copies of each face number in the hand)
    and ``faces`` (the face numbers in the hand, each once, ascending) follow the hand, ``on_board`` (by face
    number: a real card of it is on the board) the board, and ``matched`` (cards in hand whose face is on the
    board) both: the engine changes a hand only through :meth:`add` and :meth:`remove`, and puts a card on the
    board only through :meth:`placed` (real cards never leave a board). ``board`` is what legal_actions derives
    from the corners (:class:`Board`), made on demand and told of every change of a corner (or dropped, to be
    made anew)."""

    __slots__ = ("hand", "feathers", "corners", "directions", "face_id", "count", "faces", "on_board", "matched",
                 "board", "wilds_played")

    def __init__(self, hand: list[int], feathers: int, corners: list[Corner], directions: tuple[str, ...],
                 t: Tables) -> None:
        self.hand = hand
        self.feathers = feathers
        self.wilds_played = 0
        self.corners = corners
        self.directions = directions
        self.face_id = face_id = t.face_id
        self.count = [0] * len(t.faces)
        for card in hand:
            self.count[face_id[card]] += 1
        self.faces = sorted({face_id[card] for card in hand})
        self.on_board = [False] * len(t.faces)
        for corner in corners:
            for card in corner.cards.values():
                self.on_board[face_id[card]] = True
        self.matched = sum(n for i, n in enumerate(self.count) if self.on_board[i])
        self.board: Board | None = None

    def copy(self) -> "Seat":
        other = Seat.__new__(Seat)
        other.hand, other.feathers, other.directions = list(self.hand), self.feathers, self.directions
        other.wilds_played = self.wilds_played
        other.corners = [c.copy() for c in self.corners]
        other.face_id, other.count, other.faces = self.face_id, list(self.count), list(self.faces)
        other.on_board, other.matched = list(self.on_board), self.matched
        other.board = None
        return other

    def add(self, card: int) -> None:
        """``card`` joins the hand (last)."""
        self.hand.append(card)
        i = self.face_id[card]
        self.count[i] += 1
        if self.count[i] == 1:
            insort(self.faces, i)
        if self.on_board[i]:
            self.matched += 1

    def remove(self, card: int) -> None:
        """``card`` leaves the hand."""
        self.hand.remove(card)
        i = self.face_id[card]
        self.count[i] -= 1
        if not self.count[i]:
            self.faces.remove(i)
        if self.on_board[i]:
            self.matched -= 1

    def placed(self, card: int) -> None:
        """``card`` (no longer in hand) went onto the board."""
        i = self.face_id[card]
        if not self.on_board[i]:
            self.on_board[i] = True
            self.matched += self.count[i]

    def wilds(self) -> int:
        return sum(1 for c in self.corners if c.wild is not None)


class Board:
    """What a seat's corners allow, for legal_actions: per face number, the plays it may make and those of them
    that cost 1 (:meth:`plays`, worked out on first use and kept until a corner they depend on changes); whether
    a wild has a place (``wild_spot``), and whether every set is complete (``complete``). The engine tells it of
    every change of a corner (:meth:`placed`, :meth:`wild_placed`) or drops it (``Seat.board = None``) to have it
    made anew."""

    __slots__ = ("t", "seat", "p", "own", "empty", "empty_mask", "empty_wild", "made", "needs_real", "size", "spot",
                 "full", "wild_spot", "complete")

    def __init__(self, t: "Tables", rules: Any, seat: Seat, p: int) -> None:
        self.t, self.seat, self.p = t, seat, p
        corners = seat.corners
        own: dict[str, int] = {}
        empty: list[int] = []
        for k, corner in enumerate(corners):
            if corner.season is None:
                empty.append(k)
            else:
                own[corner.season] = k
        self.own = own
        self._set_empty(tuple(empty))
        self.made: list[tuple[tuple[Play, ...], tuple[Play, ...]] | None] = [None] * len(t.faces)
        self.needs_real = rules.wild_needs_real_card
        self.size = len(t.values)
        self.spot = [False] * len(corners)
        self.full = [False] * len(corners)
        for k in range(len(corners)):
            self._corner_changed(k)

    def _set_empty(self, empty: tuple[int, ...]) -> None:
        corners = self.seat.corners
        mask, wild = 0, False
        for k in empty:
            mask |= 1 << k
            wild = wild or corners[k].wild is not None
        self.empty, self.empty_mask, self.empty_wild = empty, mask, wild

    def _corner_changed(self, k: int) -> None:
        # A corner's real cards have values of the game (the data checks every card's value) and distinct, and
        # its wild a value none of them has (play replaces it, snapshots are checked): so a corner lacks a value
        # exactly when it holds fewer cards than there are values, and its set is complete when its cards and
        # wild number as many as the values.
        corner, size = self.seat.corners[k], self.size
        cards, wild = corner.cards, corner.wild
        self.spot[k] = (wild is None and (bool(cards) or not (self.needs_real or corner.season is not None))
                        and len(cards) < size)
        self.full[k] = corner.season is not None and len(cards) + (wild is not None) == size
        self.wild_spot = True in self.spot
        self.complete = False not in self.full

    def placed(self, k: int, card: int, opened: bool) -> None:
        """Card number ``card`` went into corner ``k`` (which had no season yet when ``opened``); a wild of its
        value there, if any, has left it."""
        t, made = self.t, self.made
        season = t.season[card]
        if opened:
            # The corner is its season's now, no longer an empty one: the plays of its season's faces change,
            # and those of every season still without a corner (one empty corner fewer).
            own = self.own
            own[season] = k
            self._set_empty(tuple([e for e in self.empty if e != k]))
            for other, (start, stop, nones) in t.season_run.items():
                if other == season or other not in own:
                    made[start:stop] = nones
        else:          # only the plays into this corner (its season's faces) change
            start, stop, nones = t.season_run[season]
            made[start:stop] = nones
        self._corner_changed(k)

    def wild_placed(self, k: int) -> bool:
        """A wild went into corner ``k``; False when the board must be made anew instead (a corner without a
        season: every season without a corner may play there)."""
        corner = self.seat.corners[k]
        if corner.season is None:
            return False
        start, stop, nones = self.t.season_run[corner.season]
        self.made[start:stop] = nones
        self._corner_changed(k)
        return True

    def plays(self, i: int) -> tuple[tuple[Play, ...], tuple[Play, ...]]:
        """(every play of face number ``i``, those that cost 1), in corner order: into its season's corner, or
        any empty one while the season has none (FD-3.2)."""
        found = self.made[i]
        if found is None:       # (every card's value is one of the game's values: the data checks it)
            t = self.t
            value = t.face_value[i]
            k = self.own.get(t.face_season[i])
            if k is not None:
                corner = self.seat.corners[k]
                found = t.corner_plays[self.p][i][k][
                    0 if value in corner.cards else placement_cost(self.seat.directions[k], corner, value)]
            elif not self.empty_wild:     # every empty corner takes a card at cost 1 (FD-4.1)
                found = t.spread[self.p][i][self.empty_mask]
            else:
                made, corners, directions = t.plays[self.p][i], self.seat.corners, self.seat.directions
                found = (tuple(made[k] for k in self.empty),
                         tuple(made[k] for k in self.empty if placement_cost(directions[k], corners[k], value) <= 1))
            self.made[i] = found
        return found


def longest_run(values: set[int]) -> int:
    """The longest chain of consecutive integers among ``values`` (FD-9.3)."""
    best = 0
    for v in values:
        if v - 1 not in values:
            n = 1
            while v + n in values:
                n += 1
            best = max(best, n)
    return best


def placement_cost(direction: str, corner: Corner, value: int) -> int:
    """FD-4.1–4.4: 1 into an empty corner or at the open end (highest of ascending, lowest of descending),
    else 2. A wild of the same value, being replaced, does not count."""
    cards, wild = corner.cards, corner.wild
    if direction == ASC:      # past every other value: the cards' highest and a wild's (one of value excepted)
        return 2 if (cards and max(cards) >= value) or (wild is not None and wild > value) else 1
    return 2 if (cards and min(cards) <= value) or (wild is not None and wild < value) else 1


# ------------------------------------------------------------------------------------------------ outcome

@dataclass(frozen=True)
class Standing:
    """One player's score (FD-9.3) and the tie-break figures (FD-9.4): ``hand`` the cards in hand, ``wilds`` the
    wilds played in the game or on the board at the end (``wild_tiebreak``, AMB-FD-13)."""

    player: int
    score: int
    runs: tuple[int, ...]
    animals: tuple[str, ...]
    empty_corners: int
    hand: int
    wilds: int

    def key(self) -> tuple[int, int, int]:
        return (self.score, self.hand, self.wilds)

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "score": self.score, "runs": list(self.runs), "animals": list(self.animals),
                "empty_corners": self.empty_corners, "hand": self.hand, "wilds": self.wilds}


@dataclass(frozen=True)
class GameOutcome:
    """The end: ``reason`` (``complete_sets`` or ``draw_pile``), the winners, and what decided between the best
    (``score``, ``hand``: most cards in hand, ``wilds``: most wilds by ``wild_tiebreak``, ``shared``)."""

    reason: str
    winners: tuple[int, ...]
    decided_by: str
    standings: tuple[Standing, ...]

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "winners": list(self.winners), "decided_by": self.decided_by,
                "standings": [s.to_json() for s in self.standings]}


def decide(standings: Sequence[Standing]) -> tuple[tuple[int, ...], str]:
    """The winners by score, then hand size, then wilds (FD-9.4: ``Standing.wilds``), and which figure
    decided."""
    best = max(s.key() for s in standings)
    for depth, name in ((1, "score"), (2, "hand"), (3, "wilds")):
        leaders = [s for s in standings if s.key()[:depth] == best[:depth]]
        if len(leaders) == 1:
            return (leaders[0].player,), name
    return tuple(s.player for s in standings if s.key() == best), "shared"


# ------------------------------------------------------------------------------------------------ the state



class GameState:
    """A 15 Days game in progress (the shared :class:`bridge.rules.game.GameState` interface)."""

    def __init__(self, data: FifteenDaysData) -> None:
        self.data = data
        self.t = tables_of(data)
        self.rules = data.rules
        self.mode = "standard"
        self.rng = SeededRandom(0)
        self.seats: list[Seat] = []
        self.active = 0
        self.turn = 1
        self.actions_left = 0
        self.pending: str | None = None
        self.draw_left = self.draw_extra = 0
        self.take_left = self.take_extra = 0
        self.refill_column = self.refill_left = 0
        self.play_total = self.play_placed = self.play_paid = 0
        self.play_discount = 0
        self.paying = False
        self.wild_why = "action"
        self.wild_from: int | None = None
        self.boost: str | None = None          # feather-lent animal waiting for the next action
        self.power: str | None = None          # feather-lent animal in force for the current action
        self.otter_turn = False
        self.fresh_discards: list[int] = []    # discarded this turn (AMB-FD-10)
        self.piles: list[list[int]] = []
        self.market: list[list[int]] = []
        self.discard: list[int] = []
        self.removed: list[int] = []
        self.wild_supply = 0
        self.feather_supply = 0
        self.feathers_out = 0                  # spent and out of the game (feather_returns_to_supply = false)
        self.owner: dict[str, int | None] = {}
        self.trigger: int | None = None
        self.final_left: int | None = None
        self.bonus_done = False
        self.complete_at_end = False
        self.over: str | None = None

    # ----------------------------------------------------------------------------------------- copies

    def copy(self) -> "GameState":
        other = GameState.__new__(GameState)
        other.__dict__.update(self.__dict__)
        other.rng = SeededRandom(self.rng.state)
        other.seats = [s.copy() for s in self.seats]
        other.fresh_discards = list(self.fresh_discards)
        other.piles = [list(p) for p in self.piles]
        other.market = [list(c) for c in self.market]
        other.discard = list(self.discard)
        other.removed = list(self.removed)
        other.owner = dict(self.owner)
        return other

    # ----------------------------------------------------------------------------------------- queries

    @property
    def players(self) -> int:
        return len(self.seats)

    def to_move(self) -> int | None:
        return None if self.over else self.active

    def is_over(self) -> bool:
        return self.over is not None

    def owns(self, seat: int, power: str) -> bool:
        animal = self.t.power_animal.get(power)
        return animal is not None and self.owner.get(animal) == seat

    def has_power(self, power: str) -> bool:
        """The active seat has ``power`` for the current action: owned, or lent by a feather (FD-2.E)."""
        t = self.t
        animal = t.power_animal.get(power)
        if animal is not None and self.owner.get(animal) == self.active:
            return True
        lent = self.power
        return lent is not None and t.animal_power[lent] == power

    def hand_limit(self, seat: int) -> int:
        otter = self.t.otter
        if (otter is not None and self.owner.get(otter) == seat) or (seat == self.active and self.otter_turn):
            return self.rules.otter_limit
        return self.rules.hand_limit

    def discount(self) -> int:
        return self.rules.frog_discount if self.has_power(DISCOUNT) else 0

    def owed(self) -> int:
        """Cards the Play action in progress still has to pay."""
        total = self.play_total - self.play_discount       # the discount pays at most the whole total
        return (total if total > 0 else 0) - self.play_paid

    def season_count(self, seat: int, season: str) -> int:
        """Cards of ``season`` on ``seat``'s board for the animals (FD-6.2; wilds by AMB-FD-02)."""
        for corner in self.seats[seat].corners:
            if corner.season == season:
                n = len(corner.cards)
                if self.rules.wilds_count_for_animals and corner.wild is not None:
                    n += 1
                return n
        return 0

    def corner_complete(self, corner: Corner) -> bool:
        return corner.season is not None and self.t.value_set <= corner.values()

    def all_sets_complete(self, seat: int) -> bool:
        return self.board(seat).complete

    def standing(self, seat: int) -> Standing:
        player = self.seats[seat]
        runs = tuple(longest_run(c.values()) for c in player.corners)
        animals = tuple(a for a in self.t.animals if self.owner.get(a) == seat)
        empty = sum(1 for c in player.corners if c.is_empty())
        score = sum(runs) + self.rules.animal_points * len(animals) - self.rules.empty_corner_penalty * empty
        wilds = player.wilds_played if self.rules.wild_tiebreak == "played" else player.wilds()
        return Standing(seat, score, runs, animals, empty, len(player.hand), wilds)

    def standings(self) -> list[Standing]:
        return [self.standing(seat) for seat in range(self.players)]

    def leaders(self) -> tuple[int, ...]:
        return decide(self.standings())[0]

    def outcome(self) -> GameOutcome | None:
        if self.over is None:
            return None
        standings = self.standings()
        winners, decided_by = decide(standings)
        return GameOutcome(self.over, winners, decided_by, tuple(standings))

    def _first(self, seat: Seat, face: Face) -> int | None:
        season, value = self.t.season, self.t.value
        for card in seat.hand:
            if season[card] == face.season and value[card] == face.value:
                return card
        return None

    def _hand_faces(self, seat: Seat) -> list[Face]:
        face_id, faces = self.t.face_id, self.t.faces
        return [faces[i] for i in sorted({face_id[c] for c in seat.hand})]

    def _hand_face_ids(self, seat: Seat) -> list[int]:
        """The numbers (``Tables.faces`` order) of the faces in ``seat``'s hand, each once, in order."""
        return seat.faces

    def board(self, p: int) -> Board:
        """What seat ``p``'s corners allow (made once per change of the corners)."""
        seat = self.seats[p]
        found = seat.board
        if found is None:
            found = seat.board = Board(self.t, self.rules, seat, p)
        return found

    def _has_wild_spot(self, seat: int) -> bool:
        """Whether :meth:`wild_spots` is not empty."""
        return self.board(seat).wild_spot

    def wild_spots(self, seat: int, exclude: int | None = None) -> list[tuple[int, int]]:
        """(corner, value) places a wild may go on ``seat``'s board (FD-5.1, 5.2), none in corner ``exclude``."""
        spots = []
        for k, corner in enumerate(self.seats[seat].corners):
            if k == exclude or corner.wild is not None:
                continue
            if not corner.cards and (self.rules.wild_needs_real_card or corner.season is not None):
                continue
            spots.extend((k, v) for v in self.t.values if v not in corner.cards)
        return spots

    def _wild_exclude(self, source: int | None) -> int | None:
        """The corner a wild that left corner ``source`` (None: a wild from the supply) may not go back to:
        AMB-FD-11 lets a displaced wild return to a missing value of its own corner unless
        ``displaced_wild_to`` is "other_corner"."""
        return source if self.rules.displaced_wild_to == "other_corner" else None

    def play_check(self, seat_no: int, face: Face, k: int) -> tuple[int | None, int]:
        """(card, cost) of playing ``face`` into corner ``k``; raises IllegalAction with the reason."""
        seat = self.seats[seat_no]
        card = self._first(seat, face)
        if card is None:
            raise IllegalAction(f"no {face} in hand", "not_in_hand")
        if not 0 <= k < len(seat.corners):
            raise IllegalAction(f"there is no corner {k}", "no_such_corner")
        if face.value not in self.t.value_set:
            raise IllegalAction(f"{face.value} is not a season value", "bad_value")
        corner = seat.corners[k]
        if corner.season is None:
            if any(c.season == face.season for c in seat.corners):
                raise IllegalAction(f"{face.season} already has a corner (FD-3.2)", "season_elsewhere")
        elif corner.season != face.season:
            raise IllegalAction(f"corner {k} is the {corner.season} corner (FD-3.2)", "wrong_season")
        if face.value in corner.cards:
            raise IllegalAction(f"corner {k} already holds a {face.value} (FD-3.3)", "duplicate_value")
        cost = placement_cost(seat.directions[k], corner, face.value)
        if self.pending == "play":
            owed = max(0, self.play_total + cost - self.play_discount)
        else:
            owed = max(0, cost - self.discount())
        if len(seat.hand) - 1 < owed:
            raise IllegalAction(f"the hand cannot pay {owed} card(s) after playing {face}", "cannot_pay")
        return card, cost

    # ----------------------------------------------------------------------------------------- legal actions

    def _draw_options(self, p: int, cls=Draw) -> list[Action]:
        made = (self.t.draws if cls is Draw else self.t.refills)[p]
        piles = self.piles
        return list(made) if all(piles) else [made[i] for i, pile in enumerate(piles) if pile]

    def _take_options(self, p: int) -> list[Action]:
        made = self.t.takes[p]
        found: list[Action] = [made[i] for i, column in enumerate(self.market) if column]
        if self.discard and (self.rules.take_own_discard or self.discard[-1] not in self.fresh_discards):
            found.append(self.t.take_discard[p])
        return found

    def _play_options(self, p: int) -> list[Action]:
        # The same checks as play_check, without exceptions: this runs on every decision of a playout. The
        # board lists each face's placements (its season's corner, or any empty one while the season has none,
        # FD-3.2); a card costs 1 or 2 (placement_cost): with 2 or more to spare every placement is affordable.
        seat = self.seats[p]
        if not seat.faces:
            return []
        spare = len(seat.hand) - 1      # the highest cost the hand can still pay
        if self.pending == "play":
            spare += self.play_discount - self.play_total
        elif spare < 2:                 # (a discount is never negative: with 2 to spare it changes nothing)
            spare += self.discount()
        if spare < 1:
            return []
        board = seat.board or self.board(p)
        which = 0 if spare >= 2 else 1
        made, plays = board.made, board.plays
        found: list[Action] = []
        for i in seat.faces:
            found += (made[i] or plays(i))[which]
        return found

    def _wild_options(self, p: int) -> list[Action]:
        seat = self.seats[p]
        need = self.rules.wild_discard_count
        if self.wild_supply <= 0 or seat.matched < need:     # fewer hand cards on the board than a wild costs
            return []
        board = seat.board or self.board(p)
        if not board.wild_spot:
            return []
        # The hand's faces that are on the board, each as often as it is in hand (at most the cards discarded:
        # more copies add no other choice): at least ``need`` of them, as ``matched`` is.
        on_board, count = seat.on_board, seat.count
        candidates: list[int] = []
        for i in seat.faces:
            if on_board[i]:
                n = count[i]
                candidates += [i] * (n if n < need else need)
        return self.t.take_wilds(p, tuple(candidates), need)

    def _feather_options(self, p: int) -> list[Action]:
        seat = self.seats[p]
        if seat.feathers <= 0 or self.boost is not None:
            return []
        found: list[Action] = []
        t, owner = self.t, self.owner
        for animal, feather in t.feathers[p]:
            if owner.get(animal) == p:
                continue
            if t.animal_power[animal] == HAND_LIMIT:
                if self.rules.feather_otter_raises_limit and not self.otter_turn:
                    found.append(feather)
            elif self.actions_left > 0:
                found.append(feather)
        return found

    def legal_actions(self) -> list[Action]:
        """Every action allowed now, in a stable order: a new list each call (nothing is kept: a playout asks once
        per state, and apply checks an action against a list of its own)."""
        if self.over is not None:
            return []
        p = self.active
        seat = self.seats[p]
        kind = self.pending
        t = self.t
        if kind is None and self.actions_left > 0:    # the main decision: the most frequent
            piles, market = self.piles, self.market
            if all(piles) and all(market):
                found = list(t.draws_takes[p])
            else:
                found = [draw for draw, pile in zip(t.draws[p], piles) if pile]
                found += [take for take, column in zip(t.takes[p], market) if column]
            if self.discard and (self.rules.take_own_discard or self.discard[-1] not in self.fresh_discards):
                found.append(t.take_discard[p])
            if self.wild_supply > 0:
                found += self._wild_options(p)
            found += self._play_options(p)
            if not found:
                found.append(t.passes[p])
            if seat.feathers > 0:
                found += self._feather_options(p)
            return found
        if kind is None:                              # both actions made: discard to the limit, end the turn
            return self._turn_end_options(p)
        if kind == "draw":
            return self._draw_options(p) + ([t.done[p]] if self.draw_left == 0 else [])
        if kind == "take":
            return self._take_options(p) + ([t.done[p]] if self.take_left == 0 else [])
        if kind == "refill":
            return self._draw_options(p, Refill)
        if kind == "wild":
            put = t.put_wilds[p]
            return [put[k][v] for k, v in self.wild_spots(p, self._wild_exclude(self.wild_from))]
        if kind == "play":
            found = []
            if not self.paying and (self.rules.play_many_cards or self.play_placed == 0):
                found += self._play_options(p)
            if self.owed() > 0:
                pays = t.pays[p]
                found += [pays[i] for i in seat.faces]
            elif not self.paying:
                found.append(t.done[p])
            return found
        return self._turn_end_options(p)

    def _turn_end_options(self, p: int) -> list[Action]:
        seat = self.seats[p]
        if len(seat.hand) > self.hand_limit(p):
            discards = self.t.discards[p]
            return [discards[i] for i in seat.faces] + self._feather_options(p)
        return [self.t.end_turn[p]]

    # ----------------------------------------------------------------------------------------- apply

    def check(self, action: Any) -> None:
        """Raise :class:`IllegalAction` unless ``action`` is legal now, with the code of its cause
        (:data:`REFUSALS`)."""
        if not isinstance(action, Action):
            raise InvalidAction("not a 15 Days action")
        if self.over is not None:
            raise IllegalAction("the game is over", "game_over")
        if action.player != self.active:
            raise IllegalAction(f"it is player {self.active}'s turn, not player {action.player}'s", "not_your_turn")
        if action in self.legal_actions():
            return
        raise IllegalAction(self._why_not(action), self._reason(action))

    def _reason(self, action: Action) -> str:
        """The code (:data:`REFUSALS`) of why ``action`` of the active seat, not among :meth:`legal_actions`,
        is refused: the same conditions as the legal actions', asked in the order a player would look."""
        kind, p = self.pending, action.player
        if kind is not None and (type(action) is Discard or not self._fits_pending(action)):
            return "decision_pending"
        if isinstance(action, Feather):
            return self._feather_reason(action)
        if kind is None and self.actions_left == 0:
            if isinstance(action, EndTurn):
                return "hand_limit"
            if isinstance(action, Discard):
                return "not_in_hand" if self._first(self.seats[p], action.card) is None else "within_hand_limit"
            return "no_actions_left"
        if isinstance(action, (EndTurn, Discard)):
            return "actions_left"
        if kind is None and isinstance(action, (Refill, PutWild, Pay, Done)):
            return "nothing_open"
        if isinstance(action, (Draw, Refill)):
            return "no_such_pile" if not 0 <= action.pile < len(self.piles) else "pile_empty"
        if isinstance(action, Take):
            return self._take_reason(action)
        if isinstance(action, Done):
            return {"draw": "draws_left", "take": "takes_left"}.get(kind, "payment_owed")  # type: ignore[arg-type]
        if isinstance(action, Pay):
            return "not_in_hand" if self._first(self.seats[p], action.card) is None else "nothing_owed"
        if isinstance(action, TakeWild):
            return self._take_wild_reason(action)
        if isinstance(action, PutWild):
            return self._put_wild_reason(action)
        if isinstance(action, Pass):
            return "can_act"
        if kind == "play" and self.paying:
            return "paying"
        if kind == "play" and not self.rules.play_many_cards:
            return "one_card_per_play"
        try:
            self.play_check(p, action.card, action.corner)      # type: ignore[attr-defined]
        except IllegalAction as exc:
            return exc.reason
        raise AssertionError(f"{action} is not a legal action, for no cause the engine knows")

    def _take_reason(self, action: Take) -> str:
        if action.column is None:
            return "discard_empty" if not self.discard else "own_discard"
        return "no_such_column" if not 0 <= action.column < len(self.market) else "column_empty"

    def _feather_reason(self, action: Feather) -> str:
        if self.seats[action.player].feathers <= 0:
            return "no_feathers"
        if self.boost is not None:
            return "power_waiting"
        if self.owner.get(action.animal) == action.player:
            return "own_animal"
        if self.t.animal_power[action.animal] != HAND_LIMIT:
            return "no_actions_left"
        if not self.rules.feather_otter_raises_limit:
            return "otter_feather_off"
        return "limit_raised" if self.otter_turn else "within_hand_limit"

    def _take_wild_reason(self, action: TakeWild) -> str:
        if self.wild_supply <= 0:
            return "no_wild_in_supply"
        if len(action.cards) != self.rules.wild_discard_count:
            return "wild_card_count"
        seat = self.seats[action.player]
        hand = [self.t.face[card] for card in seat.hand]
        if any(hand.count(face) < action.cards.count(face) for face in action.cards):
            return "not_in_hand"
        if not all(any(c.season == face.season and face.value in c.cards for c in seat.corners)
                   for face in action.cards):
            return "not_on_board"
        if not self._has_wild_spot(action.player):
            return "no_wild_place"
        raise AssertionError(f"{action} is not a legal action, for no cause the engine knows")

    def _put_wild_reason(self, action: PutWild) -> str:
        corners = self.seats[action.player].corners
        if not 0 <= action.corner < len(corners):
            return "no_such_corner"
        if action.value not in self.t.value_set:
            return "bad_value"
        corner = corners[action.corner]
        if corner.wild is not None:
            return "corner_has_wild"
        if action.value in corner.cards:
            return "duplicate_value"
        if (action.corner, action.value) not in self.wild_spots(action.player):
            return "empty_corner"
        return "wild_left_corner"   # a place for a wild, but not for this one (displaced_wild_to)

    def _fits_pending(self, action: Action) -> bool:
        allowed = {"draw": (Draw, Done), "take": (Take, Done), "refill": (Refill,), "wild": (PutWild,),
                   "play": (Play, Pay, Done)}[self.pending]  # type: ignore[index]
        return isinstance(action, allowed)

    def _why_not(self, action: Action) -> str:
        if self.pending is not None and not self._fits_pending(action):
            waiting = {"draw": "the rest of the face-down draw", "take": "the second face-up take or done",
                       "refill": "the refill of market column %d" % self.refill_column,
                       "wild": "a place for the wild", "play": "more cards to play or the payment"}[self.pending]
            return f"{action} is not allowed now: first {waiting}"
        if isinstance(action, Play):
            try:
                self.play_check(action.player, action.card, action.corner)
            except IllegalAction as exc:
                return str(exc)
        if self.actions_left == 0 and self.pending is None and not isinstance(action, (Discard, EndTurn, Feather)):
            return "both actions of this turn are made: discard to the hand limit and end the turn"
        if isinstance(action, EndTurn) and self.actions_left > 0:
            return f"{self.actions_left} action(s) left this turn"
        if isinstance(action, EndTurn):
            return f"discard down to {self.hand_limit(action.player)} cards first (FD-8)"
        return f"{action} is not allowed now: {REFUSALS[self._reason(action)]}"

    def apply(self, action: Any) -> list[ev.Event]:
        """Check ``action`` and play it; return the events it caused."""
        self.check(action)
        return self.apply_trusted(action)

    def apply_trusted(self, action: Any) -> list[ev.Event]:
        """Play ``action``, taken from :meth:`legal_actions` of this state, without checking it again (random
        playouts and search); the same events and state as :meth:`apply`."""
        out: list[ev.Event] = []
        _HANDLERS[type(action)](self, action, out)
        return out

    def apply_quiet(self, action: Any) -> None:
        """:meth:`apply_trusted` without making the events (playouts that read none): the handlers are given no
        event list (``out`` None) and skip every event."""
        _HANDLERS[type(action)](self, action, None)

    # -- helpers of the handlers

    def _begin(self, name: str, out: list[ev.Event] | None) -> None:
        self.actions_left -= 1
        self.power, self.boost = self.boost, None
        if out is not None:
            out.append(ev.ActionStarted(self.active, name, self.actions_left, self.power))

    def _end_action(self, out: list[ev.Event] | None) -> None:
        self.pending = None
        self.power = None
        seat = self.seats[self.active]
        if (seat.board or self.board(self.active)).complete:       # all_sets_complete
            if self.rules.end_on_complete_sets == "immediately":
                self._finish("complete_sets", out)
            else:
                self.complete_at_end = True

    def _pile_emptied(self, pile: int, out: list[ev.Event] | None) -> None:
        """Draw pile ``pile`` has just given its last card: the end trigger (FD-9.2). Told after the event of
        the card taken from it."""
        triggers = self.trigger is None
        if triggers:
            self.trigger = self.active
        if out is not None:
            out.append(ev.DrawPileEmptied(self.active, pile, triggers))

    def _to_discard(self, card: int, why: str, out: list[ev.Event] | None) -> None:
        self.seats[self.active].remove(card)
        self.discard.append(card)
        self.fresh_discards.append(card)
        if out is not None:
            out.append(ev.CardDiscarded(self.active, self.t.ids[card], self.t.season[card], self.t.value[card], why))

    def _board_changed(self, season: str | None, out: list[ev.Event] | None) -> None:
        """FD-6.2 after a change of the active seat's board that changed the count of ``season`` (None: no
        count changed, e.g. a wild that does not count for animals): that season with ``steal_check`` =
        "changed_season", every season, in data order, with "every_season" (AMB-FD-12)."""
        if self.rules.steal_check == "every_season":
            for other in self.t.animal_of_season:
                self._update_animal(other, out)
        elif season is not None:
            self._update_animal(season, out)

    def _update_animal(self, season: str, out: list[ev.Event] | None) -> None:
        """FD-6.2 for ``season`` on the active seat's board: the animal from the supply at the threshold, from
        its owner at an equal (``steal_on_equal``) or greater count."""
        animal = self.t.animal_of_season.get(season)
        if animal is None:
            return
        me = self.active
        holder = self.owner.get(animal)
        if holder == me:
            return
        mine = self.season_count(me, season)
        if mine < self.rules.animal_threshold:
            return
        if holder is not None:
            theirs = self.season_count(holder, season)
            if mine < theirs or (mine == theirs and not self.rules.steal_on_equal):
                return
        self.owner[animal] = me
        if out is not None:
            out.append(ev.AnimalTaken(me, animal, holder, mine))
        if holder is not None and self.feather_supply > 0:
            self.feather_supply -= 1
            self.seats[holder].feathers += 1
            if out is not None:
                out.append(ev.FeatherGained(holder, self.feather_supply))

    def _await_wild(self, why: str, source: int | None, out: list[ev.Event] | None) -> bool:
        """Ask for a place for a wild (that left corner ``source``, if any); False (and the wild back to the
        supply) when there is none."""
        if not self.wild_spots(self.active, self._wild_exclude(source)):
            self.wild_supply += 1
            if out is not None:
                out.append(ev.WildReturned(self.active, source))
            return False
        self.pending, self.wild_why, self.wild_from = "wild", why, source
        return True

    def _after_take(self, out: list[ev.Event] | None) -> None:
        if (self.take_left or self.take_extra) and self._take_options(self.active):
            self.pending = "take"
        else:
            self._end_action(out)

    def _start_turn(self, out: list[ev.Event] | None) -> None:
        self.actions_left = self.rules.actions_per_turn
        self.boost = self.power = None
        self.otter_turn = False
        self.fresh_discards = []
        self.pending = None
        if out is not None:
            out.append(ev.TurnStarted(self.active, self.turn, self.final_left is not None))

    def _next_turn(self, out: list[ev.Event] | None) -> None:
        self.pending = None
        if self.trigger is not None:
            self.final_left = self.players - 1 if self.final_left is None else self.final_left - 1
            if self.final_left <= 0:
                self._finish("draw_pile", out)
                return
        self.active = (self.active + 1) % self.players
        self.turn += 1
        self._start_turn(out)

    def _finish(self, reason: str, out: list[ev.Event] | None) -> None:
        self.over = reason
        self.pending = None
        if out is not None:
            outcome = self.outcome()
            assert outcome is not None
            out.append(ev.GameOver(reason, outcome.winners, tuple(s.score for s in outcome.standings),
                                   outcome.decided_by))

    # -- one handler per action kind

    def _on_draw(self, action: Draw, out: list[ev.Event] | None) -> None:
        if self.pending is None:
            self._begin("draw", out)
            self.draw_left = self.rules.draw_count
            self.draw_extra = (self.rules.squirrel_draw_count - self.rules.draw_count
                               if self.has_power(DRAW_DOWN) else 0)
            self.pending = "draw"
        source = self.piles[action.pile]
        card = source.pop()
        if out is not None:
            out.append(ev.CardDrawn(self.active, action.pile, len(source)))
        if not source:
            self._pile_emptied(action.pile, out)
        self.seats[self.active].add(card)
        if self.draw_left:
            self.draw_left -= 1
        else:
            self.draw_extra -= 1
        if not (self.draw_left or self.draw_extra) or not any(self.piles):
            self._end_action(out)

    def _on_take(self, action: Take, out: list[ev.Event] | None) -> None:
        if self.pending is None:
            self._begin("take", out)
            self.take_left = self.rules.take_count
            self.take_extra = (self.rules.rabbit_take_count - self.rules.take_count
                               if self.has_power(TAKE_UP) else 0)
        source = self.discard if action.column is None else self.market[action.column]
        card = source.pop()
        if action.column is None and card in self.fresh_discards:
            self.fresh_discards.remove(card)
        self.seats[self.active].add(card)
        if out is not None:
            out.append(ev.CardTaken(self.active, action.column, self.t.ids[card], self.t.season[card],
                                    self.t.value[card]))
        if self.take_left:
            self.take_left -= 1
        else:
            self.take_extra -= 1
        if action.column is not None and not source and any(self.piles):
            self.pending = "refill"
            self.refill_column, self.refill_left = action.column, self.rules.market_column_height
            return
        self._after_take(out)

    def _on_refill(self, action: Refill, out: list[ev.Event] | None) -> None:
        column = self.refill_column
        source = self.piles[action.pile]
        card = source.pop()
        if out is not None:
            out.append(ev.ColumnRefilled(self.active, column, action.pile, len(source)))
        if not source:
            self._pile_emptied(action.pile, out)
        self.market[column].append(card)
        self.refill_left -= 1
        if self.refill_left == 0 or not any(self.piles):
            self._after_take(out)

    def _on_take_wild(self, action: TakeWild, out: list[ev.Event] | None) -> None:
        self._begin("wild", out)
        seat = self.seats[self.active]
        for face in action.cards:
            card = self._first(seat, face)
            assert card is not None
            self._to_discard(card, "wild", out)
        self.wild_supply -= 1
        if out is not None:
            out.append(ev.WildTaken(self.active, "action", self.wild_supply))
        self._await_wild("action", None, out)

    def _on_put_wild(self, action: PutWild, out: list[ev.Event] | None) -> None:
        seat = self.seats[self.active]
        corner = seat.corners[action.corner]
        corner.wild = action.value
        if seat.board is not None and not seat.board.wild_placed(action.corner):
            seat.board = None
        if out is not None:
            out.append(ev.WildPlaced(self.active, action.corner, action.value, self.wild_from))
        why = self.wild_why
        if why != "move":           # a wild from the supply is played; a displaced one was counted already
            seat.wilds_played += 1
        self._board_changed(corner.season if self.rules.wilds_count_for_animals else None, out)
        if why == "move":
            self.pending = "play"
        elif why == "action":
            self._end_action(out)
        else:                                              # the bonus wild after the turn (FD-9.2)
            if self.all_sets_complete(self.active):         # the turn is over already: either flag ends here
                self._finish("complete_sets", out)
            else:
                self._next_turn(out)

    def _on_play(self, action: Play, out: list[ev.Event] | None) -> None:
        # Legal (from legal_actions, or checked by apply): the card and the cost without play_check's checks.
        seat = self.seats[self.active]
        face, k = action.card, action.corner
        season, value = face.season, face.value
        card = self._first(seat, face)
        assert card is not None
        corner = seat.corners[k]
        cost = placement_cost(seat.directions[k], corner, value)
        if self.pending is None:
            self._begin("play", out)
            self.pending = "play"
            self.play_total = self.play_placed = self.play_paid = 0
            self.play_discount = self.discount()
            self.paying = False
        seat.remove(card)
        opened = corner.season is None
        replaced = corner.wild == value
        corner.cards[value] = card
        corner.season = season
        seat.placed(card)
        if replaced:
            corner.wild = None
        if seat.board is not None:
            seat.board.placed(k, card, opened)
        self.play_total += cost
        self.play_placed += 1
        if out is not None:
            out.append(ev.CardPlayed(self.active, self.t.ids[card], season, value, k, cost, replaced))
        self._board_changed(season, out)
        if replaced:
            self._await_wild("move", k, out)

    def _play_cost_event(self, out: list[ev.Event] | None) -> None:
        discount = min(self.play_discount, self.play_total)
        if out is not None:
            out.append(ev.PlayCost(self.active, self.play_total, discount, self.play_total - discount))

    def _on_pay(self, action: Pay, out: list[ev.Event] | None) -> None:
        if not self.paying:
            self.paying = True
            if out is not None:
                self._play_cost_event(out)
        card = self._first(self.seats[self.active], action.card)
        assert card is not None
        self._to_discard(card, "payment", out)
        self.play_paid += 1
        if self.owed() == 0:
            self._end_action(out)

    def _on_done(self, action: Done, out: list[ev.Event] | None) -> None:
        if self.pending == "play":
            self._play_cost_event(out)
        self._end_action(out)

    def _on_feather(self, action: Feather, out: list[ev.Event] | None) -> None:
        seat = self.seats[self.active]
        seat.feathers -= 1
        if self.rules.feather_returns_to_supply:
            self.feather_supply += 1
        else:
            self.feathers_out += 1
        if out is not None:
            out.append(ev.FeatherSpent(self.active, action.animal, self.rules.feather_returns_to_supply))
        if self.t.animal_power[action.animal] == HAND_LIMIT:
            self.otter_turn = True
        else:
            self.boost = action.animal

    def _on_discard(self, action: Discard, out: list[ev.Event] | None) -> None:
        card = self._first(self.seats[self.active], action.card)
        assert card is not None
        self._to_discard(card, "hand_limit", out)

    def _on_end_turn(self, action: EndTurn, out: list[ev.Event] | None) -> None:
        if out is not None:
            out.append(ev.TurnEnded(self.active, len(self.seats[self.active].hand)))
        if self.complete_at_end:
            self._finish("complete_sets", out)
            return
        if self.trigger == self.active and not self.bonus_done:
            self.bonus_done = True
            if self.rules.bonus_wild_on_pile_end and self.wild_supply > 0:
                self.wild_supply -= 1
                if out is not None:
                    out.append(ev.WildTaken(self.active, "bonus", self.wild_supply))
                if self._await_wild("bonus", None, out):
                    return
        self._next_turn(out)

    def _on_pass(self, action: Pass, out: list[ev.Event] | None) -> None:
        self._begin("pass", out)
        self._end_action(out)

    # ----------------------------------------------------------------------------------------- snapshots

    def to_snapshot(self) -> dict[str, Any]:
        """The whole state as its snapshot (docs/games/fifteen_days/protocol.md; :mod:`.snapshot` declares it)."""
        return snapshot.write(self)

    def view(self, player: int) -> dict[str, Any]:
        """What seat ``player`` may know (FD-7.1): its own hand, the others' hand sizes, the piles' sizes and
        top backs; every board, the market, the discard pile, animals, feathers and supplies."""
        snap = self.to_snapshot()
        del snap["rng"]
        snap["draw_piles"] = [{"size": len(p), "top_back": self.t.back[p[-1]] if p else None} for p in self.piles]
        snap["removed"] = len(self.removed)
        for seat, entry in enumerate(snap["players"]):
            if seat != player:
                entry["hand"] = len(entry["hand"])
        snap["viewer"] = player
        snap["legal"] = [str(a) for a in self.legal_actions()] if self.active == player else []
        return snap

    @classmethod
    def from_snapshot(cls, data: FifteenDaysData, snapshot_json: Any) -> "GameState":
        """The state of a snapshot, checked by :func:`.snapshot.read` (a bad one raises ``SnapshotError`` naming
        its path) and built from its checked tree."""
        return _from_tree(data, snapshot.read(data, snapshot_json))


_HANDLERS = {
    Draw: GameState._on_draw, Take: GameState._on_take, Refill: GameState._on_refill,
    TakeWild: GameState._on_take_wild, PutWild: GameState._on_put_wild, Play: GameState._on_play,
    Pay: GameState._on_pay, Done: GameState._on_done, Feather: GameState._on_feather,
    Discard: GameState._on_discard, EndTurn: GameState._on_end_turn, Pass: GameState._on_pass,
}


# ------------------------------------------------------------------------------------------------ new game

def new_game(data: FifteenDaysData, players: int, *, mode: str | None = None, seed: int = 0) -> GameState:
    """FD-1: the 2-player removal, the deal, the market, the discard, two draw piles, the supplies, the first
    player; ``seed`` decides every shuffle."""
    info, rules = data.info, data.rules
    if not info.min_players <= players <= info.max_players:
        raise InvalidAction(f"15 Days is for {info.min_players}-{info.max_players} players, not {players}")
    mode = mode or info.default_mode
    if mode not in info.modes:
        raise InvalidAction(f"unknown mode {mode!r}: expected {', '.join(info.modes)}")
    state = GameState(data)
    state.mode = mode
    t = state.t
    rng = SeededRandom(seed)
    deck = list(range(len(t.ids)))
    rng.shuffle(deck)
    if players == 2:
        key = t.back if rules.two_player_removal == "by_back" else t.season
        groups = ("summer", "autumn", "winter")
        for group in groups:
            taken = [c for c in deck if key[c] == group][:rules.two_player_removed_each]
            state.removed.extend(taken)
        gone = set(state.removed)
        deck = [c for c in deck if c not in gone]
    for seat in range(players):
        directions = data.board_of_seat(seat).corners
        hand = [deck.pop() for _ in range(rules.starting_hand)]
        state.seats.append(Seat(hand, rules.feathers_per_player, [Corner() for _ in directions], directions,
                                t))
    state.market = [[deck.pop() for _ in range(rules.market_column_height)] for _ in range(rules.market_columns)]
    state.discard = [deck.pop()]
    half = (len(deck) + 1) // 2                   # FD-1.6: the larger half is the first (left) pile
    state.piles = [deck[len(deck) - half:], deck[:len(deck) - half]]
    state.piles += [[] for _ in range(rules.draw_piles - 2)]
    state.wild_supply = min(rules.wild_supply_per_player * players, data.wild_total)
    state.feather_supply = data.feather_total - rules.feathers_per_player * players
    state.owner = {a: None for a in t.animals}
    state.active = rng.randbelow(players) if rules.first_player == "random" else 0
    state.rng = rng
    state._start_turn([])
    return state


def _from_tree(data: FifteenDaysData, tree: Mapping[str, Any]) -> GameState:
    """The state a checked snapshot tree (:func:`.snapshot.read`) describes."""
    state = GameState(data)
    t = state.t
    index = t.index
    state.mode = tree["mode"]
    state.rng = SeededRandom.from_text(tree["rng"])
    for seat_no, entry in enumerate(tree["players"]):
        corners = []
        for raw in entry["corners"]:
            corner = Corner(wild=raw["wild"])
            for card_id in raw["cards"]:
                card = index[card_id]
                corner.season = t.season[card]
                corner.cards[t.value[card]] = card
            corners.append(corner)
        seat = Seat([index[c] for c in entry["hand"]], entry["feathers"], corners,
                    data.board_of_seat(seat_no).corners, t)
        seat.wilds_played = entry["wilds_played"]
        state.seats.append(seat)
    state.active, state.turn, state.actions_left = tree["active"], tree["turn"], tree["actions_left"]
    state.boost, state.power, state.otter_turn = tree["boost"], tree["power"], tree["otter_turn"]
    state.piles = [[index[c] for c in pile] for pile in tree["draw_piles"]]
    state.market = [[index[c] for c in column] for column in tree["market"]]
    state.discard = [index[c] for c in tree["discard"]]
    state.removed = [index[c] for c in tree["removed"]]
    state.fresh_discards = [index[c] for c in tree["fresh_discards"]]
    state.wild_supply, state.feather_supply = tree["wild_supply"], tree["feather_supply"]
    state.feathers_out = tree["feathers_out"]
    state.owner = dict(tree["animals"])
    end = tree["end"]
    state.trigger, state.final_left = end["trigger"], end["final_turns_left"]
    state.bonus_done, state.complete_at_end = end["bonus_given"], end["complete_at_end"]
    state.over = tree["over"]
    pending = tree["pending"]
    if pending is not None:
        kind = state.pending = pending["kind"]
        if kind == "draw":
            state.draw_left, state.draw_extra = pending["left"], pending["extra"]
        elif kind == "take":
            state.take_left, state.take_extra = pending["left"], pending["extra"]
        elif kind == "refill":
            state.refill_column, state.refill_left = pending["column"], pending["left"]
            state.take_left, state.take_extra = pending["take_left"], pending["take_extra"]
        else:
            play = pending if kind == "play" else pending["play"]
            if kind == "wild":
                state.wild_why, state.wild_from = pending["why"], pending["from"]
            if play is not None:
                state.play_total, state.play_placed, state.play_paid = play["total"], play["placed"], play["paid"]
                state.play_discount, state.paying = play["discount"], play["paying"]
    return state
