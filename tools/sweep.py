"""Balance studies over a grid (``ttsmod sweep``): rule flags × player counts × bot line-ups, many bot games per
cell, on this machine or on a Dask cluster.

**The grid.** Each ``--set FLAG=v1,v2`` names a flag of the game's ``[rules]`` table (``game.toml``) and the
values to try, read with the type of the flag's own value there (:func:`flag_values`); the data of every
combination is parsed again by the game's engine, so a value the rules refuse is refused before any game is
played. A bot line-up is one bot per seat; a line-up shorter than the player count fills the extra seats with its
last bot (``normal,heuristic`` at 4 players is one search bot against three heuristics). Cells are ordered flags
first (the ``--set`` options in their order), then players, then line-ups.

**A cell is an arena run.** Game ``i`` of every cell is seeded ``game_seeds(seed, games)[i]`` and seats the
line-up rotated by ``i``, each bot seeded from the game's seed and its seat, exactly as :func:`tools.arena.arena`
does: a cell's figures are those of ``ttsmod arena`` with the same bots and seed on the game with those flags.
Every cell therefore deals from the same seeds (common random numbers): a difference between two cells is the
rules' or the bots', less the luck of the deal. A game's seed depends on (seed, game index) alone and its
bots' on the game's seed and seat, never on how the games are split into tasks or which worker plays them, so
the figures of a run on one core, on a process pool or on a Dask cluster are identical.

**Work.** The games of a cell are cut into tasks of many games (:func:`plan_tasks`); a task plays its games and
returns one record per game. Without a cluster the tasks run here or on a local process pool; with one they
are Dask tasks, the game's engine and data sent to each worker once (:class:`Payload`). Timing (seconds per
move) is kept apart from the figures (:attr:`SweepResult.timing`), so the figures of the same arguments are
byte-identical.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import pickle
import statistics
import threading
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from bridge import __version__
from bridge.errors import DataError, InputError, TtsmodError
from bridge.rules.game import Game
from bridge.rules.playout import game_seeds
from tools.arena import check_bots, play_one, summarise, wilson

SCHEMA_VERSION = 1
MAX_TASK_GAMES = 50
"""Most games in one task: enough that a task's overhead (a message, a pickled result) is small beside it, few
enough that progress moves and a slow task at the end costs little."""
TASKS_PER_WORKER = 8

SIM_REQUIREMENTS = ("dask[distributed]>=2024.1", "matplotlib>=3.7")
"""The ``sim`` extra of pyproject.toml (tests/tools/test_sweep.py checks they agree)."""

SIM_EXTRA_MESSAGE = (
    "ttsmod sweep needs Dask and matplotlib (ttsmod's sim extra): in a checkout pip install -e '.[sim]', "
    f"from a wheel pip install 'ttsmod-{__version__}-py3-none-any.whl[sim]', or pip install "
    + " ".join(f"'{requirement}'" for requirement in SIM_REQUIREMENTS))
"""ttsmod is not on PyPI, so ``pip install 'ttsmod[sim]'`` would find nothing: the message gives what works."""


class MissingExtra(TtsmodError):
    """The optional ``sim`` extra (Dask, matplotlib) is not installed: exit status 2."""

    exit_code = 2


class ClusterError(TtsmodError):
    """The Dask cluster could not be reached or started (exit status 1: the sweep could not run)."""

    exit_code = 1


def require_sim_extra() -> None:
    """Raise :class:`MissingExtra` unless Dask's distributed scheduler and matplotlib can be imported."""
    try:
        import dask.distributed  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingExtra(SIM_EXTRA_MESSAGE) from None


# --- the grid -------------------------------------------------------------------------------------------------


