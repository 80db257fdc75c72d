"""Shared fixtures: the repository root and the reference saves that live beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REFERENCE_SAVES = REPO_ROOT.parent / "shared" / "reference-saves"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def reference_saves() -> dict[str, Path]:
    """The three real TTS saves by short name (``coinchesim``, ``canterbury``, ``arknova``)."""
    saves = {p.name.split("_")[0]: p for p in sorted(REFERENCE_SAVES.glob("*_TS_Save_1.json"))}
    assert saves, f"reference saves not found beside the checkout ({REFERENCE_SAVES.name})"
    return saves
