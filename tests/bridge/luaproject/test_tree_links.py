"""One link rule for every command that reads or writes a tree (pack, push, bundle, unbundle, pull): a file or
folder of the tree may be a symbolic link only when it leads inside the tree; one that leads out is refused with
one line naming it (exit 2), and nothing outside is read, sent or written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.luaproject.bundle import bundle
from bridge.luaproject.savetree import unpack
from bridge.protocol import ScriptState
from tests.tools.threadtts import ThreadTTS
from tools.cli import cli

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")

SECRET = "ssh-ed25519 AAAA the secret"


def secrets(tmp_path: Path) -> Path:
    """A folder of the user's, outside every tree: what a hostile tree would like to read or write."""
    home = tmp_path / "home"
    (home / "objects" / "Stolen.000001").mkdir(parents=True)
    for name in ("id_rsa", "script.lua", "ui.xml", "state.txt", "util.lua", "panel.xml"):
        (home / name).write_text(SECRET, encoding="utf-8")
    (home / "objects" / "order.json").write_text('["Stolen.000001"]', encoding="utf-8")
    (home / "objects" / "Stolen.000001" / "object.json").write_text('{"Name": "Stolen"}', encoding="utf-8")
    return home


def small_tree(tmp_path: Path) -> Path:
    save = {"SaveName": "Small", "ObjectStates": [{"Name": "Block", "Nickname": "Board", "GUID": "a1b2c3",
                                                   "LuaScript": "print(1)"}]}
    (tmp_path / "small.json").write_text(json.dumps(save), encoding="utf-8")
    unpack(tmp_path / "small.json", tmp_path / "tree")
    return tmp_path / "tree"


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output + result.stderr
    return result


def one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.output + result.stderr
    return lines[0]


@pytest.mark.parametrize("entry", ["script.lua", "ui.xml", "state.txt", "objects",
                                   "objects/Board.a1b2c3/script.lua"])
def test_pack_refuses_a_tree_file_or_folder_that_links_out(tmp_path, entry):
    home = secrets(tmp_path)
    tree = small_tree(tmp_path)
    link = tree / entry
    if link.is_dir():
        import shutil
        shutil.rmtree(link)
    elif link.exists():
        link.unlink()
    link.symlink_to(home / Path(entry).name, target_is_directory=(entry == "objects"))
    line = one_error_line(invoke("pack", str(tree), str(tmp_path / "out.json")))
    assert "a symbolic link that leads outside" in line and Path(entry).name in line
    assert not (tmp_path / "out.json").exists()


def test_a_link_that_stays_inside_the_tree_is_followed(tmp_path):
    tree = small_tree(tmp_path)
    (tree / "shared").mkdir()
    (tree / "shared" / "board.lua").write_text("print('shared')", encoding="utf-8")
    script = tree / "objects" / "Board.a1b2c3" / "script.lua"
    script.unlink()
    script.symlink_to(tree / "shared" / "board.lua")
    result = invoke("pack", str(tree), "-")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["ObjectStates"][0]["LuaScript"] == "print('shared')"


@pytest.mark.parametrize("kind", ["tree script", "pulled script", "module", "include"])
def test_push_sends_nothing_read_through_a_link_that_leads_out(tmp_path, kind):
    home = secrets(tmp_path)
    if kind.startswith("tree"):
        folder = small_tree(tmp_path)
        script = folder / "objects" / "Board.a1b2c3" / "script.lua"
        script.unlink()
        script.symlink_to(home / "id_rsa")
    else:
        folder = tmp_path / "pulled"
        folder.mkdir()
        (folder / "Global.-1.lua").write_text('local u = require("util")\n' if kind == "module" else "print(1)\n",
                                              encoding="utf-8")
        if kind == "pulled script":
            (folder / "Board.a1b2c3.lua").symlink_to(home / "id_rsa")
        elif kind == "module":
            (folder / "util.lua").symlink_to(home / "util.lua")
        else:
            (folder / "Global.-1.xml").write_text('<Panel><Include src="panel.xml"/></Panel>', encoding="utf-8")
            (folder / "panel.xml").symlink_to(home / "panel.xml")
    with ThreadTTS([ScriptState("Global", "-1", "print(0)", "")]) as tts:
        result = invoke("push", str(folder), *tts.args())
        assert tts.tts.reloads == 0
        assert all(SECRET not in (s.script or "") + (s.ui or "") for s in tts.scripts().values())
    assert "a symbolic link that leads outside" in one_error_line(result)


