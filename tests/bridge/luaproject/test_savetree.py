"""``ttsmod unpack`` / ``ttsmod pack``: a save as a source tree and back, on real saves, on every game ttsmod
builds and on generated saves; stable output, small diffs, and hostile trees refused in one line."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.catalog import builtin_games
from bridge.errors import InputError
from tools.cli import cli
from bridge.luaproject.savetree import pack, read_save, read_save_document, save_from_tree, tree_files, unpack


def tree_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative POSIX path → bytes), leaving out ``.git``."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(folder).parts}


def small_save() -> dict:
    """A save with Global's script, UI and state, a scripted object and a bag holding two blocks."""
    def block() -> dict:
        return {"Name": "BlockSquare", "Nickname": "Block", "Transform": {"posX": 0.0, "posY": 1.0, "posZ": 0.0},
                "LuaScript": "", "XmlUI": ""}

    return {
        "SaveName": "Small", "LuaScript": "print('global')\r\n-- CRLF kept\n", "XmlUI": "<Panel/>",
        "LuaScriptState": '{"round":2,"names":["Ann","Бо"]}',
        "ObjectStates": [
            {**block(), "GUID": "a1b2c3", "Nickname": "Score board", "LuaScript": "function onLoad() end",
             "LuaScriptState": "not json {", "Tags": ["board", "score"]},
            {"Name": "Bag", "Nickname": "Blocks", "GUID": "b2c3d4", "Transform": {"posX": 2.5},
             "ContainedObjects": [{**block(), "GUID": "c3d4e5"}, {**block(), "GUID": "c3d4e5", "Nickname": "Block"}]},
        ],
    }


