"""Editor features on top of the session: scripts ⇄ files, scripts from a built game, in-place object updates.

* :func:`write_script_files` / :func:`read_script_files` — the ``<Name>.<guid>.lua|.xml`` layout of the VS
  Code and Atom plugins (Global is ``Global.-1.lua``).
* :func:`states_from_bundle_scripts` — the script states of a game as ``tools.build.bundle_scripts`` returns
  them, ready for Save & Play.
* :func:`object_update_lua` — Lua that sets one object's script (and reloads that object alone) or UI in the
  running game, without Save & Play (``ttsmod push --object``, ``ttsmod watch`` of a tree).
* :func:`live_update_lua` — Lua that replaces, without reloading the game, the objects whose images changed:
  ``setCustomObject`` + ``reload`` for single-image objects, ``destruct`` + ``spawnObjectJSON`` otherwise.

No sockets here; the session sends what these functions produce.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from bridge.protocol import GLOBAL_GUID, ScriptState
from bridge.errors import InputError, TtsmodError
from bridge.safenames import contained_path, is_inside_tree, is_safe_token, safe_component

SCRIPT_SUFFIXES = (".lua", ".ttslua")
UI_SUFFIX = ".xml"


def safe_name(name: str) -> str:
    """An object name usable as the name part of a file name on every OS (see
    :func:`bridge.safenames.safe_component`: no separators, no ``..``, no device names, length-capped)."""
    return safe_component(name)


def script_file_stem(state: ScriptState) -> str:
    """``<Name>.<guid>``; Global is always ``Global.-1``. The guid is used as it is (TTS knows the object by
    it): check it with :func:`bridge.safenames.is_safe_token` first."""
    if state.guid == GLOBAL_GUID:
        return "Global.-1"
    return f"{safe_name(state.name)}.{state.guid}"


def write_script_files(
    folder: str | os.PathLike, states: Iterable[ScriptState], *, warn: Callable[[str], None] | None = None
) -> list[Path]:
    """Write each object's script to ``<Name>.<guid>.lua`` and its UI to ``<Name>.<guid>.xml`` in ``folder``.

    A script file is written for every object that has a script (and always for Global); a UI file only when
    the UI is not empty. Names and GUIDs come from the game, so nothing in them can place a file anywhere but
    directly in ``folder``: names are made safe (:func:`safe_name`); an object whose GUID cannot be a file name
    (a separator, a dot, a control character, over 64 bytes), or whose GUID was already written, is skipped and
    reported through ``warn``. Every file name is checked before the first write, so a refusal writes
    nothing. Writes are atomic; existing files for other objects are left alone. Returns the paths written, in
    the order of ``states``.

    Raises :class:`bridge.errors.InputError` if a name would leave ``folder`` and :class:`bridge.errors.TtsmodError`
    when a file cannot be written (one sentence, naming the file).
    """
    from bridge.fsio import atomic_write_text

    planned: list[tuple[Path, str]] = []
    seen: set[str] = set()
    for state in states:
        if state.guid != GLOBAL_GUID and not is_safe_token(state.guid):
            if warn is not None:
                warn(f"skipped the object {state.guid!r} ({state.name[:60]!r}): its GUID cannot be part of a file name")
            continue
        if state.guid in seen:
            if warn is not None:
                warn(f"skipped a second object with the GUID {state.guid!r} ({state.name[:60]!r})")
            continue
        seen.add(state.guid)
        stem = script_file_stem(state)
        if state.script or state.guid == GLOBAL_GUID:
            planned.append((contained_path(folder, f"{stem}.lua"), state.script or ""))
        if state.ui:
            planned.append((contained_path(folder, f"{stem}{UI_SUFFIX}"), state.ui))
    written: list[Path] = []
    for path, text in planned:
        try:
            atomic_write_text(path, text)
        except (OSError, UnicodeEncodeError) as exc:
            reason = (exc.strerror if isinstance(exc, OSError) else None) or exc
            raise TtsmodError(f"cannot write {path.name} in {Path(folder).name}: {reason} "
                              f"({len(written)} of {len(planned)} file(s) written)") from None
        written.append(path)
    return written


def _split_stem(stem: str) -> tuple[str, str] | None:
    if "." not in stem:
        return None
    name, guid = stem.rsplit(".", 1)
    if not guid or not name:
        return None
    return name, guid


def read_script_files(folder: str | os.PathLike) -> list[ScriptState]:
    """The script states described by the ``<Name>.<guid>.lua|.ttslua|.xml`` files of ``folder``.

    An object with only a script file gets ``ui=None`` and one with only a UI file ``script=None``: the push
    completes them from what TTS has, so an object's UI is never dropped for lack of a file. Raises
    :class:`bridge.errors.InputError` when the folder is missing, holds no such files, or names an object twice.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        suffix = path.suffix.lower()
        if suffix not in SCRIPT_SUFFIXES and suffix != UI_SUFFIX:
            continue
        split = _split_stem(path.stem)
        if split is None:
            continue
        if not is_inside_tree(folder, path):
            raise InputError(f"{path}: a symbolic link that leads outside {folder}; refusing to read it")
        name, guid = split
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path.name}: cannot read it as UTF-8 text: {exc}") from None
        entry = found.setdefault(guid, {"name": name, "script": None, "ui": None})
        key = "ui" if suffix == UI_SUFFIX else "script"
        if entry[key] is not None:
            raise InputError(f"{path.name}: a second {key} file for the object {guid}")
        entry[key] = text
    if not found:
        raise InputError(f"{folder.name}: no <Name>.<guid>.lua or .xml files (pull them with: ttsmod pull {folder.name})")
    states = [ScriptState(name=e["name"], guid=guid, script=e["script"], ui=e["ui"]) for guid, e in found.items()]
    states.sort(key=lambda s: (s.guid != GLOBAL_GUID, s.name, s.guid))
    return states


