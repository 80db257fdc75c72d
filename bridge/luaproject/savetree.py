"""A TTS save as a source tree, and back: ``ttsmod unpack`` and ``ttsmod pack``.

Any save (or Saved Object) becomes a folder a modder can keep in git::

    DIR/
      save.json             the save without what the files below hold
      format.json           what pack needs to give the save's own bytes back (below)
      script.lua            Global's LuaScript          } each only when the save's value is a
      ui.xml                Global's XmlUI              } non-empty string; an empty or absent one
      state.json|state.txt  Global's LuaScriptState     } stays in save.json as it was
      objects/              ObjectStates
        order.json          the object folders in the save's order
        <Nickname>.<GUID>/  one object: object.json, script.lua, ui.xml, state.json|state.txt, and
          contents/           ContainedObjects (a bag's or deck's objects, order.json keeps their order)
          children/           ChildObjects (attached objects)
          states/             States (order.json maps each state id to its folder, in the save's order)

The script state is written as ``state.json`` (indented) when it is JSON that re-encodes compactly to exactly the
saved text (what TTS's ``JSON.encode`` writes), else as ``state.txt``, the text as it is. Folder names are
cosmetic: a safe name from the nickname (or the object's ``Name``) and the GUID (when it can be part of a file
name), with ``~2``, ``~3``… for a name already used in the folder (containers often hold objects that share a
GUID). ``pack`` reads ``order.json`` to know which folders make the list and in what order.

``pack(unpack(save))`` is the save's own bytes, and an edit of the tree changes only what was edited:

- the JSON files keep the save's key order and number spellings (:mod:`bridge.luaproject.jsontext`: ``1E+09``
  stays ``1E+09``); they are always laid out with a 2-space indent and ``\\n``, whatever the save's layout;
- ``format.json`` records the rest: the save file's :class:`~bridge.luaproject.jsontext.Layout` (indent, line
  end, BOM, whitespace around it), where each value kept in a file or folder of its own goes back among its
  object's keys (``kept_keys``: for each such key, ``[after, before]`` neighbour pairs, the most frequent first;
  ``kept_keys_in``: the object folders whose keys are in another order; :func:`place_keys`), and the text files
  whose every line ended ``\\r\\n`` (``crlf``: pack writes them with ``\\r\\n`` again, should an editor or git
  have made some ``\\n``);
- scripts and UI are written byte for byte.

A save laid out in a way :func:`bridge.luaproject.jsontext.dumps` does not write (uneven spacing, ``\\/``
escapes) is unpacked all the same, :attr:`TreeResult.exact` false: pack gives back the same JSON value in the
closest layout. A tree without ``format.json`` packs in TTS's layout, kept values at the end of their object.

Trees come from anyone (a pull request, an archive), so ``pack`` reads only the files named above, refuses a
name in ``order.json`` that is not a plain folder directly beside it (no ``..``, no separator), refuses any file
or folder that is a symbolic link leading out of the tree (:func:`bridge.safenames.inside_tree`), and names the
file and the problem in one line (:class:`bridge.errors.InputError`, exit 2). Both sides keep the one budget of
:mod:`bridge.luaproject.limits` (objects at most ``MAX_OBJECT_DEPTH`` deep, JSON at most ``MAX_JSON_DEPTH``), so
what ``unpack`` writes ``pack`` reads.

``unpack`` never moves DIR or anything in it that is not its own (``.git``, a README, ``ttsmod.toml``; DIR may be
a symbolic link, which stays one): it writes the whole new tree in ``DIR/.ttsmod-unpack/new``, then writes the
list of what it holds (``plan.json``), then swaps its own entries one at a time (the old one into
``DIR/.ttsmod-unpack/old``, the new one in its place) and removes ``.ttsmod-unpack``. A failure while writing
leaves DIR as it was; a process killed at any step leaves the other files where they were, and the next
``unpack``, ``pack`` or ``push`` of DIR finishes the swap first (:func:`finish_interrupted_unpack`).
"""

from __future__ import annotations

import json
import os
import shutil
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from bridge.errors import InputError
from bridge.fsio import atomic_write_bytes
from bridge.luaproject import jsontext
from bridge.luaproject.jsontext import TREE_LAYOUT, TTS_LAYOUT, Layout
from bridge.luaproject.limits import MAX_JSON_DEPTH, MAX_OBJECT_DEPTH, json_depth_exceeds
from bridge.safenames import is_inside_tree, is_safe_token, safe_component

SAVE_FILE = "save.json"
FORMAT_FILE = "format.json"
OBJECT_FILE = "object.json"
ORDER_FILE = "order.json"
OBJECTS_DIR = "objects"
SCRIPT_FILE = "script.lua"
UI_FILE = "ui.xml"
STATE_JSON = "state.json"
STATE_TEXT = "state.txt"

