"""``ttsmod bundle`` / ``ttsmod unbundle``: modules found on the project's search path, a bundle that runs, and
modules written back to the files they came from; hostile bundles refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tools.cli import cli

HEADER = '-- Bundled by luabundle {"version":"1.6.0"}\n'
SIGNATURE = "function(require, _LOADED, __bundle_register, __bundle_modules)"


def project(tmp_path: Path) -> Path:
    """A modder's folder: ttsmod.toml naming src/ and lib/, a root script requiring a module of each."""
    root = tmp_path / "mod"
    (root / "src" / "ui").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "ttsmod.toml").write_text('[lua]\npath = ["src", "lib"]\n', encoding="utf-8")
    (root / "src" / "ui" / "panel.lua").write_text(
        'local util = require("util")\nlocal M = {}\nfunction M.title() return util.upper("score") end\nreturn M\n',
        encoding="utf-8")
    (root / "lib" / "util.lua").write_text("local M = {}\nfunction M.upper(s) return s:upper() end\nreturn M\n",
                                           encoding="utf-8")
    (root / "src" / "Global.lua").write_text('local panel = require("ui.panel")\nshown = panel.title()\n',
                                             encoding="utf-8")
    return root


def run_lua(text: str) -> dict:
    import lupa

    lua = lupa.LuaRuntime()
    lua.execute(text)
    return {"shown": lua.globals().shown}


def test_bundle_uses_the_project_search_path_and_the_bundle_runs(tmp_path):
    root = project(tmp_path)
    result = CliRunner().invoke(cli, ["bundle", str(root / "src" / "Global.lua"), str(tmp_path / "out.lua"),
                                      "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["modules"] == ["ui.panel", "util"]
    assert report["search"] == [str((root / "src").absolute()), str((root / "lib").absolute())]
    text = (tmp_path / "out.lua").read_text(encoding="utf-8")
    assert text.startswith(HEADER) and run_lua(text) == {"shown": "SCORE"}


def test_lua_path_replaces_the_project_file(tmp_path):
    root = project(tmp_path)
    result = CliRunner().invoke(cli, ["bundle", str(root / "src" / "Global.lua"), "--lua-path", str(root / "src")])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and 'panel.lua:1: module "util" not found' in lines[0]
    both = CliRunner().invoke(cli, ["bundle", str(root / "src" / "Global.lua"), "--lua-path", str(root / "src"),
                                    "--lua-path", str(root / "lib")])
    assert both.exit_code == 0 and run_lua(both.stdout) == {"shown": "SCORE"}


def test_unbundle_gives_back_the_module_files_byte_for_byte(tmp_path):
    root = project(tmp_path)
    assert CliRunner().invoke(cli, ["bundle", str(root / "src" / "Global.lua"), str(tmp_path / "b.lua")]).exit_code == 0
    result = CliRunner().invoke(cli, ["unbundle", str(tmp_path / "b.lua"), str(tmp_path / "back"),
                                      "--root-name", "Global.lua", "--json"])
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)
    assert sorted(written) == ["__root", "ui.panel", "util"]
    back = tmp_path / "back"
    assert (back / "Global.lua").read_bytes() == (root / "src" / "Global.lua").read_bytes()
    assert (back / "ui" / "panel.lua").read_bytes() == (root / "src" / "ui" / "panel.lua").read_bytes()
    assert (back / "util.lua").read_bytes() == (root / "lib" / "util.lua").read_bytes()


def test_a_real_luabundle_bundle_unbundles_and_bundles_again(reference_saves, tmp_path):
    from bridge.luaproject.savetree import read_save

    script = read_save(reference_saves["arknova"])["LuaScript"]
    (tmp_path / "Global.bundled.lua").write_text(script, encoding="utf-8")
    result = CliRunner().invoke(cli, ["unbundle", str(tmp_path / "Global.bundled.lua"), str(tmp_path / "src"),
                                      "--root-name", "Global.lua", "--json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) >= 2
    again = CliRunner().invoke(cli, ["bundle", str(tmp_path / "src" / "Global.lua"), str(tmp_path / "again.lua")])
    assert again.exit_code == 0, again.output
    from bridge.luaproject.bundle import unbundle

    assert unbundle((tmp_path / "again.lua").read_text(encoding="utf-8")) == unbundle(script)


@pytest.mark.parametrize("name", ["../../evil", "a/../b", "lib\\x", "con", "a..b", ""])
def test_a_module_name_that_is_not_plain_is_refused_and_nothing_written(tmp_path, name):
    text = (HEADER + f'__bundle_register("__root", {SIGNATURE}\nprint(1)\nend)\n'
            + f'__bundle_register("{name.replace(chr(92), chr(92) * 2)}", {SIGNATURE}\nprint(2)\nend)\nreturn __bundle_require("__root")')
    (tmp_path / "b.lua").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["unbundle", str(tmp_path / "b.lua"), str(tmp_path / "out")])
    assert result.exit_code == 2 and "not a plain module name" in result.stderr
    assert not (tmp_path / "out").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["b.lua"]


@pytest.mark.parametrize("content, message", [("print(1)\n", "not a luabundle bundle"),
                                              (HEADER + "print(1)\n", "no __bundle_register modules found")])
def test_unbundle_of_something_else_is_one_line_exit_2(tmp_path, content, message):
    (tmp_path / "x.lua").write_text(content, encoding="utf-8")
    result = CliRunner().invoke(cli, ["unbundle", str(tmp_path / "x.lua"), str(tmp_path / "out")])
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_broken_project_file_is_one_line_exit_2(tmp_path):
    root = project(tmp_path)
    (root / "ttsmod.toml").write_text('[lua]\npath = "src"\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["bundle", str(root / "src" / "Global.lua")])
    assert result.exit_code == 2 and "[lua] path must be a list of folders" in result.stderr
    for command in ("bundle", "unbundle"):
        assert "--json" in CliRunner().invoke(cli, [command, "--help"]).output
