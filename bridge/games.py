"""The registry of games the bridge adjudicates: game id (as the mod sends it) → service.

A *service* answers the adjudication requests of one game: ``request_types`` lists the types it handles and
``handle(request_type, body) -> dict`` returns a reply body. It raises :class:`bridge.rules.errors.RulesError`
subclasses for requests it refuses (their ``code`` is the envelope error code, ``bad_request`` or
``unknown_type``); any other exception is a bug, answered as ``internal`` by the session.

Services are built lazily on first use, so an idle bridge loads no game data (and no Pillow). Building may
happen from several threads at once; the registry builds each service exactly once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence


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
# Four Humours

FOUR_HUMOURS = "four-humours"


class FourHumoursService:
    """Four Humours through the engine's ``bridge.rules.four_humours.service`` module and validated data."""

    def __init__(self, data: Any) -> None:
        from bridge.rules.four_humours import service as engine

        self._engine = engine
        self._data = data
        self.request_types = tuple(engine.REQUEST_TYPES)

    def handle(self, request_type: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._engine.handle_request(self._data, request_type, dict(body))


def four_humours_factory(game: str = "four-humours") -> Callable[[], GameService]:
    """A factory loading Four Humours data from ``game`` (a built-in game name or a folder) on first use."""

    def build() -> GameService:
        from bridge.errors import TtsmodError
        from bridge.catalog import load_game

        try:
            data = load_game(game)
        except TtsmodError as exc:
            raise GameUnavailable(f"{FOUR_HUMOURS}: game data failed to load: {exc}") from exc
        return FourHumoursService(data)

    return build


def default_registry(game_dirs: Mapping[str, str] | None = None) -> GameRegistry:
    """The registry with every built-in game; ``game_dirs`` may point a game id at a designer's folder."""
    game_dirs = dict(game_dirs or {})
    registry = GameRegistry()
    registry.register(FOUR_HUMOURS, four_humours_factory(game_dirs.get(FOUR_HUMOURS, FOUR_HUMOURS)))
    return registry
