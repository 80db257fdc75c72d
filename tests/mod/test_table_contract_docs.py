"""docs/table-contract.md keeps pace with the shared Lua: its library table names every function each module of
mod/lib/ exports, and its table of a game's description for lib.play names every key lib.play reads (and no
other), so the page cannot drift from the code."""

from __future__ import annotations

import re

from tests.mod.luasrc import MOD, strip

PAGE = MOD.parent / "docs" / "table-contract.md"


def rows(first_header: str) -> dict[str, str]:
    """The rows of the page's table whose header starts with ``first_header``: first cell's backticked names →
    the whole row."""
    out: dict[str, str] = {}
    taking = False
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if not cells:
            taking = False
        elif cells[0] == first_header:
            taking = True
        elif taking and not set(cells[0]) <= set("-: "):
            for name in re.findall(r"`([^`]+)`", cells[0]):
                out[name] = line
    return out


def exports(path) -> list[str]:
    return re.findall(r"^function M\.([A-Za-z_]\w*)\s*\(", path.read_text(encoding="utf-8"), re.M)


def test_the_library_table_names_every_module_and_every_function_it_exports():
    table = rows("module")
    modules = sorted(MOD.glob("lib/*.lua"))
    assert modules and sorted(table) == sorted(f"lib.{p.stem}" for p in modules)
    missing = [f"lib.{p.stem}.{name}" for p in modules for name in exports(p)
               if not re.search(rf"`{name}\b", table[f"lib.{p.stem}"])]
    assert missing == []


def test_the_description_table_names_every_key_lib_play_reads():
    code = strip((MOD / "lib" / "play.lua").read_text(encoding="utf-8"))
    read = set(re.findall(r"\bgame\.([a-z_]+)", code))
    assert {"places", "spot", "action_for_drop", "handlers"} <= read
    assert read == set(rows("key"))


def test_the_check_sees_a_function_the_page_does_not_name(tmp_path):
    lua = tmp_path / "extra.lua"
    lua.write_text("local M = {}\nfunction M.hidden_helper(x)\nend\nfunction M.decode(t)\nend\nreturn M\n",
                   encoding="utf-8")
    row = rows("module")["lib.util"]
    assert [name for name in exports(lua) if not re.search(rf"`{name}\b", row)] == ["hidden_helper"]
