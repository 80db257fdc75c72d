"""The bridge's journal: every message in and out, one JSON object per line, written with one system call per line.

Each line is ``{"t": <ISO-8601 UTC time>, "dir": "in"|"out", "msg": <the message as on the wire>}``; a frame
that could not be decoded is recorded as ``{"t": …, "dir": "in", "malformed": <reason>, "size": <bytes>}``; a
message whose line would pass the journal's size cap as ``{"t": …, "dir": …, "truncated": {"messageID": <id>,
"size": <bytes of its JSON>, "head": <its first characters>}}``. The file is opened unbuffered and each line is
one ``write``, so when the process is killed every line written before is in the file (the operating system
holds it even if Python never exits cleanly), and a failed write leaves nothing queued to fail again at exit.

A journal that was cut mid-line (a ``kill -9`` or power loss during a write) is reopened on a fresh line, and
:func:`read_journal` skips such a cut record with a warning. :func:`read_journal` and :func:`iter_rulings` read
line by line, so ``ttsmod replay`` runs in memory that does not grow with the journal.

:func:`default_journal_path` is where the bridge writes when no ``--journal`` is given.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import stat
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from bridge.errors import InputError
from bridge.rules.contract import is_older_format

log = logging.getLogger("ttsmod.bridge")

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


DEFAULT_RECORD_LIMIT = 1024 * 1024
"""Largest journal line in bytes (``ttsmod bridge --journal-limit``); a larger message is journaled truncated."""

TRUNCATED_HEAD = 1000
"""Characters of a truncated message's JSON kept in its journal line."""


