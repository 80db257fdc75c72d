"""A game that lives only in the tests goes through everything without an edit to shared code.

Pebble Race (tests/games/pebble_race/: data, engine, builder and Lua in one folder) is found by its folder
path: `build` writes a save that `check` passes, `simulate` plays it, `adjudicate` answers its requests, and a
real `ttsmod bridge --game FOLDER` answers the request its mod sends from the headless table. The conformance
test (tests/bridge/rules/test_conformance.py) runs it too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.livebridge import Bridge, free_port
from tools.headless import Table

GAME = Path(__file__).resolve().parent / "pebble_race"


def ttsmod(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True, input=stdin, timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory, repo_root):
    out = tmp_path_factory.mktemp("pebble-race")
    done = ttsmod("build", str(GAME), "--out", str(out), "--jobs", "1", cwd=repo_root)
    assert done.returncode == 0, done.stderr
    return out


def test_build_writes_a_save_that_checks_clean(built, repo_root):
    save = json.loads((built / "PebbleRace.json").read_text(encoding="utf-8"))
    names = [o["Name"] for o in save["ObjectStates"]]
    assert names.count("Deck") == 1 and names.count("HandTrigger") == 3 and "Custom_Tile" in names
    deck = next(o for o in save["ObjectStates"] if o["Name"] == "Deck")
    assert len(deck["ContainedObjects"]) == 10                     # every copy of every pebble card
    modules = re.findall(r'__bundle_register\("([^"]+)"', save["LuaScript"])
    assert sorted(modules) == ["__root", "generated.game", "generated.ttsmod", "lib.bridge"]   # its own Lua + ttsmod's lib
    checked = ttsmod("check", str(built / "PebbleRace.json"), cwd=repo_root)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_simulate_plays_it(repo_root):
    done = ttsmod("simulate", str(GAME), "--games", "30", "--players", "3", "--seed", "4", "--json", cwd=repo_root)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == 30 and report["mode"] == "standard" and len(report["win_rate_by_seat"]) == 3
    assert sum(report["win_rate_by_seat"]) >= 1.0 and report["mean_best_track"] > 0


def test_adjudicate_answers_its_requests(repo_root):
    from bridge.catalog import load

    game = load(GAME)
    snapshot = game.engine.new_game(game.data, 2, seed=3).to_snapshot()
    done = ttsmod("adjudicate", str(GAME), "-", "--type", "score", cwd=repo_root, stdin=json.dumps(snapshot))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"standings": [{"player": 0, "track": 0}, {"player": 1, "track": 0}],
                                       "leaders": [0, 1]}
    bad = ttsmod("adjudicate", str(GAME), "-", "--type", "castle", cwd=repo_root, stdin=json.dumps(snapshot))
    assert bad.returncode == 2 and "pebble-race answers setup, legal, apply, score, bot_move" in bad.stderr and "Traceback" not in bad.stderr


def test_a_real_bridge_answers_the_request_its_mod_sends(built, repo_root):
    port = free_port()
    save = json.loads((built / "PebbleRace.json").read_text(encoding="utf-8"))
    table = Table.load(save, seed=1, bridge_port=port, listen_port=0)
    bridge = Bridge(repo_root, port, table.endpoint.port, extra=("--game", str(GAME)))
    try:
        bridge.start()
        table.seat("White", "Red")
        table.boot()
        assert table.run_until(lambda: table.call_global("last_score") is not None, max_seconds=20)
        assert table.call_global("last_score") == {"standings": [{"player": 0, "track": 0},
                                                                 {"player": 1, "track": 0}],
                                                   "leaders": [0, 1]}
        (request,) = [m for m in table.sent_custom if m.get("type") == "score"]
        assert request["game"] == "pebble-race"
    finally:
        bridge.stop()
        table.close()
