"""The base of every game's events: values that say what an action caused, with a JSON form.

An event is a frozen dataclass deriving from :class:`Event` with a ``kind`` (declared with :func:`event`, which is
``@dataclass(frozen=True)`` with a cheaper ``__init__``: games make a few hundred events a playout); ``to_json()`` gives
``{"event": <kind>, <field>: <value>, ...}``. A tuple is written as a list, a value with a ``to_json`` (an action's
target, an outcome) as its JSON, and a field named ``source`` as ``"from"`` (a Python keyword). Events are what
every player may see: a game's events never carry a secret.
"""

from __future__ import annotations

from typing import Any, ClassVar

from bridge.rules.values import frozen_value

event = frozen_value
"""Declares an event class: :func:`bridge.rules.values.frozen_value` (``@dataclass(frozen=True)``, cheaper to
make)."""


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


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
