"""``ttsmod sweep``: the grid's files (CSV, JSON, PNG, index.html) with a row per cell, a cell equal to the arena
run it stands for, the same numbers on a Dask cluster, the same bytes for the same seed, one-line exit-2 errors.

The grid is played on the tests' toy game (tests/games/pebble_race/, a game kept in its own folder, so the workers
of a Dask cluster must import its engine from there): short games, one rule flag (hand_size), no scores. Every
game (tests.everygame) shows that a cell is an arena run, with the scores of those that keep them."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.catalog import load, read_documents, resolve_game
from bridge.errors import InputError
from tools import sweep as sweep_module
from tests.everygame import GAMES, declares
from tools.arena import arena
from tools.cli import cli
from tools.sweep import flag_values, line_up, parse_flag_value, plan_sweep, run_sweep, split_values, task_size
from tools.sweep_report import OUTPUTS, csv_text, plot_scores

TOY = str(Path(__file__).resolve().parent.parent / "games" / "pebble_race")
GRID = ["--set", "hand_size=2,3", "--players", "2,3", "--bots", "heuristic,random", "--games", "4",
        "--seed", "3"]
PNG = b"\x89PNG\r\n\x1a\n"


def run(*args: str):
    return CliRunner().invoke(cli, ["sweep", TOY, *args])


def plan(game: str = TOY, **overrides):
    found = resolve_game(game)
    documents, _ = read_documents(found.folder, found.meta)
    arguments = dict(settings=["hand_size=2,3"], players=[2, 3], line_ups=[["heuristic", "random"]], games=4,
                     seed=3)
    arguments.update(overrides)
    return plan_sweep(found.engine(), documents, engine_module=found.meta.engine, folder=str(found.folder),
                      **arguments)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "study"
    result = run(*GRID, "--out", str(out))
    assert result.exit_code == 0, result.output
    return out, result


def test_a_small_grid_writes_a_row_per_cell_plots_and_a_page(swept):
    out, result = swept
    written = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert written == sorted(set(OUTPUTS) - {"scores.png"})   # the toy game keeps no scores
    report = json.loads((out / "results.json").read_text())
    cells = report["cells"]
    assert [(c["flags"], c["players"], c["bots"]) for c in cells] == [
        ({"hand_size": 2}, 2, ["heuristic", "random"]), ({"hand_size": 2}, 3, ["heuristic", "random", "random"]),
        ({"hand_size": 3}, 2, ["heuristic", "random"]), ({"hand_size": 3}, 3, ["heuristic", "random", "random"])]
    for cell in cells:
        assert cell["games"] == 4
        assert sum(cell["win_share"].values()) == pytest.approx(1.0, abs=1e-3)
        assert sum(cell["win_share_by_seat"]) == pytest.approx(1.0, abs=1e-3)
        assert len(cell["win_share_by_seat"]) == cell["players"]
        assert cell["fair_share"]["heuristic"] == round(1 / cell["players"], 4)
        assert cell["game_length"]["min"] <= cell["mean_actions"] <= cell["game_length"]["max"]
        assert cell["mean_score"] is None
        assert set(cell["figures"]) >= {"mean_best_track", "mean_passes"}   # the game's own, as simulate's
    # the flag reaches the rules: bigger hands, other games from the same seeds
    for small, big in ((cells[0], cells[2]), (cells[1], cells[3])):
        assert (small["mean_actions"], small["figures"]) != (big["mean_actions"], big["figures"])
    rows = list(csv.DictReader(io.StringIO((out / "results.csv").read_text())))
    assert [(r["flag.hand_size"], r["players"], r["bots"]) for r in rows] == [
        ("2", "2", "heuristic,random"), ("2", "3", "heuristic,random,random"),
        ("3", "2", "heuristic,random"), ("3", "3", "heuristic,random,random")]
    assert [float(r["win_share.heuristic"]) for r in rows] == [c["win_share"]["heuristic"] for c in cells]
    assert [float(r["figures.mean_passes"]) for r in rows] == [c["figures"]["mean_passes"] for c in cells]
    assert rows[0]["win_share_by_seat.2"] == "" and rows[1]["win_share_by_seat.2"] != ""
    page = (out / "index.html").read_text()
    for name in written:
        if name.endswith(".png"):
            assert (out / name).read_bytes().startswith(PNG), name
            assert f'src="{name}"' in page
    assert 'src="scores.png"' not in page
    assert page.count("<tr><td>#") == 4
    timing = json.loads((out / "timing.json").read_text())
    assert timing["games"] == 16 and timing["moves"] > 0
    assert "4 cells" in result.output and "index.html" in result.output


def test_the_same_seed_gives_the_same_json_on_a_process_pool():
    first = run_sweep(plan(), jobs=1)
    again = run_sweep(plan(), jobs=2)
    assert json.dumps(again.report) == json.dumps(first.report)
    assert csv_text(again.report) == csv_text(first.report)
    assert (again.scores, again.lengths) == (first.scores, first.lengths)
    other = run_sweep(plan(seed=4))
    assert other.report["cells"] != first.report["cells"]


def test_a_local_dask_cluster_gives_identical_figures():
    from dask.distributed import Client, LocalCluster

    here = run_sweep(plan())
    # two threads make the tasks smaller than here: the split must not show in the figures
    assert task_size(16, 2) != task_size(16, 1)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        there = run_sweep(plan(), client=client)
    assert json.dumps(there.report) == json.dumps(here.report)
    assert (there.scores, there.lengths) == (here.scores, here.lengths)
    assert there.timing["workers"].startswith("dask")


def test_the_cluster_option_writes_the_same_files_as_a_run_here(swept, tmp_path):
    # a second run of the same seed, on a local Dask cluster of worker processes: every byte the same
    out, _ = swept
    result = run(*GRID, "--out", str(tmp_path / "dask"), "--cluster", "local", "--jobs", "1")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir() if p.name in OUTPUTS and p.name != "timing.json")
    assert len(names) == len(OUTPUTS) - 2   # all but the scores the toy game has not, and the timing
    for name in names:
        assert (tmp_path / "dask" / name).read_bytes() == (out / name).read_bytes(), name
    assert json.loads((tmp_path / "dask" / "timing.json").read_text())["workers"].startswith("dask")


@pytest.mark.parametrize("source", GAMES)
def test_a_cell_is_the_arena_run_with_the_same_bots_and_seed(source):
    game = load(source)
    players = game.meta.min_players
    bots = ["heuristic"] + ["random"] * (players - 1)
    result = run_sweep(plan(source, settings=[], players=[players], games=players * 2, seed=11))
    cell = result.report["cells"][0]
    figures = arena(game.engine, game.data, bots, games=players * 2, seed=11)
    for key in ("win_share", "win_share_ci", "fair_share", "mean_score", "win_share_by_seat", "mean_actions"):
        assert cell[key] == figures[key], key
    assert cell["bots"] == bots
    if not declares(game, "scores"):
        assert cell["score_distribution"] is None and result.scores[0] is None
        return
    # a game that keeps scores gets their distribution, by bot
    assert set(cell["score_distribution"]) == {"heuristic", "random"}
    assert len(result.scores[0]["random"]) == players * 2 * (players - 1)   # every seat it held, every game
    assert min(result.scores[0]["random"]) == cell["score_distribution"]["random"]["min"]
    assert plot_scores(result, [f"#0 {players}p"]).startswith(PNG)


@pytest.mark.parametrize("args, message", [
    (["--set", "nope=1"], "--set nope=1: no rule flag 'nope' in game.toml [rules]"),
    (["--set", "hand_sizes=1"], "did you mean hand_size?"),
    (["--set", "hand_size=two"], "--set hand_size=two: hand_size is a whole number"),
    (["--set", "hand_size=2,true"], "--set hand_size=true: hand_size is a whole number"),
    (["--set", "hand_size=0"], "--set hand_size=0: game.toml: [rules]: hand_size:"),     # the engine's own check
    (["--set", "hand_size=40"], "--set hand_size=40: pebbles.toml:"),
    (["--set", "hand_size"], "expected FLAG=VALUE"),
    (["--set", "hand_size=2,2"], "the value 2 is given twice"),
    (["--set", "hand_size=2", "--set", "hand_size=3"], "hand_size is set twice"),
    (["--players", "9"], "--players 9: Pebble Race takes 2 to 3 players"),
    (["--bots", "heuristic,bogus"], "unknown bot 'bogus'"),
    (["--bots", "random,random,random", "--players", "2"], "3 bots for 2 players"),
    (["--cluster", "somewhere"], "--cluster somewhere: expected local or a scheduler address"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(tmp_path, args, message):
    out = tmp_path / "never"
    result = run(*args, "--games", "2", "--out", str(out))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output
    assert not out.exists()


def test_without_the_sim_extra_sweep_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)   # import dask.distributed now fails
    result = run("--games", "2", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {sweep_module.SIM_EXTRA_MESSAGE}"]
    assert "pip install -e '.[sim]'" in result.output


def test_the_sim_install_hints_name_what_exists():
    """ttsmod is not on PyPI: every hint gives a checkout's or a wheel's install, and the packages themselves
    exactly as pyproject.toml's sim extra lists them (issue #28: ``pip install 'ttsmod[sim]'`` found nothing)."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert list(sweep_module.SIM_REQUIREMENTS) == extras["sim"]
    message = sweep_module.SIM_EXTRA_MESSAGE
    assert "pip install -e '.[sim]'" in message and "-py3-none-any.whl[sim]'" in message
    assert all(f"'{requirement}'" in message for requirement in extras["sim"])
    help_text = " ".join(CliRunner().invoke(cli, ["sweep", "--help"]).output.split())   # unwrapped
    for text in [message, help_text, *((root / "docs" / name).read_text(encoding="utf-8")
                                       for name in ("bots.md", "development.md"))]:
        assert "'ttsmod[sim]'" not in text and "install ttsmod[sim]" not in text
    assert "pip install -e '.[sim]'" in help_text


