"""The JSON examples of docs/games/four_humours/ are what the engine really reads and answers: the snapshot
through the contract's reading, each request through the game's ``handle`` (the path of the bridge and of
``ttsmod adjudicate``), the ruling compared with ``end_round`` on the example snapshot; and the adjudicate example
file. Where an example writes ``"…"`` it leaves that part of the answer out (the table after an action, the legal
actions, further events); everything else is compared exactly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bridge.catalog import load
from bridge.rules.contract import prepare_snapshot
from tests.test_docs_json import DOCS, named_examples

ELIDED = "…"


@pytest.fixture(scope="module")
def four_humours():
    return load("four-humours"), named_examples(DOCS / "games" / "four_humours" / "protocol.md")


def as_shown(actual: Any, shown: Any) -> Any:
    """``actual`` with every part that ``shown`` writes as ``"…"`` written so too (a list ending in ``"…"``
    shows its first items and then that there are more)."""
    if shown == ELIDED:
        return ELIDED
    if isinstance(actual, dict) and isinstance(shown, dict):
        return {key: as_shown(value, shown.get(key)) for key, value in actual.items()}
    if isinstance(actual, list) and isinstance(shown, list):
        if shown and shown[-1] == ELIDED:
            head = len(shown) - 1
            return [as_shown(a, s) for a, s in zip(actual[:head], shown)] + ([ELIDED] if len(actual) > head else [])
        return [as_shown(a, s) for a, s in zip(actual, shown)] + actual[len(shown):]
    return actual


def with_snapshot(request: dict, snapshot: dict) -> dict:
    assert request["snapshot"] == "S"   # the doc's stand-in for the example snapshot
    return {**request, "snapshot": snapshot}


def test_the_example_snapshot_is_accepted_and_round_trips(four_humours):
    game, examples = four_humours
    snapshot = examples["snapshot"]
    state = game.engine.from_snapshot(game.data, prepare_snapshot(game.engine, game.data, snapshot))
    written = state.to_snapshot()
    assert {k: written[k] for k in snapshot} == snapshot
    assert len(written["players"]) == 2 and written["active_player"] == 1


def test_the_keys_the_example_leaves_out_get_the_documented_defaults(four_humours):
    game, examples = four_humours
    written = prepare_snapshot(game.engine, game.data, examples["snapshot"])
    # White (seat 0) started the round and passed in the one turn taken; Red (seat 1) is to play
    assert (written["round_starter"], written["passed_this_round"]) == (0, [0])
    assert written["resolved_parties"] == []
    assert written["pending"] == written["goal_queue"] == written["scene_discard"] == []


@pytest.mark.parametrize("kind", ["legal place", "legal refused", "legal pass"])
def test_each_legal_example_gets_the_documented_reply(four_humours, kind):
    game, examples = four_humours
    reply = game.engine.handle(game.data, "legal", with_snapshot(examples[f"{kind} request"], examples["snapshot"]))
    assert as_shown(reply, examples[f"{kind} reply"]) == examples[f"{kind} reply"]


def test_the_legal_pass_goes_on_through_the_rounds_resolution(four_humours):
    game, examples = four_humours
    reply = game.engine.handle(game.data, "legal", with_snapshot(examples["legal pass request"], examples["snapshot"]))
    assert [e["event"] for e in reply["events"]][:2] == ["passed", "round_ended"]
    assert reply["snapshot"]["round"] == 2


def test_the_apply_example_answers_the_legal_place_ruling(four_humours):
    game, examples = four_humours
    ruling = game.engine.handle(game.data, "apply", with_snapshot(examples["apply request"], examples["snapshot"]))
    place = game.engine.handle(game.data, "legal", with_snapshot(examples["legal place request"],
                                                                 examples["snapshot"]))
    assert {"legal": True, **ruling} == place


def test_the_setup_example_deals_the_game_of_its_seed(four_humours):
    game, examples = four_humours
    answer = game.engine.handle(game.data, "setup", examples["setup request"])
    dealt = game.engine.new_game(game.data, 2, mode="kingdom", seed=7)
    assert answer["snapshot"] == dealt.to_snapshot() and answer["events"] == []
    assert answer["next"]["player"] == dealt.to_move()


def test_the_score_example_is_the_engine_score(four_humours):
    game, examples = four_humours
    assert game.engine.handle(game.data, "score", {"snapshot": examples["snapshot"]}) == examples["score reply"]


def test_the_ruling_example_is_end_round_of_the_example_after_red_passes(four_humours):
    game, examples = four_humours
    after_pass = dict(examples["snapshot"], turn=2, consecutive_passes=2, last_actor=1, active_player=0)
    ruling = game.engine.handle(game.data, "end_round", {"snapshot": after_pass, "choices": [], "force": False})
    assert ruling == examples["ruling"]
    seats = range(len(after_pass["players"]))
    assert ruling["next_round"]["starter"] in seats
    assert all(e.get("owner", 0) in seats for e in ruling["events"])


def test_the_example_snapshot_alone_does_not_end_the_round(four_humours):
    game, examples = four_humours
    with pytest.raises(Exception, match="the round is not over"):
        game.engine.handle(game.data, "end_round", {"snapshot": examples["snapshot"]})


def test_the_adjudicate_example_file_is_a_snapshot_the_engine_reads():
    game = load("four-humours")
    snapshot = json.loads((DOCS / "games" / "four_humours" / "end-round.json").read_text(encoding="utf-8"))
    ruling = game.engine.handle(game.data, "end_round", {"snapshot": snapshot})
    assert ruling["complete"] is False and ruling["awaiting"]["owner"] == 1 and "harbour" in ruling["awaiting"]["cells"]
