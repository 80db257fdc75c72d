"""A folder written at once (bridge.fsio.replace_tree) is as readable as any folder made here: it does not keep
the private mode of the temporary folder it was written in."""

from __future__ import annotations

import os
import stat

import pytest

from bridge.fsio import replace_tree


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_folder_gets_the_mode_of_any_new_folder(tmp_path, umask_022):
    out = tmp_path / "results"
    replace_tree(out, {"a.txt": b"1", "plots/b.png": b"2"}, owned={"a.txt", "plots"}, durable=False)
    assert _mode(out) == 0o755 == _mode(out / "plots")
    assert (out / "a.txt").read_bytes() == b"1" and not list(tmp_path.glob(".results.*"))


def test_a_replaced_folder_keeps_its_own_mode_and_the_files_it_does_not_own(tmp_path, umask_022):
    out = tmp_path / "results"
    out.mkdir()
    out.chmod(0o750)
    (out / "README").write_text("mine", encoding="utf-8")
    replace_tree(out, {"a.txt": b"new"}, owned={"a.txt"}, durable=False)
    assert _mode(out) == 0o750
    assert (out / "README").read_text(encoding="utf-8") == "mine" and (out / "a.txt").read_bytes() == b"new"
