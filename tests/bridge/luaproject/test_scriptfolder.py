"""``ttsmod pull`` splits bundled scripts back into module files and ``ttsmod push DIR`` bundles them again, so
pull → push → pull gives the same files (against the fake TTS of ``tests/bridge/``); hostile module names in a
game's bundles never place a file outside the search folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.luaproject.bundle import bundle, is_bundle
from bridge.protocol import ScriptState
from tests.tools.threadtts import ThreadTTS
from tools.cli import cli

SIGNATURE = "function(require, _LOADED, __bundle_register, __bundle_modules)"

GLOBAL_SRC = 'local panel = require("ui.panel")\nshown = panel.title()\n'
PANEL_SRC = 'local util = require("util")\nlocal M = {}\nfunction M.title() return util.upper("score") end\nreturn M\n'
UTIL_SRC = "local M = {}\nfunction M.upper(s) return s:upper() end\nreturn M\n"
BOARD_SRC = 'local util = require("util")\nfunction onLoad() self.setName(util.upper("board")) end\n'


def source_project(tmp_path: Path) -> Path:
    """The modder's sources the game on the table was pushed from."""
    src = tmp_path / "src"
    (src / "ui").mkdir(parents=True)
    (src / "Global.-1.lua").write_text(GLOBAL_SRC, encoding="utf-8")
    (src / "ui" / "panel.lua").write_text(PANEL_SRC, encoding="utf-8")
    (src / "util.lua").write_text(UTIL_SRC, encoding="utf-8")
    (src / "Board.b0a2d1.lua").write_text(BOARD_SRC, encoding="utf-8")
    return src


def table_states(tmp_path: Path) -> list[ScriptState]:
    src = source_project(tmp_path)
    return [
        ScriptState("Global", "-1", bundle(src / "Global.-1.lua", [src]).text, '<Panel id="score"/>'),
        ScriptState("Board", "b0a2d1", bundle(src / "Board.b0a2d1.lua", [src]).text, ""),
        ScriptState("Die", "d1e000", "function onRoll() print('rolled') end\n", "<Text>6</Text>"),
    ]


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run_lua(text: str) -> dict:
    lupa = pytest.importorskip("lupa")
    lua = lupa.LuaRuntime()
    lua.execute(text)
    return {"shown": lua.globals().shown}


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output + result.stderr
    return result


def test_pull_writes_each_module_once_and_the_root_as_the_object_file(tmp_path):
    with ThreadTTS(table_states(tmp_path)) as tts:
        result = invoke("pull", str(tmp_path / "pulled"), *tts.args(), "--json")
    assert result.exit_code == 0, result.output + result.stderr
    report = json.loads(result.stdout)
    assert report["objects"] == 3 and sorted(report["modules"]) == ["ui.panel", "util"]
    assert files(tmp_path / "pulled") == {
        "Board.b0a2d1.lua": BOARD_SRC.encode(), "Die.d1e000.lua": b"function onRoll() print('rolled') end\n",
        "Die.d1e000.xml": b"<Text>6</Text>", "Global.-1.lua": GLOBAL_SRC.encode(),
        "Global.-1.xml": b'<Panel id="score"/>', "ui/panel.lua": PANEL_SRC.encode(), "util.lua": UTIL_SRC.encode()}


def test_pull_push_pull_gives_the_same_files_and_push_sends_a_bundle_that_runs(tmp_path):
    pulled = tmp_path / "pulled"
    with ThreadTTS(table_states(tmp_path)) as tts:
        assert invoke("pull", str(pulled), *tts.args()).exit_code == 0
        first = files(pulled)
        # the modder edits a module used by two objects and pushes the folder
        (pulled / "util.lua").write_text(UTIL_SRC.replace("s:upper()", '"[" .. s:upper() .. "]"'), encoding="utf-8")
        edited = files(pulled)
        pushed = invoke("push", str(pulled), *tts.args())
        assert pushed.exit_code == 0, pushed.output + pushed.stderr
        assert "TTS reloaded the game (3 scripted objects)" in pushed.stdout
        table = tts.scripts()
        assert is_bundle(table["-1"].script) and is_bundle(table["b0a2d1"].script)
        assert run_lua(table["-1"].script) == {"shown": "[SCORE]"}
        assert table["-1"].ui == '<Panel id="score"/>' and table["d1e000"].ui == "<Text>6</Text>"
        assert table["d1e000"].script == "function onRoll() print('rolled') end\n"  # no require: sent as it is
        assert invoke("pull", str(pulled), *tts.args()).exit_code == 0
        assert files(pulled) == edited
        assert invoke("pull", str(tmp_path / "fresh"), *tts.args()).exit_code == 0
        assert files(tmp_path / "fresh") == edited
    assert set(first) == set(edited)


