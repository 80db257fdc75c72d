"""A snapshot's shape, declared once: read from it (checked, errors naming the JSON path, Lua's JSON quirks taken
as the protocol says) and written from it (keys in the declared order).

A game declares its snapshot as a tree of shapes (:class:`Record` of :class:`Field`\\ s, :class:`ListOf`,
:class:`MapOf`, :class:`Nullable` and the leaves :class:`Integer`, :class:`Boolean`, :class:`Text`,
:class:`Hex`, :class:`OneOf`, :class:`Seat`) and gives it as ``Game.snapshot_schema(data)``. Reading a
snapshot through it gives the same JSON tree back, every value checked, in the shape's key order, with what
Lua cannot write said the protocol's way (docs/protocol.md):

- ``[]`` is an empty object wherever an object is expected (TTS's ``JSON.encode`` writes an empty table so);
- ``null`` and ``false`` are "none" wherever a value may be none (:class:`Nullable`), and a key a Lua table
  dropped is its field's default;
- every refusal is a :class:`~bridge.rules.errors.SnapshotError` naming the path (``players[1].hand[2]: "bile"
  is not a humour``), worded as the protocol pages' reason tables word them (``must be an integer``, ``is
  missing``).

What one value cannot say (a card in two places, seats that must add up) is the game's to check on the tree
read: :class:`Unique` covers the commonest such rule, an id that may stand in one place only.

A shape is a value: it never changes once made, and one may be shared by many fields. A read carries a
:class:`Reading` (the counts a later shape depends on, such as the number of players, and the ids seen so far).
Shapes also tell the conformance suite what they refuse (:meth:`Shape.wrong`) and list their leaves
(:func:`leaves`), so that every declared field of every game is proven to be refused by name. Pure: no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Collection, Iterator, Mapping

from bridge.rules import reader as r

Bound = int | Callable[["Reading"], int] | None
"""A bound that is a number, or one a shape learns while reading (the seat count): a function of the reading."""


@dataclass
class Reading:
    """One read of one snapshot: ``counts`` a :class:`ListOf` names (``count_as="players"`` → the number of
    players), ``seen`` every id a :class:`Unique` has taken, with the path it stands at, by group; ``context``
    what the game passes in (its data, say) for shapes that need it."""

    context: Any = None
    counts: dict[str, int] = field(default_factory=dict)
    seen: dict[str, dict[Any, r.At]] = field(default_factory=dict)

    def count(self, name: str) -> int:
        """A count a list read earlier named (``KeyError`` if the shape reads it before the list: a bug of the
        shape, not of the snapshot)."""
        return self.counts[name]


def _bound(bound: Bound, reading: Reading) -> int | None:
    return bound(reading) if callable(bound) else bound


def show(value: Any) -> str:
    """A value as JSON, for a message: ``"bile"``, ``["x"]``, ``{}``."""
    return json.dumps(value, ensure_ascii=False)


class Shape:
    """What a value of a snapshot must be. :meth:`read` returns it checked (as JSON: the same value, or a
    normalised one, ``[]`` read as ``{}``) or raises ``at.error``; :meth:`write` gives the JSON of an engine's
    value (the same, but with keys ordered); :meth:`wrong` is a JSON value this shape always refuses;
    :meth:`describe` says in words what it takes (for docs and messages)."""

    def read(self, at: r.At, value: Any, reading: Reading) -> Any:
        raise NotImplementedError

    def write(self, value: Any) -> Any:
        return value

    plain = True
    """Whether :meth:`write` gives its value back as it is (a leaf, or a list or map of plain shapes): writing
    skips walking it."""

    def wrong(self) -> Any:
        return {"not": "this"}

    def describe(self) -> str:
        raise NotImplementedError

    def children(self) -> Iterator[tuple[str | int | None, "Shape"]]:
        """The shapes inside this one, each with the key that reaches it (``None``: any key or index)."""
        return iter(())


@dataclass(frozen=True)
class Integer(Shape):
    """A whole number from ``low`` up to ``high`` (either may be learnt while reading; ``high`` None: none)."""

    low: Bound = 0
    high: Bound = None

    def read(self, at: r.At, value: Any, reading: Reading) -> int:
        if type(value) is not int:
            raise at.error("must be an integer")
        low, high = _bound(self.low, reading), _bound(self.high, reading)
        if (low is not None and value < low) or (high is not None and value > high):
            if high is None:
                raise at.error(f"must be ≥ {low}")
            raise at.error(f"must be between {low if low is not None else '-∞'} and {high}")
        return value

    def wrong(self) -> Any:
        return "1"

    def describe(self) -> str:
        return "an integer"


def Seat(of: str = "players") -> Integer:
    """A seat number: 0 up to one less than the count ``of`` (the players listed before it)."""
    return Integer(0, lambda reading: reading.count(of) - 1)


@dataclass(frozen=True)
class Boolean(Shape):
    def read(self, at: r.At, value: Any, reading: Reading) -> bool:
        if type(value) is not bool:
            raise at.error("must be true or false")
        return value

    def wrong(self) -> Any:
        return 1

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Text(Shape):
    """A non-empty string of at most :data:`bridge.rules.reader.MAX_TEXT_LENGTH` characters."""

    def read(self, at: r.At, value: Any, reading: Reading) -> str:
        if not r.is_text(value):
            raise at.error("must be a string" if not isinstance(value, str) else
                           "must not be empty" if not value.strip() else
                           f"must be at most {r.MAX_TEXT_LENGTH} characters")
        return value

    def wrong(self) -> Any:
        return 1

    def describe(self) -> str:
        return "a string"


@dataclass(frozen=True)
class Hex(Shape):
    """``digits`` lowercase hexadecimal digits (a random state)."""

    digits: int = 16

    def read(self, at: r.At, value: Any, reading: Reading) -> str:
        if not isinstance(value, str) or len(value) != self.digits or value.strip("0123456789abcdef"):
            raise at.error(f"must be {self.digits} hex digits")
        return value

    def wrong(self) -> Any:
        return "not hex"

    def describe(self) -> str:
        return f"{self.digits} hex digits"


@dataclass(frozen=True)
class OneOf(Shape):
    """One of ``allowed`` (a collection of JSON scalars, or a function of the reading giving one): refused as
    ``<value> is not <what>``."""

    allowed: Collection[Any] | Callable[[Reading], Collection[Any]]
    what: str

    def read(self, at: r.At, value: Any, reading: Reading) -> Any:
        allowed = self.allowed(reading) if callable(self.allowed) else self.allowed
        if isinstance(value, (dict, list)) or value not in allowed:
            raise at.error(f"{show(value)} is not {self.what}")
        return value

    def wrong(self) -> Any:
        return ["?"]

    def describe(self) -> str:
        return self.what


@dataclass(frozen=True)
class Unique(Shape):
    """``shape``'s value, which may stand in one place only among all the places of ``group``: a second one is
    refused as ``<value> is also at <the first place>``."""

    shape: Shape
    group: str

    def read(self, at: r.At, value: Any, reading: Reading) -> Any:
        value = self.shape.read(at, value, reading)
        seen = reading.seen.setdefault(self.group, {})
        if value in seen:
            raise at.error(f"{show(value)} is also at {seen[value].field or 'the top'}")
        seen[value] = at
        return value

    def wrong(self) -> Any:
        return self.shape.wrong()

    def describe(self) -> str:
        return self.shape.describe()

    def children(self) -> Iterator[tuple[str | int | None, Shape]]:
        return iter(())   # a leaf: its inner shape is not a value of its own


@dataclass(frozen=True)
class Nullable(Shape):
    """``shape``'s value, or none: ``null``, and ``false`` (how Lua writes a missing value), are read as None."""

    shape: Shape

    def read(self, at: r.At, value: Any, reading: Reading) -> Any:
        if value is None or value is False:
            return None
        return self.shape.read(at, value, reading)

    def write(self, value: Any) -> Any:
        return None if value is None else self.shape.write(value)

    @property
    def plain(self) -> bool:   # type: ignore[override]
        return self.shape.plain

    def wrong(self) -> Any:
        return self.shape.wrong()

    def describe(self) -> str:
        return f"{self.shape.describe()} or null"

    def children(self) -> Iterator[tuple[str | int | None, Shape]]:
        return self.shape.children()


