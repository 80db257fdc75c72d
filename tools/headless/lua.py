"""The Lua 5.2 side of the headless table: a sandboxed lupa runtime and the value conversions.

Scripts run with no ``os``, ``io``, ``debug``, ``package``, ``require``, ``load``/``dofile``; each script gets its
own environment (``self`` is its object) that reads the shared TTS API table and the safe standard libraries.
TTS objects, ``Player`` instances and API namespaces are Lua tables whose metatable forwards every access to a
Python proxy (``__index`` → ``proxy.index(key)``), so identity holds (the same object is the same table) and an
unemulated member raises :class:`Unemulated` naming it.
"""

from __future__ import annotations

from typing import Any, Callable

import lupa.lua52 as lupa52

SAFE_GLOBALS = (
    "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen", "rawset", "select",
    "setmetatable", "getmetatable", "tonumber", "tostring", "type", "unpack", "xpcall", "string", "table",
    "math", "bit32", "coroutine", "_VERSION",
)

BOOTSTRAP = r"""
local load, xpcall, traceback, setmetatable, getmetatable, rawget, rawequal, select = load, xpcall, debug.traceback, setmetatable, getmetatable, rawget, rawequal, select
local safe_names = ...
local hl = {}
local base = {}
for _, k in ipairs(safe_names) do base[k] = _G[k] end
hl.base = base

function hl.wrap(proxy, index, newindex, describe)
    local mt = {}
    mt.__headless = proxy
    local methods = {}
    local wrapper = {}
    mt.__index = function(_, k)
        local m = methods[k]
        if m ~= nil then return m end
        local v, is_method = index(k)
        if is_method then
            -- obj:method(...) passes the object first: dropped here when it is this very table (true: Python
            -- drops nothing more), so the object does not cross into Python and back on every call
            local f = v
            v = function(...)
                if select("#", ...) > 0 and rawequal((...), wrapper) then return f(true, select(2, ...)) end
                return f(false, ...)
            end
            methods[k] = v
        end
        return v
    end
    mt.__newindex = function(_, k, v) newindex(k, v) end
    mt.__tostring = function() return describe() end
    return setmetatable(wrapper, mt)
end

function hl.unwrap(t)
    local mt = getmetatable(t)
    if type(mt) == "table" then return rawget(mt, "__headless") end
    return nil
end

function hl.new_env(self_value, guard)
    local env = {}
    env.self = self_value
    env._G = env
    setmetatable(env, { __index = function(_, k)
        local v = base[k]
        if v ~= nil then return v end
        return guard(k)
    end })
    return env
end

function hl.load(code, name, env)
    local f, e = load(code, "=" .. name, "t", env)
    return f, e
end

local function handler(e) return traceback(tostring(e), 2) end

function hl.pcall(f, ...)
    local ok, result = xpcall(f, handler, ...)
    return ok, result
end

function hl.event(env, name, ...)
    local f = rawget(env, name)
    if f == nil then return true, nil, false end
    local ok, result = xpcall(f, handler, ...)
    return ok, result, true
end

-- the sandbox: nothing of the host reaches the scripts
for _, k in ipairs({"os", "io", "debug", "package", "require", "dofile", "loadfile", "loadstring", "load",
                    "python", "collectgarbage"}) do
    _G[k] = nil
end
return hl
"""


class HeadlessError(Exception):
    """A problem of the headless table itself or of a script it runs (carries the Lua traceback)."""


class Unemulated(HeadlessError):
    """A script used a TTS API member the headless table does not emulate."""

    def __init__(self, member: str) -> None:
        super().__init__(f"headless table does not emulate {member}")
        self.member = member


def _attribute_filter(obj: Any, name: str, is_setting: bool) -> str:
    if name.startswith("_") or is_setting:
        raise AttributeError("not accessible from Lua")
    return name


class Lua:
    """One sandboxed runtime, with helpers to convert values and wrap proxies."""

    def __init__(self) -> None:
        self.runtime = lupa52.LuaRuntime(unpack_returned_tuples=True, register_eval=False,
                                         register_builtins=False, attribute_filter=_attribute_filter)
        safe = self.runtime.table_from(list(SAFE_GLOBALS))
        self.hl = self.runtime.execute(BOOTSTRAP, safe)
        self.base = self.hl.base
        self._wrappers: dict[int, Any] = {}

    # -- proxies -----------------------------------------------------------------------------
    def wrap(self, proxy: Any) -> Any:
        """The Lua table standing for ``proxy`` (the same table every time)."""
        key = id(proxy)
        if key not in self._wrappers:
            self._wrappers[key] = (proxy, self.hl.wrap(proxy, proxy.index, proxy.newindex, proxy.describe))
        return self._wrappers[key][1]

    def unwrap(self, value: Any) -> Any:
        if lupa52.lua_type(value) == "table":
            return self.hl.unwrap(value)
        return None

    # -- conversions -------------------------------------------------------------------------
    def to_lua(self, value: Any) -> Any:
        """Python data → Lua: dicts/lists become tables (lists 1-based); objects with ``lua_proxy`` are wrapped."""
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if lupa52.lua_type(value) is not None:
            return value
        proxy = getattr(value, "lua_proxy", None)
        if proxy is not None:
            return self.wrap(proxy)
        if isinstance(value, dict):
            t = self.runtime.table()
            for k, v in value.items():
                t[k] = self.to_lua(v)
            return t
        if isinstance(value, (list, tuple)):
            t = self.runtime.table()
            for i, v in enumerate(value, 1):
                t[i] = self.to_lua(v)
            return t
        if callable(value):
            return value
        raise HeadlessError(f"cannot hand {type(value).__name__} to Lua")

    def to_py(self, value: Any) -> Any:
        """Lua → Python: wrapped proxies back to their target, tables to list (keys 1..n) or dict, functions kept."""
        kind = lupa52.lua_type(value)
        if kind is None:
            return value
        if kind != "table":
            return value
        proxy = self.hl.unwrap(value)
        if proxy is not None:
            return proxy.target   # every wrapped value is a tools.headless.api.Proxy
        items = list(value.items())
        keys = [k for k, _ in items]
        if items and all(isinstance(k, int) and not isinstance(k, bool) for k in keys) \
                and sorted(keys) == list(range(1, len(keys) + 1)):
            return [self.to_py(v) for _, v in sorted(items, key=lambda kv: kv[0])]
        return {k: self.to_py(v) for k, v in items}

    def function(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """A Python function callable from Lua: arguments converted to Python, the result to Lua."""

        def call(*args: Any) -> Any:
            result = fn(*[self.to_py(a) for a in args])
            if isinstance(result, tuple):
                return tuple(self.to_lua(r) for r in result)
            return self.to_lua(result)

        return call
