"""The TTS objects ttsmod writes, as small values that serialise to save JSON in TTS's own key order.

One :class:`GameObject` type covers every object; the constructors below (:func:`card`, :func:`deck`,
:func:`custom_tile`, :func:`custom_token`, :func:`custom_board`, :func:`bag`, :func:`infinite_bag`,
:func:`scripting_trigger`, :func:`text_3d`, :func:`notecard`) fill the type-specific payload and enforce
the invariants TTS relies on (tts-facts §2.3–2.6):

- keys are written in the order TTS v13.2 writes them (``GUID, Name, Transform, Nickname, …, Hands``, the
  payload, ``LuaScript, LuaScriptState, XmlUI``, ``AttachedSnapPoints``, ``ContainedObjects``);
- a card's ``CardID`` is ``deck key × 100 + index in sheet`` and its own ``CustomDeck`` holds exactly its key;
- a deck's ``DeckIDs`` list its cards' ``CardID`` in ``ContainedObjects`` order and its ``CustomDeck`` holds
  every key its cards use; a deck has at least two cards (TTS turns a one-card deck into a card);
- ``Memo`` (script-only notes) is a compact JSON string when given a mapping.

Every object has a ``key``: its stable identity on the table (``"bag:White/potion:3"``), from which
:class:`tools.save.save.Save` derives its GUID.  Nothing here does I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

_MEMO_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""What ``json.dumps(memo, ensure_ascii=False, separators=(",", ":"))`` makes an encoder for, made once."""

CARD_TINT = 0.713235259  # the grey every TTS card and deck sample carries as ColorDiffuse
ROUND_DIGITS = 4  # positions/rotations/scales are rounded so float noise never changes the output


_ROUNDED: dict[float, float] = {}
"""A value → :func:`_num` of it: a table repeats the same few coordinates on thousands of objects, and ``round``
to digits is slow (it goes through the value's decimal text)."""


def _num(value: float) -> float:
    known = _ROUNDED.get(value)
    if known is None:
        rounded = round(float(value), ROUND_DIGITS)
        known = 0.0 if rounded == 0 else rounded  # no "-0.0"
        if len(_ROUNDED) > 100_000:
            _ROUNDED.clear()
        # Keyed by value: equal numbers (1, 1.0, True, -0.0 and 0.0) round alike.
        _ROUNDED[value] = known
    return known


@dataclass(frozen=True)
class Vector:
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0

    def to_json(self) -> dict[str, float]:
        return {"x": _num(self.x), "y": _num(self.y), "z": _num(self.z)}


@dataclass(frozen=True)
class Transform:
    """World position, Euler rotation in degrees and scale; ``rot_z = 180`` lays a card or deck face down."""

    pos_x: float = 0.0
    pos_y: float = 1.0
    pos_z: float = 0.0
    rot_x: float = 0.0
    rot_y: float = 180.0
    rot_z: float = 0.0
    scale_x: float = 1.0
    scale_y: float = 1.0
    scale_z: float = 1.0

    def to_json(self) -> dict[str, float]:
        return {
            "posX": _num(self.pos_x), "posY": _num(self.pos_y), "posZ": _num(self.pos_z),
            "rotX": _num(self.rot_x), "rotY": _num(self.rot_y), "rotZ": _num(self.rot_z),
            "scaleX": _num(self.scale_x), "scaleY": _num(self.scale_y), "scaleZ": _num(self.scale_z),
        }


def at(x: float, z: float, y: float = 1.0, *, scale: float | tuple[float, float, float] = 1.0,
       rot_y: float = 180.0, face_down: bool = False) -> Transform:
    """A transform at table position ``(x, z)``; ``scale`` is uniform or ``(sx, sy, sz)``."""
    sx, sy, sz = (scale, scale, scale) if isinstance(scale, (int, float)) else scale
    return Transform(x, y, z, 0.0, rot_y, 180.0 if face_down else 0.0, sx, sy, sz)


@dataclass(frozen=True)
class Colour:
    r: float
    g: float
    b: float
    a: float | None = None

    @classmethod
    def hex(cls, text: str) -> "Colour":
        """``"#rrggbb"`` → a colour with components in 0..1."""
        value = text.lstrip("#")
        if len(value) != 6:
            raise ValueError(f'"{text}" is not a #rrggbb colour')
        r, g, b = (int(value[i:i + 2], 16) / 255 for i in (0, 2, 4))
        return cls(r, g, b)

    def to_json(self) -> dict[str, float]:
        out = {"r": _num(self.r), "g": _num(self.g), "b": _num(self.b)}
        if self.a is not None:
            out["a"] = _num(self.a)
        return out