def write_save(path: Path, save: dict) -> Path:
    path.write_text(json.dumps(save, ensure_ascii=False), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ layout


def test_layout_global_at_the_top_one_folder_per_object_contents_in_order(tmp_path):
    save = write_save(tmp_path / "small.json", small_save())
    unpack(save, tmp_path / "tree")
    files = tree_of(tmp_path / "tree")
    assert files["script.lua"] == b"print('global')\r\n-- CRLF kept\n"
    assert files["ui.xml"] == b"<Panel/>"
    assert json.loads(files["state.json"]) == {"round": 2, "names": ["Ann", "Бо"]}
    assert json.loads(files["objects/order.json"]) == ["Score board.a1b2c3", "Blocks.b2c3d4"]
    assert files["objects/Score board.a1b2c3/script.lua"] == b"function onLoad() end"
    assert files["objects/Score board.a1b2c3/state.txt"] == b"not json {"   # not JSON: kept as text
    board = json.loads(files["objects/Score board.a1b2c3/object.json"])
    assert "LuaScript" not in board and board["XmlUI"] == "" and board["Tags"] == ["board", "score"]
    # two contained blocks share a GUID (TTS does this): two folders, in the bag's order
    assert json.loads(files["objects/Blocks.b2c3d4/contents/order.json"]) == ["Block.c3d4e5", "Block.c3d4e5~2"]
    top = json.loads(files["save.json"])
    assert "ObjectStates" not in top and "LuaScript" not in top and top["SaveName"] == "Small"
    packed = json.loads(pack(tmp_path / "tree", tmp_path / "out.json")[1])
    assert packed == small_save()
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8")) == small_save()


def test_unpack_twice_gives_identical_trees_and_a_small_change_a_small_diff(tmp_path):
    save = small_save()
    unpack(write_save(tmp_path / "a.json", save), tmp_path / "one")
    unpack(write_save(tmp_path / "a.json", save), tmp_path / "two")
    assert tree_of(tmp_path / "one") == tree_of(tmp_path / "two")
    save["ObjectStates"][1]["ContainedObjects"][1]["Transform"]["posX"] = 0.5
    unpack(write_save(tmp_path / "b.json", save), tmp_path / "three")
    before, after = tree_of(tmp_path / "one"), tree_of(tmp_path / "three")
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    assert changed == {"objects/Blocks.b2c3d4/contents/Block.c3d4e5~2/object.json"}
    diff = [(a, b) for a, b in zip(before[next(iter(changed))].splitlines(), after[next(iter(changed))].splitlines())
            if a != b]
    assert diff == [(b'    "posX": 0.0,', b'    "posX": 0.5,')]


def test_unpack_again_keeps_git_and_the_modders_files_and_drops_removed_objects(tmp_path):
    save = small_save()
    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", save), tree)
    (tree / ".git").mkdir()
    (tree / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (tree / "README.md").write_text("my notes", encoding="utf-8")
    del save["ObjectStates"][1]
    unpack(write_save(tmp_path / "a.json", save), tree)
    assert (tree / ".git" / "HEAD").read_text(encoding="utf-8") == "ref: refs/heads/main\n"
    assert (tree / "README.md").read_text(encoding="utf-8") == "my notes"
    assert sorted(p.name for p in (tree / "objects").iterdir()) == ["Score board.a1b2c3", "order.json"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []   # no temporary folder left


# ------------------------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("name", ["coinchesim", "canterbury", "arknova"])
def test_reference_saves_round_trip_value_identical(reference_saves, tmp_path, name):
    source = reference_saves[name]
    result = unpack(source, tmp_path / "tree")
    assert result.objects > 0 and (tmp_path / "tree" / "script.lua").is_file()
    packed, raw = pack(tmp_path / "tree", tmp_path / "packed.json")
    assert json.loads(raw) == read_save(source)
    # and the packed save unpacks to the same tree
    unpack(tmp_path / "packed.json", tmp_path / "again")
    assert tree_of(tmp_path / "again") == tree_of(tmp_path / "tree")


@pytest.fixture(scope="module")
def built_saves(tmp_path_factory, repo_root) -> dict[str, Path]:
    """Each built-in game's save, from this run's one build of it (tests/sharedbuild.py): read, never written."""
    from tests.sharedbuild import shared_build_folder

    return {game: only(shared_build_folder(tmp_path_factory, repo_root, game).glob("*.json"))
            for game in sorted(builtin_games())}


def only(paths):
    (path,) = paths
    return path


def test_every_game_ttsmod_builds_round_trips(built_saves, tmp_path):
    assert built_saves
    for game, save in built_saves.items():
        tree = tmp_path / game
        result = unpack(save, tree)
        assert result.scripts >= 1 and (tree / "script.lua").read_text(encoding="utf-8").startswith("-- Bundled")
        assert json.loads(pack(tree, tmp_path / f"{game}.json")[1]) == read_save(save), game


# Generated saves: objects nest in contents, attached children and states, with names, GUIDs and text of any kind.
_text = st.text(max_size=12)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=False, allow_infinity=False), _text)
_json = st.recursive(_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(_text, inner, max_size=3)), max_leaves=6)
_guid = st.one_of(st.text(alphabet="0123456789abcdef", min_size=6, max_size=6), _text)
_script = st.one_of(st.just(""), st.text(max_size=30), st.sampled_from(['{"a":1}', '{"a": 1}', "0", "[1,2.5]"]))


def _objects(children):
    base = st.fixed_dictionaries(
        {"GUID": _guid, "Name": st.sampled_from(["Card", "Deck", "Bag", "Custom_Tile"])},
        optional={"Nickname": _text, "LuaScript": _script, "XmlUI": _script, "LuaScriptState": _script,
                  "Transform": st.dictionaries(st.sampled_from(["posX", "posY", "rotZ"]), st.floats(-1e3, 1e3)),
                  "Memo": _json, "ContainedObjects": st.lists(children, max_size=3),
                  "ChildObjects": st.lists(children, max_size=2),
                  "States": st.dictionaries(st.integers(1, 9).map(str), children, max_size=2)})
    return base


