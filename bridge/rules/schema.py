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

Reading is on every bridge request (``legal`` reads its snapshot each time), so a well-formed value is taken at a
glance: :meth:`Shape.quick` tells it without making the place an error would name (:data:`SLOW` when it cannot,
and :meth:`Shape.read` reads it, naming what is wrong), a list of choices is one set test, and a record's fields are
read by code made once for it (:func:`_compile`) instead of a loop calling each field's shape.

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


@dataclass(frozen=True)
class CountLess:
    """A bound learnt while reading: the count ``of`` (the length of the list that ``count_as`` names it) less
    ``less``; the highest seat is the players listed, less one. A function of the reading, as every learnt bound
    is, that :meth:`Integer.quick` tells without calling it."""

    of: str
    less: int = 0

    def __call__(self, reading: Reading) -> int:
        return reading.count(self.of) - self.less


def _bound(bound: Bound, reading: Reading) -> int | None:
    return bound(reading) if callable(bound) else bound


class _Slow:
    def __repr__(self) -> str:
        return "<slow>"


SLOW: Any = _Slow()
"""What :meth:`Shape.quick` gives for a value it cannot take at a glance: :meth:`Shape.read` reads it then."""


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

    quickable = False
    """Whether :meth:`quick` can take a value (a shape that counts or takes ids cannot: :meth:`read` reads it)."""

    def quick(self, value: Any, reading: Reading) -> Any:
        """What :meth:`read` gives for ``value`` when it can be told at a glance, without a place (the usual
        case: a well-formed value), else :data:`SLOW`, and :meth:`read` reads it, naming what is wrong. Never
        raises, and leaves ``reading`` as it was."""
        return SLOW

    def read_at(self, at: r.At, key: str | int, value: Any, reading: Reading) -> Any:
        """``read(at.sub(key), value, reading)``, the place made only when :meth:`quick` cannot take the value
        (a snapshot has hundreds of values, and a path is needed only for what is wrong)."""
        got = self.quick(value, reading)
        return self.read(at.sub(key), value, reading) if got is SLOW else got

    def quick_items(self, values: list[Any], reading: Reading) -> list[Any]:
        """:meth:`quick` of each of ``values`` (the items of a list), :data:`SLOW` where it cannot tell."""
        quick = self.quick
        return [quick(v, reading) for v in values]

    def read_items(self, at: r.At, values: list[Any], reading: Reading) -> list[Any]:
        """``values`` read as the items of the list at ``at``, in order (an item's place made only for an item
        :meth:`quick` cannot take)."""
        if not self.quickable:
            read_at = self.read_at
            return [read_at(at, i, v, reading) for i, v in enumerate(values)]
        out = self.quick_items(values, reading)
        if SLOW in out:
            for i, got in enumerate(out):
                if got is SLOW:
                    out[i] = self.read(at.sub(i), values[i], reading)
        return out

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

    quickable = True

    def quick(self, value: Any, reading: Reading) -> Any:
        if type(value) is not int:
            return SLOW
        low, high = self.low, self.high
        if low is not None and value < (low if low.__class__ is int else low(reading)):   # type: ignore[operator]
            return SLOW
        if high is not None:
            if high.__class__ is CountLess:       # a seat's: read for every potion, every card's owner
                high = reading.counts.get(high.of, -1) - high.less   # type: ignore[union-attr]
            elif high.__class__ is not int:
                high = high(reading)              # type: ignore[operator]
            if value > high:                      # type: ignore[operator]
                return SLOW
        return value

    def wrong(self) -> Any:
        return "1"

    def describe(self) -> str:
        return "an integer"


def Seat(of: str = "players") -> Integer:
    """A seat number: 0 up to one less than the count ``of`` (the players listed before it)."""
    return Integer(0, CountLess(of, 1))