def test_bundle_refuses_a_module_that_links_out_of_its_search_folder(tmp_path):
    home = secrets(tmp_path)
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.lua").write_text('local u = require("util")\n', encoding="utf-8")
    (src / "util.lua").symlink_to(home / "util.lua")
    line = one_error_line(invoke("bundle", str(src / "main.lua"), str(tmp_path / "out.lua")))
    assert line.startswith(f"error: {src / 'main.lua'}:1: ") and "a symbolic link that leads outside" in line
    assert not (tmp_path / "out.lua").exists()


def test_unbundle_never_writes_through_a_sub_folder_that_links_out(tmp_path):
    home = secrets(tmp_path)
    lib = tmp_path / "lib"
    (lib / "ui").mkdir(parents=True)
    (lib / "ui" / "panel.lua").write_text("return 1\n", encoding="utf-8")
    (lib / "main.lua").write_text('local p = require("ui.panel")\nlocal x = require("x.util")\n', encoding="utf-8")
    (lib / "x").mkdir()
    (lib / "x" / "util.lua").write_text("return 2\n", encoding="utf-8")
    (tmp_path / "main.bundle.lua").write_text(bundle(lib / "main.lua", [lib]).text, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "x").symlink_to(home, target_is_directory=True)
    line = one_error_line(invoke("unbundle", str(tmp_path / "main.bundle.lua"), str(out)))
    assert "a symbolic link that leads outside" in line and "util.lua" in line
    assert (home / "util.lua").read_text(encoding="utf-8") == SECRET
    assert sorted(p.name for p in out.iterdir()) == ["x"]       # every name checked before the first write


def test_pull_writes_no_module_or_include_through_a_link_that_leads_out(tmp_path):
    home = secrets(tmp_path)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "Global.-1.lua").write_text('local u = require("util")\n', encoding="utf-8")
    (lib / "util.lua").write_text("return 'from TTS'\n", encoding="utf-8")
    folder = tmp_path / "pulled"
    folder.mkdir()
    (folder / "util.lua").symlink_to(home / "util.lua")
    (folder / "panel.xml").symlink_to(home / "panel.xml")
    ui = "<Panel>\n  <!-- include panel.xml -->\n  <Text>from TTS</Text>\n  <!-- include panel.xml -->\n</Panel>"
    states = [ScriptState("Global", "-1", bundle(lib / "Global.-1.lua", [lib]).text, ui)]
    with ThreadTTS(states) as tts:
        result = invoke("pull", str(folder), *tts.args())
    assert result.exit_code == 0, result.stderr
    assert "symbolic link that leads outside" in result.stderr
    assert (home / "util.lua").read_text(encoding="utf-8") == SECRET
    assert (home / "panel.xml").read_text(encoding="utf-8") == SECRET


def test_the_folder_you_name_may_itself_be_a_link(tmp_path):
    tree = small_tree(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    linked = tmp_path / "elsewhere" / "my-table"
    linked.symlink_to(tree, target_is_directory=True)
    result = invoke("pack", str(linked), "-")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["ObjectStates"][0]["LuaScript"] == "print(1)"
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "util.lua").write_text("return 1\n", encoding="utf-8")
    (tmp_path / "lib-link").symlink_to(lib, target_is_directory=True)
    (tmp_path / "main.lua").write_text('local u = require("util")\n', encoding="utf-8")
    result = invoke("bundle", str(tmp_path / "main.lua"), "--lua-path", str(tmp_path / "lib-link"))
    assert result.exit_code == 0, result.stderr
    assert '__bundle_register("util"' in result.stdout
