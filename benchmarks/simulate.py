"""Benchmark: full random games per second on one core, and how ``simulate --jobs N`` scales, for each game
given (default: every built-in game).

For each game: the engine's games/s (at the game's default mode and 4 players, or the nearest count it
takes; the best of :data:`ROUNDS` rounds), a baseline measured in the same process — the same number of
actions drawn by the same random player from pre-built lists, i.e. the harness alone with no rules — and the
ratio of the two, so the figure can be compared across machines; plus peak RSS. The target, 1,000 games/s on
one core, lets search bots run thousands of playouts per move and a 100,000-game balance run finish in minutes.

Then ``tools.simulate.simulate`` at 1, 2 and N jobs (N = the number of CPUs), each three times in turn and the
fastest run kept: games/s of each and the ratio to one job (target: 2 jobs ≥ 1.8 × 1 job).

    python benchmarks/simulate.py [GAME ...] [--games 600] [--jobs-games 2000] [--seed 0]

``measure`` and ``measure_jobs`` return the figures as dicts (``benchmarks/run.py`` calls them).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.catalog import builtin_games, load  # noqa: E402
from bridge.rules.playout import game_seeds, play_random_game  # noqa: E402
from bridge.rules.random import SeededRandom  # noqa: E402

TARGET_GAMES_PER_SECOND = 1000
TARGET_TWO_JOBS = 1.8
PLAYERS = 4


def peak_rss_mib() -> float:
    """Peak RSS of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)


def _setup(game: str) -> tuple[Any, int, str]:
    loaded = load(game)
    meta = loaded.meta
    return loaded, min(max(PLAYERS, meta.min_players), meta.max_players), meta.default_mode


ROUNDS = 3
"""Rounds of ``games`` playouts each (other seeds each round); the fastest counts, as ``timeit`` takes the best of
its repeats: on a shared or virtual machine a round of half a second varies by a tenth either way with what
else the host runs, and the fastest is the nearest to what the engine itself costs. Every round is reported."""


def measure(game: str, games: int = 600, seed: int = 0, rounds: int = ROUNDS) -> dict[str, Any]:
    """Random playouts of ``game`` on one core: games/s (the best of ``rounds`` rounds of ``games`` games), the
    no-rules baseline and their ratio, peak RSS."""
    loaded, players, mode = _setup(game)
    seeds = game_seeds(seed, games * rounds)
    play_random_game(loaded.engine, loaded.data, players, mode=mode, seed=seeds[0])  # warm caches before timing
    timed: list[tuple[float, int]] = []
    for round_seeds in (seeds[i * games:(i + 1) * games] for i in range(rounds)):
        started = time.perf_counter()
        actions = 0
        for game_seed in round_seeds:
            actions += len(play_random_game(loaded.engine, loaded.data, players, mode=mode, seed=game_seed).actions)
        timed.append((time.perf_counter() - started, actions))
    engine_seconds, actions = min(timed)

    # Baseline: the random player's own work for the same number of actions, without any rules.
    agent = SeededRandom(seed)
    menu = list(range(40))
    started = time.perf_counter()
    for _ in range(actions):
        menu[agent.randbelow(len(menu))]
    baseline_seconds = time.perf_counter() - started
    return {
        "game": loaded.meta.id,
        "players": players,
        "mode": mode,
        "games": games,
        "actions": actions,
        "engine_seconds": round(engine_seconds, 4),
        "games_per_second": round(games / engine_seconds, 1),
        "rounds": rounds,
        "rounds_games_per_second": [round(games / seconds, 1) for seconds, _ in timed],
        "target_games_per_second": TARGET_GAMES_PER_SECOND,
        "baseline_seconds": round(baseline_seconds, 4),
        "engine_over_baseline": round(engine_seconds / baseline_seconds, 2),
        "us_per_action": round(engine_seconds / actions * 1e6, 2),
        "peak_rss_mib": round(peak_rss_mib(), 1),
    }


def measure_jobs(game: str, games: int = 2000, seed: int = 0, jobs: Sequence[int] | None = None) -> dict[str, Any]:
    """``simulate`` of ``game`` with each number of ``jobs`` (default 1, 2 and the CPU count): games/s of each
    and its ratio to one job (``speedup``; 1 job is always measured, as the baseline)."""
    from tools.simulate import simulate

    loaded, players, mode = _setup(game)
    counts = sorted({1, *(jobs or (2, os.cpu_count() or 1))})
    rates: dict[int, float] = {}
    # Each count three times, in turn (1, 2, …, 1, 2, …), the fastest run kept: a ratio of two single runs on a
    # shared machine moves with whatever else ran during either.
    for _ in range(3):
        for count in counts:
            started = time.perf_counter()
            simulate(loaded.engine, loaded.data, games=games, seed=seed, players=players, mode=mode, jobs=count)
            rates[count] = max(rates.get(count, 0.0), games / (time.perf_counter() - started))
    return {
        "game": loaded.meta.id,
        "games": games,
        "cpus": os.cpu_count(),
        "games_per_second": {str(count): round(rate, 1) for count, rate in rates.items()},
        "speedup": {str(count): round(rate / rates[1], 2) for count, rate in rates.items()},
        "target_two_jobs": TARGET_TWO_JOBS,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="*", help="built-in game ids or game folders (default: every built-in game)")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--jobs-games", type=int, default=2000, help="games of each --jobs run (0: skip them)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for game in args.game or list(builtin_games()):
        m = measure(game, args.games, args.seed)
        rate = m["games_per_second"]
        print(f"{m['game']}")
        print(f"  games                 {m['games']} ({m['players']} players, {m['mode']}, {m['actions']} actions)")
        print(f"  engine                {m['engine_seconds']:.3f} s = {rate:.1f} games/s "
              f"({rate / TARGET_GAMES_PER_SECOND:.2f} x target {TARGET_GAMES_PER_SECOND}; best of "
              f"{', '.join(f'{r:.0f}' for r in m['rounds_games_per_second'])})")
        print(f"  baseline (no rules)   {m['baseline_seconds']:.3f} s")
        print(f"  engine / baseline     {m['engine_over_baseline']:.1f} x")
        print(f"  per action            {m['us_per_action']:.1f} us")
        if args.jobs_games > 0:
            j = measure_jobs(game, args.jobs_games, args.seed)
            for count, jobs_rate in j["games_per_second"].items():
                print(f"  simulate --jobs {count:<5} {jobs_rate:.1f} games/s = {j['speedup'][count]:.2f} x --jobs 1"
                      + (f" (target {TARGET_TWO_JOBS} x)" if count == "2" else ""))
    print(f"peak RSS                {peak_rss_mib():.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
