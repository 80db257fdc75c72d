"""Fixtures of the Four Humours end-to-end tests: the game data and one built save per mode for the whole run
(``games``, which closes the started games, is tests/conftest.py's)."""

from __future__ import annotations

import pytest

from bridge.catalog import load_game
from tests.sharedbuild import shared_save


@pytest.fixture(scope="session")
def data():
    return load_game("four-humours")


@pytest.fixture(scope="session")
def kingdom_save(tmp_path_factory, repo_root):
    return shared_save(tmp_path_factory, repo_root, "four-humours", "--mode", "kingdom")


@pytest.fixture(scope="session")
def fief_save(tmp_path_factory, repo_root):
    return shared_save(tmp_path_factory, repo_root, "four-humours", "--mode", "fief")
