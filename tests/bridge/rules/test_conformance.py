"""What every game on the shared interface must do, checked on random legal playouts of each registered game.

Games: every built-in game (:func:`bridge.catalog.builtin_games`) and every game folder of ``tests/games/``
(``tests.everygame.GAME_FOLDERS``).
For each mode, at the smallest and largest player count, from several seeds:

- a playout ends, with an outcome whose winners are seats of the game;
- ``components(state)`` — the physical pieces — is the same after every action as at the start;
- the same seed replays the same game: the same actions and the same events;
- snapshot → state → snapshot is the identity (through JSON text too);
- a player's view, and the events of that player's next actions, do not change when ``redeal_hidden`` deals
  anew what that player cannot see;
- every legal action's text and JSON forms read back as the same action;
- the optional unchecked ``apply_trusted`` plays every legal action exactly as ``apply`` does.
- the optional ``apply_quiet`` (no events) leaves the same state as ``apply``; a playout without ``on_step``
  (which uses it) plays the same game as one with.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bridge.catalog import LoadedGame, load
from bridge.rules.game import Game, GameState, quiet_apply, trusted_apply
from bridge.rules.playout import chooser_for, play_random_game
from tests.everygame import game_sources   # every built-in game and every game folder of tests/games/

SEEDS = (1, 2, 3)
REDEAL_EVERY = 7        # actions between two hidden-information checks: enough states, a short run
ACTIONS_CHECKED = 3     # of the viewer's legal actions, how many are played on both deals


@pytest.fixture(scope="module", params=game_sources())
def game(request) -> LoadedGame:
    return load(request.param)


def setups(game: LoadedGame) -> list[tuple[str, int, int]]:
    """(mode, players, seed) of every playout checked."""
    counts = sorted({game.meta.min_players, game.meta.max_players})
    return [(mode, players, seed) for mode in game.meta.modes for players in counts for seed in SEEDS]


def events_json(events: list[Any]) -> str:
    """Events as the JSON text the bridge would send (objects with ``to_json`` or plain JSON values)."""
    return json.dumps(events, default=lambda event: event.to_json(), sort_keys=True)


def test_playouts_end_with_winners_of_the_game(game: LoadedGame):
    for mode, players, seed in setups(game):
        playout = play_random_game(game.engine, game.data, players, mode=mode, seed=seed)
        state = playout.state
        assert state.is_over() and state.to_move() is None and not state.legal_actions()
        outcome = state.outcome()
        assert outcome is not None, (mode, players, seed)
        assert outcome.winners and set(outcome.winners) <= set(range(players))
        json.dumps(outcome.to_json())


def test_no_action_creates_or_destroys_a_component(game: LoadedGame):
    for mode, players, seed in setups(game):
        start = dict(game.engine.components(game.engine.new_game(game.data, players, mode=mode, seed=seed)))
        assert start, "a game has components"

        def check(state: GameState, action: Any, _events: list[Any]) -> None:
            assert dict(game.engine.components(state)) == start, (mode, players, seed, str(action))

        play_random_game(game.engine, game.data, players, mode=mode, seed=seed, on_step=check)


def test_the_same_seed_replays_the_same_game(game: LoadedGame):
    for mode, players, seed in setups(game):
        runs = []
        for _ in range(2):
            log: list[tuple[str, str]] = []
            playout = play_random_game(game.engine, game.data, players, mode=mode, seed=seed,
                                       on_step=lambda _s, action, events: log.append((str(action), events_json(events))))
            runs.append((log, playout.state.to_snapshot()))
        assert runs[0] == runs[1]
    other_seed = [str(a) for a in play_random_game(game.engine, game.data, game.meta.min_players, seed=99).actions]
    first_seed = [str(a) for a in play_random_game(game.engine, game.data, game.meta.min_players, seed=1).actions]
    assert other_seed != first_seed, "the seed decides the game"


def test_snapshot_state_snapshot_is_the_identity(game: LoadedGame):
    def same_again(state: GameState) -> None:
        snapshot = state.to_snapshot()
        as_text = json.loads(json.dumps(snapshot))
        assert game.engine.from_snapshot(game.data, as_text).to_snapshot() == snapshot
        assert state.copy().to_snapshot() == snapshot

    for mode, players, seed in setups(game):
        state = game.engine.new_game(game.data, players, mode=mode, seed=seed)
        same_again(state)
        play_random_game(game.engine, game.data, players, mode=mode, seed=seed,
                         on_step=lambda s, _a, _e: same_again(s))


def test_views_and_events_keep_other_players_secrets(game: LoadedGame):
    engine = game.engine
    redeals_dealt = redeals_that_changed_something = 0

    def check(state: GameState, players: int, step: int) -> None:
        nonlocal redeals_dealt, redeals_that_changed_something
        for viewer in range(players):
            other = engine.redeal_hidden(state, viewer, seed=step * 31 + viewer)
            if other is None:
                continue
            redeals_dealt += 1
            if other.to_snapshot() != state.to_snapshot():
                redeals_that_changed_something += 1
            assert other.view(viewer) == state.view(viewer), (step, viewer)
            if state.to_move() != viewer:
                continue
            mine = [a for a in state.legal_actions() if a.player == viewer][:ACTIONS_CHECKED]
            assert mine == [a for a in other.legal_actions() if a.player == viewer][:ACTIONS_CHECKED]
            for action in mine:
                here, there = state.copy(), other.copy()
                # Only the events: the viewer's own view may now differ by what they drew from a redealt pile.
                assert events_json(here.apply(action)) == events_json(there.apply(action)), (step, str(action))

    for mode, players, seed in setups(game):
        state = engine.new_game(game.data, players, mode=mode, seed=seed)
        chooser = chooser_for(seed)
        step = 0
        while not state.is_over():
            if step % REDEAL_EVERY == 0:
                check(state, players, step)
            legal = state.legal_actions()
            state.apply(legal[chooser.randbelow(len(legal))])
            step += 1
    # redeal_hidden says "nothing is hidden" by returning None (Game.redeal_hidden); a game whose every redeal
    # comes back the same hides nothing either, and says otherwise
    if redeals_dealt:
        assert redeals_that_changed_something, f"{redeals_dealt} redeals, none dealt anything anew: return None"


def test_every_action_reads_back_from_its_text_and_json(game: LoadedGame):
    engine: Game = game.engine
    seen: set[str] = set()

    def round_trip(state: GameState, _action: Any, _events: list[Any]) -> None:
        for action in state.legal_actions():
            text = str(action)
            if text in seen:
                continue
            seen.add(text)
            assert engine.action_from_text(game.data, text) == action, text
            as_json = json.loads(json.dumps(action.to_json()))
            assert engine.action_from_json(game.data, as_json) == action, as_json

    for mode, players, seed in setups(game):
        state = engine.new_game(game.data, players, mode=mode, seed=seed)
        round_trip(state, None, [])
        play_random_game(engine, game.data, players, mode=mode, seed=seed, on_step=round_trip)
    assert seen


def test_trusted_apply_plays_like_apply(game: LoadedGame):
    """A game's optional unchecked ``apply_trusted`` (what playouts use) gives the same events and the same state
    as ``apply`` for every action ``legal_actions`` lists; a game without it falls back to ``apply``."""
    for mode, players, seed in setups(game):
        checked = game.engine.new_game(game.data, players, mode=mode, seed=seed)
        trusted = game.engine.new_game(game.data, players, mode=mode, seed=seed)
        apply = trusted_apply(trusted)
        assert apply == (getattr(trusted, "apply_trusted", None) or trusted.apply)
        chooser = chooser_for(seed)
        while not checked.is_over():
            legal = checked.legal_actions()
            assert trusted.legal_actions() == legal
            action = legal[chooser.randbelow(len(legal))]
            assert events_json(apply(action)) == events_json(checked.apply(action)), str(action)
            assert trusted.to_snapshot() == checked.to_snapshot(), str(action)
        assert trusted.is_over()


def test_quiet_apply_plays_like_apply(game: LoadedGame):
    """A game's optional ``apply_quiet`` (what playouts that read no events use) leaves the same state as ``apply``
    after every action ``legal_actions`` lists, and a playout without ``on_step`` plays the same actions to the same
    end as one with; a game without it falls back to ``apply_trusted`` or ``apply``."""
    for mode, players, seed in setups(game):
        checked = game.engine.new_game(game.data, players, mode=mode, seed=seed)
        quiet = game.engine.new_game(game.data, players, mode=mode, seed=seed)
        apply = quiet_apply(quiet)
        assert apply == (getattr(quiet, "apply_quiet", None) or trusted_apply(quiet))
        chooser = chooser_for(seed)
        while not checked.is_over():
            legal = checked.legal_actions()
            assert quiet.legal_actions() == legal
            action = legal[chooser.randbelow(len(legal))]
            apply(action)
            checked.apply(action)
            assert quiet.to_snapshot() == checked.to_snapshot(), str(action)
        assert quiet.is_over()
        assert quiet.outcome() == checked.outcome()
        told = play_random_game(game.engine, game.data, players, mode=mode, seed=seed, on_step=lambda *_: None)
        untold = play_random_game(game.engine, game.data, players, mode=mode, seed=seed)
        assert [str(a) for a in untold.actions] == [str(a) for a in told.actions]
        assert untold.state.to_snapshot() == told.state.to_snapshot()
