"""``ttsmod selftest`` on a 15 Days table: its [selftest] targets (one shared season deck, market columns, board
corner snap points) let every probe run, and every probe passes on the faithful headless table."""

from __future__ import annotations

import json

import pytest

from tests.selftestrun import Runner, table_state
from tests.sharedbuild import shared_save
from tools.headless import Table
from tools.selftest import PASS, PROBE_NAMES

pytestmark = pytest.mark.e2e   # a built save, a selftest process and a table


@pytest.fixture(scope="module")
def save(tmp_path_factory, repo_root):
    return shared_save(tmp_path_factory, repo_root, "fifteen-days")


def test_every_probe_runs_and_passes_on_a_fifteen_days_table(save, repo_root, tmp_path):
    from tests.livebridge import free_port

    table = Table.load(save, seed=3, bridge_port=free_port(), listen_port=0)
    try:
        table.seat("White", "Red")
        table.boot()
        table.step(5)
        before = table_state(table)
        report = tmp_path / "selftest.json"
        done = Runner(table, table.endpoint.editor_port, repo_root).run("--report", str(report))
        written = json.loads(report.read_text(encoding="utf-8"))
        by_name = {p["probe"]: p for p in written["probes"]}
        assert written["game"] == "fifteen-days", written
        assert list(by_name) == list(PROBE_NAMES)
        assert {name: p["verdict"] for name, p in by_name.items()} == dict.fromkeys(PROBE_NAMES, PASS), \
            done.stdout + done.stderr
        assert done.returncode == 0 and "Traceback" not in done.stderr
        table.run_until(lambda: table.settled, max_seconds=5)
        assert table_state(table) == before       # the deck, the market and the boards as they were
    finally:
        table.close()