_leaf = st.fixed_dictionaries({"GUID": _guid, "Name": st.just("Card")},
                               optional={"Nickname": _text, "LuaScript": _script, "LuaScriptState": _script})
_object = st.recursive(_leaf, _objects, max_leaves=8)
_save = st.fixed_dictionaries(
    {"SaveName": _text, "ObjectStates": st.lists(_object, max_size=4)},
    optional={"LuaScript": _script, "XmlUI": _script, "LuaScriptState": _script, "Note": _json,
              "TabStates": st.dictionaries(st.integers(0, 11).map(str), _json, max_size=2)})


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_save)
def test_generated_saves_round_trip_value_identical(save):
    with tempfile.TemporaryDirectory() as tmp:
        source = write_save(Path(tmp) / "s.json", save)
        result = unpack(source, Path(tmp) / "tree")
        assert save_from_tree(Path(tmp) / "tree") == save
        # every file is inside the tree; the layout is the same for the same save (and the save file's layout)
        assert tree_of(Path(tmp) / "tree") == tree_files(save, read_save_document(source)[1])
        # and pack gives the save file's own bytes back
        assert result.exact and pack(Path(tmp) / "tree", "-")[1] == source.read_bytes()


# ------------------------------------------------------------------------------------------------ hostile input


def test_hostile_nicknames_and_guids_stay_inside_the_tree(tmp_path):
    names = ["../../evil", "/etc/passwd", "a\\b", "CON", "nul.txt", "..", "", ".hidden", "order", "Ж" * 200]
    save = {"ObjectStates": [{"Name": "Card", "Nickname": n, "GUID": g, "LuaScript": "x()"}
                             for n, g in zip(names, ["../x", "json", "a/b", "ok1", "ok2", "..", "", ".", "json", "z"])]}
    unpack(write_save(tmp_path / "h.json", save), tmp_path / "tree")
    outside = [p for p in tmp_path.rglob("*") if p != tmp_path / "h.json" and tmp_path / "tree" not in p.parents
               and p != tmp_path / "tree"]
    assert outside == []
    folders = json.loads((tmp_path / "tree" / "objects" / "order.json").read_text(encoding="utf-8"))
    assert len(set(folders)) == len(names) and "order.json" not in folders
    assert all(len(name.encode("utf-8")) < 160 and not name.startswith(".") for name in folders)
    assert save_from_tree(tmp_path / "tree") == save


def _invoke_pack(tree: Path, out: Path):
    result = CliRunner().invoke(cli, ["pack", str(tree), str(out)])
    lines = result.stderr.strip().splitlines() if result.stderr else []
    return result, lines


@pytest.mark.parametrize("damage, message", [
    (lambda t: (t / "objects" / "order.json").write_text('["../../etc"]', encoding="utf-8"),
     "is not a plain folder name"),
    (lambda t: (t / "objects" / "Score board.a1b2c3" / "object.json").write_text("{oops", encoding="utf-8"),
     "objects/Score board.a1b2c3/object.json: not valid JSON (line 1"),
    (lambda t: (t / "objects" / "Blocks.b2c3d4" / "contents" / "Extra.ffffff").mkdir(),
     "objects/Blocks.b2c3d4/contents/Extra.ffffff: not listed in"),
    (lambda t: (t / "objects" / "order.json").write_text('["Score board.a1b2c3", "Gone.000000"]',
                                                          encoding="utf-8"),
     "names 'Gone.000000', which is not a folder"),
    (lambda t: (t / "objects" / "Score board.a1b2c3" / "scirpt.lua").write_text("x", encoding="utf-8"),
     "scirpt.lua: not part of an object folder"),
    (lambda t: (t / "objects" / "Score board.a1b2c3" / "object.json").write_text('{"LuaScript": "x"}',
                                                                                 encoding="utf-8"),
     "LuaScript is also in object.json"),
    (lambda t: (t / "save.json").write_text("[]", encoding="utf-8"), "save.json: not a JSON object"),
    (lambda t: (t / "objects" / "Score board.a1b2c3" / "script.lua").write_bytes(b"\xff\xfe"),
     "script.lua: not UTF-8 text"),
])
def test_a_bad_tree_is_one_line_exit_2_and_nothing_written(tmp_path, damage, message):
    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", small_save()), tree)
    damage(tree)
    result, lines = _invoke_pack(tree, tmp_path / "out.json")
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert "Traceback" not in result.output and not (tmp_path / "out.json").exists()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_folder_link_that_leads_out_of_the_tree_is_refused(tmp_path):
    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", small_save()), tree)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "object.json").write_text('{"stolen": true}', encoding="utf-8")
    (tree / "objects" / "Link").symlink_to(secret, target_is_directory=True)
    (tree / "objects" / "order.json").write_text('["Score board.a1b2c3", "Blocks.b2c3d4", "Link"]', encoding="utf-8")
    with pytest.raises(InputError, match="leads outside"):
        save_from_tree(tree)


