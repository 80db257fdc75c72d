"""What a table's cards were given by their expressions, kept from one build for the next.

Laying a deck of 10,000 cards evaluates each of its card fields (``[decks.card]``: key, nickname, memo, snap
points …) and its ``face`` for every card, which was most of what laying a big table cost. The values follow from
the expressions' text, the build language, the card's data (``card``), its place (``index``) and any other name the
expressions read, so they are kept under a key made of those: :func:`card_context` gives the digest of what every
card of a deck shares (the expressions, the language, the values of the other names they read), and the card's
own part is the fingerprint its builder gives its data (a digest's text; :mod:`tools.entrykeys`: it changes
whenever the card's entry or anything else the build reads does) and its place. A card whose data has no
fingerprint is evaluated as before.

:class:`CardMemo` holds the values by deck and key; :meth:`CardMemo.to_bytes` and :meth:`CardMemo.from_bytes` keep them in a
cache file (JSON). The values come back exactly as they were made, types included: texts, numbers, true/false,
lists and tables as they are; tuples, snap points and vectors in a tagged form, each distinct one stored once.
Bytes that are not such a file are no values (everything is evaluated again).
"""

from __future__ import annotations

import ast
import hashlib
import json
import pickle
from typing import Any, Iterable, Sequence

from bridge.catalog import worth_rewriting
from tools.save.objects import SnapPoint, Vector
from tools.tableexpr import ExpressionError, Scope, Template

FORMAT = "ttsmod card values 2"
OWN_NAMES = frozenset(("card", "index"))
"""The names a card's expressions read that are the card's own: its data and its place."""

REWRITE_SLACK = 0.005
"""The share of a memo's cards whose values may differ from the file's (new, or no longer used) before the file is
written again (:attr:`CardMemo.worth_keeping`)."""


class Unkept(Exception):
    """A value this memo cannot keep exactly (the card is then evaluated at every build)."""


def names_read(values: Iterable[Any]) -> set[str]:
    """Every name the expressions of ``values`` (templates, or lists and tables holding them) look up."""
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, Template):
            for part in value.parts:
                if isinstance(part, ast.AST):
                    called = {id(node.func) for node in ast.walk(part) if isinstance(node, ast.Call)}
                    found.update(node.id for node in ast.walk(part)
                                 if isinstance(node, ast.Name) and id(node) not in called
                                 and node.id not in ("true", "false"))
        elif isinstance(value, ast.AST):
            visit(Template("", (value,)))
        elif isinstance(value, dict):
            for item in value.values():
                visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    for value in values:
        visit(value)
    return found


