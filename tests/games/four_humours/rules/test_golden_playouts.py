"""Seeded random playouts replay exactly as recorded in golden_playouts.json: a change made for speed keeps
every game the same (actions, events, end, summary)."""

from __future__ import annotations

from pathlib import Path

from bridge.catalog import load
from tests.playoutgolden import check

GOLDEN = Path(__file__).with_name("golden_playouts.json")


def test_seeded_playouts_replay_as_recorded():
    check(load("four-humours"), GOLDEN)
