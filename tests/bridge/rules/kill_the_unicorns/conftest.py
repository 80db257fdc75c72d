"""Fixtures of the Kill the Unicorns engine tests: the shipped sample data."""

from __future__ import annotations

import pytest

from tests.bridge.rules.kill_the_unicorns.tables import sample_data


@pytest.fixture(scope="session")
def ku_data():
    return sample_data()
