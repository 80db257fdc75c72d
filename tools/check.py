"""``ttsmod check``: lint any Tabletop Simulator save (or Saved Object) for what breaks or surprises in TTS.

Findings have a severity:

- ``error`` — TTS will misbehave: a card whose ``CardID`` names no ``CustomDeck`` of its deck, ``DeckIDs`` out of
  step with ``ContainedObjects``, a sheet grid over 10 × 7, a local image that is missing, unreadable or CMYK,
  a duplicate GUID among top-level objects, ``require(`` in a script that is not a bundle (TTS has no require).
- ``warning`` — suspicious but seen in real saves: duplicate GUIDs inside containers, a GUID that is not six
  lowercase hex digits, a card's own stale ``CustomDeck`` key inside a deck (TTS itself writes those), an image
  over 4096 px, an image neither RGB nor RGBA, an empty Global script, a bundle that cannot be unbundled.
- ``note`` — information that does not change the exit status: ``file:///`` image URLs, which only this
  computer can load (other players see nothing; host the images and rebuild with ``--asset-base-url``).

Exit status of the command: 0 when there is no error or warning (notes allowed), 1 when there is any,
2 when the input is not a readable save (:class:`tools.errors.InputError`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from PIL import Image, UnidentifiedImageError

from tools.bundle import find_requires, is_bundle, LuaSyntaxError, unbundle
from tools.errors import InputError
from tools.save.guids import is_guid

SEVERITIES = ("error", "warning", "note")
MAX_COLUMNS, MAX_ROWS, MAX_SIDE = 10, 7, 4096
URL_KEYS = ("FaceURL", "BackURL", "ImageURL", "ImageSecondaryURL", "MeshURL", "DiffuseURL", "NormalURL",
            "ColliderURL", "AssetbundleURL", "AssetbundleSecondaryURL", "PDFUrl", "URL", "TableURL", "SkyURL",
            "LutURL")
IMAGE_KEYS = {"FaceURL", "BackURL", "ImageURL", "ImageSecondaryURL", "DiffuseURL", "NormalURL", "TableURL",
              "SkyURL", "LutURL"}
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Finding:
    severity: str  # "error" | "warning" | "note"
    code: str  # short stable id, e.g. "card-id", "guid-duplicate"
    where: str  # JSON path plus object description, e.g. 'ObjectStates[3] Deck "Scenes" (a1b2c3)'
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {self.where}: {self.message} [{self.code}]"


@dataclass
class CheckReport:
    source: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        return 1 if any(f.severity in ("error", "warning") for f in self.findings) else 0

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "source": self.source, "exit_status": self.exit_status,
                "counts": {s: self.count(s) for s in SEVERITIES},
                "findings": [asdict(f) for f in self.findings]}


def load_save(path: Path) -> dict[str, Any]:
    """Read a save file as a JSON object with ``ObjectStates``; :class:`InputError` when that fails."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a save file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("ObjectStates"), list):
        raise InputError(f"{path}: not a TTS save (no ObjectStates list)")
    return data


def check_file(path: Path) -> CheckReport:
    """Lint the save at ``path``; local images are looked up relative to the file system as ``file:///``."""
    return check_data(load_save(path), source=str(path))


@dataclass
class _Walked:
    obj: dict[str, Any]
    where: str
    depth: int  # 0 = top level, ≥ 1 = inside a container (ContainedObjects/States/ChildObjects)
    parent: dict[str, Any] | None


def _describe(obj: dict[str, Any], path: str) -> str:
    name = obj.get("Name", "?")
    nick = obj.get("Nickname") or ""
    guid = obj.get("GUID", "no GUID")
    label = f'{name} "{nick}"' if nick else str(name)
    return f"{path} {label} ({guid})"


def _walk(objects: list, prefix: str, depth: int, parent: dict | None) -> Iterator[_Walked]:
    for i, obj in enumerate(objects):
        if not isinstance(obj, dict):
            continue
        path = f"{prefix}[{i}]"
        yield _Walked(obj, _describe(obj, path), depth, parent)
        if isinstance(obj.get("ContainedObjects"), list):
            yield from _walk(obj["ContainedObjects"], f"{path}.ContainedObjects", depth + 1, obj)
        if isinstance(obj.get("ChildObjects"), list):
            yield from _walk(obj["ChildObjects"], f"{path}.ChildObjects", depth + 1, obj)
        if isinstance(obj.get("States"), dict):
            for key, state in sorted(obj["States"].items(), key=lambda kv: str(kv[0])):
                if isinstance(state, dict):
                    yield from _walk([state], f"{path}.States[{key}]", depth + 1, obj)


