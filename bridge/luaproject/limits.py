"""The one size and depth budget of a tree: what every command that reads or writes one keeps to.

A save, a tree and a UI come from anyone; a limit that one side keeps and the other does not is a file ttsmod
writes and then refuses to read. So ``unpack`` and ``pack`` check the same numbers, measured the same way (a save
``unpack`` accepts is a tree ``pack`` accepts, and the other way round), and ``push``, ``build`` and ``pull`` expand
and fold XML includes within the same caps. Real saves stay far below every limit (objects nest 3 or 4 deep, JSON
a dozen levels).

No I/O here.
"""

from __future__ import annotations

from typing import Any

MAX_OBJECT_DEPTH = 100
"""Deepest nesting of objects in objects (``ContainedObjects``, ``ChildObjects``, ``States``): the objects of
``ObjectStates`` are at depth 1, what they hold at depth 2. ``unpack`` refuses a deeper save, ``pack`` a deeper
tree."""

MAX_JSON_DEPTH = 300
"""Deepest nesting of JSON arrays and objects in a save (the save's own object is level 1), and in a script
state written as ``state.json``. Each level of objects takes two (the list and the object), so a save with
objects :data:`MAX_OBJECT_DEPTH` deep fits. ``unpack`` refuses a deeper save (a deeper script state is written as
``state.txt``, the text as it is); ``pack`` refuses a file of the tree, or the save it assembles, that is deeper."""

MAX_INCLUDE_DEPTH = 32
"""Deepest chain of XML ``<Include>`` or Lua ``#include``: a file included by a file included by … the UI or the
script. Deeper is an error when expanding (``push``, ``build``); ``pull`` leaves a UI whose include markers nest
deeper expanded (and a script whose ``#include`` markers do, bundled)."""

MAX_EXPANDED_UI_CHARS = 2_000_000
"""Longest XML UI (in characters) that expanding its ``<Include>`` tags may give: an include bomb (each file
including the next twice) stops here with an error instead of sending TTS tens of megabytes."""

MAX_EXPANDED_LUA_CHARS = 16_000_000
"""Longest Lua script (in characters) that expanding its ``#include`` lines may give, for the same reason; a
generated game's bundle runs to a few megabytes, so the cap is higher than the UI's."""


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays and objects more than ``limit`` levels deep; a scalar is
    level 0, ``[]`` level 1. Iterative: a value too deep for recursion is measured all the same."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        container, depth = stack.pop()
        if depth > limit:
            return True
        items = container.values() if isinstance(container, dict) else container
        stack.extend((item, depth + 1) for item in items if isinstance(item, (list, dict)))
    return False
