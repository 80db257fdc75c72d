"""Fixtures of the 15 Days engine tests: the shipped sample data."""

from __future__ import annotations

import pytest

from tests.games.fifteen_days.rules.tables import sample_data


@pytest.fixture(scope="session")
def fd_data():
    return sample_data()