TEXT_KEYS = (("LuaScript", SCRIPT_FILE), ("XmlUI", UI_FILE))
STATE_KEY = "LuaScriptState"
# Where an object keeps other objects: save key → sub-folder, and whether the key holds a list or a map.
OBJECT_SLOTS = (("ContainedObjects", "contents", list), ("ChildObjects", "children", list), ("States", "states", dict))
SAVE_SLOTS = (("ObjectStates", OBJECTS_DIR, list),)

OWNED = frozenset({SAVE_FILE, FORMAT_FILE, SCRIPT_FILE, UI_FILE, STATE_JSON, STATE_TEXT, OBJECTS_DIR})
"""The entries of DIR that unpack writes and replaces; anything else in DIR is the modder's and is kept."""

NODE_FILES = frozenset({SCRIPT_FILE, UI_FILE, STATE_JSON, STATE_TEXT})
NAME_BYTES = 60         # longest nickname part of a folder name (paths nest: keep each step short)

SWAP_DIR = ".ttsmod-unpack"
"""unpack's own folder inside DIR while it swaps the tree in (see the module docstring); ``pack`` skips it, as it
skips every name that starts with a dot."""
SWAP_NEW, SWAP_OLD, SWAP_PLAN = "new", "old", "plan.json"


@dataclass(frozen=True)
class TreeResult:
    """What unpack or pack did: the save file, the folder, how many objects (at any depth) and scripts (non-empty
    ``LuaScript``, Global's included) the save has, and how many files the tree has."""

    save: Path
    folder: Path
    objects: int
    scripts: int
    files: int
    exact: bool | None = None
    """unpack only: whether pack of the unchanged tree gives the save's bytes back (else the same JSON value)."""
    rounded: int | None = None
    """unpack --round only: how many numbers were rounded."""

    def to_json(self) -> dict[str, Any]:
        report = {"save": str(self.save), "dir": str(self.folder), "objects": self.objects, "scripts": self.scripts,
                  "files": self.files}
        if self.exact is False:         # only when it is news: the save will not come back byte for byte
            report["exact"] = False
        if self.rounded is not None:
            report["rounded"] = self.rounded
        return report


# ------------------------------------------------------------------------------------------------ reading a save


def read_save(path: str | os.PathLike) -> dict[str, Any]:
    """The save at ``path`` as a JSON object with an ``ObjectStates`` list; :class:`InputError` otherwise."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a save file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    data = _parse_json(raw, str(path))
    if not isinstance(data, dict) or not isinstance(data.get("ObjectStates"), list):
        raise InputError(f"{path}: not a TTS save (no ObjectStates list)")
    return data


def read_save_document(path: str | os.PathLike) -> tuple[dict[str, Any], Layout, bool]:
    """The save at ``path`` as :func:`read_save` reads it, but with numbers keeping their spelling
    (:func:`bridge.luaproject.jsontext.loads`), the layout of the file, and whether that layout writes the file's
    text back exactly (:func:`bridge.luaproject.jsontext.detect_layout`)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a save file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    data = _parse_json(raw, str(path), spelled=True)
    if not isinstance(data, dict) or not isinstance(data.get("ObjectStates"), list):
        raise InputError(f"{path}: not a TTS save (no ObjectStates list)")
    if json_depth_exceeds(data, MAX_JSON_DEPTH):
        return data, TTS_LAYOUT, False      # unpack refuses it; no layout to find
    layout, exact = jsontext.detect_layout(raw.decode("utf-8"), data)
    return data, layout, exact


def _parse_json(raw: bytes, where: str, *, spelled: bool = False) -> Any:
    try:
        text = raw.decode("utf-8-sig")
        return jsontext.loads(text) if spelled else json.loads(text)
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def dumps(value: Any) -> bytes:
    """``value`` as the JSON ttsmod writes for the JSON files of a tree: 2-space indent, keys in the value's
    order, numbers as they were spelled (:mod:`bridge.luaproject.jsontext`), a final newline. Text that cannot be
    UTF-8 (a lone surrogate) is written as ``\\u`` escapes."""
    return jsontext.dumps(value, TREE_LAYOUT).encode("utf-8")


def save_bytes(save: dict[str, Any], layout: Layout = TTS_LAYOUT) -> bytes:
    """The save file for ``save`` in ``layout`` (TTS's own by default), BOM included when the layout has one."""
    return (jsontext.BOM if layout.bom else "").encode("utf-8") + jsontext.dumps(save, layout).encode("utf-8")


# ------------------------------------------------------------------------------------------------ save → files


