"""A table in real Lua (lupa) for :class:`bridge.faketts.FakeTTS`: objects that record what an in-place update
set on them (``setLuaScript``, ``UI.setXml``) and how often each reloaded alone; Global's ``UI.setXml`` too."""

from __future__ import annotations

import json

import pytest

from bridge.protocol import ExecuteLua, ReturnValue

lupa = pytest.importorskip("lupa")

# A table in real Lua: each object records what was set on it and how often it reloaded alone.
TABLE_LUA = """
objects = {}
global_ui = nil
function getObjectFromGUID(guid)
  local record = objects[guid]
  if record == nil then return nil end
  local o = {UI = {}}
  o.setLuaScript = function(script) record.script = script end
  o.UI.setXml = function(xml) record.ui = xml end
  o.reload = function() record.reloads = record.reloads + 1 return o end
  return o
end
UI = {setXml = function(xml) global_ui = xml end}
"""


class LiveTable:
    """A :class:`bridge.faketts.FakeTTS` Lua runner: the objects of ``guids`` are on the table."""

    def __init__(self, guids: list[str]) -> None:
        self.lua = lupa.LuaRuntime(unpack_returned_tuples=False)
        self.lua.execute(TABLE_LUA)
        self.lua.globals().JSON = self.lua.table_from({"encode": lambda value: json.dumps(self.py(value))})
        for guid in guids:
            self.lua.globals().objects[guid] = self.lua.table_from({"reloads": 0})
        self.executed: list[str] = []

    def py(self, value):
        if lupa.lua_type(value) == "table":
            items = dict(value.items())
            if all(isinstance(k, int) for k in items) and sorted(items) == list(range(1, len(items) + 1)):
                return [self.py(items[k]) for k in sorted(items)]
            return {str(k): self.py(v) for k, v in items.items()}
        return value

    def __call__(self, message: ExecuteLua):
        self.executed.append(message.script)
        value = self.lua.execute(message.script)
        return [ReturnValue(return_id=message.return_id, value=value, has_value=value is not None)]

    def record(self, guid: str) -> dict:
        return self.py(self.lua.globals().objects[guid])