@dataclass(frozen=True)
class ListOf(Shape):
    """A JSON array of ``item``\\ s: ``length`` of them exactly when given, from ``min_length`` to ``max_length``
    otherwise; ``count_as`` names its length for the shapes read after it (:func:`Seat`)."""

    item: Shape
    length: Bound = None
    min_length: Bound = None
    max_length: Bound = None
    count_as: str | None = None
    what: str = "items"

    def read(self, at: r.At, value: Any, reading: Reading) -> list[Any]:
        if type(value) is not list:
            if value == {}:      # an empty Lua table written by a JSON encoder that chose an object
                value = []
            else:
                raise at.error("must be a list")
        self.check_length(at, len(value), reading)
        if self.count_as is not None:
            reading.counts[self.count_as] = len(value)
        item = self.item
        return [item.read(at.sub(i), v, reading) for i, v in enumerate(value)]

    def check_length(self, at: r.At, n: int, reading: Reading) -> None:
        """Refuse a list of ``n`` items that is too short or too long."""
        exact = _bound(self.length, reading)
        if exact is not None and n != exact:
            raise at.error(f"must list {exact} {self.what}")
        low, high = _bound(self.min_length, reading), _bound(self.max_length, reading)
        if (low is not None and n < low) or (high is not None and n > high):
            raise at.error(f"must list {low} to {high} {self.what}" if low is not None and high is not None else
                           f"must list at least {low} {self.what}" if low is not None else
                           f"must list at most {high} {self.what}")

    def write(self, value: Any) -> list[Any]:
        if self.item.plain:
            return list(value)
        return [self.item.write(v) for v in value]

    @property
    def plain(self) -> bool:   # type: ignore[override]
        return False           # a copy is written: a snapshot never shares a list with the state

    def wrong(self) -> Any:
        return "not a list"

    def describe(self) -> str:
        return f"a list of {self.item.describe()}"

    def children(self) -> Iterator[tuple[str | int | None, Shape]]:
        yield None, self.item


