"""A disk that fills up, or a folder ttsmod may not write, while a command writes its files: the command ends with
one line naming the file it was writing and the reason, exit status 1, no traceback, and nothing half-written —
a file it was replacing keeps its old bytes and no temporary file is left behind.

The full disk is emulated at the lowest write there is: ``os.write`` to a regular file inside the folder made
"full" raises ``OSError(ENOSPC)``, as the kernel does (writes to pipes, to other folders, go on).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.catalog import load
from tests.everygame import GAME_FOLDERS, declares, game_sources
from tools.cli import cli

ENOSPC = os.strerror(errno.ENOSPC)


@pytest.fixture
def full_disk(monkeypatch):
    """``fill(folder, spare=())``: from now on, every write to a file inside ``folder`` (at any depth) finds no
    space, but for the files named in ``spare`` (the few bytes that still fitted)."""
    full: list[tuple[Path, tuple[str, ...]]] = []
    real_write = os.write

    def inside_full_folder(fd: int) -> bool:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return False
        for folder, spare in full:
            for root, _dirs, files in os.walk(folder):
                for name in files:
                    try:
                        if not spared(name, spare) and os.path.samestat(os.stat(os.path.join(root, name)), status):
                            return True
                    except FileNotFoundError:
                        pass
        return False

    def spared(name: str, spare: tuple[str, ...]) -> bool:   # the file, or the temporary file it is written in
        return any(name == kept or name.startswith(f".{kept}.") for kept in spare)

    def write(fd, data):
        if inside_full_folder(fd):
            raise OSError(errno.ENOSPC, ENOSPC)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    return lambda folder, spare=(): full.append((folder, tuple(spare)))


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def assert_one_line_error(result, message: str) -> None:
    __tracebackhide__ = True
    assert result.exit_code == 1, result.output
    assert result.output == f"error: {message}\n" or result.output.endswith(f"\nerror: {message}\n"), result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, OSError)


def no_temporary_files(folder: Path) -> list[str]:
    return [str(path) for path in folder.rglob("*") if path.name.endswith((".tmp", ".old"))]


SMALL_GAME = str(GAME_FOLDERS[0])
"""A game folder of tests/games/: it builds in a fraction of a second (which one does not matter)."""


def first_game_declaring(capability: str) -> str:
    """The GAME argument of the first game that declares ``capability`` (the commands below need one)."""
    return next(source for source in game_sources() if declares(load(source), capability))


def test_build_on_a_full_disk_names_the_file_and_leaves_no_save(tmp_path, full_disk):
    out = tmp_path / "build"
    out.mkdir()
    full_disk(out)
    result = CliRunner().invoke(cli, ["build", SMALL_GAME, "--out", str(out), "--jobs", "1"])
    assert_one_line_error(result, f"cannot write {out / '.ttsmod-build.lock'}: {ENOSPC}")
    assert not list(out.glob("*.json")) and no_temporary_files(out) == []


def test_build_that_fills_the_disk_midway_keeps_the_last_save_whole(tmp_path, full_disk):
    out = tmp_path / "build"
    runner = CliRunner()
    assert runner.invoke(cli, ["build", SMALL_GAME, "--out", str(out), "--jobs", "1"]).exit_code == 0
    save = next(out.glob("*.json"))
    before = save.read_bytes()
    save.write_bytes(before + b" ")   # the rebuild must write the save again
    kept = save.read_bytes()
    full_disk(out, spare=[".ttsmod-build.lock", "manifest.json"])   # the lock and the render cache still fitted
    result = runner.invoke(cli, ["build", SMALL_GAME, "--out", str(out), "--jobs", "1"])
    assert_one_line_error(result, f"cannot write {save}: {ENOSPC}")
    assert save.read_bytes() == kept and no_temporary_files(out) == []


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_data_export_on_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path, full_disk, fmt):
    game = first_game_declaring("card_lists")
    runner = CliRunner()
    assert runner.invoke(cli, ["data", "export", game, "--to", fmt, str(tmp_path / "first")]).exit_code == 0
    file = sorted(path.name for path in (tmp_path / "first").iterdir())[0]
    out = tmp_path / "sheets"
    out.mkdir()
    (out / file).write_bytes(b"the user's old sheet")
    full_disk(out)
    result = runner.invoke(cli, ["data", "export", game, "--to", fmt, str(out)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.splitlines()[-1].startswith(f"error: cannot write {out}{os.sep}")
    assert result.output.endswith(f": {ENOSPC}\n")
    assert (out / file).read_bytes() == b"the user's old sheet" and no_temporary_files(out) == []


def test_bundle_on_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path, full_disk):
    (tmp_path / "src" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "Global.lua").write_text('local util = require("lib.util")\nprint(util.x)\n')
    (tmp_path / "src" / "lib" / "util.lua").write_text("return { x = 1 }\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "Global.lua").write_text("-- the last bundle\n")
    full_disk(out)
    result = CliRunner().invoke(cli, ["bundle", str(tmp_path / "src" / "Global.lua"), str(out / "Global.lua")])
    assert_one_line_error(result, f"cannot write {out / 'Global.lua'}: {ENOSPC}")
    assert files_under(out) == {"Global.lua": b"-- the last bundle\n"}


@pytest.fixture(scope="module")
def printed(tmp_path_factory, repo_root):
    """A game with printed sizes, and a build folder whose render cache holds its print faces: a PDF from it
    renders nothing (a copy of this run's shared one, tests/sharedbuild.py, as the PDFs' runs write into it)."""
    from tests.sharedbuild import copy_of, shared_art

    game = first_game_declaring("print_sizes")
    art = shared_art(tmp_path_factory, repo_root, game)
    return game, str(copy_of(art.out_dir, tmp_path_factory.mktemp("printed") / "build"))


def test_pnp_on_a_full_disk_names_the_pdf_and_keeps_the_old_one(tmp_path, full_disk, printed):
    out = tmp_path / "print"
    out.mkdir()
    (out / "cards.pdf").write_bytes(b"%PDF- the last one")
    full_disk(out)
    result = CliRunner().invoke(cli, ["pnp", printed[0], "--build-dir", printed[1],
                                      "--out", str(out / "cards.pdf")])
    assert_one_line_error(result, f"cannot write {out / 'cards.pdf'}: {ENOSPC}")
    assert files_under(out) == {"cards.pdf": b"%PDF- the last one"}


def test_pnp_out_in_a_folder_it_may_not_write_names_the_pdf(tmp_path, monkeypatch, printed):
    out = tmp_path / "read-only"
    out.mkdir()
    real_open = os.open

    def refuse_inside(path, flags, *args, **kwargs):   # root ignores chmod: emulate what others meet
        if Path(path).parent == out and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse_inside)
    result = CliRunner().invoke(cli, ["pnp", printed[0], "--build-dir", printed[1],
                                      "--out", str(out / "cards.pdf")])
    assert_one_line_error(result, f"cannot write {out / 'cards.pdf'}: {os.strerror(errno.EACCES)}")
    assert list(out.iterdir()) == []


def test_pnp_out_below_a_file_names_the_pdf_and_says_not_a_folder(tmp_path, printed):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    target = tmp_path / "notes.txt" / "cards.pdf"
    result = CliRunner().invoke(cli, ["pnp", printed[0], "--build-dir", printed[1],
                                      "--out", str(target)])
    assert_one_line_error(result, f"cannot write {target}: {os.strerror(errno.ENOTDIR)}")
    assert (tmp_path / "notes.txt").read_text() == "a file, not a folder"
