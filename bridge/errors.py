"""Errors a user can meet, each carrying enough context to act on.

The CLI maps :class:`DataError` (and every subclass) to exit status 2 with its one-line message; nothing
below the CLI prints or exits.
"""

from __future__ import annotations

# The base and the data error are the rules engines' own (their parsers raise DataError and bridge/rules/
# imports nothing outside itself); they are re-exported here, where the rest of ttsmod catches them.
from bridge.rules.errors import DataError, TtsmodError

__all__ = ["DataError", "InputError", "TtsmodError"]


class InputError(TtsmodError, ValueError):
    """Unreadable input that is not game data (a snapshot, a save, a journal): exit status 2."""

    exit_code = 2
