"""An error in a bundled Global script names the source file and line under mod/, also when the bridge was not
told which game runs (no --watch): the root script is then found by its text among mod/<folder>/global.lua."""

from __future__ import annotations

from bridge.luaproject.errormap import error_locator, locate
from bridge.luaproject.bundle import bundle


def _mod(tmp_path):
    mod = tmp_path / "mod"
    (mod / "lib").mkdir(parents=True)
    (mod / "lib" / "util.lua").write_text("local M = {}\nfunction M.f() return 1 end\nreturn M\n", encoding="utf-8")
    for game, body in (("alpha", "print('alpha')\nlocal x = nil + 1\n"), ("beta", "print('beta')\nlocal y = nil + 2\n")):
        (mod / game).mkdir()
        (mod / game / "global.lua").write_text("local util = require('lib.util')\n" + body, encoding="utf-8")
    return mod


def _root_line(built, offset: int) -> int:
    return built.module("__root").first_line + offset


def test_the_root_script_is_named_by_its_text_when_no_game_is_given(tmp_path):
    mod = _mod(tmp_path)
    built = bundle(mod / "beta" / "global.lua", [mod])
    line = _root_line(built, 2)   # "local y = nil + 2"
    locate_error = error_locator(mod, None)
    assert locate_error(f"chunk_0:({line},11-17): attempt to perform arithmetic", built.text) == "mod/beta/global.lua:3"
    assert locate(built.text, line, mod_root=mod) == ("mod/beta/global.lua", 3)


def test_a_given_root_file_wins_and_an_unknown_root_is_the_root_script(tmp_path):
    mod = _mod(tmp_path)
    built = bundle(mod / "alpha" / "global.lua", [mod])
    line = _root_line(built, 2)
    assert error_locator(mod, "mod/alpha/global.lua")(f"chunk_0:({line},1-2): x", built.text) == "mod/alpha/global.lua:3"
    # The script in TTS is older than the file on disk: no file has its text, so none is named.
    (mod / "alpha" / "global.lua").write_text("-- edited since the build\n", encoding="utf-8")
    assert error_locator(mod, None)(f"chunk_0:({line},1-2): x", built.text) == "the root script:3"
