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
