"""Typed, frozen records of the Four Humours game data.

These are what ``bridge.rules.four_humours.data`` builds from ``assets/four_humours/*.toml`` (or a designer's
copy of that folder) after validating it; the engine, the renderer and the save builder all read these records and never
the files.  Nothing here knows about files: a record is only a value.

Vocabulary (see ``docs/games/four_humours/rules.md``): a *scene card* has citizen *slots*, each accepting two
*humours*; a card is resolved by walking an ordered list of *steps*; winners go to *cells* of a *board*
(the kingdom map or a player's fief), cells being joined by typed *edges*.  The game's id, its phases and the
reasons it ends are here too: the state (``state.py``) and its snapshot (``snapshot.py``) both speak them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

from bridge.rules.game import LANGUAGES, GameMeta, Names
from bridge.rules.values import plain_repr

HUMOURS: tuple[str, ...] = ("choleric", "sanguine", "melancholic", "phlegmatic")
"""The four humours in their canonical order (also the tie-break order of FH-10.4)."""

EDGE_KINDS: tuple[str, ...] = ("path", "bridge")
MODES: tuple[str, ...] = ("kingdom", "fief")

GAME_ID = "four-humours"
"""The game's id: its name, the GAME argument and the snapshot envelope's ``"game"``."""


class Phase(str, enum.Enum):
    """Where a game stands: a round's placement, its resolution (mid-ruling), or the game over."""

    PLACEMENT = "placement"
    RESOLUTION = "resolution"
    ENDED = "ended"


class Termination(str, enum.Enum):
    """Why the game ended (FH-10.1 … 10.3)."""

    PARTIES_RESOLVED = "parties_resolved"
    SCENE_DECK_EXHAUSTED = "scene_deck_exhausted"
    POTIONS_EXHAUSTED = "potions_exhausted"


class Outcome(str, enum.Enum):
    """What a matching resolution step does to the potions it counts."""

    WIN = "win"
    DISCARD = "discard"
    SNEAK = "sneak"


COUNT_OPS: tuple[str, ...] = ("eq", "gte", "lte", "between")


@plain_repr
@dataclass(frozen=True)
class Count:
    """A predicate on ``k``, the number of face-up potions of one humour on a card.

    ``k == 0`` never matches (rules spec FH-5.5): a step speaks of potions that are there.
    """

    op: str
    low: int
    high: int | None = None

    def matches(self, k: int) -> bool:
        if k <= 0:
            return False
        if self.op == "eq":
            return k == self.low
        if self.op == "gte":
            return k >= self.low
        if self.op == "lte":
            return k <= self.low
        return self.low <= k <= (self.high if self.high is not None else self.low)

    def to_json(self) -> dict:
        if self.op == "between":
            return {"between": [self.low, self.high]}
        return {self.op: self.low}

    def __str__(self) -> str:
        symbols = {"eq": "==", "gte": ">=", "lte": "<="}
        if self.op == "between":
            return f"{self.low}..{self.high}"
        return f"{symbols[self.op]}{self.low}"


@plain_repr
@dataclass(frozen=True)
class Step:
    """One line of a win-condition list: if ``count`` holds for ``humour``, apply ``outcome``."""

    humour: str
    count: Count
    outcome: Outcome

    def to_json(self) -> dict:
        return {"humour": self.humour, "count": self.count.to_json(), "outcome": self.outcome.value}


@dataclass(frozen=True)
class HumourInfo:
    """Display data of a humour: names and the potion colour (``#rrggbb``)."""

    id: str
    name: Names
    colour: str


@dataclass(frozen=True)
class CitizenType:
    """A kind of scene participant.  ``humours`` is the pair it accepts, or ``None`` for jokers (animals)."""

    id: str
    name: Names
    humours: tuple[str, str] | None
    joker: bool = False


@plain_repr
@dataclass(frozen=True)
class Slot:
    """A citizen on a scene card or party tile: one potion of one of ``humours`` may be placed on it."""

    citizen: str
    humours: tuple[str, str]
    label: Names | None = None


@plain_repr
@dataclass(frozen=True)
class SceneCard:
    """A scene card.  Location scenes name their map ``cell``; animal scenes only their ``zone``."""

    id: str
    title: Names
    kind: str  # "location" | "animal"
    zone: str
    cell: str | None
    slots: tuple[Slot, ...]
    resolution: tuple[Step, ...] | None = None

    @property
    def is_animal(self) -> bool:
        return self.kind == "animal"


