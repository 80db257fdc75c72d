"""Bots against bots (``ttsmod arena``): whole games with one bot per seat, seats rotated over the games, and how
often each bot wins.

Game ``i`` (seed ``game_seeds(seed, games)[i]``) seats the bots rotated by ``i``: seat ``s`` is played by bot entry
``(s + i) % players``, so every entry sits in every seat equally often (exactly, when ``games`` is a multiple of
the player count). Each bot is seeded from its game's seed and its seat, so a run's figures depend only on its
arguments, not on ``jobs`` or timing (``seconds_per_move`` and ``seconds`` excepted).
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence

from bridge.rules.bots import BOT_NAMES, make_bot
from bridge.rules.game import Game, own_actions, trusted_apply
from bridge.rules.playout import MAX_ACTIONS, PlayoutDidNotEnd, game_seeds

SCHEMA_VERSION = 1
Z95 = 1.959964


def seat_bots(bots: Sequence[str], index: int) -> list[int]:
    """For game ``index``, the bot entry (position in ``bots``) that plays each seat."""
    players = len(bots)
    return [(seat + index) % players for seat in range(players)]


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot in ``seat`` of the game seeded ``game_seed``."""
    return (game_seed * 1_000_003 + seat * 7_919 + 1) & ((1 << 64) - 1)


def game_scores(engine: Game, state: Any) -> list[float] | None:
    """Each seat's score at the end (the game's optional ``scores(state)``), or ``None``."""
    scores = getattr(engine, "scores", None)
    return list(scores(state)) if scores is not None else None


def play_one(engine: Game, data: Any, bots: Sequence[str], mode: str, index: int, game_seed: int,
             iterations: int | None = None, *, summary: bool = False) -> dict[str, Any]:
    """One arena game: what each bot entry won (ties split), scored, and how long it thought; each seat's own
    score (``seat_scores``); with ``summary``, also the game's own ``summary`` of the actions played."""
    players = len(bots)
    entries = seat_bots(bots, index)
    seated = [make_bot(bots[entries[seat]], engine, data, players, seed=bot_seed(game_seed, seat),
                       iterations=iterations) for seat in range(players)]
    state = engine.new_game(data, players, mode=mode, seed=game_seed)
    apply = trusted_apply(state)
    thinking = [0.0] * players
    moves = [0] * players
    played: list[Any] = []
    count = 0
    while not state.is_over():
        if count >= MAX_ACTIONS:
            raise PlayoutDidNotEnd(f"game with seed {game_seed} did not end within {MAX_ACTIONS} actions")
        seat = state.to_move()
        legal = own_actions(state.legal_actions(), seat)
        started = time.perf_counter()
        action = seated[seat].choose(state, legal)
        thinking[entries[seat]] += time.perf_counter() - started
        moves[entries[seat]] += 1
        apply(action)
        count += 1
        if summary:
            played.append(action)
    winners = list(state.outcome().winners)
    won = [0.0] * players
    for seat in winners:
        won[entries[seat]] += 1.0 / len(winners)
    scores = game_scores(engine, state)
    result = {
        "index": index,
        "won": won,
        "scores": [scores[entries.index(e)] for e in range(players)] if scores is not None else None,
        "seat_scores": scores,
        "seconds": thinking,
        "moves": moves,
        "winning_seats": winners,
        "actions": count,
    }
    if summary:
        result["summary"] = engine.summary(state, played)
    return result


_WORKER: tuple[Game, Any, tuple[str, ...], str, int | None] | None = None


def _start_worker(engine: Game, data: Any, bots: tuple[str, ...], mode: str, iterations: int | None) -> None:
    global _WORKER
    _WORKER = (engine, data, bots, mode, iterations)


