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

import hashlib
import json
import marshal
import os
import pickle
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence

from bridge.fsio import atomic_write_bytes
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
        # A deck's cards hold the same tags and snap points: each of them (by identity, alive while the save is)
        # is read once; those seen again add no tag.
        read: set[int] = set()
        for obj in self.all_objects():
            if id(obj.tags) not in read:
                read.add(id(obj.tags))
                for tag in obj.tags:
                    seen.setdefault(tag, None)
            for point in obj.snap_points:
                if id(point) not in read:
                    read.add(id(point))
                    for tag in point.tags:
                        seen.setdefault(tag, None)
        for point in self.snap_points:
            for tag in point.tags:
                seen.setdefault(tag, None)
        return [{"displayed": t, "normalized": t.lower()} for t in seen]

    def to_json(self, known: "ObjectTexts | None" = None) -> dict[str, Any]:
        """The save as JSON values (:func:`dumps` makes its text). Objects holding the same transform, colour or
        snap point share its dict (:meth:`GameObject.to_json`): read the result, do not change it.

        With ``known`` (the texts of a previous build), an object inside another (a card in a deck, a token in a
        bag) that holds no others and whose :func:`object_key` names a kept text is a :class:`KeptObject` (its
        text, not its dict: a rebuild after one edit of a 10,000-card deck made and encoded every card's dict
        again), and every other object that holds none is named by its key for :func:`encode`, which keeps its
        text under it. :func:`plain` makes the result plain JSON values."""
        guid_of = self.allocate_guids()
        shared: dict[int, Any] = {}
        leaves = _Leaves(known, guid_of, shared) if known is not None else None
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
            "ObjectStates": ([leaves.place(obj, 2) for obj in self.objects] if leaves is not None else
                             [obj.to_json(guid_of, shared) for obj in self.objects]),
        }
        return out


