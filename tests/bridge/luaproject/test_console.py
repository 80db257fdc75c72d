"""``ttsmod console``: Lua chunks read from stdin run in the game (the fake TTS running real Lua through lupa),
multi-line chunks gathered as the lua prompt does, values shown as JSON, prints and errors in between, error
positions in the object's script mapped back to the files pull writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.luaproject.bundle import bundle
from bridge.protocol import ScriptState
from tests.livebridge import free_port
from tests.tools.threadtts import ThreadTTS
from tools.cli import cli
from bridge.luaproject.console import COMPLETE, EMPTY, INCOMPLETE, as_exec_code, chunk_state

pytest.importorskip("lupa")
from tests.tools.fakelua import FakeLua  # noqa: E402  (needs lupa)

UTIL_SRC = 'local M = {}\nfunction M.explode()\n  error("the util exploded")\nend\nreturn M\n'
GLOBAL_SRC = ('local util = require("util")\nscore = 7\nfunction explode() util.explode() end\n'
              'function later() Wait.time(function() util.explode() end, 1) end\n')
DIE_SRC = "function roll() return 6 end\n"


def table(tmp_path: Path) -> list[ScriptState]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "util.lua").write_text(UTIL_SRC, encoding="utf-8")
    (src / "Global.-1.lua").write_text(GLOBAL_SRC, encoding="utf-8")
    return [ScriptState("Global", "-1", bundle(src / "Global.-1.lua", [src]).text, ""),
            ScriptState("Die", "d1e000", DIE_SRC, "")]


def console(tts: ThreadTTS, text: str, *args: str):
    result = CliRunner().invoke(cli, ["console", *tts.args(), *args], input=text)
    assert "Traceback" not in result.output + result.stderr
    return result


SESSION = """x = 40
x + 2
function add(a, b)
  return a + b
end
add(1,
    2)
{name = "table", seats = {"White", "Red"}}
print("hello")
for i = 1, 2 do
  print("line " .. i)
