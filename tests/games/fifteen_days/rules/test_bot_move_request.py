"""The ``bot_move`` request of 15 Days (bridge/rules/contract.py): the table as the mod sends it, a
level and a seed in; the seat to move and the action its bot takes out, an action the ``legal`` request then
accepts. The examples of docs/games/fifteen_days/protocol.md's bot section are run here too."""

from __future__ import annotations

import json

import pytest

from bridge.rules.contract import SHARED_REQUEST_TYPES
from bridge.rules.errors import InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.fifteen_days.actions import Action
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import GameState
from tests.test_docs_json import named_examples
from tests.luajson import as_lua
from tests.shared import REPO_ROOT

DOC = REPO_ROOT / "docs" / "games" / "fifteen_days" / "protocol.md"


def dealt(fd_data, players=2, seed=7):
    return as_lua(json.loads(json.dumps(FIFTEEN_DAYS.handle(fd_data, "setup",
                                                                     {"players": players, "seed": seed})["snapshot"])))


def test_the_game_answers_the_shared_requests_setup_first():
    assert FIFTEEN_DAYS.request_types == SHARED_REQUEST_TYPES and FIFTEEN_DAYS.request_types[0] == "setup"


@pytest.mark.parametrize("level", ["random", "easy", "heuristic"])
def test_the_bots_move_is_for_the_seat_to_move_and_the_legal_request_accepts_it(fd_data, level):
    snapshot = dealt(fd_data, players=3, seed=11)
    reply = FIFTEEN_DAYS.handle(fd_data, "bot_move", {"snapshot": snapshot, "level": level, "seed": 5})
    assert set(reply) == {"player", "level", "action"}
    assert reply["player"] == snapshot["active"] and reply["level"] == level
    assert reply["action"]["player"] == reply["player"]
    ruled = FIFTEEN_DAYS.handle(fd_data, "legal", {"snapshot": snapshot, "action": reply["action"]})
    assert ruled["legal"] is True, ruled


def test_the_same_table_and_seed_give_the_same_move_and_seeds_vary_it(fd_data):
    snapshot = dealt(fd_data)
    body = {"snapshot": snapshot, "level": "random", "seed": 3}
    again = json.loads(json.dumps(body))
    assert FIFTEEN_DAYS.handle(fd_data, "bot_move", body) == FIFTEEN_DAYS.handle(fd_data, "bot_move", again)
    moves = {json.dumps(FIFTEEN_DAYS.handle(fd_data, "bot_move", {**body, "seed": seed})["action"], sort_keys=True)
             for seed in range(12)}
    assert len(moves) > 1, "the seed chooses among the legal actions"


def test_random_bots_play_a_whole_game_through_the_requests(fd_data):
    """Every decision of a 2-player game asked of bot_move and sent as legal (open decisions, wilds, refills and
    the hand limit included) until the game is over; then bot_move is refused: nobody is to move."""
    snapshot = dealt(fd_data, seed=21)
    kinds: set[str] = set()
    for decision in range(3000):
        reply = FIFTEEN_DAYS.handle(fd_data, "bot_move", {"snapshot": snapshot, "level": "random", "seed": decision})
        kinds.add(reply["action"]["action"])
        ruled = FIFTEEN_DAYS.handle(fd_data, "legal", {"snapshot": snapshot, "action": reply["action"]})
        assert ruled["legal"] is True, (decision, reply, ruled)
        snapshot = as_lua(json.loads(json.dumps(ruled["snapshot"])))
        if ruled["game_over"] is not None:
            break
    else:
        raise AssertionError("the game did not end")
    assert {"draw", "take", "play", "end"} <= kinds, kinds
    with pytest.raises(InvalidAction, match="nothing for a bot to do"):
        FIFTEEN_DAYS.handle(fd_data, "bot_move", {"snapshot": snapshot, "level": "random", "seed": 0})


def test_the_bot_does_not_see_what_its_seat_cannot(fd_data):
    """Two tables its seat cannot tell apart (the other hand and the draw piles dealt anew) sent as requests: the
    same move (every level is checked on the engine's states by tests/bridge/rules/bots/test_bots.py)."""
    state = GameState.from_snapshot(fd_data, FIFTEEN_DAYS.handle(fd_data, "setup", {"players": 2, "seed": 4})["snapshot"])
    seat = state.to_move()
    other = FIFTEEN_DAYS.redeal_hidden(state, seat, seed=99)
    assert other.to_snapshot() != state.to_snapshot()
    for seed in range(4):
        a = FIFTEEN_DAYS.handle(fd_data, "bot_move", {"snapshot": state.to_snapshot(), "level": "easy", "seed": seed})
        b = FIFTEEN_DAYS.handle(fd_data, "bot_move", {"snapshot": other.to_snapshot(), "level": "easy", "seed": seed})
        assert a == b


@pytest.mark.parametrize("body, error, words", [
    ({"level": "easy", "seed": 1}, SnapshotError, "snapshot"),
    ({"level": "master", "seed": 1}, InvalidAction, "level must be one of random, heuristic, easy, normal, hard"),
    ({"level": "easy", "seed": -2}, InvalidAction, "seed must be a whole number"),
    ({"level": "easy", "seed": "7"}, InvalidAction, "seed must be a whole number"),
])
def test_a_bad_bot_move_is_refused_in_one_sentence(fd_data, body, error, words):
    if error is not SnapshotError:
        body = {"snapshot": dealt(fd_data), **body}
    with pytest.raises(error, match=words):
        FIFTEEN_DAYS.handle(fd_data, "bot_move", body)


def test_an_unknown_request_names_bot_move_among_the_known(fd_data):
    with pytest.raises(UnknownRequestType, match="bot_move"):
        FIFTEEN_DAYS.handle(fd_data, "bot", {})


def test_the_documented_bot_move_example_is_answered_as_documented(fd_data):
    """The doc's request (on the table the doc's setup example deals) gets exactly the doc's reply."""
    examples = named_examples(DOC)
    request, reply = examples["bot_move request"], examples["bot_move reply"]
    table = FIFTEEN_DAYS.handle(fd_data, "setup", examples["setup request"])["snapshot"]
    assert request["snapshot"] == "S"
    answer = FIFTEEN_DAYS.handle(fd_data, "bot_move", {**request, "snapshot": as_lua(table)})
    assert answer == reply
    assert Action.from_json(reply["action"]).to_json() == reply["action"]
