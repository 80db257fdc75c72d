"""Four Humours game data: parsed TOML documents → validated, frozen records (:class:`FourHumoursData`).

Pure: :func:`parse_four_humours` reads no files (:mod:`bridge.catalog` reads them). Every problem with the data
raises :class:`bridge.rules.errors.DataError` naming the file, the entry and the field, e.g.::

    scenes.toml: scene "mill": slots[2].humours: "bile" is not a humour

Indexes in field paths count from 0. The files are documented in ``docs/games/four_humours/data-format.md``.
"""

from __future__ import annotations

import dataclasses
import marshal
import re
from collections.abc import Mapping
from typing import Any

from bridge.rules.errors import DataError
from bridge.rules.four_humours.records import (
    COUNT_OPS,
    EDGE_KINDS,
    GOAL_PREDICATE_KINDS,
    HUMOURS,
    MODES,
    Board,
    Cell,
    CitizenType,
    Count,
    Edge,
    FourHumoursData,
    Goal,
    GoalPredicate,
    HumourInfo,
    Outcome,
    PartyTile,
    Rules,
    SceneCard,
    Slot,
    Step,
    Tile,
)
from bridge.rules.game import TOOL_TABLES, GameMeta, parse_game_meta
from bridge.rules.game import Names
from bridge.rules.game import read_names as _names
from bridge.rules.reader import At as _DataAt
from bridge.rules.reader import array as _array
from bridge.rules.reader import boolean as _bool
from bridge.rules.reader import check_unique as _check_unique
from bridge.rules.reader import choice as _choice
from bridge.rules.reader import entry_name as _entry_name
from bridge.rules.reader import expect as _expect
from bridge.rules.reader import ident as _ident
from bridge.rules.reader import ID_PATTERN, MAX_ID_LENGTH
from bridge.rules.reader import integer as _int
from bridge.rules.reader import is_text as _is_text
from bridge.rules.reader import keys as _keys
from bridge.rules.reader import number as _number
from bridge.rules.reader import show as _show
from bridge.rules.reader import string as _string
from bridge.rules.reader import table as _table
from bridge.rules.reader import top as _top

__all__ = ["FOUR_HUMOURS_FILES", "RULE_CHOICES", "parse_four_humours"]

FOUR_HUMOURS_FILES: tuple[str, ...] = (
    "game.toml",
    "map.toml",
    "fiefs.toml",
    "scenes.toml",
    "parties.toml",
    "goals.toml",
)
"""The files of a Four Humours game folder, in the order they are validated."""

RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "animal_scope": ("zone", "any"),
    "animal_sneak_scope": ("zone", "any", "bag"),
    "map_layout": ("fixed",),
    "party_winner_target": ("any_cell", "bag"),
    "party_sneak_target": ("bag", "any_cell"),
    "next_round_starter": ("left_of_last", "first_player", "rotate"),
    "fief_winner_target": ("matching_type", "any_cell"),
    "fief_sneak_target": ("adjacent_to_matching", "bag"),
    "passes_to_end_round": ("all_players", "each_once"),
    "party_limit_scope": ("per_player", "per_tile"),
    "end_when_short": ("any", "all"),
    "first_player": ("random", "host"),
}
"""Allowed values of every text flag of :class:`Rules` (the lists in the comments of ``records.Rules``)."""

_RULE_MINIMUMS: dict[str, int] = {
    "hand_size": 1,
    "goals_per_game": 1,
    "party_limit": 1,
    "party_limit_two_players": 1,
    "scenes_face_up": 1,
}

MAX_PREDICATE_DEPTH = 16
"""Most ``all``/``any`` levels a goal predicate may nest (the sample goals use two)."""

_ROTATIONS = (0, 90, 180, 270)
_COLOUR_RE = re.compile(r"#[0-9a-fA-F]{6}\Z")
_EPSILON = 1e-9


def _At(file: str, entry: str | None = None, field: str | None = None) -> _DataAt:
    return _DataAt.data(file, entry, field)


def _title(at: _DataAt, value: Any) -> Names:
    """``read_names(at.sub("title"), value)``, the place made only for a value read_names may refuse."""
    if type(value) is dict and len(value) == 3:   # what read_names takes at once, taken alike
        en, uk, ru = value.get("en"), value.get("uk"), value.get("ru")
        if _is_text(en) and _is_text(uk) and _is_text(ru):
            return Names(en, uk, ru)
    return _names(at.sub("title"), value)