class Journal:
    """An append-only JSON-lines file. Thread-safe; every record is in the file before :meth:`record` returns.

    Writing failures (disk full, file removed) never raise: the journal must not stop the bridge. The first one
    is logged as an error naming the file and the reason; all are counted in :attr:`failures`, and
    :meth:`close` logs how many records were lost. A record whose line would be longer than ``record_limit``
    bytes keeps only the message's id, size and first :data:`TRUNCATED_HEAD` characters.
    """

    def __init__(self, path: str | os.PathLike, *, record_limit: int = DEFAULT_RECORD_LIMIT) -> None:
        self.path = Path(path)
        self.record_limit = record_limit
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab", buffering=0)
        self._lock = threading.Lock()
        self.failures = 0
        self.truncated = 0
        if self._ends_mid_line():
            # A bridge killed mid-write left a cut record; ours must not be glued onto it.
            self._write(b"\n")

    def _ends_mid_line(self) -> bool:
        try:
            info = os.fstat(self._file.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
                return False
            with open(self.path, "rb") as reader:
                reader.seek(-1, os.SEEK_END)
                return reader.read(1) != b"\n"
        except OSError:
            return False

    def _line(self, direction: str, message: Mapping[str, Any] | None, extra: Mapping[str, Any]) -> bytes:
        entry: dict[str, Any] = {"t": _now(), "dir": direction}
        if message is not None:
            entry["msg"] = message
        entry.update(extra)
        try:
            text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str)
        except (TypeError, ValueError, RecursionError) as exc:
            reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:200]
            text = json.dumps({"t": entry["t"], "dir": direction, "unserialisable": reason, **_message_id(message)})
        # A lone surrogate (JSON "\ud800" from TTS) has no UTF-8 form; written as its JSON escape it reads back the same.
        line = (text + "\n").encode("utf-8", errors="backslashreplace")
        if len(line) <= self.record_limit:
            return line
        self.truncated += 1
        message_text = text if message is None else json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
        # At most 4 bytes a character: the head takes at most half of the cap.
        head = message_text[: min(TRUNCATED_HEAD, self.record_limit // 8)]
        size = len(message_text.encode("utf-8", errors="backslashreplace"))
        summary = {"t": entry["t"], "dir": direction, "truncated": {**_message_id(message), "size": size, "head": head}}
        return (json.dumps(summary, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", errors="backslashreplace")

    def record(self, direction: str, message: Mapping[str, Any] | None = None, **extra: Any) -> None:
        """Append one line: ``direction`` is ``"in"`` or ``"out"``; ``message`` the wire JSON object."""
        line = self._line(direction, message, extra)
        with self._lock:
            if self._file.closed:
                return
            self._write(line)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                written = self._file.write(view)
                if not written:  # a raw file that takes nothing would loop forever
                    raise OSError(errno.EIO, "the journal file accepted no bytes")
                view = view[written:]
        except OSError as exc:
            self.failures += 1
            if self.failures == 1:
                log.error(
                    "error: cannot write the journal %s: %s; the bridge keeps serving, but messages from now on "
                    "may be missing from the journal", self.path, exc.strerror or exc,
                )

    def close(self) -> None:
        with self._lock:
            if self._file.closed:
                return
            try:
                self._file.close()
            except OSError:
                pass
        if self.failures:
            log.error("the journal %s missed %d record(s) it could not write", self.path, self.failures)

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _message_id(message: Mapping[str, Any] | None) -> dict[str, Any]:
    if isinstance(message, Mapping) and isinstance(message.get("messageID"), int):
        return {"messageID": message["messageID"]}
    return {}


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


Warn = Callable[[str], None]

# How every record the bridge writes begins; a line that begins so but does not parse is a cut record.
_RECORD_START = re.compile(rb'^\s*\{\s*"t"\s*:')


def read_journal(path: str | os.PathLike, *, warn: Warn | None = None) -> Iterator[JournalEntry]:
    """The entries of a journal in file order, read one line at a time.

    A record cut short by a crash — the last line without its newline, or a line that begins like a record
    but is cut (also inside a UTF-8 character) before a restarted bridge went on with a new line — is skipped
    and reported through ``warn``. Raises :class:`bridge.errors.InputError` when the file cannot be read or a
    line is something else than a journal record.
    """
    path = Path(path)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path.name}: cannot read the journal: {exc.strerror or exc}") from None
    with handle:
        number = 0
        while True:
            try:
                data = handle.readline()
            except OSError as exc:
                raise InputError(f"{path.name}: cannot read the journal: {exc.strerror or exc}") from None
            if not data:
                return
            number += 1
            complete = data.endswith(b"\n")
            if not data.strip():
                continue
            try:
                raw = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                if not complete or _RECORD_START.match(data):
                    if warn is not None:
                        warn(f"{path.name}: line {number}: a record cut short (the bridge stopped while writing it); skipped")
                    continue
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

    @property
    def older_format(self) -> bool:
        """Whether the request's snapshot is of a format older than this ttsmod reads: the journal was written
        before the one snapshot envelope (no ``"ttsmod_snapshot"``), so the ruling cannot be re-checked here."""
        error = (self.current or {}).get("error")
        if (self.current or {}).get("ok") is not False or not isinstance(error, Mapping):
            return False
        return is_older_format(str(error.get("message", "")))


def _comparable(reply: Mapping[str, Any] | None) -> Any:
    """A reply without the parts that may change between runs without changing the ruling (error wording
    of internal errors is kept: a crash that became a ruling is a difference)."""
    if reply is None:
        return None
    return json.loads(json.dumps(reply, sort_keys=True))


@dataclass
class ReplayReport:
    rulings: list[Ruling]
    warnings: list[str] = field(default_factory=list)

    @property
    def differing(self) -> list[Ruling]:
        return [r for r in self.rulings if r.differs]

    @property
    def unanswered(self) -> list[Ruling]:
        return [r for r in self.rulings if r.recorded is None]


def _adjudication(entry: JournalEntry) -> Mapping[str, Any] | None:
    """The custom message of an incoming adjudication request (not ``hello``), else ``None``."""
    message = entry.message
    if entry.direction != "in" or not message or message.get("messageID") != 4:
        return None
    custom = message.get("customMessage")
    if not isinstance(custom, dict) or "ttsmod" not in custom or custom.get("type") in ("hello", "broadcast"):
        return None
    return custom


def _pair_key(value: Any, request_type: Any) -> str:
    # Ids may be strings or numbers: 1 and 1.0 are the same id (TTS sends Lua numbers as floats), "1" is not.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps([value, request_type], sort_keys=True, default=str)


def iter_rulings(path: str | os.PathLike, reply: Any, *, warn: Warn | None = None) -> Iterator[Ruling]:
    """Re-run every adjudication request of a journal through ``reply(custom) -> dict | None`` (the current
    engine, ``bridge.session.Dispatcher.reply``) and pair it with the reply the journal recorded.

    Requests are envelope custom messages (message 4 with ``"ttsmod"``) other than ``hello`` and the mod's
    ``broadcast`` notes; the recorded
    reply is the first later outgoing message 2 whose ``re`` and ``type`` match and that no earlier request
    took (a mod restart reuses ids, so pairing goes in file order). A ruling is yielded as soon as its reply
    is read; requests never answered come last, in file order. Only requests still waiting for their reply are
    held in memory. A request journaled truncated (over the journal's size cap) cannot be replayed: it is
    reported through ``warn``. Raises :class:`InputError` for an unreadable journal.
    """
    pending: dict[str, deque[tuple[int, Mapping[str, Any]]]] = {}
    for entry in read_journal(path, warn=warn):
        custom = _adjudication(entry)
        if custom is not None:
            pending.setdefault(_pair_key(custom.get("id"), custom.get("type")), deque()).append((entry.line, custom))
            continue
        truncated = entry.raw.get("truncated")
        if isinstance(truncated, dict) and entry.direction == "in" and truncated.get("messageID") == 4 and warn is not None:
            warn(f"{Path(path).name}: line {entry.line}: a custom message of {truncated.get('size')} bytes was journaled "
                 "truncated (over the journal's size cap); it is not replayed")
        out = entry.message
        if entry.direction != "out" or not out or out.get("messageID") != 2:
            continue
        candidate = out.get("customMessage")
        if not isinstance(candidate, dict):
            continue
        waiting = pending.get(_pair_key(candidate.get("re"), candidate.get("type")))
        if not waiting:
            continue
        line, request = waiting.popleft()
        yield Ruling(line, request, candidate, reply(request))
    leftovers = sorted((line, request) for queue in pending.values() for line, request in queue) if pending else []
    for line, request in leftovers:
        yield Ruling(line, request, None, reply(request))


def replay(path: str | os.PathLike, reply: Any) -> ReplayReport:
    """Every ruling of :func:`iter_rulings`, in file order, with the warnings met while reading."""
    warnings: list[str] = []
    rulings = sorted(iter_rulings(path, reply, warn=warnings.append), key=lambda ruling: ruling.line)
    return ReplayReport(rulings, warnings)
