"""Scans of the Lua mod sources: only documented TTS API members, MoonSharp-safe Lua 5.2, compiles."""

from __future__ import annotations

import csv
import re

import lupa.lua52 as lupa52
import pytest

from tests.mod.luasrc import MEMBERS_TSV, MOD, lua_files, module_name, strip
from tests.shared import require_shared

LUA_KEYWORDS = {"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
                "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"}
LUA_GLOBALS = {"assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen", "rawset",
               "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type", "unpack", "xpcall",
               "require"}
LUA_LIBS = {"string", "table", "math", "bit32", "coroutine"}
# TTS namespace → the doc pages of its members
NAMESPACES = {
    "Wait": ["wait"], "UI": ["ui"], "JSON": ["json"], "Turns": ["turns"], "Player": ["player/manager"],
    "Time": ["time"], "Info": ["info"], "Hands": ["hands"], "Grid": ["grid"], "Lighting": ["lighting"],
    "Physics": ["physics"], "Notes": ["notes"], "Tables": ["tables"], "Backgrounds": ["backgrounds"],
    "MusicPlayer": ["musicplayer"], "WebRequest": ["webrequest/manager"], "Timer": ["timer"],
    "Color": ["color"], "Vector": ["vector"],
}
INSTANCE_PAGES = ("object", "player/instance", "webrequest/instance", "components/component",
                  "components/gameobject", "components/material", "color", "vector")


def _members() -> dict[str, set[str]]:
    require_shared("docs/tts-api-members.tsv")  # skipped in a bare clone, a failure in CI
    pages: dict[str, set[str]] = {}
    with MEMBERS_TSV.open(encoding="utf-8") as f:
        rows = [line for line in f if not line.startswith("#")]
    for row in csv.DictReader(rows, delimiter="\t"):
        pages.setdefault(row["page"], set()).add(row["name"])
    return pages


def _sources() -> dict[str, str]:
    return {module_name(p): strip(p.read_text(encoding="utf-8")) for p in lua_files()}


def _own_names(sources: dict[str, str]) -> set[str]:
    """Functions and fields the mod defines itself (module members, handlers, locals)."""
    names: set[str] = set()
    for code in sources.values():
        names |= set(re.findall(r"function\s+(?:[A-Za-z_]\w*[.:])?([A-Za-z_]\w*)\s*\(", code))
        names |= set(re.findall(r"local\s+function\s+([A-Za-z_]\w*)", code))
        names |= set(re.findall(r"local\s+([A-Za-z_]\w*)\s*=", code))
        names |= set(re.findall(r"\b[A-Za-z_]\w*\.([A-Za-z_]\w*)\s*=\s*function", code))
        names |= set(re.findall(r"^\s*([A-Za-z_]\w*)\s*=", code, re.M))
        for params in re.findall(r"function\s*[\w.:]*\s*\(([^)]*)\)", code):
            names |= {p.strip() for p in params.split(",") if p.strip()}
        for loop_vars in re.findall(r"\bfor\s+([\w,\s]+?)\s+in\b", code):
            names |= {v.strip() for v in loop_vars.split(",") if v.strip()}
    return names


def test_mod_has_sources():
    names = {module_name(p) for p in lua_files()}
    assert {"lib.bridge", "lib.link", "lib.stepper", "lib.ledger", "lib.panel"} <= names
    assert all((MOD / folder / "global.lua").is_file() for folder in {n.split(".")[0] for n in names} - {"lib"})


def test_only_documented_tts_members_are_used():
    pages = _members()
    sources = _sources()
    own = _own_names(sources)
    base = pages["base"] | pages["events"]
    instance = set().union(*(pages.get(p, set()) for p in INSTANCE_PAGES))
    problems = []
    for name, code in sources.items():
        aliases = set(re.findall(r"local\s+([A-Za-z_]\w*)\s*=\s*require\(", code))
        for m in re.finditer(r"\b([A-Z][A-Za-z]*)\.([A-Za-z_]\w*)", code):
            ns, member = m.groups()
            if ns in NAMESPACES:
                allowed = set().union(*(pages.get(p, set()) for p in NAMESPACES[ns]))
                if ns == "Player" and member in {"White", "Brown", "Red", "Orange", "Yellow", "Green", "Teal",
                                                 "Blue", "Purple", "Pink", "Grey", "Black"}:
                    continue
                if member not in allowed:
                    problems.append(f"{name}: {ns}.{member}")
        for m in re.finditer(r"(?<![.:\w])([A-Za-z_]\w*)\s*\(", code):
            fn = m.group(1)
            if fn in LUA_KEYWORDS or fn in LUA_GLOBALS or fn in own or fn in aliases:
                continue
            if fn not in base:
                problems.append(f"{name}: global {fn}()")
        for m in re.finditer(r"([A-Za-z_][\w\]\)]*)\s*[.:]\s*([A-Za-z_]\w*)\s*\(", code):
            receiver, method = m.groups()
            if receiver in LUA_LIBS or receiver in aliases or receiver in NAMESPACES:
                continue
            if method in own or method in instance:
                continue
            problems.append(f"{name}: {receiver}.{method}()")
    assert problems == []


def test_moonsharp_safe_lua():
    problems = []
    for path in lua_files():
        name = module_name(path)
        code = strip(path.read_text(encoding="utf-8"))
        if re.search(r"\bgoto\b", code):
            problems.append(f"{name}: goto")
        if "__mode" in code:
            problems.append(f"{name}: weak table")
        for m in re.finditer(r"\blocal\s+([A-Za-z_][\w, ]*?)\s*(\n|;|$)", code):
            if not re.match(r"function\b", m.group(1)):
                problems.append(f"{name}: uninitialised local {m.group(1).strip()}")
        for m in re.finditer(r"\brequire\s*\(([^)]*)\)", code):
            if m.group(1).strip() != '""':   # strings are blanked: a literal becomes ""
                problems.append(f"{name}: non-literal require({m.group(1)})")
    raw = {module_name(p): p.read_text(encoding="utf-8") for p in lua_files()}
    for name, code in raw.items():
        for m in re.finditer(r"\brequire\s*\(\s*\"([^\"]+)\"\s*\)", code):
            target = m.group(1)
            if target not in {"generated.game", "generated.ttsmod"} and not (MOD / (target.replace(".", "/") + ".lua")).exists():
                problems.append(f"{name}: require of missing module {target}")
    assert problems == []


@pytest.mark.parametrize("path", lua_files(), ids=module_name)
def test_every_module_compiles_as_lua_52(path):
    lua = lupa52.LuaRuntime()
    chunk, err = lua.eval("function(code, name) local f, e = load(code, name); return f, e end")(path.read_text(encoding="utf-8"),
                                                                              module_name(path))
    assert err is None


def test_scan_catches_an_undocumented_member():
    """The scan itself can fail: an invented member would be reported."""
    pages = _members()
    instance = set().union(*(pages.get(p, set()) for p in INSTANCE_PAGES))
    assert "setData" not in instance and "getPosition" in instance
    assert "spawnObject" in pages["base"] and "setData" not in pages["base"]