def _humour(at: _At, value: Any) -> str:
    text = _string(at, value)
    if text not in HUMOURS:
        raise at.error(f"{_show(text)} is not a humour")
    return text


def _humour_pair(at: _At, value: Any) -> tuple[str, str]:
    items = _array(at, value)
    if len(items) != 2:
        raise at.error(f"expected two humours, got {len(items)}")
    first, second = (_humour(at, item) for item in items)
    if first == second:
        raise at.error(f"the two humours must differ ({_show(first)} twice)")
    return first, second


# --------------------------------------------------------------------------------------------------------------
# Win-condition steps


def _count(at: _At, value: Any) -> Count:
    table = _table(at, value)
    if len(table) != 1:
        raise at.error(f"expected one of {', '.join(COUNT_OPS)} (exactly one key), got {len(table)} keys")
    (op, operand), = table.items()
    if op not in COUNT_OPS:
        raise at.error(f"{_show(op)} is not a count ({', '.join(COUNT_OPS)})")
    where = at.sub(op)
    if op != "between":
        return Count(op, _positive_count(where, operand))
    bounds = _array(where, operand)
    if len(bounds) != 2:
        raise where.error(f"expected [low, high], got {len(bounds)} value{'' if len(bounds) == 1 else 's'}")
    low, high = (_positive_count(where.sub(i), bound) for i, bound in enumerate(bounds))
    if low > high:
        raise where.error(f"low {low} is greater than high {high}")
    return Count(op, low, high)


