"""The bridge's journal: every message in and out, one JSON object per line, flushed per line.

Each line is ``{"t": <ISO-8601 UTC time>, "dir": "in"|"out", "msg": <the message as on the wire>}``; a frame
that could not be decoded is recorded as ``{"t": …, "dir": "in", "malformed": <reason>, "size": <bytes>}``.
Lines are written with one ``write`` + ``flush`` each, so when the process is killed every line written before
is in the file (the operating system holds it even if Python never exits cleanly).

:func:`read_journal` reads a journal back for ``ttsmod replay``; :func:`default_journal_path` is where the
bridge writes when no ``--journal`` is given.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping

from tools.errors import InputError

JOURNAL_NAME = "bridge-journal.jsonl"


def user_data_dir(platform: str | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """ttsmod's folder in the user's data directory.

    Linux and others: ``$XDG_DATA_HOME/ttsmod`` or ``~/.local/share/ttsmod``; macOS:
    ``~/Library/Application Support/ttsmod``; Windows: ``%APPDATA%\\ttsmod``.
    """
    platform = platform or sys.platform
    environ = os.environ if environ is None else environ
    home = Path(environ.get("HOME") or environ.get("USERPROFILE") or Path.home())
    if platform.startswith("win"):
        base = environ.get("APPDATA")
        return (Path(base) if base else home / "AppData" / "Roaming") / "ttsmod"
    if platform == "darwin":
        return home / "Library" / "Application Support" / "ttsmod"
    base = environ.get("XDG_DATA_HOME")
    return (Path(base) if base else home / ".local" / "share") / "ttsmod"


def default_journal_path() -> Path:
    """Where the bridge's journal goes when ``--journal`` is not given."""
    return user_data_dir() / JOURNAL_NAME


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Journal:
    """An append-only JSON-lines file. Thread-safe; every record is flushed before :meth:`record` returns.

    Writing failures (disk full, file removed) are counted in :attr:`failures` and never raised: the journal
    must not stop the bridge.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "a", encoding="utf-8", newline="\n")
        self._lock = threading.Lock()
        self.failures = 0

    def record(self, direction: str, message: Mapping[str, Any] | None = None, **extra: Any) -> None:
        """Append one line: ``direction`` is ``"in"`` or ``"out"``; ``message`` the wire JSON object."""
        entry: dict[str, Any] = {"t": _now(), "dir": direction}
        if message is not None:
            entry["msg"] = message
        entry.update(extra)
        try:
            line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        except (TypeError, ValueError):
            line = json.dumps({"t": entry["t"], "dir": direction, "unserialisable": True}) + "\n"
        with self._lock:
            if self._file.closed:
                return
            try:
                self._file.write(line)
                self._file.flush()
            except OSError:
                self.failures += 1

    def close(self) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class NullJournal:
    """A journal that records nothing (``--no-journal`` and tests)."""

    path = None
    failures = 0

    def record(self, direction: str, message: Mapping[str, Any] | None = None, **extra: Any) -> None:
        return None

    def close(self) -> None:
        return None


@dataclass(frozen=True)
class JournalEntry:
    """One line read back: ``line`` is its 1-based number in the file."""

    line: int
    time: str
    direction: str
    message: Mapping[str, Any] | None
    raw: Mapping[str, Any]


def read_journal(path: str | os.PathLike) -> Iterator[JournalEntry]:
    """The entries of a journal in file order.

    Raises :class:`tools.errors.InputError` when the file cannot be read or a line is not a journal record.
    A last line cut short by a crash (no final newline, not JSON) is skipped rather than refused.
    """
    path = Path(path)
    try:
        handle = open(path, "r", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path.name}: cannot read the journal: {exc.strerror or exc}") from None
    with handle:
        try:
            lines = handle.read().split("\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path.name}: cannot read the journal: {exc}") from None
    last = len(lines) - 1
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except ValueError:
            if number - 1 == last:
                return  # a line the crash cut in half
            raise InputError(f"{path.name}: line {number}: not a JSON journal record") from None
        if not isinstance(raw, dict) or raw.get("dir") not in ("in", "out"):
            raise InputError(f"{path.name}: line {number}: not a journal record (no \"dir\": in|out)")
        message = raw.get("msg")
        yield JournalEntry(
            line=number,
            time=str(raw.get("t", "")),
            direction=raw["dir"],
            message=message if isinstance(message, dict) else None,
            raw=raw,
        )


# --------------------------------------------------------------------------------------------------------
# Replay


@dataclass(frozen=True)
class Ruling:
    """One adjudication found in a journal, with the reply recorded then and the reply the engine gives now."""

    line: int
    request: Mapping[str, Any]
    recorded: Mapping[str, Any] | None
    current: Mapping[str, Any] | None

    @property
    def differs(self) -> bool:
        return self.recorded is not None and _comparable(self.recorded) != _comparable(self.current)


def _comparable(reply: Mapping[str, Any] | None) -> Any:
    """A reply without the parts that may change between runs without changing the ruling (error wording
    of internal errors is kept: a crash that became a ruling is a difference)."""
    if reply is None:
        return None
    return json.loads(json.dumps(reply, sort_keys=True))


@dataclass
class ReplayReport:
    rulings: list[Ruling]

    @property
    def differing(self) -> list[Ruling]:
        return [r for r in self.rulings if r.differs]

    @property
    def unanswered(self) -> list[Ruling]:
        return [r for r in self.rulings if r.recorded is None]


def replay(path: str | os.PathLike, reply: Any) -> ReplayReport:
    """Re-run every adjudication request of a journal through ``reply(custom) -> dict | None`` (the current
    engine, ``bridge.session.Dispatcher.reply``) and pair it with the reply the journal recorded.

    Requests are envelope custom messages (message 4 with ``"ttsmod"``) other than ``hello``; the recorded
    reply is the first later outgoing message 2 whose ``re`` and ``type`` match and that no earlier request
    took (a mod restart reuses ids, so pairing goes in file order). Raises :class:`InputError` for an
    unreadable journal.
    """
    entries = list(read_journal(path))
    taken: set[int] = set()
    rulings: list[Ruling] = []
    for index, entry in enumerate(entries):
        message = entry.message
        if entry.direction != "in" or not message or message.get("messageID") != 4:
            continue
        custom = message.get("customMessage")
        if not isinstance(custom, dict) or "ttsmod" not in custom or custom.get("type") == "hello":
            continue
        recorded = None
        for later_index in range(index + 1, len(entries)):
            later = entries[later_index]
            out = later.message
            if later.direction != "out" or later_index in taken or not out or out.get("messageID") != 2:
                continue
            candidate = out.get("customMessage")
            if isinstance(candidate, dict) and candidate.get("re") == custom.get("id") and candidate.get("type") == custom.get("type"):
                taken.add(later_index)
                recorded = candidate
                break
        rulings.append(Ruling(entry.line, custom, recorded, reply(custom)))
    return ReplayReport(rulings)