def test_modules_go_back_to_the_search_folders_of_the_project_file(tmp_path):
    work = tmp_path / "work"
    (work / "lib").mkdir(parents=True)
    (work / "ttsmod.toml").write_text('[lua]\npath = ["lib"]\n', encoding="utf-8")
    (work / "lib" / "util").mkdir()
    (work / "lib" / "util" / "init.lua").write_text("-- an older util\nreturn {}\n", encoding="utf-8")
    with ThreadTTS(table_states(tmp_path)) as tts:
        result = invoke("pull", str(work / "scripts"), *tts.args(), "--json")
        assert result.exit_code == 0, result.output + result.stderr
        modules = json.loads(result.stdout)["modules"]
        # util is where require finds it today (lib/util/init.lua); a new module goes to the first folder
        assert modules == {"ui.panel": str((work / "lib" / "ui" / "panel.lua").absolute()),
                           "util": str((work / "lib" / "util" / "init.lua").absolute())}
        assert (work / "lib" / "util" / "init.lua").read_text(encoding="utf-8") == UTIL_SRC
        assert not (work / "scripts" / "util.lua").exists()
        before = files(work)
        assert invoke("push", str(work / "scripts"), *tts.args()).exit_code == 0
        assert invoke("pull", str(work / "scripts"), *tts.args()).exit_code == 0
        assert files(work) == before


def test_no_unbundle_writes_the_bundle_as_one_file(tmp_path):
    states = table_states(tmp_path)
    with ThreadTTS(states) as tts:
        assert invoke("pull", str(tmp_path / "raw"), *tts.args(), "--no-unbundle").exit_code == 0
    assert (tmp_path / "raw" / "Global.-1.lua").read_text(encoding="utf-8") == states[0].script
    assert not (tmp_path / "raw" / "util.lua").exists()


# A bundle as the VS Code plugin writes it (luabundle with rootModuleName = the file name, isolate); literal.
VSCODE_BUNDLE = (
    '-- Bundled by luabundle {"isolate":true,"rootModuleName":"Global.-1.lua","version":"1.6.0"}\n'
    "local __bundle_require, __bundle_loaded, __bundle_register, __bundle_modules = (function(superRequire)\n"
    "\tlocal loadingPlaceholder = {[{}] = true}\n"
    "\tlocal register\n\tlocal modules = {}\n"
    "\tlocal require\n\tlocal loaded = {}\n"
    "\tregister = function(name, body)\n\t\tif not modules[name] then\n\t\t\tmodules[name] = body\n\t\tend\n\tend\n"
    "\trequire = function(name)\n\t\tlocal loadedModule = loaded[name]\n"
    "\t\tif loadedModule then\n\t\t\tif loadedModule == loadingPlaceholder then\n\t\t\t\treturn nil\n\t\t\tend\n"
    "\t\telse\n\t\t\tif not modules[name] then\n\t\t\t\tif not superRequire then\n"
    "\t\t\t\t\tlocal identifier = type(name) == 'string' and '\\\"' .. name .. '\\\"' or tostring(name)\n"
    "\t\t\t\t\terror('Tried to require ' .. identifier .. ', but no such module has been registered')\n"
    "\t\t\t\telse\n\t\t\t\t\treturn superRequire(name)\n\t\t\t\tend\n\t\t\tend\n"
    "\t\t\tloaded[name] = loadingPlaceholder\n\t\t\tloadedModule = modules[name](require, loaded, register, modules)\n"
    "\t\t\tloaded[name] = loadedModule\n\t\tend\n\t\treturn loadedModule\n\tend\n"
    "\treturn require, loaded, register, modules\nend)(nil)\n"
    f'__bundle_register("Global.-1.lua", {SIGNATURE}\n'
    'local greet = require("greet")\nprint(greet("table"))\nend)\n'
    f'__bundle_register("greet", {SIGNATURE}\n'
    'return function(who) return "hello " .. who end\nend)\n'
    'return __bundle_require("Global.-1.lua")'
)


