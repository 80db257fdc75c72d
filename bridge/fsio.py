"""All-or-nothing file writes: a reader never sees a half-written file, an error leaves the old one intact.

A write that fails (a full disk, a read-only folder, no permission) raises :class:`bridge.errors.WriteError`, an
``OSError`` naming the file the caller asked for (the CLI prints it as one line, exit status 1), after removing
the temporary file or folder it was writing: nothing half-written is left behind.
"""

from __future__ import annotations

import errno
import itertools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Collection, Mapping

from bridge.errors import WriteError


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename.

    The file gets the mode ``open()`` would give a new file (0666 less the umask). ``durable=False`` skips the
    ``fsync``: for caches, where a file lost to a power cut is only work to redo (a reader still never sees a
    torn file, the rename is atomic either way). A failure raises :class:`WriteError` naming ``path``; the old
    file, if any, is left as it was."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    try:
        fd, tmp = _open_temp(folder or ".", name)
    except OSError as exc:
        raise write_error(exc, target) from exc
    try:
        try:
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        _remove_quietly(tmp)
        if isinstance(exc, OSError):
            raise write_error(exc, target) from exc
        raise


def write_error(exc: OSError, path: str | os.PathLike) -> WriteError:
    """``exc`` (an error met while writing ``path``) as the :class:`WriteError` that names ``path``."""
    if isinstance(exc, WriteError):
        return exc
    return WriteError(exc.errno, exc.strerror or str(exc) or type(exc).__name__, os.fspath(path))


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``: ``os.write`` may take less than it is given (a signal, a pipe, 2 GiB)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _remove_quietly(path: str) -> None:
    # cleanup after a failure: the failure is what the caller must hear about, not a second one
    try:
        os.unlink(path)
    except OSError:
        pass


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
            try:
                os.makedirs(folder, exist_ok=True)
            except FileExistsError as exc:   # a file where a folder of the path must be: "File exists" misleads
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), exc.filename) from exc
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
    failure while writing leaves ``folder`` as it was, removes the temporary one and raises :class:`WriteError`
    naming the file (under ``folder``) or the folder that could not be written. Entries at the top of an
    existing ``folder`` whose names are not in ``owned`` (``.git``, a README, a project file) are moved into the
    new tree; the owned ones are replaced. The caller checks the relative paths (no ``..``, no absolute path).
    """
    target = Path(folder).absolute()
    try:
        _replace_tree(target, files, owned, durable)
    except OSError as exc:   # a file's own failure is a WriteError already; the rest is the folder's
        raise write_error(exc, target) from exc


def _replace_tree(target: Path, files: Mapping[str, bytes], owned: Collection[str], durable: bool) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        # mkdtemp makes a private (0700) folder; the folder that takes target's place keeps target's mode, or
        # gets the mode any new folder gets here (the umask's), like the subfolders made below
        tmp.chmod(target.stat().st_mode & 0o7777 if target.is_dir() else _new_folder_mode(tmp))
        for relative, data in files.items():
            path = tmp.joinpath(*relative.split("/"))
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "wb") as handle:
                    handle.write(data)
                    if durable:
                        handle.flush()
                        os.fsync(handle.fileno())
            except OSError as exc:
                raise write_error(exc, target.joinpath(*relative.split("/"))) from exc
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
