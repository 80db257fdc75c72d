"""``ttsmod install``: copy a built save (or a Saved Object) and its thumbnail into Tabletop Simulator's folders.

TTS lists only numbered saves, ``Saves/TS_Save_<N>.json`` with a ``TS_Save_<N>.png`` thumbnail beside it
(tts-facts §2.1).  Installing a save

- writes over the save ttsmod installed before under the same ``SaveName`` — provided that file still holds a
  save of that name (a record ``ttsmod-installs.json`` in the TTS data folder remembers which file it wrote);
- otherwise takes the next free number (one above the highest ``TS_Save_<N>.json`` present);
- never writes over any other save: a file whose ``SaveName`` differs, or one ttsmod did not install, is left alone.

A Saved Object (a save whose ``Date`` and ``VersionNumber`` are empty, as TTS and ``ttsmod sheets`` write them)
goes to ``Saves/Saved Objects/<file name>``, where TTS's Objects menu lists it; a file of that name ttsmod did
not install is left alone and ``<name> (2).json`` is used.

Data folder per OS (``tts_dir`` overrides): Windows ``<Documents>\\My Games\\Tabletop Simulator``, with the
Documents folder asked of the shell (``SHGetKnownFolderPath``), which follows OneDrive redirection and localised
names; macOS ``~/Library/Tabletop Simulator``; Linux ``$XDG_DATA_HOME`` or ``~/.local/share``, then
``Tabletop Simulator``.  A data folder that does not exist is not created unless asked (``create=True``): a
wrong guess must not scatter saves where TTS never looks.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bridge.errors import InputError, TtsmodError
from bridge.fsio import atomic_write_bytes, atomic_write_text

RECORD_NAME = "ttsmod-installs.json"
SAVE_RE = re.compile(r"^TS_Save_(\d+)\.json$")
SAVED_OBJECTS = "Saved Objects"
FOLDERID_DOCUMENTS = uuid.UUID("FDD39AD0-238F-46AF-ADB4-6C85480369C7")  # KnownFolders.h


@dataclass(frozen=True)
class InstallResult:
    save_path: Path
    thumbnail_path: Path | None
    save_name: str  # the save's SaveName; for a Saved Object, its file name without .json
    replaced: bool  # True when an earlier install of the same save (or object) was overwritten
    kind: str = "save"  # "save" (Saves/TS_Save_<N>.json) or "object" (Saves/Saved Objects/<name>.json)
    tts_dir: Path | None = None

    def as_json(self) -> dict:
        """What ``ttsmod install --json`` prints (docs/building.md), with absolute paths."""
        return {
            "kind": self.kind,
            "name": self.save_name,
            "save": str(self.save_path.absolute()),
            "thumbnail": str(self.thumbnail_path.absolute()) if self.thumbnail_path else None,
            "replaced": self.replaced,
            "tts_dir": str(self.tts_dir.absolute()) if self.tts_dir else None,
        }


class _GUID(ctypes.Structure):
    _fields_ = [("Data1", ctypes.c_uint32), ("Data2", ctypes.c_uint16), ("Data3", ctypes.c_uint16),
                ("Data4", ctypes.c_ubyte * 8)]


def known_documents_folder(shell32=None, ole32=None) -> Path | None:
    """The user's Documents folder as Windows reports it, or None (not Windows, or the shell call failed).

    ``SHGetKnownFolderPath(FOLDERID_Documents)`` follows what the user (or OneDrive) did to the folder: moved to
    another drive, redirected into ``OneDrive\\Документы``, localised.  ``shell32``/``ole32`` are for tests.
    """
    try:
        shell32 = shell32 if shell32 is not None else ctypes.WinDLL("shell32")  # type: ignore[attr-defined]
        ole32 = ole32 if ole32 is not None else ctypes.WinDLL("ole32")  # type: ignore[attr-defined]
    except (AttributeError, OSError):  # no WinDLL off Windows
        return None
    folder_id = _GUID.from_buffer_copy(FOLDERID_DOCUMENTS.bytes_le)
    path = ctypes.c_wchar_p()
    try:
        status = shell32.SHGetKnownFolderPath(ctypes.byref(folder_id), 0, None, ctypes.byref(path))
        return Path(path.value) if status == 0 and path.value else None
    finally:
        if path:  # the shell allocates the string even when it fails; the caller frees it
            ole32.CoTaskMemFree(path)


def default_tts_dir(platform: str | None = None, home: Path | None = None,
                    environ: Mapping[str, str] | None = None,
                    documents: Callable[[], Path | None] = known_documents_folder) -> Path:
    """TTS's data folder on this OS (``platform``/``home``/``environ``/``documents`` only for tests)."""
    platform = platform or sys.platform
    env = os.environ if environ is None else environ
    home = home or Path.home()
    if platform.startswith("win"):
        # Only when the shell cannot answer: the folder's usual place, never a guess among OneDrive names.
        docs = documents() or Path(env.get("USERPROFILE") or home) / "Documents"
        return docs / "My Games" / "Tabletop Simulator"
    if platform == "darwin":
        return home / "Library" / "Tabletop Simulator"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "Tabletop Simulator"


def find_save(source: Path) -> Path:
    """The save file to install: ``source`` itself, or the one ``*.json`` save in the build folder ``source``.

    Hidden files (a leading dot) are never saves: the folder ``ttsmod sheets`` writes holds its own record of
    what it wrote, ``.ttsmod-sheets.json``, beside the deck's Saved Object, and TTS writes no hidden files."""
    source = Path(source)
    if source.is_file():
        return source
    if source.is_dir():
        saves = sorted(p for p in source.glob("*.json") if p.is_file() and not p.name.startswith("."))
        if len(saves) == 1:
            return saves[0]
        if not saves:
            raise InputError(f"{source}: no save (*.json) in this folder; run ttsmod build first")
        names = ", ".join(p.name for p in saves)
        raise InputError(f"{source}: more than one save here ({names}); name the file")
    raise InputError(f"{source}: no such file or folder")