WHITE = Colour(1.0, 1.0, 1.0)
CARD_GREY = Colour(CARD_TINT, CARD_TINT, CARD_TINT)


@dataclass(frozen=True)
class SnapPoint:
    """An attached snap point: ``position`` in the object's local (unscaled) coordinates, with tags."""

    position: Vector
    tags: tuple[str, ...] = ()
    rotation: Vector | None = field(default_factory=Vector)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"Position": self.position.to_json()}
        if self.rotation is not None:
            out["Rotation"] = self.rotation.to_json()
        out["Tags"] = list(self.tags)
        return out


@dataclass(frozen=True)
class DeckSheet:
    """One ``CustomDeck`` entry: a face sheet of ``columns × rows`` cells and its back image.

    ``card_type``: 0 rounded rectangle, 1 rectangle, 2 rounded hex, 3 hex, 4 circle.
    """

    face_url: str
    back_url: str
    columns: int
    rows: int
    back_is_hidden: bool = False
    unique_back: bool = False
    card_type: int = 0

    def __post_init__(self) -> None:
        if not (1 <= self.columns <= 10 and 1 <= self.rows <= 7):
            raise ValueError(f"a sheet grid is at most 10 x 7, not {self.columns} x {self.rows}")

    def to_json(self) -> dict[str, Any]:
        return {
            "FaceURL": self.face_url,
            "BackURL": self.back_url,
            "NumWidth": self.columns,
            "NumHeight": self.rows,
            "BackIsHidden": self.back_is_hidden,
            "UniqueBack": self.unique_back,
            "Type": self.card_type,
        }


@dataclass
class GameObject:
    """One TTS object state.  ``payload`` holds the type-specific keys (``CardID``, ``CustomImage``, …) in
    their written order; build objects through the constructor functions of this module."""

    key: str
    name: str
    transform: Transform = field(default_factory=Transform)
    nickname: str = ""
    description: str = ""
    gm_notes: str = ""
    memo: str | Mapping[str, Any] | None = None
    colour: Colour = WHITE
    tags: tuple[str, ...] = ()
    locked: bool = False
    grid: bool = True
    snap: bool = True
    tooltip: bool = True
    hide_when_face_down: bool = False
    hands: bool = False
    payload: dict[str, Any] = field(default_factory=dict)
    lua_script: str = ""
    lua_script_state: str = ""
    xml_ui: str = ""
    snap_points: tuple[SnapPoint, ...] = ()
    contained: tuple["GameObject", ...] = ()
    contained_allowed: bool = False
    guid: str | None = None  # an explicit GUID; otherwise derived from ``key``

    def memo_text(self) -> str | None:
        if self.memo is None or isinstance(self.memo, str):
            return self.memo
        return _MEMO_JSON.encode(self.memo)

    def walk(self):
        """This object, then every contained object depth-first, in ``ContainedObjects`` order."""
        yield self
        for child in self.contained:
            yield from child.walk()

    def to_json(self, guid_of: Mapping[int, str], shared: dict[int, Any] | None = None, *, leaves: Any = None,
                level: int = 2) -> dict[str, Any]:
        """The object's JSON dict; ``guid_of`` maps ``id(obj)`` to its allocated GUID. ``leaves`` (with the
        object's nesting ``level`` in the save's text) places each contained object (``leaves.place(child,
        level)``: :meth:`tools.save.Save.to_json` with a previous build's texts).

        ``shared`` (one dict for a whole save, :meth:`tools.save.Save.to_json`): the JSON of each transform,
        colour and snap point, made once for all the objects holding the same one (a deck's thousands of cards
        hold one transform, one colour and a few slot snap points); those dicts are then shared, so the result
        is to be read, not changed."""
        json_of = _json_of if shared is not None else _own_json
        out: dict[str, Any] = {
            "GUID": guid_of[id(self)],
            "Name": self.name,
            "Transform": json_of(self.transform, shared),
            "Nickname": self.nickname,
            "Description": self.description,
            "GMNotes": self.gm_notes,
        }
        memo = self.memo_text()
        if memo is not None:
            out["Memo"] = memo
        out.update({
            "AltLookAngle": {"x": 0.0, "y": 0.0, "z": 0.0},
            "ColorDiffuse": json_of(self.colour, shared),
        })
        if self.tags:
            out["Tags"] = list(self.tags)
        out.update({
            "LayoutGroupSortIndex": 0,
            "Value": 0,
            "Locked": self.locked,
            "Grid": self.grid,
            "Snap": self.snap,
            "IgnoreFoW": False,
            "MeasureMovement": False,
            "DragSelectable": True,
            "Autoraise": True,
            "Sticky": True,
            "Tooltip": self.tooltip,
            "GridProjection": False,
            "HideWhenFaceDown": self.hide_when_face_down,
            "Hands": self.hands,
        })
        out.update(self.payload)
        out["LuaScript"] = self.lua_script
        out["LuaScriptState"] = self.lua_script_state
        out["XmlUI"] = self.xml_ui
        if self.snap_points:
            out["AttachedSnapPoints"] = [json_of(p, shared) for p in self.snap_points]
        if self.contained_allowed:
            out["ContainedObjects"] = ([leaves.place(child, level + 2) for child in self.contained]
                                       if leaves is not None else
                                       [child.to_json(guid_of, shared) for child in self.contained])
        return out


