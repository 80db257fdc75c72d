"""A headless stand-in for Tabletop Simulator: loads a save, runs its Lua 5.2 scripts, speaks the External
Editor API over real sockets. See docs/headless.md and :class:`tools.headless.table.Table`."""

from tools.headless.fidelity import Fidelity
from tools.headless.geometry import Vec
from tools.headless.lua import HeadlessError, Unemulated
from tools.headless.objects import HObject
from tools.headless.table import FRAME, Table

__all__ = ["Table", "Fidelity", "HObject", "Vec", "HeadlessError", "Unemulated", "FRAME"]
