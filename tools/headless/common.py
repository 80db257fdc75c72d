"""What the headless table (:mod:`tools.headless.table`) and its Lua API (:mod:`tools.headless.api`) both use:
scheduled waits, TTS's player colours, and Lua data made JSON the way TTS writes it. Kept apart so that the
table imports the API and the API never imports the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.rules.game import TTS_SEAT_COLOURS
from tools.headless.lua import HeadlessError
from tools.headless.objects import HObject

PLAYER_COLOURS: tuple[str, ...] = TTS_SEAT_COLOURS + ("Grey", "Black")
"""Every player colour TTS has: the seat colours a game can give players, then Grey (spectators) and Black
(the game master), which the headless table also seats and ``Player.getColors()`` lists."""


@dataclass(eq=False)
class Wait:
    """A ``Wait.time`` / ``Wait.frames`` / ``Wait.condition`` waiting on the table's simulated clock.

    Each one is itself (equal only to itself): the table looks its waits up every frame, and comparing two by
    their fields compared the Lua functions they hold, a call into Lua each."""

    id: int
    fn: Any
    due_time: float | None = None
    due_frame: int | None = None
    interval: float = 0.0
    repetitions: int = 1
    condition: Any = None
    deadline: float | None = None
    timeout_fn: Any = None


def json_clean(value: Any) -> Any:
    """Lua data → JSON-ready data as TTS writes it: integral floats as ints, keys as strings, ``{}`` as ``[]``."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value)
    if isinstance(value, dict):
        if not value:
            return []     # TTS's JSON writes an empty Lua table as [] (it cannot tell an empty object)
        return {str(k): json_clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_clean(v) for v in value]
    if isinstance(value, HObject):
        raise HeadlessError("an Object reference cannot be sent as JSON; send its GUID")
    if callable(value) and not isinstance(value, (str, bytes)):
        raise HeadlessError("a function cannot be sent as JSON")
    return value
