"""``ttsmod bundle`` and ``ttsmod unbundle``: Lua modules ⇄ one luabundle-format script, with the ``require``
search path of a modder's project.

The search path is, in order: every ``--lua-path`` folder given; else the ``[lua] path`` list of the nearest
``ttsmod.toml`` (in the root script's folder or a folder above it; its paths are relative to the file); else the
root script's own folder. ``require("lib.util")`` then finds ``<folder>/lib/util.lua`` (or ``.ttslua``, or
``lib/util/init.lua``) as the build does (:mod:`bridge.luaproject.bundle`).

A ``[lua] path`` folder must lie inside the folder of its ``ttsmod.toml`` (symbolic links followed): ``push`` reads
and ``pull`` writes files there, and a ``ttsmod.toml`` may come with a tree from anyone (an archive, a pull
request) or, before ttsmod refused it, have been written by ``pull`` from a game's UI; nothing in the file can
show that you wrote it. A folder outside the project is used only when you name it on the command line
(``--lua-path``), each time.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from bridge.errors import InputError
from bridge.fsio import atomic_write_text
from bridge.luaproject.bundle import ROOT_MODULE, bundle, is_bundle, unbundle
from bridge.safenames import inside_tree, is_inside_tree, safe_component

PROJECT_FILE = "ttsmod.toml"
_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*$")


def find_project_file(start: Path) -> Path | None:
    """The nearest ``ttsmod.toml`` in ``start`` or a folder above it."""
    for folder in [start, *start.parents]:
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def project_lua_path(project: Path) -> list[Path]:
    """The ``[lua] path`` folders of a ``ttsmod.toml``, relative to its folder; :class:`InputError` when the
    file is not TOML or the list is not a list of strings."""
    try:
        data = tomllib.loads(project.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{project}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{project}: not valid TOML ({exc})") from None
    lua = data.get("lua", {})
    paths = lua.get("path", []) if isinstance(lua, dict) else None
    if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
        raise InputError(f'{project}: [lua] path must be a list of folders, like path = ["src", "lib"]')
    for path in paths:
        if not is_inside_tree(project.parent, project.parent / path):
            raise InputError(f'{project}: [lua] path "{path[:120]}" leads outside {project.parent}; a search folder '
                             "of ttsmod.toml must be inside the project (give one outside it with --lua-path)")
    return [project.parent / p for p in paths]


def search_roots(root_script: Path, lua_path: Sequence[str | os.PathLike] = ()) -> list[Path]:
    """Where ``require`` looks when ``root_script`` is bundled (see the module docstring)."""
    if lua_path:
        roots = [Path(p) for p in lua_path]
    else:
        project = find_project_file(root_script.absolute().parent)
        roots = project_lua_path(project) if project else [root_script.parent]
    for root in roots:
        if not root.is_dir():
            raise InputError(f"{root}: no such folder (a Lua search folder)")
    return roots


@dataclass(frozen=True)
class BundleReport:
    root: Path
    out: Path | None
    modules: tuple[str, ...]
    search: tuple[Path, ...]

    def to_json(self) -> dict[str, Any]:
        return {"root": str(self.root.absolute()), "out": str(self.out.absolute()) if self.out else None,
                "modules": list(self.modules), "search": [str(p.absolute()) for p in self.search]}


def bundle_script(root_script: str | os.PathLike, out: str | os.PathLike | None,
                  lua_path: Sequence[str | os.PathLike] = ()) -> tuple[BundleReport, str]:
    """Bundle ``root_script`` with every module it requires; write it to ``out`` (None: not written).
    Raises :class:`bridge.luaproject.bundle.BundleError` (file:line) or :class:`InputError` (exit 2)."""
    root = Path(root_script)
    roots = search_roots(root, lua_path)
    result = bundle(root, roots)
    if out is not None:
        atomic_write_text(out, result.text)
    names = tuple(m.name for m in result.modules if m.name != ROOT_MODULE)
    return BundleReport(root, Path(out) if out is not None else None, names, tuple(roots)), result.text


def module_file(name: str, root_name: str) -> str:
    """The relative file a module is written to: ``lib.util`` → ``lib/util.lua``; the root → ``root_name``.
    :class:`InputError` for a name that is not a plain module name (no ``..``, no separators other than the
    dots or slashes between plain parts, no device names)."""
    if name == ROOT_MODULE:
        return root_name
    segments = re.split(r"[./]", name)
    for segment in segments:
        if not _SEGMENT.match(segment) or safe_component(segment) != segment:
            raise InputError(f'module "{name[:80]}": not a plain module name; refusing to write it as a file')
    return "/".join(segments) + ".lua"


def unbundle_script(bundle_file: str | os.PathLike, folder: str | os.PathLike,
                    root_name: str | None = None) -> dict[str, Path]:
    """Write each module of the bundle in ``bundle_file`` to ``folder`` (module name → file written).

    The root module goes to ``root_name`` (default: the bundle's file name, ``.lua``); ``lib.util`` to
    ``lib/util.lua``. Every name is checked before the first file is written."""
    source = Path(bundle_file)
    try:
        text = source.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise InputError(f"{source}: not UTF-8 text") from None
    from bridge.luaproject.luainclude import fold as fold_includes, has_markers, include_target

    if is_bundle(text):
        try:
            modules = unbundle(text)
        except ValueError as exc:
            raise InputError(f"{source}: {exc}") from None
    elif has_markers(text):
        modules = {ROOT_MODULE: text.replace("\r\n", "\n")}   # a script with #include blocks and no bundle
    else:
        raise InputError(f"{source}: not a luabundle bundle (no '-- Bundled by luabundle' first line) and no "
                         "----#include blocks")
    root_name = root_name or (Path(source.name).stem + ".lua")
    if module_file(ROOT_MODULE, root_name) != safe_component(root_name):
        raise InputError(f"{root_name!r}: not a plain file name for the root module")
    planned: dict[str, Path] = {}
    taken: dict[str, str] = {}
    for name in modules:
        relative = module_file(name, root_name)
        key = relative.casefold()
        if key in taken:
            raise InputError(f'modules "{taken[key]}" and "{name}" would both be {relative}')
        taken[key] = name
        planned[name] = inside_tree(folder, Path(folder).joinpath(*relative.split("/")), action="write")
    included: dict[str, tuple[Path, str]] = {}
    for name in list(modules):
        if not has_markers(modules[name]):
            continue
        folded = fold_includes(modules[name])
        if folded.unbalanced:
            raise InputError(f'{source}: module "{name[:80]}": its ----#include markers do not pair up')
        if folded.refused:
            raise InputError(f'{source}: module "{name[:80]}": ----#include {folded.refused[0][:80]} is not a plain '
                             "relative path; refusing to write it")
        for chain, content in folded.files.items():
            target = include_target(chain, [Path(folder)])
            key = str(Path(os.path.abspath(target))).casefold()
            if key in {str(Path(os.path.abspath(p))).casefold() for p in planned.values()}:
                raise InputError(f"{source}: #include {chain[-1][:80]} would be written over the module file {target}")
            if key in included and included[key][1] != content:
                raise InputError(f"{source}: two different texts are included as {target}")
            included[key] = (target, content)
        modules[name] = folded.text
    for name, path in planned.items():
        try:
            atomic_write_text(path, modules[name])
        except OSError as exc:
            raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    for target, content in included.values():
        try:
            atomic_write_text(target, content)
        except OSError as exc:
            raise InputError(f"{target}: cannot write ({exc.strerror or exc})") from None
    return planned
