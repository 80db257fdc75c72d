"""Errors a user can meet, each carrying enough context to act on.

The CLI maps :class:`DataError` (and every subclass) to exit status 2 with its one-line message, and a file
ttsmod cannot write (:class:`WriteError`: a full disk, a read-only folder) to exit status 1; nothing below the CLI
prints or exits.
"""

from __future__ import annotations

# The base and the data error are the rules engines' own (their parsers raise DataError and bridge/rules/
# imports nothing outside itself); they are re-exported here, where the rest of ttsmod catches them.
from bridge.rules.errors import DataError, TtsmodError

__all__ = ["DataError", "InputError", "TtsmodError", "WriteError"]


class InputError(TtsmodError, ValueError):
    """Unreadable input that is not game data (a snapshot, a save, a journal): exit status 2."""

    exit_code = 2


class WriteError(TtsmodError, OSError):
    """A file that could not be written: the disk is full, the folder is read-only or not ours (exit status 1).

    An ``OSError`` too (same ``errno`` and ``strerror``), so code that treats a failed write as a miss (a cache)
    still catches it as one; ``filename`` is the file the user asked for, never the temporary file the write went
    through. ``str(error)`` reads ``cannot write build/my-game/MyGame.json: No space left on device``."""

    exit_code = 1

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"
