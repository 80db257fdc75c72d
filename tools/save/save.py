"""A whole TTS save: top-level settings, Global script and UI, the objects; serialised like TTS writes it.

Output contract (tts-facts §2.1–2.2): UTF-8 JSON, 2-space indent, LF newlines, non-ASCII text unescaped,
top-level keys in the order TTS v13.2 writes them, no trailing newline.  The same :class:`Save` always gives
the same bytes: ``Date``/``EpochTime`` come from ``epoch_time`` (default :data:`DEFAULT_EPOCH`, or the
``SOURCE_DATE_EPOCH`` convention of reproducible builds when the caller passes it), never from the clock.

GUIDs are allocated when the save is serialised, walking the objects in order (each object, then its
contents depth-first): explicit GUIDs are reserved first, the others are derived from the object keys
(:mod:`tools.save.guids`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Sequence

from tools.save.guids import GuidAllocator
from tools.save.objects import GameObject, SnapPoint

DEFAULT_EPOCH = 1704067200  # 2024-01-01 00:00:00 UTC: a fixed "saved at" for reproducible output
VERSION_NUMBER = "v13.2.2"  # the save layout we follow (SAVE-A)


def epoch_from_env(default: int = DEFAULT_EPOCH) -> int:
    """``SOURCE_DATE_EPOCH`` when set to an integer, else ``default``."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "")
    return int(value) if value.isdigit() else default


def tts_date(epoch: int) -> str:
    """The ``Date`` text TTS writes (``"11/22/2022 3:32:32 PM"``), in UTC."""
    moment = datetime.fromtimestamp(epoch, tz=timezone.utc)
    hour = moment.hour % 12 or 12
    half = "AM" if moment.hour < 12 else "PM"
    return f"{moment.month}/{moment.day}/{moment.year} {hour}:{moment.minute:02d}:{moment.second:02d} {half}"


def _grid() -> dict[str, Any]:
    return {"Type": 0, "Lines": False, "Color": {"r": 0.0, "g": 0.0, "b": 0.0}, "Opacity": 0.75,
            "ThickLines": False, "Snapping": False, "Offset": False, "BothSnapping": False,
            "xSize": 2.0, "ySize": 2.0, "PosOffset": {"x": 0.0, "y": 1.0, "z": 0.0}}


def _lighting() -> dict[str, Any]:
    grey = {"r": 0.5, "g": 0.5, "b": 0.5}
    return {"LightIntensity": 0.54, "LightColor": {"r": 1.0, "g": 0.9804, "b": 0.8902},
            "AmbientIntensity": 1.3, "AmbientType": 0, "AmbientSkyColor": grey, "AmbientEquatorColor": grey,
            "AmbientGroundColor": grey, "ReflectionIntensity": 1.0, "LutIndex": 0, "LutContribution": 1.0}


