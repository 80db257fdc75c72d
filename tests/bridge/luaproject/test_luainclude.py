"""Lua ``#include`` as the Atom plugin writes it: expanded between ``----#include`` marker lines on push, bundle and
build; folded back into the ``#include`` line and its file on pull and unbundle; nested includes, cycles, missing
files and paths out of the folder refused with the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.luaproject.bundle import bundle, is_bundle, unbundle
from bridge.luaproject.luainclude import LuaIncludeError, expand, expand_file_text, fold, parse_name
from bridge.protocol import ScriptState
from tests.tools.threadtts import ThreadTTS
from tools.cli import cli

GLOBAL = 'print("start")\n#include lib/dice\n  #include <lib/deck>\nprint(roll(), deal())\n'
DICE = "function roll() return 4 end\n"
DECK = '#include cards\nlocal secret = 1\nfunction deal() return card() .. secret end\n'
CARDS = 'function card() return "ace" end\n'

# What the Atom plugin sends for GLOBAL (literal): the directive line after "----" on each side, the <name> form
# wrapped in do ... end, the nested include (looked up beside lib/deck.lua) expanded in place.
EXPANDED = (
    'print("start")\n'
    "----#include lib/dice\n"
    "function roll() return 4 end\n"
    "----#include lib/dice\n"
    "----  #include <lib/deck>\n"
    "do\n"
    "----#include cards\n"
    'function card() return "ace" end\n'
    "----#include cards\n"
    "local secret = 1\n"
    "function deal() return card() .. secret end\n"
    "end\n"
    "----  #include <lib/deck>\n"
    "print(roll(), deal())\n"
)


def project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "lib").mkdir(parents=True)
    (src / "Global.-1.lua").write_text(GLOBAL, encoding="utf-8")
    (src / "lib" / "dice.lua").write_text(DICE, encoding="utf-8")
    (src / "lib" / "deck.ttslua").write_text(DECK, encoding="utf-8")
    (src / "lib" / "cards.lua").write_text(CARDS, encoding="utf-8")
    return src


def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output + result.stderr
    return result


def run_lua(text: str):
    lupa = pytest.importorskip("lupa")
    lua = lupa.LuaRuntime()
    printed: list[str] = []
    lua.globals().print = lambda *values: printed.append(" ".join(str(v) for v in values))
    lua.execute(text)
    return printed, lua


def test_expand_writes_the_plugins_markers_and_fold_gives_back_the_lines_and_files(tmp_path):
    src = project(tmp_path)
    expanded = expand_file_text(GLOBAL, src / "Global.-1.lua", [src])
    assert expanded == EXPANDED
    folded = fold(expanded)
    assert folded.text == GLOBAL.rstrip("\n") + "\n" and not folded.refused and not folded.unbalanced
    assert folded.files == {("lib/dice",): DICE, ("<lib/deck>",): DECK, ("<lib/deck>", "cards"): CARDS}
    printed, lua = run_lua(expanded)
    assert printed == ["start", "4\tace1"] or printed == ["start", "4 ace1"]
    assert lua.globals().secret is None   # <name> keeps the file's locals inside do ... end


def test_fold_reads_what_the_plugin_wrote_and_leaves_odd_markers_alone():
    atom = "x = 1\n----#include !/utils\nfunction u() end\n----#include !/utils\n"
    assert fold(atom).text == "x = 1\n#include !/utils\n" and fold(atom).files == {("!/utils",): "function u() end\n"}
    lonely = "----#include lonely\nprint(1)\n"
    assert fold(lonely).text == lonely and fold(lonely).unbalanced
    hostile = "----#include ../../etc/passwd\nx\n----#include ../../etc/passwd\n"
    folded = fold(hostile)
    assert folded.text == hostile and folded.files == {} and folded.refused == ["../../etc/passwd"]


@pytest.mark.parametrize("spec", ["../x", "/etc/x", "a\\b", "~/x", "C:/x", "a//b", "con", "<>", "<../x>"])
def test_an_include_name_that_is_not_plain_is_refused_naming_file_and_line(spec):
    with pytest.raises(LuaIncludeError, match=r"^main.lua:2: #include .*not a plain relative path"):
        expand(f"print(1)\n#include {spec}\n", "main.lua", lambda name, parent: ("x", ""))


def test_a_missing_file_names_the_file_and_line_and_where_it_looked(tmp_path):
    (tmp_path / "main.lua").write_text("-- one\n\n#include nowhere\n", encoding="utf-8")
    with pytest.raises(LuaIncludeError) as caught:
        bundle(tmp_path / "main.lua", [tmp_path])
    assert str(caught.value).startswith(f"{tmp_path / 'main.lua'}:3: #include nowhere: no such file (searched: ")
    assert caught.value.exit_code == 2


def test_a_cycle_is_one_clear_error_naming_the_file_and_line_of_the_directive(tmp_path):
    (tmp_path / "a.lua").write_text("x = 1\n#include b\n", encoding="utf-8")
    (tmp_path / "b.lua").write_text("#include a\n", encoding="utf-8")
    (tmp_path / "main.lua").write_text("#include a\n", encoding="utf-8")
    with pytest.raises(LuaIncludeError) as caught:
        bundle(tmp_path / "main.lua", [tmp_path])
    assert str(caught.value) == (f"{tmp_path / 'b.lua'}:1: #include a: {tmp_path / 'a.lua'} includes itself "
                                 f"({tmp_path / 'a.lua'} → {tmp_path / 'b.lua'} → {tmp_path / 'a.lua'})")


def test_a_chain_deeper_than_the_limit_and_a_bomb_stop_with_an_error(tmp_path):
    from bridge.luaproject.limits import MAX_INCLUDE_DEPTH

    deep = {f"f{i}": f"#include f{i + 1}\n" for i in range(MAX_INCLUDE_DEPTH + 5)}
    with pytest.raises(LuaIncludeError, match="nested more than"):
        expand("#include f0\n", "main.lua", lambda name, parent: (name.spec + ".lua", deep.get(name.spec, "")))
    bomb = {f"b{i}": f"#include b{i + 1}\n#include b{i + 1}\n" for i in range(30)} | {"b30": "x" * 100}
    with pytest.raises(LuaIncludeError, match="longer than"):
        expand("#include b0\n", "main.lua", lambda name, parent: (f"{name.spec}.{id(parent)}.lua", bomb[name.spec]))


def test_a_link_out_of_the_search_folder_is_refused(tmp_path):
    outside = tmp_path / "outside.lua"
    outside.write_text("secret = 1\n", encoding="utf-8")
    src = tmp_path / "src"
    src.mkdir()
    try:
        (src / "lib.lua").symlink_to(outside)
    except OSError:
        pytest.skip("no symbolic links here")
    (src / "main.lua").write_text("#include lib\n", encoding="utf-8")
    with pytest.raises(LuaIncludeError, match="a symbolic link that leads outside"):
        bundle(src / "main.lua", [src])


def test_a_required_module_may_include_and_an_included_file_may_require(tmp_path):
    (tmp_path / "main.lua").write_text('#include setup\nprint(helper.twice(2))\n', encoding="utf-8")
    (tmp_path / "setup.lua").write_text('helper = require("helper")\n', encoding="utf-8")
    (tmp_path / "helper.lua").write_text("#include <body>\nreturn M\n", encoding="utf-8")
    (tmp_path / "body.lua").write_text("M = {}\nfunction M.twice(x) return 2 * x end\n", encoding="utf-8")
    result = bundle(tmp_path / "main.lua", [tmp_path])
    assert [m.name for m in result.modules] == ["__root", "helper"]
    assert "----#include setup" in result.modules[0].source and "----#include <body>" in result.modules[1].source
    assert run_lua(result.text)[0] == ["4"]


def test_parse_name_knows_the_plugins_forms():
    assert parse_name("<lib/deck>").enclosed and parse_name("<lib/deck>").parts == ("lib", "deck")
    assert parse_name("!/utils").from_root and parse_name("!/utils").candidates() == [("utils.lua",), ("utils.ttslua",)]
    assert parse_name("a/b.ttslua").candidates() == [("a", "b.ttslua")]


# ---------------------------------------------------------------------------------------- round trips


def test_bundle_then_unbundle_gives_back_the_files(tmp_path):
    src = project(tmp_path)
    (src / "Global.-1.lua").write_text(GLOBAL + 'local util = require("util")\n', encoding="utf-8")
    (src / "util.lua").write_text("#include lib/dice\nreturn {}\n", encoding="utf-8")
    out = tmp_path / "Global.-1.bundle.lua"
    assert invoke("bundle", str(src / "Global.-1.lua"), str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert is_bundle(text) and EXPANDED in unbundle(text)["__root"] + "\n"
    back = tmp_path / "back"
    result = invoke("unbundle", str(out), str(back), "--root-name", "Global.-1.lua")
    assert result.exit_code == 0, result.output + result.stderr
    assert files_under(back) == {"Global.-1.lua": (GLOBAL + 'local util = require("util")\n').encode(),
                                 "util.lua": b"#include lib/dice\nreturn {}\n", "lib/dice.lua": DICE.encode(),
                                 "lib/deck.lua": DECK.encode(), "lib/cards.lua": CARDS.encode()}


def test_unbundle_folds_a_script_that_has_includes_and_no_bundle(tmp_path):
    script = tmp_path / "Global.-1.lua"
    script.write_text(EXPANDED, encoding="utf-8")
    back = tmp_path / "back"
    assert invoke("unbundle", str(script), str(back)).exit_code == 0
    assert files_under(back) == {"Global.-1.lua": GLOBAL.encode(), "lib/dice.lua": DICE.encode(),
                                 "lib/deck.lua": DECK.encode(), "lib/cards.lua": CARDS.encode()}
    # and the other way: the files unbundle wrote expand to the very text it read
    assert expand_file_text(GLOBAL, back / "Global.-1.lua", [back]) == EXPANDED


def test_unbundle_refuses_a_hostile_include_name_before_writing(tmp_path):
    script = tmp_path / "s.lua"
    script.write_text("----#include ../evil\nx\n----#include ../evil\n", encoding="utf-8")
    result = invoke("unbundle", str(script), str(tmp_path / "out"))
    assert result.exit_code == 2 and "not a plain relative path" in result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil.lua").exists()


def test_pull_push_pull_keeps_the_include_lines_and_files(tmp_path):
    src = project(tmp_path)
    table = [ScriptState("Global", "-1", expand_file_text(GLOBAL, src / "Global.-1.lua", [src]), ""),
             ScriptState("Die", "d1e000", "----#include lib/dice\n" + DICE + "----#include lib/dice\n", "")]
    pulled = tmp_path / "pulled"
    with ThreadTTS(table) as tts:
        result = invoke("pull", str(pulled), *tts.args(), "--json")
        assert result.exit_code == 0, result.output + result.stderr
        assert sorted(json.loads(result.stdout)["includes"]) == ["lib/cards.lua", "lib/deck.lua", "lib/dice.lua"]
        assert files_under(pulled) == {"Global.-1.lua": GLOBAL.encode(), "Die.d1e000.lua": b"#include lib/dice\n",
                                       "lib/dice.lua": DICE.encode(), "lib/deck.lua": DECK.encode(),
                                       "lib/cards.lua": CARDS.encode()}
        (pulled / "lib" / "cards.lua").write_text('function card() return "king" end\n', encoding="utf-8")
        edited = files_under(pulled)
        pushed = invoke("push", str(pulled), *tts.args())
        assert pushed.exit_code == 0, pushed.output + pushed.stderr
        sent = tts.scripts()
        assert sent["-1"].script == EXPANDED.replace('"ace"', '"king"').rstrip("\n") + "\n"
        assert run_lua(sent["-1"].script)[0][1].replace("\t", " ") == "4 king1"
        assert invoke("pull", str(pulled), *tts.args()).exit_code == 0
        assert files_under(pulled) == edited


def test_push_of_a_cycle_is_one_line_exit_2_and_sends_nothing(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "Global.-1.lua").write_text("print(1)\n#include loop\n", encoding="utf-8")
    (folder / "loop.lua").write_text("#include loop\n", encoding="utf-8")
    with ThreadTTS([ScriptState("Global", "-1", "print(1)", "")]) as tts:
        result = invoke("push", str(folder), *tts.args())
        assert tts.tts.reloads == 0
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "loop.lua:1: #include loop:" in lines[0] and "includes itself" in lines[0]


def test_an_error_position_in_an_included_line_names_the_included_file_and_its_line(tmp_path):
    from bridge.luaproject.bundle import map_error_message
    from bridge.luaproject.console import map_positions

    src = project(tmp_path)
    expanded = expand_file_text(GLOBAL, src / "Global.-1.lua", [src])
    state = ScriptState("Global", "-1", expanded, "")
    line = EXPANDED.split("\n").index('function card() return "ace" end') + 1
    assert map_positions(f"chunk_0:({line},5-9): boom", state) == "lib/cards.lua:1:5: boom"
    last = EXPANDED.split("\n").index("print(roll(), deal())") + 1
    assert map_positions(f"chunk_0:({last},1-5): boom", state) == "Global.-1.lua:4:1: boom"
    bundled = bundle(src / "Global.-1.lua", [src])
    first = bundled.modules[0].first_line
    assert map_error_message(bundled, f"chunk_0:({first + line - 1},5-9): x") == "lib/cards.lua:1:5: x"
    in_bundle = ScriptState("Global", "-1", bundled.text, "")
    assert map_positions(f"chunk_0:({first + 10 - 1},1-2): x", in_bundle) == "lib/deck.lua:2:1: x"  # local secret


def test_the_bridge_names_the_included_file_of_an_error_in_a_bundle(tmp_path):
    from bridge.luaproject.errormap import error_locator, locate

    src = project(tmp_path)
    (src / "Global.-1.lua").write_text(GLOBAL + 'require("lib.cards")\n', encoding="utf-8")
    bundled = bundle(src / "Global.-1.lua", [src])
    line = bundled.modules[0].first_line + EXPANDED.split("\n").index("function roll() return 4 end")
    assert locate(bundled.text, line, mod_root=src) == (f"{src.name}/lib/dice.lua", 1)
    assert error_locator(src)(f"chunk_0:({line},1-3): boom", bundled.text) == f"{src.name}/lib/dice.lua:1"
    cards = bundled.module("lib.cards")
    assert error_locator(src)(f"chunk_0:({cards.first_line},1-3): x", bundled.text) == f"{src.name}/lib/cards.lua:1"


def test_pull_no_unbundle_keeps_the_blocks_and_a_hostile_or_unpaired_block_stays_expanded(tmp_path):
    hostile = "----#include ../../evil\nx = 1\n----#include ../../evil\n"
    table = [ScriptState("Global", "-1", EXPANDED, ""), ScriptState("Odd", "0dd000", hostile, ""),
             ScriptState("Half", "ha1f00", "----#include lonely\nprint(1)\n", "")]
    with ThreadTTS(table) as tts:
        kept = invoke("pull", str(tmp_path / "kept"), *tts.args(), "--no-unbundle")
        folded = invoke("pull", str(tmp_path / "folded"), *tts.args())
    assert kept.exit_code == 0 and folded.exit_code == 0, folded.output + folded.stderr
    assert files_under(tmp_path / "kept")["Global.-1.lua"] == EXPANDED.encode()
    out = files_under(tmp_path / "folded")
    assert out["Odd.0dd000.lua"] == hostile.encode() and out["Half.ha1f00.lua"] == b"----#include lonely\nprint(1)\n"
    assert "not a plain relative path" in folded.stderr and "do not pair up" in folded.stderr
    assert not (tmp_path / "evil.lua").exists() and not (tmp_path / "evil").exists()
    assert out["Global.-1.lua"] == GLOBAL.encode()