def _positive_count(at: _At, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _expect(at, value, "a whole number of potions")
    if value < 1:
        raise at.error(f"{value} is not a positive count (a step speaks of potions that are there)")
    return value


def _steps(at: _At, value: Any) -> tuple[Step, ...]:
    items = _array(at, value, non_empty=True)
    steps = []
    for index, item in enumerate(items):
        step_at = at.sub(index)
        table = _table(step_at, item)
        _keys(step_at, table, ("humour", "count", "outcome"))
        humour = _humour(step_at.sub("humour"), table["humour"])
        count = _count(step_at.sub("count"), table["count"])
        outcome_text = _choice(step_at.sub("outcome"), table["outcome"], tuple(o.value for o in Outcome), "an outcome")
        steps.append(Step(humour, count, Outcome(outcome_text)))
    if not any(step.outcome is Outcome.WIN for step in steps):
        raise at.error("has no win step, so no potion could ever win")
    return tuple(steps)


# --------------------------------------------------------------------------------------------------------------
# game.toml


def _parse_info(doc: dict[str, Any]) -> GameMeta:
    """The shared ``[game]`` table, plus what Four Humours asks of it: its modes are kingdom and fief."""
    meta = parse_game_meta(doc)
    modes_at = _At("game.toml", "[game]").sub("modes")
    for mode in meta.modes:
        _choice(modes_at, mode, MODES, "a mode")
    return meta


def _parse_humours(doc: dict[str, Any]) -> tuple[HumourInfo, ...]:
    at = _At("game.toml", "[humours]")
    table = _table(at, doc["humours"])
    for key in table:
        if key not in HUMOURS:
            raise at.error(f"{_show(key)} is not a humour ({', '.join(HUMOURS)})")
    result = []
    for humour in HUMOURS:
        if humour not in table:
            raise at.error(f'missing humour "{humour}"')
        entry = _At("game.toml", f'humour "{humour}"')
        item = _table(entry, table[humour])
        _keys(entry, item, ("name", "colour"))
        colour = _string(entry.sub("colour"), item["colour"])
        if not _COLOUR_RE.match(colour):
            raise entry.sub("colour").error(f"{_show(colour)} is not a colour like #rrggbb")
        result.append(HumourInfo(humour, _names(entry.sub("name"), item["name"]), colour.lower()))
    return tuple(result)


def _parse_citizens(doc: dict[str, Any]) -> tuple[CitizenType, ...]:
    at = _At("game.toml", "[citizens]")
    table = _table(at, doc["citizens"])
    result = []
    for key, item in table.items():
        entry = _At("game.toml", f'citizen "{key}"')
        _ident(entry, key)
        item = _table(entry, item)
        _keys(entry, item, ("name",), ("humours", "joker"))
        name = _names(entry.sub("name"), item["name"])
        joker = _bool(entry.sub("joker"), item.get("joker", False))
        if joker:
            if "humours" in item:
                raise entry.sub("humours").error("a joker citizen has no fixed humours (its slots name them)")
            result.append(CitizenType(key, name, None, True))
        else:
            if "humours" not in item:
                raise entry.sub("humours").error("missing (or set joker = true)")
            result.append(CitizenType(key, name, _humour_pair(entry.sub("humours"), item["humours"]), False))
    if not any(not c.joker for c in result):
        raise at.error("no citizen type with a humour pair")
    return tuple(result)


def _parse_rules(doc: dict[str, Any]) -> Rules:
    at = _At("game.toml", "[rules]")
    table = _table(at, doc["rules"])
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    for key in table:
        if key not in fields:
            raise at.sub(key).error("unknown rule flag (see docs/games/four_humours/rules.md)")
    values: dict[str, Any] = {}
    for name, spec in fields.items():
        where = at.sub(name)
        if name not in table:
            raise where.error("missing")
        value = table[name]
        if name == "bag_composition":
            values[name] = _bag(where, value)
        elif name == "default_resolution":
            values[name] = _steps(where, value)
        else:
            default = spec.default if spec.default is not dataclasses.MISSING else spec.default_factory()
            if isinstance(default, bool):
                values[name] = _bool(where, value)
            elif isinstance(default, int):
                values[name] = _int(where, value, _RULE_MINIMUMS.get(name))
            elif name in RULE_CHOICES:
                values[name] = _choice(where, value, RULE_CHOICES[name], "an allowed value")
            else:  # a new Rules field this loader does not know how to check yet
                raise where.error("this loader does not know how to read this flag")
    rules = Rules(**values)
    total = sum(rules.bag_composition.values())
    if total < rules.hand_size:
        raise at.sub("bag_composition").error(f"a bag of {total} cannot fill a hand of {rules.hand_size}")
    return rules


def _bag(at: _At, value: Any) -> dict[str, int]:
    table = _table(at, value)
    for key in table:
        if key not in HUMOURS:
            raise at.sub(key).error(f"{_show(key)} is not a humour")
    bag = {}
    for humour in HUMOURS:
        if humour not in table:
            raise at.error(f'missing humour "{humour}"')
        count = table[humour]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise at.sub(humour).error(f"expected a count of potions (0 or more), got {_show(count)}")
        bag[humour] = count
    return bag


# --------------------------------------------------------------------------------------------------------------
# map.toml and fiefs.toml


def _pos(at: _At, value: Any) -> tuple[float, float]:
    items = _array(at, value)
    if len(items) != 2:
        raise at.error(f"expected [x, y], got {len(items)} value{'' if len(items) == 1 else 's'}")
    x, y = (_number(at.sub(i), item) for i, item in enumerate(items))
    for coordinate in (x, y):
        if not 0.0 <= coordinate <= 1.0:
            raise at.error(f"{coordinate:g} is outside the board (0..1)")
    return x, y


def _edges(file: str, value: Any, cell_ids: set[str], base: _At) -> tuple[Edge, ...]:
    """Edges below ``base`` (``edges[i]`` as the field, or as the entry when ``base`` has no entry)."""
    items = _array(base, value)
    edges: list[Edge] = []
    seen: dict[frozenset[str], int] = {}
    for index, item in enumerate(items):
        at = _At(file, f"edges[{index}]") if base.entry is None else base.sub(index)
        table = _table(at, item)
        _keys(at, table, ("a", "b", "kind"))
        ends = []
        for end in ("a", "b"):
            cell = _string(at.sub(end), table[end])
            if cell not in cell_ids:
                raise at.sub(end).error(f"{_show(cell)} is not a cell")
            ends.append(cell)
        if ends[0] == ends[1]:
            raise at.sub("b").error(f"an edge joins two different cells, not {_show(ends[0])} to itself")
        kind = _choice(at.sub("kind"), table["kind"], EDGE_KINDS, "an edge kind")
        pair = frozenset(ends)
        if pair in seen:
            raise at.error(f"duplicate edge between {_show(ends[0])} and {_show(ends[1])} (also edges[{seen[pair]}])")
        seen[pair] = index
        edges.append(Edge(ends[0], ends[1], kind))
    return tuple(edges)


def _check_connected(at: _At, cells: tuple[Cell, ...], edges: tuple[Edge, ...]) -> None:
    if not cells:
        return
    adjacent: dict[str, list[str]] = {c.id: [] for c in cells}
    for edge in edges:
        adjacent[edge.a].append(edge.b)
        adjacent[edge.b].append(edge.a)
    start = cells[0].id
    reached = {start}
    frontier = [start]
    while frontier:
        for neighbour in adjacent[frontier.pop()]:
            if neighbour not in reached:
                reached.add(neighbour)
                frontier.append(neighbour)
    for cell in cells:
        if cell.id not in reached:
            raise at.error(f"cell {_show(cell.id)} cannot be reached from cell {_show(start)}")


def _parse_map(doc: dict[str, Any]) -> Board:
    file = "map.toml"
    top = _top(file, doc, ("board", "tiles", "cells", "edges"))
    board_at = _At(file, "[board]")
    board = _table(board_at, top["board"])
    _keys(board_at, board, ("id", "name"))
    board_id = _ident(board_at.sub("id"), board["id"])
    board_name = _names(board_at.sub("name"), board["name"])

    tiles: list[Tile] = []
    tile_ats: list[_At] = []
    places: dict[tuple[int, int], str] = {}
    for index, item in enumerate(_array(_At(file, None, "tiles"), top["tiles"], non_empty=True)):
        at = _At(file, _entry_name("tile", "tiles", item, index))
        table = _table(at, item)
        _keys(at, table, ("id", "name", "col", "row"), ("rotation",))
        tile = Tile(
            _ident(at.sub("id"), table["id"]),
            _names(at.sub("name"), table["name"]),
            _int(at.sub("col"), table["col"], 0),
            _int(at.sub("row"), table["row"], 0),
            _int(at.sub("rotation"), table.get("rotation", 0)),
        )
        if tile.rotation not in _ROTATIONS:
            raise at.sub("rotation").error(f"{tile.rotation} is not one of 0, 90, 180, 270")
        if (tile.col, tile.row) in places:
            raise at.sub("col").error(f"col {tile.col}, row {tile.row} is also taken by tile {_show(places[tile.col, tile.row])}")
        places[tile.col, tile.row] = tile.id
        tiles.append(tile)
        tile_ats.append(at)
    _check_unique(tile_ats, [t.id for t in tiles], "tile", "tiles")
    columns = max(t.col for t in tiles) + 1
    rows = max(t.row for t in tiles) + 1
    tile_by_id = {t.id: t for t in tiles}

    cells: list[Cell] = []
    cell_ats: list[_At] = []
    for index, item in enumerate(_array(_At(file, None, "cells"), top["cells"], non_empty=True)):
        at = _At(file, _entry_name("cell", "cells", item, index))
        table = _table(at, item)
        _keys(at, table, ("id", "name", "tile", "pos"))
        ident = _ident(at.sub("id"), table["id"])
        name = _names(at.sub("name"), table["name"])
        tile_id = _string(at.sub("tile"), table["tile"])
        if tile_id not in tile_by_id:
            raise at.sub("tile").error(f"{_show(tile_id)} is not a tile")
        x, y = _pos(at.sub("pos"), table["pos"])
        tile = tile_by_id[tile_id]
        left, top_edge = tile.col / columns, tile.row / rows
        if not (left - _EPSILON <= x <= left + 1 / columns + _EPSILON
                and top_edge - _EPSILON <= y <= top_edge + 1 / rows + _EPSILON):
            raise at.sub("pos").error(f"[{x:g}, {y:g}] lies outside tile {_show(tile_id)} (col {tile.col}, row {tile.row})")
        cells.append(Cell(ident, name, tile_id, None, (x, y)))
        cell_ats.append(at)
    _check_unique(cell_ats, [c.id for c in cells], "cell", "cells")
    for tile, at in zip(tiles, tile_ats):
        if not any(c.tile == tile.id for c in cells):
            raise at.error("no cell lies on this tile")

    edges = _edges(file, top["edges"], {c.id for c in cells}, _At(file, None, "edges"))
    _check_connected(_At(file, None, "edges"), tuple(cells), edges)
    return Board(board_id, board_name, tuple(tiles), tuple(cells), edges)


def _parse_fiefs(doc: dict[str, Any], citizens: Mapping[str, CitizenType], info: GameMeta) -> tuple[Board, ...]:
    file = "fiefs.toml"
    top = _top(file, doc, ("fiefs",))
    humans = [c.id for c in citizens.values() if not c.joker]
    fiefs: list[Board] = []
    fief_ats: list[_At] = []
    for index, item in enumerate(_array(_At(file, None, "fiefs"), top["fiefs"])):
        at = _At(file, _entry_name("fief", "fiefs", item, index))
        table = _table(at, item)
        _keys(at, table, ("id", "name", "cells", "edges"))
        ident = _ident(at.sub("id"), table["id"])
        name = _names(at.sub("name"), table["name"])
        cells: list[Cell] = []
        first_index: dict[str, int] = {}
        cells_at = at.sub("cells")
        for cell_index, cell_item in enumerate(_array(cells_at, table["cells"], non_empty=True)):
            cell_at = cells_at.sub(cell_index)
            cell_table = _table(cell_at, cell_item)
            _keys(cell_at, cell_table, ("id", "name", "citizen", "pos"))
            cell_id = _ident(cell_at.sub("id"), cell_table["id"])
            if cell_id in first_index:
                raise cell_at.sub("id").error(f"duplicate cell id {_show(cell_id)} (also cells[{first_index[cell_id]}])")
            first_index[cell_id] = cell_index
            citizen = _string(cell_at.sub("citizen"), cell_table["citizen"])
            if citizen not in citizens:
                raise cell_at.sub("citizen").error(f"{_show(citizen)} is not a citizen type")
            if citizens[citizen].joker:
                raise cell_at.sub("citizen").error(f"{_show(citizen)} is a joker; fief cells house human citizens")
            cells.append(Cell(cell_id, _names(cell_at.sub("name"), cell_table["name"]), ident, citizen,
                              _pos(cell_at.sub("pos"), cell_table["pos"])))
        for citizen in humans:
            if not any(c.citizen == citizen for c in cells):
                raise cells_at.error(f'no cell houses citizen type "{citizen}" (FH-11.2 needs one for its winners)')
        edges = _edges(file, table["edges"], set(first_index), at.sub("edges"))
        _check_connected(at.sub("edges"), tuple(cells), edges)
        fiefs.append(Board(ident, name, (Tile(ident, name, 0, 0, 0),), tuple(cells), edges))
        fief_ats.append(at)
    _check_unique(fief_ats, [f.id for f in fiefs], "fief", "fiefs")
    if "fief" in info.modes and len(fiefs) < info.max_players:
        raise _At(file, None, "fiefs").error(
            f"{len(fiefs)} fief boards, but game.toml allows {info.max_players} players (one board each)"
        )
    return tuple(fiefs)


# --------------------------------------------------------------------------------------------------------------
# scenes.toml and parties.toml


def _slots_key(value: Any) -> bytes | str:
    """What names a slot list's TOML value exactly: its marshalled bytes (exact types, 1, 1.0, True and "1"
    apart; about twice as fast as its repr for a 10,000-card game), or its repr for values marshal refuses
    (dates)."""
    try:
        return marshal.dumps(value, 2)   # version 2: no back-references, so equal values give equal bytes
    except ValueError:
        return repr(value)


def _slots(at: _At, value: Any, citizens: Mapping[str, CitizenType],
           memo: dict[bytes | str, tuple[Slot, ...]] | None = None) -> tuple[Slot, ...]:
    """The slots of a card; with ``memo`` (one per parse, so one set of citizens), slot lists read before
    without error are given again by their text: a 10,000-card game has a few dozen kinds of slot list, and
    reading each one's 40,000 values cost a third of its parse. A list that fails is never kept, so every
    error is still raised at its own place."""
    if memo is not None:
        text = _slots_key(value)
        known = memo.get(text)
        if known is None:
            known = memo[text] = _slots(at, value, citizens)
        return known
    slots = []
    for index, item in enumerate(_array(at, value, non_empty=True)):
        slot_at = at.sub(index)
        table = _table(slot_at, item)
        _keys(slot_at, table, ("citizen",), ("humours", "label"))
        citizen_id = _string(slot_at.sub("citizen"), table["citizen"])
        citizen = citizens.get(citizen_id)
        if citizen is None:
            raise slot_at.sub("citizen").error(f"{_show(citizen_id)} is not a citizen type")
        humours_at = slot_at.sub("humours")
        if citizen.humours is None:
            if "humours" not in table:
                raise humours_at.error(f"missing: a slot of joker citizen {_show(citizen_id)} names its two humours")
            pair = _humour_pair(humours_at, table["humours"])
        else:
            pair = citizen.humours
            if "humours" in table:
                given = _humour_pair(humours_at, table["humours"])
                if set(given) != set(pair):
                    raise humours_at.error(
                        f"a {citizen_id} accepts {pair[0]} and {pair[1]}, not {given[0]} and {given[1]}"
                    )
        label = _names(slot_at.sub("label"), table["label"]) if "label" in table else None
        slots.append(Slot(citizen_id, pair, label))
    return tuple(slots)


def _parse_scenes(doc: dict[str, Any], kingdom: Board, citizens: Mapping[str, CitizenType],
                  rules: Rules) -> tuple[SceneCard, ...]:
    file = "scenes.toml"
    top = _top(file, doc, ("scenes",))
    tile_ids = {t.id for t in kingdom.tiles}
    scenes: list[SceneCard] = []
    ats: list[_At] = []
    slot_lists: dict[bytes | str, tuple[Slot, ...]] = {}
    kinds = ("location", "animal")
    # A 10,000-card game reads 60,000 fields here. Each one a reader accepts as it is is taken at once (the same
    # value the reader gives); only one it might refuse is read through it, with its place made then: the
    # errors, and the order they are found in, are the readers'.
    for index, item in enumerate(_array(_At(file, None, "scenes"), top["scenes"], non_empty=True)):
        at = _At(file, _entry_name("scene", "scenes", item, index))
        table = _table(at, item)
        _keys(at, table, ("id", "kind", "zone", "slots"), ("title", "cell", "resolution"))
        ident = table["id"]
        if not (type(ident) is str and len(ident) <= MAX_ID_LENGTH and ID_PATTERN.match(ident)):
            ident = _ident(at.sub("id"), ident)
        kind = table["kind"]
        if not (type(kind) is str and kind in kinds):
            kind = _choice(at.sub("kind"), kind, kinds, "a scene kind")
        zone = table["zone"]
        if not _is_text(zone):
            zone = _string(at.sub("zone"), zone)
        if zone not in tile_ids:
            raise at.sub("zone").error(f"{_show(zone)} is not a map tile")
        cell_id: str | None = None
        if kind == "animal":
            if "cell" in table:
                raise at.sub("cell").error("an animal scene has a zone but no cell")
            if "title" not in table:
                raise at.sub("title").error("missing")
            title = _title(at, table["title"])
        else:
            if "cell" not in table:
                raise at.sub("cell").error("missing: a location scene names its map cell")
            cell_id = table["cell"]
            if not _is_text(cell_id):
                cell_id = _string(at.sub("cell"), cell_id)
            cell = kingdom.cell_by_id.get(cell_id)
            if cell is None:
                raise at.sub("cell").error(f"{_show(cell_id)} is not a map cell")
            if cell.tile != zone:
                raise at.sub("cell").error(f"{_show(cell_id)} lies on tile {_show(cell.tile)}, not in zone {_show(zone)}")
            if "title" in table:
                title = _title(at, table["title"])
            else:
                title = cell.name
        # the slot lists read before, by their text (see _slots), looked up before a place is made for them
        slots = slot_lists.get(_slots_key(table["slots"]))
        if slots is None:
            slots = _slots(at.sub("slots"), table["slots"], citizens, slot_lists)
        resolution = _steps(at.sub("resolution"), table["resolution"]) if "resolution" in table else None
        scenes.append(SceneCard(ident, title, kind, zone, cell_id, slots, resolution))
        ats.append(at)
    _check_unique(ats, [s.id for s in scenes], "scene", "scenes")
    if len(scenes) < rules.scenes_face_up:
        raise _At(file, None, "scenes").error(
            f"{len(scenes)} scene cards, but [rules] scenes_face_up shows {rules.scenes_face_up}"
        )
    return tuple(scenes)


def _parse_parties(doc: dict[str, Any], citizens: Mapping[str, CitizenType]) -> tuple[PartyTile, ...]:
    file = "parties.toml"
    top = _top(file, doc, ("parties",))
    items = _array(_At(file, None, "parties"), top["parties"], non_empty=True)
    parties: list[PartyTile] = []
    ats: list[_At] = []
    order_owner: dict[int, str] = {}
    for index, item in enumerate(items):
        at = _At(file, _entry_name("party", "parties", item, index))
        table = _table(at, item)
        _keys(at, table, ("id", "title", "order", "slots"), ("estate", "resolution"))
        ident = _ident(at.sub("id"), table["id"])
        title = _names(at.sub("title"), table["title"])
        order = _int(at.sub("order"), table["order"])
        if not 0 <= order < len(items):
            raise at.sub("order").error(f"{order} is out of range: the {len(items)} tiles are ordered 0..{len(items) - 1}")
        if order in order_owner:
            raise at.sub("order").error(f"{order} is also the order of party {_show(order_owner[order])}")
        order_owner[order] = ident
        estate = None
        if "estate" in table:
            estate = _string(at.sub("estate"), table["estate"])
            if estate not in citizens:
                raise at.sub("estate").error(f"{_show(estate)} is not a citizen type")
        slots = _slots(at.sub("slots"), table["slots"], citizens)
        resolution = _steps(at.sub("resolution"), table["resolution"]) if "resolution" in table else None
        parties.append(PartyTile(ident, title, order, estate, slots, resolution))
        ats.append(at)
    _check_unique(ats, [p.id for p in parties], "party", "parties")
    return tuple(sorted(parties, key=lambda p: p.order))


# --------------------------------------------------------------------------------------------------------------
# goals.toml

_KINGDOM_ONLY = ("zones_covered", "cells_in_one_zone")
_FIEF_ONLY = ("citizen_types_covered", "fief_line")


def _predicate(at: _At, value: Any, mode: str, boards: tuple[Board, ...], depth: int = 1) -> GoalPredicate:
    if depth > MAX_PREDICATE_DEPTH:
        raise at.error(f"predicates nested more than {MAX_PREDICATE_DEPTH} levels deep")
    table = _table(at, value)
    if len(table) != 1:
        raise at.error(f"expected one predicate kind (exactly one key), got {len(table)} keys")
    (kind, params), = table.items()
    if kind not in GOAL_PREDICATE_KINDS:
        raise at.error(f"{_show(kind)} is not a goal predicate ({', '.join(GOAL_PREDICATE_KINDS)})")
    where = at.sub(kind)
    if kind in _KINGDOM_ONLY and mode != "kingdom":
        raise where.error(f"only kingdom goals can use {kind}")
    if kind in _FIEF_ONLY and mode != "fief":
        raise where.error(f"only fief goals can use {kind}")
    if kind in ("all", "any"):
        parts = _array(where, params, non_empty=True)
        return GoalPredicate(kind, parts=tuple(_predicate(where.sub(i), p, mode, boards, depth + 1)
                                               for i, p in enumerate(parts)))
    params = _table(where, params)
    board_word = "the map" if mode == "kingdom" else "a fief board"
    if kind == "fief_line":
        _keys(where, params, ("length",), ("same_type",))
        length = _int(where.sub("length"), params["length"], 2)
        smallest = min(len(b.cells) for b in boards) if boards else 0
        if length > smallest:
            raise where.sub("length").error(f"{length} can never be met: {board_word} has {smallest} cells")
        same_type = _bool(where.sub("same_type"), params.get("same_type", False))
        return GoalPredicate(kind, length=length, same_type=same_type)
    if kind == "connected_cells":
        _keys(where, params, ("min",), ("via",))
    else:
        _keys(where, params, ("min",))
    minimum = _int(where.sub("min"), params["min"], 1)
    limits = {
        "zones_covered": lambda b: (len(b.tiles), "tiles"),
        "cells_in_one_zone": lambda b: (max(len(v) for v in b.cells_of_tile.values()), "cells on its largest tile"),
        "bridge_pairs": lambda b: (sum(e.kind == "bridge" for e in b.edges), "bridges"),
        "connected_cells": lambda b: (len(b.cells), "cells"),
        "citizen_types_covered": lambda b: (len({c.citizen for c in b.cells}), "citizen types"),
    }
    if kind in limits and boards:
        limit, what = min((limits[kind](b) for b in boards), key=lambda pair: pair[0])
        if minimum > limit:
            raise where.sub("min").error(f"{minimum} can never be met: {board_word} has {limit} {what}")
    if kind == "connected_cells":
        via_at = where.sub("via")
        via = []
        for item in _array(via_at, params.get("via", list(EDGE_KINDS)), non_empty=True):
            text = _choice(via_at, item, EDGE_KINDS, "an edge kind")
            if text in via:
                raise via_at.error(f"{_show(text)} is listed twice")
            via.append(text)
        return GoalPredicate(kind, min=minimum, via=tuple(via))
    return GoalPredicate(kind, min=minimum)


def _parse_goals(doc: dict[str, Any], info: GameMeta, rules: Rules, kingdom: Board,
                 fiefs: tuple[Board, ...]) -> tuple[Goal, ...]:
    file = "goals.toml"
    top = _top(file, doc, ("goals",))
    boards = {"kingdom": (kingdom,), "fief": fiefs}
    goals: list[Goal] = []
    ats: list[_At] = []
    for index, item in enumerate(_array(_At(file, None, "goals"), top["goals"], non_empty=True)):
        at = _At(file, _entry_name("goal", "goals", item, index))
        table = _table(at, item)
        _keys(at, table, ("id", "mode", "title", "text", "predicate"))
        ident = _ident(at.sub("id"), table["id"])
        mode = _choice(at.sub("mode"), table["mode"], info.modes, "a mode of this game")
        title = _names(at.sub("title"), table["title"])
        text = _names(at.sub("text"), table["text"])
        predicate = _predicate(at.sub("predicate"), table["predicate"], mode, boards[mode])
        goals.append(Goal(ident, mode, title, text, predicate))
        ats.append(at)
    _check_unique(ats, [g.id for g in goals], "goal", "goals")
    for mode in info.modes:
        count = sum(g.mode == mode for g in goals)
        if count < rules.goals_per_game:
            raise _At(file, None, "goals").error(
                f"{count} {mode} goals, but [rules] goals_per_game draws {rules.goals_per_game}"
            )
    return tuple(goals)


# --------------------------------------------------------------------------------------------------------------
# The whole game


def parse_four_humours(documents: Mapping[str, dict[str, Any]]) -> FourHumoursData:
    """Build and validate the Four Humours records from parsed TOML documents (file name → ``tomllib`` dict).

    Pure: reads no files.  ``documents`` must hold every name of :data:`FOUR_HUMOURS_FILES`.  The first problem
    found raises :class:`DataError` (file, entry, field, message); otherwise the returned data satisfies every
    check documented in ``docs/games/four_humours/data-format.md``.
    """
    for name in FOUR_HUMOURS_FILES:
        if name not in documents:
            raise DataError(name, None, None, "file is missing")
    # [selftest] and [benchmark] are read by ttsmod's tools (bridge.rules.game.TOOL_TABLES), not by the engine
    game = _top("game.toml", documents["game.toml"], ("game", "humours", "citizens", "rules"), TOOL_TABLES)
    info = _parse_info(game)
    humours = _parse_humours(game)
    citizens = _parse_citizens(game)
    rules = _parse_rules(game)
    citizen_by_id = {c.id: c for c in citizens}
    kingdom = _parse_map(documents["map.toml"])
    fiefs = _parse_fiefs(documents["fiefs.toml"], citizen_by_id, info)
    scenes = _parse_scenes(documents["scenes.toml"], kingdom, citizen_by_id, rules)
    parties = _parse_parties(documents["parties.toml"], citizen_by_id)
    goals = _parse_goals(documents["goals.toml"], info, rules, kingdom, fiefs)
    return FourHumoursData(info, rules, humours, citizens, scenes, parties, goals, kingdom, fiefs)