@plain_repr
@dataclass(frozen=True)
class PartyTile:
    """A party tile of the party row; ``order`` is its resolution order (0 first)."""

    id: str
    title: Names
    order: int
    estate: str | None
    slots: tuple[Slot, ...]
    resolution: tuple[Step, ...] | None = None


GOAL_PREDICATE_KINDS: tuple[str, ...] = (
    "zones_covered",
    "bridge_pairs",
    "connected_cells",
    "cells_in_one_zone",
    "stack_on_cell",
    "citizen_types_covered",
    "fief_line",
    "all",
    "any",
)
"""The goal DSL of rules spec §2.7; the engine evaluates each kind in ``goals.py``."""


@plain_repr
@dataclass(frozen=True)
class GoalPredicate:
    """A node of the goal DSL.

    ``kind`` is one of :data:`GOAL_PREDICATE_KINDS`.  Leaf kinds use ``min`` (and ``via`` for
    ``connected_cells``; ``length`` and ``same_type`` for ``fief_line``); ``all``/``any`` use ``parts``.
    """

    kind: str
    min: int | None = None
    via: tuple[str, ...] = EDGE_KINDS
    length: int | None = None
    same_type: bool = False
    parts: tuple["GoalPredicate", ...] = ()

    def to_json(self) -> dict:
        if self.kind in ("all", "any"):
            return {self.kind: [p.to_json() for p in self.parts]}
        if self.kind == "connected_cells":
            return {self.kind: {"min": self.min, "via": list(self.via)}}
        if self.kind == "fief_line":
            return {self.kind: {"length": self.length, "same_type": self.same_type}}
        return {self.kind: {"min": self.min}}


@plain_repr
@dataclass(frozen=True)
class Goal:
    """A goal card of one mode; ``predicate`` is checked per player on that player's own potions."""

    id: str
    mode: str
    title: Names
    text: Names
    predicate: GoalPredicate


@plain_repr
@dataclass(frozen=True)
class Cell:
    """A cell (location) of a board.  Fief cells carry the ``citizen`` type they house."""

    id: str
    name: Names
    tile: str
    citizen: str | None = None
    pos: tuple[float, float] | None = None  # centre in board units, 0..1 from the board's top-left


@plain_repr
@dataclass(frozen=True)
class Edge:
    """An undirected connection between two cells, drawn as a path line or a bridge."""

    a: str
    b: str
    kind: str


@plain_repr
@dataclass(frozen=True)
class Tile:
    """A map tile (a *zone*) and where it lies in the fixed layout."""

    id: str
    name: Names
    col: int
    row: int
    rotation: int = 0


@plain_repr
@dataclass(frozen=True)
class Board:
    """A graph of cells: the kingdom map (tiles = zones) or one fief board (a single tile)."""

    id: str
    name: Names
    tiles: tuple[Tile, ...]
    cells: tuple[Cell, ...]
    edges: tuple[Edge, ...]

    @cached_property
    def cell_by_id(self) -> Mapping[str, Cell]:
        return {c.id: c for c in self.cells}

    @cached_property
    def neighbours(self) -> Mapping[str, tuple[str, ...]]:
        """Cell id → adjacent cell ids (by path or bridge), in data order."""
        adjacent: dict[str, list[str]] = {c.id: [] for c in self.cells}
        for e in self.edges:
            if e.b not in adjacent[e.a]:
                adjacent[e.a].append(e.b)
            if e.a not in adjacent[e.b]:
                adjacent[e.b].append(e.a)
        return {k: tuple(v) for k, v in adjacent.items()}

    @cached_property
    def cells_of_tile(self) -> Mapping[str, tuple[str, ...]]:
        """Tile id → its cell ids in data order."""
        result: dict[str, list[str]] = {t.id: [] for t in self.tiles}
        for c in self.cells:
            result.setdefault(c.tile, []).append(c.id)
        return {k: tuple(v) for k, v in result.items()}

    @cached_property
    def cell_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.cells)

    @cached_property
    def bridges(self) -> tuple[tuple[str, str], ...]:
        """The two end cells of every ``bridge`` edge, in data order."""
        return tuple((e.a, e.b) for e in self.edges if e.kind == "bridge")

    @cached_property
    def _joined(self) -> dict[tuple[str, ...], Mapping[str, tuple[str, ...]]]:
        return {}

    def joined_by(self, via: tuple[str, ...]) -> Mapping[str, tuple[str, ...]]:
        """Cell id → the cells an edge of one of the kinds ``via`` joins it to (computed once per ``via``)."""
        found = self._joined.get(via)
        if found is None:
            adjacent: dict[str, list[str]] = {c.id: [] for c in self.cells}
            for e in self.edges:
                if e.kind in via:
                    adjacent[e.a].append(e.b)
                    adjacent[e.b].append(e.a)
            found = self._joined[via] = {k: tuple(v) for k, v in adjacent.items()}
        return found


