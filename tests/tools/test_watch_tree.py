"""``ttsmod watch DIR`` of a folder ``ttsmod unpack`` wrote: each edit packs the tree (``DIR.json``) and pushes
it, or, when only objects' scripts or UI changed, updates just those objects in place without reloading."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bridge.luaproject.savetree import unpack
from bridge.protocol import ExecuteLua, SaveAndPlay, ScriptState
from tools.live import UpdateResult
from tools.watch import TreeUpdater, is_tree, tree_paths

SAVE = {
    "SaveName": "Watched", "LuaScript": "print('global')", "XmlUI": "<Panel/>",
    "ObjectStates": [
        {"Name": "Custom_Tile", "Nickname": "Board", "GUID": "a1b2c3", "LuaScript": "print('board')",
         "Transform": {"posX": 0, "posY": 1, "posZ": 0}},
        {"Name": "Die_6", "Nickname": "Die", "GUID": "d1e000", "LuaScript": "print('die')", "XmlUI": "<Text>6</Text>"},
    ],
}


def make_tree(tmp_path: Path) -> Path:
    (tmp_path / "watched.json").write_text(json.dumps(SAVE), encoding="utf-8")
    unpack(tmp_path / "watched.json", tmp_path / "my-table")
    return tmp_path / "my-table"


class Recorder:
    def __init__(self) -> None:
        self.pushed: list[list[ScriptState]] = []
        self.updated: list[list[ScriptState]] = []
        self.reports: list[tuple[str, str]] = []

    def push(self, states):
        self.pushed.append(states)

    def update(self, states):
        self.updated.append(states)
        return UpdateResult(scripts=tuple(s.guid for s in states))

    def report(self, kind, text):
        self.reports.append((kind, text))


def board(tree: Path) -> Path:
    return tree / "objects" / "Board.a1b2c3"


def test_a_tree_is_told_from_a_game_and_its_hidden_and_swap_files_are_not_changes(tmp_path):
    tree = make_tree(tmp_path)
    assert is_tree(tree) and not is_tree(tmp_path) and not is_tree(tree / "save.json")
    paths = [board(tree) / "script.lua", tree / ".ttsmod-unpack" / "new" / "save.json", tree / ".git" / "index",
             board(tree) / "script.lua.swp", tmp_path / "watched.json"]
    assert tree_paths(paths, tree) == {(board(tree) / "script.lua").resolve()}


def test_an_edit_of_one_objects_script_updates_that_object_alone_and_packs_the_tree(tmp_path):
    tree = make_tree(tmp_path)
    seen = Recorder()
    updater = TreeUpdater(tree, seen.push, seen.update, seen.report)
    (board(tree) / "script.lua").write_text("print('board v2')", encoding="utf-8")
    updater.apply([board(tree) / "script.lua"])
    assert seen.pushed == [] and [[s.guid for s in batch] for batch in seen.updated] == [["a1b2c3"]]
    assert seen.updated[0][0].script == "print('board v2')"
    packed = json.loads((tmp_path / "my-table.json").read_text(encoding="utf-8"))
    assert packed["ObjectStates"][0]["LuaScript"] == "print('board v2')"
    assert seen.reports[-1][1].startswith("packed my-table.json; updated in place")


def test_globals_script_an_object_added_or_a_broken_start_push_everything(tmp_path):
    tree = make_tree(tmp_path)
    seen = Recorder()
    updater = TreeUpdater(tree, seen.push, seen.update, seen.report)
    (tree / "script.lua").write_text("print('global v2')", encoding="utf-8")
    updater.apply([tree / "script.lua"])
    assert len(seen.pushed) == 1 and {s.guid for s in seen.pushed[0]} == {"-1", "a1b2c3", "d1e000"}
    assert all(s.script is not None and s.ui is not None for s in seen.pushed[0])
    (tree / "ui.xml").write_text("<Panel id='v2'/>", encoding="utf-8")   # Global's UI alone: in place
    updater.apply([tree / "ui.xml"])
    assert [[s.guid for s in b] for b in seen.updated] == [["-1"]] and len(seen.pushed) == 1
    obj = json.loads((board(tree) / "object.json").read_text(encoding="utf-8"))
    obj["Transform"]["posX"] = 5
    (board(tree) / "object.json").write_text(json.dumps(obj), encoding="utf-8")
    updater.apply([board(tree) / "object.json"])
    assert "no script or UI changed" in seen.reports[-1][1] and len(seen.pushed) == 1
    assert json.loads((tmp_path / "my-table.json").read_text())["ObjectStates"][0]["Transform"]["posX"] == 5


def test_a_broken_edit_is_one_error_and_sends_nothing(tmp_path):
    from bridge.errors import InputError

    tree = make_tree(tmp_path)
    seen = Recorder()
    updater = TreeUpdater(tree, seen.push, seen.update, seen.report)
    (board(tree) / "object.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="object.json: not valid JSON"):
        updater.apply([board(tree) / "object.json"])
    assert seen.pushed == [] and seen.updated == []


def test_watch_of_a_tree_against_the_fake_tts_updates_in_place_then_pushes(tmp_path):
    """The whole path: serve() watching the tree, a fake TTS running the update Lua in real Lua."""
    from bridge.faketts import FakeTTS
    from bridge.server import Bridge
    from tests.livebridge import free_port
    from tests.tools.livetable import LiveTable
    from tools.live import serve

    tree = make_tree(tmp_path)
    table = LiveTable(["a1b2c3", "d1e000"])
    states = [ScriptState("Global", "-1", "print('global')", "<Panel/>"),
              ScriptState("Board", "a1b2c3", "print('board')", ""),
              ScriptState("Die", "d1e000", "print('die')", "<Text>6</Text>")]
    reports: list[tuple[str, str]] = []

    async def until(condition, what: str) -> None:
        async with asyncio.timeout(20):
            while not condition():
                await asyncio.sleep(0.05)

    async def scenario() -> None:
        port = free_port()
        async with FakeTTS(port, scripts=states, lua=table) as tts:
            bridge = Bridge(port=port, tts_port=tts.port)
            stop = asyncio.Event()
            started = asyncio.Event()
            task = asyncio.ensure_future(serve(bridge, report=lambda kind, text: reports.append((kind, text)),
                                               watch_game=str(tree), quiet=0.1, stop=stop,
                                               ready=lambda b: started.set()))
            await asyncio.wait_for(started.wait(), 20)
            await asyncio.sleep(0.3)   # the file-system watch is set
            (board(tree) / "ui.xml").write_text("<Text>board</Text>", encoding="utf-8")
            await until(lambda: any(isinstance(m, ExecuteLua) for m in tts.received), "the in-place update")
            await until(lambda: any("updated in place" in text for _, text in reports), "its report")
            assert tts.reloads == 0
            assert table.record("a1b2c3") == {"ui": "<Text>board</Text>", "reloads": 0}
            (tree / "script.lua").write_text("print('global v2')", encoding="utf-8")
            await until(lambda: tts.reloads == 1, "the push")
            pushed = next(m for m in tts.received if isinstance(m, SaveAndPlay))
            assert {s.guid: s.script for s in pushed.script_states}["-1"] == "print('global v2')"
            stop.set()
            await asyncio.wait_for(task, 20)

    asyncio.run(scenario())
    assert not [r for r in reports if r[0] == "error"], reports
