"""Every figure of the performance table in one run: printed with its target, and written as JSON.

    .venv/bin/python benchmarks/run.py [--out benchmarks-results.json] [--sizes 1000,5000,10000] [--quick] [--suite]

Rows (a user's view: whole processes where a user waits for a whole process):

- random 4-player playouts of every built-in game on one core, games/s, against the harness alone (the same
  random choices with no rules) measured in the same run;
- ``simulate --jobs 2`` (and every other job count up to the CPU count) against ``--jobs 1``;
- the synthetic large game (``benchmarks/largegame.py``: every game with a ``[benchmark]`` table, grown to each
  size) built cold with all cores, rebuilt with nothing changed, and rebuilt after one card's title changed (the
  best of ``--runs`` such rebuilds, each after another edit of that title) — whole ``ttsmod build`` processes,
  each with its peak RSS and the files it wrote; the growth of time and memory with the number of cards is
  shown, not assumed;
- a cold ``ttsmod build GAME`` of each built-in game (whole process, all cores) against the start of a bare Python
  process measured in the same run, with the body text height of each of its decks on its sheets (from the
  build's ``--json`` report: cap to baseline, in pixels) against its target;
- ``ttsmod pnp GAME`` after that build, twice: the card faces each PDF drew at print resolution (counted in the
  build folder's print cache; the second draws none) and its time, the second against the first;
- ``ttsmod --help`` and a no-op ``ttsmod build GAME`` of each built-in game, whole
  processes, against the start of a bare Python process measured in the same run;
- the bridge's ``legal`` request, p50 and p95, per game;
- the RSS of an idle bridge;
- with ``--suite``, the whole test suite as README's test command runs it, in CPU seconds.

Every process runs with Python's bytecode cache on, as a user's does (see :data:`USER_ENV`).

Nothing here asserts: a figure that misses its target is printed as such. ``--quick`` runs small sizes and counts
(a smoke run, not figures to quote).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
# ttsmod's root first, so that "bridge" is ttsmod's package and not benchmarks/bridge.py (loaded by file below)
sys.path[:0] = [str(ROOT)] + ([str(HERE)] if str(HERE) not in sys.path else [])

from bridge import __version__  # noqa: E402
from bridge.catalog import builtin_games  # noqa: E402

import largegame  # noqa: E402
import simulate as simulate_bench  # noqa: E402

TTSMOD = [sys.executable, "-c", "from tools.cli import main; main()"]

USER_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
"""The environment of every process measured: this one's, except that Python keeps its bytecode cache as it does
for a user (an installed package is compiled at install time, a checkout on first run). A shell that sets
PYTHONDONTWRITEBYTECODE would otherwise have every measured process compile ttsmod from source again (about a
quarter of a second of each build)."""

TARGETS = {
    "playouts_games_per_second": 1000,
    "jobs_two_over_one": 1.8,
    "cold_build_seconds_10000": 30.0,
    "build_peak_rss_mib": 1024.0,
    "noop_build_seconds_10000": 1.0,
    "edit_build_seconds_10000": 1.0,
    "edit_build_images_written": 1,
    "builtin_cold_build_seconds": 5.0,
    "body_text_px": 24,
    "second_pnp_faces_drawn": 0,
    "help_seconds": 0.08,
    "noop_build_seconds": 0.2,
    "legal_p50_ms": 1.0,
    "idle_bridge_rss_mib": 150.0,
    "suite_cpu_seconds": 500.0,
}


def run_process(args: list[str], cwd: Path) -> tuple[float, float, str]:
    """Run a whole process; its wall time (s), its peak RSS (MiB, the largest of it and its children) and its
    standard output."""
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=USER_ENV)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited with {done.returncode}")
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, done.stdout


def best_of(runs: int, once: Callable[[], float]) -> float:
    return min(once() for _ in range(runs))


def python_start(runs: int) -> float:
    """A bare interpreter's start to exit: the floor every whole-process figure stands on."""
    return best_of(runs, lambda: run_process([sys.executable, "-c", "pass"], ROOT)[0])


def process_seconds(args: list[str], cwd: Path, runs: int) -> float:
    return best_of(runs, lambda: run_process(args, cwd)[0])


