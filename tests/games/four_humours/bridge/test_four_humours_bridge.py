"""Four Humours through the bridge: a real end of round, a float snapshot from TTS, a push of its bundled
scripts, and replaying a journal of its rulings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.games import default_registry
from bridge.journal import Journal
from bridge.session import Dispatcher


def _write_journal(path: Path, pairs: list[tuple[dict, dict]]) -> None:
    with Journal(path) as journal:
        for request, reply in pairs:
            journal.record("in", {"messageID": 4, "customMessage": request})
            journal.record("out", {"messageID": 2, "customMessage": reply})


@pytest.fixture(scope="module")
def four_humours_snapshot(repo_root):
    from bridge.catalog import load_game

    from bridge.rules.four_humours.state import new_game

    return new_game(load_game("four-humours"), 2, seed=1).to_snapshot()


def test_the_four_humours_engine_takes_a_float_snapshot_and_still_refuses_a_fraction(four_humours_snapshot):
    dispatcher = Dispatcher(default_registry())
    floats = json.loads(json.dumps(four_humours_snapshot), parse_int=float)
    request = {"ttsmod": 1.0, "id": 3.0, "type": "score", "game": "four-humours", "body": {"snapshot": floats}}
    assert dispatcher.reply(request)["ok"] is True
    floats["players"][0]["bag"]["choleric"] = 2.5
    refused = dispatcher.reply(request)
    assert refused["ok"] is False and refused["error"]["code"] == "bad_request"
    assert "players[0].bag.choleric: must be an integer" in refused["error"]["message"]


def test_real_four_humours_end_round_through_the_bridge(kit):
    from bridge.games import default_registry
    from bridge.rules.four_humours import FOUR_HUMOURS
    from bridge.rules.four_humours.state import new_game
    from bridge.catalog import load_game

    data = load_game("four-humours")
    body = {"snapshot": new_game(data, 3, seed=11).to_snapshot(), "choices": [], "force": True}
    expected = json.loads(json.dumps(FOUR_HUMOURS.handle(data, "end_round", body)))

    async def scenario():
        tts, bridge = await kit.start_pair(default_registry())
        try:
            await tts.send_custom({"ttsmod": 1, "id": 1, "type": "hello", "body": {}})
            hello = await tts.next_custom()
            await tts.send_custom({"ttsmod": 1, "id": 2, "type": "end_round", "game": "four-humours", "body": body})
            ruling = await tts.next_custom(timeout=30)
            await tts.send_custom({"ttsmod": 1, "id": 3, "type": "end_round", "game": "four-humours", "body": {}})
            refused = await tts.next_custom(timeout=30)
            return hello, ruling, refused
        finally:
            await kit.stop_pair(tts, bridge)

    hello, ruling, refused = kit.run(scenario())
    assert "four-humours" in hello["body"]["games"]  # beside every other built-in game
    assert ruling["ok"] is True and ruling["re"] == 2 and ruling["body"] == expected
    assert refused["ok"] is False and refused["error"]["code"] == "bad_request"


def test_push_of_the_real_game_sends_the_bundled_global_with_its_ui(kit):
    from bridge import protocol as p
    from tools.live import script_states_for

    states = script_states_for("four-humours")

    async def scenario():
        tts, bridge = await kit.start_pair()
        try:
            await bridge.session.push(states, timeout=10)
            return next(m for m in tts.received if isinstance(m, p.SaveAndPlay))
        finally:
            await kit.stop_pair(tts, bridge)

    pushed = kit.run(scenario())
    (global_state,) = [s for s in pushed.script_states if s.guid == "-1"]
    assert global_state.script.startswith("-- Bundled by luabundle")
    assert "bridgeStatus" in global_state.ui


def test_replay_command_exit_codes(tmp_path, monkeypatch):
    from bridge.rules.four_humours.state import new_game
    from tools.cli import cli
    from bridge.catalog import load_game
    from bridge.rules.four_humours import FOUR_HUMOURS

    data = load_game("four-humours")
    snapshot = new_game(data, 3, seed=4).to_snapshot()
    body = {"snapshot": snapshot, "choices": [], "force": True}
    request = {"ttsmod": 1, "id": 1, "type": "end_round", "game": "four-humours", "body": body}
    ruling = {"ttsmod": 1, "re": 1, "type": "end_round", "ok": True, "body": FOUR_HUMOURS.handle(data, "end_round", body)}
    good = tmp_path / "good.jsonl"
    _write_journal(good, [(request, json.loads(json.dumps(ruling)))])
    result = CliRunner().invoke(cli, ["replay", str(good)])
    assert result.exit_code == 0, result.output
    assert "1 ruling(s) replayed, 0 differ" in result.output

    differing = tmp_path / "differs.jsonl"
    wrong = json.loads(json.dumps(ruling))
    wrong["body"]["tampered"] = True
    _write_journal(differing, [(request, wrong)])
    result = CliRunner().invoke(cli, ["replay", str(differing)])
    assert result.exit_code == 1
    assert "end_round id 1 differs" in result.output

    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\x00\x01 not a journal\n{}\n")
    result = CliRunner().invoke(cli, ["replay", str(garbage)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
