"""The named JSON examples of docs/games/kill_the_unicorns/protocol.md, run through the Kill the Unicorns engine:
the setup request deals exactly the snapshot shown, every action example is an engine action that round-trips
and is legal where the doc says, the hunt and event examples are what the engine produces, and the score reply
has every field the engine writes."""

from __future__ import annotations

from bridge.catalog import load_game
from bridge.rules.kill_the_unicorns.actions import Action, Buy
from bridge.rules.kill_the_unicorns import KILL_THE_UNICORNS
from bridge.rules.kill_the_unicorns.state import GameState
from tests.mod.luasrc import REPO_ROOT
from tests.test_docs_json import named_examples

DOC = REPO_ROOT / "docs" / "games" / "kill_the_unicorns" / "protocol.md"


def _data():
    return load_game("kill-the-unicorns")


def test_the_setup_request_deals_the_snapshot_shown():
    examples = named_examples(DOC)
    data = _data()
    reply = KILL_THE_UNICORNS.handle(data, "setup", examples["setup request"])
    assert reply["snapshot"] == examples["setup snapshot"]
    assert GameState.from_snapshot(data, examples["setup snapshot"]).to_snapshot() == reply["snapshot"]
    assert reply["next"]["decision"] == "place_trick"


def test_every_action_example_is_an_engine_action_that_round_trips():
    examples = named_examples(DOC)
    actions = {name: body for name, body in examples.items() if name.endswith(" action")}
    assert set(actions) == {"place-trick action", "open action", "join action", "pass action", "power action",
                            "decline action", "choose-trick action", "buy action", "buy pate action",
                            "skip action"}
    for name, body in actions.items():
        action = Action.from_json(body)
        assert action.to_json() == body, name
        assert Action.from_text(str(action)) == action, name
    # Lua writes false for "no unicorn"
    assert Action.from_json({**actions["buy action"], "unicorn": False}).unicorn is None


def test_the_hunt_and_event_examples_are_what_the_engine_says():
    examples = named_examples(DOC)
    data = _data()
    state = GameState.from_snapshot(data, examples["setup snapshot"])
    while state.pending_decision == "place_trick":
        state.apply(state.legal_actions()[0])
    state.apply(Action.from_json({"action": "open", "player": 0, "cards": ["princess-hunt-4", "princess-hunt-8"]}))
    events = state.apply(Action.from_json({"action": "join", "player": 1,
                                           "cards": ["knight-hunt-2", "knight-hunt-7"]}))
    events += state.apply(Action.from_json({"action": "pass", "player": 2}))
    assert [e.to_json() for e in events] == examples["hunt events"]
    assert state.to_snapshot()["hunt"] == examples["hunt after the reveal"]


def test_the_pate_example_is_a_legal_purchase_and_the_refusal_is_the_engines():
    examples = named_examples(DOC)
    data = _data()
    snapshot = examples["setup snapshot"]
    state = GameState.from_snapshot(data, snapshot)
    state.apply(Action.from_json(examples["place-trick action"]))
    refused = KILL_THE_UNICORNS.handle(data, "legal", {"snapshot": state.to_snapshot(), "action": {
        "action": "place-trick", "player": 1, "card": "knight-trick-2", "unicorn": 2, "slot": "above"}})
    assert refused == examples["refusal"]
    # Pâté on the market: the princess pays 1 + 3 with her start unicorn (1 star) to turn in.
    market = dict(snapshot, phase="market", hunt=None, line=[None] * 4, pending={"player": 0, "decision": "market"})
    state = GameState.from_snapshot(data, market)
    pate = Action.from_json(examples["buy pate action"])
    assert isinstance(pate, Buy)
    kinds = [e.to_json()["event"] for e in state.apply(pate)]
    assert kinds[:2] == ["bought", "unicorn_turned_in"]
    assert state.to_snapshot()["players"][0]["catch"] == [] and "start-6" in state.to_snapshot()["box"]


def test_the_score_reply_example_has_every_field_the_engine_writes():
    examples = named_examples(DOC)
    reply = KILL_THE_UNICORNS.handle(_data(), "score", {"snapshot": examples["setup snapshot"]})
    assert set(reply) == set(examples["score reply"])
    assert set(reply["standings"][0]) == set(examples["score reply"]["standings"][0])
