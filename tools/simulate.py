"""Random legal playouts of any registered game, for balance figures and speed (``ttsmod simulate``).

Each game gets its own seed drawn from the run's seed, and its random player draws from a separate stream
(:mod:`bridge.rules.playout`), so a run's figures depend only on (data, seed, games, players, mode) — not on
``jobs`` or on timing. The figures after the run's own fields are the game's: its ``summary`` of each game and
its ``aggregate`` of them all.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence

from bridge.rules.bots import make_bot
from bridge.rules.game import Game, own_actions, trusted_apply
from bridge.rules.playout import MAX_ACTIONS, PlayoutDidNotEnd, game_seeds, play_random_game

SCHEMA_VERSION = 1


def play_summaries(engine: Game, data: Any, players: int, mode: str, seeds: Sequence[int],
                   bots: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The game's summary of one playout per seed, in seed order: random play, or ``bots`` (one name per seat)."""
    summaries = []
    for seed in seeds:
        if bots is None:
            playout = play_random_game(engine, data, players, mode=mode, seed=seed)
            summaries.append(engine.summary(playout.state, playout.actions))
        else:
            state, actions = play_bots_game(engine, data, bots, mode, seed)
            summaries.append(engine.summary(state, actions))
    return summaries


def play_bots_game(engine: Game, data: Any, bots: Sequence[str], mode: str, seed: int) -> tuple[Any, list[Any]]:
    """A game of ``seed`` with bot ``bots[s]`` in seat ``s`` (each seeded from the game's seed and its seat):
    the final state and every action applied."""
    players = len(bots)
    seated = [make_bot(name, engine, data, players, seed=seed * 1_000_003 + seat) for seat, name in enumerate(bots)]
    state = engine.new_game(data, players, mode=mode, seed=seed)
    apply = trusted_apply(state)
    actions: list[Any] = []
    while not state.is_over():
        if len(actions) >= MAX_ACTIONS:
            raise PlayoutDidNotEnd(f"game with seed {seed} did not end within {MAX_ACTIONS} actions")
        seat = state.to_move()
        legal = own_actions(state.legal_actions(), seat)
        action = seated[seat].choose(state, legal)
        apply(action)
        actions.append(action)
    return state, actions


_WORKER: tuple[Game, Any, int, str, Sequence[str] | None] | None = None
"""What a worker process plays (engine, data, players, mode, bots), set once when it starts."""


def _start_worker(engine: Game, data: Any, players: int, mode: str, bots: Sequence[str] | None = None) -> None:
    global _WORKER
    _WORKER = (engine, data, players, mode, bots)


def _play_seeds(seeds: Sequence[int]) -> list[dict[str, Any]]:
    assert _WORKER is not None, "a worker plays only after _start_worker"
    engine, data, players, mode, bots = _WORKER
    return play_summaries(engine, data, players, mode, seeds, bots)


def batch_size(games: int, jobs: int) -> int:
    """Games per batch sent to a worker: about 32 batches per worker, at most 200 games (progress keeps moving),
    at least 1. The last batches keep one worker busy while the others have none left: with 8 a worker, that
    was up to a sixteenth of a two-job run; a batch costs a millisecond of passing seeds and summaries."""
    return max(1, min(200, -(-games // (jobs * 32))))


def simulate(
    engine: Game,
    data: Any,
    *,
    games: int,
    seed: int = 0,
    players: int,
    mode: str | None = None,
    jobs: int = 1,
    bots: Sequence[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` random games and return the figures as JSON (the keys are described in ``docs/simulate.md``).

    ``mode`` defaults to the game's first mode. ``bots`` (one name per seat, :data:`bridge.rules.bots.BOT_NAMES`) plays
    the games with bots instead of at random. ``progress`` is called with the number of games just finished.
    Timing fields are ``seconds`` and ``games_per_second``; every other field is a function of the arguments
    alone.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    mode = mode or engine.meta(data).default_mode
    seeds = game_seeds(seed, games)
    started = time.perf_counter()
    summaries: list[dict[str, Any]] = []
    if jobs <= 1:
        for game_seed in seeds:
            summaries.extend(play_summaries(engine, data, players, mode, [game_seed], bots))
            if progress:
                progress(1)
    else:
        # The game and its data go to each worker once, when it starts; batches are only seeds.
        size = batch_size(games, jobs)
        batches = [seeds[i : i + size] for i in range(0, games, size)]
        with ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker,
                                 initargs=(engine, data, players, mode, bots)) as pool:
            for batch in pool.map(_play_seeds, batches):
                summaries.extend(batch)
                if progress:
                    progress(len(batch))
    seconds = time.perf_counter() - started
    return {
        "schema_version": SCHEMA_VERSION,
        "games": games,
        "players": players,
        "mode": mode,
        "seed": seed,
        **({"bots": list(bots)} if bots is not None else {}),
        "seconds": round(seconds, 4),
        "games_per_second": round(games / seconds, 2) if seconds > 0 else None,
        **engine.aggregate(summaries, players),
    }
