"""The search's per-game budget (``Game.search_levels``) and its root shortlist (a policy's ``shortlist``)."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.rules.bots import LEVELS, make_bot, search_iterations
from bridge.catalog import LoadedGame, builtin_games, load
from bridge.rules.game import heuristic_policy, own_actions


@pytest.fixture(scope="module")
def four_humours() -> LoadedGame:
    return load("four-humours")


def decisions(game: LoadedGame, seed: int = 4, count: int = 8) -> list[tuple[Any, list[Any]]]:
    """(state, the mover's legal actions) at the first ``count`` decisions with a choice of a heuristic game."""
    players = game.meta.min_players
    bots = [make_bot("heuristic", game.engine, game.data, players, seed=seed + s) for s in range(players)]
    state = game.engine.new_game(game.data, players, seed=seed)
    found = []
    while not state.is_over() and len(found) < count:
        legal = own_actions(state.legal_actions(), state.to_move())
        if len(legal) > 1:
            found.append((state.copy(), legal))
        state.apply(bots[state.to_move()].choose(state, legal))
    return found


def test_a_game_may_set_its_own_search_budget(four_humours: LoadedGame):
    own = four_humours.engine.search_levels
    assert search_iterations(four_humours.engine, "normal") == own["normal"] != LEVELS["normal"]
    assert search_iterations(four_humours.engine, "hard") == own["hard"]
    for game_id in builtin_games():
        engine = load(game_id).engine
        levels = getattr(engine, "search_levels", None) or {}
        assert search_iterations(engine, "normal") == levels.get("normal", LEVELS["normal"])


def test_the_search_plays_from_the_heuristic_shortlist(four_humours: LoadedGame):
    """The Four Humours heuristic names the moves worth a search (the best placements, one per card and humour,
    with pass and redraw; or the best cells): each is the mover's own legal action, the heuristic's best value
    is among them, and the search's move is one of them."""
    game = four_humours
    policy = heuristic_policy(game.engine, game.data)
    fewer = 0
    for state, legal in decisions(game):
        shortlist = policy.shortlist(state, legal)
        assert shortlist and all(a in legal for a in shortlist)
        assert len(set(shortlist)) == len(shortlist)
        if len(shortlist) < len(legal):
            fewer += 1
        pick = make_bot("heuristic", game.engine, game.data, game.meta.min_players, seed=5).choose(state, legal)
        if hasattr(pick, "target"):  # a placement: one as good as the heuristic's own is shortlisted
            seat = state.to_move()
            assert max(policy._value(state, seat, a) for a in shortlist if hasattr(a, "target")) >= \
                policy._value(state, seat, pick)
        elif not hasattr(pick, "cell"):  # pass or redraw
            assert pick in shortlist
        move = make_bot("normal", game.engine, game.data, game.meta.min_players, seed=3, iterations=10).choose(state)
        assert move in shortlist
    assert fewer, "some decision offers more moves than the shortlist keeps"
