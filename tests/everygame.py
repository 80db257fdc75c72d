"""The games every shared test plays, and how such a test asks what a game declares.

The games are every built-in game and every game folder kept in ``tests/games/`` (found, not listed: a folder
there is played by being there, as a built-in game is by being in ``assets/``). A shared test takes them all as
parameters (:data:`GAMES`, or :func:`game_sources`) — never "the first game" — and calls :func:`require` for each
optional capability it needs (:data:`tools.games.builder.CAPABILITIES`): a game that does not declare it skips
that test, with the reason, instead of failing on what it never promised.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from bridge.catalog import LoadedGame, builtin_games, load, load_documents, resolve_game
from tools.games.builder import capabilities, capability

GAME_FOLDERS: list[Path] = sorted(folder for folder in (Path(__file__).resolve().parent / "games").iterdir()
                                  if (folder / "game.toml").is_file())
"""Game folders outside ``assets/`` that every shared test plays too: those the tests keep in ``tests/games/``."""


def game_sources() -> list[str]:
    """The GAME argument of every game the shared tests play: each built-in id, then each folder of
    :data:`GAME_FOLDERS`."""
    return list(builtin_games()) + [str(folder) for folder in GAME_FOLDERS]


def source_id(source: str) -> str:
    """A short test id for a GAME argument: the id itself, or the folder's name."""
    return Path(source).name


GAMES = [pytest.param(source, id=source_id(source)) for source in game_sources()]
"""Every game the shared tests play, as ``pytest.mark.parametrize`` or fixture parameters."""


@lru_cache(maxsize=None)
def _declared(folder: Path) -> frozenset[str]:
    return capabilities(load(folder))


def declares(game: LoadedGame, name: str) -> bool:
    """Whether ``game`` declares the capability ``name`` (one of :data:`tools.games.builder.CAPABILITIES`)."""
    capability(name)   # a misspelt name is the test's own error, not a game's lack
    return name in _declared(game.folder)


def require(game: LoadedGame, *names: str) -> None:
    """Skip the calling test, saying why, unless ``game`` declares every capability of ``names``."""
    __tracebackhide__ = True    # pytest -rs then names the calling test's line, not this one
    for name in names:
        if not declares(game, name):
            pytest.skip(f"{game.meta.id} declares no {name} ({capability(name).declared_by})")


def games_declaring(*names: str):
    """A fixture (assign it to a module's ``game``) whose parameters are :data:`GAMES`: it gives the GAME argument
    of each, and skips the test, saying why, for a game that does not declare every capability of ``names``."""
    @pytest.fixture(params=GAMES)
    def game(request) -> str:
        require(load(request.param), *names)
        return request.param
    return game


def documents(game: str) -> dict:
    """The parsed data files of GAME, by file name (:func:`bridge.catalog.load_documents`)."""
    found = resolve_game(game)
    return load_documents(found.folder, found.meta)