def check_data(data: dict[str, Any], source: str = "<save>") -> CheckReport:
    """Lint a parsed save (see the module docstring for the findings)."""
    report = CheckReport(source)
    add = report.findings.append
    walked = list(_walk(data.get("ObjectStates", []), "ObjectStates", 0, None))

    _check_guids(walked, add)
    for w in walked:
        _check_cards(w, add)
        _check_scripts(w.obj, w.where, add)
    _check_global_script(data, add)
    _check_urls(data, walked, add)
    return report


def _check_guids(walked: list[_Walked], add) -> None:
    top = Counter(w.obj.get("GUID") for w in walked if w.depth == 0 and "GUID" in w.obj)
    everywhere = Counter(w.obj.get("GUID") for w in walked if "GUID" in w.obj)
    reported: set[str] = set()
    for w in walked:
        guid = w.obj.get("GUID")
        if guid is None:
            add(Finding("warning", "guid-missing", w.where, "object has no GUID"))
            continue
        if not is_guid(guid):
            add(Finding("warning", "guid-shape", w.where,
                        f'GUID "{guid}" is not six lowercase hex digits (TTS tolerates it; scripts may not)'))
        if guid in reported:
            continue
        if top[guid] > 1:
            reported.add(guid)
            add(Finding("error", "guid-duplicate", w.where,
                        f'GUID "{guid}" is used by {top[guid]} top-level objects; TTS re-assigns all but one '
                        "on load, breaking scripts that look it up"))
        elif everywhere[guid] > 1:
            reported.add(guid)
            add(Finding("warning", "guid-duplicate-contained", w.where,
                        f'GUID "{guid}" appears {everywhere[guid]} times counting objects inside containers; '
                        "TTS gives a new GUID when one is taken out"))


def _grid_ok(key: str, entry: Any, where: str, add) -> bool:
    if not isinstance(entry, dict):
        add(Finding("error", "custom-deck", where, f"CustomDeck[{key}] is not an object"))
        return False
    w, h = entry.get("NumWidth"), entry.get("NumHeight")
    if not isinstance(w, int) or not isinstance(h, int) or not (1 <= w <= MAX_COLUMNS and 1 <= h <= MAX_ROWS):
        add(Finding("error", "sheet-grid", where,
                    f"CustomDeck[{key}] grid {w} x {h} is outside 1..{MAX_COLUMNS} x 1..{MAX_ROWS}"))
        return False
    if not entry.get("FaceURL"):
        add(Finding("error", "custom-deck", where, f"CustomDeck[{key}] has no FaceURL"))
    return True


