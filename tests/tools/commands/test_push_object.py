"""``ttsmod push DIR --object GUID``: one object's script or UI updated in place through Execute Lua, with no
Save & Play: only what differs from what TTS has is set, the script goes in as a literal whatever it holds, and the
rest of the table is not touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.luaproject.editor import ObjectUpdate, lua_text, object_update_lua
from bridge.protocol import ScriptState
from tests.tools.livetable import LiveTable
from tests.tools.threadtts import ThreadTTS
from tools.cli import cli

lupa = pytest.importorskip("lupa")

HOSTILE = 'print("]]")\n-- ]==] ]=] end)\nlocal s = [[\r\nx]]\n\\0 "\' ]'


@pytest.mark.parametrize("text", ["", "]", "]]", "a]=", "]=]]==]", "\n\nstarts with newlines", HOSTILE,
                                  "ünïcödé ✓", "tab\tand\x00nul", "ends with ]]"])
def test_lua_text_gives_back_any_text_exactly(text):
    lua = lupa.LuaRuntime()
    assert lua.execute(f"return {lua_text(text)}") == text


def test_the_update_lua_sets_the_script_the_ui_and_reloads_only_that_object():
    table = LiveTable(["a1b2c3"])
    lua = object_update_lua([ObjectUpdate("a1b2c3", "Board", HOSTILE, "<Text>hi</Text>"),
                             ObjectUpdate("-1", "Global", None, "<Panel/>"), ObjectUpdate("ffffff", "Gone", "x", None)])
    result = table.py(table.lua.execute(lua))
    assert result == {"updated": ["a1b2c3", "-1"], "missing": ["ffffff"]}
    assert table.record("a1b2c3") == {"script": HOSTILE, "ui": "<Text>hi</Text>", "reloads": 1}
    assert table.lua.globals().global_ui == "<Panel/>"


def test_a_ui_alone_is_set_without_reloading_and_globals_script_is_refused():
    table = LiveTable(["a1b2c3"])
    table.lua.execute(object_update_lua([ObjectUpdate("a1b2c3", "Board", None, "<Text/>")]))
    assert table.record("a1b2c3") == {"ui": "<Text/>", "reloads": 0}
    from bridge.errors import InputError

    with pytest.raises(InputError, match="Global's script cannot change without reloading"):
        object_update_lua([ObjectUpdate("-1", "Global", "print(1)", None)])
    assert object_update_lua([ObjectUpdate("a1b2c3")]) is None


def pulled_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "Global.-1.lua").write_text("print('global')\n", encoding="utf-8")
    (folder / "Board.a1b2c3.lua").write_text("function onLoad() print('v2') end\n", encoding="utf-8")
    (folder / "Board.a1b2c3.xml").write_text("<Text>v1</Text>", encoding="utf-8")
    (folder / "Die.d1e000.lua").write_text("-- die, changed too\n", encoding="utf-8")
    return folder


TTS_HAS = [ScriptState("Global", "-1", "print('global')\n", ""),
           ScriptState("Board", "a1b2c3", "function onLoad() print('v1') end\n", "<Text>v1</Text>"),
           ScriptState("Die", "d1e000", "-- die\n", "")]


def test_push_object_updates_that_object_alone_and_reloads_nothing_else(tmp_path):
    folder = pulled_folder(tmp_path)
    table = LiveTable(["a1b2c3", "d1e000"])
    with ThreadTTS(TTS_HAS, lua=table) as tts:
        result = CliRunner().invoke(cli, ["push", str(folder), "--object", "a1b2c3", *tts.args()])
        assert tts.tts.reloads == 0
    assert result.exit_code == 0, result.output + result.stderr
    assert "updated in place, no reload of the table: new script for a1b2c3" in result.stdout
    assert table.record("a1b2c3") == {"script": "function onLoad() print('v2') end\n", "reloads": 1}  # UI unchanged
    assert table.record("d1e000") == {"reloads": 0}      # the die's edit waits for its own push
    assert len(table.executed) == 1 and "v2" in table.executed[0]


def test_push_object_of_global_sets_its_ui_and_an_unknown_guid_or_a_missing_object_fails(tmp_path):
    folder = pulled_folder(tmp_path)
    (folder / "Global.-1.xml").write_text("<Panel id='new'/>", encoding="utf-8")
    table = LiveTable([])
    with ThreadTTS(TTS_HAS, lua=table) as tts:
        ok = CliRunner().invoke(cli, ["push", str(folder), "--object", "-1", *tts.args()])
        unknown = CliRunner().invoke(cli, ["push", str(folder), "--object", "zzzzzz", *tts.args()])
        missing = CliRunner().invoke(cli, ["push", str(folder), "--object", "a1b2c3", *tts.args()])
        assert tts.tts.reloads == 0
    assert ok.exit_code == 0 and "new UI for -1" in ok.stdout, ok.output + ok.stderr
    assert table.lua.globals().global_ui == "<Panel id='new'/>"
    assert unknown.exit_code == 2 and "no script or UI for the object zzzzzz" in unknown.stderr
    assert missing.exit_code == 1 and "not on the table: a1b2c3" in missing.stdout


def test_push_object_of_globals_changed_script_is_refused_with_exit_2(tmp_path):
    folder = pulled_folder(tmp_path)
    (folder / "Global.-1.lua").write_text("print('global v2')\n", encoding="utf-8")
    table = LiveTable([])
    with ThreadTTS(TTS_HAS, lua=table) as tts:
        result = CliRunner().invoke(cli, ["push", str(folder), "--object", "-1", *tts.args()])
        assert tts.tts.reloads == 0
    assert result.exit_code == 2 and "push it without --object" in result.stderr
    assert table.executed == []


def test_push_object_of_an_unpacked_tree_sends_the_bundled_script(tmp_path):
    from bridge.luaproject.savetree import unpack

    save = {"SaveName": "t", "LuaScript": "print('g')", "ObjectStates": [
        {"Name": "Custom_Tile", "Nickname": "Board", "GUID": "a1b2c3", "LuaScript": "print('old')"}]}
    (tmp_path / "t.json").write_text(json.dumps(save), encoding="utf-8")
    unpack(tmp_path / "t.json", tmp_path / "tree")
    script = tmp_path / "tree" / "objects" / "Board.a1b2c3" / "script.lua"
    (tmp_path / "tree" / "lib").mkdir()
    (tmp_path / "tree" / "lib" / "say.lua").write_text("function say() print('new') end\n", encoding="utf-8")
    (tmp_path / "tree" / "ttsmod.toml").write_text('[lua]\npath = ["lib"]\n', encoding="utf-8")
    script.write_text("#include say\nsay()\n", encoding="utf-8")
    table = LiveTable(["a1b2c3"])
    with ThreadTTS([ScriptState("Global", "-1", "print('g')", ""), ScriptState("Board", "a1b2c3", "print('old')", "")],
                   lua=table) as tts:
        result = CliRunner().invoke(cli, ["push", str(tmp_path / "tree"), "--object", "a1b2c3", *tts.args()])
        assert tts.tts.reloads == 0
    assert result.exit_code == 0, result.output + result.stderr
    assert table.record("a1b2c3")["script"] == (
        "----#include say\nfunction say() print('new') end\n----#include say\nsay()\n")


def test_push_object_json_names_what_was_updated_as_the_documented_example(tmp_path):
    import re

    folder = pulled_folder(tmp_path)
    table = LiveTable(["a1b2c3", "d1e000"])
    with ThreadTTS(TTS_HAS, lua=table) as tts:
        result = CliRunner().invoke(cli, ["push", str(folder), "--object", "a1b2c3", "--object", "d1e000",
                                          "--json", *tts.args()])
    assert result.exit_code == 0, result.output + result.stderr
    report = json.loads(result.stdout)           # stdout is the JSON object alone
    text = (Path(__file__).resolve().parents[3] / "docs" / "modding.md").read_text(encoding="utf-8")
    (documented,) = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"unchanged"' in b]
    assert set(report) == set(documented) == {"scripts", "uis", "unchanged", "missing"}
    assert "a1b2c3" in report["scripts"] and report["missing"] == []
