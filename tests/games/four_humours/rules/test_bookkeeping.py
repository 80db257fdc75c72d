"""The bookkeeping a state keeps move by move (open slots and each card's row of placements, full scenes, party
counts and room, occupancies, hand masks and the hands that may redraw, the goal checks) is what a state read
from the same snapshot works out afresh: after every action, after undo, and in a search world."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from bridge.rules.four_humours import GameState, new_game
from bridge.rules.four_humours.bot import determinize
from bridge.rules.four_humours.state import BOOKKEEPING
from bridge.rules.playout import chooser_for

VARIANTS = {
    "default": {},
    "per_tile": {"party_limit_scope": "per_tile", "party_limit": 2, "passes_to_end_round": "each_once"},
    "partial": {"resolve_all_scenes": False, "draw_after_place": False},
}


def kept(state: GameState) -> dict:
    fields = {}
    for name in BOOKKEEPING:
        value = getattr(state, name)
        if name in ("_scene_rows", "_party_rows"):  # the catalog's own rows, in table order
            value = [(card, id(row)) for card, row in value.items()]
        elif name == "_tables":
            value = tuple(map(id, value))
        fields[name] = copy.deepcopy(value)
    return fields


def afresh(state: GameState) -> dict:
    return kept(GameState.from_snapshot(state.data, state.to_snapshot()))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("mode, players", [("kingdom", 4), ("kingdom", 2), ("fief", 3)])
def test_bookkeeping_kept_move_by_move_is_what_a_snapshot_gives(sample, variant, mode, players):
    data = dataclasses.replace(sample, rules=dataclasses.replace(sample.rules, **VARIANTS[variant]))
    seed = 41 + players
    state = new_game(data, players, mode=mode, seed=seed)
    state.enable_undo()
    chooser = chooser_for(seed)
    seen = [kept(state)]
    assert seen[0] == afresh(state)
    while not state.is_over():
        legal = state.legal_actions()
        state.apply(legal[chooser.randbelow(len(legal))])
        assert kept(state) == afresh(state), state.to_snapshot()
        seen.append(kept(state))
        if len(seen) % 7 == 0 and state.to_move() is not None:
            world = determinize(state, state.to_move(), len(seen))
            assert kept(world) == afresh(world)
    seen.pop()
    while seen:  # undo gives back each state's bookkeeping too
        state.undo()
        assert kept(state) == seen.pop()