@dataclass(frozen=True)
class MapOf(Shape):
    """A JSON object whose keys are ``keys`` and whose values are ``values``\\ s. ``keys`` is a :class:`OneOf` (a
    key outside it is refused as ``is not <what>``), or an :class:`Integer`: numbers written as strings (``"0"``:
    JSON keys are strings), read as integers and written back as strings."""

    keys: Shape
    values: Shape

    def read(self, at: r.At, value: Any, reading: Reading) -> dict[Any, Any]:
        found = _object(at, value)
        out: dict[Any, Any] = {}
        for key, item in found.items():
            place = at.sub(key)
            out[self._key(place, key, reading)] = self.values.read(place, item, reading)
        return out

    def _key(self, place: r.At, key: str, reading: Reading) -> Any:
        if isinstance(self.keys, Integer):
            if not (isinstance(key, str) and key.isdigit()):
                raise place.error("is not a number")
            return self.keys.read(place, int(key), reading)
        try:
            return self.keys.read(place, key, reading)
        except Exception:
            raise place.error(f"is not {self.keys.describe()}") from None

    def write(self, value: Any) -> dict[str, Any]:
        if self.values.plain:
            return {str(k): v for k, v in value.items()}
        return {str(k): self.values.write(v) for k, v in value.items()}

    plain = False

    def wrong(self) -> Any:
        return "not an object"

    def describe(self) -> str:
        return f"an object of {self.values.describe()} by {self.keys.describe()}"

    def children(self) -> Iterator[tuple[str | int | None, Shape]]:
        yield None, self.values


REQUIRED: Any = r.MISSING
"""A :class:`Field`'s default when it has none: the key must be in the snapshot."""


@dataclass(frozen=True)
class Field:
    """One key of a :class:`Record`: its ``shape`` and what a snapshot that leaves it out (or, for a field that
    cannot be none, sends ``null``) means — ``default`` (a JSON value, copied; :data:`REQUIRED`: it may not be
    left out). ``doc`` says what it is (the protocol page's field table)."""

    shape: Shape
    default: Any = REQUIRED
    doc: str = ""


def _object(at: r.At, value: Any) -> dict[str, Any]:
    if type(value) is dict:
        return value
    if value == []:
        return {}
    raise at.error("must be an object")


