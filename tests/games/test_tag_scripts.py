"""``[scripts]`` in a game's ``game.toml``: the build gives every object carrying a tag (at any depth: in decks
too) the tag's Lua file, bundled with the modules it requires. Tried on a copy of the toy game Pebble Race."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GAME = Path(__file__).resolve().parent / "pebble_race"


def game_copy(tmp_path: Path, scripts: str) -> Path:
    game = tmp_path / "pebble_race"
    shutil.copytree(GAME, game, ignore=shutil.ignore_patterns("__pycache__"))
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[scripts]\n" + scripts, encoding="utf-8")
    mod = game / "mod" / "pebble_race"
    (mod / "objects").mkdir()
    (mod / "objects" / "track.lua").write_text(
        'local bridge = require("lib.bridge")\nfunction onLoad() self.setDescription("track") end\n', encoding="utf-8")
    (mod / "objects" / "pebble.lua").write_text("function onPickUp(colour) print(colour) end\n", encoding="utf-8")
    return game


def build(game: Path, out: Path, repo_root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", "build", str(game), "--out",
                           str(out), "--jobs", "1", "--no-cache"], cwd=repo_root, capture_output=True, text=True,
                          timeout=300)


def walk(objects):
    for obj in objects:
        yield obj
        yield from walk(obj.get("ContainedObjects") or ())


def test_every_object_with_a_tag_gets_its_script_bundled(tmp_path, repo_root):
    game = game_copy(tmp_path, 'pr-track = "objects/track.lua"\npr-pebble = "objects/pebble.lua"\n')
    done = build(game, tmp_path / "out", repo_root)
    assert done.returncode == 0, done.stderr
    save = json.loads((tmp_path / "out" / "PebbleRace.json").read_text(encoding="utf-8"))
    track = next(o for o in save["ObjectStates"] if "pr-track" in (o.get("Tags") or ()))
    assert sorted(re.findall(r'__bundle_register\("([^"]+)"', track["LuaScript"])) == ["__root", "lib.bridge"]
    assert 'self.setDescription("track")' in track["LuaScript"]
    cards = [o for o in walk(save["ObjectStates"]) if o["Name"] == "Card"]
    assert len(cards) == 10 and all(o["LuaScript"] == "function onPickUp(colour) print(colour) end\n" for o in cards)
    untagged = [o for o in walk(save["ObjectStates"])
                if not {"pr-track", "pr-pebble"} & set(o.get("Tags") or ())]
    assert untagged and not any(o.get("LuaScript") for o in untagged)
    checked = subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", "check",
                              str(tmp_path / "out" / "PebbleRace.json")], cwd=repo_root, capture_output=True,
                             text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("scripts, message", [
    ('pr-track = "objects/missing.lua"\n', "objects/missing.lua: root script not found"),
    ('pr-track = "../../escape.lua"\n', 'pr-track = "../../escape.lua" is not a plain relative path'),
    ("pr-track = 3\n", "pr-track must name a Lua file"),
    ('pr-pebble = "objects/pebble.lua"\nttsmod = "objects/track.lua"\n', "has the tags"),
])
def test_a_bad_scripts_table_is_one_line_exit_2_and_nothing_written(tmp_path, repo_root, scripts, message):
    game = game_copy(tmp_path, scripts)
    done = build(game, tmp_path / "out", repo_root)
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "PebbleRace.json").exists()


def test_push_game_sends_each_tag_script_to_the_tagged_objects_on_the_live_table(tmp_path, repo_root):
    """``ttsmod push GAME`` looks the tagged objects up on the table (their GUIDs are only known there) and sends
    each its tag's script, keeping its UI; Global is sent too. Against the headless table, which runs the Lua."""
    import time

    from tests.livebridge import free_port
    from tools.headless import Table

    game = game_copy(tmp_path, 'pr-track = "objects/track.lua"\npr-pebble = "objects/pebble.lua"\n')
    track_lua = game / "mod" / "pebble_race" / "objects" / "track.lua"
    track_lua.write_text('function onLoad() self.setName("track as built") end\n', encoding="utf-8")
    assert build(game, tmp_path / "out", repo_root).returncode == 0
    save = json.loads((tmp_path / "out" / "PebbleRace.json").read_text(encoding="utf-8"))
    track = next(o for o in save["ObjectStates"] if "pr-track" in (o.get("Tags") or ()))
    track["XmlUI"] = '<Text id="lap">lap 1</Text>'
    # the modder edits the track's script after building
    track_lua.write_text('function onLoad() self.setName("edited") end\n', encoding="utf-8")
    (track_lua.parent / "pebble.lua").write_text('function onPickUp(c) print("picked by " .. c) end\n',
                                                  encoding="utf-8")
    table = Table.load(save, seed=1, bridge_port=free_port(), listen_port=0)
    try:
        table.boot()
        table.step(5)
        tagged = [o.guid for o in table.objects if {"pr-track", "pr-pebble"} & set(o.tags)]
        assert track["GUID"] in tagged and len(tagged) > 1   # the board and the pebbles dealt out of the deck
        proc = subprocess.Popen([sys.executable, "-c", "from tools.cli import main; main()", "push", str(game),
                                 "--port", str(table.endpoint.editor_port), "--tts-port", str(table.endpoint.port),
                                 "--timeout", "10"], cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            table.run_until(lambda: proc.poll() is not None, max_seconds=1, real_pause=0.003, reply_wait=0.2)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, out + err
        assert f"pushed {1 + len(tagged)} object(s)" in out and "Traceback" not in err
        live = table.object(track["GUID"])
        assert table.object(track["GUID"]) is not None and live.script == \
            'function onLoad() self.setName("edited") end\n'
        assert live.nickname == "edited"                      # TTS reloaded: the new script ran
        assert live.data["XmlUI"] == '<Text id="lap">lap 1</Text>'   # its UI kept
        assert table.save_data["LuaScript"] == save["LuaScript"]     # Global as built
        pebbles = [table.object(guid) for guid in tagged if guid != track["GUID"]]
        assert all(p.script == 'function onPickUp(c) print("picked by " .. c) end\n' for p in pebbles)
        # cards still in the deck keep the built script: TTS knows no scripts of objects in containers
        deck = next(o for o in table.objects if o.contents)
        assert all(c.data.get("LuaScript") == "function onPickUp(colour) print(colour) end\n" for c in deck.contents)
    finally:
        table.close()
