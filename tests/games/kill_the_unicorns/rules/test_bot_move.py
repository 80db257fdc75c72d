"""The ``bot_move`` request: the move a bot plays for the seat that owes the table's decision, whatever that
decision is (a trick placed in turn, joining a hunt someone else opened, a power, a blind trick choice, a
purchase), legal on the table it was asked about, the same for the same seed, and refused when nobody is to move."""

from __future__ import annotations

import pytest

from bridge.rules.errors import InvalidAction
from bridge.rules.kill_the_unicorns import KILL_THE_UNICORNS
from bridge.rules.kill_the_unicorns.actions import Action
from bridge.rules.kill_the_unicorns.state import GameState
from bridge.rules.random import SeededRandom
from tests.luajson import as_lua


def handle_request(data, request_type: str, body) -> dict:
    return KILL_THE_UNICORNS.handle(data, request_type, body)


def _tables_by_decision(data, seed: int = 4) -> dict[str, dict]:
    """One snapshot per decision kind, met in a 3-player game played at random (read back as the mod sends
    it: null written false)."""
    state = GameState.from_snapshot(data, handle_request(data, "setup", {"players": 3, "seed": seed})["snapshot"])
    rng = SeededRandom(seed)
    found: dict[str, dict] = {}
    while not state.is_over() and len(found) < 6:
        found.setdefault(state.pending_decision, state.to_snapshot())
        legal = state.legal_actions()
        state.apply(legal[rng.randbelow(len(legal))])
    return found


@pytest.mark.parametrize("level", ["random", "easy"])
def test_a_bot_answers_every_decision_with_a_move_the_table_accepts(ku_data, level):
    tables = _tables_by_decision(ku_data)
    assert set(tables) == {"place_trick", "open", "join", "power", "choose_trick", "market"}, set(tables)
    for decision, snapshot in tables.items():
        sent = as_lua(snapshot)
        reply = handle_request(ku_data, "bot_move", {"snapshot": sent, "level": level, "seed": 11})
        pending = snapshot["pending"]
        # the seat that owes the decision, not the holder of the first-player token
        assert reply["player"] == pending["player"] and reply["level"] == level, decision
        assert reply["action"]["player"] == pending["player"], decision
        ruled = handle_request(ku_data, "legal", {"snapshot": sent, "action": reply["action"]})
        assert ruled["legal"], (decision, reply["action"], ruled)
        assert Action.from_json(reply["action"]).to_json() == reply["action"]
        again = handle_request(ku_data, "bot_move", {"snapshot": sent, "level": level, "seed": 11})
        assert again == reply, f"{decision}: the same table and seed gave another move"


def test_the_seed_decides_among_equal_moves(ku_data):
    snapshot = _tables_by_decision(ku_data)["place_trick"]
    moves = {str(Action.from_json(handle_request(ku_data, "bot_move", {"snapshot": snapshot, "level": "random",
                                                                       "seed": seed})["action"]))
             for seed in range(12)}
    assert len(moves) > 1, moves


def test_a_finished_game_a_bad_level_or_seed_and_a_missing_snapshot_are_refused(ku_data):
    state = GameState.from_snapshot(ku_data, handle_request(ku_data, "setup", {"players": 3, "seed": 2})["snapshot"])
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    with pytest.raises(InvalidAction, match="nothing for a bot to do"):
        handle_request(ku_data, "bot_move", {"snapshot": state.to_snapshot(), "level": "easy", "seed": 1})
    opening = _tables_by_decision(ku_data)["place_trick"]
    with pytest.raises(InvalidAction, match="level must be one of"):
        handle_request(ku_data, "bot_move", {"snapshot": opening, "level": "grandmaster", "seed": 1})
    with pytest.raises(InvalidAction, match="seed must be"):
        handle_request(ku_data, "bot_move", {"snapshot": opening, "level": "easy", "seed": -3})
    with pytest.raises(Exception, match="snapshot"):
        handle_request(ku_data, "bot_move", {"level": "easy", "seed": 1})
