"""One validating reader for JSON- and TOML-shaped input, with path-addressed errors.

Game data (TOML documents) and table snapshots (JSON from the mod) are read the same way: a value is taken
*at* a place, and any problem becomes one precise error naming that place. :class:`At` is the place; the typed
readers below (:func:`table`, :func:`integer`, :func:`choice`, …) return the value or raise ``at.error(...)``.

Where the place points decides the error: :meth:`At.data` (file, entry, field) raises
:class:`bridge.rules.errors.DataError` — ``scenes.toml: scene "mill": slots[2].humours: "bile" is not a humour`` —
and :meth:`At.snapshot` (a path) raises :class:`bridge.rules.errors.SnapshotError` —
``players[0].bag.choleric: must be an integer``. Pure: no I/O.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import fields
from typing import Any, Callable, Container

from bridge.rules.errors import DataError, SnapshotError

MAX_ID_LENGTH = 64
"""Longest id (of a card, tile, cell, goal, …): ids become file names (``art/<id>.png``) and save keys."""

MAX_TEXT_LENGTH = 1000
"""Longest text (a title, a card text, a name): ten times the longest sample text; a card face holds far less.
Checked before anything is rendered, so a megabyte title fails at once instead of after a long text fit."""

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\Z")


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()
"""The value of a key that is not there (``table.get(key, MISSING)``): reported as "missing"."""


def _data_error(file: str, entry: str | None, path: str | None, message: str) -> Exception:
    return DataError(file, entry, path, message)


def _snapshot_error(file: str, entry: str | None, path: str | None, message: str) -> Exception:
    return SnapshotError(path or "", message)


class At:
    """Where a value sits (file, entry, field path) so that any problem becomes a precise error.

    A place is made for every value read and is almost never asked where it is: :meth:`sub` keeps its parent
    and key, and the field path (``slots[2].humours``) is spelt out only when asked for (by an error). Places
    are values: equal when their file, entry and field are, and never changed once made.
    """

    __slots__ = ("file", "entry", "make", "_parent", "_key", "_field")

    def __init__(self, file: str, entry: str | None = None, field: str | None = None,
                 make: Callable[[str, str | None, str | None, str], Exception] = _data_error) -> None:
        self.file = file
        self.entry = entry
        self.make = make
        self._parent: At | None = None   # set (with _key) until the field path is spelt out
        self._key: str | int | None = None
        self._field = field

    @classmethod
    def data(cls, file: str, entry: str | None = None, field: str | None = None) -> "At":
        """A place in a game data file: errors are :class:`~bridge.rules.errors.DataError`."""
        return cls(file, entry, field, _data_error)

    @classmethod
    def snapshot(cls, path: str | None = None) -> "At":
        """A place in a snapshot (``players[0].hand``): errors are :class:`~bridge.rules.errors.SnapshotError`."""
        return cls("", None, path, _snapshot_error)

    @property
    def field(self) -> str | None:
        """The path of keys and indices from the entry to this place (None at the entry itself)."""
        if self._parent is not None:
            # Spelt out from the nearest place that knows its path, down: no recursion on the nesting.
            chain: list[At] = []
            place: At | None = self
            while place is not None and place._parent is not None:
                chain.append(place)
                place = place._parent
            for place in reversed(chain):
                above, key = place._parent._field, place._key   # type: ignore[union-attr]
                if isinstance(key, int):
                    place._field = f"{above or ''}[{key}]"
                else:
                    place._field = f"{above}.{key}" if above else key
                place._parent = None
        return self._field

    def sub(self, key: str | int) -> "At":
        """The place of ``key`` (a table key or an array index) below this one."""
        # Readers call this for every value of a snapshot, on every bridge request, and of a game's data:
        # a 10,000-card game reads 250,000 values.
        place = _new_place(At)
        place.file, place.entry, place.make = self.file, self.entry, self.make
        place._parent, place._key, place._field = self, key, None
        return place

    def error(self, message: str) -> Exception:
        return self.make(self.file, self.entry, self.field, message)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, At):
            return NotImplemented
        return (self.file, self.entry, self.field) == (other.file, other.entry, other.field)

    def __hash__(self) -> int:
        return hash((self.file, self.entry, self.field))

    def __repr__(self) -> str:
        return f"At(file={self.file!r}, entry={self.entry!r}, field={self.field!r})"


_new_place = object.__new__


def show(value: Any) -> str:
    """A short, readable rendering of a value for error messages."""
    if isinstance(value, _Missing):
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        shown = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return shown if len(value) <= 40 else f"{shown} ({len(value)} characters)"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return str(value)


def expect(at: At, value: Any, what: str) -> Exception:
    """The error for a value that is not ``what`` ("missing" when there is none)."""
    if isinstance(value, _Missing):
        return at.error("missing")
    return at.error(f"expected {what}, got {show(value)}")


def table(at: At, value: Any) -> dict[str, Any]:
    """A table (a TOML table, a JSON object). In a snapshot (:meth:`At.snapshot`) ``[]`` is an empty one: Lua has
    one kind of table, and TTS's ``JSON.encode`` writes an empty one as ``[]`` (docs/protocol.md)."""
    if not isinstance(value, dict):
        if value == [] and at.make is _snapshot_error:
            return {}
        raise expect(at, value, "a table")
    return value


def array(at: At, value: Any, *, non_empty: bool = False) -> list[Any]:
    if not isinstance(value, list):
        raise expect(at, value, "an array")
    if non_empty and not value:
        raise at.error("must not be empty")
    return value


def is_text(value: Any) -> bool:
    """Whether :func:`string` takes ``value`` as it is (a non-blank string of at most :data:`MAX_TEXT_LENGTH`
    characters): a reader may test many values at once this way and read any other through :func:`string`,
    which names what is wrong."""
    return isinstance(value, str) and len(value) <= MAX_TEXT_LENGTH and not value.isspace() and value != ""


