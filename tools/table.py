"""Table layouts as data: a game folder's ``table.toml`` → a validated :class:`TableSpec`, and the TTS objects
it places (:func:`compose_objects`).

What lies on a game's table is said here: decks made from its card lists (or from the decks its renderer packed),
boards, tiles and tokens (an image file of the game folder, a layout of ``layouts.toml`` drawn from data, or an
image the game's renderer drew), bags holding some of them, scripting and hand zones, snap points on the table
and on objects, and text labels. An entry may be repeated (``count``, ``for_each`` over the seats or over a list
of the game's data, with a position ``step`` or a grid), placed only where a condition holds (``when``), and its
texts, numbers, tags and memo may be ``{…}`` expressions of the data (:mod:`tools.tableexpr`); ``[[groups]]``
repeat several entries together and ``order`` says the order objects are placed in the save. Positions are
``[x, z]`` on the table in TTS units (the table's centre is ``[0, 0]``, the White seat's side is negative z),
rotations degrees about the vertical axis. Documented in ``docs/data-format.md``, "Table layouts (table.toml)";
every mistake is a :class:`bridge.errors.DataError` ``table.toml: <table>[<n>]: <field>: …`` (exit 2).
"""

from __future__ import annotations

import json
import random
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable, Iterator, Sequence

from bridge.errors import DataError
from bridge.rules.game import LANGUAGES, TTS_SEAT_COLOURS
from tools.render.colour import is_colour
from tools.save import (Colour, DeckSheet, GameObject, SnapPoint, Vector, at, bag, card, custom_board,
                        custom_tile, custom_token, deck, hand_trigger, infinite_bag, scripting_trigger, seat_colour,
                        text_3d)
from tools.save.geometry import SNAP_HEIGHT, tile_half_extents
from tools.save.objects import BAG_ORDERS, TILE_TYPES
from tools.tablememo import CardMemo, card_context, card_key
from tools.tableexpr import (ExpressionError, Scope, Template, as_expression, compiled, evaluate,
                             evaluate_expression, is_template, member, plain)

FILE = "table.toml"
OBJECT_TYPES = ("board", "tile", "token")
ZONE_TYPES = ("scripting", "hand")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
VARIABLE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}\Z")
MAX_ENTRIES = 1000
MAX_COUNT = 1000
MAX_KEY = 200
TABLE_EXTENT = 200.0
"""How far from the table's centre a position may lie, in TTS units (a square table is about 70 across)."""
MAX_MEMO = 4096
"""The longest memo, as JSON, an entry may give (a memo is for a script to find the object by, not a store)."""


@dataclass(frozen=True)
class Snap:
    position: tuple[float, float]
    rotation: float = 0.0
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Repeat:
    """How often an entry is placed: ``count`` times for each item of ``for_each`` (the item named ``as_name``),
    where ``when`` holds, each repetition ``step`` further (in rows of ``columns``, each row ``row_step``)."""

    for_each: Any = None
    as_name: str = "item"
    count: Any = None
    when: Any = None
    step: tuple[float, float] | None = None
    columns: int | None = None
    row_step: tuple[float, float] = (0.0, 0.0)

    @property
    def repeated(self) -> bool:
        return self.for_each is not None or self.count is not None