class KeptObject(Mapping[str, Any]):
    """An object of a save that holds no others (a card in a deck, a token in a bag) given as the text a
    previous build made of it (:meth:`Save.to_json` with ``known``): :func:`encode` writes the text as it is, the
    build's check takes its GUID, its URLs and its verdict by its key, and reading anything else of it reads the
    text (:meth:`value`)."""

    __slots__ = ("key", "text", "guid", "_known", "_value")

    def __init__(self, key: bytes, text: bytes | memoryview, guid: str, known: dict[str, Any] | None = None
                 ) -> None:
        self.key, self.text, self.guid = key, text, guid
        self._known = {"GUID": guid, **(known or {})}   # values its text holds, known without reading it
        self._value: dict[str, Any] | None = None

    def value(self) -> dict[str, Any]:
        """The object's JSON values (read from its text once)."""
        if self._value is None:
            text = self.text
            self._value = json.loads(text if type(text) is bytes else bytes(text))
        return self._value

    def __getitem__(self, name: str) -> Any:
        known = self._known.get(name, _UNKNOWN)
        return self.value()[name] if known is _UNKNOWN else known

    def get(self, name: str, default: Any = None) -> Any:
        known = self._known.get(name, _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        if name in _HOLDING or name in _KNOWN_WHEN_THERE:   # never there: kept objects hold no others
            return default
        return self.value().get(name, default)

    def __iter__(self):
        return iter(self.value())

    def __len__(self) -> int:
        return len(self.value())

    def __repr__(self) -> str:
        return f"KeptObject({self.guid!r})"

    def __reduce__(self):
        # copied or pickled with its text as bytes: a text read from a file is a view of it (ObjectTexts)
        known = {name: value for name, value in self._known.items() if name != "GUID"}
        return KeptObject, (self.key, bytes(self.text), self.guid, known)


_HOLDING = frozenset(("ContainedObjects", "ChildObjects", "States"))
_KNOWN_WHEN_THERE = frozenset(("CardID",))
"""Keys a :class:`KeptObject` knows whenever its text holds them (a deck's check reads its cards' CardIDs)."""
_UNKNOWN = object()


def plain(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a :meth:`Save.to_json` result) with every :class:`KeptObject` replaced by its values, in place."""
    stack = [data.get("ObjectStates")]
    while stack:
        objects = stack.pop()
        if not isinstance(objects, list):
            continue
        for index, obj in enumerate(objects):
            if type(obj) is KeptObject:
                objects[index] = obj.value()
            elif isinstance(obj, dict):
                stack.append(obj.get("ContainedObjects"))
    return data


_CODE: list[bytes | None] = []


def _code_digest() -> bytes | None:
    """The digest of the code that makes an object's values (tools/save/objects.py and this module), or None
    when it cannot be read (then no object is named by its fields)."""
    if not _CODE:
        from tools.save import objects

        try:
            source = Path(objects.__file__).read_bytes() + b"\0" + Path(__file__).read_bytes()
            _CODE.append(hashlib.blake2b(source, digest_size=16).digest())
        except (OSError, TypeError):
            _CODE.append(None)
    return _CODE[0]


class _Leaves:
    """How :meth:`Save.to_json` places the objects that hold no others when given a previous build's texts."""

    def __init__(self, known: "ObjectTexts", guid_of: dict[int, str], shared: dict[int, Any]) -> None:
        self.known, self.guid_of, self.shared = known, guid_of, shared
        self.code = _code_digest()
        self._digests: dict[int, tuple[Any, bytes]] = {}   # id(value) → (it, the digest of its JSON values)

    def _digest(self, value: Any) -> bytes:
        # by identity, as GameObject.to_json shares these values' dicts: a deck's cards hold a few of them
        found = self._digests.get(id(value))
        if found is None or found[0] is not value:
            found = self._digests[id(value)] = (
                value, hashlib.blake2b(marshal.dumps(value.to_json(), 2), digest_size=16).digest())
        return found[1]

    def _points(self, points: tuple) -> bytes:
        # a card's snap points are a tuple of its own holding the few shared ones of its deck: by their identities
        ids = tuple(map(id, points))
        found = self._digests.get(ids)   # type: ignore[call-overload]
        if found is None:
            found = self._digests[ids] = (points, hashlib.blake2b(  # type: ignore[index]
                marshal.dumps([point.to_json() for point in points], 2), digest_size=16).digest())
        return found[1]

    def key(self, obj: GameObject, level: int) -> bytes | None:
        """:func:`object_key` of ``obj`` at ``level``."""
        if self.code is None:
            return None
        return object_key(obj, self.guid_of[id(obj)], level, self.code, self._digest, self._points)

    def place(self, obj: GameObject, level: int) -> Any:
        if obj.contained_allowed:
            return obj.to_json(self.guid_of, self.shared, leaves=self, level=level)
        key = self.key(obj, level)
        if key is not None and level > 2:   # inside another object: never read by the preview's drawing
            text = self.known.kept(key)
            if text is not None:
                known = {"Name": obj.name}
                if "CardID" in obj.payload:
                    known["CardID"] = obj.payload["CardID"]
                return KeptObject(key, text, self.guid_of[id(obj)], known)
        value = obj.to_json(self.guid_of, self.shared)
        if key is not None:
            self.known.name_as(value, level, key)
        return value


def object_key(obj: GameObject, guid: str, level: int, code: bytes, digest, points) -> bytes | None:
    """The key of the text of ``obj`` (an object holding no others) written with ``guid`` at nesting ``level``:
    every field :meth:`GameObject.to_json` writes (the values of its transform and colour by ``digest(value)``,
    of its snap points by ``points(them)``, the rest as they are, marshalled: exact types, no back-references),
    the GUID and ``code`` (the digest of the code that writes them). None when a field is no plain value (then
    the text is named by its value)."""
    try:
        fields = (obj.name, digest(obj.transform), obj.nickname, obj.description, obj.gm_notes, obj.memo,
                  digest(obj.colour), obj.tags, obj.locked, obj.grid, obj.snap, obj.tooltip, obj.hide_when_face_down,
                  obj.hands, obj.payload, obj.lua_script, obj.lua_script_state, obj.xml_ui,
                  points(obj.snap_points), obj.contained_allowed, guid)
        raw = marshal.dumps(fields, 2)
    except (ValueError, AttributeError, TypeError):
        return None
    return level.to_bytes(2, "big") + hashlib.blake2b(b"object\0" + code + raw, digest_size=16).digest()


def dumps(data: dict[str, Any], *, known: "ObjectTexts | None" = None) -> str:
    """Save JSON text as TTS writes it: 2-space indent, UTF-8 characters unescaped, no trailing newline.

    Exactly ``json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)``, character for character, errors
    included; only faster (the standard library encodes indented JSON in pure Python, a generator per level).
    With ``known``, the text of each object that holds no others (a card, a token, a zone) is taken from it when
    that object is the same as when its text was made (the texts of a previous build), and added to it if not."""
    if known is not None:
        return encode(data, known=known).decode("utf-8")
    try:
        return _value(data, 0)
    except _Unusual:
        # Anything the fast path does not take as it is (a key that is not a string, an int or float subclass,
        # a value json cannot encode, NaN): the standard encoder, so its text or its error is the answer.
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False, default=_kept_value)