def _check_cards(w: _Walked, add) -> None:
    obj, where = w.obj, w.where
    name = obj.get("Name")
    custom = obj.get("CustomDeck")
    if isinstance(custom, dict):
        for key, entry in custom.items():
            _grid_ok(key, entry, where, add)
    if name in ("Card", "CardCustom") and "CardID" in obj:
        cid = obj["CardID"]
        if not isinstance(cid, int) or cid < 0:
            add(Finding("error", "card-id", where, f"CardID {cid!r} is not a non-negative integer"))
            return
        key, index = str(cid // 100), cid % 100
        if custom is None:
            return  # a built-in playing card
        in_deck = w.parent is not None and w.parent.get("Name") in ("Deck", "DeckCustom")
        if key not in custom:
            deck_custom = w.parent.get("CustomDeck") if in_deck else None
            if in_deck and isinstance(deck_custom, dict) and key in deck_custom:
                add(Finding("warning", "card-stale-custom-deck", where,
                            f"CardID {cid} names CustomDeck {key} but the card's own CustomDeck holds "
                            f"{', '.join(sorted(custom)) or 'nothing'} (TTS itself writes this; the deck's entry "
                            "is used)"))
                entry = deck_custom[key]
            else:
                add(Finding("error", "card-id", where,
                            f"CardID {cid} names CustomDeck {key}, which neither the card nor its deck defines"))
                return
        else:
            entry = custom[key]
        if isinstance(entry, dict) and isinstance(entry.get("NumWidth"), int) \
                and isinstance(entry.get("NumHeight"), int):
            cells = entry["NumWidth"] * entry["NumHeight"]
            if index >= cells:
                add(Finding("error", "card-index", where,
                            f"CardID {cid}: index {index} is outside the {entry['NumWidth']} x "
                            f"{entry['NumHeight']} sheet"))
    if name in ("Deck", "DeckCustom"):
        ids = obj.get("DeckIDs")
        contained = obj.get("ContainedObjects")
        if not isinstance(ids, list) or not isinstance(contained, list):
            add(Finding("error", "deck-ids", where, "deck without DeckIDs or ContainedObjects lists"))
            return
        card_ids = [c.get("CardID") for c in contained if isinstance(c, dict)]
        if ids != card_ids:
            add(Finding("error", "deck-ids", where,
                        f"DeckIDs do not match the contained cards' CardIDs in order ({len(ids)} ids, "
                        f"{len(card_ids)} cards)"))
        if isinstance(custom, dict):
            missing = sorted({str(i // 100) for i in ids if isinstance(i, int)} - set(custom))
            if missing:
                add(Finding("error", "deck-custom-deck", where,
                            f"DeckIDs use CustomDeck key(s) {', '.join(missing)} the deck does not define"))
        if len(contained) < 2:
            add(Finding("warning", "deck-size", where, f"a deck of {len(contained)} card(s); TTS expects ≥ 2"))


def _script_findings(script: str, where: str, what: str, add) -> None:
    if not script.strip():
        return
    if is_bundle(script):
        try:
            unbundle(script)
        except ValueError as exc:
            add(Finding("warning", "bundle-unreadable", where, f"{what} looks bundled but cannot be unbundled: {exc}"))
        return
    try:
        requires = find_requires(script)
        lines = [r.line for r in requires]
    except LuaSyntaxError:
        lines = [n for n, text in enumerate(script.split("\n"), 1) if "require(" in text]
    if lines:
        add(Finding("error", "require-unbundled", where,
                    f"{what} calls require (line {lines[0]}) but is not a bundle; TTS has no require"))


def _check_scripts(obj: dict[str, Any], where: str, add) -> None:
    script = obj.get("LuaScript")
    if isinstance(script, str):
        _script_findings(script, where, "LuaScript", add)


def _check_global_script(data: dict[str, Any], add) -> None:
    script = data.get("LuaScript", "")
    if not isinstance(script, str) or not script.strip():
        add(Finding("warning", "global-script-empty", "Global", "the Global LuaScript is empty"))
        return
    _script_findings(script, "Global", "the Global LuaScript", add)


def _urls(value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    """``(json path, key, url)`` of every URL-valued key below ``value`` (objects excluded: walked apart)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("ContainedObjects", "ChildObjects", "States", "ObjectStates"):
                continue
            if k in URL_KEYS and isinstance(v, str) and v:
                yield path, k, v
            elif isinstance(v, (dict, list)):
                yield from _urls(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _urls(v, f"{path}[{i}]")


def local_path(url: str) -> Path | None:
    """The file a ``file:`` URL points to, or None for another scheme."""
    parsed = urlparse(url.strip())
    if parsed.scheme.lower() != "file":
        return None
    raw = unquote(parsed.path)
    if parsed.netloc and parsed.netloc.lower() != "localhost":
        raw = f"//{parsed.netloc}{raw}"
    if len(raw) >= 3 and raw[0] == "/" and raw[2] == ":":  # /C:/Users/... (a Windows drive)
        return Path(url2pathname(raw))
    return Path(raw)


def _check_image_file(path: Path, where: str, key: str, add, cache: dict) -> None:
    if path in cache:
        return
    cache[path] = True
    if not path.is_file():
        add(Finding("error", "image-missing", where, f"{key} file {path} does not exist"))
        return
    try:
        with Image.open(path) as image:
            mode, (w, h) = image.mode, image.size
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        add(Finding("error", "image-unreadable", where, f"{key} file {path} is not a readable image ({exc})"))
        return
    if mode == "CMYK":
        add(Finding("error", "image-mode", where, f"{key} file {path} is CMYK; TTS needs RGB"))
    elif mode not in ("RGB", "RGBA"):
        add(Finding("warning", "image-mode", where, f"{key} file {path} is {mode}, not RGB"))
    if max(w, h) > MAX_SIDE:
        add(Finding("warning", "image-size", where,
                    f"{key} file {path} is {w} x {h} px; keep each side ≤ {MAX_SIDE} px"))


def _check_urls(data: dict[str, Any], walked: list[_Walked], add) -> None:
    sources: list[tuple[str, dict]] = [("Global", {k: v for k, v in data.items() if k != "ObjectStates"})]
    sources += [(w.where, w.obj) for w in walked]
    cache: dict[Path, bool] = {}
    local_count = 0
    first_local: str | None = None
    for where, value in sources:
        for _path, key, url in _urls(value, ""):
            path = local_path(url)
            if path is None:
                continue
            local_count += 1
            first_local = first_local or where
            if key in IMAGE_KEYS:
                _check_image_file(path, where, key, add, cache)
            elif not path.is_file():
                add(Finding("error", "file-missing", where, f"{key} file {path} does not exist"))
    if local_count:
        add(Finding("note", "local-url", first_local or "Global",
                    f"{local_count} file:/// URL(s): only this computer can load them, other players see "
                    "nothing; host the files (ttsmod publish) and rebuild with --asset-base-url"))
