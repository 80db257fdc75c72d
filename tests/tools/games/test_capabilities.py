"""What a game declares beyond the required interface (tools.games.builder.capabilities): read from its engine and
its folder, gained and lost with the declaration, and a game that lacks a capability gets skips with their reasons
from the shared tests and one-line refusals from the commands, never a failure. Played on copies of the tests' toy
game, Pebble Race, which declares almost nothing optional."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.catalog import load
from tests.everygame import GAME_FOLDERS, declares, require
from tools.cli import cli
from tools.games.builder import CAPABILITIES, BUILD_CAPABILITIES, capabilities, capability, print_sizes

TOY = next(folder for folder in GAME_FOLDERS if folder.name == "pebble_race")

TABLES = '''
[selftest]
piece = "pr-pebble"
bag = "pr-bag"
spot = "pr-track"
spot_card = "pr-pebble"
marker = "pr-runner"
snap_points = ["pr-step-"]

[benchmark]
grow = { file = "pebbles.toml", table = "pebbles", id = "id", title = "title" }

[scripts]
pr-track = "objects/track.lua"
'''
"""Every optional table of game.toml, filled in for the toy."""

LAYOUTS = '''
[layouts.pebble]
size = [630, 880]
size_mm = [63, 88]
'''


def copy_of_toy(folder: Path) -> Path:
    shutil.copytree(TOY, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_the_toy_declares_only_its_lists_and_the_snapshot_keys_a_table_may_leave_out():
    assert capabilities(load(TOY)) == {"card_lists", "snapshot_defaults"}


def test_the_folders_capabilities_come_and_go_with_their_declarations(tmp_path):
    folder = copy_of_toy(tmp_path / "full")
    with (folder / "game.toml").open("a", encoding="utf-8") as handle:
        handle.write(TABLES)
    (folder / "layouts.toml").write_text(LAYOUTS, encoding="utf-8")
    full = capabilities(load(folder))
    assert full - capabilities(load(TOY)) == {"selftest", "benchmark", "scripts", "print_sizes"}
    assert {c.name for c in BUILD_CAPABILITIES} <= full
    assert print_sizes(folder) == {"pebble": (63.0, 88.0)}
    # stripped of them again, the copy declares what the toy does
    (folder / "layouts.toml").unlink()
    (folder / "game.toml").write_text((TOY / "game.toml").read_text(encoding="utf-8"), encoding="utf-8")
    assert capabilities(load(folder)) == capabilities(load(TOY))
    assert print_sizes(folder) == {}


def test_each_capability_the_toy_lacks_skips_with_the_game_the_capability_and_what_declares_it():
    toy = load(TOY)
    lacking = [c for c in CAPABILITIES if not declares(toy, c.name)]
    assert lacking and len(lacking) == len(CAPABILITIES) - 2
    for known in lacking:
        with pytest.raises(pytest.skip.Exception) as skipped:
            require(toy, known.name)
        assert skipped.value.msg == f"pebble-race declares no {known.name} ({known.declared_by})"
    require(toy, "card_lists", "snapshot_defaults")    # what it declares is no skip
    with pytest.raises(KeyError):
        capability("castles")                           # a misspelt capability is the test's error
    with pytest.raises(KeyError):
        declares(toy, "castles")


def test_a_command_whose_declaration_a_game_lacks_stops_in_one_line(tmp_path):
    runner = CliRunner()
    printed = runner.invoke(cli, ["pnp", str(TOY), "--build-dir", str(tmp_path / "build"),
                                  "--out", str(tmp_path / "toy.pdf")])
    assert printed.exit_code == 2 and printed.output.strip() == "error: layouts.toml: file not found"
    assert not (tmp_path / "toy.pdf").exists()
    # a folder whose data files hold no list of tables (its engine is never asked: export reads the files)
    folder = copy_of_toy(tmp_path / "no-lists")
    (folder / "pebbles.toml").write_text("pebbles = []\n", encoding="utf-8")
    exported = runner.invoke(cli, ["data", "export", str(folder), "--to", "csv", str(tmp_path / "out")])
    assert exported.exit_code == 2
    assert exported.stderr.strip().splitlines()[-1] == \
        "error: pebble-race: this game's data files hold no list of tables to export"
    assert "Traceback" not in exported.stderr
    assert not (tmp_path / "out").exists()