@dataclass(frozen=True)
class Boolean(Shape):
    def read(self, at: r.At, value: Any, reading: Reading) -> bool:
        if type(value) is not bool:
            raise at.error("must be true or false")
        return value

    quickable = True

    def quick(self, value: Any, reading: Reading) -> Any:
        return value if type(value) is bool else SLOW

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

    quickable = True

    def quick(self, value: Any, reading: Reading) -> Any:
        return value if r.is_text(value) else SLOW

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

    quickable = True

    def quick(self, value: Any, reading: Reading) -> Any:
        if type(value) is str and len(value) == self.digits and not value.strip("0123456789abcdef"):
            return value
        return SLOW

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

    quickable = True

    @cached_property
    def _fixed(self) -> bool:
        return not callable(self.allowed)

    def quick(self, value: Any, reading: Reading) -> Any:
        allowed = self.allowed if self._fixed else self.allowed(reading)   # type: ignore[operator]
        try:
            if value in allowed:      # a list or an object is never one of the scalars allowed
                return value
        except TypeError:             # a list or an object, unhashable: read() refuses it
            pass
        return SLOW

    def quick_items(self, values: list[Any], reading: Reading) -> list[Any]:
        allowed = self.allowed
        if self._fixed and isinstance(allowed, (set, frozenset)):
            try:
                if allowed.issuperset(values):     # a hand of humours, a pile of cards: one test
                    return list(values)
            except TypeError:
                pass
        return super().quick_items(values, reading)

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

    def read_at(self, at: r.At, key: str | int, value: Any, reading: Reading) -> Any:
        got = self.shape.quick(value, reading)
        seen = reading.seen.setdefault(self.group, {})
        if got is SLOW or got in seen:
            return self.read(at.sub(key), value, reading)
        seen[got] = at.sub(key)
        return got

    def read_items(self, at: r.At, values: list[Any], reading: Reading) -> list[Any]:
        taken = self.shape.quick_items(values, reading)
        seen = reading.seen.setdefault(self.group, {})
        try:
            first = SLOW not in taken and len(set(taken)) == len(taken) and seen.keys().isdisjoint(taken)
        except TypeError:                           # unhashable: read_at refuses it
            first = False
        if first:
            for i, value in enumerate(taken):       # a pile of cards, each seen here first
                seen[value] = at.sub(i)
            return taken
        read_at = self.read_at
        return [read_at(at, i, v, reading) for i, v in enumerate(values)]

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

    @property
    def quickable(self) -> bool:   # type: ignore[override]
        return self.shape.quickable

    def quick(self, value: Any, reading: Reading) -> Any:
        if value is None or value is False:
            return None
        return self.shape.quick(value, reading)

    def quick_items(self, values: list[Any], reading: Reading) -> list[Any]:
        quick = self.shape.quick      # a card's slots: none or a potion each
        return [None if v is None or v is False else quick(v, reading) for v in values]

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
        if self._bounded:
            self.check_length(at, len(value), reading)
        if self.count_as is not None:
            reading.counts[self.count_as] = len(value)
        return self.item.read_items(at, value, reading)

    @cached_property
    def _bounded(self) -> bool:   # most lists (a hand, a pile) have no bound on their length
        return self.length is not None or self.min_length is not None or self.max_length is not None

    def read_at(self, at: r.At, key: str | int, value: Any, reading: Reading) -> list[Any]:
        if self.quickable:
            return super().read_at(at, key, value, reading)
        return self.read(at.sub(key), value, reading)   # a pile of ids (Unique), a list of records: no glance

    @cached_property
    def quickable(self) -> bool:   # type: ignore[override]
        return self.item.quickable and self.count_as is None

    def quick(self, value: Any, reading: Reading) -> Any:
        if type(value) is not list or not self.quickable:
            return SLOW
        if self.length is not None or self.min_length is not None or self.max_length is not None:
            n = len(value)
            exact, low = _bound(self.length, reading), _bound(self.min_length, reading)
            high = _bound(self.max_length, reading)
            if ((exact is not None and n != exact) or (low is not None and n < low)
                    or (high is not None and n > high)):
                return SLOW
        out = self.item.quick_items(value, reading)
        return SLOW if SLOW in out else out

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
        item = self.item
        if item.plain:
            return list(value)
        if isinstance(item, Nullable):       # slots: none or a potion each
            write = item.shape.write
            return [None if v is None else write(v) for v in value]
        write = item.write
        return [write(v) for v in value]

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
        values = self.values
        for key, item in found.items():
            got = self._quick_key(key, reading)
            if got is SLOW:
                got = self._key(at.sub(key), key, reading)
            out[got] = values.read_at(at, key, item, reading)
        return out

    @cached_property
    def quickable(self) -> bool:   # type: ignore[override]
        return self.keys.quickable and self.values.quickable

    def quick(self, value: Any, reading: Reading) -> Any:
        if type(value) is not dict or not self.quickable:
            return SLOW
        if isinstance(self.keys, Integer):
            quick_key = self._quick_key
            keys = [quick_key(key, reading) for key in value]
        else:
            keys = self.keys.quick_items(list(value), reading)     # a bag's humours: one test
        got = self.values.quick_items(list(value.values()), reading)
        if SLOW in keys or SLOW in got:
            return SLOW
        return dict(zip(keys, got))

    def _quick_key(self, key: Any, reading: Reading) -> Any:
        if isinstance(self.keys, Integer):
            if not (type(key) is str and key.isascii() and key.isdigit()):
                return SLOW
            return self.keys.quick(int(key), reading)
        return self.keys.quick(key, reading)

    def _key(self, place: r.At, key: str, reading: Reading) -> Any:
        if isinstance(self.keys, Integer):
            if not (isinstance(key, str) and key.isascii() and key.isdigit()):
                raise place.error("is not a number")
            return self.keys.read(place, int(key), reading)
        try:
            return self.keys.read(place, key, reading)
        except Exception:
            raise place.error(f"is not {self.keys.describe()}") from None

    def write(self, value: Any) -> dict[str, Any]:
        if isinstance(self.keys, Integer):
            if self.values.plain:
                return {str(k): v for k, v in value.items()}
            return {str(k): self.values.write(v) for k, v in value.items()}
        if self.values.plain:      # keys that are strings already: a bag's humours, a board's cells
            return dict(value)
        write = self.values.write
        return {k: write(v) for k, v in value.items()}

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
        return self._fill(at, _HERE, found, reading)

    def read_at(self, at: r.At, key: str | int, value: Any, reading: Reading) -> Any:
        if type(value) is dict and not self._counts and (not self.closed or value.keys() <= self.fields.keys()):
            return self._fill(at, key, value, reading)    # its place made only if a field needs it
        return self.read(at.sub(key), value, reading)

    @cached_property
    def _fill(self) -> Callable[[r.At, Any, dict[str, Any], Reading], dict[str, Any]]:
        """``fill(at, key, found, reading)``: the fields of the object ``found`` (at ``at.sub(key)``, or at ``at``
        when ``key`` is ``_HERE``) read in order, each left-out one at its default (:func:`_compile`)."""
        return _compile(self, quick=False)

    @cached_property
    def quickable(self) -> bool:   # type: ignore[override]
        return not self._counts and all(spec.shape.quickable for spec in self.fields.values())

    @cached_property
    def quick(self) -> Callable[[Any, Reading], Any]:   # type: ignore[override]
        """:meth:`Shape.quick` for this record, made once as a function of its own (:func:`_compile`):
        a record is read for every potion or card of a snapshot, and a loop over its fields calling each
        field's shape costs several times the checks themselves."""
        if not self.quickable:
            return _never_quick
        return _compile(self, quick=True)

    @cached_property
    def _counts(self) -> tuple[tuple[str, "ListOf"], ...]:
        return tuple((key, spec.shape) for key, spec in self.fields.items()
                     if isinstance(spec.shape, ListOf) and spec.shape.count_as is not None)

    @cached_property
    def write(self) -> Callable[[Mapping[str, Any]], dict[str, Any]]:   # type: ignore[override]
        """:meth:`Shape.write` for this record, made once as a function of its own (:func:`_compile_write`): an
        engine's tree with every declared key, written as one dict display; any other through
        :meth:`_write_some`."""
        return _compile_write(self)

    def _write_some(self, value: Mapping[str, Any]) -> dict[str, Any]:
        """``value`` written in the declared key order, whichever keys it has (``ValueError`` for one the schema
        does not declare)."""
        unknown = [key for key in value if key not in self.fields]
        if unknown:
            raise ValueError(f"the snapshot schema declares no field {unknown[0]!r} (declared: "
                             f"{', '.join(self.fields)})")
        return {key: item if write is None else write(item)
                for key, write in self._writers if (item := value.get(key, REQUIRED)) is not REQUIRED}

    @cached_property
    def _writers(self) -> tuple[tuple[str, Callable[[Any], Any] | None], ...]:
        """Each field's key and ``write`` (None: its value is written as it is)."""
        return tuple((key, None if spec.shape.plain else spec.shape.write) for key, spec in self.fields.items())

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