def _own_json(value: Any, shared: None) -> Any:
    return value.to_json()


def _json_of(value: Any, shared: dict[int, Any]) -> Any:
    # By identity: the objects live as long as the save being written, and equal ones made apart are rare.
    made = shared.get(id(value))
    if made is None:
        made = shared[id(value)] = value.to_json()
    return made


def _common(kwargs: dict[str, Any]) -> dict[str, Any]:
    allowed = {"transform", "nickname", "description", "gm_notes", "memo", "colour", "tags", "locked",
               "grid", "snap", "tooltip", "lua_script", "lua_script_state", "xml_ui", "snap_points", "guid",
               "hands"}
    unknown = set(kwargs) - allowed
    if unknown:
        raise TypeError(f"unknown object option(s): {', '.join(sorted(unknown))}")
    if "tags" in kwargs:
        kwargs["tags"] = tuple(kwargs["tags"])
    if "snap_points" in kwargs:
        kwargs["snap_points"] = tuple(kwargs["snap_points"])
    return kwargs


def card(key: str, deck_key: int, index: int, sheet: DeckSheet, *, sideways: bool = False,
         **kwargs: Any) -> GameObject:
    """A custom card: face ``index`` (0-based, row-major) of ``sheet``, registered as ``CustomDeck[deck_key]``."""
    if deck_key < 1:
        raise ValueError(f"a CustomDeck key is ≥ 1, not {deck_key}")
    if not 0 <= index < min(100, sheet.columns * sheet.rows):
        raise ValueError(f"card index {index} is outside a {sheet.columns} x {sheet.rows} sheet")
    kwargs.setdefault("colour", CARD_GREY)
    obj = GameObject(key, "Card", hide_when_face_down=True, hands=True, **_common(kwargs))
    obj.payload = {
        "CardID": deck_key * 100 + index,
        "SidewaysCard": sideways,
        "CustomDeck": {str(deck_key): sheet.to_json()},
    }
    return obj


def card_id(obj: GameObject) -> int:
    return int(obj.payload["CardID"])


def deck(key: str, cards: Sequence[GameObject], **kwargs: Any) -> GameObject:
    """A deck of ``cards`` (≥ 2), top card last as TTS stores it; ``DeckIDs``/``CustomDeck`` derived from them."""
    if len(cards) < 2:
        raise ValueError(f"a deck needs at least two cards, not {len(cards)}")
    custom: dict[str, Any] = {}
    for c in cards:
        if c.name != "Card":
            raise ValueError(f"a deck holds cards, not {c.name}")
        for k, v in c.payload["CustomDeck"].items():
            if custom.setdefault(k, v) != v:
                raise ValueError(f"two different sheets under CustomDeck key {k}")
    kwargs.setdefault("colour", CARD_GREY)
    obj = GameObject(key, "Deck", hide_when_face_down=True, hands=False, contained_allowed=True,
                     **_common(kwargs))
    obj.payload = {
        "SidewaysCard": False,
        "DeckIDs": [card_id(c) for c in cards],
        "CustomDeck": custom,
    }
    obj.contained = tuple(cards)
    return obj


def _custom_image(image_url: str, secondary_url: str, extra_key: str, extra: dict[str, Any],
                  width_scale: float = 0.0) -> dict[str, Any]:
    return {"CustomImage": {
        "ImageURL": image_url,
        "ImageSecondaryURL": secondary_url,
        "ImageScalar": 1.0,
        "WidthScale": width_scale,
        extra_key: extra,
    }}


TILE_TYPES = {"box": 0, "hex": 1, "circle": 2, "rounded": 3}


