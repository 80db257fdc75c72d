"""Errors a user can meet, each carrying enough context to act on.

The CLI maps :class:`DataError` (and every subclass) to exit status 2 with its one-line message; nothing
below the CLI prints or exits.
"""

from __future__ import annotations


class TtsmodError(Exception):
    """Base of the errors ttsmod reports to a user as one line (never a traceback)."""

    exit_code = 1


class DataError(TtsmodError, ValueError):
    """Bad input data: names the file, the entry and the field.

    ``str(error)`` reads like ``scenes.toml: scene "mill": slots[2].humours: "bile" is not a humour``.
    """

    exit_code = 2

    def __init__(self, file: str, entry: str | None, field: str | None, message: str) -> None:
        self.file = file
        self.entry = entry
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [self.file]
        if self.entry:
            parts.append(self.entry)
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)


class InputError(TtsmodError, ValueError):
    """Unreadable input that is not game data (a snapshot, a save, a journal): exit status 2."""

    exit_code = 2
