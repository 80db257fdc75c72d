"""Fixtures every game's end-to-end tests share: ``games``, the started games of a test (closed after it: each
its bridge process and its table)."""

from __future__ import annotations

import pytest

from tests.e2e.harness import LiveGame


@pytest.fixture
def games():
    started: list[LiveGame] = []
    yield started
    for game in started:
        game.close()
