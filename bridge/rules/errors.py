"""Narrow exceptions of the rules engines (python-chess style: each a ``ValueError``).

:class:`DataError` (bad game data, raised by the engines' parsers through :mod:`bridge.rules.reader`) and its
base :class:`TtsmodError` live here, not in :mod:`bridge.errors`, because ``bridge/rules/`` imports nothing outside
itself; :mod:`bridge.errors` imports them from here, so there is one class of each, whichever name is used.
"""

from __future__ import annotations


class TtsmodError(Exception):
    """Base of the errors ttsmod reports to a user as one line (never a traceback), exiting with ``exit_code``."""

    exit_code = 1


class DataError(TtsmodError, ValueError):
    """Bad input data: names the file, the entry and the field (exit status 2).

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


class NoRulesError(TtsmodError, ValueError):
    """A command that needs a rules engine run on a game that has none (a table drawn from data only): exit
    status 2, with what the game can do instead."""

    exit_code = 2


class RulesError(ValueError):
    """Base of every error a rules engine raises on bad input; never carries hidden information."""

    code = "bad_request"


class InvalidAction(RulesError):
    """The action is malformed: unknown kind, missing field, a value of the wrong type."""


class IllegalAction(RulesError):
    """The action is well formed but not allowed in this state (wrong turn, wrong humour, slot taken…).

    ``reason`` is a stable code (``wrong_humour``, ``slot_taken``, ``party_limit``…) a mod can act on.
    """

    def __init__(self, message: str, reason: str = "illegal") -> None:
        self.reason = reason
        super().__init__(message)


class SnapshotError(RulesError):
    """A snapshot does not describe a possible state: the path names where (``players[2].hand``)."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


class UnknownRequestType(RulesError):
    """A bridge request names a type this game's service does not handle."""

    code = "unknown_type"