def test_unpack_refuses_a_folder_that_is_not_a_tree_and_leaves_it_alone(tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "cat.jpg").write_bytes(b"meow")
    result = CliRunner().invoke(cli, ["unpack", str(write_save(tmp_path / "a.json", small_save())), str(folder)])
    assert result.exit_code == 2 and "not empty and holds no save.json" in result.stderr
    assert [p.name for p in folder.iterdir()] == ["cat.jpg"]


@pytest.mark.parametrize("content, message", [(b"{not json", "not valid JSON (line 1, column 2"),
                                              (b'{"SaveName": "x"}', "not a TTS save (no ObjectStates list)"),
                                              (b"\xff", "not UTF-8 text")])
def test_unpack_of_a_bad_save_is_one_line_exit_2_and_the_old_tree_untouched(tmp_path, content, message):
    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "good.json", small_save()), tree)
    before = tree_of(tree)
    (tmp_path / "bad.json").write_bytes(content)
    result = CliRunner().invoke(cli, ["unpack", str(tmp_path / "bad.json"), str(tree)])
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert tree_of(tree) == before


def test_a_write_failure_during_unpack_leaves_the_old_tree_whole(tmp_path, monkeypatch):
    import bridge.luaproject.savetree as savetree

    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", small_save()), tree)
    before = tree_of(tree)
    real_open = open
    calls = {"n": 0}

    def failing_open(path, mode="r", *args, **kwargs):
        if "w" in mode:
            calls["n"] += 1
            if calls["n"] == 3:
                raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(savetree, "open", failing_open, raising=False)
    changed = small_save()
    changed["SaveName"] = "Changed"
    result = CliRunner().invoke(cli, ["unpack", str(write_save(tmp_path / "b.json", changed)), str(tree)])
    assert result.exit_code == 2 and "No space left on device" in result.stderr
    assert tree_of(tree) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "tree"]


# ------------------------------------------------------------------------------------------------ the commands


def test_commands_have_help_json_and_stdout(tmp_path):
    runner = CliRunner()
    for name in ("unpack", "pack"):
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0 and "--json" in result.output
    save = write_save(tmp_path / "a.json", small_save())
    report = json.loads(runner.invoke(cli, ["unpack", str(save), str(tmp_path / "tree"), "--json"]).stdout)
    assert report == {"save": str(save.absolute()), "dir": str((tmp_path / "tree").absolute()), "objects": 4,
                      "scripts": 2, "files": report["files"]} and report["files"] == len(tree_of(tmp_path / "tree"))
    packed = json.loads(runner.invoke(cli, ["pack", str(tmp_path / "tree"), "--json"]).stdout)
    assert packed["save"] == str(tmp_path / "tree.json") and packed["objects"] == 4
    assert json.loads((tmp_path / "tree.json").read_text(encoding="utf-8")) == small_save()
    printed = runner.invoke(cli, ["pack", str(tmp_path / "tree"), "-"])
    assert printed.exit_code == 0 and json.loads(printed.stdout) == small_save()
    both = runner.invoke(cli, ["pack", str(tmp_path / "tree"), "-", "--json"])
    assert both.exit_code == 2