def _never_quick(value: Any, reading: Reading) -> Any:
    return SLOW


_HERE: Any = object()
"""The key of a record read at its own place (:meth:`Record.read`), not at a key below one."""


def _here(at: r.At, key: Any) -> r.At:
    return at if key is _HERE else at.sub(key)


def _compile(record: Record, quick: bool) -> Callable[..., Any]:
    """``record``'s fields read as straight-line code made once (a record is read for every potion or card of a
    snapshot, and a loop calling each field's shape costs several times the checks themselves): each field's
    value got, its default taken, and its check written out (an integer's bounds, a choice's membership, an id
    not seen yet) or, for any other shape, the shape called.

    ``quick``: :meth:`Shape.quick` (``quick(value, reading)``, :data:`SLOW` at the first doubt). Else the
    ``fill(at, key, found, reading)`` of :meth:`Record.read` and :meth:`Record.read_at`: a field whose check fails
    is read by its shape at its place, which names what is wrong (or reads it, a ``[]`` for ``{}``)."""
    env: dict[str, Any] = {"SLOW": SLOW, "REQUIRED": REQUIRED, "_copy": _copy, "_here": _here}
    if quick:
        lines = ["def quick(value, reading):",
                 "    if type(value) is not dict: return SLOW"]
        if record.closed:
            env["KEYS"] = record.fields.keys()
            lines.append("    if not value.keys() <= KEYS: return SLOW")
        lines.append("    get = value.get")
    else:
        lines = ["def fill(at, key, value, reading):",
                 "    get = value.get",
                 "    place = None"]
    groups: dict[str, str] = {}
    for i, (key, spec) in enumerate(record.fields.items()):
        var, shape = f"v{i}", spec.shape
        env[f"K{i}"], env[f"S{i}"] = key, shape
        lines.append(f"    {var} = get(K{i}, REQUIRED)")
        none_is_default = spec.default is not REQUIRED and not isinstance(shape, Nullable)
        left_out = f"{var} is REQUIRED" + (f" or {var} is None" if none_is_default else "")
        if spec.default is not REQUIRED:
            env[f"D{i}"] = spec.default
            lines.append(f"    if {left_out}: {var} = _copy(D{i})")
        elif quick:
            lines.append(f"    if {left_out}: return SLOW")
        else:
            lines.append(f"    if {left_out}: raise _here(at, key).sub(K{i}).error('is missing')")
        test = _test(shape, var, f"T{i}", env)
        if quick:
            if test is None:
                lines += [f"    {var} = S{i}.quick({var}, reading)", f"    if {var} is SLOW: return SLOW"]
            else:
                lines += _nulled(shape, var) + [f"    if not {test}: return SLOW"]
            continue
        unique = shape.shape if isinstance(shape, Nullable) else shape
        if not isinstance(unique, Unique) or _test(unique.shape, var, f"T{i}", env) is None:
            unique = None
        if test is None and unique is None:
            if shape.quickable:      # a list or map of values taken at a glance: no place made for them
                lines += [f"    q = S{i}.quick({var}, reading)", "    if q is SLOW:",
                          "        if place is None: place = _here(at, key)",
                          f"        {var} = S{i}.read_at(place, K{i}, {var}, reading)",
                          f"    else: {var} = q"]
            else:
                lines += ["    if place is None: place = _here(at, key)",
                          f"    {var} = S{i}.read_at(place, K{i}, {var}, reading)"]
            continue
        slow = f"{var} = S{i}.read(_here(at, key).sub(K{i}), {var}, reading)"
        if unique is not None:      # an id, noted where it stands unless it stood somewhere already
            if unique.group not in groups:
                groups[unique.group] = seen = f"seen{len(groups)}"
                lines.insert(3, f"    {seen} = reading.seen.setdefault({unique.group!r}, {{}})")
            seen = groups[unique.group]
            test = f"{_test(unique.shape, var, f'T{i}', env)} and {var} not in {seen}"
            if unique is not shape:   # none, or an id
                lines += _nulled(shape, var) + [f"    if {var} is None: pass", f"    elif {test}:"]
            else:
                lines.append(f"    if {test}:")
            lines += ["        if place is None: place = _here(at, key)",
                      f"        {seen}[{var}] = place.sub(K{i})",
                      f"    else: {slow}"]
        else:
            lines += _nulled(shape, var) + [f"    if not {test}: {slow}"]
    lines.append("    return {" + ", ".join(f"K{i}: v{i}" for i in range(len(record.fields))) + "}")
    exec("\n".join(lines), env)   # noqa: S102 - code made here, from the shapes' own types and values
    return env["quick" if quick else "fill"]