@dataclass(frozen=True)
class Rules:
    """Every rule flag of ``game.toml`` ``[rules]``; each AMB-FH id is documented in docs/games/four_humours/rules.md."""

    bag_composition: Mapping[str, int] = field(
        default_factory=lambda: {"choleric": 5, "sanguine": 5, "melancholic": 5, "phlegmatic": 5}
    )  # AMB-FH-01
    hand_size: int = 4
    draw_after_place: bool = True  # AMB-FH-02
    per_card_resolution: bool = True  # AMB-FH-03
    animal_scope: str = "zone"  # AMB-FH-04: "zone" | "any"
    animal_sneak_scope: str = "zone"  # AMB-FH-04: "zone" | "any" | "bag"
    map_layout: str = "fixed"  # AMB-FH-05: only "fixed" (layout from map.toml)
    party_winner_target: str = "any_cell"  # AMB-FH-06: "any_cell" | "bag"
    party_sneak_target: str = "bag"  # AMB-FH-06: "bag" | "any_cell"
    next_round_starter: str = "left_of_last"  # AMB-FH-07: "left_of_last" | "first_player" | "rotate"
    fief_winner_target: str = "matching_type"  # AMB-FH-08: "matching_type" | "any_cell"
    fief_sneak_target: str = "adjacent_to_matching"  # AMB-FH-08: "adjacent_to_matching" | "bag"
    passes_to_end_round: str = "all_players"  # AMB-FH-09: "all_players" (N consecutive) | "each_once"
    goals_per_game: int = 4  # AMB-FH-10
    resolve_all_scenes: bool = True  # AMB-FH-11: false = only completely filled cards resolve
    party_limit: int = 1  # AMB-FH-12
    party_limit_two_players: int = 2  # AMB-FH-12
    party_limit_scope: str = "per_player"  # AMB-FH-12: "per_player" | "per_tile"
    end_when_short: str = "any"  # AMB-FH-13: "any" | "all"
    sneak_stops_resolution: bool = False  # AMB-FH-14
    first_player: str = "random"  # FH-2.6: "random" | "host"
    four_identical_redraw: bool = True  # FH-2.7
    round_ends_when_stuck: bool = True  # FH-4.3 [DEF]: no player has a legal placement
    tiebreak_counts_parties: bool = False  # FH-10.4 [DEF]
    scenes_face_up: int = 4  # FH-2.4
    default_resolution: tuple[Step, ...] = ()  # FH-5.5, the Principles of Personality (from game.toml)


@dataclass(frozen=True)
class FourHumoursData:
    """Everything the engine needs of one game folder, validated."""

    info: GameMeta
    rules: Rules
    humours: tuple[HumourInfo, ...]
    citizens: tuple[CitizenType, ...]
    scenes: tuple[SceneCard, ...]
    parties: tuple[PartyTile, ...]
    goals: tuple[Goal, ...]
    kingdom: Board
    fiefs: tuple[Board, ...]

    @cached_property
    def scene_by_id(self) -> Mapping[str, SceneCard]:
        return {s.id: s for s in self.scenes}

    @cached_property
    def party_by_id(self) -> Mapping[str, PartyTile]:
        return {p.id: p for p in self.parties}

    @cached_property
    def goal_by_id(self) -> Mapping[str, Goal]:
        return {g.id: g for g in self.goals}

    @cached_property
    def citizen_by_id(self) -> Mapping[str, CitizenType]:
        return {c.id: c for c in self.citizens}

    @cached_property
    def fief_by_id(self) -> Mapping[str, Board]:
        return {f.id: f for f in self.fiefs}

    def goals_of_mode(self, mode: str) -> tuple[Goal, ...]:
        return tuple(g for g in self.goals if g.mode == mode)

    def resolution_for(self, card: SceneCard | PartyTile) -> tuple[Step, ...]:
        """The step list that resolves ``card``: its own list when present and honoured, else the default."""
        if card.resolution is not None and self.rules.per_card_resolution:
            return card.resolution
        return self.rules.default_resolution
