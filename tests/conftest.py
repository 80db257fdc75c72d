"""Shared fixtures: the repository root and the reference saves that live beside the checkout.

Tests under ``tests/e2e/`` are marked ``e2e`` here, so ``-m "not e2e"`` leaves them out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import REPO_ROOT, require_shared

E2E_DIR = REPO_ROOT / "tests" / "e2e"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_DIR in Path(item.path).resolve().parents:
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
