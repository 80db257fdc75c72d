"""The registry of games the bridge adjudicates: game id (as the mod sends it) → service.

A *service* answers the adjudication requests of one game: ``request_types`` lists the types it handles and
``handle(request_type, body) -> dict`` returns a reply body. It raises :class:`bridge.rules.errors.RulesError`
subclasses for requests it refuses (their ``code`` is the envelope error code, ``bad_request`` or
``unknown_type``); any other exception is a bug, answered as ``internal`` by the session.

:func:`default_registry` registers every built-in game of :mod:`bridge.catalog` (and any designer's folder)
with a factory that loads its engine and data. Services are built lazily on first use, so an idle bridge
loads no game data. Building may happen from several threads at once; the registry builds each service
exactly once.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

from bridge.catalog import builtin_games, load, resolve_game
from bridge.errors import TtsmodError
from bridge.rules.game import Game


class GameService(Protocol):
    """What the session needs from a game."""

    request_types: Sequence[str]

    def handle(self, request_type: str, body: Mapping[str, Any]) -> dict[str, Any]: ...


class GameUnavailable(Exception):
    """A registered game could not be loaded (bad or missing data); the message is one line for the user."""


@dataclass
class FunctionService:
    """A service made of a request-type list and a function ``handle(request_type, body) -> dict``."""

    request_types: Sequence[str]
    handler: Callable[[str, Mapping[str, Any]], dict[str, Any]]

    def handle(self, request_type: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self.handler(request_type, body)


class GameRegistry:
    """Game id → lazily built :class:`GameService`."""

    def __init__(self) -> None:
        self._factories: dict[str, Callable[[], GameService]] = {}
        self._services: dict[str, GameService] = {}
        self._lock = threading.Lock()

    def register(self, game_id: str, factory: Callable[[], GameService]) -> None:
        """Add (or replace) a game; ``factory`` is called once, on the first request for it."""
        with self._lock:
            self._factories[game_id] = factory
            self._services.pop(game_id, None)

    def register_service(self, game_id: str, service: GameService) -> None:
        """Add (or replace) a game whose service is already built."""
        with self._lock:
            self._factories[game_id] = lambda: service
            self._services[game_id] = service

    def ids(self) -> list[str]:
        """Registered game ids, sorted."""
        with self._lock:
            return sorted(self._factories)

    def __contains__(self, game_id: object) -> bool:
        with self._lock:
            return game_id in self._factories

    def get(self, game_id: str) -> GameService:
        """The service for ``game_id``, built on first use.

        Raises ``KeyError`` for an unregistered id and :class:`GameUnavailable` when building fails with a
        user-facing error (bad game data); other exceptions from the factory propagate.
        """
        with self._lock:
            service = self._services.get(game_id)
            if service is not None:
                return service
            factory = self._factories[game_id]
            service = factory()
            self._services[game_id] = service
            return service


# --------------------------------------------------------------------------------------------------------
# Games from the catalog


@dataclass
class EngineService:
    """A game's engine with its validated data: answers the requests the engine declares."""

    engine: Game
    data: Any

    @property
    def request_types(self) -> Sequence[str]:
        return tuple(self.engine.request_types)

    def handle(self, request_type: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self.engine.handle(self.data, request_type, dict(body))


def catalog_factory(game_id: str, game: str | os.PathLike[str]) -> Callable[[], GameService]:
    """A factory loading ``game`` (a built-in id or a game folder) through :mod:`bridge.catalog` on first use;
    bad or missing data becomes :class:`GameUnavailable` naming ``game_id``."""

    def build() -> GameService:
        try:
            loaded = load(game)
        except TtsmodError as exc:
            raise GameUnavailable(f"{game_id}: game data failed to load: {exc}") from exc
        if loaded.meta.id != game_id:
            raise GameUnavailable(f"{game_id}: {game} holds the game {loaded.meta.id!r}, not {game_id!r}")
        return EngineService(loaded.engine, loaded.data)

    return build


def default_registry(game_dirs: Mapping[str, str | os.PathLike[str]] | None = None) -> GameRegistry:
    """The registry with every built-in game (:func:`bridge.catalog.builtin_games`), each loaded on first use.

    ``game_dirs`` maps a game id to a designer's folder: it replaces the built-in game of that id, or adds a
    game that is not built in (its folder's ``game.toml`` must carry that id).
    """
    registry = GameRegistry()
    sources: dict[str, str | os.PathLike[str]] = {game_id: game_id for game_id in builtin_games()}
    sources.update(game_dirs or {})
    for game_id, source in sources.items():
        registry.register(game_id, catalog_factory(game_id, source))
    return registry


def game_folder_sources(games: Sequence[str | os.PathLike[str]]) -> dict[str, str]:
    """``game_dirs`` for :func:`default_registry` from GAME arguments: each that is a game folder (not a
    built-in id) is served under the id its ``game.toml`` declares. A folder that is not a game raises
    :class:`bridge.errors.DataError` naming it."""
    builtin = builtin_games()
    sources: dict[str, str] = {}
    for game in games:
        if isinstance(game, str) and game in builtin:
            continue
        found = resolve_game(game)
        sources[found.meta.id] = str(found.folder)
    return sources
