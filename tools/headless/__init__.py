"""A headless stand-in for Tabletop Simulator: loads a save, runs its Lua 5.2 scripts, speaks the External
Editor API over real sockets. See docs/headless.md and :class:`tools.headless.table.Table`.

The names below are imported when first asked for: the geometry and fidelity modules are plain Python that
``ttsmod build`` and ``ttsmod preview`` use, and importing them must not need ``lupa`` (the Lua runtime, a test
extra), which only the table itself runs on."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Table": "tools.headless.table", "FRAME": "tools.headless.table", "Fidelity": "tools.headless.fidelity",
    "HObject": "tools.headless.objects", "Vec": "tools.headless.geometry", "HeadlessError": "tools.headless.lua",
    "Unemulated": "tools.headless.lua",
}

__all__ = ["Table", "Fidelity", "HObject", "Vec", "HeadlessError", "Unemulated", "FRAME"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
