"""One writer per output folder: an exclusive lock on a small file inside it.

Two builds writing the same folder at once delete each other's cache files and interleave their sheets.
:func:`folder_lock` takes an operating-system lock (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows)
on ``<folder>/.ttsmod-build.lock`` without waiting; a second writer gets :class:`FolderBusyError` at once.

Stale locks cannot happen: the operating system drops the lock when its process ends, however it ends
(Ctrl-C, ``kill -9``, a crash), so a lock file left behind by a dead build is simply taken over.  The file
holds the writer's process id, only to name it in the error; it is left in place (deleting a lock file
while others may have it open would let two writers each lock a different file).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bridge.errors import TtsmodError, WriteError

LOCK_NAME = ".ttsmod-build.lock"

# Windows locks a byte range and refuses reads of it to others: lock a byte far past the process id text so
# the error can still read who holds the lock.
_WINDOWS_LOCK_OFFSET = 1 << 20


class FolderBusyError(TtsmodError):
    """Another ttsmod process is writing the folder (exit status 1: the operation could not run)."""

    exit_code = 1


@contextmanager
def folder_lock(folder: str | os.PathLike, *, what: str = "build") -> Iterator[Path]:
    """Hold the exclusive lock of ``folder`` (created if missing) for the ``with`` block; yields the lock path.

    Raises :class:`FolderBusyError` naming the folder and the holder's process id when another process holds
    it; never waits.  ``what`` names the kind of writer in that message.
    """
    folder = Path(folder)
    path = folder / LOCK_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise TtsmodError(f"{folder}: cannot write to this folder ({exc.strerror or exc})") from None
    try:
        if not _try_lock(fd):
            holder = _read_holder(fd)
            who = f" (process {holder})" if holder else ""
            raise FolderBusyError(f"{folder}: another {what} is writing this folder{who}; wait for it to finish")
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            try:
                os.write(fd, f"{os.getpid()}\n".encode("ascii"))
            except OSError as exc:   # a full disk: say so before any work, naming the file
                raise WriteError(exc.errno, exc.strerror or str(exc), str(path)) from exc
            yield path
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


def _read_holder(fd: int) -> int | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass  # closing the handle releases it anyway
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