end
-- a comment alone is not a chunk
error("boom")
score
"""


def test_a_piped_session_runs_each_chunk_and_shows_values_and_prints_in_order(tmp_path):
    states = table(tmp_path)
    with ThreadTTS(states, lua=FakeLua(states)) as tts:
        result = console(tts, SESSION)
    assert result.stdout.splitlines() == ["42", "3", '{"name": "table", "seats": ["White", "Red"]}', "hello",
                                          "line 1", "line 2", "7"]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and errors[0].endswith("boom")
    assert result.exit_code == 1          # a chunk failed


def test_json_gives_one_line_per_chunk_with_its_prints(tmp_path):
    states = table(tmp_path)
    with ThreadTTS(states, lua=FakeLua(states)) as tts:
        result = console(tts, SESSION, "--json")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(c["chunk"], c["line"], c["ok"]) for c in lines] == [
        (1, 1, True), (2, 2, True), (3, 3, True), (4, 6, True), (5, 8, True), (6, 9, True), (7, 10, True),
        (8, 14, False), (9, 15, True)]
    assert lines[1]["value"] == 42 and lines[3]["value"] == 3 and lines[3]["code"] == "add(1,\n    2)"
    assert lines[5]["prints"] == ["hello"] and lines[6]["prints"] == ["line 1", "line 2"]
    assert lines[0]["value"] is None and lines[0]["prints"] == [] and lines[0]["errors"] == []
    assert "boom" in lines[7]["error"] and "value" not in lines[7]
    assert lines[8]["value"] == 7
    assert result.exit_code == 1


def test_errors_in_the_game_script_name_the_module_file_and_line(tmp_path):
    states = table(tmp_path)
    with ThreadTTS(states, lua=FakeLua(states)) as tts:
        result = console(tts, "explode()\nlater()\n")
    # the call fails in util.lua line 3 (bundle line mapped back); the timer's error comes on its own
    errors = [line for line in result.stderr.splitlines() if "exploded" in line]
    assert errors[0] == "error: util.lua:3:1: the util exploded"
    assert errors[1] == "Error in Global Script: util.lua:3:1: the util exploded"
    assert result.exit_code == 1


def test_object_runs_the_code_in_that_objects_script(tmp_path):
    states = table(tmp_path)
    with ThreadTTS(states, lua=FakeLua(states)) as tts:
        result = console(tts, "roll() * 2\nscore\n", "--object", "d1e000", "--json")
        missing = console(tts, "1\n", "--object", "abcdef")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["value"] == 12 and lines[1]["value"] is None   # Global's score is not the die's
    assert missing.exit_code == 2 and missing.stderr.count("error") == 1 and "abcdef" in missing.stderr


def test_tts_not_running_is_one_line_exit_1():
    result = CliRunner().invoke(cli, ["console", "--port", str(free_port()), "--tts-port", str(free_port()),
                                      "--timeout", "2"], input="1\n")
    assert result.exit_code == 1 and "Traceback" not in result.output + result.stderr
    assert len([line for line in result.stderr.splitlines() if line.strip()]) == 1


@pytest.mark.parametrize("text, state, code", [
    ("x = 1", COMPLETE, "x = 1"),
    ("x + 1", COMPLETE, "return x + 1"),
    ("=x", COMPLETE, "return x"),
    ("function f()", INCOMPLETE, None),
    ("if x then\n  y()\nelse", INCOMPLETE, None),
    ("repeat i = i + 1", INCOMPLETE, None),
    ("t = {1,", INCOMPLETE, None),
    ("s = [[two\nlines", INCOMPLETE, None),
    ("x = 1 +", INCOMPLETE, None),
    ("local t", COMPLETE, "local t"),
    ("print(1)\nprint(2)", COMPLETE, "print(1)\nprint(2)"),
    ("obj.setName('a') obj.setLock(true)", COMPLETE, "obj.setName('a') obj.setLock(true)"),
    ("getObjectsWithTag('die')[1].getGUID()", COMPLETE, "return getObjectsWithTag('die')[1].getGUID()"),
    ("function() return 1 end", COMPLETE, "return function() return 1 end"),
    ("end", COMPLETE, "end"),              # a syntax error: TTS says so
    ("'unfinished", COMPLETE, "'unfinished"),
    ("-- only a comment", EMPTY, None),
])
def test_chunks_are_gathered_and_expressions_return_their_value(text, state, code):
    assert chunk_state(text) == state
    if code is not None:
        assert as_exec_code(text)[0] == code


def test_the_documented_json_lines_have_the_keys_console_prints(tmp_path, repo_root):
    import re

    text = (repo_root / "docs" / "modding.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"chunk"' in b)
    documented = [json.loads(line) for line in block.splitlines()]
    states = table(tmp_path)
    with ThreadTTS(states, lua=FakeLua(states)) as tts:
        result = console(tts, "score\nfor i = 1, 2 do\n  print(i)\nend\nexplode()\n", "--json")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [set(line) for line in lines] == [set(example) for example in documented]
    assert [line["line"] for line in lines] == [1, 2, 5] and lines[1]["prints"] == ["1", "2"]


def test_a_returned_text_holding_a_lone_surrogate_is_shown_with_its_escape():
    # TTS's JSON may spell "\ud800", which no encoder writes: the console shows the escape instead of dying
    from bridge.luaproject.console import format_value

    shown = [format_value("bad\ud800"), format_value({"long": "x" * 120, "bad": "\udfff"})]
    assert shown[0] == '"bad\\ud800"' and "\\udfff" in shown[1]
    assert all(text.encode("utf-8") for text in shown)


def test_json_errors_are_json_lines_on_stdout_with_the_errors_exit_status(tmp_path):
    """Issue #28: with --json a bad --object (or TTS not running) was a text line only; a script reading the
    JSON lines saw nothing. Now it is one line of the documented shape, exit 2 (1 for TTS not running)."""
    states = table(tmp_path)
    with ThreadTTS(states, lua=FakeLua(states)) as tts:
        missing = console(tts, "1\n", "--object", "abcdef", "--json")
    assert missing.exit_code == 2
    (line,) = [json.loads(text) for text in missing.stdout.splitlines()]
    assert line["ok"] is False and set(line) == {"ok", "error"} and "--object abcdef" in line["error"]
    assert "error" not in missing.stderr
    offline = CliRunner().invoke(cli, ["console", "--port", str(free_port()), "--tts-port", str(free_port()),
                                       "--timeout", "2", "--json"], input="1\n")
    assert offline.exit_code == 1 and "Traceback" not in offline.output + offline.stderr
    (line,) = [json.loads(text) for text in offline.stdout.splitlines()]
    assert line["ok"] is False and line["error"]


def test_the_documented_json_error_line_is_what_a_bad_object_prints(tmp_path, repo_root):
    import re

    text = (repo_root / "docs" / "modding.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"ok": false, "error"' in b[:30]]
    states = table(tmp_path)
    with ThreadTTS(states, lua=FakeLua(states)) as tts:
        missing = console(tts, "1\n", "--object", "abcdef", "--json")
    assert json.loads(missing.stdout) == json.loads(block)
