"""What the tests of every game's build share: a copy of a shipped game folder to build (tests that edit or break
its data work on it), the one build of it a test module makes, and what every built save must pass alike."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from bridge.paths import assets_dir
from tools.build import BuildResult, build
from tools.check import check_file
from tools.cli import cli


def game_copy(tmp: Path, folder_name: str) -> Path:
    """A copy of ``assets/<folder_name>/`` under ``tmp``."""
    folder = tmp / folder_name
    shutil.copytree(assets_dir() / folder_name, folder)
    return folder


def build_copy(tmp_path_factory, folder_name: str, jobs: int = 2) -> tuple[BuildResult, Path]:
    """A copy of the game folder, built: (the build's result, the folder)."""
    tmp = tmp_path_factory.mktemp(folder_name)
    folder = game_copy(tmp, folder_name)
    return build(folder, tmp / "out", jobs=jobs), folder


def build_cli(folder: Path, out: Path):
    """``ttsmod build FOLDER --out OUT`` through the CLI (its exit code and output)."""
    return CliRunner().invoke(cli, ["build", str(folder), "--out", str(out), "--jobs", "1"])


def assert_checks_clean(result: BuildResult) -> None:
    """``ttsmod check`` finds no error and no warning in the built save, as a library call and as a command."""
    report = check_file(result.save_path)
    assert [str(f) for f in report.findings if f.severity in ("error", "warning")] == []
    cli_result = CliRunner().invoke(cli, ["check", str(result.save_path)])
    assert cli_result.exit_code == 0, cli_result.output


def assert_rebuild_identical(result: BuildResult, folder: Path) -> None:
    """Building the folder again (nothing cached) writes the same bytes, says nothing changed, keeps the sheets."""
    again = build(folder, result.save_path.parent, jobs=1, use_cache=False)
    assert again.save_path.read_bytes() == result.save_path.read_bytes()
    assert not again.save_changed
    assert all(sheet.exists() for sheet in result.sheets)