@dataclass(frozen=True)
class CardSpec:
    """What each card of a deck carries, evaluated with the card's data named ``card`` (``[decks.card]``)."""

    key: Any = None
    nickname: Any = None
    description: Any = None
    tags: Any = None
    memo: Any = None
    snap_points: Any = ()
    when: Any = None
    templates: Mapping[str, tuple[str, Callable, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class DeckSpec:
    """A deck of the card list ``cards`` (faces drawn from layout ``layout``, its back from ``back``), or of the
    faces the game's renderer packed into its deck ``sheet``."""

    name: str
    cards: str
    layout: str
    back: str | None
    count: str | None = None          # the field giving each card's copies
    position: tuple[float, float] = (0.0, 0.0)
    rotation: float = 0.0
    face_up: bool = False
    shuffle: bool = False
    nickname: str = ""
    tags: tuple[str, ...] = ()
    scale: float = 1.0
    description: Mapping[str, str] = field(default_factory=dict)
    memo: Mapping[str, Any] | None = None
    key: str | None = None
    y: float = 1.2
    top: str = "first"
    sheet: Any = None
    face: Any = None
    card: CardSpec = field(default_factory=CardSpec)
    repeat: Repeat = field(default_factory=Repeat)
    templates: Mapping[str, tuple[str, Callable, Any]] = field(default_factory=dict)
    given: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ObjectSpec:
    """``count`` boards, tiles or tokens showing an image file (``image``), a layout drawn from ``values``, or an
    image the game's renderer drew (``art``)."""

    name: str
    type: str
    image: str | None = None
    layout: str | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    position: tuple[float, float] = (0.0, 0.0)
    rotation: float = 0.0
    scale: float | tuple[float, float, float] = 1.0
    count: int = 1
    nickname: str = ""
    tags: tuple[str, ...] = ()
    locked: bool = False
    snap_points: tuple[Snap | SnapPoint, ...] = ()
    description: Mapping[str, str] = field(default_factory=dict)
    memo: Mapping[str, Any] | None = None
    key: str | None = None
    art: str | None = None
    back_art: str | None = None
    y: float | None = None
    width: float | None = None
    depth: float | None = None
    uniform: bool = False
    shape: str | None = None
    thickness: float | None = None
    hands: bool = False
    repeat: Repeat = field(default_factory=Repeat)
    templates: Mapping[str, tuple[str, Callable, Any]] = field(default_factory=dict)
    given: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ContentSpec:
    """One item of a bag's contents: ``count`` copies of object or deck ``name`` (``kind``), maybe per item of a
    list."""

    kind: str
    name: str
    count: Any = 1
    repeat: Repeat = field(default_factory=Repeat)


@dataclass(frozen=True)
class BagSpec:
    """A bag of ``contents`` (object name, count), or an infinite bag of one object's copies."""

    name: str
    contents: tuple[tuple[str, int], ...]
    infinite: bool = False
    position: tuple[float, float] = (0.0, 0.0)
    nickname: str = ""
    tags: tuple[str, ...] = ()
    description: Mapping[str, str] = field(default_factory=dict)
    memo: Mapping[str, Any] | None = None
    key: str | None = None
    y: float = 1.5
    order: str | None = None
    colour: str | None = None
    items: tuple[ContentSpec, ...] = ()
    repeat: Repeat = field(default_factory=Repeat)
    templates: Mapping[str, tuple[str, Callable, Any]] = field(default_factory=dict)
    given: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ZoneSpec:
    name: str
    position: tuple[float, float]
    size: tuple[float, float]
    tags: tuple[str, ...] = ()
    memo: Mapping[str, Any] | None = None
    type: str = "scripting"
    key: str | None = None
    nickname: str | None = None
    colour: str | None = None
    y: float | None = None
    height: float | None = None
    rotation: float = 0.0
    name_in_memo: bool = True
    repeat: Repeat = field(default_factory=Repeat)
    templates: Mapping[str, tuple[str, Callable, Any]] = field(default_factory=dict)
    given: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LabelSpec:
    text: Mapping[str, str]
    position: tuple[float, float]
    size: int = 64
    colour: str = "#ffffff"
    rotation: float = 0.0
    repeat: Repeat = field(default_factory=Repeat)
    templates: Mapping[str, tuple[str, Callable, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class SnapSpec:
    """``[[snap_points]]`` on the table (a :class:`Snap`, maybe repeated)."""

    snap: Snap
    repeat: Repeat = field(default_factory=Repeat)
    templates: Mapping[str, tuple[str, Callable, Any]] = field(default_factory=dict)

    @property
    def position(self) -> tuple[float, float]:
        return self.snap.position

    @property
    def rotation(self) -> float:
        return self.snap.rotation

    @property
    def tags(self) -> tuple[str, ...]:
        return self.snap.tags


@dataclass(frozen=True)
class GroupSpec:
    """Entries placed together, in the order ``place`` names them, once per repetition of the group."""

    name: str
    place: tuple[str, ...]
    repeat: Repeat = field(default_factory=Repeat)


@dataclass(frozen=True)
class HandsSpec:
    """A hand zone for each of ``colours``: at ``positions[colour]``, or in a row along the near side."""

    colours: tuple[str, ...] | None = None      # None: every seat colour of the game
    positions: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    size: tuple[float, float] = (10.0, 4.0)


@dataclass(frozen=True)
class TableSpec:
    decks: tuple[DeckSpec, ...] = ()
    objects: tuple[ObjectSpec, ...] = ()
    bags: tuple[BagSpec, ...] = ()
    zones: tuple[ZoneSpec, ...] = ()
    snap_points: tuple[SnapSpec, ...] = ()
    labels: tuple[LabelSpec, ...] = ()
    hands: HandsSpec | None = field(default_factory=HandsSpec)
    seed: int = 0
    values: Mapping[str, Any] = field(default_factory=dict)
    groups: tuple[GroupSpec, ...] = ()
    order: tuple[str, ...] = ()


# -- reading --------------------------------------------------------------------------------------------------

class _At:
    def __init__(self, entry: str | None, prefix: str = "") -> None:
        self.entry = entry
        self.prefix = prefix

    def error(self, field_: str | None, message: str) -> DataError:
        if self.prefix:
            field_ = f"{self.prefix}.{field_}" if field_ else self.prefix
        return DataError(FILE, self.entry, field_, message)

    def sub(self, prefix: str) -> "_At":
        return _At(self.entry, f"{self.prefix}.{prefix}" if self.prefix else prefix)


def load_table(folder: Path, *, required: bool = False) -> TableSpec:
    """The ``table.toml`` of game ``folder`` (an empty table when there is none, but for hand zones; a
    :class:`DataError` when it is ``required``: a builder laying its table from it)."""
    path = Path(folder) / FILE
    if not path.is_file():
        if required:
            raise DataError(FILE, None, None, f"missing from {folder} (the game lays its table out from it)")
        return TableSpec()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DataError(FILE, None, None, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise DataError(FILE, None, None, "arrays or inline tables nested too deeply to read") from None
    return parse_table(raw)


TABLES = ("decks", "objects", "bags", "zones", "snap_points", "labels", "hands", "seed", "values", "groups", "order")


def parse_table(raw: Mapping[str, Any]) -> TableSpec:
    """A parsed ``table.toml`` document → :class:`TableSpec` (every name checked, references resolved)."""
    unknown = sorted(set(raw) - set(TABLES))
    if unknown:
        raise DataError(FILE, None, unknown[0], f"unknown table (known: {', '.join(sorted(TABLES))})")
    decks = tuple(_deck(_At(f"decks[{i}]"), spec) for i, spec in enumerate(_entries(raw, "decks")))
    objects = tuple(_object(_At(f"objects[{i}]"), spec) for i, spec in enumerate(_entries(raw, "objects")))
    bags = tuple(_bag(_At(f"bags[{i}]"), spec) for i, spec in enumerate(_entries(raw, "bags")))
    zones = tuple(_zone(_At(f"zones[{i}]"), spec) for i, spec in enumerate(_entries(raw, "zones")))
    snaps = tuple(_table_snap(_At(f"snap_points[{i}]"), spec) for i, spec in enumerate(_entries(raw, "snap_points")))
    labels = tuple(_label(_At(f"labels[{i}]"), spec) for i, spec in enumerate(_entries(raw, "labels")))
    groups = tuple(_group(_At(f"groups[{i}]"), spec) for i, spec in enumerate(_entries(raw, "groups")))
    hands = _hands(_At("hands"), raw["hands"]) if "hands" in raw else HandsSpec()
    seed = raw.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise DataError(FILE, None, "seed", "must be an integer (the shuffled decks' order follows from it)")
    values = _values(raw.get("values", {}))
    names: dict[str, str] = {}
    for table, entries in (("decks", decks), ("objects", objects), ("bags", bags), ("zones", zones),
                           ("groups", groups)):
        for index, entry in enumerate(entries):
            if entry.name in names:
                raise DataError(FILE, f"{table}[{index}]", "name",
                                f'"{entry.name}" is the name of {names[entry.name]} too')
            names[entry.name] = f"{table}[{index}]"
    pieces = {o.name for o in objects}
    deck_names = {d.name for d in decks}
    for index, entry in enumerate(bags):
        for item, content in enumerate(entry.items):
            known = pieces if content.kind == "object" else deck_names
            if content.name not in known:
                table = "[[objects]]" if content.kind == "object" else "[[decks]]"
                raise DataError(FILE, f"bags[{index}]", f"contents[{item}].{content.kind}",
                                f'"{content.name}" is not the name of one of {table}')
    placeable = {n: where for n, where in names.items() if not where.startswith("groups")}
    in_group: dict[str, str] = {}
    for index, group in enumerate(groups):
        for item, name in enumerate(group.place):
            if name not in placeable:
                raise DataError(FILE, f"groups[{index}]", f"place[{item}]",
                                f'"{name}" is not the name of a deck, object, bag or zone')
            if name in in_group:
                raise DataError(FILE, f"groups[{index}]", f"place[{item}]", f'"{name}" is placed by {in_group[name]}')
            in_group[name] = f"groups[{index}]"
    order = _order(raw.get("order", []), names, in_group)
    return TableSpec(decks, objects, bags, zones, snaps, labels, hands, seed, values, groups, order)


def _entries(raw: Mapping[str, Any], key: str) -> list[dict]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise DataError(FILE, None, key, f"must be an array of tables ([[{key}]])")
    if len(value) > MAX_ENTRIES:
        raise DataError(FILE, None, key, f"at most {MAX_ENTRIES} entries")
    return value


def _values(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise DataError(FILE, None, "values", "must be a table of names = values ([values])")
    for name in raw:
        if not VARIABLE.match(name) or name in RESERVED:
            raise DataError(FILE, "values", name, "must be a name of letters, digits and _ (not starting with a "
                                                  f"digit or _), none of {', '.join(RESERVED)}")
    return {name: _compile(_At("values"), name, value) for name, value in raw.items()}


def _order(raw: Any, names: Mapping[str, str], in_group: Mapping[str, str]) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        raise DataError(FILE, None, "order", "must be a list of entry and group names")
    seen: set[str] = set()
    for index, name in enumerate(raw):
        if name not in names:
            raise DataError(FILE, None, f"order[{index}]", f'"{name}" is not the name of an entry or a group')
        if name in in_group:
            raise DataError(FILE, None, f"order[{index}]", f'"{name}" is placed by {in_group[name]}')
        if name in seen:
            raise DataError(FILE, None, f"order[{index}]", f'"{name}" is named twice')
        seen.add(name)
    return tuple(raw)


def _keys(at: _At, spec: dict, required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    for key in required:
        if key not in spec:
            raise at.error(key, "missing")
    unknown = sorted(set(spec) - set(required) - set(optional))
    if unknown:
        raise at.error(unknown[0], "unknown field")


# Each check takes (where, value, field) and gives the value as the entry holds it; a field holding braces is
# checked once it is evaluated (:func:`_resolved`), with the same check.
Check = Callable[[_At, Any, str], Any]


def _name(at: _At, value: Any, field_: str = "name") -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise at.error(field_, "must be a name of letters, digits, _ and - (at most 64, not starting with _ or -)")
    return value


def _number(at: _At, value: Any, field_: str, low: float, high: float) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
        raise at.error(field_, f"must be a number {low:g}..{high:g}")
    return float(value)


def _numbers(low: float, high: float) -> Check:
    return lambda at_, value, field_: _number(at_, value, field_, low, high)


def _point(at: _At, value: Any, field_: str, extent: float = TABLE_EXTENT) -> tuple[float, float]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise at.error(field_, "must be [x, z]")
    if not all(-extent <= v <= extent for v in value):
        raise at.error(field_, f"must lie within {extent:g} units of the centre")
    return float(value[0]), float(value[1])


def _size(at: _At, value: Any, field_: str) -> tuple[float, float]:
    x, z = _point(at, value, field_)
    if x <= 0 or z <= 0:
        raise at.error(field_, "must be [width, depth], both above 0")
    return x, z


def _text(at: _At, value: Any, field_: str) -> str:
    if not isinstance(value, str):
        raise at.error(field_, "must be a text")
    return value


def _key(at: _At, value: Any, field_: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_KEY:
        raise at.error(field_, f"must be a text of 1..{MAX_KEY} characters (the object's GUID follows from it)")
    return value


def _languages(at: _At, value: Any, field_: str) -> dict[str, str]:
    """A text for every language, or a table of texts by language (``{ en = …, uk = … }``)."""
    if isinstance(value, str):
        return {lang: value for lang in LANGUAGES}
    if isinstance(value, dict) and value and set(value) <= set(LANGUAGES) \
            and all(isinstance(v, str) for v in value.values()):
        return dict(value)
    raise at.error(field_, "must be a text, or { en = …, uk = …, ru = … }")


def _memo(at: _At, memo: Any, field_: str = "memo") -> dict[str, Any]:
    """A table a Global script reads back as JSON."""
    if not isinstance(memo, dict) or not _plain(memo):
        raise at.error(field_, "must be a table of texts, numbers, true/false, lists and tables")
    if len(json.dumps(memo, ensure_ascii=False)) > MAX_MEMO:
        raise at.error(field_, f"is longer than {MAX_MEMO} characters as JSON")
    return memo


def _plain(value: Any, depth: int = 0) -> bool:
    if depth > 8:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    # None only comes from a builder's records (TOML has no null): JSON's null
    return value is None or isinstance(value, (str, int, float, bool))


def _flag(at: _At, value: Any, field_: str) -> bool:
    if not isinstance(value, bool):
        raise at.error(field_, "must be true or false")
    return value


def _tags(at: _At, value: Any, field_: str = "tags") -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
        raise at.error(field_, "must be a list of texts")
    return tuple(value)


def _whole(at: _At, value: Any, field_: str, low: int, high: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise at.error(field_, f"must be a whole number {low}..{high}{what}")
    return value


def _count(at: _At, value: Any, field_: str) -> int:
    return _whole(at, value, field_, 0, MAX_COUNT, " (0: only in bags)")


def _scale(at: _At, value: Any, field_: str) -> float | tuple[float, float, float]:
    if isinstance(value, list) and len(value) == 3:
        return tuple(_number(at, v, field_, 0.01, 50) for v in value)  # type: ignore[return-value]
    if isinstance(value, list):
        raise at.error(field_, "must be a number, or [x, y, z]")
    return _number(at, value, field_, 0.05, 50)


def _choice(options: Sequence[str]) -> Check:
    def check(at_: _At, value: Any, field_: str) -> str:
        if value not in options:
            raise at_.error(field_, f"must be one of {', '.join(options)}")
        return value
    return check


def _seat_or_colour(at: _At, value: Any, field_: str) -> str:
    if not isinstance(value, str) or not (value in TTS_SEAT_COLOURS or is_colour(value)):
        raise at.error(field_, 'must be a TTS seat colour or "#rrggbb"')
    return value


def _seat(at: _At, value: Any, field_: str) -> str:
    if not isinstance(value, str) or value not in TTS_SEAT_COLOURS:
        raise at.error(field_, "must be a TTS seat colour")
    return value


def _snap_list(extent: float) -> Check:
    def check(at_: _At, value: Any, field_: str) -> tuple[Snap | SnapPoint, ...]:
        if not isinstance(value, list) or not all(isinstance(s, (dict, SnapPoint)) for s in value):
            raise at_.error(field_, "must be a list of { position = [x, z], rotation, tags }")
        return tuple(s if isinstance(s, SnapPoint) else _snap(_At(f"{at_.entry}.{field_}[{i}]"), s, extent)
                     for i, s in enumerate(value))
    return check


def _rotation(at: _At, value: Any, field_: str) -> float:
    return _number(at, value, field_, -360, 360)


def _fields(at: _At, spec: dict, checks: Mapping[str, tuple[str, Check]]) -> tuple[dict, dict]:
    """Each field of ``spec`` that ``checks`` knows (toml key → attribute, check): checked now when it is a
    plain value, kept to evaluate when it holds braces. Gives (attribute → value, attribute → template)."""
    values: dict[str, Any] = {}
    templates: dict[str, tuple[str, Check, Any]] = {}
    for key, (attr, check) in checks.items():
        if key not in spec:
            continue
        raw = spec[key]
        if is_template(raw):
            try:
                templates[attr] = (key, check, compiled(raw))
            except ExpressionError as exc:
                raise at.error(key, str(exc)) from None
        else:
            values[attr] = check(at, raw, key)
    return values, templates


REPEAT_KEYS = ("for_each", "as", "when", "step", "columns", "row_step")


def _repeat(at: _At, spec: dict, count: Any = None) -> Repeat:
    """The repetition fields of an entry (``count`` given apart: a deck's ``count`` names a field)."""
    def expr(key: str) -> Any:
        if key not in spec:
            return None
        if not isinstance(spec[key], str) or not spec[key].strip():
            raise at.error(key, "must be an expression (a text)")
        try:
            return as_expression(spec[key])
        except ExpressionError as exc:
            raise at.error(key, str(exc)) from None

    as_name = spec.get("as", "item")
    if not isinstance(as_name, str) or not VARIABLE.match(as_name) or as_name in RESERVED:
        raise at.error("as", f"must be a name of letters, digits and _, none of {', '.join(RESERVED)}")
    if "as" in spec and "for_each" not in spec:
        raise at.error("as", "names the item of for_each (give for_each)")
    step = _point(at, spec["step"], "step") if "step" in spec else None
    columns = None
    if "columns" in spec:
        columns = _whole(at, spec["columns"], "columns", 1, MAX_COUNT, "")
        if step is None:
            raise at.error("columns", "lays a grid of rows of step (give step)")
    row_step = _point(at, spec.get("row_step", [0, 0]), "row_step")
    if "row_step" in spec and columns is None:
        raise at.error("row_step", "is the step from one row of a grid to the next (give columns)")
    return Repeat(expr("for_each"), as_name, count, expr("when"), step, columns, row_step)


def _count_field(at: _At, spec: dict, default: int | None) -> Any:
    if "count" not in spec:
        return default
    raw = spec["count"]
    if is_template(raw):
        try:
            return compiled(raw)
        except ExpressionError as exc:
            raise at.error("count", str(exc)) from None
    return _count(at, raw, "count")


COMMON = {"nickname": ("nickname", _text), "tags": ("tags", _tags), "description": ("description", _languages),
          "memo": ("memo", _memo), "key": ("key", _key)}


def _deck(at: _At, spec: dict) -> DeckSpec:
    _keys(at, spec, ("name", "cards"), ("back", "layout", "count", "position", "rotation", "face_up", "shuffle",
                                       "nickname", "tags", "scale", "description", "memo", "key", "y", "top",
                                       "sheet", "face", "card") + REPEAT_KEYS)
    name = _name(at, spec["name"])
    if ("back" in spec) == ("sheet" in spec):
        if "back" not in spec:
            raise at.error("back", "missing (the layout of the cards' back; or sheet: a deck the game's renderer "
                                   "packed)")
        raise at.error("sheet", "give back (a layout of the back) or sheet (a deck the renderer packed), not both")
    if "sheet" in spec and "layout" in spec:
        raise at.error("layout", "draws a deck's faces from its data; a deck of a sheet shows the renderer's faces")
    cards = spec["cards"]
    templates: dict[str, Any] = {}
    if isinstance(cards, str) and is_template(cards):
        templates["cards"] = ("cards", lambda a, v, f: v, _compile(at, "cards", cards))
        cards = name
    else:
        cards = _name(at, cards, "cards")
    values, more = _fields(at, spec, {
        **COMMON, "position": ("position", _point), "rotation": ("rotation", _rotation),
        "face_up": ("face_up", _flag), "shuffle": ("shuffle", _flag), "scale": ("scale", _numbers(0.05, 50)),
        "y": ("y", _numbers(0, 50)), "top": ("top", _choice(("first", "last")))})
    templates.update(more)
    sheet = face = None
    for key in ("sheet", "face"):
        if key in spec:
            if "sheet" not in spec:
                raise at.error("face", "names a face of the renderer's deck sheet (give sheet)")
            raw = _text(at, spec[key], key)
            value = _compile(at, key, raw) if is_template(raw) else raw
            sheet, face = (value, face) if key == "sheet" else (sheet, value)
    card_spec = _card(at.sub("card"), spec["card"]) if "card" in spec else CardSpec()
    return DeckSpec(
        name, cards, _name(at, spec.get("layout", cards), "layout"),
        _name(at, spec["back"], "back") if "back" in spec else None,
        _name(at, spec["count"], "count") if "count" in spec else None,
        sheet=sheet, face=face, card=card_spec, repeat=_repeat(at, spec), templates=templates,
        given=frozenset(spec), **values)


def _compile(at: _At, key: str, raw: Any) -> Any:
    try:
        return compiled(raw)
    except ExpressionError as exc:
        raise at.error(key, str(exc)) from None


def _card(at: _At, spec: Any) -> CardSpec:
    if not isinstance(spec, dict):
        raise at.error(None, "must be a table of what each card carries")
    _keys(at, spec, (), ("key", "nickname", "description", "tags", "memo", "snap_points", "when"))
    values, templates = _fields(at, spec, {**COMMON, "snap_points": ("snap_points", _snap_list(50))})
    when = None
    if "when" in spec:
        if not isinstance(spec["when"], str):
            raise at.error("when", "must be an expression (a text)")
        try:
            when = as_expression(spec["when"])
        except ExpressionError as exc:
            raise at.error("when", str(exc)) from None
    return CardSpec(when=when, templates=templates, **values)


OBJECT_FIELDS = {
    **COMMON, "image": ("image", _text), "position": ("position", _point), "rotation": ("rotation", _rotation),
    "scale": ("scale", _scale), "locked": ("locked", _flag), "snap_points": ("snap_points", _snap_list(50)),
    "art": ("art", _text), "back_art": ("back_art", _text), "y": ("y", _numbers(0, 50)),
    "width": ("width", _numbers(0.05, TABLE_EXTENT)), "depth": ("depth", _numbers(0.05, TABLE_EXTENT)),
    "uniform": ("uniform", _flag), "shape": ("shape", _choice(tuple(TILE_TYPES))),
    "thickness": ("thickness", _numbers(0.01, 10)), "hands": ("hands", _flag),
}


def _object(at: _At, spec: dict) -> ObjectSpec:
    _keys(at, spec, ("name", "type"), ("layout", "values", "count") + tuple(OBJECT_FIELDS) + REPEAT_KEYS)
    kind = spec["type"]
    if kind not in OBJECT_TYPES:
        raise at.error("type", f"must be one of {', '.join(OBJECT_TYPES)}")
    if sum(k in spec for k in ("image", "layout", "art")) != 1:
        raise at.error("image", 'give exactly one of "image" (a file of the game folder), "layout" and "art" '
                                "(an image the game's renderer drew)")
    values = spec.get("values", {})
    if not isinstance(values, dict):
        raise at.error("values", "must be a table of the fields its layout prints")
    if "width" in spec and "depth" in spec:
        raise at.error("depth", "give width or depth (the other follows from the image), not both")
    if ("width" in spec or "depth" in spec) and "scale" in spec:
        raise at.error("scale", "width or depth sets the scale already")
    if "uniform" in spec and not ("width" in spec or "depth" in spec):
        raise at.error("uniform", "scales the height with a width or depth (give one)")
    if kind == "board" and any(k in spec for k in ("back_art", "shape", "thickness")):
        raise at.error(next(k for k in ("back_art", "shape", "thickness") if k in spec),
                       "is for tiles and tokens (a board shows one image)")
    if kind == "token" and "shape" in spec:
        raise at.error("shape", "is a tile's (a token is cut out along its image's transparency)")
    fields, templates = _fields(at, spec, OBJECT_FIELDS)
    if "image" in templates:
        raise at.error("image", "is a file of the game folder as written ({…} is not computed in it)")
    fields.setdefault("locked", kind == "board")
    count = _count_field(at, spec, 1)
    if "snap_points" in fields:
        fields["snap_points"] = tuple(fields["snap_points"])
    return ObjectSpec(
        _name(at, spec["name"]), kind, layout=_name(at, spec["layout"], "layout") if "layout" in spec else None,
        values=values, count=count if isinstance(count, int) else 1,
        repeat=_repeat(at, spec, count=count), templates=templates, given=frozenset(spec), **fields)


def _bag(at: _At, spec: dict) -> BagSpec:
    _keys(at, spec, ("name", "contents"), ("infinite", "position", "nickname", "tags", "description", "memo", "key",
                                           "y", "order", "colour", "count") + REPEAT_KEYS)
    raw = spec["contents"]
    if not isinstance(raw, list) or not raw or not all(isinstance(c, dict) for c in raw):
        raise at.error("contents", 'must be a list of { object = "name", count = N }')
    items = []
    for index, item in enumerate(raw):
        inner = _At(at.entry)
        where = f"contents[{index}]"
        unknown = sorted(set(item) - {"object", "deck", "count", "for_each", "as", "when"})
        if unknown or ("object" in item) == ("deck" in item):
            raise inner.error(where, 'must be { object = "name", count = N } or { deck = "name" }')
        kind = "object" if "object" in item else "deck"
        count = item.get("count", 1)
        if is_template(count):
            count = _compile(inner.sub(where), "count", count)
        elif not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
            raise inner.error(f"{where}.count", f"must be a whole number 1..{MAX_COUNT}")
        repeat = _repeat(inner.sub(where), {k: v for k, v in item.items() if k in ("for_each", "as", "when")})
        items.append(ContentSpec(kind, _name(inner, item[kind], f"{where}.{kind}"), count, repeat))
    infinite = _flag(at, spec.get("infinite", False), "infinite")
    if infinite and (len(items) != 1 or items[0].count != 1 or items[0].kind != "object"
                     or items[0].repeat.repeated):
        raise at.error("contents", "an infinite bag holds one object, once (it hands out copies of it)")
    fields, templates = _fields(at, spec, {**COMMON, "position": ("position", _point), "y": ("y", _numbers(0, 50)),
                                           "order": ("order", _choice(tuple(BAG_ORDERS))),
                                           "colour": ("colour", _seat_or_colour)})
    contents = tuple((c.name, c.count) for c in items if c.kind == "object" and isinstance(c.count, int))
    return BagSpec(_name(at, spec["name"]), contents, infinite, items=tuple(items),
                   repeat=_repeat(at, spec, count=_count_field(at, spec, None)), templates=templates,
                   given=frozenset(spec), **fields)


def _zone(at: _At, spec: dict) -> ZoneSpec:
    _keys(at, spec, ("name", "position", "size"), ("tags", "memo", "type", "key", "nickname", "colour", "y",
                                                   "height", "rotation", "name_in_memo", "count") + REPEAT_KEYS)
    kind = spec.get("type", "scripting")
    if kind not in ZONE_TYPES:
        raise at.error("type", f"must be one of {', '.join(ZONE_TYPES)}")
    if kind == "hand" and "colour" not in spec:
        raise at.error("colour", "missing (the seat colour whose hand this is)")
    if kind == "scripting" and "colour" in spec:
        raise at.error("colour", "is a hand zone's seat colour (type = \"hand\")")
    fields, templates = _fields(at, spec, {
        **{k: v for k, v in COMMON.items() if k != "description"}, "position": ("position", _point),
        "size": ("size", _size), "colour": ("colour", _seat), "y": ("y", _numbers(0, 50)),
        "height": ("height", _numbers(0.05, 50)), "rotation": ("rotation", _rotation),
        "name_in_memo": ("name_in_memo", _flag)})
    for required in ("position", "size"):
        fields.setdefault(required, (0.0, 0.0))
    return ZoneSpec(_name(at, spec["name"]), type=kind, repeat=_repeat(at, spec, count=_count_field(at, spec, None)),
                    templates=templates, given=frozenset(spec), **fields)


def _snap(at: _At, spec: dict, extent: float = TABLE_EXTENT) -> Snap:
    _keys(at, spec, ("position",), ("rotation", "tags"))
    return Snap(_point(at, spec["position"], "position", extent),
                _rotation(at, spec.get("rotation", 0), "rotation"), _tags(at, spec.get("tags", [])))


def _table_snap(at: _At, spec: dict) -> SnapSpec:
    _keys(at, spec, ("position",), ("rotation", "tags", "count") + REPEAT_KEYS)
    fields, templates = _fields(at, spec, {"position": ("position", _point), "rotation": ("rotation", _rotation),
                                           "tags": ("tags", _tags)})
    snap = Snap(fields.get("position", (0.0, 0.0)), fields.get("rotation", 0.0), fields.get("tags", ()))
    return SnapSpec(snap, _repeat(at, spec, count=_count_field(at, spec, None)), templates)


def _label_size(at: _At, value: Any, field_: str) -> int:
    return _whole(at, value, field_, 8, 1000, " (a font size)")


def _label_colour(at: _At, value: Any, field_: str) -> str:
    if not is_colour(value):
        raise at.error(field_, 'must be "#rrggbb"')
    return value


def _label(at: _At, spec: dict) -> LabelSpec:
    _keys(at, spec, ("text", "position"), ("size", "colour", "rotation", "count") + REPEAT_KEYS)
    fields, templates = _fields(at, spec, {"text": ("text", _languages), "position": ("position", _point),
                                           "size": ("size", _label_size), "colour": ("colour", _label_colour),
                                           "rotation": ("rotation", _rotation)})
    fields.setdefault("text", {})
    fields.setdefault("position", (0.0, 0.0))
    return LabelSpec(repeat=_repeat(at, spec, count=_count_field(at, spec, None)), templates=templates, **fields)


def _group(at: _At, spec: dict) -> GroupSpec:
    _keys(at, spec, ("name", "place"), ("count",) + tuple(k for k in REPEAT_KEYS if k not in
                                                          ("step", "columns", "row_step")))
    place = spec["place"]
    if not isinstance(place, list) or not place or not all(isinstance(p, str) for p in place):
        raise at.error("place", "must be a list of the names of the entries it places")
    return GroupSpec(_name(at, spec["name"]), tuple(place), _repeat(at, spec, count=_count_field(at, spec, None)))


def _hands(at: _At, spec: Any) -> HandsSpec | None:
    if spec is False:
        return None
    if not isinstance(spec, dict):
        raise at.error(None, "must be a table (or false: no hand zones)")
    _keys(at, spec, (), ("colours", "positions", "size"))
    colours = spec.get("colours")
    if colours is not None and (not isinstance(colours, list)
                                or not all(isinstance(c, str) and c in TTS_SEAT_COLOURS for c in colours)):
        raise at.error("colours", "must be a list of TTS seat colours")
    positions = spec.get("positions", {})
    if not isinstance(positions, dict) or not all(c in TTS_SEAT_COLOURS for c in positions):
        raise at.error("positions", "must be a table of seat colour = [x, z]")
    return HandsSpec(tuple(colours) if colours is not None else None,
                     {c: _point(at, p, f"positions.{c}") for c, p in positions.items()},
                     _size(at, spec.get("size", [10, 4]), "size"))


# -- composing ------------------------------------------------------------------------------------------------

RESERVED = ("seats", "mode", "lang", "index", "card", "true", "false")
"""Names every table has (:func:`compose_objects`); ``[values]`` and ``as`` may not take them."""


@dataclass(frozen=True)
class PlacedDeck:
    """What :func:`compose_objects` needs of a packed deck drawn from a card list: each card's (name, sheet
    index, index in sheet) in deck order, the sheets as ``DeckSheet``\\ s, whether cards lie sideways, and each
    face's card data (what ``[decks.card]`` reads as ``card``)."""

    cards: Sequence[tuple[str, int, int]]
    sheets: Sequence[DeckSheet]
    sideways: bool = False
    items: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class ArtDeck:
    """A deck a game's renderer packed: where each face lies (``face → (CustomDeck key, index, sheet)``) and
    whether its cards lie sideways."""

    faces: Mapping[str, tuple[int, int, DeckSheet]]
    sideways: bool = False


def art_decks(decks: Mapping[str, Any], faces: Mapping[str, Sequence[str]], url_for: Callable[[Path], str],
              first_key: int = 1) -> dict[str, ArtDeck]:
    """The renderer's packed decks (:class:`tools.sheets.PackedDeck` by name, each face's image name in
    ``faces``) as :class:`ArtDeck`\\ s: their sheets numbered as ``CustomDeck`` keys one after another, in the
    decks' order, from ``first_key``."""
    out: dict[str, ArtDeck] = {}
    key = first_key
    for name, packed in decks.items():
        back = url_for(packed.back_path)
        sheets = [(key + i, DeckSheet(url_for(s.path), back, s.columns, s.rows, back_is_hidden=packed.back_is_hidden))
                  for i, s in enumerate(packed.sheets)]
        key += len(sheets)
        out[name] = ArtDeck({face: (sheets[s][0], index, sheets[s][1])
                             for face, (s, index) in zip(faces.get(name, ()), packed.placement)},
                            packed.sideways)
    return out


def compose_rendered(table: TableSpec, art: Any, faces: Mapping[str, Sequence[str]],
                     url_for: Callable[[Path], str], *, seat_colours: Sequence[str], lang: str, game_id: str,
                     mode: str | None, names: Mapping[str, Any], fingerprints: Mapping[int, str] | None = None,
                     memo: CardMemo | None = None) -> tuple[list[GameObject], list[SnapPoint]]:
    """:func:`compose_objects` for a game whose renderer drew the table's images and packed its decks (``art``: a
    :class:`tools.render.pipeline.Art`; ``faces``: each packed deck's face names, in its order): each image's
    URL is ``url_for(its file)``, an object drawn from data is the image ``object:<name>``, and an image's pixel
    size is read from its file. ``fingerprints`` and ``memo``: see :func:`compose_objects`."""
    from tools.imageio import image_size

    images = art.images
    return compose_objects(
        table, {}, lambda name: url_for(images[f"object:{name}"]), seat_colours=seat_colours, lang=lang,
        game_id=game_id, mode=mode, names=names, art=art_decks(art.decks, faces, url_for),
        art_url=lambda name: url_for(images[name]), art_size=lambda name: image_size(images[name]),
        fingerprints=fingerprints, memo=memo)


def table_names(info: Any, layouts: Any) -> dict[str, Any]:
    """The names every game's ``table.toml`` may read beside the seats, mode and language: ``game`` (its
    ``[game]`` table), ``strings`` (the ``[strings]`` of its layouts) and ``layouts`` (each layout's pixel
    ``width`` and ``height``)."""
    return {"game": info, "strings": dict(layouts.strings),
            "layouts": {kind: {"width": layout.width, "height": layout.height}
                        for kind, layout in layouts.layouts.items()}}


def _in(texts: Mapping[str, str], lang: str) -> str:
    """The text of ``lang``, else the first one given (none: empty)."""
    return texts.get(lang) or next(iter(texts.values()), "")


def hand_positions(spec: HandsSpec, colours: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Each seat colour's hand position: as given, else in a row along the near side of the table."""
    spread = 12.0
    start = -spread * (len(colours) - 1) / 2
    return {colour: spec.positions.get(colour, (start + spread * index, -22.0))
            for index, colour in enumerate(colours)}


def compose_objects(table: TableSpec, decks: Mapping[str, PlacedDeck], image_url: Callable[[str], str], *,
                    seat_colours: Sequence[str], lang: str, game_id: str, names: Mapping[str, Any] | None = None,
                    art: Mapping[str, ArtDeck] | None = None, art_url: Callable[[str], str] | None = None,
                    art_size: Callable[[str], tuple[int, int]] | None = None,
                    mode: str | None = None, fingerprints: Mapping[int, str] | None = None,
                    memo: CardMemo | None = None) -> tuple[list[GameObject], list[SnapPoint]]:
    """The save's top-level objects and world snap points for ``table``.

    ``decks`` are the packed decks drawn from card lists, by deck name; ``image_url(object name)`` is the URL of
    an object drawn from an image file or a layout. A game with a renderer of its own gives ``art`` (its packed
    decks, for decks with a ``sheet``), ``art_url(image name)`` and ``art_size(image name)`` (for objects with
    ``art``, and the pixel size ``width``/``depth`` scale by; an object drawn from data is ``object:<name>``)
    and ``names``: what its expressions may read beside ``seats`` (the seat colours), ``mode``, ``lang`` and the
    table's ``[values]``. Deterministic: a shuffled deck's order follows from the table's ``seed``, the game id
    and the deck's name.

    ``memo`` (:class:`tools.tablememo.CardMemo`): the values a deck's cards get from their expressions (their
    fields, their face) are taken from it when kept under the same key, and kept in it otherwise. A card's key is
    made of the fingerprint ``fingerprints`` gives its data (``id(item)`` → a digest's text, while the items live:
    the builder vouches that a fingerprint changes whenever the item or anything else the build reads does), its
    place and what the expressions read besides (:func:`tools.tablememo.card_context`); a card without one is
    evaluated.
    The objects are the same either way."""
    composer = _Composer(table, decks, image_url, seat_colours=seat_colours, lang=lang, game_id=game_id,
                         names=names or {}, art=art or {}, art_url=art_url, art_size=art_size, mode=mode,
                         fingerprints=fingerprints or {}, memo=memo)
    return composer.compose()


class _Composer:
    def __init__(self, table: TableSpec, decks: Mapping[str, PlacedDeck], image_url: Callable[[str], str], *,
                 seat_colours: Sequence[str], lang: str, game_id: str, names: Mapping[str, Any],
                 art: Mapping[str, ArtDeck], art_url: Callable[[str], str] | None,
                 art_size: Callable[[str], tuple[int, int]] | None, mode: str | None,
                 fingerprints: Mapping[int, str] | None = None, memo: CardMemo | None = None) -> None:
        self.table, self.decks, self.image_url = table, decks, image_url
        self.fingerprints, self.memo = fingerprints or {}, memo
        self.seat_colours, self.lang, self.game_id = list(seat_colours), lang, game_id
        self.art, self.art_url, self.art_size = art, art_url, art_size
        for name in table.values:
            if name in names:
                raise DataError(FILE, "values", name, "is a name the game's builder gives already")
        base = {"seats": list(seat_colours), "mode": mode, "lang": lang, **names}
        self.scope = Scope(base, lang)
        for name, value in table.values.items():     # a value may be an expression of the names before it
            base[name] = self._evaluate(_At("values"), name, value, self.scope)
        self.keys: dict[str, str] = {}
        self.entries: dict[str, tuple[str, int, Any]] = {}
        for kind, specs in (("decks", table.decks), ("objects", table.objects), ("bags", table.bags),
                            ("zones", table.zones)):
            for index, spec in enumerate(specs):
                self.entries[spec.name] = (kind, index, spec)
        self.groups = {g.name: (index, g) for index, g in enumerate(table.groups)}
        self.sizes: dict[str, tuple[int, int]] = {}

    # -- order

    def compose(self) -> tuple[list[GameObject], list[SnapPoint]]:
        objects: list[GameObject] = []
        in_group = {name for g in self.table.groups for name in g.place}
        in_bags = {c.name for b in self.table.bags for c in b.items if c.kind == "deck"}
        named = list(self.table.order)
        # what order does not name follows in the tables' order (objects in bags are still laid on the table,
        # count times; a deck in a bag is there only)
        for kind in ("decks", "objects", "bags", "zones"):
            for name, (k, _, _) in self.entries.items():
                if k == kind and name not in in_group and name not in named and not (k == "decks" and name in in_bags):
                    named.append(name)
        named += [g.name for g in self.table.groups if g.name not in named]
        for name in named:
            if name in self.groups:
                index, group = self.groups[name]
                at_ = _At(f"groups[{index}]")
                for scope, i in self._repetitions(at_, group.repeat, self.scope):
                    path = (i,) if group.repeat.repeated else ()
                    for member in group.place:
                        objects += self._place(member, scope, path)
            else:
                objects += self._place(name, self.scope, ())
        for index, spec in enumerate(self.table.labels):
            at_ = _At(f"labels[{index}]")
            for scope, i in self._repetitions(at_, spec.repeat, self.scope):
                label = self._resolved(at_, spec, scope)
                position = self._offset(label.position, spec.repeat, i)
                key = f"label/{index}" + (f"/{i}" if spec.repeat.repeated else "")
                objects.append(text_3d(self._claim(at_, key), _in(label.text, self.lang),
                                       colour=Colour.hex(label.colour), font_size=label.size,
                                       transform=at(*position, 1.05, rot_y=label.rotation)))
        hands = self.table.hands
        if hands is not None:
            colours = [c for c in (hands.colours or self.seat_colours)]
            for colour, (x, z) in hand_positions(hands, colours).items():
                objects.append(hand_trigger(self._claim(_At("hands"), f"hand/{colour}"), colour,
                                            transform=at(x, z, 3.0, scale=(hands.size[0], 5.0, hands.size[1]))))
        snaps = []
        for index, spec in enumerate(self.table.snap_points):
            at_ = _At(f"snap_points[{index}]")
            for scope, i in self._repetitions(at_, spec.repeat, self.scope):
                snap = self._resolved(at_, spec.snap, scope, spec.templates)
                x, z = self._offset(snap.position, spec.repeat, i)
                snaps.append(SnapPoint(Vector(x, 1.0, z), snap.tags, Vector(0.0, snap.rotation, 0.0)))
        return objects, snaps

    def _place(self, name: str, scope: Scope, path: tuple[int, ...]) -> list[GameObject]:
        kind, index, spec = self.entries[name]
        at_ = _At(f"{kind}[{index}]")
        out: list[GameObject] = []
        for inner, i in self._repetitions(at_, spec.repeat, scope):
            own = path + (i,) if spec.repeat.repeated or kind == "objects" else path
            if kind == "decks":
                made = self._deck(at_, spec, inner, own, i)
                if made is not None:
                    out.append(made)
            elif kind == "objects":
                out.append(self._object(at_, spec, inner, own, i))
            elif kind == "bags":
                out.append(self._bag(at_, spec, inner, own, i))
            else:
                out.append(self._zone(at_, spec, inner, own, i))
        return out

    # -- repetitions and values

    def _repetitions(self, at_: _At, repeat: Repeat, scope: Scope) -> Iterator[tuple[Scope, int]]:
        """Each repetition's scope (its item, ``<as>_index`` and ``index``) and index, where ``when`` holds."""
        if repeat.for_each is None:
            items: list[Any] = [None]
        else:
            items = self._evaluate(at_, "for_each", repeat.for_each, scope, expression=True)
            if isinstance(items, Mapping) or not isinstance(items, (list, tuple)):
                raise at_.error("for_each", "must give a list (of seats, of records, of numbers …)")
        placed = 0
        for position, value in enumerate(items):
            inner = scope if repeat.for_each is None else \
                scope.child({repeat.as_name: value, f"{repeat.as_name}_index": position})
            count = 1
            if repeat.count is not None:
                count = repeat.count if isinstance(repeat.count, int) else \
                    _count(at_, self._evaluate(at_, "count", repeat.count, inner), "count")
            for _ in range(count):
                here = inner.child({"index": placed})
                if repeat.when is not None and not self._evaluate(at_, "when", repeat.when, here, expression=True):
                    continue
                yield here, placed
                placed += 1

    def _evaluate(self, at_: _At, field_: str, value: Any, scope: Scope, expression: bool = False) -> Any:
        try:
            if expression:
                return evaluate_expression(value, scope)
            return plain(evaluate(value, scope))
        except ExpressionError as exc:
            raise at_.error(field_, str(exc)) from None

    def _resolved(self, at_: _At, spec: Any, scope: Scope, templates: Mapping | None = None) -> Any:
        """``spec`` with each field holding braces evaluated in ``scope`` and checked."""
        templates = spec.templates if templates is None else templates
        if not templates:
            return spec
        changes = {}
        for attr, (key, check, value) in templates.items():
            if attr == "cards":
                continue
            found = self._evaluate(at_, key, value, scope)
            changes[attr] = check(at_, found, key)
        return replace(spec, **changes)

    @staticmethod
    def _offset(position: tuple[float, float], repeat: Repeat, index: int) -> tuple[float, float]:
        if repeat.step is None:
            return position
        x, z = position
        if repeat.columns is None:
            return x + index * repeat.step[0], z + index * repeat.step[1]
        column, row = index % repeat.columns, index // repeat.columns
        x, z = x + column * repeat.step[0], z + column * repeat.step[1]
        return x + row * repeat.row_step[0], z + row * repeat.row_step[1]

    def _claim(self, at_: _At, key: str, field_: str = "key") -> str:
        if key in self.keys:
            raise at_.error(field_, f'"{key}" is the key of an object of {self.keys[key]} too (each object needs '
                                    "its own: its GUID follows from it)")
        self.keys[key] = at_.entry or FILE
        return key

    def _image(self, at_: _At, field_: str, name: str) -> str:
        if self.art_url is None:
            raise at_.error(field_, "names an image of a game's renderer; a game drawn from data gives image or "
                                    "layout")
        try:
            return self.art_url(name)
        except KeyError:
            raise at_.error(field_, f'"{name}": the renderer drew no such image') from None

    def _pixels(self, at_: _At, field_: str, name: str) -> tuple[int, int]:
        if name not in self.sizes:
            if self.art_size is None:
                raise at_.error(field_, "needs the image's size, which this build does not give")
            try:
                self.sizes[name] = self.art_size(name)
            except KeyError:
                raise at_.error(field_, f'"{name}": the renderer drew no such image') from None
        return self.sizes[name]

    # -- entries

    def _deck(self, at_: _At, spec: DeckSpec, scope: Scope, path: tuple[int, ...],
              index: int = 0) -> GameObject | None:
        """The deck (or the one card) of ``spec``'s ``index``-th repetition on the table (0 in a bag)."""
        resolved: DeckSpec = self._resolved(at_, spec, scope)
        order = self._deck_cards(at_, spec, scope)
        if resolved.shuffle:       # a computed shuffle counts as a written one
            random.Random(f"{self.game_id}|{spec.name}|{self.table.seed}").shuffle(order)
        position = self._offset(resolved.position, spec.repeat, index)
        transform = at(*position, resolved.y, rot_y=180 + resolved.rotation, face_down=not resolved.face_up,
                       scale=(resolved.scale, 1.0, resolved.scale))
        cards = []
        card_at = at_.sub("card")
        # What every card carries is read once, and only a field with braces is evaluated card by card (without
        # a new CardSpec each time): a deck's ten thousand cards were most of the time a table took to lay.
        fixed = {attr: getattr(spec.card, attr) for attr in ("key", "nickname", "description", "tags", "memo")}
        computed = [(attr, key, check, value) for attr, (key, check, value) in spec.card.templates.items()]
        snaps = None if any(attr == "snap_points" for attr, *_ in computed) else self._snaps(spec.card.snap_points)
        attrs = [attr for attr, *_ in computed]
        context = self._memo_context(f"cards/{spec.name}", [(f, value) for _, f, _, value in computed], scope)
        for n, (face, key, index, sheet, sideways, item) in enumerate(order):
            own = fixed
            if computed:
                kept = memo_key = None
                if context is not None and item is not None:
                    fingerprint = self.fingerprints.get(id(item))
                    if fingerprint is not None:
                        memo_key = card_key(fingerprint, n)
                        kept = self.memo.get(context, memo_key, len(attrs))   # type: ignore[union-attr]
                own = dict(fixed)
                if kept is not None:
                    own.update(zip(attrs, kept))
                else:
                    inner = scope.child({"card": item, "index": n}) if item is not None else \
                        scope.child({"index": n})
                    for attr, field_, check, value in computed:
                        own[attr] = check(card_at, self._evaluate(card_at, field_, value, inner), field_)
                    if memo_key is not None:
                        self.memo.put(context, memo_key, [own[attr] for attr in attrs])  # type: ignore[union-attr]
            cards.append(card(
                self._claim(card_at, own["key"] if own["key"] is not None else f"{spec.name}/{n}/{face}"), key,
                index, sheet, sideways=sideways,
                nickname=own["nickname"] if own["nickname"] is not None else face.split(":", 1)[-1],
                description=_in(own["description"], self.lang) if own["description"] is not None else "",
                tags=own["tags"] if own["tags"] is not None else resolved.tags,
                memo=own["memo"] if own["memo"] is not None else resolved.memo,
                snap_points=list(snaps) if snaps is not None else self._snaps(own["snap_points"]),
                transform=transform))
        nickname = resolved.nickname or spec.name
        description = _in(resolved.description, self.lang)
        key = resolved.key if resolved.key is not None else \
            f"deck/{spec.name}" + "".join(f"/{i}" for i in path)
        if len(cards) == 1:
            cards[0].nickname = nickname
            cards[0].description = description
            return cards[0]
        if not cards:
            return None
        # TTS stores a deck's top card last: with top = "first" the first card of the list is dealt first
        ordered = list(reversed(cards)) if resolved.top == "first" else cards
        return deck(self._claim(at_, key), ordered, nickname=nickname, tags=resolved.tags, description=description,
                    memo=resolved.memo, transform=transform)

    def _deck_cards(self, at_: _At, spec: DeckSpec, scope: Scope) -> list[tuple]:
        """``(face, CustomDeck key, index, sheet, sideways, card data)`` of each card copy, in the list's order."""
        if spec.sheet is None:
            placed = self.decks[spec.name]
            out = []
            for face, sheet_no, index in placed.cards:
                item = placed.items.get(face)
                if spec.card.when is not None and item is not None and not self._evaluate(
                        at_.sub("card"), "when", spec.card.when, scope.child({"card": item}), expression=True):
                    continue
                out.append((face, sheet_no + 1, index, placed.sheets[sheet_no], placed.sideways, item))
            return out
        if "cards" in spec.templates:
            items = self._evaluate(at_, "cards", spec.templates["cards"][2], scope)
        else:
            try:
                items = scope.lookup(spec.cards)
            except ExpressionError as exc:
                raise at_.error("cards", str(exc)) from None
        if isinstance(items, Mapping) or not isinstance(items, (list, tuple)):
            raise at_.error("cards", "must name a list of cards")
        out = []
        # whether a card is dealt, its sheet and its face: kept by the card's data and place (see compose_objects)
        fields = [("when", spec.card.when), ("sheet", spec.sheet), ("face", spec.face)]
        context = self._memo_context(f"faces/{spec.name}", fields, scope)
        for n, item in enumerate(items):
            kept = memo_key = None
            if context is not None:
                fingerprint = self.fingerprints.get(id(item))
                if fingerprint is not None:
                    memo_key = card_key(fingerprint, n)
                    kept = self.memo.get(context, memo_key, 3)   # type: ignore[union-attr]
            if kept is not None:
                dealt, sheet, face = kept
            else:
                dealt, sheet, face = self._card_face(at_, spec, scope.child({"card": item, "index": n}))
                if memo_key is not None:
                    self.memo.put(context, memo_key, [dealt, sheet, face])   # type: ignore[union-attr]
            if not dealt:
                continue
            found = self._packed_deck(at_, sheet).faces.get(face)
            if found is None:
                raise at_.error("face", f'"{face}" is not a face of the renderer\'s deck "{sheet}"')
            copies = 1
            if spec.count is not None:
                if isinstance(item, Mapping):
                    copies = item.get(spec.count, 1)
                else:
                    try:
                        copies = member(item, spec.count)
                    except ExpressionError as exc:
                        raise at_.error("count", str(exc)) from None
                copies = _count(at_, copies, "count")
            out += [(face, *found, self.art[sheet].sideways, item)] * copies
        return out

    def _card_face(self, at_: _At, spec: DeckSpec, inner: Scope) -> tuple[bool, Any, Any]:
        """Whether the card of scope ``inner`` is dealt (its ``when``), its sheet and its face."""
        if spec.card.when is not None and not self._evaluate(at_.sub("card"), "when", spec.card.when, inner,
                                                             expression=True):
            return False, None, None
        sheet = self._evaluate(at_, "sheet", spec.sheet, inner)
        self._packed_deck(at_, sheet)
        if spec.face is not None:
            face = self._evaluate(at_, "face", spec.face, inner)
        else:
            face = f"{spec.name}:{self._evaluate(at_, 'face', '{card.id}', inner)}"
        return True, sheet, face

    def _packed_deck(self, at_: _At, sheet: Any) -> ArtDeck:
        if sheet not in self.art:
            raise at_.error("sheet", f'"{sheet}" is not a deck the renderer packed '
                                     f"({', '.join(self.art) or 'none'})")
        return self.art[sheet]

    def _memo_context(self, what: str, fields: Sequence[tuple[str, Any]], scope: Scope) -> str | None:
        """:func:`tools.tablememo.card_context` of a deck's card ``fields``, or None without a memo."""
        if self.memo is None or not self.fingerprints:
            return None
        return card_context(what, fields, scope)

    def _snaps(self, snaps: Sequence[Snap | SnapPoint]) -> list[SnapPoint]:
        return [s if isinstance(s, SnapPoint) else
                SnapPoint(Vector(s.position[0], SNAP_HEIGHT, s.position[1]), s.tags, Vector(0.0, s.rotation, 0.0))
                for s in snaps]

    def _object(self, at_: _At, spec: ObjectSpec, scope: Scope, path: tuple[int, ...], index: int, *,
                in_bag: tuple[str, tuple[float, float]] | None = None) -> GameObject:
        """One of ``spec``'s objects: on the table (its ``index``-th copy), or in a bag (``in_bag``: its key and
        the bag's position) where it lies where its entry says, else at the bag's place."""
        obj: ObjectSpec = self._resolved(at_, spec, scope)
        if obj.art is not None:
            url, pixels_of = self._image(at_, "art", obj.art), obj.art
        else:
            url, pixels_of = self.image_url(spec.name), f"object:{spec.name}"
        if in_bag is None:
            position = self._offset(obj.position, spec.repeat, index)
            y = obj.y if obj.y is not None else 1.0 + 0.3 * index      # copies stack: each a little above the last
            key = obj.key if obj.key is not None else f"object/{spec.name}" + "".join(f"/{i}" for i in path)
        else:
            key, bag_position = in_bag
            position = self._offset(obj.position, spec.repeat, index) if "position" in spec.given else bag_position
            y = obj.y if obj.y is not None else 2.0
            key = obj.key if obj.key is not None else key
        if obj.width is not None or obj.depth is not None:
            half_x, half_z = tile_half_extents(*self._pixels(at_, "width" if obj.width else "depth", pixels_of))
            s = obj.width / (2 * half_x) if obj.width is not None else obj.depth / (2 * half_z)
            scale = (s, s, s) if obj.uniform else (s, 1.0, s)
        elif isinstance(obj.scale, tuple):
            scale = obj.scale
        else:
            scale = (obj.scale, 1.0, obj.scale)
        common: dict[str, Any] = dict(
            nickname=obj.nickname or spec.name, tags=obj.tags, locked=obj.locked,
            description=_in(obj.description, self.lang), memo=obj.memo,
            transform=at(*position, y, rot_y=180 + obj.rotation, scale=scale),
            snap_points=self._snaps(obj.snap_points))
        if obj.hands:
            common["hands"] = True
        key = self._claim(at_, key)
        if spec.type == "board":
            return custom_board(key, url, **common)
        extra: dict[str, Any] = {}
        if obj.back_art is not None:
            extra["back_url"] = self._image(at_, "back_art", obj.back_art)
        if obj.thickness is not None:
            extra["thickness"] = obj.thickness
        if spec.type == "tile":
            if obj.shape is not None:
                extra["shape"] = obj.shape
            return custom_tile(key, url, **extra, **common)
        return custom_token(key, url, **extra, **common)

    def _bag(self, at_: _At, spec: BagSpec, scope: Scope, path: tuple[int, ...], index: int) -> GameObject:
        resolved: BagSpec = self._resolved(at_, spec, scope)
        position = self._offset(resolved.position, spec.repeat, index)
        key = resolved.key if resolved.key is not None else f"bag/{spec.name}" + "".join(f"/{i}" for i in path)
        contents: list[GameObject] = []
        copies: dict[str, int] = {}
        for item_no, content in enumerate(spec.items):
            where = at_.sub(f"contents[{item_no}]")
            repeat = replace(content.repeat, count=content.count)
            for inner, _ in self._repetitions(where, repeat, scope):
                inner = inner.child({"index": len(contents)})     # its place in the bag
                kind, entry_no, entry = self.entries[content.name]
                entry_at = _At(f"{kind}[{entry_no}]")
                if content.kind == "deck":
                    made = self._deck(entry_at, entry, inner, path + (len(contents),))
                    if made is not None:
                        contents.append(made)
                    continue
                n = copies.get(content.name, 0)
                copies[content.name] = n + 1
                contents.append(self._object(entry_at, entry, inner, path, n,
                                             in_bag=(f"{key}/{content.name}/{n}", position)))
        common: dict[str, Any] = dict(nickname=resolved.nickname or spec.name, tags=resolved.tags,
                                      transform=at(*position, resolved.y), description=_in(resolved.description,
                                                                                            self.lang),
                                      memo=resolved.memo)
        if resolved.colour is not None:
            common["colour"] = seat_colour(resolved.colour) if resolved.colour in TTS_SEAT_COLOURS \
                else Colour.hex(resolved.colour)
        key = self._claim(at_, key)
        if spec.infinite:
            if not contents:
                raise at_.error("contents", "an infinite bag needs its one object")
            return infinite_bag(key, contents[0], **common)
        if resolved.order is not None:
            common["order"] = resolved.order
        return bag(key, contents, **common)

    def _zone(self, at_: _At, spec: ZoneSpec, scope: Scope, path: tuple[int, ...], index: int) -> GameObject:
        zone: ZoneSpec = self._resolved(at_, spec, scope)
        position = self._offset(zone.position, spec.repeat, index)
        key = self._claim(at_, zone.key if zone.key is not None else
                          f"zone/{spec.name}" + "".join(f"/{i}" for i in path))
        hand = spec.type == "hand"
        y = zone.y if zone.y is not None else (3.0 if hand else 1.5)
        height = zone.height if zone.height is not None else (5.0 if hand else 2.0)
        transform = at(*position, y, scale=(zone.size[0], height, zone.size[1]), rot_y=180 + zone.rotation)
        if hand:
            common: dict[str, Any] = dict(tags=zone.tags, transform=transform)
            if zone.memo is not None:
                common["memo"] = zone.memo
            if zone.nickname is not None:
                common["nickname"] = zone.nickname
            return hand_trigger(key, zone.colour, **common)
        memo = zone.memo
        if zone.name_in_memo:
            memo = {"zone": spec.name, **(memo or {})}
        return scripting_trigger(key, nickname=zone.nickname if zone.nickname is not None else spec.name,
                                 tags=zone.tags, memo=memo, transform=transform)