def encode(data: dict[str, Any], *, known: "ObjectTexts | None" = None) -> bytes:
    """``dumps(data, known=known).encode("utf-8")``, the bytes of a save file; the known objects' texts go in as
    the bytes they are kept as, never decoded and encoded again (a 10,000-card save is 37 MB of them)."""
    if known is None:
        return dumps(data).encode("utf-8")
    out: list[str | bytes] = []
    try:
        _write(data, 0, out, known)   # type: ignore[arg-type]
    except _Unusual:
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False, default=_kept_value).encode("utf-8")
    # (a kept text is bytes, or a view of the texts file read: ObjectTexts.from_bytes)
    return b"".join([piece.encode("utf-8") if type(piece) is str else piece for piece in out])  # type: ignore


class _Unusual(Exception):
    """A value :func:`_value` leaves to the standard encoder."""


def _kept_value(value: Any) -> Any:
    """The standard encoder's ``default``: a :class:`KeptObject` as its value, anything else refused as json
    refuses it."""
    if type(value) is KeptObject:
        return value.value()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_encode_string = json.encoder.encode_basestring   # the C function json itself uses with ensure_ascii=False
_INF = float("inf")
_key_texts: dict[str, str] = {}   # a key's JSON text and separator: saves repeat the same few hundred keys
_NEWLINES: list[str] = []         # "\n" + the indent of each nesting level


def _newline(level: int) -> str:
    while len(_NEWLINES) <= level:
        _NEWLINES.append("\n" + "  " * len(_NEWLINES))
    return _NEWLINES[level]


def _value(value: Any, level: int, known: "ObjectTexts | None" = None) -> str:
    out: list[str] = []
    _write(value, level, out, known)
    return "".join(out)


def _write(value: Any, level: int, out: list[str], known: "ObjectTexts | None") -> None:
    """Append the text of ``value`` at nesting ``level`` to ``out``. One list for the whole save, joined once: the
    text of a 10,000-card deck is not copied again into each enclosing level's text."""
    kind = type(value)
    if kind is str:
        out.append(_encode_string(value))
    elif kind is KeptObject:
        out.append(value.text if known is not None else str(value.text, "utf-8"))   # made at this level
    elif kind is dict:
        if not value:
            out.append("{}")
            return
        if known is not None and "GUID" in value and not value.get("ContainedObjects"):
            out.append(known.text(value, level))   # bytes: encode() joins them as they are
            return
        inner = _newline(level + 1)
        between = "," + inner
        before = "{" + inner
        keys = _key_texts
        append = out.append
        for key, item in value.items():
            text = keys.get(key) if type(key) is str else None
            if text is None:
                if type(key) is not str:
                    raise _Unusual
                text = keys[key] = _encode_string(key) + ": "
            kind = type(item)
            if kind is str:
                append(before + text + _encode_string(item))
            elif kind is float:
                if item != item or item == _INF or item == -_INF:
                    raise _Unusual
                append(before + text + float.__repr__(item))
            elif kind is int:
                append(before + text + int.__repr__(item))
            else:
                append(before + text)
                _write(item, level + 1, out, known)
            before = between
        append(_newline(level) + "}")
    elif kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        inner = _newline(level + 1)
        between = "," + inner
        before = "[" + inner
        for item in value:
            out.append(before)
            _write(item, level + 1, out, known)
            before = between
        out.append(_newline(level) + "]")
    elif kind is float:
        if value != value or value == _INF or value == -_INF:
            raise _Unusual
        out.append(float.__repr__(value))
    elif kind is int:
        out.append(int.__repr__(value))
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif value is None:
        out.append("null")
    else:
        raise _Unusual


def save_bytes(save: Save) -> bytes:
    """The exact bytes of ``save`` as a ``.json`` file."""
    return dumps(save.to_json()).encode("utf-8")


_TEXTS_MAGIC = b"ttsmod-object-texts-4\n"
_SEGMENT_HEAD = 8   # a segment: its payload's length and CRC-32 (4 bytes each, big-endian), then the payload


