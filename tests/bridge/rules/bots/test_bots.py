"""The bots on every game of the shared interface: legal moves only, the same move from the same seed, and no
peeking — a bot's move and its search's sampled worlds depend only on what its seat may see.

Every game (:mod:`tests.everygame`) is a parameter (one test per game); the game's own heuristic comes through
``Game.heuristic``, and its sampler is ``Game.determinize`` or, for a game without one, ``redeal_hidden``.
"""

from __future__ import annotations

from typing import Any

import pytest

from bridge.rules.bots import BOT_NAMES, make_bot
from bridge.catalog import LoadedGame, load
from bridge.rules.game import determinize, own_actions
from tests.everygame import GAMES

SEARCH_ITERATIONS = 12   # enough to build a tree a few levels deep, quick enough for every state checked
STATES_PER_GAME = 6


@pytest.fixture(scope="module", params=GAMES)
def game(request) -> LoadedGame:
    return load(request.param)


def sample_states(game: LoadedGame, seed: int = 3) -> list[tuple[Any, int]]:
    """(state, seat to move) at several points of a game played by heuristic bots, at the fewest players."""
    players = game.meta.min_players
    bots = [make_bot("heuristic", game.engine, game.data, players, seed=seed + s) for s in range(players)]
    state = game.engine.new_game(game.data, players, seed=seed)
    found = []
    step = 0
    while not state.is_over():
        seat = state.to_move()
        legal = own_actions(state.legal_actions(), seat)
        if len(legal) > 1 and step % 5 == 0 and len(found) < STATES_PER_GAME * 3:
            found.append((state.copy(), seat))
        state.apply(bots[seat].choose(state, legal))
        step += 1
    return found[:: max(1, len(found) // STATES_PER_GAME)][:STATES_PER_GAME]


def search_bot(game: LoadedGame, seed: int):
    return make_bot("normal", game.engine, game.data, game.meta.min_players, seed=seed,
                    iterations=SEARCH_ITERATIONS)


def test_every_bot_plays_only_legal_moves_to_the_end(game: LoadedGame):
    players = game.meta.min_players
    for names in (["random"] * players, ["heuristic"] * players, ["easy"] + ["random"] * (players - 1)):
        bots = [make_bot(name, game.engine, game.data, players, seed=7 + s) for s, name in enumerate(names)]
        state = game.engine.new_game(game.data, players, seed=11)
        while not state.is_over():
            seat = state.to_move()
            legal = own_actions(state.legal_actions(), seat)
            action = bots[seat].choose(state, legal)
            assert action in legal and action.player == seat
            state.apply(action)
        assert state.outcome().winners


def test_search_moves_are_legal_and_its_own(game: LoadedGame):
    for state, seat in sample_states(game)[:3]:
        action = search_bot(game, 5).choose(state)
        assert action in state.legal_actions() and action.player == seat


def test_the_same_seed_gives_the_same_move(game: LoadedGame):
    for state, _seat in sample_states(game)[:3]:
        for name in ("random", "heuristic", "normal"):
            moves = {str(make_bot(name, game.engine, game.data, game.meta.min_players, seed=21,
                                  iterations=SEARCH_ITERATIONS).choose(state.copy())) for _ in range(2)}
            assert len(moves) == 1, (name, moves)


def test_a_seed_changes_the_random_bot(game: LoadedGame):
    state = game.engine.new_game(game.data, game.meta.min_players, seed=1)
    moves = {str(make_bot("random", game.engine, game.data, game.meta.min_players, seed=s).choose(state))
             for s in range(20)}
    assert len(moves) > 1


def hidden_states(game: LoadedGame) -> list[tuple[Any, int]]:
    """:func:`sample_states`; the calling test is skipped, saying so, for a game that hides nothing from the
    seats there (``redeal_hidden`` gives ``None``): no world to sample, nothing to peek at."""
    states = sample_states(game)
    if all(game.engine.redeal_hidden(state, seat, 1) is None for state, seat in states):
        pytest.skip(f"{game.meta.id} hides nothing from its players (redeal_hidden gives None)")
    return states


def test_a_sampled_world_depends_only_on_the_view(game: LoadedGame):
    """The search's sampler: a world keeps the seat's view, and two states the seat cannot tell apart (one
    dealt anew by ``redeal_hidden``) give the very same world from the same seed."""
    changed = 0
    for state, seat in hidden_states(game):
        world = determinize(game.engine, state, seat, 99)
        assert world.view(seat) == state.view(seat)
        other = game.engine.redeal_hidden(state, seat, 1234)
        if other is None:
            continue
        if other.to_snapshot() != state.to_snapshot():
            changed += 1
        assert determinize(game.engine, other, seat, 99).to_snapshot() == world.to_snapshot()
    assert changed, "redeal_hidden dealt nothing anew: a game that hides nothing returns None"


@pytest.mark.parametrize("name", ["heuristic", "normal"])
def test_bots_never_peek(game: LoadedGame, name: str):
    """A bot's move is unchanged when what its seat cannot see is dealt anew (by ``redeal_hidden`` and by a
    whole sampled world, face-down pieces included), from the same bot seed."""
    checked = 0
    for state, seat in hidden_states(game):
        variants = [game.engine.redeal_hidden(state, seat, 77), determinize(game.engine, state, seat, 78)]
        for other in variants:
            if other is None or other.to_snapshot() == state.to_snapshot():
                continue
            assert other.view(seat) == state.view(seat)

            def move(s: Any) -> str:
                return str(make_bot(name, game.engine, game.data, game.meta.min_players, seed=31,
                                    iterations=SEARCH_ITERATIONS).choose(s))

            assert move(other) == move(state), (seat, name)
            checked += 1
    assert checked


def test_unknown_bot_names_are_refused(game: LoadedGame):
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("grandmaster", game.engine, game.data, game.meta.min_players)
    assert BOT_NAMES == ("random", "heuristic", "easy", "normal", "hard")