def custom_tile(key: str, image_url: str, *, back_url: str = "", shape: str = "box", thickness: float = 0.1,
                stackable: bool = False, stretch: bool = True, **kwargs: Any) -> GameObject:
    """A ``Custom_Tile``: ``image_url`` on top, ``back_url`` (or the same image) underneath."""
    obj = GameObject(key, "Custom_Tile", **_common(kwargs))
    obj.payload = _custom_image(image_url, back_url, "CustomTile", {
        "Type": TILE_TYPES[shape], "Thickness": thickness, "Stackable": stackable, "Stretch": stretch})
    return obj


def custom_token(key: str, image_url: str, *, back_url: str = "", thickness: float = 0.2,
                 merge_distance: float = 15.0, stand_up: bool = False, stackable: bool = False,
                 **kwargs: Any) -> GameObject:
    """A ``Custom_Token`` cut out of ``image_url`` along its alpha channel."""
    obj = GameObject(key, "Custom_Token", **_common(kwargs))
    obj.payload = _custom_image(image_url, back_url, "CustomToken", {
        "Thickness": thickness, "MergeDistancePixels": merge_distance, "StandUp": stand_up,
        "Stackable": stackable})
    return obj


def custom_board(key: str, image_url: str, **kwargs: Any) -> GameObject:
    """A ``Custom_Board`` showing ``image_url`` (scaled to the image's aspect by TTS)."""
    obj = GameObject(key, "Custom_Board", **_common(kwargs))
    obj.payload = {"CustomImage": {"ImageURL": image_url, "ImageSecondaryURL": "", "ImageScalar": 1.0,
                                   "WidthScale": 0.0}}
    return obj


BAG_ORDERS = {"lifo": 0, "fifo": 1, "random": 2}


def bag(key: str, contents: Sequence[GameObject], *, order: str = "random", **kwargs: Any) -> GameObject:
    """A ``Bag`` holding ``contents``; ``order`` is how TTS hands objects out (lifo, fifo, random)."""
    obj = GameObject(key, "Bag", contained_allowed=True, **_common(kwargs))
    obj.payload = {"MaterialIndex": -1, "MeshIndex": -1, "Bag": {"Order": BAG_ORDERS[order]}}
    obj.contained = tuple(contents)
    return obj


def infinite_bag(key: str, template: GameObject, **kwargs: Any) -> GameObject:
    """An ``Infinite_Bag`` that hands out copies of ``template``."""
    obj = GameObject(key, "Infinite_Bag", contained_allowed=True, **_common(kwargs))
    obj.payload = {"MaterialIndex": -1, "MeshIndex": -1}
    obj.contained = (template,)
    return obj


def scripting_trigger(key: str, **kwargs: Any) -> GameObject:
    """A scripting zone (``ScriptingTrigger``): its transform's scale is the zone's size."""
    kwargs.setdefault("colour", Colour(1.0, 1.0, 1.0, 0.5))
    kwargs.setdefault("locked", True)
    return GameObject(key, "ScriptingTrigger", **_common(kwargs))


def hand_trigger(key: str, owner: str, **kwargs: Any) -> GameObject:
    """A player's hand zone (``HandTrigger``) for seat colour ``owner``; its transform's scale is its size."""
    seat = seat_colour(owner)
    kwargs.setdefault("colour", Colour(seat.r, seat.g, seat.b, 0.0))
    kwargs.setdefault("locked", True)
    kwargs.setdefault("grid", False)
    obj = GameObject(key, "HandTrigger", **_common(kwargs))
    obj.payload["FogColor"] = owner
    return obj


SEAT_COLOURS = {"White": "#ffffff", "Brown": "#713b17", "Red": "#db1a18", "Orange": "#f4641d",
                "Yellow": "#e7e52c", "Green": "#31b32b", "Teal": "#21b19b", "Blue": "#1f87ff",
                "Purple": "#a020f0", "Pink": "#f570ce"}
"""TTS's seat colours (player names) and the tint TTS gives each."""


def seat_colour(name: str) -> Colour:
    """The tint of seat colour ``name`` (grey for a name TTS does not know)."""
    return Colour.hex(SEAT_COLOURS.get(name, "#b0b0b0"))


def text_3d(key: str, text: str, *, colour: Colour = WHITE, font_size: int = 64, **kwargs: Any) -> GameObject:
    """A ``3DText`` label lying on the table."""
    obj = GameObject(key, "3DText", **_common(kwargs))
    obj.payload = {"Text": {"Text": text, "colorstate": colour.to_json(), "fontSize": font_size}}
    return obj


def notecard(key: str, title: str, body: str, **kwargs: Any) -> GameObject:
    """A ``Notecard``: TTS shows ``Nickname`` as its title and ``Description`` as its text."""
    kwargs["nickname"] = title
    kwargs["description"] = body
    return GameObject(key, "Notecard", **_common(kwargs))