class ObjectTexts:
    """The save text of objects, by what they are: the key is the object's nesting level and a digest of its
    pickle (made in C), which fixes its value and so its indented text. A big game's save is mostly
    thousands of cards that an edit leaves as they were; their texts are taken from the previous build's instead
    of being encoded again in Python (the build keeps them in its cache folder: :meth:`load`, :meth:`save`).
    Texts are kept and given as UTF-8 bytes (those read from a file as views of its bytes), which is what a save
    file is made of (:func:`encode`).

    It is also the :class:`tools.check.UrlMemo` of the check that follows :func:`encode`: the URLs found below an
    object are kept with its text, and an object named by the same key has the same URLs.

    The file is a header and segments, each with its length and checksum; a build that changed a few objects
    appends a segment holding just those (a later entry stands for an earlier one of the same key), and the file
    is written anew only when the entries no longer used would make up a fifth of it. A damaged segment ends
    what is read (a cache: what it held is made again)."""

    def __init__(self, texts: dict[bytes, bytes] | None = None, urls: dict[bytes, bytes] | None = None) -> None:
        self.previous = texts or {}
        self.used: dict[bytes, bytes] = {}
        self._previous_urls = urls or {}          # key → its (key, url) pairs as text, split when asked
        self._used_urls: dict[bytes, bytes] = {}
        self._new_urls: set[bytes] = set()        # keys whose pairs remember() found and the file lacks
        self._keys: dict[int, tuple[dict[str, Any], bytes]] = {}   # id(object) → (the object, its key)
        self._named: dict[int, tuple[dict[str, Any], int, bytes]] = {}   # id(dict) → (it, its level, its key)
        self._file_entries = 0                    # entries in the file read (all segments), none: written whole
        self._appendable = False                  # whether the file read may be appended to

    def kept(self, key: bytes) -> bytes | None:
        """The text kept under ``key`` (an object's :func:`object_key`), now used; None when there is none."""
        text = self.previous.get(key)
        if text is not None:
            self.used[key] = text
        return text

    def name_as(self, value: dict[str, Any], level: int, key: bytes) -> None:
        """Have :meth:`text` keep ``value``'s text at ``level`` under ``key`` (its object's :func:`object_key`,
        which fixes it) instead of naming it by its value."""
        self._named[id(value)] = (value, level, key)

    def text(self, value: dict[str, Any], level: int) -> bytes:
        """The text of ``value`` at nesting ``level`` as UTF-8 bytes: kept, or made now and kept."""
        named = self._named.get(id(value))
        if named is not None and named[0] is value and named[1] == level:
            key = named[2]
        else:
            try:
                # Pickled, not JSON-encoded, to be named: 4 times faster (floats go as their 8 bytes, not their
                # shortest decimal text), and the bytes still fix the value, types included. An object shared
                # twice in one card and not in another pickles otherwise, which only costs a miss.
                exact = pickle.dumps(value, 5)
            except Exception:   # not picklable: not a value this cache names
                return _value(value, level).encode("utf-8")
            key = level.to_bytes(2, "big") + hashlib.blake2b(exact, digest_size=16).digest()
        text = self.previous.get(key)
        if text is None:
            text = _value(value, level).encode("utf-8")
        self.used[key] = text
        self._keys[id(value)] = (value, key)
        return text

    def _key(self, obj: dict[str, Any]) -> bytes | None:
        if type(obj) is KeptObject:
            return obj.key
        known = self._keys.get(id(obj))
        return known[1] if known is not None and known[0] is obj else None

    def name(self, obj: dict[str, Any]) -> bytes | None:
        """The key of ``obj``'s text (its nesting level and the digest of its value) when this gave its text,
        else None: a name of the object's value for the check's verdicts (:class:`tools.check.CleanObjects`)."""
        return self._key(obj)

    def urls(self, obj: dict[str, Any]) -> list[tuple[str, str]] | None:
        """The ``(key, url)`` pairs kept for ``obj`` (an object whose text this gave), or None."""
        key = self._key(obj)
        raw = None if key is None else self._used_urls.get(key) or self._previous_urls.get(key)
        if raw is None:
            return None
        self._used_urls[key] = raw
        parts = raw.decode("utf-8").split("\0")
        if parts[0] != "u" or len(parts) % 2 == 0:
            return None   # not what remember() wrote: walked again
        return list(zip(parts[1::2], parts[2::2]))

    def remember(self, obj: dict[str, Any], urls: list[tuple[str, str]]) -> None:
        """Keep the pairs found below ``obj`` with its text (nothing when this did not give its text)."""
        key = self._key(obj)
        # Kept as NUL-separated text after a "u" (so that no URLs is not nothing kept): a JSON list per card took
        # longer to read back than the walk it saves. A URL holding a NUL (no file or web address does) is
        # found by the walk each time instead.
        if key is not None and not any("\0" in name or "\0" in url for name, url in urls):
            self._used_urls[key] = "\0".join(["u", *(part for pair in urls for part in pair)]).encode("utf-8")
            self._new_urls.add(key)

    @classmethod
    def from_bytes(cls, data: bytes) -> "ObjectTexts":
        """The texts :meth:`to_bytes` (or :meth:`save`) left; none when ``data`` is not such bytes (then every
        text is made again), those of the segments before a damaged one when one is."""
        texts: dict[bytes, bytes] = {}
        urls: dict[bytes, bytes] = {}
        if not data.startswith(_TEXTS_MAGIC):
            return cls()
        view = memoryview(data)
        at, end, entries, whole = len(_TEXTS_MAGIC), len(data), 0, True
        while at < end:
            size = int.from_bytes(data[at:at + 4], "big")
            start, stop = at + _SEGMENT_HEAD, at + _SEGMENT_HEAD + size
            # A checksum of each segment: a damaged text would otherwise go into a save unseen.
            if stop > end or zlib.crc32(view[start:stop]) != int.from_bytes(data[at + 4:at + 8], "big"):
                whole = False
                break
            found = _read_entries(data, view, start, stop)
            if found is None:
                whole = False
                break
            for key, text, pairs in found:
                texts[key] = text
                if pairs:   # empty: no URLs kept for this object (no URLs at all is "u")
                    urls[key] = pairs
                else:
                    urls.pop(key, None)
            entries += len(found)
            at = stop
        known = cls(texts, urls)
        known._file_entries, known._appendable = entries, whole and entries > 0
        return known

    @classmethod
    def load(cls, path: Path) -> "ObjectTexts":
        """The texts kept in the file ``path`` (none when it is missing or unreadable)."""
        try:
            return cls.from_bytes(path.read_bytes())
        except OSError:
            return cls()

    @property
    def changed(self) -> bool:
        """Whether texts were used that were not given, or URLs found that were not kept (so they are worth
        keeping). Texts given and no longer used change nothing: they go when the file is next written anew."""
        return bool(self._new_urls) or not self.used.keys() <= self.previous.keys()

    def _entry(self, key: bytes) -> tuple[bytes, bytes, bytes]:
        pairs = self._used_urls.get(key) or self._previous_urls.get(key) or b""
        return key, self.used[key], pairs

    def to_bytes(self) -> bytes:
        """The texts used so far, with the URLs found or kept for them, for :meth:`from_bytes` in a later
        build: one segment."""
        return _TEXTS_MAGIC + _segment([self._entry(key) for key in self.used])

    def save(self, path: Path) -> None:
        """Keep the texts used so far in ``path`` for :meth:`load` in a later build (nothing when unchanged): a
        segment of the new ones appended to the file read, or the file written anew (see the class). A cache:
        not synced, and a file that cannot be written is left as it is."""
        if not self.changed:
            return
        fresh = [self._entry(key) for key in self.used
                 if key not in self.previous or key in self._new_urls]
        try:
            if self._appendable and (self._file_entries + len(fresh)) * 4 <= len(self.used) * 5 \
                    and path.is_file():
                if fresh:   # only objects gone: their entries stay until the file is written anew
                    with path.open("ab") as file:
                        file.write(_segment(fresh))
                    self._file_entries += len(fresh)
            else:
                atomic_write_bytes(path, self.to_bytes(), durable=False)
                self._file_entries, self._appendable = len(self.used), bool(self.used)
        except OSError:
            return   # the next build makes these texts again
        self.previous = dict(self.used)
        self._previous_urls = {**self._previous_urls, **self._used_urls}
        self._new_urls.clear()


def _segment(entries: list[tuple[bytes, bytes, bytes]]) -> bytes:
    parts: list[bytes] = []
    for key, text, pairs in entries:
        parts += (key, len(text).to_bytes(4, "big"), text, len(pairs).to_bytes(4, "big"), pairs)
    payload = b"".join(parts)
    return len(payload).to_bytes(4, "big") + zlib.crc32(payload).to_bytes(4, "big") + payload


def _read_entries(data: bytes, view: memoryview, at: int, end: int
                  ) -> list[tuple[bytes, memoryview, bytes]] | None:
    # the texts as views of the file read: a 10,000-card save's 37 MB are not copied out of it once more
    found = []
    while at < end:
        key, size = data[at:at + 18], int.from_bytes(data[at + 18:at + 22], "big")
        text_end = at + 22 + size
        if len(key) != 18 or text_end + 4 > end:
            return None
        listed = int.from_bytes(data[text_end:text_end + 4], "big")
        if text_end + 4 + listed > end:
            return None
        found.append((key, view[at + 22:text_end], data[text_end + 4:text_end + 4 + listed]))
        at = text_end + 4 + listed
    return found
