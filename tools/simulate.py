"""Random legal playouts of a game, for balance figures and speed (``ttsmod simulate``).

Each game gets its own seed drawn from the run's seed, and its random player draws from a separate stream,
so a run's figures depend only on (data, seed, games, players, mode) — not on ``jobs`` or on timing.
"""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from bridge.rules.four_humours import FourHumoursData, new_game
from bridge.rules.random import SeededRandom

MAX_ACTIONS_PER_GAME = 20_000  # a safety net: real games take a few hundred actions
_AGENT_STREAM = 0x5EED_A6E7


@dataclass(frozen=True)
class GameSummary:
    """What one playout produced."""

    seed: int
    rounds: int
    turns: int
    actions: int
    winners: tuple[int, ...]
    termination: str
    goals_in_play: tuple[str, ...]
    completions: tuple[tuple[str, int], ...]  # (goal, number of players who marked it)


def play_random_game(data: FourHumoursData, players: int, mode: str, seed: int) -> GameSummary:
    """Play one game in which every decision is drawn uniformly from the legal actions."""
    state = new_game(data, players, mode=mode, seed=seed)
    agent = SeededRandom(seed ^ _AGENT_STREAM)
    turns = actions = 0
    while not state.is_over():
        if actions >= MAX_ACTIONS_PER_GAME:
            raise RuntimeError(f"game with seed {seed} did not end within {MAX_ACTIONS_PER_GAME} actions")
        legal = state.legal_actions()
        action = legal[agent.randbelow(len(legal))]
        if action.name in ("place", "pass"):
            turns += 1
        state.apply(action)
        actions += 1
    outcome = state.outcome()
    assert outcome is not None
    return GameSummary(
        seed=seed,
        rounds=state.round_no,
        turns=turns,
        actions=actions,
        winners=outcome.winners,
        termination=outcome.termination.value,
        goals_in_play=tuple(state.goals),
        completions=tuple((g, len(state.marks[g])) for g in state.goals),
    )


def _play_batch(args: tuple[FourHumoursData, int, str, Sequence[int]]) -> list[GameSummary]:
    data, players, mode, seeds = args
    return [play_random_game(data, players, mode, s) for s in seeds]


def game_seeds(seed: int, games: int) -> list[int]:
    """The per-game seeds of a run."""
    rng = SeededRandom(seed)
    return [rng.next_u64() for _ in range(games)]


def simulate(
    data: FourHumoursData,
    *,
    games: int,
    seed: int = 0,
    players: int = 4,
    mode: str = "kingdom",
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` random games and return the figures as JSON (the keys are described in ``docs/simulate.md``).

    ``progress`` is called with the number of games just finished.  Timing fields are ``seconds`` and
    ``games_per_second``; every other field is a function of the arguments alone.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    seeds = game_seeds(seed, games)
    started = time.perf_counter()
    summaries: list[GameSummary] = []
    if jobs <= 1:
        for s in seeds:
            summaries.append(play_random_game(data, players, mode, s))
            if progress:
                progress(1)
    else:
        size = max(1, min(50, games // (jobs * 4) or 1))
        batches = [(data, players, mode, seeds[i : i + size]) for i in range(0, games, size)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for batch in pool.map(_play_batch, batches):
                summaries.extend(batch)
                if progress:
                    progress(len(batch))
    seconds = time.perf_counter() - started
    return summarize(summaries, players=players, mode=mode, seed=seed, seconds=seconds)


def summarize(summaries: Sequence[GameSummary], *, players: int, mode: str, seed: int, seconds: float) -> dict[str, Any]:
    games = len(summaries)
    wins = Counter(w for s in summaries for w in s.winners)
    appearances: Counter[str] = Counter()
    completions: Counter[str] = Counter()
    for s in summaries:
        appearances.update(s.goals_in_play)
        for goal, count in s.completions:
            completions[goal] += count
    return {
        "schema_version": 1,
        "games": games,
        "players": players,
        "mode": mode,
        "seed": seed,
        "seconds": round(seconds, 4),
        "games_per_second": round(games / seconds, 2) if seconds > 0 else None,
        "mean_rounds": round(sum(s.rounds for s in summaries) / games, 4),
        "mean_turns": round(sum(s.turns for s in summaries) / games, 4),
        "win_rate_by_seat": [round(wins[seat] / games, 4) for seat in range(players)],
        "shared_wins": round(sum(1 for s in summaries if len(s.winners) > 1) / games, 4),
        "terminations": dict(sorted(Counter(s.termination for s in summaries).items())),
        "goal_completion_rate": {
            goal: round(completions[goal] / (appearances[goal] * players), 4) for goal in sorted(appearances)
        },
    }
