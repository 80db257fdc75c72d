"""The base of every game's events: values that say what an action caused, with a JSON form.

An event is a frozen dataclass deriving from :class:`Event` with a ``kind`` (declared with :func:`event`, which is
``@dataclass(frozen=True)`` with a cheaper ``__init__``: games make a few hundred events a playout); ``to_json()`` gives
``{"event": <kind>, <field>: <value>, ...}``. A tuple is written as a list, a value with a ``to_json`` (an action's
target, an outcome) as its JSON, and a field named ``source`` as ``"from"`` (a Python keyword). Events are what
every player may see: a game's events never carry a secret.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, TypeVar

E = TypeVar("E", bound=type)


class Event:
    """Base of all events; ``to_json()`` gives ``{"event": <kind>, ...}``."""

    kind: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"event": self.kind}
        body.update(self._fields())
        return body

    def _fields(self) -> dict[str, Any]:
        # Field ``source`` is written as ``from`` (a Python keyword); values with a JSON form use it.
        return {("from" if k == "source" else k): _jsonable(v) for k, v in self.__dict__.items()}


def event(cls: E) -> E:
    """``@dataclass(frozen=True)`` for an event class, with an ``__init__`` that fills the instance's ``__dict__``
    directly rather than through ``object.__setattr__`` per field (about half the cost); everything else —
    fields, equality, hash, repr, immutability — is the dataclass's own. A class whose fields have defaults or
    that has a ``__post_init__`` keeps the dataclass ``__init__``."""
    cls = dataclasses.dataclass(frozen=True)(cls)
    fields = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or any(
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING or not f.init
            for f in fields):
        return cls
    names = [f.name for f in fields]
    for name in names:
        if not name.isidentifier():  # pragma: no cover - dataclasses only accept identifiers
            raise TypeError(f"{cls.__name__}: field {name!r}")
    body = "".join(f"\n    d[{name!r}] = {name}" for name in names) or "\n    pass"
    source = f"def __init__(self{''.join(', ' + name for name in names)}):\n    d = self.__dict__{body}\n"
    namespace: dict[str, Any] = {}
    exec(source, {}, namespace)  # field names of the class itself, checked above: no data reaches this
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[misc]
    return cls


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
