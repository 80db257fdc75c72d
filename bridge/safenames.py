"""File names made from untrusted text (object names and GUIDs from a TTS save), and writes kept in their folder.

A save is data from whoever made it: an object called ``../../.config/x`` or ``CON`` must not decide where
ttsmod writes. :func:`safe_component` turns any text into one file-name component that is valid on Linux,
macOS and Windows; :func:`contained_path` is the last check before a write: the path stays in its folder.

No I/O except resolving paths in :func:`contained_path`.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from pathlib import Path

from bridge.errors import InputError

MAX_COMPONENT_BYTES = 120
"""Longest name part (UTF-8 bytes) kept before it is cut and given a hash suffix. File systems allow 255 bytes
for a whole name; this leaves room for ``.<guid>.lua`` and for the temporary name of an atomic write."""

HASH_CHARS = 8

# Characters Windows refuses in a file name, and both separators.
_FORBIDDEN = frozenset('<>:"/\\|?*')
# Unicode categories that are never shown as text: controls, format characters (bidi overrides that can make a
# name look like another), line/paragraph separators, lone surrogates (not encodable), unassigned code points.
_INVISIBLE_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp", "Cn"))
_DOT_RUN = re.compile(r"\.{2,}")
_WINDOWS_RESERVED = re.compile(
    r"(?i)^(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9¹²³]|LPT[0-9¹²³])$"
)


def _replace_unsafe_characters(text: str) -> str:
    return "".join(
        "_" if ch in _FORBIDDEN or unicodedata.category(ch) in _INVISIBLE_CATEGORIES else ch for ch in text
    )


def _cut_to_bytes(text: str, limit: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits in ``limit`` bytes (never half a character)."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode("utf-8", errors="ignore")


def safe_component(text: str, *, fallback: str = "Object", max_bytes: int = MAX_COMPONENT_BYTES) -> str:
    """``text`` as one file-name component that is safe on every OS.

    Path separators, Windows-forbidden characters (``<>:"/\\|?*``) and invisible characters (controls, bidi
    overrides, lone surrogates) become ``_``; a run of dots becomes ``_`` (no ``..``); leading and trailing dots
    and spaces go (a leading dot would hide the file, trailing ones Windows drops); a Windows device name
    (``CON``, ``nul``, ``COM1``…, also before a dot) gets a ``_`` appended. Letters of every script are kept.
    Text longer than ``max_bytes`` UTF-8 bytes is cut and ends in ``~`` and a hash of the whole original text,
    so two long names that share their beginning still give two different components. Empty results become
    ``fallback``. Deterministic: the same text always gives the same component.
    """
    cleaned = _DOT_RUN.sub("_", _replace_unsafe_characters(text)).strip(". ")
    first, dot, rest = cleaned.partition(".")
    if _WINDOWS_RESERVED.match(first.rstrip(" ")):
        cleaned = f"{first.rstrip(' ')}_{dot}{rest}"
    if not cleaned:
        cleaned = fallback
    if len(cleaned.encode("utf-8")) > max_bytes:
        digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:HASH_CHARS]
        cleaned = _cut_to_bytes(cleaned, max_bytes - HASH_CHARS - 1).rstrip(". ") + "~" + digest
    return cleaned


def is_safe_token(text: str, *, max_bytes: int = 64) -> bool:
    """Whether ``text`` can be used unchanged as part of a file name and read back from it: non-empty, at most
    ``max_bytes`` UTF-8 bytes, no dot, and already what :func:`safe_component` would make of it.

    Use it for identifiers that must survive a round trip through a file name (a GUID cannot be renamed: TTS
    knows the object by it)."""
    if not text or "." in text or len(text.encode("utf-8", errors="surrogatepass")) > max_bytes:
        return False
    return safe_component(text, fallback="", max_bytes=max_bytes) == text


def contained_path(folder: str | os.PathLike, file_name: str) -> Path:
    """``folder / file_name``, after checking that it names a file directly inside ``folder``.

    ``file_name`` must be a single component, and the resolved path (symbolic links followed) must lie in the
    resolved folder. Raises :class:`bridge.errors.InputError` otherwise: nothing from a save can make ttsmod write
    elsewhere.
    """
    root = Path(folder).resolve()
    if not file_name or file_name in (".", "..") or any(sep in file_name for sep in ("/", "\\", "\x00")):
        raise InputError(f"{file_name!r} is not a plain file name; refusing to write outside {Path(folder).name}")
    target = (root / file_name).resolve()
    if target.parent != root:
        raise InputError(f"{file_name!r} leads outside {Path(folder).name}; refusing to write it")
    return root / file_name


def is_inside_tree(root: str | os.PathLike, path: str | os.PathLike) -> bool:
    """Whether ``path``, with every symbolic link on the way followed, is ``root`` or lies under it (``root``'s
    own links followed too: the user named it). A path that does not exist yet is resolved as far as it exists."""
    real_root = Path(root).resolve()
    real = Path(path).resolve()
    return real == real_root or real_root in real.parents


def inside_tree(root: str | os.PathLike, path: str | os.PathLike, *, action: str = "read") -> Path:
    """``path`` when :func:`is_inside_tree` holds; else :class:`bridge.errors.InputError` naming it: ``<path>:
    a symbolic link that leads outside <root>; refusing to <action> it``."""
    if not is_inside_tree(root, path):
        raise InputError(f"{path}: a symbolic link that leads outside {root}; refusing to {action} it")
    return Path(path)
