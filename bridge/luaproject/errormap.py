"""TTS error positions (``chunk_0:(line,col-col)``) in a bundled script → the source file and line in ``mod/``.

TTS reports a Lua error against the script it ran, which for a ttsmod game is a luabundle bundle. Each module's
source sits verbatim on the lines after its ``__bundle_register("<name>", function(...)`` header, so a bundle
line maps back by subtraction. The bundle text is validated with ``bridge.luaproject.bundle.unbundle`` (a Lua lexer, not
text patterns) and each module's length bounds the mapping; a line outside every module reads as ``None``.

Module names are dotted paths under ``mod/``: ``lib.json`` → ``mod/lib/json.lua``; the root module
``__root`` maps to ``root_file`` when the caller knows it (``mod/<game>/global.lua``); otherwise to the
``mod/<folder>/global.lua`` whose text is the root module's source, when one is. A line an ``#include`` brought
into a module maps to the included file and its line (:func:`bridge.luaproject.luainclude.include_position`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from bridge.luaproject.bundle import ROOT_MODULE, is_bundle, unbundle

POSITION = re.compile(r"chunk_\d+:\((\d+),(\d+)(?:-(\d+))?\)")
_HEADER = re.compile(r'__bundle_register\("((?:[^"\\]|\\.)*)"\s*,\s*function\(')


def error_position(text: str) -> tuple[int, int, int | None] | None:
    """``(line, first column, last column or None)`` of the first ``chunk_N:(l,c-c)`` in ``text``."""
    match = POSITION.search(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3)) if match.group(3) else None


def module_lines(bundle_text: str) -> list[tuple[str, int, int]] | None:
    """``(module name, first source line, line count)`` for each module of a bundle, or ``None`` when the
    text is not a well-formed luabundle bundle."""
    if not is_bundle(bundle_text):
        return None
    try:
        sources = unbundle(bundle_text)
    except ValueError:
        return None
    lines = bundle_text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    found: list[tuple[str, int, int]] = []
    for number, line in enumerate(lines, start=1):
        if not line.startswith("__bundle_register("):
            continue
        match = _HEADER.match(line)
        if match is None:
            continue
        name = match.group(1)
        if name in sources and all(name != f[0] for f in found):
            found.append((name, number + 1, sources[name].count("\n") + 1))
    return found


def root_file_of(bundle_text: str, mod_root: Path | None) -> str | None:
    """``mod/<folder>/global.lua`` (relative to ``mod_root``'s parent) whose text is the bundle's root module,
    or ``None``: how the bridge names a game's root script without being told which game is running."""
    if mod_root is None or not mod_root.is_dir():
        return None
    try:
        root_source = unbundle(bundle_text).get(ROOT_MODULE)
    except ValueError:
        return None
    if root_source is None:
        return None
    for candidate in sorted(mod_root.glob("*/global.lua")):
        try:
            text = candidate.read_text(encoding="utf-8").lstrip("\ufeff").replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError):
            continue
        if text == root_source:
            return (Path(mod_root.name) / candidate.relative_to(mod_root)).as_posix()
    return None


def module_file(name: str, mod_root: Path | None, root_file: str | None) -> str:
    """A readable file name for a bundled module: ``mod/lib/json.lua`` when it exists under ``mod_root``."""
    if name == ROOT_MODULE:
        return root_file or "the root script"
    if mod_root is not None:
        relative = Path(*name.split("."))
        for candidate in (relative.with_suffix(".lua"), relative.with_suffix(".ttslua"), relative / "init.lua"):
            if (mod_root / candidate).is_file():
                return (Path(mod_root.name) / candidate).as_posix()
    return f"<{name}>"


def _included(source: str, line: int, mod_root: Path | None) -> tuple[str, int] | None:
    """``(file, line)`` of module line ``line`` when an ``#include`` brought it in (``mod/lib/dice.lua`` when that
    file is under ``mod_root``, else the include's path), else None."""
    if "----" not in source or "#include" not in source:
        return None
    from bridge.luaproject.luainclude import include_position, included_path

    chain, inner = include_position(source, line)
    if not chain:
        return None
    relative = included_path(chain)
    if mod_root is not None and (mod_root / relative).is_file():
        return (Path(mod_root.name) / relative).as_posix(), inner
    return relative, inner


def locate(bundle_text: str, line: int, *, mod_root: Path | None = None, root_file: str | None = None) -> tuple[str, int] | None:
    """``(file, line)`` of bundle line ``line``, or ``None`` when the text is not a bundle or the line is
    outside every module (the bundle's own runtime)."""
    modules = module_lines(bundle_text)
    if not modules:
        return None
    for name, first, count in modules:
        if first <= line < first + count:
            included = _included(unbundle(bundle_text).get(name, ""), line - first + 1, mod_root) \
                if "#include" in bundle_text else None
            if included is not None:
                return included
            if name == ROOT_MODULE and root_file is None:
                root_file = root_file_of(bundle_text, mod_root)
            return module_file(name, mod_root, root_file), line - first + 1
    return None


def error_locator(mod_root: Path | None = None, root_file: str | None = None) -> Callable[[str, str], str | None]:
    """A ``locate_error(error_text, bundle_text) -> "file:line"`` for :class:`bridge.session.Session`.

    Without ``root_file`` the root module is named by :func:`root_file_of`. The bundle's module table (and
    root file) is cached per script text, so a burst of errors parses it once.
    """
    cache: dict[int, tuple[str, list[tuple[str, int, int]] | None, str | None, dict[str, str]]] = {}

    def locate_error(error_text: str, bundle_text: str) -> str | None:
        position = error_position(error_text)
        if position is None:
            return None
        key = hash(bundle_text)
        cached = cache.get(key)
        if cached is None or cached[0] != bundle_text:
            if len(cache) > 16:
                cache.clear()
            modules = module_lines(bundle_text)
            root = root_file if root_file is not None or not modules else root_file_of(bundle_text, mod_root)
            sources = unbundle(bundle_text) if modules and "#include" in bundle_text else {}
            cached = (bundle_text, modules, root, sources)
            cache[key] = cached
        modules, root, sources = cached[1], cached[2], cached[3]
        if not modules:
            return None
        line = position[0]
        for name, first, count in modules:
            if first <= line < first + count:
                included = _included(sources.get(name, ""), line - first + 1, mod_root)
                if included is not None:
                    return f"{included[0]}:{included[1]}"
                return f"{module_file(name, mod_root, root)}:{line - first + 1}"
        return None

    return locate_error