def states_from_bundle_scripts(scripts: Mapping[str, Any]) -> list[ScriptState]:
    """Script states from ``tools.build.bundle_scripts(game)``: a mapping of object (guid, or ``"Global"``)
    to a mapping with ``LuaScript`` and ``XmlUI`` (or ``script``/``ui``), optionally ``name``/``Nickname``.

    Every state carries both a script and a UI (empty string when the object has none), as Save & Play needs.
    """
    states: list[ScriptState] = []
    for key, value in scripts.items():
        if isinstance(value, ScriptState):
            states.append(value)
            continue
        if not isinstance(value, Mapping):
            raise InputError(f"bundle_scripts gave {type(value).__name__} for {key!r}, not a mapping")
        guid = str(value.get("guid") or value.get("GUID") or key)
        if guid.lower() == "global":
            guid = GLOBAL_GUID
        name = value.get("name") or value.get("Nickname") or value.get("Name") or ("Global" if guid == GLOBAL_GUID else key)
        script = value.get("LuaScript", value.get("script", "")) or ""
        ui = value.get("XmlUI", value.get("ui", "")) or ""
        states.append(ScriptState(name=str(name), guid=guid, script=script, ui=ui))
    states.sort(key=lambda s: (s.guid != GLOBAL_GUID, s.guid))
    return states


# --------------------------------------------------------------------------------------------------------
# In-place updates of objects whose sheets changed

SINGLE_IMAGE_NAMES = ("Custom_Tile", "Custom_Token", "Custom_Board", "Figurine_Custom")


