"""Narrow exceptions of the rules engines (python-chess style: each a ``ValueError``)."""

from __future__ import annotations


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