def test_a_bundle_of_the_vscode_plugin_unbundles_by_its_root_module_name(tmp_path):
    with ThreadTTS([ScriptState("Global", "-1", VSCODE_BUNDLE, "")]) as tts:
        assert invoke("pull", str(tmp_path / "p"), *tts.args()).exit_code == 0
        assert files(tmp_path / "p") == {
            "Global.-1.lua": b'local greet = require("greet")\nprint(greet("table"))',
            "greet.lua": b'return function(who) return "hello " .. who end'}


@pytest.mark.parametrize("name", ["../../planted", "con", "a/../../b", "lib\\\\x", "..", ""])
def test_a_hostile_module_name_keeps_that_script_bundled_and_writes_nothing_outside(tmp_path, name):
    evil = (f'-- Bundled by luabundle {{"version":"1.6.0"}}\n'
            f'__bundle_register("__root", {SIGNATURE}\nlocal x = require("{name}")\nend)\n'
            f'__bundle_register("{name}", {SIGNATURE}\nreturn "planted"\nend)\n'
            'return __bundle_require("__root")')
    states = [ScriptState("Global", "-1", "print(1)", ""), ScriptState("Evil", "e0e0e0", evil, "")]
    out = tmp_path / "deep" / "out"
    with ThreadTTS(states) as tts:
        result = invoke("pull", str(out), *tts.args())
    assert result.exit_code == 0, result.output + result.stderr
    assert "warning: kept the script of 'Evil' ('e0e0e0') bundled" in result.stderr
    assert files(tmp_path) == {"deep/out/Global.-1.lua": b"print(1)", "deep/out/Evil.e0e0e0.lua": evil.encode()}


def test_two_copies_of_a_module_keep_globals_and_warn(tmp_path):
    src = source_project(tmp_path)
    old = tmp_path / "old"
    old.mkdir()
    (old / "util.lua").write_text("return {upper = string.upper} -- old\n", encoding="utf-8")
    (old / "Board.b0a2d1.lua").write_text(BOARD_SRC, encoding="utf-8")
    states = [ScriptState("Board", "b0a2d1", bundle(old / "Board.b0a2d1.lua", [old]).text, ""),
              ScriptState("Global", "-1", bundle(src / "Global.-1.lua", [src]).text, "")]
    with ThreadTTS(states) as tts:
        result = invoke("pull", str(tmp_path / "p"), *tts.args())
    assert result.exit_code == 0
    assert (tmp_path / "p" / "util.lua").read_text(encoding="utf-8") == UTIL_SRC
    assert "warning: module \"util\": 'Board' ('b0a2d1') has a different copy; wrote the one of Global" \
        in result.stderr


def test_push_of_a_folder_with_a_missing_module_is_one_line_exit_2_and_sends_nothing(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "Global.-1.lua").write_text('local x = require("nowhere")\n', encoding="utf-8")
    with ThreadTTS([ScriptState("Global", "-1", "print(1)", "")]) as tts:
        result = invoke("push", str(folder), *tts.args())
        assert tts.tts.reloads == 0
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and 'Global.-1.lua:1: module "nowhere" not found' in lines[0]


def test_push_json_is_one_object_on_stdout_as_the_documented_example(tmp_path):
    import re

    pulled = tmp_path / "pulled"
    with ThreadTTS(table_states(tmp_path)) as tts:
        assert invoke("pull", str(pulled), *tts.args()).exit_code == 0
        pushed = invoke("push", str(pulled), *tts.args(), "--json")
        assert pushed.exit_code == 0, pushed.output + pushed.stderr
        report = json.loads(pushed.stdout)          # stdout is the JSON object alone
        unwaited = json.loads(invoke("push", str(pulled), *tts.args(), "--json", "--no-wait").stdout)
    text = (Path(__file__).resolve().parents[3] / "docs" / "bridge.md").read_text(encoding="utf-8")
    (documented,) = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"busy_port"' in b]
    assert report == documented == {"objects": 3, "reloaded": 3, "busy_port": None}
    assert unwaited == {"objects": 3, "reloaded": None, "busy_port": None}
