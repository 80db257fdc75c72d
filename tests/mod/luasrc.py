"""Helpers for the Lua source tests: reading mod sources, stripping comments/strings, a test-side bundle."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
MOD = REPO_ROOT / "mod"
MEMBERS_TSV = REPO_ROOT.parent / "shared" / "docs" / "tts-api-members.tsv"


def lua_files() -> list[Path]:
    return sorted(MOD.rglob("*.lua"))


def module_name(path: Path) -> str:
    """``mod/lib/util.lua`` → ``lib.util`` (the name ``require`` uses)."""
    return ".".join(path.relative_to(MOD).with_suffix("").parts)


def strip(code: str) -> str:
    """Lua code with comments and string literals blanked (lengths of lines kept roughly)."""
    out = []
    i, n = 0, len(code)
    while i < n:
        if code.startswith("--", i):
            m = re.match(r"--\[(=*)\[", code[i:])
            if m:
                end = code.find("]" + m.group(1) + "]", i)
                i = n if end < 0 else end + len(m.group(1)) + 2
            else:
                end = code.find("\n", i)
                i = n if end < 0 else end
            continue
        m = re.match(r"\[(=*)\[", code[i:])
        if m:
            end = code.find("]" + m.group(1) + "]", i)
            out.append('""')
            i = n if end < 0 else end + len(m.group(1)) + 2
            continue
        c = code[i]
        if c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            out.append('""')
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def bundle(root_source: str, extra: dict[str, str] | None = None) -> str:
    """A Global script for tests: every mod module plus ``extra`` modules, registered behind a small ``require``,
    then the root source. (The real build writes the luabundle format; this only has to run the same modules.)"""
    modules = {module_name(p): p.read_text(encoding="utf-8") for p in lua_files()}
    modules.update(extra or {})
    parts = ["local __sources, __loaded = {}, {}",
             "local function require(name)",
             "  if __loaded[name] == nil then",
             "    local f = __sources[name]",
             "    if f == nil then error('no module ' .. name) end",
             "    __loaded[name] = f()",
             "  end",
             "  return __loaded[name]",
             "end"]
    for name, source in modules.items():
        if name.endswith(".global"):   # a root module: the test supplies its own
            continue
        parts.append(f"__sources[{name!r}] = function()\n{source}\nend")
    parts.append(root_source)
    return "\n".join(parts)
