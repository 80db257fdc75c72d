"""``ttsmod check``: lint any Tabletop Simulator save (or Saved Object) for what breaks or surprises in TTS.

Findings have a severity:

- ``error`` — TTS will misbehave: a card whose ``CardID`` names no ``CustomDeck`` of its deck, ``DeckIDs`` out of
  step with ``ContainedObjects``, a sheet grid over 10 × 7, a local image that is missing, unreadable or CMYK,
  a duplicate GUID among top-level objects, ``require(`` in a script that is not a bundle (TTS has no require).
  A local image over the pixel limit (a likely decompression bomb) is an error naming the file and its size.
- ``warning`` — suspicious: a GUID that is not six lowercase hex digits, an image over 4096 px, an image
  neither RGB nor RGBA, an empty Global script in a save (not in a Saved Object, whose Global is always
  empty), a bundle that cannot be unbundled, a malformed URL, a ``file:`` URL to a network share (never
  opened: a save from someone else must not make this computer connect anywhere), objects nested deeper
  than :data:`MAX_NESTING`.
- ``info`` — does not change the exit status: what TTS writes into its own saves (a card's own stale
  ``CustomDeck`` key inside a deck, GUIDs repeated inside containers), and ``file:///`` image URLs, which only
  this computer can load (other players see nothing; host the images and rebuild with ``--asset-base-url``).

Only local files are ever read: ``file:///abs/path``, ``file://localhost/...`` and plain absolute paths.  The
checker never recurses on the save's nesting (a hostile save can nest as deep as the JSON parser allows).

Exit status of the command: 0 when there is no error or warning (infos allowed), 1 when there is any,
2 when the input is not a readable save (:class:`bridge.errors.InputError`).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol
from urllib.parse import unquote, urlparse

from bridge.luaproject.bundle import LexMemo, find_requires, is_bundle, LuaSyntaxError, unbundle
from bridge.luaproject.savetree import read_save
from bridge.fsio import atomic_write_bytes
from bridge.protocol import valid_unicode
from tools.imageio import DEFAULT_MAX_PIXELS, ImageError, ImageTooLargeError, probe_image
from tools.save.guids import is_guid
from tools.save.save import KeptObject

SEVERITIES = ("error", "warning", "info")
MAX_NESTING = 64  # containers inside containers; real saves nest a handful deep
MAX_SHOWN = 120  # characters of a name, GUID or URL quoted in a finding
MAX_COLUMNS, MAX_ROWS, MAX_SIDE = 10, 7, 4096
URL_KEYS = ("FaceURL", "BackURL", "ImageURL", "ImageSecondaryURL", "MeshURL", "DiffuseURL", "NormalURL",
            "ColliderURL", "AssetbundleURL", "AssetbundleSecondaryURL", "PDFUrl", "URL", "TableURL", "SkyURL",
            "LutURL")
IMAGE_KEYS = {"FaceURL", "BackURL", "ImageURL", "ImageSecondaryURL", "DiffuseURL", "NormalURL", "TableURL",
              "SkyURL", "LutURL"}
SCHEMA_VERSION = 2  # 2: the "note" severity became "info"


@dataclass(frozen=True)
class Finding:
    """One problem found; its texts are valid Unicode (:func:`bridge.protocol.valid_unicode`), whatever the save
    holds."""

    severity: str  # "error" | "warning" | "info"
    code: str  # short stable id, e.g. "card-id", "guid-duplicate"
    where: str  # JSON path plus object description, e.g. 'ObjectStates[3] Deck "Scenes" (a1b2c3)'
    message: str

    def __post_init__(self) -> None:
        # every text from the save reaches the user through a finding: one place makes them all printable
        object.__setattr__(self, "where", valid_unicode(self.where))
        object.__setattr__(self, "message", valid_unicode(self.message))

    def __str__(self) -> str:
        return f"{self.severity}: {self.where}: {self.message} [{self.code}]"


@dataclass
class CheckReport:
    source: str
    findings: list[Finding] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.source = valid_unicode(self.source)   # a file name that is not UTF-8 (surrogate-escaped bytes)

    @property
    def exit_status(self) -> int:
        return 1 if any(f.severity in ("error", "warning") for f in self.findings) else 0

    def errors_only(self) -> "CheckReport":
        """The same report with only its errors (its exit status then ignores warnings)."""
        return CheckReport(self.source, [f for f in self.findings if f.severity == "error"])

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "source": self.source, "exit_status": self.exit_status,
                "counts": {s: self.count(s) for s in SEVERITIES},
                "findings": [asdict(f) for f in self.findings]}


def check_file(path: Path, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> CheckReport:
    """Lint the save at ``path``; its local images are read from this computer's file system.

    ``max_pixels``: a local image whose width × height is larger is an ``image-too-large`` error.
    """
    return check_data(read_save(path), source=str(path), max_pixels=max_pixels)


def is_saved_object(data: dict[str, Any]) -> bool:
    """A Saved Object (``Saves/Saved Objects/*.json``, what ``ttsmod sheets`` writes) rather than a whole save.

    TTS writes Saved Objects with the save's outer fields empty: no date, no table, no version.
    """
    return all(not data.get(key) for key in ("Date", "Table", "VersionNumber"))


@dataclass
class _Walked:
    obj: dict[str, Any]
    path: str
    depth: int  # 0 = top level, ≥ 1 = inside a container (ContainedObjects/States/ChildObjects)
    parent: dict[str, Any] | None

    @cached_property
    def where(self) -> str:
        """How a finding names the object: spelt out only for a finding (a big save has 10,000 objects)."""
        return _describe(self.obj, self.path)


class _Place:
    """A place that is not an object (the save's own fields), named like one."""

    def __init__(self, where: str) -> None:
        self.where = where


_GLOBAL = _Place("Global")


def _shown(value: Any) -> str:
    """``value`` as text short enough for a one-line finding (hostile saves carry megabyte names)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace("\n", " ").replace("\r", " ")
    return text if len(text) <= MAX_SHOWN else f"{text[:MAX_SHOWN]}… ({len(text)} characters)"


def _describe(obj: dict[str, Any], path: str) -> str:
    name = _shown(obj.get("Name", "?"))
    nick = obj.get("Nickname") or ""
    guid = _shown(obj.get("GUID", "no GUID"))
    label = f'{name} "{_shown(nick)}"' if nick else name
    return f"{path} {label} ({guid})"


def _walk(objects: list, add) -> Iterator[_Walked]:
    """Every object of ``ObjectStates`` and of its containers, depth first in file order, without recursion.

    Containers nested deeper than :data:`MAX_NESTING` are reported once and not entered.
    """
    # A stack of (objects still to visit, reversed; JSON path prefix; depth; parent) — no Python recursion,
    # so a hostile save cannot exhaust the interpreter's stack.
    top = [(obj, f"ObjectStates[{i}]") for i, obj in enumerate(objects)]
    stack: list[tuple[list[tuple[Any, str]], int, int, dict | None]] = [(top, 0, 0, None)]
    too_deep_reported = False
    while stack:
        items, index, depth, parent = stack.pop()
        if index >= len(items):
            continue
        stack.append((items, index + 1, depth, parent))
        obj, path = items[index]
        if not isinstance(obj, (dict, KeptObject)):   # a kept object reads as its dict (and holds no others)
            continue
        walked = _Walked(obj, path, depth, parent)
        yield walked
        if type(obj) is KeptObject:
            continue   # it holds no others
        children: list[tuple[Any, str]] = []
        if isinstance(obj.get("ContainedObjects"), list):
            children += [(c, f"{path}.ContainedObjects[{i}]") for i, c in enumerate(obj["ContainedObjects"])]
        if isinstance(obj.get("ChildObjects"), list):
            children += [(c, f"{path}.ChildObjects[{i}]") for i, c in enumerate(obj["ChildObjects"])]
        if isinstance(obj.get("States"), dict):
            children += [(state, f"{path}.States[{_shown(key)}]")
                         for key, state in sorted(obj["States"].items(), key=lambda kv: str(kv[0]))]
        if not children:
            continue
        if depth + 1 > MAX_NESTING:
            if not too_deep_reported:
                too_deep_reported = True
                add(Finding("warning", "nesting-depth", walked.where,
                            f"objects nested more than {MAX_NESTING} containers deep; the deeper ones are not "
                            "checked"))
            continue
        stack.append((children, 0, depth + 1, obj))


class UrlMemo(Protocol):
    """What :func:`check_data` may be given to remember each object's URLs between checks (a build keeps them
    beside the save's object texts, :class:`tools.save.save.ObjectTexts`): finding them means walking every
    value below every object, and a 10,000-card save has 165,000 nested tables."""

    def urls(self, obj: dict[str, Any]) -> list[tuple[str, str]] | None:
        """The ``(key, url)`` pairs found below ``obj`` when it had the same value, or None."""

    def remember(self, obj: dict[str, Any], urls: list[tuple[str, str]]) -> None:
        """Keep the pairs just found below ``obj``."""

    def name(self, obj: dict[str, Any]) -> bytes | None:
        """A digest naming ``obj``'s value (the same for the same value, whatever build made it), or None."""


class ImageProbes:
    """What :func:`tools.imageio.probe_image` found in local image files, kept between checks (a build's cache
    folder holds it: :meth:`load`, :meth:`save`): a rebuild after one edit checks the same thousand sheets again.

    An answer is used only for the same file path, size, modification time (ns), inode and pixel limit; a file
    modified within :data:`RACY_NS` of being probed is not kept (a same-size rewrite within the file system's
    time granularity must not pass for the file probed). Only readable images are kept: an error is found
    again each time."""

    RACY_NS = 2_000_000_000
    FORMAT = 1

    def __init__(self, known: dict[str, list[Any]] | None = None) -> None:
        self.known = known or {}
        self.used: dict[str, list[Any]] = {}

    @classmethod
    def load(cls, path: Path) -> "ImageProbes":
        """The probes kept in ``path``; none when it is missing or unreadable (a cache)."""
        try:
            stored = json.loads(Path(path).read_bytes())
            known = stored["probes"] if stored.get("format") == cls.FORMAT else {}
        except (OSError, ValueError, AttributeError, KeyError, TypeError, RecursionError):
            known = {}
        return cls(known if isinstance(known, dict) else {})

    def save(self, path: Path) -> None:
        """Write the probes this check used (a cache, without fsync: losing it costs a probe of each file)."""
        if self.used == self.known:
            return
        try:
            atomic_write_bytes(path, json.dumps({"format": self.FORMAT, "probes": self.used}, sort_keys=True)
                               .encode("utf-8"), durable=False)
        except OSError:
            pass

    def probe(self, path: Path, max_pixels: int) -> tuple[str, tuple[int, int]]:
        """:func:`tools.imageio.probe_image` of ``path``, or its kept answer for the same file; same errors."""
        try:
            stat = os.stat(path)
        except (OSError, ValueError):
            return probe_image(path, max_pixels=max_pixels)   # its error names what is wrong
        name = str(path)
        state = [stat.st_size, stat.st_mtime_ns, stat.st_ino, max_pixels]
        kept = self.known.get(name)
        if (isinstance(kept, list) and len(kept) == 7 and kept[:4] == state and isinstance(kept[4], str)
                and isinstance(kept[5], int) and isinstance(kept[6], int)):
            self.used[name] = kept
            return kept[4], (kept[5], kept[6])
        mode, (width, height) = probe_image(path, max_pixels=max_pixels)
        if time.time_ns() - stat.st_mtime_ns > self.RACY_NS:
            self.used[name] = [*state, mode, width, height]
        return mode, (width, height)


CHECKS_VERSION = 1
"""Bump when what an object's own checks find changes (:func:`_check_cards`, :func:`_check_scripts`): the
verdicts kept (:class:`CleanObjects`) are then forgotten."""


class CleanObjects:
    """The objects whose own checks (their cards, decks and script: what depends on the object's value alone)
    found nothing, kept between checks by the name of their value (:meth:`UrlMemo.name`; a build's cache folder
    holds them: :meth:`load`, :meth:`save`). A rebuild after one edit checks the 10,000 cards it did not change
    again otherwise. Only a clean object is kept: one with a finding is checked each time (a finding names the
    object's place, which its value does not fix), and so is a card whose checks read its deck's
    ``CustomDeck`` (that is always a finding: an info or an error).

    The file is a header naming :data:`CHECKS_VERSION` and ttsmod's version (another one forgets every
    verdict), then the names, each :data:`NAME_SIZE` bytes. A cache: a missing or unreadable file is none."""

    NAME_SIZE = 18
    FORMAT = b"ttsmod clean objects"

    def __init__(self, known: frozenset[bytes] = frozenset()) -> None:
        self.known = known
        self.used: set[bytes] = set()

    @classmethod
    def _header(cls) -> bytes:
        from bridge import __version__

        return cls.FORMAT + f" {CHECKS_VERSION} {__version__}\n".encode("utf-8")

    @classmethod
    def load(cls, path: Path) -> "CleanObjects":
        try:
            raw = Path(path).read_bytes()
        except OSError:
            return cls()
        header, size = cls._header(), cls.NAME_SIZE
        body = raw[len(header):]
        if not raw.startswith(header) or len(body) % size:
            return cls()
        return cls(frozenset(body[i:i + size] for i in range(0, len(body), size)))

    def save(self, path: Path) -> None:
        """Keep the names of the objects found clean by this check (those of earlier checks no longer in the
        save are forgotten); nothing is written when they are the ones read. Not synced; a file that cannot
        be written is left as it is."""
        if self.used == self.known:
            return
        try:
            atomic_write_bytes(path, self._header() + b"".join(sorted(self.used)), durable=False)
        except OSError:
            pass


def check_data(data: dict[str, Any], source: str = "<save>", *,
               max_pixels: int = DEFAULT_MAX_PIXELS, memo: UrlMemo | None = None,
               probes: ImageProbes | None = None, lex: LexMemo | None = None,
               clean: CleanObjects | None = None) -> CheckReport:
    """Lint a parsed save or Saved Object (see the module docstring for the findings).

    ``memo`` answers the URLs of objects whose value it knows, ``probes`` the sizes and modes of image files it
    has probed as they are, ``lex`` whether a Global script it has lexed unbundles, ``clean`` (with ``memo``,
    which names the objects) which objects' own checks found nothing (the findings are the same with or
    without any of them)."""
    report = CheckReport(source)
    findings = report.findings
    add = findings.append
    objects = data.get("ObjectStates")
    walked = list(_walk(objects if isinstance(objects, list) else [], add))

    _check_guids(walked, add)
    name_of = memo.name if memo is not None and clean is not None else None
    for w in walked:
        name = name_of(w.obj) if name_of is not None else None
        if name is not None and name in clean.known:   # type: ignore[union-attr]
            clean.used.add(name)   # type: ignore[union-attr]
            continue
        before = len(findings)
        _check_cards(w, add)
        _check_scripts(w, add)
        if name is not None and len(findings) == before:
            clean.used.add(name)   # type: ignore[union-attr]
    if not is_saved_object(data):
        _check_global_script(data, add, lex)
    _check_urls(data, walked, add, max_pixels, memo, probes)
    return report


def _check_guids(walked: list[_Walked], add) -> None:
    # Only string GUIDs are counted: a hostile save can put a list or an object there (not hashable).
    # TTS itself writes "" for objects inside bags and decks (and gives them a GUID when they come out): an empty
    # GUID is never a duplicate.
    guids = [w.obj.get("GUID") for w in walked]   # each read once (a kept object's is not in a dict)
    top = Counter(guid for w, guid in zip(walked, guids) if w.depth == 0 and isinstance(guid, str) and guid)
    everywhere = Counter(guid for guid in guids if isinstance(guid, str) and guid)
    reported: set[str] = set()
    for w, guid in zip(walked, guids):
        if guid is None:
            add(Finding("warning", "guid-missing", w.where, "object has no GUID"))
            continue
        if not isinstance(guid, str):
            add(Finding("warning", "guid-shape", w.where,
                        f"GUID {_shown(guid)} is not a string (TTS expects six lowercase hex digits)"))
            continue
        if guid == "":
            if w.depth == 0:   # inside a container it is what TTS writes; on the table TTS gives it one on load
                add(Finding("info", "guid-empty", w.where, "object has an empty GUID; TTS gives it one on load"))
            continue
        if not is_guid(guid):
            # Legal: TTS keeps any text, and a mod may name an object on purpose (getObjectFromGUID("aidBoard")).
            add(Finding("info", "guid-name", w.where,
                        f'GUID "{_shown(guid)}" is a name, not six hex digits: TTS keeps it and scripts find the '
                        "object by it, but a GUID TTS makes could never clash with it"))
        if guid in reported:
            continue
        if top[guid] > 1:
            reported.add(guid)
            add(Finding("error", "guid-duplicate", w.where,
                        f'GUID "{_shown(guid)}" is used by {top[guid]} top-level objects; TTS re-assigns all but one '
                        "on load, breaking scripts that look it up"))
        elif everywhere[guid] > 1:
            reported.add(guid)
            add(Finding("info", "guid-duplicate-contained", w.where,
                        f'GUID "{_shown(guid)}" appears {everywhere[guid]} times counting objects inside containers; '
                        "TTS gives a new GUID when one is taken out"))


def _grid_ok(key: str, entry: Any, place: _Walked, add) -> bool:
    if not isinstance(entry, dict):
        add(Finding("error", "custom-deck", place.where, f"CustomDeck[{_shown(key)}] is not an object"))
        return False
    w, h = entry.get("NumWidth"), entry.get("NumHeight")
    if not isinstance(w, int) or not isinstance(h, int) or not (1 <= w <= MAX_COLUMNS and 1 <= h <= MAX_ROWS):
        add(Finding("error", "sheet-grid", place.where,
                    f"CustomDeck[{_shown(key)}] grid {_shown(w)} x {_shown(h)} is outside 1..{MAX_COLUMNS} x 1..{MAX_ROWS}"))
        return False
    if not entry.get("FaceURL"):
        add(Finding("error", "custom-deck", place.where, f"CustomDeck[{_shown(key)}] has no FaceURL"))
    return True


def _check_cards(w: _Walked, add) -> None:
    obj = w.obj
    name = obj.get("Name")
    custom = obj.get("CustomDeck")
    if isinstance(custom, dict):
        for key, entry in custom.items():
            _grid_ok(key, entry, w, add)
    if name in ("Card", "CardCustom") and "CardID" in obj:
        cid = obj["CardID"]
        if not isinstance(cid, int) or cid < 0:
            add(Finding("error", "card-id", w.where, f"CardID {_shown(cid)} is not a non-negative integer"))
            return
        key, index = str(cid // 100), cid % 100
        if custom is None:
            return  # a built-in playing card
        in_deck = w.parent is not None and w.parent.get("Name") in ("Deck", "DeckCustom")
        if key not in custom:
            deck_custom = w.parent.get("CustomDeck") if in_deck else None
            if in_deck and isinstance(deck_custom, dict) and key in deck_custom:
                add(Finding("info", "card-stale-custom-deck", w.where,
                            f"CardID {cid} names CustomDeck {key} but the card's own CustomDeck holds "
                            f"{_shown(', '.join(sorted(custom))) or 'nothing'} (TTS itself writes this; the deck's entry "
                            "is used)"))
                entry = deck_custom[key]
            else:
                add(Finding("error", "card-id", w.where,
                            f"CardID {cid} names CustomDeck {key}, which neither the card nor its deck defines"))
                return
        else:
            entry = custom[key]
        if isinstance(entry, dict) and isinstance(entry.get("NumWidth"), int) \
                and isinstance(entry.get("NumHeight"), int):
            cells = entry["NumWidth"] * entry["NumHeight"]
            if index >= cells:
                add(Finding("error", "card-index", w.where,
                            f"CardID {cid}: index {index} is outside the {entry['NumWidth']} x "
                            f"{entry['NumHeight']} sheet"))
    if name in ("Deck", "DeckCustom"):
        ids = obj.get("DeckIDs")
        contained = obj.get("ContainedObjects")
        if not isinstance(ids, list) or not isinstance(contained, list):
            add(Finding("error", "deck-ids", w.where, "deck without DeckIDs or ContainedObjects lists"))
            return
        card_ids = [c.get("CardID") for c in contained if isinstance(c, (dict, KeptObject))]
        if ids != card_ids:
            add(Finding("error", "deck-ids", w.where,
                        f"DeckIDs do not match the contained cards' CardIDs in order ({len(ids)} ids, "
                        f"{len(card_ids)} cards)"))
        if isinstance(custom, dict):
            missing = sorted({str(i // 100) for i in ids if isinstance(i, int)} - set(custom))
            if missing:
                add(Finding("error", "deck-custom-deck", w.where,
                            f"DeckIDs use CustomDeck key(s) {_shown(', '.join(missing))} the deck does not define"))
        if len(contained) < 2:
            add(Finding("warning", "deck-size", w.where, f"a deck of {len(contained)} card(s); TTS expects ≥ 2"))


def _script_findings(script: str, place: _Walked | _Place, what: str, add, lex: LexMemo | None = None) -> None:
    if not script.strip():
        return
    if is_bundle(script):
        try:
            if lex is not None:
                lex.unbundles(script)
            else:
                unbundle(script)
        except (ValueError, RecursionError) as exc:
            add(Finding("warning", "bundle-unreadable", place.where,
                        f"{what} looks bundled but cannot be unbundled: {_shown(str(exc))}"))
        return
    try:
        requires = find_requires(script)
        lines = [r.line for r in requires]
    except (LuaSyntaxError, RecursionError):
        lines = [n for n, text in enumerate(script.split("\n"), 1) if "require(" in text]
    if lines:
        add(Finding("error", "require-unbundled", place.where,
                    f"{what} calls require (line {lines[0]}) but is not a bundle; TTS has no require"))


def _check_scripts(w: _Walked, add) -> None:
    script = w.obj.get("LuaScript")
    if isinstance(script, str):
        _script_findings(script, w, "LuaScript", add)


def _check_global_script(data: dict[str, Any], add, lex: LexMemo | None = None) -> None:
    script = data.get("LuaScript", "")
    if not isinstance(script, str) or not script.strip():
        add(Finding("warning", "global-script-empty", _GLOBAL.where, "the Global LuaScript is empty"))
        return
    _script_findings(script, _GLOBAL, "the Global LuaScript", add, lex)


_URL_KEY_SET = frozenset(URL_KEYS)
_CONTAINER_KEYS = frozenset(("ContainedObjects", "ChildObjects", "States", "ObjectStates"))


def _urls(value: Any) -> Iterator[tuple[str, str]]:
    """``(key, url)`` of every URL-valued key below ``value`` (objects excluded: walked apart), in file order:
    a dict's own URL keys first, then what its values hold.

    Iterative: the values below an object can nest as deep as the JSON parser allows.
    """
    # A big game's save holds hundreds of thousands of numbers: each value is looked at once, with the fewest
    # tests that tell a URL, a container to enter and anything else apart.
    stack: list[Any] = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        current = pop()
        if isinstance(current, dict):
            if not _URL_KEY_SET.isdisjoint(current):
                for k, v in current.items():
                    if k in _URL_KEY_SET and isinstance(v, str) and v:
                        yield k, v
            children = [v for k, v in current.items() if isinstance(v, (dict, list)) and k not in _CONTAINER_KEYS]
        elif isinstance(current, list):
            children = [v for v in current if isinstance(v, (dict, list))]
        else:
            continue
        if children:
            children.reverse()
            extend(children)


class UnsafeURL(ValueError):
    """A ``file:`` URL or path the checker will not open: ``str()`` says why."""


_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")  # C:\ or C:/
_TWO_SEPARATORS = re.compile(r"^[\\/]{2}")  # //host/share, \\host\share, \\?\..., \\.\...


def local_path(url: str) -> Path | None:
    """The local file a ``file:`` URL or a plain absolute path points to; None for web URLs.

    Raises :class:`UnsafeURL` for a URL that is malformed or that names a network location (a Windows UNC
    share such as ``file://host/share/x.png`` or ``file:////host/share``): opening those from a stranger's
    save would make this computer connect to another (and, on Windows, send the user's credentials).
    """
    text = url.strip()
    if "\0" in text:
        raise UnsafeURL("contains a NUL character")
    if _TWO_SEPARATORS.match(text):
        raise UnsafeURL("is a network path; only local files are read")
    if _DRIVE.match(text):
        return Path(text)  # a plain Windows path, as TTS accepts in its URL fields
    if text.startswith("/"):
        return Path(text)
    try:
        parsed = urlparse(text)
    except ValueError as exc:
        raise UnsafeURL(f"is malformed ({exc})") from None
    if parsed.scheme.lower() != "file":
        return None
    raw = unquote(parsed.path)
    host = parsed.netloc
    if re.fullmatch(r"[A-Za-z]:", host):  # file://C:/x: a drive written where the host goes
        raw, host = f"/{host}{raw}", ""
    if host and host.lower() != "localhost":
        raise UnsafeURL(f'names the network host "{_shown(host)}"; only local files are read')
    if "\0" in raw:
        raise UnsafeURL("contains a NUL character")
    if len(raw) >= 3 and raw[0] == "/" and raw[2] == ":":  # /C:/Users/... (a Windows drive)
        # Imported here: urllib.request brings http.client, email and more (some 20 ms of every build's start-up)
        # for this one rare case.
        from urllib.request import url2pathname

        raw = url2pathname(raw)
    if _TWO_SEPARATORS.match(raw) or _TWO_SEPARATORS.match(raw[1:]):  # file:////host, file:///%5C%5Chost
        raise UnsafeURL("is a network path; only local files are read")
    return Path(raw)


def _file_state(path: Path) -> str | None:
    """None when ``path`` is a readable regular file, else why not (never raises: the path is untrusted)."""
    try:
        if path.is_file():
            return None
        return "does not exist"
    except (OSError, ValueError) as exc:
        reason = (exc.strerror if isinstance(exc, OSError) else None) or exc.__class__.__name__
        return f"cannot be looked up ({reason})"


def _check_image_file(path: Path, place: _Walked | _Place, key: str, add, cache: dict, max_pixels: int,
                      probes: ImageProbes | None = None) -> None:
    if path in cache:
        return
    cache[path] = True
    where = place.where
    shown = _shown(str(path))
    state = _file_state(path)
    if state is not None:
        add(Finding("error", "image-missing", where, f"{key} file {shown} {state}"))
        return
    try:
        mode, (w, h) = (probes.probe(path, max_pixels) if probes is not None
                        else probe_image(path, max_pixels=max_pixels))
    except ImageTooLargeError as exc:
        add(Finding("error", "image-too-large", where, f"{key} file {shown}: {exc.reason}"))
        return
    except ImageError as exc:
        add(Finding("error", "image-unreadable", where, f"{key} file {shown}: {exc.reason}"))
        return
    if mode == "CMYK":
        add(Finding("error", "image-mode", where, f"{key} file {shown} is CMYK; TTS needs RGB"))
    elif mode not in ("RGB", "RGBA"):
        add(Finding("warning", "image-mode", where, f"{key} file {shown} is {mode}, not RGB"))
    if max(w, h) > MAX_SIDE:
        add(Finding("warning", "image-size", where,
                    f"{key} file {shown} is {w} x {h} px; keep each side ≤ {MAX_SIDE} px"))


def _object_urls(obj: dict[str, Any], memo: UrlMemo | None) -> Iterable[tuple[str, str]]:
    if memo is None:
        return _urls(obj.value() if type(obj) is KeptObject else obj)
    found = memo.urls(obj)
    if found is None:
        found = list(_urls(obj.value() if type(obj) is KeptObject else obj))
        memo.remember(obj, found)
    return found


def _check_urls(data: dict[str, Any], walked: list[_Walked], add, max_pixels: int,
                memo: UrlMemo | None = None, probes: ImageProbes | None = None) -> None:
    sources: list[tuple[_Walked | _Place, Iterable[tuple[str, str]]]] = [
        (_GLOBAL, _urls({k: v for k, v in data.items() if k != "ObjectStates"}))]
    sources += [(w, _object_urls(w.obj, memo)) for w in walked]
    cache: dict[Path, bool] = {}
    # A deck's cards repeat their sheet's URLs: a URL is parsed once and a plain file looked up once.
    parsed: dict[str, Path | None | UnsafeURL] = {}
    states: dict[Path, str | None] = {}
    imaged: set[str] = set()   # URLs whose file the image check has seen: checked once, found by their first place
    local_count = 0
    local_places: list[str] = []   # the top-level objects (or Global) holding local URLs, in file order
    top = _GLOBAL.where
    for place, pairs in sources:
        # walked depth first: an object inside a container counts for the top-level object holding it
        if isinstance(place, _Walked) and place.depth == 0:
            top = place.where
        holder = top if isinstance(place, _Walked) else place.where
        for key, url in pairs:
            if url in imaged and key in IMAGE_KEYS:
                local_count += 1   # a local file's URL seen again: counted, and checked already
                if not local_places or local_places[-1] != holder:
                    local_places.append(holder)
                continue
            path = parsed.get(url, parsed)
            if path is parsed:
                try:
                    path = parsed[url] = local_path(url)
                except UnsafeURL as exc:
                    path = parsed[url] = exc
            if isinstance(path, UnsafeURL):
                add(Finding("warning", "url-unsafe", place.where, f"{key} {_shown(url)} {path}; not opened"))
                continue
            if path is None:
                continue
            local_count += 1
            if not local_places or local_places[-1] != holder:
                local_places.append(holder)
            if key in IMAGE_KEYS:
                _check_image_file(path, place, key, add, cache, max_pixels, probes)
                imaged.add(url)
            else:
                if path not in states:
                    states[path] = _file_state(path)
                if states[path] is not None:
                    add(Finding("error", "file-missing", place.where,
                                f"{key} file {_shown(str(path))} {states[path]}"))
    if local_count:
        # One finding for the whole save (not pinned on the first object: the URLs are everywhere), naming where.
        places = list(dict.fromkeys(local_places))
        shown = ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
        add(Finding("info", "local-url", "save",
                    f"{local_count} file:/// URL(s) or local paths in {len(places)} object(s) ({shown}): only this "
                    "computer can load them, other players see nothing; host the files (ttsmod publish) and "
                    "rebuild with --asset-base-url (ttsmod build and ttsmod sheets both take it)"))
