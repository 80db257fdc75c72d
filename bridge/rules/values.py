"""Frozen record values, cheaper to make and to name: what engines build by the hundred in every playout
(events, actions, results) and renderers name by the thousand (a card's record in its image key).

Both helpers keep everything a frozen dataclass is — fields, equality, hash, immutability — and change only
what it costs: :func:`frozen_value` its ``__init__``, :func:`plain_repr` its ``repr``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

V = TypeVar("V", bound=type)


def frozen_value(cls: V) -> V:
    """``@dataclass(frozen=True)`` for a value class (an event, an action, a result), with an ``__init__`` that
    fills the instance's ``__dict__`` directly rather than through ``object.__setattr__`` per field (about half
    the cost); everything else — fields, equality, hash, repr, immutability — is the dataclass's own. A class whose fields have defaults or
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


def plain_repr(cls: type) -> type:
    """Class decorator, above ``@dataclass``: the dataclass's own ``repr`` without the guard against a record
    that holds itself (a frozen record of values never does). The text is the same; it is made a third faster,
    and renderers make it for every card of a big game (an image's key names its record by its ``repr``)."""
    unguarded = getattr(cls.__repr__, "__wrapped__", None)
    if unguarded is not None:
        cls.__repr__ = unguarded
    return cls