def _is_objects(value: Any, kind: type) -> bool:
    """Whether ``value`` is a non-empty list (or map) of objects: what becomes folders."""
    if not value or not isinstance(value, kind):
        return False
    items = value if kind is list else value.values()
    return all(isinstance(item, dict) for item in items)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def state_as_json(state: str) -> bytes | None:
    """The indented ``state.json`` for a script state, when packing it gives back exactly ``state``; else None."""
    try:
        value = json.loads(state)
    except (ValueError, RecursionError):
        return None
    if json_depth_exceeds(value, MAX_JSON_DEPTH):
        return None     # pack would refuse the state.json: the text goes to state.txt as it is
    if json.dumps(value, separators=(",", ":"), ensure_ascii=False) != state:
        return None
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def folder_names(objects: list[dict[str, Any]]) -> list[str]:
    """One folder name per object, distinct in the folder even where file systems ignore case and Unicode
    normalisation: ``<safe nickname or Name>.<GUID>``, ``~2``… (the smallest number free) for a name already
    taken. Linear in the number of objects, however many share a name (TTS gives a new deck's cards one GUID)."""
    used = {ORDER_FILE}
    # The next number to try for each base: the numbers below it are taken already (names are never freed), so
    # a deck of n same-named cards is n steps, not n²/2.
    next_number: dict[str, int] = {}
    names: list[str] = []
    for obj in objects:
        label = obj.get("Nickname")
        if not isinstance(label, str) or not label.strip():
            label = obj.get("Name") if isinstance(obj.get("Name"), str) else ""
        base = safe_component(label, max_bytes=NAME_BYTES)
        guid = obj.get("GUID")
        if isinstance(guid, str) and is_safe_token(guid):
            base = f"{base}.{guid}"
        name, key = base, _fold(base)
        if key in used:
            number = next_number.get(key, 2)
            while _fold(name := f"{base}~{number}") in used:
                number += 1
            next_number[key] = number + 1
        used.add(_fold(name))
        names.append(name)
    return names


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


_FORMAT_ABOUT = ("How ttsmod pack writes the save back byte for byte: the layout of the save file, where the values "
                 "kept in their own files and folders go among an object's keys, and which text files had CRLF "
                 "line ends. Written by ttsmod unpack; see docs/modding.md.")


def _is_crlf(text: str) -> bool:
    """Whether every line break of ``text`` is ``\\r\\n`` (and it has one)."""
    return "\r\n" in text and text.count("\n") == text.count("\r\n")


def place_keys(file_keys: Sequence[str], kept: Sequence[str], places: dict[str, Any]) -> list[str]:
    """The order of an object's keys: ``file_keys`` (its JSON file's, in order) with each of ``kept`` (the keys
    whose values are in files and folders of their own) put back where ``places`` says: a list of
    ``[after, before]`` pairs per key, the first that fits taken. A pair fits when the object has its ``after``
    key (the key goes right after it; ``None``: first), else, as a last resort, when it has its ``before`` key
    (right before it). With none, or no pair, at the end. A kept key placed after another kept key waits for
    that one, so a whole run of them comes back in order."""
    order = list(file_keys)
    pending = list(kept)

    def choice(key: str) -> tuple[str, Any]:
        pairs = places.get(key) or []
        for after, _ in pairs:
            if after is None or after in pending or after in order:
                return "after", after
        for _, before in pairs:
            if before is not None and before in order:
                return "before", before
        return "end", None

    while pending:
        for key in pending:
            how, other = choice(key)
            if not (how == "after" and other in pending):
                break
        else:
            key, how = pending[0], "end"      # a cycle: not what unpack writes
        pending.remove(key)
        if how == "after":
            order.insert(0 if other is None else order.index(other) + 1, key)
        elif how == "before":
            order.insert(order.index(other), key)
        else:
            order.append(key)
    return order


