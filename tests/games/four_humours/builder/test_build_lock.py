"""One build at a time per output folder: a second one is told at once; a dead build's lock is taken over."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from tools.build import build
from tools.cli import cli
from tools.folderlock import LOCK_NAME, FolderBusyError, folder_lock

from tests.games.four_humours.builder.test_build import fake_render
from tests.shared import REPO_ROOT as REPO


def hold_lock_in_another_process(folder: Path) -> subprocess.Popen:
    """A process that takes the folder's lock, says so on stdout, then waits to be killed."""
    code = textwrap.dedent(f"""
        import sys, time
        from tools.folderlock import folder_lock
        with folder_lock({str(folder)!r}):
            print("locked", flush=True)
            time.sleep(120)
    """)
    process = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "locked"
    return process


def test_a_second_build_into_the_same_folder_is_refused_at_once(tmp_path):
    out = tmp_path / "out"
    holder = hold_lock_in_another_process(out)
    try:
        with pytest.raises(FolderBusyError) as caught:
            build("four-humours", out, render=fake_render)
        assert str(caught.value) == (f"{out}: another build is writing this folder (process {holder.pid}); "
                                     "wait for it to finish")
        assert not (out / "sheets").exists()  # it wrote nothing
        result = CliRunner().invoke(cli, ["build", "four-humours", "--out", str(out)])
        assert result.exit_code == 1
        assert result.output.strip() == f"error: {caught.value}"
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_of_a_killed_build_is_taken_over(tmp_path):
    out = tmp_path / "out"
    holder = hold_lock_in_another_process(out)
    holder.kill()  # SIGKILL (TerminateProcess on Windows): dies holding the lock: the file stays, naming a dead process
    holder.wait()
    assert (out / LOCK_NAME).read_text().strip() == str(holder.pid)
    result = build("four-humours", out, render=fake_render)
    assert result.save_path.is_file()


def test_builds_into_different_folders_do_not_block_each_other(tmp_path):
    with folder_lock(tmp_path / "a"):
        assert build("four-humours", tmp_path / "b", render=fake_render).save_path.is_file()


def test_the_lock_is_released_after_a_build_and_after_a_failed_one(tmp_path, monkeypatch):
    out = tmp_path / "out"
    build("four-humours", out, render=fake_render)

    def failing_render(*args, **kwargs):
        raise OSError("disk full")

    with pytest.raises(OSError):
        build("four-humours", out, render=failing_render)
    assert build("four-humours", out, render=fake_render).save_path.is_file()