def is_saved_object(data: dict) -> bool:
    """A Saved Object: TTS (and ``ttsmod sheets``) write one with empty ``Date`` and ``VersionNumber``."""
    return data.get("Date", None) == "" and data.get("VersionNumber", None) == ""


def _save_name(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    return data.get("SaveName") if isinstance(data, dict) else None


def _read_record(tts_dir: Path) -> tuple[dict[str, str], list[str]]:
    """(SaveName → save file name, Saved Object file names) that ttsmod installed; older records held saves only."""
    try:
        data = json.loads((tts_dir / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, []
    if not isinstance(data, dict):
        return {}, []
    saves = data.get("saves") if isinstance(data.get("saves"), dict) else data
    objects = data.get("objects") if isinstance(data.get("objects"), list) else []
    return ({k: v for k, v in saves.items() if isinstance(k, str) and isinstance(v, str)},
            [name for name in objects if isinstance(name, str)])


def _folder(path: Path, what: str, *, create: bool) -> Path:
    """``path`` as an existing folder (made when ``create``); a clear error when it is a file or cannot be made."""
    if path.exists() and not path.is_dir():
        raise TtsmodError(f"{path}: {what} is a file, not a folder; move the file away and install again")
    if not path.is_dir():
        if not create:
            raise TtsmodError(f"{path}: no such folder")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TtsmodError(f"cannot create {path}: {exc.strerror or exc}") from None
    return path


def _write(path: Path, data: bytes) -> None:
    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        raise TtsmodError(f"cannot write {path}: {exc.strerror or exc} (is {path.parent} read-only?)") from None


def tts_data_folder(tts_dir: Path | None, *, create: bool = False) -> Path:
    """The TTS data folder to install into: ``tts_dir`` or this OS's default, which must exist unless ``create``."""
    folder = Path(tts_dir) if tts_dir is not None else default_tts_dir()
    if folder.exists() and not folder.is_dir():
        raise TtsmodError(f"{folder}: the Tabletop Simulator data folder is a file, not a folder")
    if not folder.is_dir() and not create:
        origin = "the folder given" if tts_dir is not None else "this system's default"
        raise TtsmodError(f"Tabletop Simulator's data folder not found: looked for {folder} ({origin}); "
                          "start TTS once to create it, point --tts-dir at the right folder, or pass --create")
    return _folder(folder, "the Tabletop Simulator data folder", create=True)


def install(source: Path, tts_dir: Path | None = None, *, create: bool = False) -> InstallResult:
    """Install the save or Saved Object at ``source`` (a file or a build folder) into ``<tts_dir>/Saves``.

    Errors: :class:`InputError` (exit 2) for a source that is not a save; :class:`TtsmodError` (exit 1) when the
    data folder is missing (and not ``create``), ``Saves`` is a file, or a write fails (a read-only folder).
    """
    save_file = find_save(source)
    raw = save_file.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InputError(f"{save_file}: not a JSON save file") from None
    if not isinstance(data, dict) or not isinstance(data.get("ObjectStates"), list):
        raise InputError(f"{save_file}: not a TTS save (no ObjectStates list)")
    as_object = is_saved_object(data)
    save_name = data.get("SaveName")
    if not as_object and (not isinstance(save_name, str) or not save_name):
        raise InputError(f"{save_file}: the save has no SaveName")
    thumbnail = save_file.with_suffix(".png")

    folder = tts_data_folder(tts_dir, create=create)
    saves = _folder(folder / "Saves", "Saves", create=True)  # TTS makes it on first run; we may too
    record, objects = _read_record(folder)
    if as_object:
        target_dir = _folder(saves / SAVED_OBJECTS, SAVED_OBJECTS, create=True)
        target, replaced = _object_target(target_dir, save_file.stem, objects)
        objects = sorted(set(objects) | {target.name})
        save_name = target.stem
    else:
        target, replaced = _save_target(saves, save_name, record)
        record[save_name] = target.name

    thumb_target = target.with_suffix(".png")
    if thumbnail.is_file():
        _write(thumb_target, thumbnail.read_bytes())
    _write(target, raw)
    text = json.dumps({"saves": record, "objects": objects}, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    _write(folder / RECORD_NAME, text.encode("utf-8"))
    return InstallResult(target, thumb_target if thumbnail.is_file() else None, save_name, replaced,
                         "object" if as_object else "save", folder)


def _save_target(saves: Path, save_name: str, record: dict[str, str]) -> tuple[Path, bool]:
    previous = record.get(save_name)
    if previous and SAVE_RE.match(previous):
        candidate = saves / previous
        if candidate.is_file() and _save_name(candidate) == save_name:
            return candidate, True
    try:
        numbers = [int(m.group(1)) for p in saves.iterdir() if (m := SAVE_RE.match(p.name))]
    except OSError as exc:
        raise TtsmodError(f"cannot read {saves}: {exc.strerror or exc}") from None
    return saves / f"TS_Save_{max(numbers, default=0) + 1}.json", False


def _object_target(folder: Path, stem: str, ours: list[str]) -> tuple[Path, bool]:
    """``<stem>.json``, replaced only if ttsmod installed it; else the first free ``<stem> (<n>).json``."""
    number = 1
    while True:
        name = f"{stem}.json" if number == 1 else f"{stem} ({number}).json"
        candidate = folder / name
        if not candidate.exists():
            return candidate, False
        if name in ours and candidate.is_file():
            return candidate, True
        number += 1
