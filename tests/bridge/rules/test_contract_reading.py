"""How the one contract reads a request before any game sees it (bridge/rules/contract.py), on the tests' toy
game, Pebble Race, and on every game (:mod:`tests.everygame`) where the rule is the same for each."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.catalog import load
from bridge.rules import contract
from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from tests.everygame import GAMES

PEBBLE_RACE = Path(__file__).resolve().parents[2] / "games" / "pebble_race"


@pytest.fixture(scope="module")
def pebbles():
    return load(PEBBLE_RACE)


@pytest.fixture()
def table(pebbles):
    """A 2-player table dealt so that seat 0 lacks one kind of pebble (the first such seed)."""
    kinds = {p.id for p in pebbles.data.pebbles}
    for seed in range(100):
        snapshot = pebbles.engine.new_game(pebbles.data, 2, seed=seed).to_snapshot()
        if set(snapshot["players"][0]["hand"]) != kinds:
            return snapshot
    raise AssertionError("no seed deals a hand without every kind")


def ask(game, request_type, body):
    return contract.answer(game.engine, game.data, request_type, body)


def test_an_unknown_request_or_a_body_that_is_not_an_object_is_refused_by_name(pebbles, table):
    with pytest.raises(UnknownRequestType, match="pebble-race handles setup, legal, apply, score, bot_move, not 'castle'"):
        ask(pebbles, "castle", {"snapshot": table})
    with pytest.raises(InvalidAction, match="must be an object"):
        ask(pebbles, "score", [1])
    with pytest.raises(SnapshotError, match="snapshot: is missing"):
        ask(pebbles, "score", [])                  # Lua's empty table is an empty body, which lacks the snapshot


@pytest.mark.parametrize("change, message", [
    ({"ttsmod_snapshot": 2}, "ttsmod_snapshot: format 2 is not one this ttsmod reads (it reads 1)"),
    ({"ttsmod_snapshot": True}, "ttsmod_snapshot: format true is not one"),
    ({"game": "another-game"}, 'game: "another-game" is another game\'s snapshot: this request is for pebble-race'),
    ({"mode": "fief"}, 'mode: "fief" is not a mode of pebble-race (standard)'),
])
def test_the_envelope_names_what_is_wrong(pebbles, table, change, message):
    with pytest.raises(SnapshotError) as refused:
        ask(pebbles, "score", {"snapshot": {**table, **change}})
    assert str(refused.value).startswith(message)


def test_a_snapshot_of_before_the_contract_is_told_so(pebbles, table):
    older = {"version": 1, **{k: v for k, v in table.items() if k != "ttsmod_snapshot"}}
    with pytest.raises(SnapshotError, match=r'ttsmod_snapshot: is missing \(it has "version": a snapshot in the '
                                            r'format of before'):
        ask(pebbles, "score", {"snapshot": older})


def test_whole_floats_are_integers_and_fractions_are_still_refused(pebbles, table):
    as_lua = {**table, "ttsmod_snapshot": 1.0, "active": 0.0}
    assert ask(pebbles, "score", {"snapshot": as_lua}) == ask(pebbles, "score", {"snapshot": table})
    with pytest.raises(SnapshotError, match="active"):
        ask(pebbles, "score", {"snapshot": {**table, "active": 0.5}})


def test_an_engine_written_key_left_out_gets_its_default(pebbles, table):
    assert table["passes"] == 0
    without = {k: v for k, v in table.items() if k != "passes"}
    assert ask(pebbles, "score", {"snapshot": without}) == ask(pebbles, "score", {"snapshot": table})
    assert contract.prepare_snapshot(pebbles.engine, pebbles.data, without)["passes"] == 0


def test_a_missing_random_state_is_seeded_from_the_content_alone(pebbles, table):
    prepared = contract.prepare_snapshot(pebbles.engine, pebbles.data, table)
    assert prepared["rng"] == contract.content_seed(table) and len(prepared["rng"]) == 16
    reordered = dict(reversed(list(table.items())))
    assert contract.content_seed(reordered) == contract.content_seed(table)
    assert contract.content_seed({**table, "rng": False}) == contract.content_seed(table)
    moved = {**table, "active": 1}
    assert contract.content_seed(moved) != contract.content_seed(table)


def test_setup_takes_players_seed_and_mode(pebbles):
    dealt = ask(pebbles, "setup", {"players": 3, "seed": 7})
    assert set(dealt) == {"snapshot", "events", "next"} and len(dealt["snapshot"]["players"]) == 3
    assert dealt == ask(pebbles, "setup", {"players": 3.0, "seed": 7.0, "mode": "standard"})
    assert dealt["next"]["legal"] and dealt["next"]["player"] == 0
    for body, words in [({"seed": 7}, "players must be an integer from 2 to 3"), ({"players": 3, "seed": -1}, "seed"),
                        ({"players": 3, "mode": "fief"}, "mode must be one of standard")]:
        with pytest.raises(InvalidAction, match=words):
            ask(pebbles, "setup", body)


def test_legal_gives_the_refusal_with_its_reason_or_the_ruling_of_the_applied_action(pebbles, table):
    hand = table["players"][0]["hand"]
    missing = next(p.id for p in pebbles.data.pebbles if p.id not in hand)
    assert ask(pebbles, "legal", {"snapshot": table, "action": f"play 0 {missing}"}) == {
        "legal": False, "reason": "not_in_hand", "message": f"seat 0 holds no {missing}"}
    allowed = ask(pebbles, "legal", {"snapshot": table, "action": {"action": "pass", "player": 0}})
    assert allowed["legal"] is True and allowed["events"] == [{"event": "passed", "player": 0}]
    assert allowed["snapshot"]["passes"] == 1 and allowed["next"]["player"] == 1 and allowed["game_over"] is None
    assert allowed == {"legal": True, **ask(pebbles, "apply", {"snapshot": table, "actions": ["pass 0"]})}


def test_apply_applies_in_order_and_names_the_refused_action(pebbles, table):
    both = ask(pebbles, "apply", {"snapshot": table, "actions": ["pass 0", "pass 1"]})
    assert [e["event"] for e in both["events"]] == ["passed", "passed", "game_ended"]
    assert both["game_over"] == {"winners": [0, 1]} and both["next"] == {"player": None, "legal": []}
    with pytest.raises(IllegalAction, match=r"actions\[1\]: it is seat 1's turn"):
        ask(pebbles, "apply", {"snapshot": table, "actions": ["pass 0", "pass 0"]})
    with pytest.raises(InvalidAction, match=r"actions\[0\]: cannot read action 'jump 0'"):
        ask(pebbles, "apply", {"snapshot": table, "actions": ["jump 0"]})


@pytest.mark.parametrize("actions", [[], None, {"0": 1}, ["pass 0"] * (contract.MAX_ACTIONS_PER_REQUEST + 1)])
def test_apply_needs_a_bounded_non_empty_list_before_it_reads_the_state(actions):
    def unreadable():
        raise AssertionError("the state was read although the action list is bad")
    with pytest.raises(InvalidAction):
        contract.apply_each(unreadable, actions, lambda value: value)


# ---- bot_move: the move a bot seat plays, as the bridge answers a table's bot_move request

@pytest.fixture(scope="module", params=GAMES)
def opening(request):
    """Every game at its first decision with the most players it takes (a count of its own, not a number every
    game must take), as the table sends it."""
    loaded = load(request.param)
    return loaded, loaded.engine.new_game(loaded.data, loaded.meta.player_counts[-1], seed=5).to_snapshot()


@pytest.mark.parametrize("level", ["random", "heuristic"])
def test_bot_move_names_a_legal_action_of_the_seat_to_move(opening, level):
    loaded, snapshot = opening
    reply = ask(loaded, "bot_move", {"snapshot": snapshot, "level": level, "seed": 3})
    state = loaded.engine.from_snapshot(loaded.data, contract.prepare_snapshot(loaded.engine, loaded.data, snapshot))
    assert reply["player"] == state.to_move() and reply["level"] == level
    state.check(loaded.engine.action_from_json(loaded.data, reply["action"]))   # the table would not refuse it
    assert reply == ask(loaded, "bot_move", {"snapshot": snapshot, "level": level, "seed": 3}), "same seed, same move"


@pytest.mark.parametrize("body, words", [
    ({"level": "grandmaster"}, "level must be one of"),
    ({"level": "easy", "seed": -1}, "seed must be"),
    ({"level": "easy", "seed": 1.5}, "seed must be"),
    ({"level": "easy", "seed": True}, "seed must be"),
])
def test_bot_move_refuses_an_unknown_level_or_a_bad_seed(pebbles, table, body, words):
    with pytest.raises(InvalidAction, match=words):
        ask(pebbles, "bot_move", {"snapshot": table, **body})