def _compile_write(record: Record) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """``record``'s :meth:`Shape.write`: a tree with exactly the declared keys is written by one dict display
    (each plain value as it is, any other through its shape's ``write``), any other by ``_write_some``."""
    env: dict[str, Any] = {"KEYS": record.fields.keys(), "N": len(record.fields), "SOME": record._write_some}
    items = []
    for i, (key, spec) in enumerate(record.fields.items()):
        env[f"K{i}"] = key
        if spec.shape.plain:
            items.append(f"K{i}: value[K{i}]")
        else:
            env[f"W{i}"] = spec.shape.write
            items.append(f"K{i}: W{i}(value[K{i}])")
    lines = ["def write(value):",
             "    if len(value) == N and value.keys() <= KEYS:",
             "        return {" + ", ".join(items) + "}",
             "    return SOME(value)"]
    exec("\n".join(lines), env)   # noqa: S102 - code made here, from the record's own keys
    return env["write"]


def _nulled(shape: Shape, var: str) -> list[str]:
    """For a :class:`Nullable`: ``false`` read as none (what its test then takes)."""
    return [f"    if {var} is False: {var} = None"] if isinstance(shape, Nullable) else []


def _test(shape: Shape, var: str, name: str, env: dict[str, Any]) -> str | None:
    """An expression true when ``shape`` reads the JSON value ``var`` as it is (None: no such expression; the
    shape is called). ``var`` of a :class:`Nullable` is none or its shape's (``false`` made none before)."""
    if isinstance(shape, Nullable):
        inner = _test(shape.shape, var, name, env)
        return None if inner is None else f"({var} is None or {inner})"
    if type(shape) is Integer:
        parts = [f"{var}.__class__ is int"]
        for bound, op, suffix in ((shape.low, ">=", "L"), (shape.high, "<=", "H")):
            if bound is None:
                continue
            env[name + suffix] = bound
            if type(bound) is int:
                parts.append(f"{var} {op} {name}{suffix}")
            elif type(bound) is CountLess:
                env[name + suffix] = bound.of
                parts.append(f"{var} {op} reading.counts.get({name}{suffix}, -1) - {int(bound.less)}")
            else:
                parts.append(f"{var} {op} {name}{suffix}(reading)")
        return "(" + " and ".join(parts) + ")"
    if type(shape) is OneOf and shape._fixed:
        env[name] = shape.allowed       # a list or an object is unhashable, and never one of the scalars allowed
        return f"({var}.__class__ is not dict and {var}.__class__ is not list and {var} in {name})"
    if type(shape) is Boolean:
        return f"({var}.__class__ is bool)"
    if type(shape) is Text:
        env[name] = r.MAX_TEXT_LENGTH
        return f"({var}.__class__ is str and {var} != '' and len({var}) <= {name} and not {var}.isspace())"
    return None


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