def build_process(game: str, out: Path, cwd: Path) -> dict[str, Any]:
    """One whole ``ttsmod build GAME --out OUT --json`` in a process of its own (so its peak RSS is its own)."""
    probe = ("import json, resource, subprocess, sys, time\n"
             "t = time.perf_counter()\n"
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "s = time.perf_counter() - t\n"
             "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(json.dumps({'seconds': s, 'rc': p.returncode, 'out': p.stdout, 'err': p.stderr[-400:], "
             "'rss': r.ru_maxrss, 'cpu': r.ru_utime + r.ru_stime}))\n")
    done = subprocess.run([sys.executable, "-c", probe, *TTSMOD, "build", game, "--out", str(out), "--json"],
                          cwd=cwd, capture_output=True, text=True, check=True, env=USER_ENV)
    result = json.loads(done.stdout)
    if result["rc"] != 0:
        raise RuntimeError(f"ttsmod build {game} failed: {result['err']}")
    report = json.loads(result["out"])
    # CPU time (the build and its render processes): steadier than wall time on a shared machine
    return {"seconds": round(result["seconds"], 3), "cpu_seconds": round(result["cpu"], 3),
            "peak_rss_mib": round(result["rss"] / 1024, 1),
            "images_written": len(report["images_written"]), "save_written": report["save_written"],
            "decks": report.get("decks", [])}


def large_builds(sizes: list[int], work: Path, edits: int = 1) -> list[dict[str, Any]]:
    """Each growable game at each size: a cold build, a no-op rebuild, and ``edits`` rebuilds each after another
    edit of one card (the best of them counts, as the best run counts for the other whole-process figures: the
    same rebuild varies by a quarter from run to run on a shared machine; every time is in ``samples``)."""
    rows = []
    for game in largegame.growable_games():
        for cards in sizes:
            folder = largegame.make_large_game(game, work / f"{game}-{cards}", cards)
            out = work / f"{game}-{cards}-out"
            cold = build_process(str(folder), out, work)
            noop = build_process(str(folder), out, work)
            recipe = largegame.grow_recipe(game)
            data = folder / recipe["file"]
            text = data.read_text(encoding="utf-8")
            # one card's title edited: the last entry's, so the other sheets stay as they were; each edit gives
            # it another title, so each rebuild draws that card and repacks its sheet
            head, sep, last = text.rpartition(f"[[{recipe['table']}]]\n")
            made = []
            for number in range(1, max(1, edits) + 1):
                data.write_text(head + sep + last.replace('en = "', f'en = "Edited {number} ', 1), encoding="utf-8")
                made.append(build_process(str(folder), out, work))
            edit = dict(min(made, key=lambda run: run["seconds"]), samples=[run["seconds"] for run in made],
                        peak_rss_mib=max(run["peak_rss_mib"] for run in made))
            rows.append({"game": game, "cards": cards, "cold": cold, "noop": noop, "edit": edit})
    return rows


def builtin_cold_builds(work: Path) -> list[dict[str, Any]]:
    """A cold whole-process build of each built-in game (its folder kept for :func:`pnp_runs`)."""
    return [{"game": game, **build_process(game, work / f"cold-{game}", work)} for game in builtin_games()]


def pnp_runs(work: Path) -> list[dict[str, Any]]:
    """``ttsmod pnp GAME`` twice after the cold build of :func:`builtin_cold_builds`: each one's time and the card
    faces it drew at print resolution (new files of the print cache)."""
    rows = []
    for game in builtin_games():
        out = work / f"cold-{game}"
        prints = out / ".cache" / "print"
        runs = []
        for number in (1, 2):
            before = len(list(prints.glob("*.jpg"))) if prints.is_dir() else 0
            try:
                seconds, rss, _ = run_process([*TTSMOD, "pnp", game, "--build-dir", str(out),
                                               "--out", str(work / f"{game}-{number}.pdf")], work)
            except RuntimeError:
                break   # a game without printed sizes: no PDF
            runs.append({"seconds": round(seconds, 3), "faces_drawn": len(list(prints.glob("*.jpg"))) - before})
        if len(runs) == 2:
            rows.append({"game": game, "first": runs[0], "second": runs[1]})
    return rows


def noop_builds(work: Path, runs: int) -> dict[str, float]:
    figures = {}
    for game in builtin_games():
        out = work / f"noop-{game}"
        run_process([*TTSMOD, "build", game, "--out", str(out)], work)
        figures[game] = round(process_seconds([*TTSMOD, "build", game, "--out", str(out)], work, runs), 4)
    return figures