def _urls(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        if "://" in value or value.startswith("file:"):
            yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key in ("LuaScript", "XmlUI", "LuaScriptState"):
                continue
            yield from _urls(item)
    elif isinstance(value, list):
        for item in value:
            yield from _urls(item)


def _sheet_keys(changed: Iterable[str | os.PathLike[str]]) -> set[str]:
    """Strings that identify changed sheets in URLs: the paths or URLs given, and their file names."""
    keys = {str(item) for item in changed}
    names = {Path(k.split("?")[0]).name for k in keys if k}
    return {k for k in keys | names if k}


def _url_matches(url: str, keys: set[str]) -> bool:
    bare = url.split("?")[0]
    return url in keys or bare in keys or Path(bare.replace("\\", "/")).name in keys


def affected_objects(save: Mapping[str, Any], changed_sheets: Iterable[str | os.PathLike[str]]) -> list[Mapping[str, Any]]:
    """The top-level objects of ``save`` that show (themselves or in their contents) a changed sheet, given as
    paths (a build's ``changed_sheets``), URLs or file names."""
    keys = _sheet_keys(changed_sheets)
    if not keys:
        return []
    return [obj for obj in save.get("ObjectStates", []) if any(_url_matches(u, keys) for u in _urls(obj))]


def _long_string(text: str) -> str:
    """``text`` as a Lua long string whose brackets cannot occur in it."""
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    eq = "=" * level
    return f"[{eq}[\n{text}]{eq}]"


def _lua_string(text: str) -> str:
    """A Lua double-quoted string literal for ``text`` (ASCII escapes only)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= code < 127:
            out.append(ch)
        else:
            out.extend(f"\\{b:03d}" for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def live_update_lua(objects: Iterable[Mapping[str, Any]]) -> str | None:
    """Lua (a function body for :meth:`bridge.session.Session.execute`) that refreshes ``objects`` in the
    running game and returns ``{updated = {guids}, missing = {guids}}``; ``None`` when there is nothing to do.

    A single-image object (tile, token, board, custom figurine, with no contents) gets its new images through
    ``setCustomObject`` + ``reload``; any other object (a deck, a card, a container) is destroyed and spawned
    again from its new save JSON at its current position and rotation.
    """
    blocks: list[str] = []
    for obj in objects:
        guid = str(obj.get("GUID", ""))
        if not guid:
            continue
        image = obj.get("CustomImage") if isinstance(obj.get("CustomImage"), Mapping) else None
        if obj.get("Name") in SINGLE_IMAGE_NAMES and image and not obj.get("ContainedObjects"):
            params = [f"p.image = {_lua_string(str(image.get('ImageURL', '')))}"]
            if image.get("ImageSecondaryURL"):
                params.append(f"p.image_secondary = {_lua_string(str(image['ImageSecondaryURL']))}")
            body = "local p = o.getCustomObject() or {}\n    " + "\n    ".join(params) + "\n    o.setCustomObject(p)\n    o.reload()"
        else:
            data = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
            body = (
                "local pos, rot = o.getPosition(), o.getRotation()\n    o.destruct()\n    "
                f"spawnObjectJSON({{json = {_long_string(data)}, position = pos, rotation = rot}})"
            )
        blocks.append(
            f"do\n  local o = getObjectFromGUID({_lua_string(guid)})\n  if o == nil then\n"
            f"    table.insert(missing, {_lua_string(guid)})\n  else\n    {body}\n"
            f"    table.insert(updated, {_lua_string(guid)})\n  end\nend"
        )
    if not blocks:
        return None
    return "local updated, missing = {}, {}\n" + "\n".join(blocks) + "\nreturn {updated = updated, missing = missing}"


# --------------------------------------------------------------------------------------------------------
# In-place updates of one object's script or UI (no Save & Play)


def lua_text(text: str) -> str:
    """``text`` as a Lua string literal that gives it back exactly: a long string whose brackets occur nowhere
    in it (nor where its end meets the closing bracket), or, for a text with a carriage return (which Lua reads
    as a newline inside a long string), a quoted string with decimal escapes. Never the text spliced raw."""
    if "\r" in text:
        from bridge.luaproject.bundle import lua_string

        return lua_string(text)
    level = 0
    while f"]{'=' * level}]" in text + "]" or f"]{'=' * level}" == text[-level - 1:]:
        level += 1
    eq = "=" * level
    # The newline after the opening bracket is skipped by Lua, so a text that starts with one keeps it.
    return f"[{eq}[\n{text}]{eq}]"


@dataclass(frozen=True)
class ObjectUpdate:
    """What to change on one object of the running game: ``script`` (None: leave it) is set with
    ``setLuaScript`` and the object reloaded (only that object); ``ui`` (None: leave it) is set with
    ``UI.setXml``. Global (GUID ``-1``) can have its UI set; its script cannot change without reloading the game."""

    guid: str
    name: str = ""
    script: str | None = None
    ui: str | None = None


def object_update_lua(updates: Iterable[ObjectUpdate]) -> str | None:
    """Lua (a function body for :meth:`bridge.session.Session.execute`) that applies ``updates`` in the running
    game without reloading it and returns ``{updated = {guids}, missing = {guids}}``; None when there is nothing
    to change. Every script, UI and GUID goes in as a string literal (:func:`lua_text`); an update of Global's
    script is a :class:`bridge.errors.InputError` (TTS runs a new Global script only after a reload)."""
    blocks: list[str] = []
    for update in updates:
        if update.script is None and update.ui is None:
            continue
        guid = _lua_string(update.guid)
        if update.guid == GLOBAL_GUID:
            if update.script is not None:
                raise InputError("Global's script cannot change without reloading the game; push it without "
                                 "--object (Save & Play)")
            blocks.append(f"do\n  UI.setXml({lua_text(update.ui or '')})\n  table.insert(updated, {guid})\nend")
            continue
        steps: list[str] = []
        if update.script is not None:
            steps.append(f"o.setLuaScript({lua_text(update.script)})")
        if update.ui is not None:
            steps.append(f"o.UI.setXml({lua_text(update.ui)})")
        if update.script is not None:
            steps.append("o.reload()")   # runs the new script: the object alone respawns, the table stays
        body = "\n    ".join(steps)
        blocks.append(f"do\n  local o = getObjectFromGUID({guid})\n  if o == nil then\n"
                      f"    table.insert(missing, {guid})\n  else\n    {body}\n"
                      f"    table.insert(updated, {guid})\n  end\nend")
    if not blocks:
        return None
    return "local updated, missing = {}, {}\n" + "\n".join(blocks) + "\nreturn {updated = updated, missing = missing}"


def object_updates(states: Iterable[ScriptState], current: Mapping[str, ScriptState]) -> list[ObjectUpdate]:
    """What changes each of ``states`` (what the files hold) asks for, against ``current`` (what TTS has, by
    GUID; an object TTS did not list has no script and no UI): only a script or UI that differs is set."""
    updates: list[ObjectUpdate] = []
    for state in states:
        now = current.get(state.guid)
        now_script, now_ui = (now.script or "", now.ui or "") if now is not None else ("", "")
        script = state.script if state.script is not None and state.script != now_script else None
        ui = state.ui if state.ui is not None and state.ui != now_ui else None
        updates.append(ObjectUpdate(state.guid, state.name, script, ui))
    return updates
