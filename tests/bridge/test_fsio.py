"""Atomic writes (bridge.fsio): a file or folder written at once is whole or not there, and as readable as any
file or folder made here: it does not keep the private mode of the temporary one it was written in."""

from __future__ import annotations

import errno
import os
import pickle
import stat

import pytest

from bridge.errors import WriteError
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


# -- a write the disk refuses ------------------------------------------------------------------------------


def disk_full(*args):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_is_a_write_error_naming_the_file_and_the_old_file_stays(tmp_path, monkeypatch):
    target = tmp_path / "save.json"
    target.write_bytes(b"old")
    monkeypatch.setattr(os, "write", disk_full)
    with pytest.raises(WriteError) as caught:
        atomic_write_bytes(target, b"new")
    assert str(caught.value) == f"cannot write {target}: No space left on device"
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(target)
    assert isinstance(caught.value, OSError) and caught.value.exit_code == 1   # caches still catch it
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["save.json"]


def test_a_write_error_survives_the_trip_back_from_a_render_process():
    error = WriteError(errno.ENOSPC, os.strerror(errno.ENOSPC), "sheets/a.png")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is WriteError and str(back) == str(error) and back.errno == errno.ENOSPC


def test_a_folder_that_cannot_be_made_is_a_write_error_naming_the_file(tmp_path):
    (tmp_path / "notes").write_text("a file where a folder would go")
    with pytest.raises(WriteError, match=f"^cannot write {tmp_path / 'notes' / 'a' / 'b.pdf'}: Not a directory$"):
        atomic_write_bytes(tmp_path / "notes" / "a" / "b.pdf", b"%PDF")


def test_a_full_disk_during_replace_tree_names_the_file_under_the_folder_and_keeps_the_old_tree(tmp_path,
                                                                                               monkeypatch):
    import bridge.fsio as fsio

    out = tmp_path / "results"
    replace_tree(out, {"a.txt": b"old"}, owned={"a.txt", "plots"}, durable=False)
    real_open = open

    def open_on_a_full_disk(path, mode="r", *args, **kwargs):
        if "w" in mode and os.path.basename(path) == "b.png":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(fsio, "open", open_on_a_full_disk, raising=False)
    with pytest.raises(WriteError, match=f"^cannot write {out / 'plots' / 'b.png'}: No space left on device$"):
        replace_tree(out, {"a.txt": b"new", "plots/b.png": b"png"}, owned={"a.txt", "plots"}, durable=False)
    assert (out / "a.txt").read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["results"]
