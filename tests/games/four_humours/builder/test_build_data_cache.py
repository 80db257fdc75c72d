"""The build's cache of parsed data entries (bridge.catalog.TomlCache in <out>/.cache/data/): written only once
the build has written its save."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from bridge.paths import assets_dir
from tools.cli import cli


def grown_game(tmp_path: Path, *, bad_zone: bool = False) -> Path:
    """The built-in Four Humours folder (no art) with its scene list tripled, past the cache's threshold."""
    folder = tmp_path / "game"
    shutil.copytree(assets_dir() / "four_humours", folder, ignore=shutil.ignore_patterns("__pycache__", "art"))
    scenes = folder / "scenes.toml"
    head, *blocks = scenes.read_text(encoding="utf-8").split("[[scenes]]\n")
    grown = [block.replace('id = "', f'id = "x{n}-', 1) for n in range(2) for block in blocks]
    if bad_zone:
        grown[-1] = grown[-1].replace('zone = "', 'zone = "nowhere-', 1)   # parses, but the engine refuses it
    scenes.write_text(head + "".join("[[scenes]]\n" + block for block in blocks + grown), encoding="utf-8")
    return folder


def test_a_build_whose_data_is_refused_leaves_no_output_folder(tmp_path: Path):
    folder = grown_game(tmp_path, bad_zone=True)
    result = CliRunner().invoke(cli, ["build", str(folder), "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "scenes.toml" in result.output
    assert not (tmp_path / "out").exists()