def suite_cpu() -> dict[str, Any]:
    """The whole test suite as README's test command runs it (``pytest -q -n auto``, every worker's CPU counted):
    CPU seconds (user + sys of the run and its workers) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "auto", "-p", "no:cacheprovider"], cwd=ROOT,
                          capture_output=True, text=True, env=USER_ENV)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return {"cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1), "passed": done.returncode == 0,
            "summary": last}


def verdict(value: float | None, target: float, higher_is_better: bool) -> str:
    if value is None:
        return "n/a"
    met = value >= target if higher_is_better else value <= target
    return "meets" if met else "misses"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("benchmarks-results.json"), help="where to write the JSON")
    parser.add_argument("--sizes", default="1000,5000,10000", help="card counts of the synthetic large game")
    parser.add_argument("--games", type=int, default=600, help="playouts per game")
    parser.add_argument("--runs", type=int, default=5, help="runs of each whole-process figure (the best counts)")
    parser.add_argument("--quick", action="store_true", help="small sizes and counts: a smoke run")
    parser.add_argument("--suite", action="store_true",
                        help="also run README's test command's pytest (-q -n auto) and count its CPU seconds")
    args = parser.parse_args()
    sizes = [100] if args.quick else [int(s) for s in args.sizes.split(",") if s]
    games = 60 if args.quick else args.games
    runs = 2 if args.quick else args.runs

    bridge_bench = _load_bridge_bench()

    results: dict[str, Any] = {"ttsmod": __version__, "cpus": os.cpu_count(), "targets": TARGETS, "quick": args.quick}
    results["playouts"] = [simulate_bench.measure(game, games) for game in builtin_games()]
    results["jobs"] = [simulate_bench.measure_jobs(game, games * 10) for game in builtin_games()]
    results["python_start_seconds"] = round(python_start(runs), 4)
    results["help_seconds"] = round(process_seconds([*TTSMOD, "--help"], ROOT, runs), 4)
    results["legal"] = [bridge_bench.measure_legal(game, 400 if args.quick else 2000) for game in builtin_games()]
    results["idle_bridge_rss_mib"] = bridge_bench.idle_bridge_rss_mib()
    results["suite"] = suite_cpu() if args.suite else None
    with tempfile.TemporaryDirectory(prefix="ttsmod-bench-") as tmp:
        work = Path(tmp)
        results["builtin_cold_builds"] = builtin_cold_builds(work)
        results["pnp"] = pnp_runs(work)
        results["noop_build_seconds"] = noop_builds(work, runs)
        results["large_builds"] = large_builds(sizes, work, runs)

    print_table(results)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {args.out}")
    return 0


def _load_bridge_bench():
    """``benchmarks/bridge.py`` under another name (``bridge`` is ttsmod's own package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bridge_bench", HERE / "bridge.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def print_table(results: dict[str, Any]) -> None:
    t = results["targets"]
    rows: list[tuple[str, str, str, str]] = []
    for row in results["playouts"]:
        rows.append((f"{row['game']} random {row['players']}-player playouts, one core",
                     f"{row['games_per_second']:.0f} games/s ({row['engine_over_baseline']:.0f}x the harness)",
                     f">= {t['playouts_games_per_second']}",
                     verdict(row["games_per_second"], t["playouts_games_per_second"], True)))
    for row in results["jobs"]:
        speedups = ", ".join(f"{jobs} jobs {speedup}x" for jobs, speedup in row["speedup"].items() if jobs != "1")
        rows.append((f"{row['game']} simulate --jobs N vs --jobs 1", speedups, f">= {t['jobs_two_over_one']}x (2 jobs)",
                     verdict(row["speedup"].get("2"), t["jobs_two_over_one"], True)))
    for row in results["large_builds"]:
        n = row["cards"]
        for kind, target_key in (("cold", "cold_build_seconds_10000"), ("noop", "noop_build_seconds_10000"),
                                 ("edit", "edit_build_seconds_10000")):
            figure = row[kind]
            target = t[target_key] if n == 10_000 else None
            samples = figure.get("samples", [])
            rows.append((f"{row['game']} {n:,} cards: {kind} build",
                         f"{figure['seconds']:.2f} s ({figure['cpu_seconds']:.2f} s CPU), "
                         f"{figure['peak_rss_mib']:.0f} MiB, "
                         f"{figure['images_written']} image(s) written"
                         + (f", best of {len(samples)}: {', '.join(f'{x:.2f}' for x in samples)}" if len(samples) > 1
                            else ""),
                         f"<= {target} s" if target is not None else "(growth)",
                         verdict(figure["seconds"], target, False) if target is not None else ""))
        if n == 10_000:
            cold, edit = row["cold"]["seconds"], row["edit"]["seconds"]
            rows.append((f"{row['game']} {n:,} cards: images an edit of one card rewrote",
                         f"{row['edit']['images_written']} (its sheet)", f"<= {t['edit_build_images_written']}",
                         verdict(row["edit"]["images_written"], t["edit_build_images_written"], False)))
            rows.append((f"{row['game']} {n:,} cards: cold / target, edit / target",
                         f"{cold / t['cold_build_seconds_10000']:.2f}x, {edit / t['edit_build_seconds_10000']:.2f}x", "<= 1x",
                         verdict(max(cold / t["cold_build_seconds_10000"], edit / t["edit_build_seconds_10000"]), 1, False)))
        peak = max(row[kind]["peak_rss_mib"] for kind in ("cold", "noop", "edit"))
        rows.append((f"{row['game']} {n:,} cards: peak RSS of any build", f"{peak:.0f} MiB",
                     f"< {t['build_peak_rss_mib']:.0f} MiB", verdict(peak, t["build_peak_rss_mib"], False)))
    start = results["python_start_seconds"]
    for row in results["builtin_cold_builds"]:
        rows.append((f"cold ttsmod build {row['game']}, whole process",
                     f"{row['seconds']:.2f} s ({row['cpu_seconds']:.2f} s CPU, {row['seconds'] / start:.0f}x python "
                     f"start, {row['seconds'] / t['builtin_cold_build_seconds']:.2f}x the target), "
                     f"{row['peak_rss_mib']:.0f} MiB",
                     f"<= {t['builtin_cold_build_seconds']} s", verdict(row["seconds"], t["builtin_cold_build_seconds"], False)))
        for deck in row["decks"]:
            height = deck.get("text_height")
            rows.append((f"{row['game']} {deck['name']}: body text on its sheet",
                         f"{height} px high in {deck['cell'][0]}x{deck['cell'][1]} cells, {deck['sheets']} sheet(s)"
                         + (f" ({height / t['body_text_px']:.2f}x the target)" if height else ""),
                         f">= {t['body_text_px']} px", verdict(height, t["body_text_px"], True)))
    for row in results["pnp"]:
        first, second = row["first"], row["second"]
        rows.append((f"ttsmod pnp {row['game']} after a build, twice",
                     f"{first['faces_drawn']} faces drawn in {first['seconds']:.2f} s, then {second['faces_drawn']} in "
                     f"{second['seconds']:.2f} s ({second['seconds'] / first['seconds']:.2f}x the first)",
                     f"second draws {t['second_pnp_faces_drawn']}",
                     verdict(second["faces_drawn"], t["second_pnp_faces_drawn"], False)))
    rows.append(("ttsmod --help, whole process", f"{results['help_seconds']:.3f} s ({results['help_seconds'] / start:.1f}x "
                 f"a bare python start of {start:.3f} s)", f"<= {t['help_seconds']} s",
                 verdict(results["help_seconds"], t["help_seconds"], False)))
    for game, seconds in results["noop_build_seconds"].items():
        rows.append((f"no-op ttsmod build {game}, whole process", f"{seconds:.3f} s ({seconds / start:.1f}x python start)",
                     f"<= {t['noop_build_seconds']} s", verdict(seconds, t["noop_build_seconds"], False)))
    for row in results["legal"]:
        if row["p50_ms"] is not None:
            rows.append((f"bridge legal request, {row['game']}", f"p50 {row['p50_ms']:.3f} ms, p95 {row['p95_ms']:.3f} ms",
                         f"<= {t['legal_p50_ms']} ms", verdict(row["p50_ms"], t["legal_p50_ms"], False)))
    idle = results["idle_bridge_rss_mib"]
    rows.append(("idle bridge RSS", f"{idle:.0f} MiB" if idle is not None else "n/a", f"< {t['idle_bridge_rss_mib']:.0f} MiB",
                 verdict(idle, t["idle_bridge_rss_mib"], False)))
    suite = results.get("suite")
    rows.append(("full test suite (pytest -q -n auto), CPU seconds",
                 f"{suite['cpu_seconds']:.0f} s CPU in {suite['wall_seconds']:.0f} s "
                 f"({suite['cpu_seconds'] / t['suite_cpu_seconds']:.2f}x the target; {suite['summary']})"
                 if suite else "n/a (run with --suite)", f"<= {t['suite_cpu_seconds']:.0f} s",
                 verdict(suite["cpu_seconds"] if suite and suite["passed"] else None, t["suite_cpu_seconds"], False)))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    print(f"ttsmod {results['ttsmod']} on {results['cpus']} CPU(s){' (quick run)' if results['quick'] else ''}")
    for figure, value, target, mark in rows:
        print(f"{figure:<{widths[0]}}  {value:<{widths[1]}}  {target:<{widths[2]}}  {mark}")
    playouts = [r["peak_rss_mib"] for r in results["playouts"]]
    if playouts:
        print(f"peak RSS of this process (playouts, bridge requests): {max(playouts):.0f} MiB")


if __name__ == "__main__":
    sys.exit(main())
