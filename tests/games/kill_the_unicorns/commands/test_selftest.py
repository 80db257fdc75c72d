"""``ttsmod selftest`` on a Kill the Unicorns table after Setup (its [selftest] targets: trick cards dealt from a
character's trick deck, laid on the seat mats by Setup; the line zones and the unicorns on them; the trick snap
points): every probe passes on the faithful headless table and leaves it as it was, and a misconfigured table is
reported probe by probe."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bridge.catalog import load_game
from tests.games.kill_the_unicorns.e2e.harness import Game
from tests.sharedbuild import shared_save
from tests.selftestrun import Runner, table_state
from tools.headless import Fidelity
from tools.selftest import DIFFERS, PASS, PROBE_NAMES

pytestmark = pytest.mark.e2e   # a built save, a bridge, a selftest process and a table

COLOURS = ["White", "Red", "Orange"]


@pytest.fixture(scope="module")
def save(tmp_path_factory, repo_root):
    return shared_save(tmp_path_factory, repo_root, "kill-the-unicorns")


def _after_setup(save, repo_root, fidelity: Fidelity) -> Game:
    """A table on which Setup has been pressed through a real bridge; then the bridge stops and the selftest
    takes its port, as a host does."""
    game = Game(save, load_game("kill-the-unicorns"), repo_root, COLOURS, seed=3, fidelity=fidelity)
    game.start()
    game.bridge.stop()
    return game


def _run(game: Game, repo_root, report, *args: str):
    return Runner(game.table, game.bridge.port, repo_root).run("--report", str(report), *args)


def test_every_probe_passes_after_setup_and_leaves_the_table_as_it_was(save, repo_root, tmp_path):
    game = _after_setup(save, repo_root, Fidelity.faithful())
    try:
        # the host saves the game before the selftest, as docs/selftest.md tells: the reload probe's Save & Play
        # reloads the game as last saved, and TTS discards the Setup made since (issue #24 row 4,
        # Fidelity.save_and_play_discards)
        game.table.save()
        before = table_state(game.table)
        report = tmp_path / "selftest.json"
        done = _run(game, repo_root, report)
        written = json.loads(report.read_text(encoding="utf-8"))
        by_name = {p["probe"]: p for p in written["probes"]}
        assert written["game"] == "kill-the-unicorns", written
        assert list(by_name) == list(PROBE_NAMES)
        assert {name: p["verdict"] for name, p in by_name.items()} == dict.fromkeys(PROBE_NAMES, PASS), \
            done.stdout + done.stderr
        assert done.returncode == 0 and "Traceback" not in done.stderr
        assert "saw a card move" in by_name["zone"]["tts_did"]     # a unicorn of the line, not the marker
        game.table.run_until(lambda: game.table.settled, max_seconds=5)
        # the trick decks, the dealt trick, the line and the first-player token as they were
        assert table_state(game.table) == before
        assert game.table.global_env["TTSMOD_SELFTEST"] is None
    finally:
        game.close()


def test_a_misconfigured_table_names_the_probes_that_differ(save, repo_root, tmp_path):
    # integers where TTS sends floats, and zones that update when read: those two probes must say so
    fidelity = dataclasses.replace(Fidelity.faithful(), numbers_as_floats=False, zones_update_per_frame=False)
    game = _after_setup(save, repo_root, fidelity)
    try:
        report = tmp_path / "selftest.json"
        done = _run(game, repo_root, report, "--skip", "reload")
    finally:
        game.close()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    written = json.loads(report.read_text(encoding="utf-8"))
    assert written["passed"] is False
    assert {p["probe"]: p["verdict"] for p in written["probes"]} == {
        "messages": DIFFERS, "hand": PASS, "zone": DIFFERS, "snap": PASS, "smooth": PASS, "merge": PASS,
        "reload": "skipped"}
    rows = {line.split()[0]: line.rstrip() for line in done.stdout.splitlines()
            if line.split(" ", 1)[0] in PROBE_NAMES}
    assert rows["messages"].endswith(DIFFERS) and rows["zone"].endswith(DIFFERS)