def string(at: At, value: Any) -> str:
    if is_text(value):
        return value
    if not isinstance(value, str):
        raise expect(at, value, "a string")
    if not value.strip():
        raise at.error("must not be empty")
    raise at.error(f"{len(value)} characters is too long (at most {MAX_TEXT_LENGTH})")


def ident(at: At, value: Any) -> str:
    if isinstance(value, str) and len(value) > MAX_ID_LENGTH:
        raise at.error(f"{show(value)} is too long for an id (at most {MAX_ID_LENGTH} characters)")
    text = string(at, value)
    if not ID_PATTERN.match(text):
        raise at.error(f"{show(text)} is not a valid id (letters, digits, - and _, not starting with - or _)")
    return text


def integer(at: At, value: Any, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise expect(at, value, "an integer")
    if minimum is not None and value < minimum:
        raise at.error(f"{value} is too small (at least {minimum})")
    return value


def boolean(at: At, value: Any) -> bool:
    if not isinstance(value, bool):
        raise expect(at, value, "true or false")
    return value


def number(at: At, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise expect(at, value, "a number")
    return float(value)


def choice(at: At, value: Any, allowed: tuple[str, ...], what: str) -> str:
    text = string(at, value)
    if text not in allowed:
        raise at.error(f"{show(text)} is not {what} ({', '.join(allowed)})")
    return text


def keys(at: At, value: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Reject keys outside ``required + optional`` and report the first missing required key."""
    allowed = required + optional
    for key in value:
        if key not in allowed:
            raise at.sub(key).error(f"unknown field (expected {', '.join(allowed)})")
    for key in required:
        if key not in value:
            raise at.sub(key).error("missing")


def rule_flags(at: At, value: Any, defaults: Any, minimums: dict[str, int], choices: dict[str, tuple[str, ...]],
               special: dict[str, Callable[[At, Any], Any]] | None = None) -> dict[str, Any]:
    """A game's ``[rules]`` table read flag by flag against ``defaults`` (an instance of the game's rules dataclass:
    its fields are the flags every table names): a flag in ``special`` through its reader, a boolean flag as a
    boolean, an integer one as an integer of at least ``minimums[name]``, any other one of ``choices[name]``.
    Returns the flags by name, for the dataclass."""
    special = special or {}
    found = table(at, value)
    names = tuple(f.name for f in fields(defaults))
    keys(at, found, names)
    parsed: dict[str, Any] = {}
    for name in names:
        field_at = at.sub(name)
        default = getattr(defaults, name)
        if name in special:
            parsed[name] = special[name](field_at, found[name])
        elif isinstance(default, bool):
            parsed[name] = boolean(field_at, found[name])
        elif isinstance(default, int):
            parsed[name] = integer(field_at, found[name], minimums[name])
        else:
            parsed[name] = choice(field_at, found[name], choices[name], f"a {name} rule")
    return parsed


def top(file: str, document: Any, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """A data file's top-level table, with only the given keys."""
    at = At.data(file)
    found = table(at, document)
    for key in found:
        if key not in required + optional:
            raise at.error(f'unknown top-level key "{key}" (expected {", ".join(required + optional)})')
    for key in required:
        if key not in found:
            raise at.error(f'missing "{key}"')
    return found


def entry_name(kind: str, plural: str, item: Any, index: int) -> str:
    """How an error names entry ``index`` of a list: ``scene "mill"`` when it has an id, else ``scenes[3]``."""
    if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"].strip():
        name = item["id"]
        if len(name) > MAX_ID_LENGTH:  # keep the one-line error short; the id check reports the length
            return f'{plural}[{index}] ({kind} "{name[:20]}...")'
        return f'{kind} "{name}"'
    return f"{plural}[{index}]"


def check_unique(ats: list[At], ids: list[str], what: str, plural: str) -> None:
    """Refuse a second entry with an id already used."""
    seen: dict[str, int] = {}
    for index, (at, name) in enumerate(zip(ats, ids)):
        if name in seen:
            raise at.sub("id").error(f"duplicate {what} id {show(name)} (also {plural}[{seen[name]}])")
        seen[name] = index


# ---------------------------------------------------------------------------------------------------------------
# JSON from the Lua mod (snapshots). Its errors say what a value must be, as the protocol documents them
# (``players[0].bag.choleric: must be an integer``), and they accept what Lua writes for an empty or absent value.

def json_object(at: At, value: Any) -> dict[str, Any]:
    """A JSON object; ``[]`` counts as an empty one (Lua cannot tell them apart: TTS's JSON.encode writes ``[]``)."""
    if value == []:
        return {}
    if not isinstance(value, dict):
        raise at.error("must be an object")
    return value


def json_list(at: At, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise at.error("must be a list")
    return value


def json_integer(at: At, value: Any, low: int = 0, high: int | None = None) -> int:
    """An integer from ``low`` up to ``high`` (no upper bound when ``None``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise at.error("must be an integer")
    if value < low or (high is not None and value > high):
        raise at.error(f"must be between {low} and {high}" if high is not None else f"must be ≥ {low}")
    return value


def json_member(at: At, value: Any, allowed: Container[Any], what: str) -> Any:
    """``value`` if it is in ``allowed``, else ``<value as JSON> is not <what>``."""
    if isinstance(value, (dict, list)) or value not in allowed:
        raise at.error(f"{json.dumps(value, ensure_ascii=False)} is not {what}")
    return value


def absent_as_none(value: Any) -> Any:
    """``null`` or ``false`` (how Lua writes a missing value) → ``None``."""
    return None if value is None or value is False else value
