"""All-or-nothing file writes: a reader never sees a half-written file, an error leaves the old one intact."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Collection, Mapping


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename.

    The file gets the mode ``open()`` would give a new file (0666 less the umask). ``durable=False`` skips the
    ``fsync``: for caches, where a file lost to a power cut is only work to redo (a reader still never sees a
    torn file, the rename is atomic either way)."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    fd, tmp = _open_temp(folder or ".", name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


_TEMP_NUMBERS = itertools.count()
"""Numbers the temporary files of this process: with the process id, a name no other writer is using."""


def _open_temp(folder: str, name: str) -> tuple[int, str]:
    """A new file ``<folder>/.<name>.<pid>.<n>.tmp`` opened for writing (the folder made if missing).

    ``os.open`` with mode 0666 lets the umask act as it does for ``open()``: no need to read the umask, which
    can only be done by setting it, a window in which another thread's new file would get the wrong mode.
    ``O_EXCL`` never takes over a file another writer (or a crashed process of the same id) left."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{next(_TEMP_NUMBERS)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
            return os.open(tmp, flags, 0o666), tmp


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 with LF newlines, atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def _new_folder_mode(inside: Path) -> int:
    """The permission bits a folder made now with ``mkdir`` gets (0777 less the umask), read from a probe made in
    ``inside``: ``os.umask`` can only be read by setting it, which would race other threads."""
    probe = inside / ".mode-probe"
    probe.mkdir()
    try:
        return probe.stat().st_mode & 0o777
    finally:
        probe.rmdir()


def replace_tree(folder: str | os.PathLike, files: Mapping[str, bytes], *, owned: Collection[str],
                 durable: bool = True) -> None:
    """Make ``folder`` hold ``files`` (relative POSIX path → bytes), all at once.

    The files are written into a temporary folder beside ``folder``, which then takes its place by renames: a
    failure while writing leaves ``folder`` as it was and removes the temporary one. Entries at the top of an
    existing ``folder`` whose names are not in ``owned`` (``.git``, a README, a project file) are moved into the
    new tree; the owned ones are replaced. The caller checks the relative paths (no ``..``, no absolute path).
    """
    target = Path(folder).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        # mkdtemp makes a private (0700) folder; the folder that takes target's place keeps target's mode, or
        # gets the mode any new folder gets here (the umask's), like the subfolders made below
        tmp.chmod(target.stat().st_mode & 0o7777 if target.is_dir() else _new_folder_mode(tmp))
        for relative, data in files.items():
            path = tmp.joinpath(*relative.split("/"))
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(data)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if not target.exists():
        try:
            os.replace(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    os.rmdir(old)   # only its unused name is wanted
    try:
        os.replace(target, old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        os.replace(tmp, target)
    except BaseException:
        os.replace(old, target)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for entry in sorted(old.iterdir()):
        if entry.name not in owned:
            os.replace(entry, target / entry.name)
    shutil.rmtree(old, ignore_errors=True)
