"""Table layouts as data: a game folder's ``table.toml`` → a validated :class:`TableSpec`, and the TTS objects
it places (:func:`compose_objects`).

What a game's ``table.py`` places in code, a game drawn from data says here: decks made from its card lists,
boards, tiles and tokens (an image file of the game folder, or a layout of ``layouts.toml`` drawn from data),
bags holding some of them, a hand zone per seat colour, scripting zones, snap points on the table and on
objects, and text labels. Positions are ``[x, z]`` on the table in TTS units (the table's centre is
``[0, 0]``, the White seat's side is negative z), rotations degrees about the vertical axis. Documented in
``docs/data-format.md``, "Table layouts (table.toml)"; every mistake is a
:class:`bridge.errors.DataError` ``table.toml: <table>[<n>]: <field>: …`` (exit 2).
"""

from __future__ import annotations

import json
import random
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from bridge.errors import DataError
from bridge.rules.game import LANGUAGES, TTS_SEAT_COLOURS
from tools.render.colour import is_colour
from tools.save import (Colour, DeckSheet, GameObject, SnapPoint, Vector, at, bag, card, custom_board,
                        custom_tile, custom_token, deck, hand_trigger, infinite_bag, scripting_trigger, text_3d)
from tools.save.geometry import SNAP_HEIGHT

FILE = "table.toml"
OBJECT_TYPES = ("board", "tile", "token")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
MAX_ENTRIES = 1000
MAX_COUNT = 1000
TABLE_EXTENT = 200.0
"""How far from the table's centre a position may lie, in TTS units (a square table is about 70 across)."""


@dataclass(frozen=True)
class Snap:
    position: tuple[float, float]
    rotation: float = 0.0
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeckSpec:
    """A deck of the card list ``cards`` (faces drawn from layout ``layout``, its back from ``back``)."""

    name: str
    cards: str
    layout: str
    back: str
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


@dataclass(frozen=True)
class ObjectSpec:
    """``count`` boards, tiles or tokens showing an image file (``image``) or a layout drawn from ``values``."""

    name: str
    type: str
    image: str | None = None
    layout: str | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    position: tuple[float, float] = (0.0, 0.0)
    rotation: float = 0.0
    scale: float = 1.0
    count: int = 1
    nickname: str = ""
    tags: tuple[str, ...] = ()
    locked: bool = False
    snap_points: tuple[Snap, ...] = ()
    description: Mapping[str, str] = field(default_factory=dict)
    memo: Mapping[str, Any] | None = None


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


@dataclass(frozen=True)
class ZoneSpec:
    name: str
    position: tuple[float, float]
    size: tuple[float, float]
    tags: tuple[str, ...] = ()
    memo: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class LabelSpec:
    text: Mapping[str, str]
    position: tuple[float, float]
    size: int = 64
    colour: str = "#ffffff"
    rotation: float = 0.0


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
    snap_points: tuple[Snap, ...] = ()
    labels: tuple[LabelSpec, ...] = ()
    hands: HandsSpec | None = field(default_factory=HandsSpec)
    seed: int = 0


# -- reading --------------------------------------------------------------------------------------------------

class _At:
    def __init__(self, entry: str | None) -> None:
        self.entry = entry

    def error(self, field_: str | None, message: str) -> DataError:
        return DataError(FILE, self.entry, field_, message)


