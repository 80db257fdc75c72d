"""A value as TTS's Lua writes it with ``JSON.encode`` (docs/protocol.md, "Lua JSON quirks"), for the tests that
send the bridge what a real table would.

TTS's Lua numbers are doubles, so every integer may arrive as a float; Lua has one table type, so an empty object
is written ``[]``; a Lua table cannot hold nil, so the mods write an empty slot as ``false``; and a Lua table has
no key order.
"""

from __future__ import annotations

from typing import Any, Collection

from bridge.rules.random import SeededRandom


def as_lua(value: Any, *, nulls: bool = True, chooser: SeededRandom | None = None,
           drop: Collection[str] = ()) -> Any:
    """``value`` with every integer a float, every empty object ``[]``, every ``null`` ``false`` (unless ``nulls``
    is false), the keys of every object shuffled by ``chooser`` (when given), and the top-level keys of ``drop``
    left out."""

    def lua(item: Any, top: bool) -> Any:
        if item is None:
            return False if nulls else None
        if isinstance(item, bool) or isinstance(item, str):
            return item
        if isinstance(item, int):
            return float(item)
        if isinstance(item, list):
            return [lua(x, False) for x in item]
        if isinstance(item, dict):
            if not item:
                return []
            keys = [k for k in item if not (top and k in drop)]
            if chooser is not None:
                chooser.shuffle(keys)
            return {k: lua(item[k], False) for k in keys}
        return item

    return lua(value, True)
