"""The JSON examples of docs/games/four-humours/ are what the engine really reads and answers: the snapshot
through ``from_snapshot``, each request through the game's ``handle``, the ruling compared with
``resolve_round`` (the ``end_round`` request) on the example snapshot; and the adjudicate example file."""

from __future__ import annotations

import json

import pytest

from bridge.catalog import load
from tests.test_docs_json import DOCS, named_examples


@pytest.fixture(scope="module")
def four_humours():
    return load("four-humours"), named_examples(DOCS / "games" / "four-humours" / "protocol.md")


def test_the_example_snapshot_is_accepted_and_round_trips(four_humours):
    game, examples = four_humours
    snapshot = examples["snapshot"]
    state = game.engine.from_snapshot(game.data, snapshot)
    written = state.to_snapshot()
    assert {k: written[k] for k in snapshot} == snapshot
    assert len(written["players"]) == 2 and written["active_player"] == 1


@pytest.mark.parametrize("kind", ["legal place", "legal refused", "legal pass"])
def test_each_legal_example_gets_the_documented_reply(four_humours, kind):
    game, examples = four_humours
    request = dict(examples[f"{kind} request"])
    assert request["snapshot"] == "S"   # the doc's stand-in for the example snapshot
    request["snapshot"] = examples["snapshot"]
    assert game.engine.handle(game.data, "legal", request) == examples[f"{kind} reply"]


def test_the_score_example_is_the_engine_score(four_humours):
    game, examples = four_humours
    assert game.engine.handle(game.data, "score", {"snapshot": examples["snapshot"]}) == examples["score reply"]


def test_the_ruling_example_is_resolve_round_of_the_example_after_red_passes(four_humours):
    game, examples = four_humours
    after_pass = dict(examples["snapshot"], consecutive_passes=2, last_actor=1, active_player=0)
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
    snapshot = json.loads((DOCS / "examples" / "four-humours-end-round.json").read_text(encoding="utf-8"))
    ruling = game.engine.handle(game.data, "end_round", {"snapshot": snapshot})
    assert ruling["complete"] is False and ruling["awaiting"]["owner"] == 1 and "harbour" in ruling["awaiting"]["cells"]
