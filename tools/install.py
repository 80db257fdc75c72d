"""``ttsmod install``: copy a built save and its thumbnail into Tabletop Simulator's ``Saves`` folder.

TTS lists only numbered saves, ``Saves/TS_Save_<N>.json`` with a ``TS_Save_<N>.png`` thumbnail beside it
(tts-facts §2.1).  Installing

- writes over the save ttsmod installed before under the same ``SaveName`` — provided that file still holds a
  save of that name (a record ``ttsmod-installs.json`` in the TTS data folder remembers which file it wrote);
- otherwise takes the next free number (one above the highest ``TS_Save_<N>.json`` present);
- never writes over any other save: a file whose ``SaveName`` differs, or one ttsmod did not install, is left alone.

Data folder per OS (``--tts-dir`` overrides): Windows ``%USERPROFILE%\\Documents\\My Games\\Tabletop Simulator``
(or its OneDrive twin when only that exists), macOS ``~/Library/Tabletop Simulator``, Linux
``~/.local/share/Tabletop Simulator``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.errors import InputError
from tools.fsio import atomic_write_bytes, atomic_write_text

RECORD_NAME = "ttsmod-installs.json"
SAVE_RE = re.compile(r"^TS_Save_(\d+)\.json$")


@dataclass(frozen=True)
class InstallResult:
    save_path: Path
    thumbnail_path: Path | None
    save_name: str
    replaced: bool  # True when an earlier install of the same SaveName was overwritten


def default_tts_dir(platform: str | None = None, home: Path | None = None,
                    environ: dict[str, str] | None = None) -> Path:
    """TTS's data folder on this OS (``platform``/``home``/``environ`` only for tests)."""
    platform = platform or sys.platform
    env = os.environ if environ is None else environ
    home = home or Path.home()
    if platform.startswith("win"):
        profile = Path(env.get("USERPROFILE") or home)
        plain = profile / "Documents" / "My Games" / "Tabletop Simulator"
        onedrive = profile / "OneDrive" / "Documents" / "My Games" / "Tabletop Simulator"
        return onedrive if onedrive.is_dir() and not plain.is_dir() else plain
    if platform == "darwin":
        return home / "Library" / "Tabletop Simulator"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "Tabletop Simulator"


def find_save(source: Path) -> Path:
    """The save file to install: ``source`` itself, or the one ``*.json`` save in the build folder ``source``."""
    source = Path(source)
    if source.is_file():
        return source
    if source.is_dir():
        saves = sorted(p for p in source.glob("*.json") if p.is_file())
        if len(saves) == 1:
            return saves[0]
        if not saves:
            raise InputError(f"{source}: no save (*.json) in this folder; run ttsmod build first")
        names = ", ".join(p.name for p in saves)
        raise InputError(f"{source}: more than one save here ({names}); name the file")
    raise InputError(f"{source}: no such file or folder")


def _save_name(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    return data.get("SaveName") if isinstance(data, dict) else None


def _read_record(tts_dir: Path) -> dict[str, str]:
    try:
        data = json.loads((tts_dir / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(data, dict) else {}


def install(source: Path, tts_dir: Path | None = None) -> InstallResult:
    """Install the save at ``source`` (a save file or a build folder) into ``<tts_dir>/Saves``."""
    save_file = find_save(source)
    raw = save_file.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InputError(f"{save_file}: not a JSON save file") from None
    if not isinstance(data, dict) or not isinstance(data.get("ObjectStates"), list):
        raise InputError(f"{save_file}: not a TTS save (no ObjectStates list)")
    save_name = data.get("SaveName")
    if not isinstance(save_name, str) or not save_name:
        raise InputError(f"{save_file}: the save has no SaveName")
    thumbnail = save_file.with_suffix(".png")

    tts_dir = Path(tts_dir) if tts_dir is not None else default_tts_dir()
    saves = tts_dir / "Saves"
    saves.mkdir(parents=True, exist_ok=True)
    record = _read_record(tts_dir)

    target: Path | None = None
    previous = record.get(save_name)
    if previous and SAVE_RE.match(previous):
        candidate = saves / previous
        if candidate.is_file() and _save_name(candidate) == save_name:
            target = candidate
    replaced = target is not None
    if target is None:
        numbers = [int(m.group(1)) for p in saves.iterdir() if (m := SAVE_RE.match(p.name))]
        target = saves / f"TS_Save_{max(numbers, default=0) + 1}.json"

    thumb_target = target.with_suffix(".png")
    if thumbnail.is_file():
        atomic_write_bytes(thumb_target, thumbnail.read_bytes())
    atomic_write_bytes(target, raw)
    record[save_name] = target.name
    atomic_write_text(tts_dir / RECORD_NAME, json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
    return InstallResult(target, thumb_target if thumbnail.is_file() else None, save_name, replaced)
