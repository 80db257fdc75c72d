"""GUIDs for the objects of a save: six lowercase hex digits, unique, derived from a stable object key.

TTS identifies objects by a 6-character GUID (tts-facts §2.3).  A build must give every object — contained
cards and potions included — a GUID that is

- **unique across the whole save** (TTS re-assigns duplicates on load, which breaks any script that stored one);
- **stable across rebuilds of unchanged content**, so git diffs and the bridge's journal stay meaningful.

So a GUID is the first six hex digits of ``sha256(key)``, where ``key`` is the object's path on the table
(``"bag:White/potion:3"``).  When that GUID is already taken (a 1-in-16-million event per pair), the allocator
tries ``sha256(key + "#1")``, ``"#2"``, … in order.  Allocation runs in a fixed walk order, so the resolution of
a collision is deterministic too.
"""

from __future__ import annotations

import hashlib
import re

GUID_RE = re.compile(r"^[0-9a-f]{6}$")


def derive_guid(key: str, attempt: int = 0) -> str:
    """The candidate GUID number ``attempt`` for ``key`` (six lowercase hex digits)."""
    text = key if attempt == 0 else f"{key}#{attempt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]


def is_guid(value: object) -> bool:
    """True when ``value`` is a string of exactly six lowercase hex digits."""
    return isinstance(value, str) and GUID_RE.match(value) is not None


class GuidAllocator:
    """Hands out unique GUIDs for unique keys, in call order.

    ``reserve(guid)`` claims an explicit GUID first (an object that must keep a known GUID); ``allocate(key)``
    derives one.  Asking twice for the same key is a programming error (``ValueError``): two objects with one
    identity would silently share a GUID otherwise.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._keys: dict[str, str] = {}

    def reserve(self, guid: str, key: str | None = None) -> str:
        if not is_guid(guid):
            raise ValueError(f'GUID "{guid}" is not six lowercase hex digits')
        if guid in self._taken:
            raise ValueError(f'GUID "{guid}" is used twice')
        self._taken.add(guid)
        if key is not None:
            self._remember(key, guid)
        return guid

    def allocate(self, key: str) -> str:
        if key in self._keys:
            raise ValueError(f'object key "{key}" is used by two objects')
        attempt = 0
        while True:
            guid = derive_guid(key, attempt)
            if guid not in self._taken:
                self._taken.add(guid)
                self._keys[key] = guid
                return guid
            attempt += 1

    def _remember(self, key: str, guid: str) -> None:
        if key in self._keys:
            raise ValueError(f'object key "{key}" is used by two objects')
        self._keys[key] = guid

    def __contains__(self, guid: str) -> bool:
        return guid in self._taken

    def __len__(self) -> int:
        return len(self._taken)
