"""All-or-nothing file writes: a reader never sees a half-written file, an error leaves the old one intact."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename.

    ``durable=False`` skips the ``fsync``: for caches, where a file lost to a power cut is only work to redo
    (a reader still never sees a torn file, the rename is atomic either way)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files; give what open() would have given
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 with LF newlines, atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))
