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
import os
import pickle
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

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
        """The save as JSON values (:func:`dumps` makes its text). Objects holding the same transform, colour or
        snap point share its dict (:meth:`GameObject.to_json`): read the result, do not change it."""
        guid_of = self.allocate_guids()
        shared: dict[int, Any] = {}
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
            "ObjectStates": [obj.to_json(guid_of, shared) for obj in self.objects],
        }
        return out


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
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


def encode(data: dict[str, Any], *, known: "ObjectTexts | None" = None) -> bytes:
    """``dumps(data, known=known).encode("utf-8")``, the bytes of a save file; the known objects' texts go in as
    the bytes they are kept as, never decoded and encoded again (a 10,000-card save is 37 MB of them)."""
    if known is None:
        return dumps(data).encode("utf-8")
    out: list[str | bytes] = []
    try:
        _write(data, 0, out, known)   # type: ignore[arg-type]
    except _Unusual:
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False).encode("utf-8")
    return b"".join([piece if type(piece) is bytes else piece.encode("utf-8") for piece in out])  # type: ignore


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
    Texts are kept and given as UTF-8 bytes, which is what a save file is made of (:func:`encode`).

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
        self._file_entries = 0                    # entries in the file read (all segments), none: written whole
        self._appendable = False                  # whether the file read may be appended to

    def text(self, value: dict[str, Any], level: int) -> bytes:
        """The text of ``value`` at nesting ``level`` as UTF-8 bytes: kept, or made now and kept."""
        try:
            # Pickled, not JSON-encoded, to be named: 4 times faster (floats go as their 8 bytes, not their
            # shortest decimal text), and the bytes still fix the value, types included. An object shared twice
            # in one card and not in another pickles otherwise, which only costs a miss.
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
            found = _read_entries(data, start, stop)
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


def _read_entries(data: bytes, at: int, end: int) -> list[tuple[bytes, bytes, bytes]] | None:
    found = []
    while at < end:
        key, size = data[at:at + 18], int.from_bytes(data[at + 18:at + 22], "big")
        text_end = at + 22 + size
        if len(key) != 18 or text_end + 4 > end:
            return None
        listed = int.from_bytes(data[text_end:text_end + 4], "big")
        if text_end + 4 + listed > end:
            return None
        found.append((key, data[at + 22:text_end], data[text_end + 4:text_end + 4 + listed]))
        at = text_end + 4 + listed
    return found
