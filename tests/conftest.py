"""Shared fixtures: the repository root, the reference saves that live beside the checkout, the bridge tests' kit
and the games an end-to-end test starts.

Every test in a folder named ``e2e`` (a game's ``tests/games/<game>/e2e/``, or ``tests/e2e/``) is marked ``e2e``
here, so ``-m "not e2e"`` leaves them out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import REPO_ROOT, require_shared

TESTS_DIR = REPO_ROOT / "tests"
E2E_FOLDER = "e2e"


def in_e2e_folder(path: Path) -> bool:
    """Whether the test file ``path`` lies in a folder named :data:`E2E_FOLDER` below ``tests/``."""
    try:
        folders = path.resolve().relative_to(TESTS_DIR).parts[:-1]
    except ValueError:
        return False
    return E2E_FOLDER in folders


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if in_e2e_folder(Path(item.path)):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def reference_saves() -> dict[str, Path]:
    """The three real TTS saves by short name (``coinchesim``, ``canterbury``, ``arknova``).

    Skipped when ``../shared/reference-saves/`` is absent (a bare clone); a failure in CI.
    """
    folder = require_shared("reference-saves")
    saves = {p.name.split("_")[0]: p for p in sorted(folder.glob("*_TS_Save_1.json"))}
    assert saves, f"no *_TS_Save_1.json in {folder.name}/ beside the checkout"
    return saves


@pytest.fixture
def kit():
    """``tests/bridgekit.py``: a toy game service, a Lua-backed fake TTS, and a way to run a bridge with both."""
    from tests import bridgekit

    return bridgekit


@pytest.fixture
def games():
    """The games an end-to-end test starts (``tests/e2e/harness.py``'s ``LiveGame``, appended by the test or its
    game's fixtures): each closed after the test, its bridge process and its table."""
    started = []
    yield started
    for game in started:
        game.close()
