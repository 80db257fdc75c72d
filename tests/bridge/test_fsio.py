"""Atomic writes (bridge.fsio): a file or folder written at once is whole or not there, and as readable as any
file or folder made here: it does not keep the private mode of the temporary one it was written in."""

from __future__ import annotations

import os
import stat

import pytest

from bridge.fsio import atomic_write_bytes, replace_tree


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


# -- atomic_write_bytes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_written_file_gets_the_mode_open_would_give(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        atomic_write_bytes(tmp_path / "save.json", b"{}")
        assert os.umask(mask) == mask   # the write left the umask as it found it
    finally:
        os.umask(old)
    assert _mode(tmp_path / "save.json") == mode


def test_a_write_replaces_the_file_whole_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "save.json"
    target.write_bytes(b"old and longer")
    for durable in (True, False):
        atomic_write_bytes(target, b"new", durable=durable)
        assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["save.json"]


def test_a_missing_folder_is_made(tmp_path):
    atomic_write_bytes(str(tmp_path / "sheets" / "cells" / "a.cell"), b"pixels", durable=False)
    assert (tmp_path / "sheets" / "cells" / "a.cell").read_bytes() == b"pixels"


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary_file(tmp_path):
    target = tmp_path / "save.json"
    target.write_bytes(b"old")

    class Unwritable:   # bytes-like to nobody: the write inside fails after the temporary file exists
        pass

    with pytest.raises(TypeError):
        atomic_write_bytes(target, Unwritable())  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["save.json"]


def test_a_temporary_name_left_by_a_crash_is_not_taken_over(tmp_path, monkeypatch):
    import bridge.fsio as fsio
    monkeypatch.setattr(fsio, "_TEMP_NUMBERS", iter([7, 8]))
    left = tmp_path / f".save.json.{os.getpid()}.7.tmp"
    left.write_bytes(b"another writer's")
    atomic_write_bytes(tmp_path / "save.json", b"mine")
    assert (tmp_path / "save.json").read_bytes() == b"mine" and left.read_bytes() == b"another writer's"
