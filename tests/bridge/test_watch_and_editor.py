"""Watch (debounced, de-duplicated, Lua → push, art → live update), in-place update Lua, the real game service,
and the commands' one-line errors."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from bridge.luaproject.editor import affected_objects, live_update_lua, states_from_bundle_scripts
from bridge.session import ExecResult
from tools.watch import BuildHooks, Change, Debouncer, GameUpdater, Watcher, classify


def test_debouncer_releases_one_batch_after_the_quiet_period():
    debouncer = Debouncer(quiet=1.0)
    for i in range(5):
        debouncer.add(Path("mod/a.lua"), now=10.0 + i * 0.1)
    debouncer.add(Path("mod/b.lua"), now=10.5)
    assert debouncer.take(now=11.2) is None  # 0.7 s since the last event
    assert debouncer.take(now=11.5) == frozenset({Path("mod/a.lua"), Path("mod/b.lua")})
    assert debouncer.take(now=20.0) is None


def test_classify_separates_scripts_from_assets_and_drops_noise(tmp_path):
    mod, assets = tmp_path / "mod", tmp_path / "assets" / "game"
    paths = [mod / "lib" / "x.lua", mod / "game" / "ui.xml", mod / "notes.txt", mod / ".x.lua.swp",
             assets / "scenes.toml", assets / "art" / "mill.png", assets / "cache" / "face.png", tmp_path / "other.lua"]
    change = classify(paths, mod, assets)
    assert change.scripts is True
    assert change.assets == frozenset({(assets / "scenes.toml").resolve(), (assets / "art" / "mill.png").resolve()})
    assert not classify([mod / "readme.md"], mod, assets)


class FakeBuild:
    def __init__(self, save=None, changed=()):
        self.bundles = 0
        self.builds = 0
        self.save = save or {"ObjectStates": []}
        self.changed = list(changed)

    def bundle_scripts(self, game):
        self.bundles += 1
        return {"Global": {"LuaScript": "-- global", "XmlUI": "<Panel/>"}, "abc123": {"name": "Board", "LuaScript": "--"}}

    def build(self, game, **options):
        self.builds += 1
        return SimpleNamespace(save=self.save, changed_sheets=self.changed, sheets=[])


def test_a_burst_of_edits_is_one_push(tmp_path):
    mod, assets = tmp_path / "mod", tmp_path / "assets" / "game"
    (mod / "game").mkdir(parents=True)
    assets.mkdir(parents=True)
    fake = FakeBuild()
    pushes: list[list] = []
    lock = threading.Lock()

    def push(states):
        with lock:
            pushes.append(states)

    updater = GameUpdater("game", BuildHooks(fake.bundle_scripts, fake.build), push, lambda lua: ExecResult(True))
    watcher = Watcher([assets, mod], lambda paths: updater.apply(classify(paths, mod, assets)), quiet=0.5).start()
    try:
        script = mod / "game" / "global.lua"
        for i in range(10):  # an editor saving: write, rewrite, a swap file
            script.write_text(f"-- edit {i}\n", encoding="utf-8")
            (mod / "game" / ".global.lua.swp").write_text("x", encoding="utf-8")
        (mod / "game" / "ui.xml").write_text("<Panel/>", encoding="utf-8")
        # Wait (bounded) until the watcher has seen the burst and acted on it.
        for _ in range(200):
            if watcher.batches and watcher.wait_idle(timeout=10):
                break
            threading.Event().wait(0.05)
        assert watcher.wait_idle(timeout=10)
    finally:
        watcher.stop()
    assert len(pushes) == 1
    assert fake.bundles == 1 and fake.builds == 0
    pushed = {s.guid: s for s in pushes[0]}
    assert pushed["-1"].script == "-- global" and pushed["-1"].ui == "<Panel/>"
    assert pushed["abc123"].ui == ""  # every pushed object carries a UI field


SAVE = {
    "ObjectStates": [
        {"GUID": "t00001", "Name": "Custom_Tile", "CustomImage": {"ImageURL": "file:///out/sheets/board.jpg?v=2",
                                                                  "ImageSecondaryURL": "file:///out/sheets/back.jpg"}},
        {"GUID": "d00001", "Name": "Deck", "CustomDeck": {"1": {"FaceURL": "file:///out/sheets/scenes-1.jpg",
                                                                "BackURL": "file:///out/sheets/back.jpg"}},
         "ContainedObjects": [{"GUID": "c00001", "Name": "Card", "Nickname": "Mill ]] fair"}]},
        {"GUID": "k00001", "Name": "Custom_Token", "CustomImage": {"ImageURL": "file:///out/sheets/potion.png"}},
    ]
}


def test_assets_change_updates_only_the_objects_showing_changed_sheets(tmp_path):
    fake = FakeBuild(save=SAVE, changed=[Path("out/sheets/board.jpg"), Path("out/sheets/scenes-1.jpg")])
    executed: list[str] = []
    reports: list[tuple[str, str]] = []

    def execute(lua):
        executed.append(lua)
        return ExecResult(True, {"updated": ["t00001", "d00001"], "missing": []})

    updater = GameUpdater("game", BuildHooks(fake.bundle_scripts, fake.build), lambda s: None, execute,
                          lambda kind, text: reports.append((kind, text)))
    updater.apply(Change(assets=frozenset({tmp_path / "art.png"})))
    assert fake.builds == 1 and fake.bundles == 0
    assert len(executed) == 1
    assert 'getObjectFromGUID("t00001")' in executed[0] and 'getObjectFromGUID("d00001")' in executed[0]
    assert "k00001" not in executed[0]
    assert ("info", "updated 2 object(s) in place") in reports


def test_live_update_lua_runs_and_replaces_objects_in_place():
    lupa = pytest.importorskip("lupa")
    lua = live_update_lua(affected_objects(SAVE, ["board.jpg", "scenes-1.jpg"]))
    runtime = lupa.LuaRuntime(unpack_returned_tuples=False)
    runtime.execute("""
        calls = {}
        local function object(guid)
            local o = {}
            o.getPosition = function() return {x = 1, y = 2, z = 3} end
            o.getRotation = function() return {x = 0, y = 180, z = 0} end
            o.getCustomObject = function() return {image = "old", thickness = 0.2} end
            o.setCustomObject = function(p) table.insert(calls, "set " .. guid .. " " .. p.image .. " " .. p.image_secondary .. " " .. p.thickness) end
            o.reload = function() table.insert(calls, "reload " .. guid) end
            o.destruct = function() table.insert(calls, "destruct " .. guid) end
            return o
        end
        function getObjectFromGUID(guid) if guid == "t00001" or guid == "d00001" then return object(guid) end end
        function spawnObjectJSON(p) spawned = p end
    """)
    result = runtime.execute(f"return (function() {lua}\nend)()")
    assert list(result.updated.values()) == ["t00001", "d00001"]
    calls = list(runtime.globals().calls.values())
    assert calls == ["set t00001 file:///out/sheets/board.jpg?v=2 file:///out/sheets/back.jpg 0.2", "reload t00001",
                     "destruct d00001"]
    spawned = runtime.globals().spawned
    assert json.loads(spawned.json) == SAVE["ObjectStates"][1]  # "]]" in a nickname survives the long string
    assert spawned.position.y == 2


def test_states_from_bundle_scripts_always_carry_script_and_ui():
    states = states_from_bundle_scripts({"Global": {"LuaScript": "x", "XmlUI": "<P/>"}, "a1": {"LuaScript": "y"}})
    assert [(s.guid, s.script, s.ui) for s in states] == [("-1", "x", "<P/>"), ("a1", "y", "")]


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_exec_without_tts_prints_one_line_and_exits_1():
    from tools.cli import cli

    result = CliRunner().invoke(cli, ["exec", "--port", "0", "--tts-port", str(_closed_port()), "return 1"])
    assert result.exit_code == 1
    assert "Tabletop Simulator is not listening" in result.output
    assert "Traceback" not in result.output


def test_bridge_on_a_public_address_is_refused_without_allow_remote():
    from tools.cli import cli

    result = CliRunner().invoke(cli, ["bridge", "--no-journal", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "--allow-remote" in result.output and "Traceback" not in result.output


def test_push_refuses_an_empty_global_from_a_folder(tmp_path):
    from tools.cli import cli

    (tmp_path / "Global.-1.lua").write_text("", encoding="utf-8")
    (tmp_path / "Global.-1.xml").write_text("<Panel/>", encoding="utf-8")
    result = CliRunner().invoke(cli, ["push", str(tmp_path), "--port", "0", "--tts-port", str(_closed_port())])
    assert result.exit_code == 1
    assert "empty Global" in result.output and "Traceback" not in result.output


def test_a_reply_is_retried_with_back_off_while_tts_refuses_connections(kit):
    import asyncio

    from bridge.session import Session, TtsNotRunning

    attempts: list[object] = []

    async def flaky_send(message):
        attempts.append(message)
        if len(attempts) < 3:
            raise TtsNotRunning("Tabletop Simulator is not listening on 127.0.0.1:39999.")

    async def scenario():
        session = Session(kit.toy_registry(), flaky_send)
        session.REPLY_BACKOFF = (0.001, 0.001, 0.001)
        from bridge.protocol import CustomMessage

        session.on_message(CustomMessage(custom_message=kit.request(1, "double", {"n": 3})))
        await session.drain()
        return session.stats

    stats = asyncio.run(scenario())
    assert len(attempts) == 3
    assert attempts[-1].custom_message["body"] == {"n": 6}
    assert stats["replies"] == 1 and stats["reply_failures"] == 0