def test_a_missing_tree_is_one_line_exit_2(tmp_path):
    result = CliRunner().invoke(cli, ["pack", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "no such folder" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["pack", str(empty)])
    assert result.exit_code == 2 and "no save.json" in result.stderr


def test_push_of_an_unpacked_tree_sends_global_and_every_scripted_top_level_object(tmp_path):
    from bridge import protocol as p
    from bridge.faketts import FakeTTS
    from bridge.server import Bridge
    from tests.bridgekit import run
    from tools.live import push_scripts, script_states_for

    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", small_save()), tree)
    (tree / "objects" / "Score board.a1b2c3" / "script.lua").write_text("function onLoad() print(1) end",
                                                                       encoding="utf-8")
    states = script_states_for(str(tree))

    async def scenario():
        async with FakeTTS() as tts:
            bridge = Bridge(port=0, tts_port=tts.port)
            result = await push_scripts(bridge, states, wait=False, timeout=5)
            message = await tts.next_message()
            return result, message

    result, message = run(scenario())
    assert isinstance(message, p.SaveAndPlay) and result.objects == 2
    sent = {s.guid: (s.name, s.script, s.ui) for s in message.script_states}
    # Global and the score board; the bag has no script, and its blocks are inside it (TTS cannot see them)
    assert sent == {"-1": ("Global", "print('global')\r\n-- CRLF kept\n", "<Panel/>"),
                    "a1b2c3": ("Score board", "function onLoad() print(1) end", "")}


def test_push_of_a_tree_bundles_required_modules_and_expands_xml_includes(tmp_path):
    """A tree is a modder's project like a pulled folder: push bundles what a script requires (from the tree's
    search path: ttsmod.toml [lua] path) and expands <Include src>; the tree's own files stay as they are."""
    from bridge.luaproject.bundle import is_bundle, unbundle
    from tests.tools.threadtts import ThreadTTS

    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", small_save()), tree)
    (tree / "lua" / "ui").mkdir(parents=True)
    (tree / "ttsmod.toml").write_text('[lua]\npath = ["lua"]\n', encoding="utf-8")
    (tree / "lua" / "score.lua").write_text("return {points = 3}\n", encoding="utf-8")
    (tree / "lua" / "ui" / "row.xml").write_text("<Text>row</Text>\n", encoding="utf-8")
    board = tree / "objects" / "Score board.a1b2c3"
    (board / "script.lua").write_text('local score = require("score")\nprint(score.points)\n', encoding="utf-8")
    (board / "ui.xml").write_text('<Panel>\n  <Include src="ui/row.xml"/>\n</Panel>', encoding="utf-8")
    data = json.loads((board / "object.json").read_text(encoding="utf-8"))
    del data["XmlUI"]      # the empty UI moves to its file
    (board / "object.json").write_text(json.dumps(data), encoding="utf-8")
    before = tree_of(tree)
    with ThreadTTS() as tts:
        result = CliRunner().invoke(cli, ["push", str(tree), *tts.args(), "--no-wait"])
        assert result.exit_code == 0, result.output + result.stderr
        table = tts.scripts_once(lambda scripts: "a1b2c3" in scripts)
    script = table["a1b2c3"].script
    assert is_bundle(script) and unbundle(script) == {
        "__root": 'local score = require("score")\nprint(score.points)\n', "score": "return {points = 3}\n"}
    assert table["a1b2c3"].ui == ("<Panel>\n  <!-- include ui/row.xml -->\n  <Text>row</Text>\n"
                                  "  <!-- include ui/row.xml -->\n</Panel>")
    assert table["-1"].script == "print('global')\r\n-- CRLF kept\n"      # requires nothing: sent as it is
    assert tree_of(tree) == before
    # a module that is not there: one line naming the file and line, exit 2, nothing sent
    (board / "script.lua").write_text('local x = require("missing")\n', encoding="utf-8")
    with ThreadTTS() as tts:
        result = CliRunner().invoke(cli, ["push", str(tree), *tts.args()])
        assert tts.scripts() == {}
    assert result.exit_code == 2 and "script.lua:1" in result.stderr and "missing" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_the_documented_json_report_has_the_keys_unpack_prints(tmp_path, repo_root):
    import re

    text = (repo_root / "docs" / "modding.md").read_text(encoding="utf-8")
    documented = next(json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)
                      if '"objects"' in block and '"scripts"' in block)
    example = repo_root / "docs" / "examples" / "modding-table.json"
    report = json.loads(CliRunner().invoke(cli, ["unpack", str(example), str(tmp_path / "t"), "--json"]).stdout)
    assert set(report) == set(documented)
    assert {k: documented[k] for k in ("objects", "scripts", "files")} == \
        {k: report[k] for k in ("objects", "scripts", "files")}


