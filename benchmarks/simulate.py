"""Benchmark: full 4-player Four Humours kingdom games per second on one core (target ≥ 300).

Prints the engine's games/s, a baseline measured in the same process — the same number of actions
drawn by the same random player from pre-built lists, i.e. the harness alone with no rules — and the ratio
of the two, so the figure can be compared across machines; plus peak RSS.

    python benchmarks/simulate.py [--games 600] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from bridge.rules.random import SeededRandom
from bridge.catalog import load_game
from tools.simulate import game_seeds, play_random_game

TARGET_GAMES_PER_SECOND = 300


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    data = load_game("four-humours")
    seeds = game_seeds(args.seed, args.games)

    play_random_game(data, 4, "kingdom", seeds[0])  # warm caches before timing
    started = time.perf_counter()
    actions = 0
    for s in seeds:
        actions += play_random_game(data, 4, "kingdom", s).actions
    engine_seconds = time.perf_counter() - started

    # Baseline: the random player's own work for the same number of actions, without any rules.
    agent = SeededRandom(args.seed)
    menu = list(range(40))
    started = time.perf_counter()
    for _ in range(actions):
        menu[agent.randbelow(len(menu))]
    baseline_seconds = time.perf_counter() - started

    games_per_second = args.games / engine_seconds
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"games                 {args.games} (4 players, kingdom, {actions} actions)")
    print(f"engine                {engine_seconds:.3f} s = {games_per_second:.1f} games/s "
          f"({games_per_second / TARGET_GAMES_PER_SECOND:.2f} x target {TARGET_GAMES_PER_SECOND})")
    print(f"baseline (no rules)   {baseline_seconds:.3f} s")
    print(f"engine / baseline     {engine_seconds / baseline_seconds:.1f} x")
    print(f"per action            {engine_seconds / actions * 1e6:.1f} us")
    print(f"peak RSS              {peak_mib:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
