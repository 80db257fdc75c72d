"""Random legal playouts of any game on the shared interface (:class:`bridge.rules.game.Game`).

One loop serves ``ttsmod simulate``, the property and conformance tests and ``benchmarks/simulate.py``: every
decision is drawn uniformly from ``state.legal_actions()`` by a *chooser* — a :class:`SeededRandom` of its own,
kept apart from the game's randomness (bag draws, shuffles), so the game's own stream is exactly what the
seed gives and a playout depends only on (data, players, mode, seed). Drawn actions are played with the
game's unchecked ``apply_trusted`` when it has one (:func:`bridge.rules.game.trusted_apply`), or, when no
``on_step`` reads the events, its ``apply_quiet`` that makes none (:func:`bridge.rules.game.quiet_apply`).

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from bridge.rules.game import Game, GameState, quiet_apply, trusted_apply
from bridge.rules.random import SeededRandom

CHOOSER_STREAM = 0x5EED_A6E7
"""Mixed into a game's seed to seed its chooser: the two random streams never coincide."""

MAX_ACTIONS = 20_000
"""Safety cap on the actions of one playout: real games take a few hundred, so more means a game that cannot end."""

StepCallback = Callable[[Any, Any, list], None]
"""``on_step(state, action, events)``, called after every applied action with the state as it is then."""


class PlayoutDidNotEnd(RuntimeError):
    """A playout reached its action cap before the game was over: a rules bug (a game must always end)."""


@dataclass
class Playout:
    """A finished random playout: its seed, the final state and every action applied, in order."""

    seed: int
    state: Any
    actions: list[Any]


def chooser_for(seed: int) -> SeededRandom:
    """The random source that picks the actions of the playout of ``seed``."""
    return SeededRandom(seed ^ CHOOSER_STREAM)


def play_out(state: GameState, chooser: SeededRandom, *, seed: int = 0, max_actions: int = MAX_ACTIONS,
             on_step: StepCallback | None = None) -> list[Any]:
    """Play ``state`` to its end with actions drawn by ``chooser``; return the actions applied, in order.

    Raises :class:`PlayoutDidNotEnd` (naming ``seed``) once ``max_actions`` actions did not end the game.
    """
    actions: list[Any] = []
    # Bound once: this loop runs for every decision of every playout. Actions come from legal_actions(), so
    # the game's unchecked apply (if it has one) plays them; without on_step nobody reads the events, so the
    # game's apply_quiet (if it has one) need not make them.
    apply = trusted_apply(state) if on_step is not None else quiet_apply(state)
    is_over, legal_actions = state.is_over, state.legal_actions
    randbelow, append = chooser.randbelow, actions.append
    count = 0
    while not is_over():
        if count >= max_actions:
            raise PlayoutDidNotEnd(f"game with seed {seed} did not end within {max_actions} actions")
        legal = legal_actions()
        action = legal[randbelow(len(legal))]
        events = apply(action)
        append(action)
        count += 1
        if on_step is not None:
            on_step(state, action, events)
    return actions


def play_random_game(game: Game, data: Any, players: int, *, mode: str | None = None, seed: int = 0,
                     max_actions: int = MAX_ACTIONS, on_step: StepCallback | None = None) -> Playout:
    """A new game of ``game`` (``players`` seats, ``mode`` or the game's default, ``seed``) played out at random."""
    state = game.new_game(data, players, mode=mode, seed=seed)
    actions = play_out(state, chooser_for(seed), seed=seed, max_actions=max_actions, on_step=on_step)
    return Playout(seed, state, actions)


def game_seeds(seed: int, games: int) -> list[int]:
    """The per-game seeds of a run of ``games`` playouts seeded with ``seed``."""
    rng = SeededRandom(seed)
    return [rng.next_u64() for _ in range(games)]


def seat_figures(winners: Sequence[Sequence[int]], players: int) -> dict[str, Any]:
    """Win figures every game reports (``win_rate_by_seat``, ``shared_wins``), from each game's winning seats.

    A seat sharing a win counts as winning; ``shared_wins`` is the share of games with more than one winner.
    Rates are rounded to 4 decimals.
    """
    games = len(winners)
    wins = [0] * players
    for seats in winners:
        for seat in seats:
            wins[seat] += 1
    return {
        "win_rate_by_seat": [round(wins[seat] / games, 4) for seat in range(players)],
        "shared_wins": round(sum(1 for seats in winners if len(seats) > 1) / games, 4),
    }