def _play_batch(batch: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    assert _WORKER is not None, "a worker plays only after _start_worker"
    engine, data, bots, mode, iterations = _WORKER
    return [play_one(engine, data, bots, mode, index, game_seed, iterations) for index, game_seed in batch]


def wilson(share: float, n: int) -> list[float]:
    """The 95 % Wilson score interval of a share measured over ``n`` games (a game's win counts 1, a tie 1/k: the
    variance of such a value is at most ``share·(1−share)``, so the interval is conservative)."""
    if n <= 0:
        return [0.0, 1.0]
    z2 = Z95 * Z95
    centre = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(max(share * (1 - share), 0.0) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def check_bots(bots: Sequence[str], min_players: int, max_players: int) -> None:
    """``ValueError`` with a one-line reason when ``bots`` cannot seat a game."""
    for name in bots:
        if name not in BOT_NAMES:
            raise ValueError(f"unknown bot {name!r} (expected one of {', '.join(BOT_NAMES)})")
    if not min_players <= len(bots) <= max_players:
        raise ValueError(f"{len(bots)} bots for a game of {min_players} to {max_players} players")


def arena(engine: Game, data: Any, bots: Sequence[str], *, games: int, seed: int = 0, mode: str | None = None,
          jobs: int = 1, iterations: int | None = None,
          progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play ``games`` games of ``bots`` (one per seat, rotated) and return the figures as JSON (docs/bots.md)."""
    meta = engine.meta(data)
    check_bots(bots, meta.min_players, meta.max_players)
    if games < 1:
        raise ValueError("games must be at least 1")
    mode = mode or meta.default_mode
    bots = tuple(bots)
    work = list(enumerate(game_seeds(seed, games)))
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    if jobs <= 1:
        for index, game_seed in work:
            results.append(play_one(engine, data, bots, mode, index, game_seed, iterations))
            if progress:
                progress(1)
    else:
        size = max(1, min(50, -(-games // (jobs * 4))))
        batches = [work[i: i + size] for i in range(0, games, size)]
        with ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker,
                                 initargs=(engine, data, bots, mode, iterations)) as pool:
            for batch in pool.map(_play_batch, batches):
                results.extend(batch)
                if progress:
                    progress(len(batch))
    seconds = time.perf_counter() - started
    return summarise(results, bots, games=games, seed=seed, mode=mode, seconds=seconds,
                     iterations=iterations)


def summarise(results: Sequence[dict[str, Any]], bots: Sequence[str], *, games: int, seed: int, mode: str,
              seconds: float, iterations: int | None) -> dict[str, Any]:
    """The arena's JSON from each game's :func:`play_one` result (in game order)."""
    players = len(bots)
    names = list(dict.fromkeys(bots))
    entries_of = {name: [e for e in range(players) if bots[e] == name] for name in names}
    won = {name: sum(r["won"][e] for r in results for e in entries_of[name]) for name in names}
    share = {name: won[name] / games for name in names}
    has_scores = all(r["scores"] is not None for r in results)
    mean_score = ({name: round(sum(r["scores"][e] for r in results for e in entries_of[name])
                               / (games * len(entries_of[name])), 3) for name in names} if has_scores else None)
    think = {name: sum(r["seconds"][e] for r in results for e in entries_of[name]) for name in names}
    moves = {name: sum(r["moves"][e] for r in results for e in entries_of[name]) for name in names}
    seat_wins = [0.0] * players
    for r in results:
        for seat in r["winning_seats"]:
            seat_wins[seat] += 1.0 / len(r["winning_seats"])
    return {
        "schema_version": SCHEMA_VERSION,
        "games": games,
        "players": players,
        "mode": mode,
        "seed": seed,
        "bots": list(bots),
        "iterations": iterations,
        "win_share": {name: round(share[name], 4) for name in names},
        "win_share_ci": {name: wilson(share[name], games) for name in names},
        "fair_share": {name: round(len(entries_of[name]) / players, 4) for name in names},
        "mean_score": mean_score,
        "seconds_per_move": {name: round(think[name] / moves[name], 5) if moves[name] else 0.0 for name in names},
        "win_share_by_seat": [round(w / games, 4) for w in seat_wins],
        "mean_actions": round(sum(r["actions"] for r in results) / games, 2),
        "seconds": round(seconds, 3),
    }