def test_flag_values_take_the_flags_own_types():
    flags = {"on": True, "count": 2, "share": 0.5, "name": "zone", "values": [1, 2], "bag": {"a": 1}}
    assert flag_values(["on=false,true", "count=3", "share=1", "name=any,\"zone\"", "values=[1, 2, 3],[1]",
                        "bag={ a = 2 }"], flags) == {
        "on": [False, True], "count": [3], "share": [1.0], "name": ["any", "zone"], "values": [[1, 2, 3], [1]],
        "bag": [{"a": 2}]}
    assert split_values('1,[1, 2],"a,b", {x = 1, y = 2}') == ["1", "[1, 2]", '"a,b"', "{x = 1, y = 2}"]
    for flag, text in (("count", "true"), ("on", "1"), ("values", "3"), ("bag", "[1]"), ("share", "x")):
        with pytest.raises(InputError, match=f"--set {flag}="):
            parse_flag_value(flag, flags[flag], text)


def test_a_short_line_up_fills_the_extra_seats_with_its_last_bot():
    assert line_up(["normal", "heuristic"], 4) == ("normal", "heuristic", "heuristic", "heuristic")
    assert line_up(["random"], 3) == ("random",) * 3
    with pytest.raises(InputError):
        line_up(["a", "b", "c"], 2)
