"""Bots for any game on the shared interface: a seat's player that sees only what the seat may know.

:func:`make_bot` builds one by name (:data:`BOT_NAMES`):

========== ===========================================================================================
name       how it plays
========== ===========================================================================================
random     any legal action, all equally likely
heuristic  the game's own heuristic policy (``Game.heuristic(data)``; random for a game without one)
easy       the heuristic
normal     ISMCTS (:mod:`bridge.rules.bots.ismcts`), :data:`LEVELS` ["normal"] iterations a move (or the game's own
           ``search_levels``, :func:`search_iterations`), heuristic playouts
hard       the same search with :data:`LEVELS` ["hard"] iterations a move (or the game's)
========== ===========================================================================================

A bot owns its random stream, seeded at birth: the same seed and the same view give the same move. Pure.
"""

from __future__ import annotations

from typing import Any, Sequence

from bridge.rules.bots.ismcts import Ismcts
from bridge.rules.game import Game, Policy, heuristic_policy, own_actions, random_policy
from bridge.rules.random import SeededRandom

LEVELS: dict[str, int] = {"normal": 200, "hard": 1000}
"""Search iterations a move at each search level (easy is the heuristic, no search)."""

BOT_NAMES: tuple[str, ...] = ("random", "heuristic", "easy", "normal", "hard")
"""Every bot :func:`make_bot` knows, weakest first."""

BOT_STREAM = 0xB07_5EED
"""Mixed into a bot's seed, so its stream never coincides with a game's own."""


class Bot:
    """A seat's player: ``choose(state)`` returns one of ``state.legal_actions()`` for ``state.to_move()``."""

    def __init__(self, name: str, rng: SeededRandom, policy: Policy | None = None,
                 search: Ismcts | None = None) -> None:
        self.name = name
        self.rng = rng
        self.policy = policy
        self.search = search

    def choose(self, state: Any, legal: Sequence[Any] | None = None) -> Any:
        if legal is None:
            legal = own_actions(state.legal_actions(), state.to_move())
        if not legal:
            raise ValueError("no legal action: the game is over or waits for nobody")
        if self.search is not None:
            return self.search.choose(state, legal)
        if len(legal) == 1:
            return legal[0]
        return self.policy(state, legal, self.rng)

    def __repr__(self) -> str:
        return f"Bot({self.name!r})"


def search_iterations(game: Game, level: str) -> int:
    """Search iterations a move at ``level`` for ``game``: the game's optional ``search_levels`` (level ->
    iterations, for a game whose moves are cheaper or dearer to search than most) where it names the level, else
    :data:`LEVELS`."""
    own = getattr(game, "search_levels", None) or {}
    return own.get(level) or LEVELS[level]


def make_bot(name: str, game: Game, data: Any, players: int, *, seed: int = 0,
             iterations: int | None = None) -> Bot:
    """The bot called ``name`` (one of :data:`BOT_NAMES`) for a game of ``players`` seats, seeded with ``seed``;
    ``iterations`` overrides a search level's budget. ``ValueError`` for an unknown name."""
    rng = SeededRandom(seed ^ BOT_STREAM)
    if name == "random":
        return Bot(name, rng, random_policy)
    if name in ("heuristic", "easy"):
        return Bot(name, rng, heuristic_policy(game, data))
    if name in LEVELS:
        search = Ismcts(game, players, iterations=iterations or search_iterations(game, name), rng=rng,
                        policy=heuristic_policy(game, data))
        return Bot(name, rng, search=search)
    raise ValueError(f"unknown bot {name!r} (expected one of {', '.join(BOT_NAMES)})")
