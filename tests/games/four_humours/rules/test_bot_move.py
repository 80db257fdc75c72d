"""The ``bot_move`` request of Four Humours (bridge/rules/four_humours/game.py): the table as the mod sends it
(plus the choices so far while a ruling waits for a cell), a level and a seed in; the seat to move, its colour and
the action its bot takes out — an action ``legal`` (or ``end_round``, for a choice) then accepts. The example of
docs/games/four_humours/protocol.md's bot section is answered here too."""

from __future__ import annotations

import json

import pytest

from bridge.catalog import load_game
from bridge.rules.errors import IllegalAction, InvalidAction
from bridge.rules.four_humours.actions import Action
from bridge.rules.four_humours.game import FOUR_HUMOURS
from bridge.rules.four_humours.state import GameState, new_game
from tests.test_docs_json import named_examples
from tests.luajson import as_lua
from tests.shared import REPO_ROOT as REPO

DOC = REPO / "docs" / "games" / "four_humours" / "protocol.md"
DECISION = REPO / "docs" / "games" / "four_humours" / "end-round.json"


@pytest.fixture(scope="module")
def data():
    return load_game("four-humours")


def table(state: GameState) -> dict:
    """The snapshot as the mod writes it (Lua's false for every JSON null, numbers as floats)."""
    return as_lua(state.to_snapshot())


def ask(data, request_type: str, body: dict) -> dict:
    return FOUR_HUMOURS.handle(data, request_type, body)


@pytest.mark.parametrize("level", ["random", "easy"])
def test_the_bots_move_is_for_the_active_seat_and_legal_accepts_it(data, level):
    snapshot = table(new_game(data, 3, seed=5, colours=("White", "Red", "Green")))
    reply = ask(data, "bot_move", {"snapshot": snapshot, "level": level, "seed": 2})
    assert set(reply) == {"player", "level", "action", "seat"}
    assert reply["player"] == snapshot["active_player"] and reply["level"] == level
    assert reply["seat"] == snapshot["players"][reply["player"]]["colour"]
    assert reply["action"]["player"] == reply["player"]
    assert ask(data, "legal", {"snapshot": snapshot, "action": reply["action"]})["legal"] is True


def test_the_same_table_and_seed_give_the_same_move_and_seeds_vary_it(data):
    snapshot = table(new_game(data, 2, seed=3))
    body = {"snapshot": snapshot, "level": "random", "seed": 11}
    assert ask(data, "bot_move", body) == ask(data, "bot_move", json.loads(json.dumps(body)))
    moves = {json.dumps(ask(data, "bot_move", {**body, "seed": s})["action"], sort_keys=True)
             for s in range(10)}
    assert len(moves) > 1


def test_a_ruling_waiting_for_a_cell_is_decided_by_the_owners_bot_and_end_round_takes_the_choice(data):
    snapshot = json.loads(DECISION.read_text(encoding="utf-8"))
    ruling = ask(data, "end_round", {"snapshot": snapshot, "choices": []})
    awaiting = ruling["awaiting"]
    assert awaiting is not None
    reply = ask(data, "bot_move", {"snapshot": snapshot, "choices": [], "level": "easy", "seed": 4})
    assert reply["player"] == awaiting["owner"]
    action = reply["action"]
    assert action["action"] == "choose" and action["cell"] in awaiting["cells"]
    again = ask(data, "end_round", {"snapshot": snapshot,
                                               "choices": [{"player": action["player"], "cell": action["cell"]}]})
    assert again["awaiting"] != awaiting or again["complete"]


@pytest.mark.parametrize("mode", ["kingdom", "fief"])
def test_random_bots_play_a_whole_two_player_game_through_the_requests(data, mode):
    """Every decision of a game asked of bot_move on the table as it stands (placements, passes, redraws, and the
    cells rulings wait for, on snapshots taken mid-resolution) and checked by legal before the engine applies it,
    until the game is over; then bot_move is refused: nobody is to decide."""
    state = new_game(data, 2, mode=mode, seed=8)
    kinds: set[str] = set()
    for decision in range(2000):
        if state.is_over():
            break
        snapshot = table(state)
        reply = ask(data, "bot_move", {"snapshot": snapshot, "level": "random", "seed": decision})
        assert ask(data, "legal", {"snapshot": snapshot, "action": reply["action"]})["legal"] is True
        kinds.add(reply["action"]["action"])
        state.apply(Action.from_json(reply["action"]))
    else:
        raise AssertionError("the game did not end")
    assert {"place", "pass", "choose"} <= kinds, kinds
    with pytest.raises((InvalidAction, IllegalAction)):
        ask(data, "bot_move", {"snapshot": table(state), "level": "random", "seed": 0})


def test_a_round_over_in_placement_waits_for_end_round_not_for_a_bot(data):
    example = named_examples(DOC)["snapshot"]
    over = dict(example, passed_this_round=[0, 1], consecutive_passes=2, last_actor=1, active_player=0)
    with pytest.raises(InvalidAction, match="waits for end_round"):
        ask(data, "bot_move", {"snapshot": over, "level": "easy", "seed": 0})


@pytest.mark.parametrize("body, words", [
    ({"level": "master", "seed": 1}, "level must be one of random, heuristic, easy, normal, hard"),
    ({"level": "easy", "seed": -1}, "seed must be a whole number"),
    ({"level": "easy", "seed": 1, "choices": {"player": 0}}, "choices must be a list"),
])
def test_a_bad_bot_move_is_refused_in_one_sentence(data, body, words):
    snapshot = named_examples(DOC)["snapshot"]
    with pytest.raises(InvalidAction, match=words):
        ask(data, "bot_move", {"snapshot": snapshot, **body})


def test_the_documented_bot_move_example_is_answered_as_documented(data):
    examples = named_examples(DOC)
    request = dict(examples["bot_move request"])
    assert request["snapshot"] == "S"
    request["snapshot"] = examples["snapshot"]
    assert ask(data, "bot_move", request) == examples["bot_move reply"]