class _FormatNotes:
    """What ``format.json`` records while :func:`tree_files` walks a save."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, list[str], list[str], list[str], dict[str, list]]] = []
        self.crlf: list[str] = []

    def note_node(self, prefix: str, keys: list[str], file_keys: list[str], kept: list[str]) -> None:
        if not kept:
            return
        places: dict[str, list] = {}
        for key in kept:
            index = keys.index(key)
            after = keys[index - 1] if index else None
            before = next((k for k in keys[index + 1:] if k not in kept), None)
            places[key] = [[after, before]]
        self.nodes.append((prefix.rstrip("/") or ".", keys, file_keys, kept, places))

    def to_json(self, layout: Layout) -> dict[str, Any]:
        from collections import Counter

        counts: dict[str, Counter] = {}
        for *_, places in self.nodes:
            for key, ((after, before),) in places.items():
                counts.setdefault(key, Counter())[(after, before)] += 1
        # each kept key's places, the most frequent first (ties: the first seen)
        usual = {key: [list(pair) for pair, _ in count.most_common()] for key, count in counts.items()}
        others = {node: places for node, keys, file_keys, kept, places in self.nodes
                  if place_keys(file_keys, kept, usual) != keys}
        return {"about": _FORMAT_ABOUT, "layout": layout.to_json(), "kept_keys": usual,
                "kept_keys_in": others, "crlf": self.crlf}


def tree_files(save: dict[str, Any], layout: Layout = TTS_LAYOUT) -> dict[str, bytes]:
    """The files of the tree for ``save``: relative POSIX path → content (deterministic, nothing written).
    ``layout`` is the save file's (:func:`read_save_document`), recorded in ``format.json`` for pack."""
    files: dict[str, bytes] = {}
    notes = _FormatNotes()
    _put_node(files, notes, "", SAVE_FILE, save, SAVE_SLOTS)
    files[FORMAT_FILE] = dumps(notes.to_json(layout))
    return files


def _put_node(files: dict[str, bytes], notes: _FormatNotes, prefix: str, holder: str, data: dict[str, Any],
              slots) -> None:
    rest = dict(data)
    kept: list[str] = []

    def text_file(path: str, text: str) -> None:
        files[path] = text.encode("utf-8")
        if _is_crlf(text):
            notes.crlf.append(path)

    for key, name in TEXT_KEYS:
        value = rest.get(key)
        if isinstance(value, str) and value and _encodable(value):
            text_file(prefix + name, value)
            del rest[key]
            kept.append(key)
    state = rest.get(STATE_KEY)
    if isinstance(state, str) and state and _encodable(state):
        pretty = state_as_json(state)
        if pretty is not None:
            files[prefix + STATE_JSON] = pretty
        else:
            text_file(prefix + STATE_TEXT, state)
        del rest[STATE_KEY]
        kept.append(STATE_KEY)
    for key, sub, kind in slots:
        value = rest.get(key)
        if not _is_objects(value, kind):
            continue
        objects = value if kind is list else list(value.values())
        names = folder_names(objects)
        order: Any = names if kind is list else dict(zip(value.keys(), names))
        files[f"{prefix}{sub}/{ORDER_FILE}"] = dumps(order)
        for name, obj in zip(names, objects):
            _put_node(files, notes, f"{prefix}{sub}/{name}/", OBJECT_FILE, obj, OBJECT_SLOTS)
        del rest[key]
        kept.append(key)
    files[prefix + holder] = dumps(rest)
    notes.note_node(prefix, list(data), list(rest), kept)


# ------------------------------------------------------------------------------------------------ files → save


