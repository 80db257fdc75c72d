"""``ttsmod selftest`` against the headless table: every probe passes on the faithful table, a misconfigured
table is reported probe by probe (exit 1, no traceback), the table is left as it was, bad input exits 2.

The selftest runs as a real ``ttsmod selftest`` subprocess; the test thread drives the table's clock meanwhile.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess

import pytest

from tests.games.four_humours.e2e.harness import Game
from tests.sharedbuild import shared_save
from tests.livebridge import free_port
from bridge.catalog import load_game
from tests.selftestrun import Runner, table_state, ttsmod_args
from tools.headless import Table
from tools.headless.fidelity import Fidelity
from tools.selftest import (
    DIFFERS, PASS, PROBE_NAMES, ECHO_TEXT, judge_merge, judge_messages, judge_reload, judge_smooth, judge_zone,
)

pytestmark = pytest.mark.e2e   # a built save, a bridge process and a table: left out by -m "not e2e"


@pytest.fixture(scope="module")
def save(tmp_path_factory, repo_root):
    return shared_save(tmp_path_factory, repo_root, "four-humours", "--mode", "kingdom")


def test_every_probe_passes_on_the_faithful_table_and_leaves_it_as_it_was(save, repo_root, tmp_path):
    # a game in placement (Setup pressed through a real bridge), so the zone probe moves a dealt scene card;
    # then the bridge stops and the selftest takes its port, as a host would do, and the host saves the game
    # (the reload probe's Save & Play reloads the game as last saved, discarding the deal otherwise: issue #24
    # row 4, Fidelity.save_and_play_discards)
    game = Game(save, load_game("four-humours"), repo_root, ["White", "Red"], seed=5)
    try:
        game.start()
        game.bridge.stop()
        game.table.save()
        assert game.table.fidelity == Fidelity.faithful()
        before = table_state(game.table)
        report = tmp_path / "out" / "selftest.json"
        runner = Runner(game.table, game.bridge.port, repo_root)
        done = runner.run("--report", str(report))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        table_lines = [line for line in done.stdout.splitlines() if line.split(" ", 1)[0] in PROBE_NAMES]
        assert [line.split()[0] for line in table_lines] == list(PROBE_NAMES)
        assert all(line.rstrip().endswith(PASS) for line in table_lines), done.stdout
        assert "every probe passed" in done.stderr
        written = json.loads(report.read_text(encoding="utf-8"))
        assert written["passed"] is True and written["game"] == "four-humours" and written["mod_version"]
        by_name = {p["probe"]: p for p in written["probes"]}
        assert list(by_name) == list(PROBE_NAMES) and {p["verdict"] for p in by_name.values()} == {PASS}
        assert "saw a card move" in by_name["zone"]["tts_did"]     # a dealt scene card, not the marker
        # the report has the shape docs/selftest.md shows
        documented = json.loads(re.findall(r"```json\n(.*?)```", (repo_root / "docs" / "selftest.md").read_text(
            encoding="utf-8"), re.S)[0])
        assert set(written) == set(documented)
        assert all(set(p) == set(documented["probes"][0]) for p in written["probes"])
        assert set(by_name["hand"]["facts"][0]) == set(documented["probes"][0]["facts"][0])
        # the probes put everything back: potions in their bags, the scene card on its spot, the Lua hook gone
        assert table_state(game.table) == before
        assert game.table.global_env["TTSMOD_SELFTEST"] is None
    finally:
        game.close()


def test_a_misconfigured_table_is_reported_probe_by_probe(save, repo_root, tmp_path):
    # integers where TTS sends floats, zones that update when read, smooth moves that never merge and a card at
    # rest the moment its move ends: three probes must say so
    fidelity = dataclasses.replace(Fidelity.faithful(), numbers_as_floats=False, zones_update_per_frame=False,
                                   smooth_moves_merge=False, resting_needs_rest=False)
    port = free_port()
    with Table.load(save, seed=2, bridge_port=port, listen_port=0, fidelity=fidelity) as table:
        table.seat("White", "Red")
        table.boot()
        before, handler = table_state(table), table.global_env["onExternalMessage"]   # str: its address
        report = tmp_path / "selftest.json"
        done = Runner(table, port, repo_root).run("--report", str(report), "--skip", "reload")
        # as it was: objects back in place, the mod's own message handler back, the selftest's state gone
        assert table_state(table) == before
        assert str(table.global_env["onExternalMessage"]) == str(handler) and table.global_env["TTSMOD_SELFTEST"] is None
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    rows = {line.split()[0]: line.rstrip() for line in done.stdout.splitlines()
            if line.split(" ", 1)[0] in PROBE_NAMES}
    assert rows["messages"].endswith(DIFFERS) and rows["zone"].endswith(DIFFERS)
    assert all(rows[name].endswith(PASS) for name in ("hand", "snap", "smooth")), done.stdout
    assert rows["reload"].endswith("skipped")
    assert ("TTS→bridge: the whole number 2 in a custom message: TTS did 2 (an integer); "
            "the mod assumes 2.0 (a float)") in done.stdout
    assert "the mod assumes the old contents" in done.stdout
    assert ("a card moved with setPositionSmooth onto a deck, once it landed: TTS did lies on the deck, loose; "
            "the mod assumes joined the deck") in done.stdout
    written = json.loads(report.read_text(encoding="utf-8"))
    assert written["passed"] is False
    assert {p["probe"]: p["verdict"] for p in written["probes"]} == {
        "messages": DIFFERS, "hand": PASS, "zone": DIFFERS, "snap": PASS, "smooth": PASS, "merge": DIFFERS,
        "reload": "skipped"}
    merge = next(p for p in written["probes"] if p["probe"] == "merge")
    assert {f["label"]: f["observed"] for f in merge["facts"] if f["ok"] is False} == {
        "a card moved with setPositionSmooth onto a deck, once it landed": "lies on the deck, loose",
        "a card moved with setPositionSmooth onto a single card, once it landed": "lies on it, loose",
        "a card moved with setPositionSmooth onto a locked card, once it landed": "lies on it, loose",
        "resting in the frame isSmoothMoving() became false (the card still 0.5 above its target)": "true"}


def test_a_save_and_play_that_keeps_the_table_is_reported(save, repo_root, tmp_path):
    # TTS discards what moved since the last save: a table that keeps it must be reported, and the marker the
    # probe lifted is put back
    fidelity = dataclasses.replace(Fidelity.faithful(), save_and_play_discards=False)
    port = free_port()
    with Table.load(save, seed=2, bridge_port=port, listen_port=0, fidelity=fidelity) as table:
        table.seat("White", "Red")
        table.boot()
        before = table_state(table)
        report = tmp_path / "selftest.json"
        skips = [arg for name in PROBE_NAMES if name != "reload" for arg in ("--skip", name)]
        done = Runner(table, port, repo_root).run("--report", str(report), *skips)
        table.run_until(lambda: table.settled, max_seconds=5)
        assert table_state(table) == before
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    (reload,) = [p for p in json.loads(report.read_text(encoding="utf-8"))["probes"] if p["verdict"] != "skipped"]
    assert reload["verdict"] == DIFFERS
    assert [(f["observed"], f["ok"]) for f in reload["facts"]] == [
        ("all kept", True), ("where it was moved (the move kept)", False)]


def test_no_tts_listening_is_one_line_and_no_report(repo_root, tmp_path):
    report = tmp_path / "selftest.json"
    done = subprocess.run(ttsmod_args("selftest", "--port", "0", "--tts-port", str(free_port()), "--timeout", "2",
                                      "--report", str(report)), cwd=repo_root, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith("error: Tabletop Simulator is not listening") and "Traceback" not in done.stderr
    assert not report.exists()


@pytest.mark.parametrize("args, message", [
    (["--skip", "teleport"], "error: there is no probe 'teleport' (probes: messages, hand, zone, snap, smooth, merge, "
                             "reload)"),
    (["--report", "."], "error: --report . is a folder; give a file name"),
])
def test_bad_arguments_exit_2_with_one_line(repo_root, args, message):
    done = subprocess.run(ttsmod_args("selftest", "--port", "0", "--tts-port", str(free_port()), *args),
                          cwd=repo_root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == message


# ------------------------------------------------------------------ judging observations (no game needed)


def test_messages_with_integers_and_a_null_that_arrives_differ_and_name_what_differed():
    observation = {
        "from_lua": {"whole": 2, "half": 2.5, "empty": {}, "text": ECHO_TEXT},
        "exec_return": 2,
        "to_lua": {"arrived": True, "whole_type": "number", "whole_equals": True, "whole_text": "2",
                   "negative_equals": True, "half_equals": True, "null_type": "userdata",
                   "nested_null_type": "nil", "nested_kept": True, "list_first": True, "list_third": True,
                   "empty_object_type": "table", "empty_list_type": "table", "text_same": True},
    }
    did, facts = judge_messages(observation)
    wrong = {f.label: f.observed for f in facts if f.ok is False}
    assert wrong == {
        "TTS→bridge: the whole number 2 in a custom message": "2 (an integer)",
        "TTS→bridge: an empty Lua table": "{}",
        "TTS→bridge: `return 2` run through Execute Lua": "2 (an integer)",
        "bridge→TTS: a null value": "present as a userdata",
    }
    assert did == "sent whole numbers as integers; a null reached Lua as userdata"


def test_a_zone_updated_on_read_and_an_instant_move_differ():
    _, facts = judge_zone({"kind": "scene card", "start_inside": True, "there": [False] * 11,
                           "back": [True] * 11, "restored": True})
    assert [f.observed for f in facts if f.ok is False] == ["the new contents", "the new contents"]
    _, facts = judge_smooth({"moving_at_once": False, "frames": 1, "seconds": 0.0, "still_moving": False,
                             "target": [0, 1, 4], "first_frame": [0, 1, 4], "final": [0, 1, 4], "returned": True})
    assert {f.label for f in facts if f.ok is False} == {
        "isSmoothMoving() right after setPositionSmooth", "a position read one frame into the move",
        "the move ended"}


def test_a_marker_elsewhere_after_a_reload_is_recorded_not_judged():
    # the host moved it after the last save: the probe cannot tell keep from discard
    _, facts = judge_reload({"before": ["a1"], "after": ["a1"],
                             "marker": {"home": [0, 1, 0], "moved": [0, 2.5, 0], "after": [3, 1, 0]}})
    assert facts[1].ok is None and facts[1].observed.startswith("elsewhere (x 3.00, y 1.00, z 0.00)")


def test_a_card_that_stays_loose_on_a_deck_and_a_deck_left_out_of_order_differ():
    loose = {"merged": False, "destroyed": False, "frames_to_rest": 400, "resting_when_move_ended": False}
    did, facts = judge_merge({"onto_deck": loose, "onto_card": loose, "onto_locked_card": loose,
                              "deck": "Scenes", "restored": False})
    assert did == ("a card moved onto a deck: stayed loose; onto a single card: stayed loose; "
                   "onto a locked card: stayed loose")
    assert [f.label for f in facts if f.ok is False] == [
        "a card moved with setPositionSmooth onto a deck, once it landed",
        "a card moved with setPositionSmooth onto a single card, once it landed",
        "a card moved with setPositionSmooth onto a locked card, once it landed",
        "resting once the card has landed", "the deck (Scenes) holds its cards in their old order again"]


def test_a_guid_lost_in_a_reload_is_named():
    did, facts = judge_reload({"before": ["a1", "b2", "c3"], "after": ["a1", "b2", "d4"]})
    assert facts[0].ok is False and facts[0].observed == "1 gone (c3), 1 new (d4)"
    assert did == "kept 2 of 3 GUIDs across a reload"