@dataclass
class Save:
    """A TTS save.  ``objects`` are the top-level ``ObjectStates``; ``snap_points`` are world snap points."""

    name: str
    objects: Sequence[GameObject] = ()
    lua_script: str = ""
    xml_ui: str = ""
    lua_script_state: str = ""
    note: str = ""
    rules: str = ""
    table: str = "Table_Square"
    sky: str = "Sky_Museum"
    game_type: str = "Game"
    complexity: str = "Medium Complexity"
    playing_time: tuple[int, int] = (30, 60)
    player_counts: tuple[int, int] = (2, 6)
    epoch_time: int = DEFAULT_EPOCH
    snap_points: Sequence[SnapPoint] = ()
    turn_order: Sequence[str] = ()
    extra_tags: Sequence[str] = field(default_factory=tuple)

    def all_objects(self):
        for obj in self.objects:
            yield from obj.walk()

    def allocate_guids(self) -> dict[int, str]:
        """``id(object) → GUID`` for every object, explicit GUIDs first, then derived ones in walk order."""
        allocator = GuidAllocator()
        objects = list(self.all_objects())
        result: dict[int, str] = {}
        for obj in objects:
            if obj.guid is not None:
                result[id(obj)] = allocator.reserve(obj.guid, obj.key)
        for obj in objects:
            if obj.guid is None:
                result[id(obj)] = allocator.allocate(obj.key)
        return result

    def component_tags(self) -> list[dict[str, str]]:
        """The ``ComponentTags`` registry: every tag used by an object or snap point, in first-use order."""
        seen: dict[str, None] = {}
        for tag in self.extra_tags:
            seen.setdefault(tag, None)
        for obj in self.all_objects():
            for tag in obj.tags:
                seen.setdefault(tag, None)
            for point in obj.snap_points:
                for tag in point.tags:
                    seen.setdefault(tag, None)
        for point in self.snap_points:
            for tag in point.tags:
                seen.setdefault(tag, None)
        return [{"displayed": t, "normalized": t.lower()} for t in seen]

    def to_json(self) -> dict[str, Any]:
        guid_of = self.allocate_guids()
        out: dict[str, Any] = {
            "SaveName": self.name,
            "EpochTime": self.epoch_time,
            "Date": tts_date(self.epoch_time),
            "VersionNumber": VERSION_NUMBER,
            "GameMode": self.name,
            "GameType": self.game_type,
            "GameComplexity": self.complexity,
            "PlayingTime": list(self.playing_time),
            "PlayerCounts": list(self.player_counts),
            "Tags": [],
            "Gravity": 0.5,
            "PlayArea": 0.5,
            "Table": self.table,
            "Sky": self.sky,
            "Note": self.note,
            "Rules": self.rules,
            "TabStates": {},
            "Grid": _grid(),
            "Lighting": _lighting(),
            "Hands": {"Enable": True, "DisableUnused": False, "Hiding": 0},
            "ComponentTags": {"labels": self.component_tags()},
            "Turns": {"Enable": False, "Type": 0, "TurnOrder": list(self.turn_order), "Reverse": False,
                      "SkipEmpty": False, "DisableInteractions": False, "PassTurns": True, "TurnColor": ""},
            "DecalPallet": [],
            "LuaScript": self.lua_script,
            "LuaScriptState": self.lua_script_state,
            "XmlUI": self.xml_ui,
            "SnapPoints": [p.to_json() for p in self.snap_points],
            "ObjectStates": [obj.to_json(guid_of) for obj in self.objects],
        }
        return out


def dumps(data: dict[str, Any]) -> str:
    """Save JSON text as TTS writes it: 2-space indent, UTF-8 characters unescaped, no trailing newline.

    Exactly ``json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)``, character for character, errors
    included; only faster (the standard library encodes indented JSON in pure Python, a generator per level)."""
    try:
        return _value(data, 0)
    except _Unusual:
        # Anything the fast path does not take as it is (a key that is not a string, an int or float subclass,
        # a value json cannot encode, NaN): the standard encoder, so its text or its error is the answer.
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


class _Unusual(Exception):
    """A value :func:`_value` leaves to the standard encoder."""


_encode_string = json.encoder.encode_basestring   # the C function json itself uses with ensure_ascii=False
_INF = float("inf")
_key_texts: dict[str, str] = {}   # a key's JSON text and separator: saves repeat the same few hundred keys
_NEWLINES: list[str] = []         # "\n" + the indent of each nesting level


def _newline(level: int) -> str:
    while len(_NEWLINES) <= level:
        _NEWLINES.append("\n" + "  " * len(_NEWLINES))
    return _NEWLINES[level]


def _value(value: Any, level: int) -> str:
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = _newline(level + 1)
        keys = _key_texts
        parts = []
        for key, item in value.items():
            text = keys.get(key) if type(key) is str else None
            if text is None:
                if type(key) is not str:
                    raise _Unusual
                text = keys[key] = _encode_string(key) + ": "
            kind = type(item)
            if kind is str:
                parts.append(text + _encode_string(item))
            elif kind is float:
                if item != item or item == _INF or item == -_INF:
                    raise _Unusual
                parts.append(text + float.__repr__(item))
            elif kind is int:
                parts.append(text + int.__repr__(item))
            else:
                parts.append(text + _value(item, level + 1))
        return "{" + inner + ("," + inner).join(parts) + _newline(level) + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = _newline(level + 1)
        return "[" + inner + ("," + inner).join([_value(item, level + 1) for item in value]) + _newline(level) + "]"
    if kind is float:
        if value != value or value == _INF or value == -_INF:
            raise _Unusual
        return float.__repr__(value)
    if kind is int:
        return int.__repr__(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    raise _Unusual


def save_bytes(save: Save) -> bytes:
    """The exact bytes of ``save`` as a ``.json`` file."""
    return dumps(save.to_json()).encode("utf-8")
