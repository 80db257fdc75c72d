"""Fixtures of the Kill the Unicorns end-to-end tests: the game data, one built save for the whole run, and :func:`start`
(``games``, which closes them, is tests/conftest.py's)."""

from __future__ import annotations

import pytest

from bridge.catalog import load_game
from tests.games.kill_the_unicorns.e2e.harness import Game
from tests.sharedbuild import shared_save


@pytest.fixture(scope="session")
def data():
    return load_game("kill-the-unicorns")


@pytest.fixture(scope="session")
def save(tmp_path_factory, repo_root):
    return shared_save(tmp_path_factory, repo_root, "kill-the-unicorns")


def start(games, save, data, repo_root, colours, seed) -> Game:
    """A game seated with ``colours``, its bridge up and Setup pressed; closed with the test."""
    return Game.started(games, save, data, repo_root, list(colours), seed=seed)
