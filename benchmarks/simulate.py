"""Benchmark: full random games per second on one core, for each game given (default: every built-in game).

For each game: the engine's games/s (at the game's default mode and 4 players, or the nearest count it
takes), a baseline measured in the same process — the same number of actions drawn by the same random player
from pre-built lists, i.e. the harness alone with no rules — and the ratio of the two, so the figure can be
compared across machines; plus peak RSS. The target, 300 games/s, keeps a 1000-game balance run
under a few seconds.

    python benchmarks/simulate.py [GAME ...] [--games 600] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.catalog import builtin_games, load  # noqa: E402
from bridge.rules.playout import game_seeds, play_random_game  # noqa: E402
from bridge.rules.random import SeededRandom  # noqa: E402

TARGET_GAMES_PER_SECOND = 300
PLAYERS = 4


def bench(game: str, games: int, seed: int) -> None:
    loaded = load(game)
    meta = loaded.meta
    players = min(max(PLAYERS, meta.min_players), meta.max_players)
    mode = meta.default_mode
    seeds = game_seeds(seed, games)

    play_random_game(loaded.engine, loaded.data, players, mode=mode, seed=seeds[0])  # warm caches before timing
    started = time.perf_counter()
    actions = 0
    for game_seed in seeds:
        actions += len(play_random_game(loaded.engine, loaded.data, players, mode=mode, seed=game_seed).actions)
    engine_seconds = time.perf_counter() - started

    # Baseline: the random player's own work for the same number of actions, without any rules.
    agent = SeededRandom(seed)
    menu = list(range(40))
    started = time.perf_counter()
    for _ in range(actions):
        menu[agent.randbelow(len(menu))]
    baseline_seconds = time.perf_counter() - started

    games_per_second = games / engine_seconds
    print(f"{meta.id}")
    print(f"  games                 {games} ({players} players, {mode}, {actions} actions)")
    print(f"  engine                {engine_seconds:.3f} s = {games_per_second:.1f} games/s "
          f"({games_per_second / TARGET_GAMES_PER_SECOND:.2f} x target {TARGET_GAMES_PER_SECOND})")
    print(f"  baseline (no rules)   {baseline_seconds:.3f} s")
    print(f"  engine / baseline     {engine_seconds / baseline_seconds:.1f} x")
    print(f"  per action            {engine_seconds / actions * 1e6:.1f} us")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="*", help="built-in game ids or game folders (default: every built-in game)")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for game in args.game or list(builtin_games()):
        bench(game, args.games, args.seed)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS                {peak_mib:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