def load_table(folder: Path) -> TableSpec:
    """The ``table.toml`` of game ``folder`` (an empty table when there is none, but for hand zones)."""
    path = Path(folder) / FILE
    if not path.is_file():
        return TableSpec()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DataError(FILE, None, None, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise DataError(FILE, None, None, "arrays or inline tables nested too deeply to read") from None
    return parse_table(raw)


def parse_table(raw: Mapping[str, Any]) -> TableSpec:
    """A parsed ``table.toml`` document → :class:`TableSpec` (every name checked, references resolved)."""
    known = {"decks", "objects", "bags", "zones", "snap_points", "labels", "hands", "seed"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise DataError(FILE, None, unknown[0], f"unknown table (known: {', '.join(sorted(known))})")
    decks = tuple(_deck(_At(f"decks[{i}]"), spec) for i, spec in enumerate(_entries(raw, "decks")))
    objects = tuple(_object(_At(f"objects[{i}]"), spec) for i, spec in enumerate(_entries(raw, "objects")))
    bags = tuple(_bag(_At(f"bags[{i}]"), spec) for i, spec in enumerate(_entries(raw, "bags")))
    zones = tuple(_zone(_At(f"zones[{i}]"), spec) for i, spec in enumerate(_entries(raw, "zones")))
    snaps = tuple(_snap(_At(f"snap_points[{i}]"), spec) for i, spec in enumerate(_entries(raw, "snap_points")))
    labels = tuple(_label(_At(f"labels[{i}]"), spec) for i, spec in enumerate(_entries(raw, "labels")))
    hands = _hands(_At("hands"), raw["hands"]) if "hands" in raw else HandsSpec()
    seed = raw.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise DataError(FILE, None, "seed", "must be an integer (the shuffled decks' order follows from it)")
    names: dict[str, str] = {}
    for table, entries in (("decks", decks), ("objects", objects), ("bags", bags), ("zones", zones)):
        for index, entry in enumerate(entries):
            if entry.name in names:
                raise DataError(FILE, f"{table}[{index}]", "name",
                                f'"{entry.name}" is the name of {names[entry.name]} too')
            names[entry.name] = f"{table}[{index}]"
    pieces = {o.name for o in objects}
    for index, entry in enumerate(bags):
        for item, (name, _) in enumerate(entry.contents):
            if name not in pieces:
                raise DataError(FILE, f"bags[{index}]", f"contents[{item}].object",
                                f'"{name}" is not the name of one of [[objects]]')
    return TableSpec(decks, objects, bags, zones, snaps, labels, hands, seed)


def _entries(raw: Mapping[str, Any], key: str) -> list[dict]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise DataError(FILE, None, key, f"must be an array of tables ([[{key}]])")
    if len(value) > MAX_ENTRIES:
        raise DataError(FILE, None, key, f"at most {MAX_ENTRIES} entries")
    return value


def _keys(at: _At, spec: dict, required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    for key in required:
        if key not in spec:
            raise at.error(key, "missing")
    unknown = sorted(set(spec) - set(required) - set(optional))
    if unknown:
        raise at.error(unknown[0], "unknown field")


def _name(at: _At, value: Any, field_: str = "name") -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise at.error(field_, "must be a name of letters, digits, _ and - (at most 64, not starting with _ or -)")
    return value


def _number(at: _At, value: Any, field_: str, low: float, high: float) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
        raise at.error(field_, f"must be a number {low:g}..{high:g}")
    return float(value)


def _point(at: _At, value: Any, field_: str, extent: float = TABLE_EXTENT) -> tuple[float, float]:
    if (not isinstance(value, list) or len(value) != 2
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


def _languages(at: _At, value: Any, field_: str) -> dict[str, str]:
    """A text for every language, or a table of texts by language (``{ en = …, uk = … }``)."""
    if isinstance(value, str):
        return {lang: value for lang in LANGUAGES}
    if isinstance(value, dict) and value and set(value) <= set(LANGUAGES) \
            and all(isinstance(v, str) for v in value.values()):
        return dict(value)
    raise at.error(field_, "must be a text, or { en = …, uk = …, ru = … }")


MAX_MEMO = 4096
"""The longest memo, as JSON, an entry may give (a memo is for a script to find the object by, not a store)."""


def _about(at: _At, spec: dict) -> tuple[dict[str, str], dict[str, Any] | None]:
    """An entry's ``description`` (texts by language) and ``memo`` (a table a Global script reads back as JSON)."""
    description = _languages(at, spec["description"], "description") if "description" in spec else {}
    memo = spec.get("memo")
    if memo is not None:
        if not isinstance(memo, dict) or not _plain(memo):
            raise at.error("memo", "must be a table of texts, numbers, true/false, lists and tables")
        if len(json.dumps(memo, ensure_ascii=False)) > MAX_MEMO:
            raise at.error("memo", f"is longer than {MAX_MEMO} characters as JSON")
    return description, memo


def _plain(value: Any, depth: int = 0) -> bool:
    if depth > 8:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    return isinstance(value, (str, int, float, bool))


def _flag(at: _At, value: Any, field_: str) -> bool:
    if not isinstance(value, bool):
        raise at.error(field_, "must be true or false")
    return value


def _tags(at: _At, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
        raise at.error("tags", "must be a list of texts")
    return tuple(value)


def _rotation(at: _At, spec: dict) -> float:
    return _number(at, spec.get("rotation", 0), "rotation", -360, 360)


def _deck(at: _At, spec: dict) -> DeckSpec:
    _keys(at, spec, ("name", "cards", "back"), ("layout", "count", "position", "rotation", "face_up", "shuffle",
                                                "nickname", "tags", "scale", "description", "memo"))
    name = _name(at, spec["name"])
    return DeckSpec(
        name, _name(at, spec["cards"], "cards"), _name(at, spec.get("layout", spec["cards"]), "layout"),
        _name(at, spec["back"], "back"),
        _name(at, spec["count"], "count") if "count" in spec else None,
        _point(at, spec.get("position", [0, 0]), "position"), _rotation(at, spec),
        _flag(at, spec.get("face_up", False), "face_up"), _flag(at, spec.get("shuffle", False), "shuffle"),
        _text(at, spec.get("nickname", ""), "nickname"), _tags(at, spec.get("tags", [])),
        _number(at, spec.get("scale", 1.0), "scale", 0.05, 50), *_about(at, spec))


def _object(at: _At, spec: dict) -> ObjectSpec:
    _keys(at, spec, ("name", "type"), ("image", "layout", "values", "position", "rotation", "scale", "count",
                                       "nickname", "tags", "locked", "snap_points", "description", "memo"))
    kind = spec["type"]
    if kind not in OBJECT_TYPES:
        raise at.error("type", f"must be one of {', '.join(OBJECT_TYPES)}")
    if ("image" in spec) == ("layout" in spec):
        raise at.error("image", 'give exactly one of "image" (a file of the game folder) and "layout"')
    values = spec.get("values", {})
    if not isinstance(values, dict):
        raise at.error("values", "must be a table of the fields its layout prints")
    count = spec.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_COUNT:
        raise at.error("count", f"must be a whole number 0..{MAX_COUNT} (0: only in bags)")
    snaps = spec.get("snap_points", [])
    if not isinstance(snaps, list) or not all(isinstance(s, dict) for s in snaps):
        raise at.error("snap_points", "must be a list of { position = [x, z], rotation, tags }")
    return ObjectSpec(
        _name(at, spec["name"]), kind,
        _text(at, spec["image"], "image") if "image" in spec else None,
        _name(at, spec["layout"], "layout") if "layout" in spec else None, values,
        _point(at, spec.get("position", [0, 0]), "position"), _rotation(at, spec),
        _number(at, spec.get("scale", 1.0), "scale", 0.05, 50), count, _text(at, spec.get("nickname", ""), "nickname"),
        _tags(at, spec.get("tags", [])), _flag(at, spec.get("locked", kind == "board"), "locked"),
        tuple(_snap(_At(f"{at.entry}.snap_points[{i}]"), s, extent=50) for i, s in enumerate(snaps)),
        *_about(at, spec))


def _bag(at: _At, spec: dict) -> BagSpec:
    _keys(at, spec, ("name", "contents"), ("infinite", "position", "nickname", "tags", "description", "memo"))
    raw = spec["contents"]
    if not isinstance(raw, list) or not raw or not all(isinstance(c, dict) for c in raw):
        raise at.error("contents", 'must be a list of { object = "name", count = N }')
    contents = []
    for index, item in enumerate(raw):
        inner = _At(at.entry)
        unknown = sorted(set(item) - {"object", "count"})
        if unknown or "object" not in item:
            raise inner.error(f"contents[{index}]", 'must be { object = "name", count = N }')
        count = item.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
            raise inner.error(f"contents[{index}].count", f"must be a whole number 1..{MAX_COUNT}")
        contents.append((_name(inner, item["object"], f"contents[{index}].object"), count))
    infinite = _flag(at, spec.get("infinite", False), "infinite")
    if infinite and (len(contents) != 1 or contents[0][1] != 1):
        raise at.error("contents", "an infinite bag holds one object, once (it hands out copies of it)")
    return BagSpec(_name(at, spec["name"]), tuple(contents), infinite,
                   _point(at, spec.get("position", [0, 0]), "position"),
                   _text(at, spec.get("nickname", ""), "nickname"), _tags(at, spec.get("tags", [])),
                   *_about(at, spec))


def _zone(at: _At, spec: dict) -> ZoneSpec:
    _keys(at, spec, ("name", "position", "size"), ("tags", "memo"))
    return ZoneSpec(_name(at, spec["name"]), _point(at, spec["position"], "position"),
                    _size(at, spec["size"], "size"), _tags(at, spec.get("tags", [])), _about(at, spec)[1])


def _snap(at: _At, spec: dict, extent: float = TABLE_EXTENT) -> Snap:
    _keys(at, spec, ("position",), ("rotation", "tags"))
    return Snap(_point(at, spec["position"], "position", extent), _rotation(at, spec), _tags(at, spec.get("tags", [])))


def _label(at: _At, spec: dict) -> LabelSpec:
    _keys(at, spec, ("text", "position"), ("size", "colour", "rotation"))
    texts = _languages(at, spec["text"], "text")
    size = spec.get("size", 64)
    if not isinstance(size, int) or isinstance(size, bool) or not 8 <= size <= 1000:
        raise at.error("size", "must be a font size 8..1000")
    colour = spec.get("colour", "#ffffff")
    if not is_colour(colour):
        raise at.error("colour", 'must be "#rrggbb"')
    return LabelSpec(texts, _point(at, spec["position"], "position"), size, colour, _rotation(at, spec))


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

@dataclass(frozen=True)
class PlacedDeck:
    """What :func:`compose_objects` needs of a packed deck: each card's (name, sheet index, index in sheet) in
    deck order, the sheets as ``DeckSheet``\\ s, whether cards lie sideways."""

    cards: Sequence[tuple[str, int, int]]
    sheets: Sequence[DeckSheet]
    sideways: bool = False


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
                    seat_colours: Sequence[str], lang: str, game_id: str) -> tuple[list[GameObject], list[SnapPoint]]:
    """The save's top-level objects and world snap points for ``table``. ``decks`` are the packed decks by name;
    ``image_url(object name)`` is the URL of an object's image. Deterministic: a shuffled deck's order follows
    from the table's ``seed``, the game id and the deck's name."""
    objects: list[GameObject] = []
    for spec in table.decks:
        placed = decks[spec.name]
        order = list(placed.cards)
        if spec.shuffle:
            random.Random(f"{game_id}|{spec.name}|{table.seed}").shuffle(order)
        cards = [card(f"{spec.name}/{n}/{name}", sheet + 1, index, placed.sheets[sheet], sideways=placed.sideways,
                      nickname=name.split(":", 1)[1], tags=spec.tags, memo=spec.memo,
                      transform=at(*spec.position, 1.2, rot_y=180 + spec.rotation, face_down=not spec.face_up,
                                   scale=(spec.scale, 1.0, spec.scale)))
                 for n, (name, sheet, index) in enumerate(order)]
        transform = at(*spec.position, 1.2, rot_y=180 + spec.rotation, face_down=not spec.face_up,
                       scale=(spec.scale, 1.0, spec.scale))
        nickname = spec.nickname or spec.name
        description = _in(spec.description, lang)
        if len(cards) == 1:
            cards[0].nickname = nickname
            cards[0].description = description
            objects.append(cards[0])
        elif cards:
            # TTS stores a deck's top card last: the first card of the list is dealt first
            objects.append(deck(f"deck/{spec.name}", list(reversed(cards)), nickname=nickname, tags=spec.tags,
                                description=description, memo=spec.memo, transform=transform))
    pieces = {spec.name: spec for spec in table.objects}

    def piece(spec: ObjectSpec, key: str, position: tuple[float, float], y: float) -> GameObject:
        url = image_url(spec.name)
        common = dict(nickname=spec.nickname or spec.name, tags=spec.tags, locked=spec.locked,
                      description=_in(spec.description, lang), memo=spec.memo,
                      transform=at(*position, y, rot_y=180 + spec.rotation, scale=(spec.scale, 1.0, spec.scale)),
                      snap_points=[SnapPoint(Vector(s.position[0], SNAP_HEIGHT, s.position[1]), s.tags,
                                             Vector(0.0, s.rotation, 0.0)) for s in spec.snap_points])
        if spec.type == "board":
            return custom_board(key, url, **common)
        if spec.type == "tile":
            return custom_tile(key, url, **common)
        return custom_token(key, url, **common)

    for spec in table.objects:
        for copy in range(spec.count):
            # copies stack: each a little above the one below it
            objects.append(piece(spec, f"object/{spec.name}/{copy}", spec.position, 1.0 + 0.3 * copy))
    for spec in table.bags:
        contents = [piece(pieces[name], f"bag/{spec.name}/{name}/{n}", spec.position, 2.0)
                    for name, count in spec.contents for n in range(count)]
        common = dict(nickname=spec.nickname or spec.name, tags=spec.tags, transform=at(*spec.position, 1.5),
                      description=_in(spec.description, lang), memo=spec.memo)
        if spec.infinite:
            objects.append(infinite_bag(f"bag/{spec.name}", contents[0], **common))
        else:
            objects.append(bag(f"bag/{spec.name}", contents, **common))
    for spec in table.zones:
        objects.append(scripting_trigger(f"zone/{spec.name}", nickname=spec.name, tags=spec.tags,
                                         memo={"zone": spec.name, **(spec.memo or {})},
                                         transform=at(*spec.position, 1.5, scale=(spec.size[0], 2.0, spec.size[1]))))
    for index, spec in enumerate(table.labels):
        text = _in(spec.text, lang)
        objects.append(text_3d(f"label/{index}", text, colour=Colour.hex(spec.colour), font_size=spec.size,
                               transform=at(*spec.position, 1.05, rot_y=spec.rotation)))
    if table.hands is not None:
        colours = [c for c in (table.hands.colours or seat_colours)]
        for colour, (x, z) in hand_positions(table.hands, colours).items():
            objects.append(hand_trigger(f"hand/{colour}", colour,
                                        transform=at(x, z, 3.0, scale=(table.hands.size[0], 5.0,
                                                                       table.hands.size[1]))))
    snaps = [SnapPoint(Vector(s.position[0], 1.0, s.position[1]), s.tags, Vector(0.0, s.rotation, 0.0))
             for s in table.snap_points]
    return objects, snaps