# ------------------------------------------------------------------------------------------------ the swap


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_unpack_into_a_link_keeps_the_link_and_the_real_folders_own_files(tmp_path):
    real = tmp_path / "real"
    unpack(write_save(tmp_path / "a.json", small_save()), real)
    (real / ".git").mkdir()
    (real / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (real / "README.md").write_text("my notes", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    changed = small_save()
    changed["SaveName"] = "Changed"
    result = CliRunner().invoke(cli, ["unpack", str(write_save(tmp_path / "b.json", changed)), str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert (real / ".git" / "HEAD").read_text(encoding="utf-8") == "ref: refs/heads/main\n"
    assert (real / "README.md").read_text(encoding="utf-8") == "my notes"
    assert json.loads((real / "save.json").read_text(encoding="utf-8"))["SaveName"] == "Changed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "link", "real"]


class Killed(BaseException):
    """kill -9 of the unpack, as far as the files are concerned: nothing after this point runs."""


def _user_files(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in (".git/HEAD", "README.md", "ttsmod.toml")}


def _tree_with_user_files(tmp_path: Path) -> Path:
    tmp_path.mkdir(exist_ok=True)
    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", small_save()), tree)
    (tree / ".git").mkdir()
    (tree / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (tree / "README.md").write_text("my notes", encoding="utf-8")
    (tree / "ttsmod.toml").write_text('[lua]\npath = ["lua"]\n', encoding="utf-8")
    return tree


def _changed_save() -> dict:
    """small_save with another name, no UI (ui.xml goes), a text state (state.json becomes state.txt) and one
    object less: every kind of step of the swap."""
    changed = small_save()
    changed["SaveName"] = "Changed"
    del changed["XmlUI"]
    changed["LuaScriptState"] = "round two"
    changed["ObjectStates"].pop()
    return changed


def test_an_unpack_killed_at_any_step_of_its_swap_leaves_your_files_in_place_and_the_next_run_finishes(
        tmp_path, monkeypatch):
    import bridge.luaproject.savetree as savetree

    expected = tree_files(_changed_save(), read_save_document(write_save(tmp_path / "c.json", _changed_save()))[1])
    real_move = savetree._move
    steps = {"n": 0}

    def counting(source, destination):
        steps["n"] += 1
        real_move(source, destination)

    counted = _tree_with_user_files(tmp_path / "count")
    monkeypatch.setattr(savetree, "_move", counting)
    unpack(write_save(tmp_path / "b.json", _changed_save()), counted)
    assert steps["n"] == 11     # six old entries out, five new ones in (format.json both ways)
    for kill_at in range(steps["n"]):
        work = tmp_path / f"kill-{kill_at}"
        tree = _tree_with_user_files(work)
        mine = _user_files(tree)
        calls = {"n": 0}

        def dying(source, destination):
            if calls["n"] == kill_at:
                raise Killed()
            calls["n"] += 1
            real_move(source, destination)

        monkeypatch.setattr(savetree, "_move", dying)
        with pytest.raises(Killed):
            unpack(write_save(work / "b.json", _changed_save()), tree)
        monkeypatch.setattr(savetree, "_move", real_move)
        # nothing of yours moved, nothing left beside the tree
        assert _user_files(tree) == mine
        assert sorted(p.name for p in work.iterdir()) == ["a.json", "b.json", "tree"]
        # the next run (unpack again, or pack) finishes the swap: the new tree, whole, and your files
        if kill_at % 2:
            packed = json.loads(pack(tree, "-")[1])
            assert packed == _changed_save()
        else:
            unpack(work / "b.json", tree)
        assert {k: v for k, v in tree_of(tree).items() if k not in mine} == expected, kill_at
        assert _user_files(tree) == mine and not (tree / ".ttsmod-unpack").exists()


def test_an_unpack_killed_while_writing_the_new_tree_changes_nothing(tmp_path, monkeypatch):
    import bridge.luaproject.savetree as savetree

    tree = _tree_with_user_files(tmp_path)
    before = tree_of(tree)
    real_write = savetree._write_new_tree

    def dying(new, files):
        real_write(new, dict(list(files.items())[:3]))
        raise Killed()

    monkeypatch.setattr(savetree, "_write_new_tree", dying)
    with pytest.raises(Killed):
        unpack(write_save(tmp_path / "b.json", _changed_save()), tree)
    monkeypatch.undo()
    assert tree_of(tree) == before
    assert json.loads(pack(tree, "-")[1]) == small_save()       # the half-written tree is thrown away
    assert tree_of(tree) == before and not (tree / ".ttsmod-unpack").exists()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_swap_folder_that_is_a_link_is_refused_not_followed(tmp_path):
    tree = tmp_path / "tree"
    unpack(write_save(tmp_path / "a.json", small_save()), tree)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "new").mkdir(parents=True)
    (elsewhere / "new" / "save.json").write_text('{"ObjectStates": []}', encoding="utf-8")
    (elsewhere / "plan.json").write_text('["save.json"]', encoding="utf-8")
    (tree / ".ttsmod-unpack").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(InputError, match="not what an interrupted unpack leaves"):
        pack(tree, "-")
    assert (elsewhere / "new" / "save.json").is_file()


# ------------------------------------------------------------------------------------------------ one budget


def _nested_save(depth: int) -> tuple[dict, dict]:
    """A save whose bags hold one bag each, ``depth`` objects deep; and the innermost object."""
    top = {"Name": "Bag", "GUID": "b00001"}
    inner = top
    for level in range(2, depth + 1):
        inner["ContainedObjects"] = [{"Name": "Bag", "GUID": f"b{level:05d}"}]
        inner = inner["ContainedObjects"][0]
    return {"SaveName": "Deep", "ObjectStates": [top]}, inner


def _json_depth(value) -> int:
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def test_what_unpack_writes_pack_reads_at_the_deepest_objects_and_json_the_budget_allows(tmp_path):
    from bridge.luaproject.limits import MAX_JSON_DEPTH, MAX_OBJECT_DEPTH

    save, inner = _nested_save(MAX_OBJECT_DEPTH)
    deep: object = "bottom"
    for _ in range(MAX_JSON_DEPTH - _json_depth(save)):
        deep = [deep]
    inner["Memo"] = deep
    assert _json_depth(save) == MAX_JSON_DEPTH
    inner["LuaScriptState"] = json.dumps(deep, separators=(",", ":"))
    unpack(write_save(tmp_path / "deep.json", save), tmp_path / "tree")
    assert json.loads(pack(tmp_path / "tree", "-")[1]) == save


@pytest.mark.parametrize("grow, message", [
    ("objects", "objects nested more than 100 deep (pack reads no deeper)"),
    ("json", "JSON nested more than 300 levels deep (pack reads no deeper)"),
])
def test_unpack_refuses_a_save_deeper_than_pack_reads_in_one_line(tmp_path, grow, message):
    save, inner = _nested_save(101 if grow == "objects" else 10)
    if grow == "json":
        deep: object = 1
        for _ in range(400):
            deep = [deep]
        inner["Memo"] = deep
    result = CliRunner().invoke(cli, ["unpack", str(write_save(tmp_path / "deep.json", save)), str(tmp_path / "t")])
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()


def test_a_script_state_deeper_than_pack_reads_is_kept_as_text(tmp_path):
    save = small_save()
    deep: object = 0
    for _ in range(500):
        deep = [deep]
    save["LuaScriptState"] = json.dumps(deep, separators=(",", ":"))
    unpack(write_save(tmp_path / "a.json", save), tmp_path / "tree")
    assert (tmp_path / "tree" / "state.txt").is_file() and not (tmp_path / "tree" / "state.json").exists()
    assert json.loads(pack(tmp_path / "tree", "-")[1]) == save


def test_pack_refuses_a_tree_whose_files_together_nest_deeper_than_unpack_reads(tmp_path):
    save, inner = _nested_save(90)
    unpack(write_save(tmp_path / "a.json", save), tmp_path / "tree")
    leaf = next(p for p in (tmp_path / "tree").rglob("object.json") if "b00090" in p.parent.name)
    deep: object = 1
    for _ in range(150):        # fine in one file, too deep in the save at depth 90
        deep = [deep]
    leaf.write_text(json.dumps({"Name": "Bag", "GUID": "b00090", "Memo": deep}), encoding="utf-8")
    with pytest.raises(InputError, match="nests JSON more than 300 levels deep"):
        pack(tmp_path / "tree", "-")


# ------------------------------------------------------------------------------------------------ duplicates


def test_a_deck_of_16000_cards_sharing_one_guid_gets_unique_stable_folder_names():
    from bridge.luaproject.savetree import folder_names

    cards = [{"Name": "Card", "Nickname": "Card", "GUID": "c0ffee"} for _ in range(16000)]
    names = folder_names(cards)
    assert names[:3] == ["Card.c0ffee", "Card.c0ffee~2", "Card.c0ffee~3"] and names[-1] == "Card.c0ffee~16000"
    assert len({name.casefold() for name in names}) == 16000
    assert folder_names(cards) == names


def test_a_name_numbered_like_another_cards_takes_the_next_free_number():
    from bridge.luaproject.savetree import folder_names

    cards = [{"Nickname": "Card", "GUID": "c0ffee"}, {"Nickname": "card", "GUID": "C0FFEE~3"},
             {"Nickname": "Card", "GUID": "c0ffee"}, {"Nickname": "Card", "GUID": "c0ffee"},
             {"Nickname": "Card", "GUID": "c0ffee~2"}]
    assert folder_names(cards) == ["Card.c0ffee", "card.C0FFEE~3", "Card.c0ffee~2", "Card.c0ffee~4",
                                   "Card.c0ffee~2~2"]


def test_a_deck_of_same_named_cards_unpacks_and_packs_back_in_order(tmp_path):
    cards = [{"Name": "Card", "Nickname": "Card", "GUID": "c0ffee", "CardID": 100 + i} for i in range(300)]
    save = {"ObjectStates": [{"Name": "Deck", "GUID": "d3c000", "ContainedObjects": cards}]}
    unpack(write_save(tmp_path / "a.json", save), tmp_path / "tree")
    order = json.loads((tmp_path / "tree" / "objects" / "Deck.d3c000" / "contents" / "order.json").read_bytes())
    assert order[0] == "Card.c0ffee" and order[299] == "Card.c0ffee~300" and len(set(order)) == 300
    assert json.loads(pack(tmp_path / "tree", "-")[1]) == save
