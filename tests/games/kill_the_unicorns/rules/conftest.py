"""Fixtures of the Kill the Unicorns engine tests: the shipped sample data."""

from __future__ import annotations

import pytest

from tests.games.kill_the_unicorns.rules.tables import sample_data


@pytest.fixture(scope="session")
def ku_data():
    return sample_data()
