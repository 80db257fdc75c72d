"""Reading a table snapshot: every refusal is a SnapshotError naming the JSON path, never a crash — the envelope
refused by the contract (bridge/rules/contract.py), the rest by the engine's reader."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

from bridge.rules.errors import SnapshotError
from bridge.rules.four_humours import FOUR_HUMOURS, GameState, new_game

Mutation = Callable[[dict[str, Any]], None]


def fresh(sample, players: int = 3, mode: str = "kingdom") -> dict[str, Any]:
    return new_game(sample, players, mode=mode, seed=9).to_snapshot()


def _set(*path: Any, value: Any) -> Mutation:
    def mutate(snap: dict[str, Any]) -> None:
        node = snap
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


CASES: dict[str, tuple[Mutation, str]] = {
    "bag count": (_set("players", 0, "bag", "choleric", value="3"), "players[0].bag.choleric: must be an integer"),
    "hand humour": (_set("players", 1, "hand", 0, value="bile"), 'players[1].hand[0]: "bile" is not a humour'),
    "a list as a humour": (_set("players", 1, "hand", 0, value=["x"]), 'players[1].hand[0]: ["x"] is not a humour'),
    "seat order": (_set("players", 2, "seat", value=0), "players[2].seat: must be 2 (players are listed in seat order)"),
    "active seat": (_set("active_player", value=3), "active_player: must be between 0 and 2"),
    "round": (_set("round", value=-1), "round: must be ≥ 0"),
    "phase": (_set("phase", value="lunch"), "phase: must be placement, resolution or ended"),
    "game": (_set("game", value="chess"), 'game: "chess" is another game\'s snapshot: this request is for '
                                          "four-humours"),
    "mode": (_set("mode", value="duel"), 'mode: "duel" is not a mode of four-humours (kingdom, fief)'),
    "players": (_set("players", value={}), "players: must be a list"),
    "deck card": (_set("scene_deck", 0, value="nowhere"), 'scene_deck[0]: "nowhere" is not a known card'),
    "a list as a deck card": (_set("scene_deck", 0, value=[1]), "scene_deck[0]: [1] is not a known card"),
    "an object as a party": (_set("resolved_parties", value=[{}]), "resolved_parties[0]: {} is not a resolved party"),
    "goal": (_set("goals", 0, "goal", value=["x"]), 'goals[0].goal: ["x"] is not a kingdom goal'),
    "slot owner": (_set("scenes", 0, "slots", 0, value={"owner": 7, "humour": "choleric"}),
                   "scenes[0].slots[0].owner: must be between 0 and 2"),
    "rng": (_set("rng", value="not hex"), "rng: must be 16 hex digits"),
    "boards": (_set("boards", value={"atlantis": {}}), "boards.atlantis: is not a board of this game"),
    "root": (lambda snap: [snap.pop(key) for key in list(snap)[3:]] and snap.update({"x": 1}),
             "players: must be a list"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_snapshot_names_the_path_of_the_problem(sample, case):
    mutate, message = CASES[case]
    snap = fresh(sample)
    mutate(snap)
    with pytest.raises(SnapshotError) as info:
        FOUR_HUMOURS.handle(sample, "score", {"snapshot": json.loads(json.dumps(snap))})
    assert str(info.value) == message


def test_the_engine_reads_only_a_snapshot_the_contract_has_completed(sample):
    """``from_snapshot`` itself takes no default for what the engine writes: the contract fills it in."""
    snap = fresh(sample)
    del snap["rng"]
    with pytest.raises(SnapshotError) as info:
        GameState.from_snapshot(sample, snap)
    assert info.value.path == "rng" and "is missing" in str(info.value)
    assert FOUR_HUMOURS.handle(sample, "score", {"snapshot": snap})["round"] == 1


def test_a_snapshot_that_is_not_an_object_is_refused(sample):
    for value in ([1], "snapshot", 5):
        with pytest.raises(SnapshotError, match="^must be an object$"):
            GameState.from_snapshot(sample, value)


def test_lua_empty_tables_and_false_read_as_empty_and_absent(sample):
    snap = fresh(sample, 2)
    lua = json.loads(json.dumps(snap))
    lua["boards"] = []             # TTS's JSON.encode writes an empty table as []
    lua["last_actor"] = False      # and a missing value as false
    lua["round_end_reason"] = False
    lua["termination"] = False
    assert GameState.from_snapshot(sample, lua).to_snapshot() == snap


def test_a_fief_snapshot_names_a_bad_fief(sample):
    snap = fresh(sample, 2, "fief")
    snap["players"][1]["fief"] = snap["players"][0]["fief"]
    with pytest.raises(SnapshotError) as info:
        GameState.from_snapshot(sample, snap)
    assert str(info.value) == f"players[1].fief: {snap['players'][0]['fief']!r} is used by another player"
