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
    "phase": (_set("phase", value="lunch"), 'phase: "lunch" is not a phase (placement, resolution or ended)'),
    "game": (_set("game", value="chess"), 'game: "chess" is another game\'s snapshot: this request is for '
                                          "four-humours"),
    "mode": (_set("mode", value="duel"), 'mode: "duel" is not a mode of four-humours (kingdom, fief)'),
    "players": (_set("players", value={}), "players: must list 2 to 6 players"),
    "deck card": (_set("scene_deck", 0, value="nowhere"), 'scene_deck[0]: "nowhere" is not a known card'),
    "a list as a deck card": (_set("scene_deck", 0, value=[1]), "scene_deck[0]: [1] is not a known card"),
    "an object as a party": (_set("resolved_parties", value=[{}]), "resolved_parties[0]: {} is not a resolved party"),
    "goal": (_set("goals", 0, "goal", value=["x"]), 'goals[0].goal: ["x"] is not a goal of this game'),
    "slot owner": (_set("scenes", 0, "slots", 0, value={"owner": 7, "humour": "choleric"}),
                   "scenes[0].slots[0].owner: must be between 0 and 2"),
    "rng": (_set("rng", value="not hex"), "rng: must be 16 hex digits"),
    "boards": (_set("boards", value={"atlantis": {}}), "boards.atlantis: is not a board of this game"),
    "root": (lambda snap: [snap.pop(key) for key in list(snap)[3:]] and snap.update({"x": 1}),
             "players: is missing"),
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
    assert str(info.value) == f'players[1].fief: "{snap["players"][0]["fief"]}" is also at players[0].fief'


# What spans keys (bridge/rules/four_humours/snapshot.py, after the schema has read every value): each refusal
# names the path, on a real table of a random playout.

def playout_snapshot(sample, mode: str, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    from bridge.rules.playout import play_random_game
    found: list[dict[str, Any]] = []
    play_random_game(FOUR_HUMOURS, sample, 3, mode=mode, seed=5,
                     on_step=lambda state, *_: found.append(state.to_snapshot()))
    return json.loads(json.dumps(next(snap for snap in found if wanted(snap))))


def on_boards(snap: dict[str, Any]) -> list[tuple[str, str]]:
    return [(board, cell) for board, cells in snap["boards"].items() for cell in cells]


def _other_mode_goal(sample, snap: dict[str, Any]) -> str:
    return next(goal.id for goal in sample.goals if goal.mode != snap["mode"])


def _unplayed_goal(sample, snap: dict[str, Any]) -> str:
    in_play = {entry["goal"] for entry in snap["goals"]}
    return next(goal.id for goal in sample.goals if goal.mode == snap["mode"] and goal.id not in in_play)


def _wrong_humour(sample, snap: dict[str, Any]) -> tuple[int, str, str]:
    card = sample.scene_by_id[snap["scenes"][0]["card"]]
    slot = card.slots[0]
    return 0, next(h for h in ("choleric", "sanguine", "melancholic", "phlegmatic") if h not in slot.humours), \
        slot.citizen


def test_a_scene_card_in_two_places_is_refused_where_the_snapshot_meets_it_again(sample):
    snap = fresh(sample)
    snap["scene_discard"].append(snap["scene_deck"][0])
    with pytest.raises(SnapshotError) as info:
        GameState.from_snapshot(sample, snap)
    assert str(info.value) == f'scene_discard[0]: "{snap["scene_deck"][0]}" is also at scene_deck[0]'


def test_a_card_lists_every_slot_of_a_humour_its_citizen_takes(sample):
    snap = fresh(sample)
    slots = len(snap["scenes"][0]["slots"])
    snap["scenes"][0]["slots"].pop()
    with pytest.raises(SnapshotError) as info:
        GameState.from_snapshot(sample, snap)
    assert str(info.value) == f"scenes[0].slots: must list {slots} slots (null for an empty one)"
    snap = fresh(sample)
    index, humour, citizen = _wrong_humour(sample, snap)
    snap["scenes"][0]["slots"][index] = {"owner": 0, "humour": humour}
    with pytest.raises(SnapshotError) as info:
        GameState.from_snapshot(sample, snap)
    assert str(info.value) == f"scenes[0].slots[0].humour: this {citizen} cannot hold {humour}"


@pytest.mark.parametrize("mode", ["kingdom", "fief"])
def test_goals_and_boards_are_those_of_the_snapshots_mode(sample, mode):
    snap = playout_snapshot(sample, mode, on_boards)
    board, cell = on_boards(snap)[0]
    cases: list[tuple[Mutation, str]] = [
        (_set("goals", 0, "goal", value=_other_mode_goal(sample, snap)),
         f'goals[0].goal: "{_other_mode_goal(sample, snap)}" is not a {mode} goal'),
        (_set("goals", 0, "marked_by", value=[1, 1]), "goals[0].marked_by: a player marks a goal at most once"),
        (_set("goal_queue", value=[{"player": 0, "goal": _unplayed_goal(sample, snap)}]),
         f'goal_queue[0].goal: "{_unplayed_goal(sample, snap)}" is not a goal in play'),
        (_set("boards", board, "nowhere", value=[]), f"boards.{board}.nowhere: is not a cell of that board"),
    ]
    if mode == "fief":
        owner = snap["boards"][board][cell][0]["owner"]
        other_cell = sample.kingdom.cells[0].id
        cases += [
            (_set("boards", board, cell, 0, "owner", value=(owner + 1) % 3),
             f"boards.{board}.{cell}[0]: a potion lies only on its owner's fief"),
            (_set("boards", board, other_cell, value=[]), f"boards.{board}.{other_cell}: is not a cell of that board"),
            (_set("players", 1, "fief", value=None), "players[1].fief: null is not a fief board"),
        ]
    else:
        cases.append((_set("boards", sample.fiefs[0].id, value={}),
                      f"boards.{sample.fiefs[0].id}: is not a board of this game"))
    for mutate, message in cases:
        bad = json.loads(json.dumps(snap))
        mutate(bad)
        with pytest.raises(SnapshotError) as info:
            GameState.from_snapshot(sample, bad)
        assert str(info.value) == message


def test_a_pending_potion_goes_to_a_cell_of_its_owners_board(sample):
    snap = playout_snapshot(sample, "kingdom", lambda snap: bool(snap["pending"]))
    snap["pending"][0]["cells"] = [sample.fiefs[0].cells[0].id]
    with pytest.raises(SnapshotError) as info:
        GameState.from_snapshot(sample, snap)
    assert str(info.value) == f'pending[0].cells[0]: "{sample.fiefs[0].cells[0].id}" is not a cell of kingdom'


def test_every_potion_of_a_player_is_somewhere(sample):
    snap = fresh(sample)
    snap["players"][0]["bag"]["choleric"] += 1
    with pytest.raises(SnapshotError) as info:
        GameState.from_snapshot(sample, snap)
    assert info.value.path == "players[0]" and "potions on the table are choleric 6" in str(info.value)


def test_a_seat_and_colour_left_out_are_the_seats_own(sample):
    snap = fresh(sample)
    lean = json.loads(json.dumps(snap))
    for entry in lean["players"]:
        del entry["seat"], entry["colour"]
    assert GameState.from_snapshot(sample, lean).to_snapshot() == snap
