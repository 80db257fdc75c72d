"""Lua bundling in the luabundle format: round trip, errors with file:line, source map, real bundles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.luaproject.bundle import (
    BundleError, LexMemo, bundle, bundle_metadata, find_requires, is_bundle, map_bundle_line, map_error_message,
    unbundle,
)


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def mod(tmp_path: Path) -> Path:
    write(tmp_path, "game/global.lua",
          'local json = require("lib.json")\n'
          'local util = require "game.util"\n'
          'local gen = require("generated.game")\n'
          '-- require("commented.out")\n'
          'local s = "require(\'in.a.string\')"\n'
          'function onLoad() return json.encode(util.answer()) .. gen.mode end\n'
          'RESULT = onLoad()\n')
    write(tmp_path, "lib/json.lua",
          'local M = {}\n'
          'function M.encode(v) return "<" .. tostring(v) .. ">" end\n'
          'local tricky = [[\nend)\n__bundle_register("fake", function() end)\n]]\n'
          'return M')
    write(tmp_path, "game/util.lua",
          'local json = require("lib.json") -- a second require of the same module\n'
          'local M = {}\n'
          'function M.answer()\n  if true then\n    for i = 1, 2 do end\n  end\n  return 42\nend\n'
          'return M\n')
    return tmp_path


GENERATED = {"generated.game": 'return { mode = "kingdom", data = "{\\"a\\":1}" }\n'}


def test_bundle_starts_with_the_luabundle_header_and_ends_with_the_root(mod: Path):
    b = bundle(mod / "game/global.lua", [mod], GENERATED)
    first, rest = b.text.split("\n", 1)
    assert first == '-- Bundled by luabundle {"version":"1.6.0"}'
    assert bundle_metadata(b.text) == {"version": "1.6.0"}
    assert is_bundle(b.text)
    assert b.text.rstrip().endswith('return __bundle_require("__root")')
    assert [m.name for m in b.modules] == ["__root", "lib.json", "game.util", "generated.game"]


def test_round_trip_gives_the_same_modules(mod: Path):
    b = bundle(mod / "game/global.lua", [mod], GENERATED)
    modules = unbundle(b.text)
    assert modules == {
        "__root": (mod / "game/global.lua").read_text(),
        "lib.json": (mod / "lib/json.lua").read_text(),
        "game.util": (mod / "game/util.lua").read_text(),
        "generated.game": GENERATED["generated.game"],
    }


def test_bundle_runs_in_lua(mod: Path):
    lupa = pytest.importorskip("lupa")
    lua = lupa.LuaRuntime()
    b = bundle(mod / "game/global.lua", [mod], GENERATED)
    lua.execute(b.text)
    assert lua.globals().RESULT == "<42>kingdom"


def test_missing_module_names_file_and_line(tmp_path: Path):
    root = write(tmp_path, "g/global.lua", "local a = 1\n\nlocal x = require('lib.nothing')\n")
    with pytest.raises(BundleError) as info:
        bundle(root, [tmp_path])
    assert str(info.value).startswith(f"{root}:3: module \"lib.nothing\" not found")
    assert info.value.exit_code == 2


def test_missing_module_in_a_required_module_names_that_module(tmp_path: Path):
    root = write(tmp_path, "g/global.lua", 'require("lib.a")\n')
    lib = write(tmp_path, "lib/a.lua", '\nreturn require("lib.b")\n')
    with pytest.raises(BundleError, match=f"^{lib}:2: "):
        bundle(root, [tmp_path])


@pytest.mark.parametrize("call", ['require(name)', 'require("lib." .. name)', "pcall(require, 'x')"])
def test_computed_require_is_an_error(tmp_path: Path, call: str):
    root = write(tmp_path, "g/global.lua", f"local name = 'x'\n{call}\n")
    with pytest.raises(BundleError, match=f"^{root}:2: require with a computed argument"):
        bundle(root, [tmp_path])


def test_fields_and_definitions_named_require_are_not_requires():
    source = "obj.require(x)\nobj:require(y)\nlocal function require(n) end\nlocal s = [==[require(z)]==]\n"
    assert find_requires(source) == []


def test_unfinished_string_is_reported_with_line(tmp_path: Path):
    root = write(tmp_path, "g/global.lua", 'local a = 1\nlocal s = "oops\n')
    with pytest.raises(BundleError, match=f"^{root}:2: unfinished string"):
        bundle(root, [tmp_path])


def test_missing_root_is_an_error(tmp_path: Path):
    with pytest.raises(BundleError, match="root script not found"):
        bundle(tmp_path / "nope.lua", [tmp_path])


def test_bundle_lines_map_back_to_source_lines(mod: Path):
    b = bundle(mod / "game/global.lua", [mod], GENERATED)
    lines = b.text.split("\n")
    for m in b.modules:
        source_lines = m.source.split("\n")
        for offset, source_line in enumerate(source_lines):
            bundle_line = m.first_line + offset
            assert lines[bundle_line - 1] == source_line
            assert map_bundle_line(b, bundle_line) == (m.display, offset + 1)
    assert map_bundle_line(b, 2) == ("<bundle>", 2)
    util = b.module("game.util")
    message = f"chunk_0:({util.first_line + 6},9-14): attempt to call a nil value"
    assert map_error_message(b, message) == f"{mod / 'game/util.lua'}:7:9: attempt to call a nil value"


def test_generated_modules_are_always_included(tmp_path: Path):
    root = write(tmp_path, "g/global.lua", "x = 1\n")
    b = bundle(root, [tmp_path], {"generated.game": "return {}"})
    assert "generated.game" in unbundle(b.text)
    assert map_bundle_line(b, b.module("generated.game").first_line) == ("<generated.game>", 1)


def test_same_inputs_give_the_same_bundle(mod: Path):
    assert bundle(mod / "game/global.lua", [mod], GENERATED).text == \
        bundle(mod / "game/global.lua", [mod], GENERATED).text


def test_unbundles_the_arknova_global_script(reference_saves):
    script = json.loads(reference_saves["arknova"].read_text(encoding="utf-8"))["LuaScript"]
    modules = unbundle(script)
    assert list(modules) == ["__root", "ArkNova.Global", "ArkNova.Constants"]
    assert modules["__root"] == 'require("ArkNova.Global")'
    assert modules["ArkNova.Global"].startswith('require("ArkNova.Constants")\n\nfunction onClickTag')
    assert modules["ArkNova.Constants"].rstrip().endswith('SOLO_CARD = "1e5455"')


def test_unbundle_rejects_non_bundles():
    with pytest.raises(ValueError, match="not a luabundle bundle"):
        unbundle("print('hello')")
    with pytest.raises(ValueError):
        unbundle('-- Bundled by luabundle {"version":"1.6.0"}\nprint(1)\n')


from hypothesis import given, settings, strategies as st  # noqa: E402

from bridge.luaproject.bundle import lua_string  # noqa: E402

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=40)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["string", "comment", "long", "code"]), _text), max_size=8))
def test_round_trip_survives_bundle_like_text_in_strings_and_comments(tmp_path_factory, parts):
    """Strings and comments holding `end)`, `__bundle_register(` or quotes never cut a module short."""
    lines = []
    for kind, text in parts:
        if kind == "string":
            lines.append(f"local s = {lua_string(text + ' end) __bundle_register(')}")
        elif kind == "comment":
            lines.append("-- " + text.replace("\n", " ") + " end)")
        elif kind == "long":
            body = text.replace("]", "")
            lines.append(f"local l = [==[{body}\nend)\n]==]")
        else:
            lines.append("if x then do end end function f() return 1 end")
    source = "\n".join(lines) + "\n"
    root = tmp_path_factory.mktemp("prop") / "root.lua"
    root.write_text(source, encoding="utf-8")
    modules = unbundle(bundle(root, []).text)
    assert modules == {"__root": source}


def test_a_lex_memo_kept_between_runs_gives_the_same_bundle_and_still_every_error(mod: Path, tmp_path: Path):
    root, roots, extra = mod / "game" / "global.lua", [mod], {"generated.game": 'return { mode = "x" }'}
    plain = bundle(root, roots, extra)
    first = LexMemo()
    assert bundle(root, roots, extra, memo=first) == plain
    first.unbundles(plain.text)
    assert first.changed
    again = LexMemo.from_bytes(first.to_bytes())
    assert bundle(root, roots, extra, memo=again) == plain
    again.unbundles(plain.text)
    assert not again.changed   # every text was known: nothing to write
    # a source edited into a lexer error is lexed again and fails as it would without the memo
    util = mod / "game" / "util.lua"
    util.write_text(util.read_text(encoding="utf-8") + 'local s = "oops\n', encoding="utf-8")
    with pytest.raises(BundleError, match=f"^{util}:"):
        bundle(root, roots, extra, memo=LexMemo.from_bytes(first.to_bytes()))
    with pytest.raises(ValueError):
        LexMemo.from_bytes(first.to_bytes()).unbundles(plain.text.replace("end)", "", 1))


@pytest.mark.parametrize("damage", [b"", b"not json", b'{"format": "ttsmod lua lex 1"}', b"[]",
                                    b'{"format": "ttsmod lua lex 1", "requires": {"x": [[1, 2]]}, "bundles": []}',
                                    b'{"format": "another", "requires": {}, "bundles": []}'])
def test_a_damaged_lex_memo_is_an_empty_one(damage: bytes, mod: Path):
    memo = LexMemo.from_bytes(damage)
    assert memo.to_bytes() == LexMemo().to_bytes()
    root = mod / "game" / "global.lua"
    assert bundle(root, [mod], {"generated.game": "return 1"}, memo=memo) == bundle(root, [mod],
                                                                                      {"generated.game": "return 1"})
