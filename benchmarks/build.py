"""Benchmark: a cold build of a game against a no-op rebuild of the same folder, in one process.

    .venv/bin/python benchmarks/build.py [GAME ...] [--jobs N] [--runs N]

GAME is a built-in game id or a game folder; without one, every built-in game is measured in turn.

A cold build renders every image (empty output folder, so no cache); a no-op rebuild finds every image in
the cache and the save unchanged.  Target: no-op ≤ 5 % of cold.  Prints wall times, the CPU time of the cold
build (this process and its render workers: steadier than wall time on a shared machine, for comparing two
versions), the ratio and the peak RSS of this process (and of its render workers), and the disk the cold build
left in the output folder (its render cache, ``.cache/``, apart).  Nothing here asserts speed.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.catalog import builtin_games  # noqa: E402
from tools.build import build  # noqa: E402


def peak_rss_mib(who: int) -> float:
    kib = resource.getrusage(who).ru_maxrss  # KiB on Linux, bytes on macOS
    return kib / (1024 * 1024) if sys.platform == "darwin" else kib / 1024


def cpu_seconds() -> float:
    """User + system time of this process and of its waited-for children (the render workers) so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def disk_mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / (1024 * 1024)


def bench(game: str, jobs: int | None, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="ttsmod-bench-") as tmp:
        out = Path(tmp) / "out"
        start, cpu = time.perf_counter(), cpu_seconds()
        cold = build(game, out, jobs=jobs)
        cold_s, cold_cpu = time.perf_counter() - start, cpu_seconds() - cpu
        cache = out / ".cache"
        caches = ", ".join(f"{p.name} {disk_mib(p):.1f} MiB" for p in sorted(cache.iterdir()) if p.is_dir())
        noop = []
        for _ in range(runs):
            start = time.perf_counter()
            again = build(game, out, jobs=jobs)
            noop.append(time.perf_counter() - start)
            assert not again.save_changed and not again.changed_sheets, "a no-op rebuild rewrote files"
        best = min(noop)
        print(f"{game}")
        print(f"cold build      {cold_s:8.3f} s  ({len(cold.sheets)} images, "
              f"{cold.save_path.stat().st_size / 1024:.0f} KiB save)")
        print(f"cold build CPU  {cold_cpu:8.3f} s  (this process and its render workers)")
        print(f"disk            {disk_mib(out) - disk_mib(cache):8.1f} MiB output, {disk_mib(cache):.1f} MiB "
              f"render cache ({caches})")
        print(f"no-op rebuild   {best:8.3f} s  (best of {runs}: {', '.join(f'{t:.3f}' for t in noop)})")
        ratio = best / cold_s
        verdict = "meets" if ratio <= 0.05 else "misses"
        print(f"ratio           {ratio * 100:8.2f} %  ({verdict} the ≤ 5 % target)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="game ids or folders (default: every built-in game)")
    parser.add_argument("--jobs", type=int, default=None, help="render processes (default: all cores)")
    parser.add_argument("--runs", type=int, default=3, help="no-op rebuilds to time (the best is reported)")
    args = parser.parse_args()
    for game in args.games or sorted(builtin_games()):
        bench(game, args.jobs, args.runs)
    print(f"peak RSS        {peak_rss_mib(resource.RUSAGE_SELF):8.1f} MiB (this process), "
          f"{peak_rss_mib(resource.RUSAGE_CHILDREN):.1f} MiB (largest render worker)")


if __name__ == "__main__":
    main()
