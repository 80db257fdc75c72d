"""What Tabletop Simulator's JSON does to values, undone at the bridge's boundary.

TTS's Lua numbers are doubles and its JSON writer sends every number as a float: a seat ``0`` arrives as
``0.0``, an id ``7`` as ``7.0`` (``../shared/docs/tts-facts.md``, the spike against real TTS). The engines
take whole numbers as ``int`` and refuse floats, so :func:`whole_numbers` turns every float that is a whole
number into an ``int`` before a request reaches them; a float with a fraction (``2.5``) stays a float, so an
engine still refuses it.
"""

from __future__ import annotations

from typing import Any

# Whole floats beyond this are not exact integers in a double; they are left as they came.
_EXACT = 2 ** 53


def _whole(value: float) -> int | float:
    if value.is_integer() and abs(value) <= _EXACT:
        return int(value)
    return value


def whole_numbers(value: Any) -> Any:
    """A copy of JSON data with every whole-number float as an ``int`` (``2.0`` → ``2``; ``2.5`` stays).

    Iterative, so that deeply nested input costs no Python recursion."""
    if isinstance(value, float):
        return _whole(value)
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        if isinstance(source, dict):
            for key, item in source.items():
                target[key] = _converted(item, stack)
        else:
            append = target.append
            for item in source:
                append(_converted(item, stack))
    return root


def _converted(item: Any, stack: list[tuple[Any, Any]]) -> Any:
    """``item`` with a whole float as an int; a dict or list as an empty copy, queued on ``stack`` to fill."""
    kind = type(item)
    if kind is str or kind is int or kind is bool or item is None:
        return item
    if isinstance(item, float):
        return _whole(item)
    if isinstance(item, (dict, list)):
        copy: Any = {} if isinstance(item, dict) else []
        stack.append((item, copy))
        return copy
    return item
