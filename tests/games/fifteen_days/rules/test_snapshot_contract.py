"""The 15 Days snapshot in the one contract (docs/protocol.md, docs/games/fifteen_days/protocol.md): its envelope,
the bookkeeping a snapshot may leave out and what it is then taken to be, and Lua's ways of writing JSON (whole
floats, ``[]`` for an empty object, ``false`` for null), all read as the bridge and ``ttsmod adjudicate`` read
them (through :func:`bridge.rules.contract.answer`)."""

from __future__ import annotations

import json

import pytest

from bridge.rules.errors import SnapshotError
from bridge.rules.fifteen_days.actions import Feather
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from bridge.rules.fifteen_days.state import END_NOT_YET, GameState, new_game
from tests.luajson import as_lua
from tests.games.fifteen_days.rules.test_rule_flags import with_rules
from tests.bridge.rules.test_contract import lua_written

BOOKKEEPING_AT_THE_START = ("turn", "actions_left", "pending", "boost", "power", "otter_turn", "fresh_discards",
                            "feathers_out", "end", "over")


def answers(data, snapshot, action):
    """The score panel, and the ruling of ``action``, on the table ``snapshot``: what the reading of it decides."""
    return (FIFTEEN_DAYS.handle(data, "score", {"snapshot": snapshot}),
            FIFTEEN_DAYS.handle(data, "legal", {"snapshot": snapshot, "action": action.to_json()}))


def same_answers(data, full, short):
    """``short`` (``full`` as some mod may write it) gets ``full``'s answers, to its every legal action."""
    for action in GameState.from_snapshot(data, full).legal_actions():
        assert answers(data, short, action) == answers(data, full, action), action


def without(snapshot, *keys):
    return {key: value for key, value in snapshot.items() if key not in keys}


def test_a_snapshot_starts_with_the_envelope_and_has_no_version_key(fd_data):
    snapshot = new_game(fd_data, 3, seed=2).to_snapshot()
    assert list(snapshot)[:3] == ["ttsmod_snapshot", "game", "mode"] and "version" not in snapshot
    assert [snapshot[key] for key in ("ttsmod_snapshot", "game", "mode")] == [1, "fifteen-days", "standard"]


def test_a_snapshot_of_the_format_before_the_contract_is_refused_naming_the_key(fd_data):
    old = without(new_game(fd_data, 2, seed=1).to_snapshot(), "ttsmod_snapshot")
    old["version"] = 1
    for read in (lambda: FIFTEEN_DAYS.handle(fd_data, "score", {"snapshot": old}),
                 lambda: GameState.from_snapshot(fd_data, old)):
        with pytest.raises(SnapshotError, match="version") as refused:
            read()
        assert refused.value.path == "ttsmod_snapshot"
    with pytest.raises(SnapshotError) as refused:
        FIFTEEN_DAYS.handle(fd_data, "score", {"snapshot": {**old, "ttsmod_snapshot": 2}})
    assert refused.value.path == "ttsmod_snapshot"


def test_the_bookkeeping_left_out_at_the_start_is_the_start_of_the_first_turn(fd_data):
    snapshot = new_game(fd_data, 2, seed=1).to_snapshot()
    short = without(snapshot, *BOOKKEEPING_AT_THE_START)
    same_answers(fd_data, snapshot, short)
    assert FIFTEEN_DAYS.handle(fd_data, "score", {"snapshot": short})["turn"] == 1


def test_whose_turn_cannot_be_left_out_with_a_random_first_player(fd_data):
    assert fd_data.rules.first_player == "random"
    with pytest.raises(SnapshotError) as refused:
        FIFTEEN_DAYS.handle(fd_data, "score", {"snapshot": without(new_game(fd_data, 2).to_snapshot(), "active")})
    assert refused.value.path == "active"


def test_with_the_host_beginning_whose_turn_follows_from_the_turn(fd_data):
    data = with_rules(fd_data, first_player="host")
    state = new_game(data, 3, seed=4)
    while state.turn < 5:                          # turn 5 of 3 seats begun by seat 0 is seat 1's
        state.apply(state.legal_actions()[0])
    snapshot = state.to_snapshot()
    assert snapshot["active"] == 1
    same_answers(data, snapshot, without(snapshot, "active"))


def test_feathers_out_of_the_game_are_the_box_less_the_supply_and_the_boards(fd_data):
    data = with_rules(fd_data, feather_returns_to_supply=False)       # AMB-FD-09 read the other way
    state = new_game(data, 2, seed=1)
    state.apply(Feather(state.active, "frog"))
    snapshot = state.to_snapshot()
    assert snapshot["feathers_out"] == 1
    same_answers(data, snapshot, without(snapshot, "feathers_out"))


def test_lua_empty_tables_for_the_animals_and_the_end_mean_none_owned_and_no_trigger(fd_data):
    snapshot = new_game(fd_data, 2, seed=1).to_snapshot()
    assert set(snapshot["animals"].values()) == {None} and snapshot["end"] == dict(END_NOT_YET)
    as_lua = {**snapshot, "animals": [], "end": []}
    same_answers(fd_data, snapshot, as_lua)
    partly = {**snapshot, "animals": {"frog": False}, "end": {"bonus_given": False}}
    same_answers(fd_data, snapshot, partly)


def test_whole_floats_false_for_null_and_shuffled_keys_are_read_as_the_engine_wrote_them(fd_data):
    snapshot = new_game(fd_data, 2, seed=1).to_snapshot()
    written = json.loads(json.dumps(lua_written({"snapshot": as_lua(snapshot)}, drop=set(), seed=3)))
    written = written["snapshot"]
    assert written["players"][0]["feathers"] == 1.0 and written["pending"] is False
    assert list(written) != list(snapshot)
    same_answers(fd_data, snapshot, written)