def save_from_tree(folder: str | os.PathLike) -> dict[str, Any]:
    """The save a tree describes (see the module docstring); :class:`InputError` naming the file otherwise.
    An unpack into ``folder`` that was interrupted is finished first (:func:`finish_interrupted_unpack`)."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder")
    return _save_and_format(root)[0]


@dataclass(frozen=True)
class TreeFormat:
    """What a tree's ``format.json`` says (the defaults for a tree without one: TTS's layout, kept keys at the
    end of their object, no CRLF files)."""

    layout: Layout = TTS_LAYOUT
    kept_keys: dict = field(default_factory=dict)
    kept_keys_in: dict = field(default_factory=dict)
    crlf: frozenset = frozenset()

    def places(self, node: str) -> dict[str, list]:
        """Where the kept keys of the object in folder ``node`` (``.``: the save) go (:func:`place_keys`): its
        own places where ``kept_keys_in`` has them, the usual ones for any other key (a script added since)."""
        own = self.kept_keys_in.get(node)
        return {**self.kept_keys, **own} if own else self.kept_keys


def read_format(root: Path) -> TreeFormat:
    """The tree's ``format.json`` (see the module docstring); :class:`InputError` naming the field when it is
    not what unpack writes."""
    path = root / FORMAT_FILE
    if not os.path.lexists(path):
        return TreeFormat()
    data = _read_json(root, path)
    where = FORMAT_FILE

    def named(value: Any) -> bool:
        return value is None or isinstance(value, str)

    def places(value: Any, field: str) -> dict[str, list]:
        if not isinstance(value, dict) or not all(
                isinstance(pairs, list) and all(isinstance(pair, list) and len(pair) == 2
                                                and named(pair[0]) and named(pair[1]) for pair in pairs)
                for pairs in value.values()):
            raise InputError(f"{where}: {field} must map each key to a list of [after, before] key pairs")
        return value

    if not isinstance(data, dict):
        raise InputError(f"{where}: not a JSON object")
    try:
        layout = Layout.from_json(data.get("layout", {}))
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
    usual = places(data.get("kept_keys", {}), "kept_keys")
    others = data.get("kept_keys_in", {})
    if not isinstance(others, dict):
        raise InputError(f"{where}: kept_keys_in must map object folders to their kept keys")
    others = {node: places(value, f"kept_keys_in[{node!r}]") for node, value in others.items()}
    crlf = data.get("crlf", [])
    if not isinstance(crlf, list) or not all(isinstance(name, str) for name in crlf):
        raise InputError(f"{where}: crlf must be a list of file paths")
    return TreeFormat(layout, usual, others, frozenset(crlf))


def _save_and_format(root: Path) -> tuple[dict[str, Any], TreeFormat]:
    finish_interrupted_unpack(root)
    if not (root / SAVE_FILE).is_file():
        raise InputError(f"{root}: no {SAVE_FILE}; not a save unpacked by ttsmod unpack")
    fmt = read_format(root)
    save = _read_node(root, root, SAVE_FILE, SAVE_SLOTS, depth=0, strict=False, fmt=fmt)
    if json_depth_exceeds(save, MAX_JSON_DEPTH):
        raise InputError(f"{root}: the save it describes nests JSON more than {MAX_JSON_DEPTH} levels deep "
                         "(unpack reads no deeper)")
    return save, fmt


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _read_bytes(root: Path, path: Path) -> bytes:
    if not is_inside_tree(root, path):
        raise InputError(f"{_rel(root, path)}: a symbolic link that leads outside {root}; refusing to read it")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{_rel(root, path)}: cannot read ({exc.strerror or exc})") from None


def _read_json(root: Path, path: Path, *, spelled: bool = True) -> Any:
    """A JSON file of the tree, parsed (numbers keeping their spelling unless ``spelled`` is false); deeper than
    the budget is refused (unpack would not have written it)."""
    where = _rel(root, path)
    value = _parse_json(_read_bytes(root, path), where, spelled=spelled)
    if json_depth_exceeds(value, MAX_JSON_DEPTH):
        raise InputError(f"{where}: JSON nested more than {MAX_JSON_DEPTH} levels deep")
    return value


def _read_text(root: Path, path: Path, crlf: frozenset = frozenset()) -> str:
    """A text file of the tree; one that ``format.json`` lists as CRLF gets ``\\r\\n`` line breaks throughout
    (an editor or git may have made some or all of them ``\\n``)."""
    try:
        text = _read_bytes(root, path).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{_rel(root, path)}: not UTF-8 text") from None
    if crlf and _rel(root, path) in crlf and not _is_crlf(text):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


def _read_node(root: Path, folder: Path, holder: str, slots, *, depth: int, strict: bool,
               fmt: TreeFormat) -> dict[str, Any]:
    if depth > MAX_OBJECT_DEPTH:
        raise InputError(f"{_rel(root, folder)}: objects nested more than {MAX_OBJECT_DEPTH} deep")
    holder_path = folder / holder
    if not holder_path.is_file():
        raise InputError(f"{_rel(root, folder)}: no {holder}")
    data = _read_json(root, holder_path)
    if not isinstance(data, dict):
        raise InputError(f"{_rel(root, holder_path)}: not a JSON object")
    slot_dirs = {sub for _, sub, _ in slots}
    if strict:
        for entry in folder.iterdir():
            if entry.name.startswith(".") or entry.name in NODE_FILES or entry.name in slot_dirs \
                    or entry.name == holder:
                continue
            raise InputError(f"{_rel(root, entry)}: not part of an object folder (expected {holder}, "
                             f"{', '.join(sorted(NODE_FILES))} or {', '.join(sorted(slot_dirs))}/)")

    file_keys = list(data)
    kept: list[str] = []

    def take(key: str, path: Path, value: Any) -> None:
        if key in data:
            raise InputError(f"{_rel(root, path)}: {key} is also in {holder}; keep it in one place")
        data[key] = value
        kept.append(key)

    for key, name in TEXT_KEYS:
        path = folder / name
        if path.is_file():
            take(key, path, _read_text(root, path, fmt.crlf))
    state_json, state_text = folder / STATE_JSON, folder / STATE_TEXT
    if state_json.is_file() and state_text.is_file():
        raise InputError(f"{_rel(root, folder) or '.'}: both {STATE_JSON} and {STATE_TEXT}; keep one")
    if state_json.is_file():
        value = _read_json(root, state_json, spelled=False)
        take(STATE_KEY, state_json, json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    elif state_text.is_file():
        take(STATE_KEY, state_text, _read_text(root, state_text, fmt.crlf))
    for key, sub, kind in slots:
        slot = folder / sub
        if not slot.exists():
            continue
        if not slot.is_dir():
            raise InputError(f"{_rel(root, slot)}: not a folder")
        if not is_inside_tree(root, slot):
            raise InputError(f"{_rel(root, slot)}: a symbolic link that leads outside {root}; refusing to read it")
        take(key, slot, _read_slot(root, slot, kind, depth, fmt))
    if not kept:
        return data
    return {key: data[key] for key in place_keys(file_keys, kept, fmt.places(_rel(root, folder)))}


def _read_slot(root: Path, slot: Path, kind: type, depth: int, fmt: TreeFormat) -> Any:
    order_path = slot / ORDER_FILE
    where = _rel(root, order_path)
    if not order_path.is_file():
        raise InputError(f"{where}: missing (it lists the object folders in order)")
    order = _read_json(root, order_path)
    if kind is list:
        if not isinstance(order, list) or not all(isinstance(n, str) for n in order):
            raise InputError(f"{where}: must be a list of folder names")
        keys, names = None, order
    else:
        if not isinstance(order, dict) or not all(isinstance(n, str) for n in order.values()):
            raise InputError(f"{where}: must map each state id to a folder name")
        keys, names = list(order), list(order.values())
    real = slot.resolve()
    seen: set[str] = set()
    for name in names:
        if not name or name in (".", "..") or any(c in name for c in "/\\\x00") or name.startswith("."):
            raise InputError(f"{where}: {name!r} is not a plain folder name; refusing to read outside {slot.name}/")
        path = slot / name
        if not path.is_dir():
            raise InputError(f"{where}: names {name!r}, which is not a folder in {_rel(root, slot)}/")
        if path.resolve().parent != real:
            raise InputError(f"{where}: {name!r} leads outside {_rel(root, slot)}/; refusing to read it")
        if _fold(name) in seen:
            raise InputError(f"{where}: names {name!r} twice")
        seen.add(_fold(name))
    for entry in sorted(slot.iterdir()):
        if entry.name == ORDER_FILE or entry.name.startswith("."):
            continue
        if _fold(entry.name) not in seen:
            raise InputError(f"{_rel(root, entry)}: not listed in {where}; add it there (in its place) or remove it")
    objects = [_read_node(root, slot / name, OBJECT_FILE, OBJECT_SLOTS, depth=depth + 1, strict=True, fmt=fmt)
               for name in names]
    return objects if keys is None else dict(zip(keys, objects))


# ------------------------------------------------------------------------------------------------ the commands


def _count(save: dict[str, Any]) -> tuple[int, int]:
    """(objects at any depth, non-empty scripts including Global's), without recursion."""
    objects, scripts = 0, int(bool(isinstance(save.get("LuaScript"), str) and save["LuaScript"]))
    stack = [save.get("ObjectStates")]
    while stack:
        value = stack.pop()
        items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
        for obj in items:
            if not isinstance(obj, dict):
                continue
            objects += 1
            scripts += bool(isinstance(obj.get("LuaScript"), str) and obj["LuaScript"])
            stack.extend(obj.get(key) for key, _, _ in OBJECT_SLOTS)
    return objects, scripts


def _object_depth_exceeds(save: dict[str, Any], limit: int) -> bool:
    """Whether ``save`` has objects nested deeper than ``limit``, counted as :func:`tree_files` makes folders of
    them (the objects of ``ObjectStates`` at depth 1); iterative."""
    stack: list[tuple[dict[str, Any], int, tuple]] = [(save, 0, SAVE_SLOTS)]
    while stack:
        node, depth, slots = stack.pop()
        for key, _, kind in slots:
            value = node.get(key)
            if not _is_objects(value, kind):
                continue
            if depth + 1 > limit:
                return True
            stack.extend((obj, depth + 1, OBJECT_SLOTS) for obj in (value if kind is list else value.values()))
    return False


def unpack(save_path: str | os.PathLike, folder: str | os.PathLike, *, round_numbers: bool = False) -> TreeResult:
    """Write the save at ``save_path`` as a tree in ``folder`` (replacing a tree unpacked there before);
    ``round_numbers`` rounds positions, rotations, scales and colours first (:mod:`bridge.luaproject.rounding`).

    ``folder`` must not exist, be empty, or hold a tree (a ``save.json``): any other folder is refused, so an
    unpack into the wrong place cannot replace someone's files. A save deeper than the budget of
    :mod:`bridge.luaproject.limits` is refused (pack would refuse the tree). The tree is swapped in inside
    ``folder`` (see the module docstring); an interrupted unpack into it is finished first.
    """
    save, layout, exact = read_save_document(save_path)
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target}: is a file, not a folder")
    if target.is_dir():
        finish_interrupted_unpack(target)
        if any(target.iterdir()) and not (target / SAVE_FILE).is_file():
            raise InputError(f"{target}: not empty and holds no {SAVE_FILE}; unpack into a new or empty folder")
    if _object_depth_exceeds(save, MAX_OBJECT_DEPTH):
        raise InputError(f"{save_path}: objects nested more than {MAX_OBJECT_DEPTH} deep (pack reads no deeper)")
    if json_depth_exceeds(save, MAX_JSON_DEPTH):
        raise InputError(f"{save_path}: JSON nested more than {MAX_JSON_DEPTH} levels deep (pack reads no deeper)")
    rounded = None
    if round_numbers:
        from bridge.luaproject.rounding import round_save

        rounded = round_save(save)
    files = tree_files(save, layout)
    try:
        swap_tree_in(target, files)
    except OSError as exc:
        raise InputError(f"{target}: cannot write the tree ({exc.strerror or exc}); nothing was changed") from None
    objects, scripts = _count(save)
    return TreeResult(Path(save_path).absolute(), target.absolute(), objects, scripts, len(files), exact, rounded)


