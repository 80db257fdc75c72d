"""Fingerprints of the entries of a game's long data lists, for the caches a rebuild keys by entry.

A rebuild after one card of a 10,000-card list was edited should not work out again what it worked out for the
9,999 others (their image keys, their objects on the table), and it cannot tell they are the same by comparing
their records: hashing each record costs about as much as the work it would save. What it knows at no cost is
the digest of each entry's exact text (:class:`bridge.catalog.EntryList`, from the parsed-entry cache). So an
entry is named by its **fingerprint**: the digest of its text, its place in the list and the **context** — the
digest of everything else the build reads (every input file of the build stamp but the list's own file, whose
head counts instead; ttsmod's version and source among them) and of the build's options. Two builds give an
entry the same fingerprint only when the entry, its place and everything around it are the same.

What a fingerprint stands for is a builder's claim: a builder that keys a cache by it
(:attr:`tools.games.builder.GameBuilder.takes_entries`) vouches that what it keys (a record made from the entry,
an image key, a card's fields) follows from the entry's text, its place and the rest of the inputs, never from
another entry of the list; whatever else the cached value depends on (the language, a face's size on its sheet)
goes into the key beside the fingerprint.

The caches keyed so are files of ``.cache/`` that a builder reads with :meth:`EntryKeys.read` and hands back with
:meth:`EntryKeys.keep`; the build writes them (atomically, not synced) only once it has written its save, and only
when no input changed while it ran (the context was taken before anything was read). A cache file that is
missing, damaged or of another context only means working everything out again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

from bridge.catalog import EntryList
from bridge.fsio import atomic_write_bytes
from tools import buildstamp

CONTEXT_FORMAT = b"ttsmod entry context 1"


class EntryKeys:
    """The fingerprints of one build's entry lists and the caches keyed by them (see the module docstring)."""

    def __init__(self, context: bytes, lists: Mapping[tuple[str, str], EntryList], cache_dir: Path, *,
                 game_dir: Path | None = None, out_dir: Path | None = None,
                 stats: Mapping[str, tuple[int, int]] | None = None) -> None:
        self.context = context
        self.lists = dict(lists)
        self.cache_dir = Path(cache_dir)
        self._game_dir, self._out_dir, self._stats = game_dir, out_dir, stats
        self._pending: dict[str, bytes] = {}
        self._made: dict[tuple[str, str], tuple[bytes, ...]] = {}

    @classmethod
    def of_build(cls, game_dir: Path, out_dir: Path, options: Mapping[str, Any],
                 lists: Mapping[tuple[str, str], EntryList], inputs: Mapping[str, list[Any]],
                 stats: Mapping[str, tuple[int, int]]) -> "EntryKeys":
        """The entry keys of a build of ``game_dir`` into ``out_dir`` with ``options``: ``lists`` as the load read
        them, ``inputs`` the build stamp's fingerprints of every input file
        (:func:`tools.buildstamp.fingerprint_inputs`) and ``stats`` their sizes and times as they were taken
        (:func:`tools.buildstamp.input_stats`)."""
        listed = {str((Path(game_dir) / file).resolve()) for file, _ in lists}
        digest = hashlib.sha256(CONTEXT_FORMAT)
        key = buildstamp.stamp_key(game_dir, out_dir, options)
        digest.update(b"\0" + json.dumps(key, sort_keys=True).encode("utf-8"))
        for path, (_, _, sha) in sorted(inputs.items()):
            if path not in listed:
                digest.update(f"\0{path}\0{sha}".encode("utf-8"))
        for (file, table), entry_list in sorted(lists.items()):
            digest.update(f"\0list\0{file}\0{table}\0{entry_list.head}".encode("utf-8"))
        return cls(digest.digest(), lists, Path(out_dir) / ".cache", game_dir=game_dir, out_dir=out_dir,
                   stats=stats)

    def fingerprints(self, file: str, table: str) -> tuple[bytes, ...] | None:
        """Each entry's fingerprint (16 bytes) of the list ``table`` of ``file``, in order; None when that list was
        not read entry by entry (a short file, a spreadsheet's list, a build without caches)."""
        found = self._made.get((file, table))
        if found is None:
            entry_list = self.lists.get((file, table))
            if entry_list is None:
                return None
            context = self.context
            blake2b = hashlib.blake2b
            found = self._made[(file, table)] = tuple(
                blake2b(context + index.to_bytes(4, "big") + bytes.fromhex(text), digest_size=16).digest()
                for index, text in enumerate(entry_list.digests))
        return found

    def read(self, name: str) -> bytes | None:
        """The bytes of the cache file ``.cache/<name>`` (None when it is missing or unreadable)."""
        try:
            return (self.cache_dir / name).read_bytes()
        except OSError:
            return None

    def keep(self, name: str, raw: bytes) -> None:
        """Have :meth:`save` write ``raw`` into ``.cache/<name>``."""
        self._pending[name] = raw

    def save(self) -> None:
        """Write the files :meth:`keep` was given, unless an input changed since the context was taken (the
        values kept may then be those of the changed input): each atomically, not synced; one that cannot be
        written is left out (a cache)."""
        pending, self._pending = self._pending, {}
        if not pending:
            return
        if self._stats is not None and buildstamp.input_stats(self._game_dir, self._out_dir) != self._stats:
            return
        for name, raw in pending.items():
            try:
                atomic_write_bytes(self.cache_dir / name, raw, durable=False)
            except OSError:
                pass