@dataclass(frozen=True)
class Record(Shape):
    """A JSON object with the keys ``fields`` declares, read in their order; the length of each list field that
    names a count (``count_as``) is known before any field is read, so a seat may be declared before the list of
    players. A key left out, or ``null`` where the field cannot be none, takes its field's default; a required
    one left out is refused as ``is missing``. Keys it does not declare are refused when ``closed`` (``is not a field here (expected …)``), else
    left out of what is read."""

    fields: Mapping[str, Field]
    closed: bool = False

    def read(self, at: r.At, value: Any, reading: Reading) -> dict[str, Any]:
        found = _object(at, value)
        if self.closed:
            for key in found:
                if key not in self.fields:
                    raise at.sub(key).error(f"is not a field here (expected {', '.join(self.fields)})")
        out: dict[str, Any] = {}
        for key, shape in self._counts:
            item = found.get(key, REQUIRED)
            if type(item) is not list:             # refused here, before a seat counts on it
                if item is not REQUIRED and item is not None:
                    shape.read(at.sub(key), item, reading)   # not a list (``{}``, Lua's empty one, counts none)
                    continue
                default = self.fields[key].default
                if default is REQUIRED:
                    if item is None:
                        raise at.sub(key).error("must be a list")
                    raise at.sub(key).error("is missing")
                item = default                     # left out (or null): its default's length
            shape.check_length(at.sub(key), len(item), reading)   # known before any field is read: a seat
            reading.counts[shape.count_as] = len(item)            # may come first
        for key, spec in self.fields.items():
            item = found.get(key, REQUIRED)
            if item is REQUIRED or (item is None and spec.default is not REQUIRED
                                    and not isinstance(spec.shape, Nullable)):
                if spec.default is REQUIRED:
                    raise at.sub(key).error("is missing")
                item = _copy(spec.default)
            out[key] = spec.shape.read(at.sub(key), item, reading)
        return out

    @cached_property
    def _counts(self) -> tuple[tuple[str, "ListOf"], ...]:
        return tuple((key, spec.shape) for key, spec in self.fields.items()
                     if isinstance(spec.shape, ListOf) and spec.shape.count_as is not None)

    def write(self, value: Mapping[str, Any]) -> dict[str, Any]:
        unknown = [key for key in value if key not in self.fields]
        if unknown:
            raise ValueError(f"the snapshot schema declares no field {unknown[0]!r} (declared: "
                             f"{', '.join(self.fields)})")
        return {key: spec.shape.write(value[key]) for key, spec in self.fields.items() if key in value}

    plain = False

    def wrong(self) -> Any:
        return "not an object"

    def describe(self) -> str:
        return "an object"

    def children(self) -> Iterator[tuple[str | int | None, Shape]]:
        for key, spec in self.fields.items():
            yield key, spec.shape


@dataclass(frozen=True)
class Tagged(Shape):
    """An object whose ``tag`` key says which of ``cases`` it is (tag value → the :class:`Record` of its other
    keys): ``{"kind": "draw", "left": 1}``. A tag outside ``cases`` is refused as ``is not <what>``."""

    tag: str
    cases: Mapping[str, Record]
    what: str

    def read(self, at: r.At, value: Any, reading: Reading) -> dict[str, Any]:
        found = _object(at, value)
        kind = OneOf(tuple(self.cases), self.what).read(at.sub(self.tag), found.get(self.tag), reading)
        rest = {key: item for key, item in found.items() if key != self.tag}
        return {self.tag: kind, **self.cases[kind].read(at, rest, reading)}

    plain = False

    def write(self, value: Mapping[str, Any]) -> dict[str, Any]:
        kind = value[self.tag]
        return {self.tag: kind, **self.cases[kind].write({k: v for k, v in value.items() if k != self.tag})}

    def wrong(self) -> Any:
        return "not an object"

    def describe(self) -> str:
        return self.what

    def children(self) -> Iterator[tuple[str | int | None, Shape]]:
        yield self.tag, OneOf(tuple(self.cases), self.what)
        for case in self.cases.values():
            yield from case.children()


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value)) if isinstance(value, (dict, list)) else value


def read(schema: Record, snapshot: Any, reading: Reading | None = None) -> dict[str, Any]:
    """``snapshot`` read through ``schema`` from its top (a path-naming :class:`SnapshotError` for what is wrong):
    the checked tree, every left-out field at its default. Pass a ``reading`` to look at what it saw after
    (``reading.seen``: the ids each :class:`Unique` group took, with their places)."""
    return schema.read(r.At.snapshot(), snapshot, reading if reading is not None else Reading())


def write(schema: Record, tree: Mapping[str, Any]) -> dict[str, Any]:
    """An engine's snapshot tree as JSON in the schema's key order (``ValueError`` for a key the schema does not
    declare: the engine and its schema disagree)."""
    return schema.write(tree)


def leaves(schema: Shape, path: tuple[str | int | None, ...] = ()) -> Iterator[tuple[tuple[str | int | None, ...],
                                                                                     Shape]]:
    """Every leaf of ``schema`` (a shape with no shapes inside) with the path of keys reaching it, ``None`` for any
    key or index of a list or map: the conformance suite puts each leaf's :meth:`Shape.wrong` value in a real
    snapshot and expects its path named."""
    kids = list(schema.children())
    if not kids:
        yield path, schema
        return
    for key, shape in kids:
        yield from leaves(shape, path + (key,))


def top_fields(schema: Record) -> tuple[str, ...]:
    """The keys a snapshot of ``schema`` has at its top, in order (the protocol page's field table lists them)."""
    return tuple(schema.fields)