# ------------------------------------------------------------------------------------------------ the swap


def _move(source: Path, destination: Path) -> None:
    """One step of the swap: a rename (its own function, so that a test can interrupt the swap between two)."""
    os.replace(source, destination)


def _write_new_tree(new: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        path = new.joinpath(*relative.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())


def swap_tree_in(folder: Path, files: dict[str, bytes]) -> None:
    """Make ``folder`` hold the tree ``files`` (relative POSIX path → bytes): written whole into
    ``folder/.ttsmod-unpack/new``, then ``plan.json``, then swapped in entry by entry (see the module docstring).
    An ``OSError`` while writing leaves ``folder`` as it was (a folder made for the tree is removed again)."""
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    swap = folder / SWAP_DIR
    try:
        swap.mkdir()
        _write_new_tree(swap / SWAP_NEW, files)
        (swap / SWAP_OLD).mkdir()
        plan = sorted({relative.split("/", 1)[0] for relative in files})
        atomic_write_bytes(swap / SWAP_PLAN, json.dumps(plan).encode("utf-8"))
    except BaseException:
        shutil.rmtree(swap, ignore_errors=True)
        if made:
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
    try:
        _roll_forward(folder, swap, plan)
    except OSError as exc:
        raise InputError(f"{folder}: the new tree could not be swapped in ({exc.strerror or exc}); your other "
                         "files are in place, and unpack or pack of this folder finishes the swap") from None


def _roll_forward(folder: Path, swap: Path, plan: Sequence[str]) -> None:
    """Put each entry of ``plan`` from ``swap/new`` in its place in ``folder`` and each other entry unpack owns
    into ``swap/old``, then remove ``swap``. Idempotent: run again after any step, it does the steps left."""
    new, old = swap / SWAP_NEW, swap / SWAP_OLD
    for name in sorted(OWNED):
        current = folder / name
        if name in plan and not os.path.lexists(new / name):
            continue                    # already in place
        if os.path.lexists(current) and not os.path.lexists(old / name):
            _move(current, old / name)
        if name in plan:
            _move(new / name, current)
    shutil.rmtree(swap)


def finish_interrupted_unpack(folder: str | os.PathLike) -> None:
    """Finish an unpack into ``folder`` that was stopped during its swap: when ``folder/.ttsmod-unpack`` holds a
    complete new tree (its ``plan.json``), swap it in; when it does not (stopped while writing), remove it. The
    files that are not unpack's are never moved. :class:`InputError` when ``.ttsmod-unpack`` is not what
    unpack leaves (a link, a file, a plan that names other entries)."""
    swap = Path(folder) / SWAP_DIR
    if not os.path.lexists(swap):
        return
    where = f"{Path(folder) / SWAP_DIR}"
    if swap.is_symlink() or not swap.is_dir() or any(
            (swap / part).is_symlink() for part in (SWAP_NEW, SWAP_OLD, SWAP_PLAN)):
        raise InputError(f"{where}: not what an interrupted unpack leaves (a link or a file); remove it")
    if not (swap / SWAP_PLAN).is_file():
        if (swap / SWAP_OLD).is_dir() and any((swap / SWAP_OLD).iterdir()):
            raise InputError(f"{where}: holds old files but no {SWAP_PLAN}; not what unpack leaves, remove it")
        shutil.rmtree(swap)             # stopped while writing the new tree: nothing was swapped yet
        return
    try:
        plan = json.loads((swap / SWAP_PLAN).read_bytes())
    except (OSError, ValueError) as exc:
        raise InputError(f"{where}/{SWAP_PLAN}: cannot read it ({exc}); remove {where}") from None
    if not isinstance(plan, list) or not all(isinstance(name, str) and name in OWNED for name in plan):
        raise InputError(f"{where}/{SWAP_PLAN}: not a list of the entries unpack writes; remove {where}")
    (swap / SWAP_OLD).mkdir(exist_ok=True)
    try:
        _roll_forward(Path(folder), swap, plan)
    except OSError as exc:
        raise InputError(f"{where}: cannot finish the interrupted unpack ({exc.strerror or exc})") from None


def default_save_path(folder: str | os.PathLike) -> Path:
    """Where ``pack DIR`` writes without a SAVE: ``DIR.json`` beside the folder."""
    folder = Path(folder).absolute()
    return folder.with_name(folder.name + ".json")


def pack(folder: str | os.PathLike, save_path: str | os.PathLike | None = None) -> tuple[TreeResult, bytes]:
    """The save the tree in ``folder`` describes, written to ``save_path`` (default :func:`default_save_path`;
    ``"-"``: not written, the caller prints it). Returns what was done and the save's bytes."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder")
    save, fmt = _save_and_format(root)
    if "ObjectStates" not in save:
        save["ObjectStates"] = []       # every object folder removed: a save with no objects
    elif not isinstance(save["ObjectStates"], list):
        raise InputError(f"{Path(folder) / SAVE_FILE}: ObjectStates must be a list")
    try:
        raw = save_bytes(save, fmt.layout)
    except ValueError as exc:
        raise InputError(f"{root}: cannot write the save ({exc})") from None
    target = Path("-") if str(save_path) == "-" else Path(save_path) if save_path else default_save_path(folder)
    if str(target) != "-":
        try:
            atomic_write_bytes(target, raw)
        except OSError as exc:
            raise InputError(f"{target}: cannot write ({exc.strerror or exc})") from None
    objects, scripts = _count(save)
    shown = target if str(target) == "-" else target.absolute()
    return TreeResult(shown, Path(folder).absolute(), objects, scripts, len(tree_files(save, fmt.layout))), raw


def script_states(folder: str | os.PathLike, lua_path: Sequence[str | os.PathLike] = ()) -> list:
    """What ``ttsmod push DIR`` sends for a tree: Global and every top-level object with a script or a UI, each
    with both (an empty string for the one it lacks: a state without ``ui`` would delete the object's UI).
    A script that ``require``\\ s modules is bundled with them and ``<Include src>`` in a UI is expanded, from
    ``lua_path`` or the tree's search path (:func:`bridge.luaproject.scriptfolder.ready_states`).

    Objects in containers are left out: TTS knows no scripts of objects it has not taken out (the save keeps
    them, and ``pack`` writes them)."""
    from bridge.luaproject.scriptfolder import ready_states

    root = Path(folder)
    states, folders = _top_script_states(root)
    return ready_states(states, lambda guid: folders[guid] / SCRIPT_FILE, root, lua_path)


def _top_script_states(folder: Path) -> tuple[list, dict[str, Path]]:
    """The tree's script states as its files hold them, and the folder of each (by GUID)."""
    from bridge.protocol import GLOBAL_GUID, ScriptState

    save = save_from_tree(folder)
    names = json.loads((folder / OBJECTS_DIR / ORDER_FILE).read_bytes()) \
        if (folder / OBJECTS_DIR / ORDER_FILE).is_file() else []
    folders: dict[str, Path] = {GLOBAL_GUID: folder}

    def text(value: Any) -> str:
        return value if isinstance(value, str) else ""

    states = [ScriptState(name="Global", guid=GLOBAL_GUID, script=text(save.get("LuaScript")),
                          ui=text(save.get("XmlUI")))]
    seen = {GLOBAL_GUID}
    for index, obj in enumerate(save.get("ObjectStates") or []):
        if not isinstance(obj, dict) or not (text(obj.get("LuaScript")) or text(obj.get("XmlUI"))):
            continue
        guid = obj.get("GUID")
        if not isinstance(guid, str) or not guid or guid in seen:
            raise InputError(f"{folder}: a scripted object ({str(obj.get('Nickname'))[:60]!r}) has "
                             f"{'a GUID another object has' if guid in seen else 'no GUID'}; TTS could not tell "
                             "which object the script is for")
        seen.add(guid)
        folders[guid] = folder / OBJECTS_DIR / names[index]
        name = obj.get("Nickname") if isinstance(obj.get("Nickname"), str) and obj.get("Nickname") else obj.get("Name")
        states.append(ScriptState(name=str(name or ""), guid=guid, script=text(obj.get("LuaScript")),
                                  ui=text(obj.get("XmlUI"))))
    return states, folders