def _source(value: Any) -> Any:
    if isinstance(value, Template):
        return {"~template": value.text}
    if isinstance(value, ast.AST):
        return {"~expression": ast.unparse(value)}
    if isinstance(value, dict):
        return {"~table": [[str(k), _source(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_source(v) for v in value]
    return {"~value": repr(value)}


def card_context(what: str, fields: Sequence[tuple[str, Any]], scope: Scope) -> str | None:
    """The digest of what every card of a deck shares in working out ``fields`` (each ``(name, expression)``):
    their text, the build language and the value of each name they read besides the card's own
    (:data:`OWN_NAMES`); None when such a value cannot be named exactly (the cards are evaluated then)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(json.dumps([FORMAT, what, scope.lang, [[name, _source(value)] for name, value in fields]],
                             ensure_ascii=False).encode("utf-8"))
    for name in sorted(names_read(value for _, value in fields) - OWN_NAMES):
        try:
            value = scope.lookup(name)
            named = pickle.dumps(value, 5)
        except (ExpressionError, pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
            return None
        digest.update(b"\0" + name.encode("utf-8") + b"\0" + hashlib.blake2b(named, digest_size=16).digest())
    return digest.hexdigest()


def card_key(fingerprint: str, index: int) -> str:
    """The key of one card's values within its deck's :func:`card_context`: its data's fingerprint and its
    place."""
    return f"{fingerprint}:{index}"


_NATIVE = (str, int, float, bool, type(None))


def _native(value: Any, depth: int = 0) -> bool:
    """Whether JSON gives ``value`` back as it is (types included)."""
    kind = type(value)
    if kind in _NATIVE:
        return True
    if depth > 32:
        return False
    if kind is list:
        return all(_native(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str for k in value) and all(_native(v, depth + 1) for v in value.values())
    return False


def _pack(value: Any, depth: int = 0) -> Any:
    kind = type(value)
    if kind in _NATIVE:
        return value
    if depth > 32:
        raise Unkept
    if kind is tuple:
        return ["t", [_pack(v, depth + 1) for v in value]]
    if kind is list:
        return ["l", [_pack(v, depth + 1) for v in value]]
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise Unkept
        return ["d", [[k, _pack(v, depth + 1)] for k, v in value.items()]]
    if kind is Vector:
        return ["v", _pack(value.x), _pack(value.y), _pack(value.z)]
    if kind is SnapPoint:
        return ["s", _pack(value.position), _pack(value.tags), _pack(value.rotation)]
    raise Unkept


def _unpack(packed: Any) -> Any:
    if type(packed) is not list:
        return packed
    tag = packed[0]
    if tag == "t":
        return tuple(_unpack(v) for v in packed[1])
    if tag == "l":
        return [_unpack(v) for v in packed[1]]
    if tag == "d":
        return {k: _unpack(v) for k, v in packed[1]}
    if tag == "v":
        return Vector(_unpack(packed[1]), _unpack(packed[2]), _unpack(packed[3]))
    if tag == "s":
        return SnapPoint(_unpack(packed[1]), _unpack(packed[2]), _unpack(packed[3]))
    raise ValueError(tag)


def _immutable(packed: Any) -> bool:
    """Whether the value ``packed`` stands for holds no list or table (so cards may share it)."""
    if type(packed) is not list:
        return True
    if packed[0] in ("l", "d"):
        return False
    return all(_immutable(part) for part in (packed[1] if packed[0] == "t" else packed[1:]))


def _keys(sections: dict[str, Any]) -> set[tuple[str, str]]:
    """Every (context, key) of ``sections`` (context → key → values)."""
    return {(context, key) for context, section in sections.items() if type(section) is dict for key in section}


class CardMemo:
    """Card values by deck context (:func:`card_context`) and key (:func:`card_key`): those of the last build
    (given) and those this build used.

    Each value is kept as it is when JSON gives it back so (a table as ``{"=": table}``), else packed into the
    shared values (``{"~": index}``), each distinct one once: a deck's cards share a few snap point lists."""

    def __init__(self, sections: dict[str, dict[str, list]] | None = None, shared: list[Any] | None = None) -> None:
        self._sections = sections or {}      # context → key → stored values
        self._shared_packed = shared or []   # index → a packed value
        self._shared: dict[int, Any] = {}    # index → that value unpacked, when cards may share it
        self._shared_index: dict[str, int] = {}
        self._by_identity: dict[int, tuple[Any, int]] = {}   # id(value) → (the value, its index) this build
        self.used: dict[str, dict[str, list]] = {}
        self._fresh = 0

    def get(self, context: str, key: str, count: int) -> list | None:
        """The ``count`` values kept under ``key`` of ``context``, or None."""
        section = self._sections.get(context)
        stored = section.get(key) if type(section) is dict else None
        if type(stored) is not list or len(stored) != count:
            return None
        try:
            values = [(self._shared_value(v["~"]) if "~" in v else v["="]) if type(v) is dict else v
                      for v in stored]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
        used = self.used.get(context)
        if used is None:
            used = self.used[context] = {}
        used[key] = stored
        return values

    def _shared_value(self, index: int) -> Any:
        if type(index) is not int or index < 0:
            raise ValueError(index)
        found = self._shared.get(index)
        if found is None:
            packed = self._shared_packed[index]
            found = _unpack(packed)
            if _immutable(packed):
                self._shared[index] = found
        return found

    def put(self, context: str, key: str, values: Sequence[Any]) -> None:
        """Keep ``values`` under ``key`` of ``context`` (nothing when one of them cannot be kept exactly)."""
        stored: list[Any] = []
        try:
            for value in values:
                if _native(value):
                    stored.append({"=": value} if type(value) is dict else value)
                    continue
                stored.append({"~": self._share(value)})
        except Unkept:
            return
        self.used.setdefault(context, {})[key] = stored
        self._fresh += 1

    def _share(self, value: Any) -> int:
        known = self._by_identity.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        packed = _pack(value)
        if not self._shared_index and self._shared_packed:
            self._shared_index = {json.dumps(p, ensure_ascii=False): i for i, p in enumerate(self._shared_packed)}
        text = json.dumps(packed, ensure_ascii=False)
        index = self._shared_index.get(text)
        if index is None:
            index = self._shared_index[text] = len(self._shared_packed)
            self._shared_packed.append(packed)
        self._by_identity[id(value)] = (value, index)
        return index

    @property
    def changed(self) -> bool:
        """Whether the values used are not those given (some new, some no longer used)."""
        return bool(self._fresh) or self.used.keys() != self._sections.keys() or any(
            section.keys() != self._sections[context].keys() for context, section in self.used.items())

    @property
    def worth_keeping(self) -> bool:
        """Whether the values used are worth writing for the next build: as for the parsed-entry cache
        (:func:`bridge.catalog.worth_rewriting`, :data:`REWRITE_SLACK`), not when only a few cards' values are
        new or no longer used (a 10,000-card deck's memo is encoded again in a few hundredths of a second; a
        value left out is only worked out again at the next build)."""
        return worth_rewriting(_keys(self.used), _keys(self._sections), REWRITE_SLACK)

    def to_bytes(self) -> bytes:
        """The values used, for :meth:`from_bytes` in a later build (the shared values no longer used dropped
        once they outnumber those used)."""
        used, shared = self.used, self._shared_packed
        named = {v["~"] for section in used.values() for stored in section.values() for v in stored
                 if type(v) is dict and "~" in v}
        if len(shared) > 64 + 2 * len(named):
            order = sorted(named)
            renumbered = {old: new for new, old in enumerate(order)}
            shared = [shared[i] for i in order]
            used = {context: {key: [{"~": renumbered[v["~"]]} if type(v) is dict and "~" in v else v
                                    for v in stored] for key, stored in section.items()}
                    for context, section in used.items()}
        payload = json.dumps({"format": FORMAT, "sections": used, "shared": shared},
                             ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        # a checksum: a damaged value would otherwise go into a save unseen
        return hashlib.blake2b(payload, digest_size=16).hexdigest().encode("ascii") + b"\n" + payload

    @classmethod
    def from_bytes(cls, raw: bytes | None) -> "CardMemo":
        """The values :meth:`to_bytes` kept; none when ``raw`` is not such bytes (or they were damaged)."""
        try:
            check, _, payload = (raw or b"").partition(b"\n")
            intact = check == hashlib.blake2b(payload, digest_size=16).hexdigest().encode("ascii")
            stored = json.loads(payload) if intact else None
            if type(stored) is dict and stored.get("format") == FORMAT and type(stored.get("sections")) is dict \
                    and type(stored.get("shared")) is list:
                return cls(stored["sections"], stored["shared"])
        except (ValueError, RecursionError):
            pass
        return cls()