def split_values(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, braces and quotes: ``1,[1, 2],"a,b"`` → three values."""
    values, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            values.append(text[start:i].strip())
            start = i + 1
    values.append(text[start:].strip())
    return values


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a TOML array such as [1, 2]"
    if isinstance(value, dict):
        return "a TOML inline table such as { a = 1 }"
    return type(value).__name__


def _toml_value(text: str) -> Any:
    return tomllib.loads(f"value = {text}")["value"]


def parse_flag_value(flag: str, default: Any, text: str) -> Any:
    """``text`` read as a value of the type of ``default`` (the flag's value in ``game.toml``): TOML syntax
    (``true``, ``3``, ``0.5``, ``[1, 2]``, ``{ a = 1 }``), text bare or quoted. ``InputError`` in one line naming
    the flag otherwise."""
    def refuse() -> InputError:
        return InputError(f"--set {flag}={text}: {flag} is {_kind(default)} (game.toml [rules]: {flag} = "
                          f"{_show_toml(default)})")

    if isinstance(default, str):
        try:
            value = _toml_value(text)
        except tomllib.TOMLDecodeError:
            value = text
        if not isinstance(value, str):
            value = text
        if not value:
            raise refuse()
        return value
    try:
        value = _toml_value(text)
    except tomllib.TOMLDecodeError:
        raise refuse() from None
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise refuse()
    return value


def _show_toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_show_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_show_toml(v)}" for k, v in value.items()) + " }"
    return str(value)


def show_value(value: Any) -> str:
    """A flag value as the user writes it after ``--set FLAG=`` (TOML, text unquoted)."""
    return value if isinstance(value, str) else _show_toml(value)


def rule_flags(documents: Mapping[str, Any]) -> dict[str, Any]:
    """The game's rule flags and their values: the ``[rules]`` table of ``game.toml`` (empty when it has none)."""
    rules = documents.get("game.toml", {}).get("rules", {})
    return dict(rules) if isinstance(rules, dict) else {}


def flag_values(settings: Sequence[str], flags: Mapping[str, Any]) -> dict[str, list[Any]]:
    """``--set FLAG=v1,v2`` options → flag → its values, each read with the flag's own type; ``InputError`` in
    one line for a malformed option, an unknown or repeated flag, a value of the wrong type or a repeated value."""
    grid: dict[str, list[Any]] = {}
    for setting in settings:
        flag, equals, text = setting.partition("=")
        flag = flag.strip()
        if not equals or not flag or not text.strip():
            raise InputError(f"--set {setting}: expected FLAG=VALUE[,VALUE…]")
        if flag not in flags:
            close = difflib.get_close_matches(flag, list(flags), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            known = "" if flags else " (game.toml has no [rules] table)"
            raise InputError(f"--set {setting}: no rule flag {flag!r} in game.toml [rules]{known}{hint}")
        if flag in grid:
            raise InputError(f"--set {setting}: {flag} is set twice; give all its values in one --set")
        values = [parse_flag_value(flag, flags[flag], text) for text in split_values(text)]
        for i, value in enumerate(values):
            if value in values[:i]:
                raise InputError(f"--set {setting}: the value {show_value(value)} is given twice")
        grid[flag] = values
    return grid


def line_up(bots: Sequence[str], players: int) -> tuple[str, ...]:
    """One bot per seat for ``players`` seats from a line-up: the extra seats take its last bot."""
    if len(bots) > players:
        raise InputError(f"--bots {','.join(bots)}: {len(bots)} bots for {players} players")
    return tuple(bots) + (bots[-1],) * (players - len(bots))


@dataclass(frozen=True)
class Cell:
    """One point of the grid: the flags set (flag → value, in ``--set`` order), the player count, the bot of
    each seat, and which combination of flags it plays (an index into the sweep's parsed data)."""

    index: int
    flags: tuple[tuple[str, Any], ...]
    players: int
    bots: tuple[str, ...]
    variant: int

    def label(self) -> str:
        """``#3 · 2p · heuristic,random · hand_size=3``: how plots and the page name the cell."""
        flags = " ".join(f"{flag}={show_value(value)}" for flag, value in self.flags)
        return " · ".join(part for part in (f"#{self.index}", f"{self.players}p", ",".join(self.bots), flags) if part)


def flag_combinations(grid: Mapping[str, Sequence[Any]]) -> list[tuple[tuple[str, Any], ...]]:
    """Every combination of the flags' values, the first flag varying slowest; one empty one without flags."""
    combos: list[tuple[tuple[str, Any], ...]] = [()]
    for flag, values in grid.items():
        combos = [combo + ((flag, value),) for combo in combos for value in values]
    return combos


def make_cells(combos: Sequence[tuple[tuple[str, Any], ...]], players: Sequence[int],
               line_ups: Sequence[Sequence[str]]) -> list[Cell]:
    """The grid's cells: flag combinations × player counts × line-ups, in that order of nesting."""
    cells = []
    for variant, combo in enumerate(combos):
        for count in players:
            for bots in line_ups:
                cells.append(Cell(len(cells), combo, count, line_up(bots, count), variant))
    return cells


def with_flags(documents: Mapping[str, Any], combo: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A copy of the game's documents with the flags of ``combo`` set in ``game.toml``'s ``[rules]``."""
    changed = dict(documents)
    game_toml = copy.deepcopy(documents["game.toml"])
    for flag, value in combo:
        game_toml["rules"][flag] = copy.deepcopy(value)
    changed["game.toml"] = game_toml
    return changed


def parse_variants(engine: Game, documents: Mapping[str, Any], grid: Mapping[str, Sequence[Any]],
                   locate: Callable[[DataError], DataError] = lambda exc: exc) -> list[Any]:
    """The engine's data for every flag combination (:func:`flag_combinations` order). Each value is first
    parsed on its own, so a value the rules refuse is named alone: ``InputError`` in one line."""
    for flag, values in grid.items():
        for value in values:
            try:
                engine.parse(with_flags(documents, [(flag, value)]))
            except DataError as exc:
                raise InputError(f"--set {flag}={show_value(value)}: {locate(exc)}") from None
    variants = []
    for combo in flag_combinations(grid):
        try:
            variants.append(engine.parse(with_flags(documents, combo)))
        except DataError as exc:
            shown = " ".join(f"{flag}={show_value(value)}" for flag, value in combo)
            raise InputError(f"the cell {shown}: {locate(exc)}") from None
    return variants


# --- playing --------------------------------------------------------------------------------------------------


def play_game(engine: Game, data: Any, bots: Sequence[str], mode: str, index: int, game_seed: int,
              iterations: int | None = None) -> dict[str, Any]:
    """Game ``index`` of a cell, played as :func:`tools.arena.play_one` plays it (the same seating and bot
    seeds), with each seat's final score and the game's own ``summary`` of it."""
    return play_one(engine, data, bots, mode, index, game_seed, iterations, summary=True)


@dataclass(frozen=True)
class Task:
    """Some games of one cell: ``(game index, game seed)`` pairs."""

    cell: int
    games: tuple[tuple[int, int], ...]


def task_size(total_games: int, workers: int) -> int:
    """Games per task: about :data:`TASKS_PER_WORKER` tasks per worker, at most :data:`MAX_TASK_GAMES`."""
    return max(1, min(MAX_TASK_GAMES, -(-total_games // (max(1, workers) * TASKS_PER_WORKER))))


def plan_tasks(cells: Sequence[Cell], seeds: Sequence[int], size: int) -> list[Task]:
    """Each cell's games (indices and seeds) cut into tasks of at most ``size`` games, cell after cell."""
    work = list(enumerate(seeds))
    return [Task(cell.index, tuple(work[i:i + size])) for cell in cells for i in range(0, len(work), size)]


def play_task(engine: Game, data: Any, bots: Sequence[str], mode: str, games: Sequence[tuple[int, int]],
              iterations: int | None) -> list[dict[str, Any]]:
    """Every game of a task, in its order."""
    return [play_game(engine, data, bots, mode, index, game_seed, iterations) for index, game_seed in games]


class Payload:
    """The game's engine and the data of one flag combination, as a worker receives them: the engine module's
    name, the game folder (put on ``sys.path`` first, as the catalog does, for a game kept in its own folder) and
    the pickled pair, unpickled once per worker process."""

    _loaded: dict[str, tuple[Game, Any]] = {}
    _lock = threading.Lock()
    KEEP = 64   # a long-lived Dask worker serves sweep after sweep: keep only the latest games' data

    def __init__(self, engine_module: str, folder: str, engine: Game, data: Any) -> None:
        self.engine_module = engine_module
        self.folder = folder
        self.blob = pickle.dumps((engine, data), protocol=pickle.HIGHEST_PROTOCOL)
        self.key = hashlib.sha256(self.blob).hexdigest()

    def load(self) -> tuple[Game, Any]:
        with Payload._lock:
            loaded = Payload._loaded.get(self.key)
            if loaded is None:
                from bridge.catalog import import_game_module

                import_game_module(self.engine_module, self.folder)
                while len(Payload._loaded) >= Payload.KEEP:
                    Payload._loaded.pop(next(iter(Payload._loaded)))
                loaded = Payload._loaded[self.key] = pickle.loads(self.blob)
            return loaded


def run_payload_task(payload: Payload, bots: Sequence[str], mode: str, games: Sequence[tuple[int, int]],
                     iterations: int | None) -> list[dict[str, Any]]:
    """A task on a Dask worker (or a pool process): its games played with the payload's engine and data."""
    engine, data = payload.load()
    return play_task(engine, data, bots, mode, games, iterations)


_POOL_PAYLOADS: list[Payload] = []


def _start_pool_worker(payloads: list[Payload]) -> None:
    global _POOL_PAYLOADS
    _POOL_PAYLOADS = payloads


def _pool_task(variant: int, bots: Sequence[str], mode: str, games: Sequence[tuple[int, int]],
               iterations: int | None) -> list[dict[str, Any]]:
    return run_payload_task(_POOL_PAYLOADS[variant], bots, mode, games, iterations)


# --- the run --------------------------------------------------------------------------------------------------


@dataclass
class SweepResult:
    """A sweep's outcome: ``report`` (the JSON figures; a function of the arguments alone), ``timing`` (seconds,
    by cell and bot), and for the plots each cell's final scores by bot and game lengths."""

    report: dict[str, Any]
    timing: dict[str, Any]
    scores: list[dict[str, list[float]] | None] = field(default_factory=list)
    lengths: list[list[int]] = field(default_factory=list)


def five_numbers(values: Sequence[float]) -> dict[str, float]:
    """Minimum, quartiles, median and maximum (inclusive quartiles), rounded to 3 decimals."""
    ordered = sorted(values)
    if len(ordered) == 1:
        q1 = q3 = ordered[0]
    else:
        q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return {"min": round(ordered[0], 3), "q1": round(q1, 3), "median": round(statistics.median(ordered), 3),
            "q3": round(q3, 3), "max": round(ordered[-1], 3)}


def cell_row(engine: Game, cell: Cell, records: Sequence[dict[str, Any]], *, mode: str, seed: int,
             iterations: int | None) -> dict[str, Any]:
    """A cell's figures (one row of the CSV) from its games' records in game order."""
    games = len(records)
    arena = summarise(records, cell.bots, games=games, seed=seed, mode=mode, seconds=0.0, iterations=iterations)
    seat_wins = [0.0] * cell.players
    for record in records:
        for seat in record["winning_seats"]:
            seat_wins[seat] += 1.0 / len(record["winning_seats"])
    has_scores = all(r["seat_scores"] is not None for r in records)
    row: dict[str, Any] = {
        "cell": cell.index,
        "flags": {flag: value for flag, value in cell.flags},
        "players": cell.players,
        "bots": list(cell.bots),
        "games": games,
        "win_share": arena["win_share"],
        "win_share_ci": arena["win_share_ci"],
        "fair_share": arena["fair_share"],
        "win_share_by_seat": arena["win_share_by_seat"],
        "win_share_by_seat_ci": [wilson(w / games, games) for w in seat_wins],
        "mean_score": arena["mean_score"],
        "mean_score_by_seat": ([round(sum(r["seat_scores"][s] for r in records) / games, 3)
                                for s in range(cell.players)] if has_scores else None),
        "score_distribution": ({name: five_numbers(scores) for name, scores in bot_scores(cell, records).items()}
                               if has_scores else None),
        "mean_actions": arena["mean_actions"],
        "game_length": five_numbers([r["actions"] for r in records]),
        "figures": engine.aggregate([r["summary"] for r in records], cell.players),
    }
    return row


def bot_scores(cell: Cell, records: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    """Every final score of each bot name of the cell, game by game, seat entry by seat entry."""
    names = list(dict.fromkeys(cell.bots))
    return {name: [r["scores"][e] for r in records for e in range(cell.players) if cell.bots[e] == name]
            for name in names}


def cell_timing(cell: Cell, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    names = list(dict.fromkeys(cell.bots))
    per_bot = {}
    for name in names:
        entries = [e for e in range(cell.players) if cell.bots[e] == name]
        thought = sum(r["seconds"][e] for r in records for e in entries)
        moves = sum(r["moves"][e] for r in records for e in entries)
        per_bot[name] = round(thought / moves, 6) if moves else 0.0
    return {"cell": cell.index, "seconds_per_move": per_bot,
            "moves": sum(sum(r["moves"]) for r in records),
            "thinking_seconds": round(sum(sum(r["seconds"]) for r in records), 3)}


@dataclass
class Plan:
    """A checked grid, ready to play: its cells, the engine's data of each flag combination, the game seeds."""

    engine: Game
    engine_module: str
    folder: str
    game_id: str
    mode: str
    seed: int
    games: int
    iterations: int | None
    grid: dict[str, list[Any]]
    counts: list[int]
    line_ups: list[list[str]]
    cells: list[Cell]
    variants: list[Any]
    seeds: list[int]

    @property
    def total_games(self) -> int:
        return len(self.cells) * self.games


def plan_sweep(engine: Game, documents: Mapping[str, Any], *, engine_module: str, folder: str,
               settings: Sequence[str] = (), players: Sequence[int] | None = None,
               line_ups: Sequence[Sequence[str]] = (("random",),), games: int, seed: int = 0,
               mode: str | None = None, iterations: int | None = None,
               locate: Callable[[DataError], DataError] = lambda exc: exc) -> Plan:
    """Check a sweep's arguments and lay out its grid; ``InputError`` in one line for any bad one, before any
    game is played.

    ``documents`` are the game's parsed data files (``game.toml`` first), ``engine_module`` and ``folder`` what a
    worker imports to unpickle the engine (:class:`Payload`). ``settings`` are ``FLAG=v1,v2`` strings;
    ``players`` the player counts (default: each line-up at its own length, a one-bot line-up at the game's
    smallest count); ``line_ups`` bot names per seat (:func:`line_up`). ``locate`` turns a data error into one
    that names a spreadsheet's row (:meth:`bridge.spreadsheets.Origins.locate`).
    """
    if games < 1:
        raise InputError("--games must be at least 1")
    grid = flag_values(settings, rule_flags(documents))
    try:
        base = engine.parse(dict(documents))
    except DataError as exc:
        raise locate(exc) from None
    meta = engine.meta(base)
    mode = mode or meta.default_mode
    if mode not in meta.modes:
        raise InputError(f"--mode {mode}: this game has modes {', '.join(meta.modes)}")
    if not line_ups:
        raise InputError("--bots: name at least one bot")
    for bots in line_ups:
        try:
            check_bots(bots, 1, meta.max_players)
        except ValueError as exc:
            raise InputError(f"--bots {','.join(bots)}: {exc}") from None
    if players is None:
        counts = list(dict.fromkeys(max(len(bots), meta.min_players) for bots in line_ups))
    else:
        counts = list(dict.fromkeys(players))
    for count in counts:
        if not meta.min_players <= count <= meta.max_players:
            raise InputError(f"--players {count}: {meta.name.en} takes {meta.min_players} to {meta.max_players} "
                             "players")
    cells = make_cells(flag_combinations(grid), counts, line_ups)
    variants = parse_variants(engine, documents, grid, locate)
    return Plan(engine, engine_module, folder, meta.id, mode, seed, games, iterations, grid, counts,
                [list(bots) for bots in line_ups], cells, variants, game_seeds(seed, games))


def run_sweep(plan: Plan, *, jobs: int = 1, client: Any = None,
              progress: Callable[[int], None] | None = None) -> SweepResult:
    """Play every game of ``plan`` and return its figures. ``client`` is a ``dask.distributed.Client`` to run
    the tasks on; without one they run here (``jobs`` ≤ 1) or on ``jobs`` worker processes. ``progress(games)``
    is called as tasks finish. A game that never ends raises :class:`PlayoutDidNotEnd`."""
    engine, cells, mode, iterations = plan.engine, plan.cells, plan.mode, plan.iterations
    total = plan.total_games
    started = time.perf_counter()
    records: dict[int, list[dict[str, Any]]] = {cell.index: [] for cell in cells}
    if client is not None:
        from dask.distributed import as_completed as dask_completed

        payloads = [Payload(plan.engine_module, plan.folder, engine, data) for data in plan.variants]
        workers = max(1, sum(client.nthreads().values()))
        scattered = client.scatter(payloads, broadcast=True, hash=False)
        futures = {}
        for task in plan_tasks(cells, plan.seeds, task_size(total, workers)):
            cell = cells[task.cell]
            future = client.submit(run_payload_task, scattered[cell.variant], cell.bots, mode, task.games,
                                   iterations, pure=False)
            futures[future] = task
        for future in dask_completed(list(futures)):
            task = futures.pop(future)
            records[task.cell].extend(future.result())
            future.release()
            if progress:
                progress(len(task.games))
    elif jobs <= 1:
        for task in plan_tasks(cells, plan.seeds, task_size(total, 1)):
            cell = cells[task.cell]
            records[task.cell].extend(play_task(engine, plan.variants[cell.variant], cell.bots, mode, task.games,
                                                iterations))
            if progress:
                progress(len(task.games))
    else:
        payloads = [Payload(plan.engine_module, plan.folder, engine, data) for data in plan.variants]
        tasks = plan_tasks(cells, plan.seeds, task_size(total, jobs))
        with ProcessPoolExecutor(max_workers=jobs, initializer=_start_pool_worker, initargs=(payloads,)) as pool:
            pending = {pool.submit(_pool_task, cells[t.cell].variant, cells[t.cell].bots, mode, t.games,
                                   iterations): t for t in tasks}
            for future in as_completed(pending):
                task = pending[future]
                records[task.cell].extend(future.result())
                if progress:
                    progress(len(task.games))
    seconds = time.perf_counter() - started

    rows, timings, scores, lengths = [], [], [], []
    for cell in cells:
        played = sorted(records[cell.index], key=lambda r: r["index"])
        rows.append(cell_row(engine, cell, played, mode=mode, seed=plan.seed, iterations=iterations))
        timings.append(cell_timing(cell, played))
        has_scores = all(r["seat_scores"] is not None for r in played)
        scores.append(bot_scores(cell, played) if has_scores else None)
        lengths.append([r["actions"] for r in played])
    report = {
        "schema_version": SCHEMA_VERSION,
        "game": plan.game_id,
        "mode": mode,
        "seed": plan.seed,
        "games": plan.games,
        "iterations": iterations,
        "grid": {"flags": plan.grid, "players": plan.counts, "bots": plan.line_ups},
        "cells": rows,
    }
    moves = sum(t["moves"] for t in timings)
    thinking = sum(t["thinking_seconds"] for t in timings)
    timing = {
        "seconds": round(seconds, 3),
        "games": total,
        "moves": moves,
        "seconds_per_move": round(thinking / moves, 6) if moves else 0.0,
        "workers": (f"dask {sum(client.nthreads().values())} thread(s)" if client is not None
                    else f"{max(1, jobs)} process(es)"),
        "cells": timings,
    }
    return SweepResult(report, timing, scores, lengths)


def parse_line_ups(specs: Sequence[str]) -> list[list[str]]:
    """``--bots`` options (comma-separated names) → line-ups."""
    return [[name.strip() for name in spec.split(",")] for spec in specs]


def parse_players(text: str | None) -> list[int] | None:
    """``--players 2,3,4`` → ``[2, 3, 4]``; ``InputError`` for anything but whole numbers."""
    if text is None:
        return None
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise InputError(f"--players {text}: expected player counts such as 2,3,4") from None
    return counts


def connect(cluster: str, jobs: int) -> tuple[Any, Any]:
    """A Dask client for ``--cluster``: ``local`` starts a LocalCluster of ``jobs`` single-threaded worker
    processes (its own, closed with the client); ``tcp://host:port`` connects to a running scheduler. Returns
    ``(client, cluster or None)``; :class:`ClusterError` when it cannot."""
    import logging

    from dask.distributed import Client, LocalCluster

    if cluster == "local":
        try:
            local = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                 dashboard_address=None, silence_logs=logging.ERROR)
        except Exception as exc:  # noqa: BLE001 - any failure to start is reported in one line
            raise ClusterError(f"--cluster local: cannot start a local Dask cluster: {exc}") from None
        return Client(local), local
    if not cluster.startswith(("tcp://", "tls://")) or cluster.count(":") < 2:
        raise InputError(f"--cluster {cluster}: expected local or a scheduler address such as tcp://host:8786")
    try:
        return Client(cluster, timeout="15s"), None
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"--cluster {cluster}: cannot reach the Dask scheduler: {exc}") from None

