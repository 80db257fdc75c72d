"""A folder of ``<Name>.<guid>.lua|.xml`` files as a modder's project: what ``ttsmod push DIR`` sends and what
``ttsmod pull DIR`` writes.

* **push** reads the object files (:func:`bridge.luaproject.editor.read_script_files`) and bundles every script that
  ``require``\\ s a module (luabundle format) with the folder's search path; a script that is already a bundle,
  or requires nothing, is sent as it is.
* **pull** writes each object's script; a bundled script is split (:func:`bridge.luaproject.bundle.unbundle`): the root
  module becomes ``<Name>.<guid>.lua`` and every other module goes back to the file ``require`` finds it in
  (``lib.util`` → ``lib/util.lua`` under the search path), so pull → push → pull gives the same files.
* Lua ``#include`` (the Atom plugin's): push expands each line between ``----#include`` markers from the same
  search path and pull folds each marked block back into its line, writing the text to its file
  (:mod:`bridge.luaproject.luainclude`).
* XML UI: push expands ``<Include src="…"/>`` from files on the same search path and pull folds the plugins'
  ``<!-- include … -->`` blocks back into the tag, writing each included text to its file
  (:mod:`bridge.luaproject.xmlinclude`).

The search path of a folder is, in order: the ``--lua-path`` folders given; else the ``[lua] path`` of the
nearest ``ttsmod.toml`` (in the folder or above it); else the folder itself (:mod:`bridge.luaproject.project`).
Module names and include paths come from the game, which may be anyone's save: each is checked before the
first file is written, and no file is written outside the search folders. Pull writes only names it makes
itself: ``<Name>.<guid>.lua|.xml`` in the folder, a module's ``.lua`` file (or the ``.ttslua``/``init.lua`` that
``require`` finds), an included text to a file ending ``.xml``; never ``ttsmod.toml``, never another file of
yours. Every file read or written follows the one link rule of :func:`bridge.safenames.inside_tree`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from bridge.errors import InputError, TtsmodError
from bridge.protocol import GLOBAL_GUID, ScriptState
from bridge.luaproject.xmlinclude import INCLUDE_TAG, MARKER, fold
from bridge.safenames import is_inside_tree

Warn = Callable[[str], None]


def folder_search_roots(folder: str | os.PathLike, lua_path: Sequence[str | os.PathLike] = (), *,
                        must_exist: bool = True) -> list[Path]:
    """Where ``require`` looks for the scripts of ``folder`` (see the module docstring). With ``must_exist``
    every folder must exist (:class:`InputError` otherwise); the folder itself may be missing when pulling."""
    from bridge.luaproject.project import find_project_file, project_lua_path

    folder = Path(folder)
    if lua_path:
        roots = [Path(p) for p in lua_path]
    else:
        project = find_project_file(folder.absolute())
        roots = project_lua_path(project) if project else [folder]
    for root in roots:
        if not root.is_dir() and (must_exist or root != folder):
            raise InputError(f"{root}: no such folder (a Lua search folder)")
    return roots


# --------------------------------------------------------------------------------------------------- push


def _script_file(folder: Path, guid: str) -> Path:
    from bridge.luaproject.editor import SCRIPT_SUFFIXES

    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix.lower() in SCRIPT_SUFFIXES and path.stem.rsplit(".", 1)[-1] == guid \
                and "." in path.stem:
            return path
    raise InputError(f"{folder.name}: no script file for the object {guid}")


def bundled_script(path: Path, script: str, roots: Sequence[Path]) -> str:
    """``script`` (the text of ``path``) as TTS should get it: its ``#include`` lines expanded
    (:mod:`bridge.luaproject.luainclude`) and bundled with its modules when it ``require``\\ s any, else unchanged.
    Raises :class:`bridge.luaproject.bundle.BundleError` or :class:`bridge.luaproject.luainclude.LuaIncludeError`
    (file:line, exit 2)."""
    from bridge.luaproject.bundle import BundleError, LuaSyntaxError, bundle, find_requires, is_bundle
    from bridge.luaproject.luainclude import expand_file_text, has_directives

    if is_bundle(script):
        return script
    if has_directives(script):
        script = expand_file_text(script, path, roots)
    try:
        requires = find_requires(script)
    except LuaSyntaxError as exc:
        raise BundleError(str(path), exc.line, exc.message) from None
    if not requires:
        return script
    return bundle(path, roots).text


def push_states(folder: str | os.PathLike, lua_path: Sequence[str | os.PathLike] = ()) -> list[ScriptState]:
    """The script states of a pulled folder, ready for Save & Play: scripts that require modules bundled."""
    from bridge.luaproject.editor import read_script_files

    folder = Path(folder)
    return ready_states(read_script_files(folder), lambda guid: _script_file(folder, guid), folder, lua_path)


def ready_states(states: Iterable[ScriptState], script_file: Callable[[str], Path], folder: Path,
                 lua_path: Sequence[str | os.PathLike] = ()) -> list[ScriptState]:
    """``states`` as Save & Play should get them: each script that ``require``\\ s modules bundled with them
    (``script_file(guid)`` is the file it was read from, which the bundle's root and its errors name) and
    ``<Include src="…"/>`` in each UI expanded, from the search path of ``folder`` (see the module docstring).
    Raises :class:`bridge.luaproject.bundle.BundleError` or :class:`bridge.luaproject.xmlinclude.IncludeError`
    (exit 2)."""
    from bridge.luaproject.luainclude import has_directives

    roots: list[Path] | None = None
    out: list[ScriptState] = []
    for state in states:
        script, ui = state.script, state.ui
        if script:
            path = script_file(state.guid)
            if roots is None and (_requires_anything(script) or has_directives(script)):
                roots = folder_search_roots(folder, lua_path)
            script = bundled_script(path, script, roots or [folder])
        if ui and INCLUDE_TAG.search(ui):
            if roots is None:
                roots = folder_search_roots(folder, lua_path)
            ui = expand_includes(ui, roots, f"{_label(state)}'s UI")
        out.append(ScriptState(state.name, state.guid, script, ui))
    return out


def include_reader(roots: Sequence[Path]) -> Callable[[str], str]:
    """``read(src)`` for :func:`bridge.luaproject.xmlinclude.expand`: the text of the first ``<root>/<src>`` that is a
    file; :class:`bridge.luaproject.xmlinclude.IncludeError` when none is."""
    from bridge.luaproject.xmlinclude import IncludeError, check_src

    def read(src: str) -> str:
        parts = check_src(src)
        for root in roots:
            path = root.joinpath(*parts)
            if path.is_file():
                if not is_inside_tree(root, path):
                    raise IncludeError(f'<Include src="{src}">: {path}: a symbolic link that leads outside '
                                       f"{root}; refusing to read it")
                try:
                    return path.read_bytes().decode("utf-8-sig")
                except OSError as exc:
                    raise IncludeError(f"{path}: cannot read ({exc.strerror or exc})") from None
                except UnicodeDecodeError:
                    raise IncludeError(f"{path}: not UTF-8 text") from None
        searched = ", ".join(str(r) for r in roots)
        raise IncludeError(f'<Include src="{src}">: no such file (searched: {searched})')

    return read


def expand_includes(xml: str, roots: Sequence[Path], where: str) -> str:
    """``xml`` with its ``<Include src="…"/>`` tags expanded from files under ``roots``; an error names
    ``where``."""
    from bridge.luaproject.xmlinclude import IncludeError, expand

    try:
        return expand(xml, include_reader(roots))
    except IncludeError as exc:
        raise IncludeError(f"{where}: {exc}") from None


def _requires_anything(script: str) -> bool:
    from bridge.luaproject.bundle import LuaSyntaxError, find_requires, is_bundle

    if is_bundle(script):
        return False
    try:
        return bool(find_requires(script))
    except LuaSyntaxError:
        return True  # bundled_script reports it, with the file and line


# --------------------------------------------------------------------------------------------------- pull


@dataclass
class PullReport:
    """What a pull wrote: ``scripts`` the object files, ``modules`` module name → file (one entry per module,
    whichever objects carried it), ``includes`` XML include path → file."""

    folder: Path
    objects: int
    scripts: list[Path] = field(default_factory=list)
    modules: dict[str, Path] = field(default_factory=dict)
    includes: dict[str, Path] = field(default_factory=dict)

    @property
    def files(self) -> int:
        return len(self.scripts) + len(self.modules) + len(self.includes)

    def to_json(self) -> dict:
        return {"dir": str(self.folder.absolute()), "objects": self.objects,
                "scripts": [str(p.absolute()) for p in self.scripts],
                "modules": {name: str(p.absolute()) for name, p in sorted(self.modules.items())},
                "includes": {src: str(p.absolute()) for src, p in sorted(self.includes.items())}}


def module_target(name: str, roots: Sequence[Path]) -> Path:
    """The file module ``name`` is written to: the file ``require`` finds now (under a search folder), else
    ``<first folder>/<a>/<b>.lua``. :class:`InputError` for a name that is not a plain module name, or a path
    that leads outside its search folder (a symbolic link)."""
    from bridge.luaproject.bundle import ROOT_MODULE, _resolve
    from bridge.luaproject.project import module_file

    relative = "__root.lua" if name == ROOT_MODULE else module_file(name, "")
    found = _resolve(name, roots)
    target = found if found is not None else roots[0].joinpath(*relative.split("/"))
    base = next((r for r in roots if _is_within(target, r)), roots[0])
    if not is_inside_tree(base, target):
        raise InputError(f'module "{name}": {target}: a symbolic link that leads outside {base}; refusing to '
                         "write it")
    return target


def _is_within(path: Path, root: Path) -> bool:
    """Whether ``path`` is spelled under ``root`` (no link followed: which search folder it belongs to)."""
    path, root = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    return path == root or root in path.parents


def split_bundle(state: ScriptState, warn: Warn | None) -> tuple[str, dict[str, str]]:
    """``(root source, {module name: source})`` of a bundled script; a script that is not a bundle, or a bundle
    that cannot be read, is ``(script, {})`` (the latter with a warning)."""
    from bridge.luaproject.bundle import ROOT_MODULE, bundle_metadata, is_bundle, unbundle

    script = state.script or ""
    if not is_bundle(script):
        return script, {}
    try:
        root_name = str(bundle_metadata(script).get("rootModuleName") or ROOT_MODULE)
        modules = unbundle(script)
    except ValueError as exc:
        if warn:
            warn(f"kept the script of {_label(state)} bundled: {exc}")
        return script, {}
    if root_name not in modules:
        if warn:
            warn(f'kept the script of {_label(state)} bundled: it has no root module "{root_name[:60]}"')
        return script, {}
    root = modules.pop(root_name)
    return root, modules


def _label(state: ScriptState) -> str:
    return "Global" if state.guid == GLOBAL_GUID else f"{state.name[:60]!r} ({state.guid[:64]!r})"


def pull_into(folder: str | os.PathLike, states: Iterable[ScriptState], *,
              lua_path: Sequence[str | os.PathLike] = (), unbundle: bool = True,
              warn: Warn | None = None) -> PullReport:
    """Write ``states`` (as TTS reported them) into ``folder``: each object's script and UI as
    :func:`bridge.luaproject.editor.write_script_files` does, bundled scripts split into their module files (unless
    ``unbundle`` is false), included XML folded back into ``<Include>`` tags and its files. Every module name,
    include path and target is checked before the first file is written; one that cannot be written leaves that
    object's script bundled (or its UI expanded) with a warning.

    Two objects that carry different copies of one module: the first (Global first, then as TTS listed them)
    is written and a warning names the other.
    """
    from bridge.luaproject.editor import write_script_files
    from bridge.fsio import atomic_write_text

    folder = Path(folder)
    states = list(states)
    states.sort(key=lambda s: s.guid != GLOBAL_GUID)
    out_states: list[ScriptState] = []
    modules: dict[str, tuple[str, ScriptState]] = {}
    planned: dict[str, Path] = {}
    taken: dict[str, str] = {}
    roots: list[Path] | None = None
    for state in states:
        script, found = split_bundle(state, warn) if unbundle else (state.script, {})
        if found and roots is None:
            roots = folder_search_roots(folder, lua_path, must_exist=False)
        try:
            targets = {name: module_target(name, roots) for name in found if name not in modules}
        except InputError as exc:
            if warn:
                warn(f"kept the script of {_label(state)} bundled: {exc}")
            script, found, targets = state.script, {}, {}
        for name, target in targets.items():
            key = str(Path(os.path.abspath(target))).casefold()
            if key in taken:
                raise InputError(f'modules "{taken[key]}" and "{name}" would both be {target}')
            taken[key] = name
            planned[name] = target
        for name, source in found.items():
            if name not in modules:
                modules[name] = (source, state)
            elif modules[name][0] != source and warn:
                warn(f'module "{name[:80]}": {_label(state)} has a different copy; wrote the one of '
                     f"{_label(modules[name][1])}")
        out_states.append(ScriptState(state.name, state.guid, script, state.ui))
    lua_includes = _fold_lua_includes(out_states, modules, taken, folder, lua_path, roots, warn) \
        if unbundle else None
    if lua_includes is not None:
        out_states, modules, roots = lua_includes.states, lua_includes.modules, lua_includes.roots
    includes: dict[str, tuple[str, ScriptState]] = {}
    include_paths: dict[str, Path] = {}
    for index, state in enumerate(out_states):
        if not state.ui or not MARKER.search(state.ui):
            continue
        if roots is None:
            roots = folder_search_roots(folder, lua_path, must_exist=False)
        try:
            folded = fold(state.ui)
        except InputError as exc:
            if warn:
                warn(f"left the includes of {_label(state)}'s UI expanded: {exc}")
            continue
        for src in folded.refused:
            if warn:
                warn(f"left <!-- include {src[:80]} --> of {_label(state)}'s UI expanded: not a plain relative path")
        try:
            targets = {src: include_target(src, roots, folder) for src in folded.files if src not in includes}
            for src, target in targets.items():
                if str(Path(os.path.abspath(target))).casefold() in taken:
                    raise InputError(f"{target} is also a module file")
        except InputError as exc:
            if warn:
                warn(f"left the includes of {_label(state)}'s UI expanded: {exc}")
            continue
        for src, target in targets.items():
            include_paths[src] = target
        for src, content in folded.files.items():
            if src not in includes:
                includes[src] = (content, state)
            elif includes[src][0] != content and warn:
                warn(f"include {src[:80]}: {_label(state)}'s UI has a different copy; wrote the one of "
                     f"{_label(includes[src][1])}")
        for src in folded.conflicts:
            if warn:
                warn(f"include {src[:80]}: {_label(state)}'s UI has two different copies; wrote the first")
        out_states[index] = ScriptState(state.name, state.guid, state.script, folded.text)
    report = PullReport(folder, len(states))
    report.scripts = write_script_files(folder, out_states, warn=warn)
    extra = [("module", name, target, modules[name][0]) for name, target in planned.items()]
    extra += [("include", src, target, includes[src][0]) for src, target in include_paths.items()]
    if lua_includes is not None:
        extra += [("include", src, target, text) for src, (target, text) in lua_includes.files.items()]
    for kind, name, target, text in extra:
        try:
            atomic_write_text(target, text)
        except OSError as exc:
            written = len(report.modules) + len(report.includes)
            raise TtsmodError(f"cannot write {target}: {exc.strerror or exc} "
                              f"({written} of {len(extra)} module and include file(s) written)") from None
        (report.modules if kind == "module" else report.includes)[name] = target
    return report


@dataclass
class _LuaIncludes:
    states: list[ScriptState]
    modules: dict[str, tuple[str, ScriptState]]
    roots: list[Path]
    files: dict[str, tuple[Path, str]]


def _fold_lua_includes(states: list[ScriptState], modules: dict[str, tuple[str, ScriptState]],
                       taken: dict[str, str], folder: Path,
                       lua_path: Sequence[str | os.PathLike], roots: list[Path] | None,
                       warn: Warn | None) -> _LuaIncludes | None:
    """The scripts and modules of a pull with their ``----#include`` blocks folded back into ``#include`` lines,
    and each included text's file (:mod:`bridge.luaproject.luainclude`; key: its path under its search folder);
    None when no script has such a block. A script or module whose blocks cannot be folded (markers without
    twins, nested too deep, a file that cannot be written) is kept expanded, with a warning."""
    from bridge.luaproject.editor import SCRIPT_SUFFIXES, UI_SUFFIX
    from bridge.luaproject.luainclude import fold as fold_lua, has_markers, include_target as lua_target

    texts = [(index, None, state.script or "", _label(state)) for index, state in enumerate(states)]
    texts += [(None, name, source, f'module "{name[:80]}"') for name, (source, _) in modules.items()]
    if not any(has_markers(text) for _, _, text, _ in texts):
        return None
    roots = roots if roots is not None else folder_search_roots(folder, lua_path, must_exist=False)
    states, modules = list(states), dict(modules)
    files: dict[str, tuple[Path, str]] = {}
    owner: dict[str, str] = {}
    for index, name, text, label in texts:
        if not has_markers(text):
            continue
        try:
            folded = fold_lua(text)
            if folded.unbalanced:
                raise InputError("its ----#include markers do not pair up")
            targets = {chain: lua_target(chain, roots) for chain in folded.files}
            for chain, target in targets.items():
                key = str(Path(os.path.abspath(target))).casefold()
                if key in taken:
                    raise InputError(f"{target} is also a module file")
                if Path(os.path.abspath(target.parent)) == Path(os.path.abspath(folder)) and "." in target.stem \
                        and target.suffix.lower() in (*SCRIPT_SUFFIXES, UI_SUFFIX):
                    raise InputError(f"#include {chain[-1][:80]} would be read as an object's file "
                                     f"<Name>.<guid>{target.suffix}")
        except InputError as exc:
            if warn:
                warn(f"left the #include blocks of {label} expanded: {exc}")
            continue
        for spec in folded.refused:
            if warn:
                warn(f"left ----#include {spec[:80]} of {label} expanded: not a plain relative path")
        for chain, target in targets.items():
            relative = _relative_to_roots(target, roots)
            content = folded.files[chain]
            if relative not in files:
                files[relative] = (target, content)
                owner[relative] = label
            elif files[relative][1] != content and warn:
                warn(f"#include {relative[:80]}: {label} has a different copy; wrote the one of {owner[relative]}")
        if index is not None:
            state = states[index]
            states[index] = ScriptState(state.name, state.guid, folded.text, state.ui)
        else:
            modules[name] = (folded.text, modules[name][1])
    return _LuaIncludes(states, modules, roots, files)


def _relative_to_roots(path: Path, roots: Sequence[Path]) -> str:
    spelled = Path(os.path.abspath(path))
    for root in roots:
        base = Path(os.path.abspath(root))
        if base in spelled.parents:
            return spelled.relative_to(base).as_posix()
    return spelled.as_posix()


def include_target(src: str, roots: Sequence[Path], folder: Path) -> Path:
    """The file an included XML text is written to: the one ``<Include src>`` reads now (under a search
    folder), else ``<first folder>/<src>``; always a ``.xml`` file (:func:`bridge.luaproject.xmlinclude.check_src`
    adds ``.xml`` to a ``src`` without it: never ``ttsmod.toml``, never your ``main.lua``). :class:`InputError`
    when ``src`` is not a plain relative path, leads outside its folder (a symbolic link), or would be read as an
    object's file of ``folder``."""
    from bridge.luaproject.editor import SCRIPT_SUFFIXES, UI_SUFFIX
    from bridge.luaproject.xmlinclude import check_src

    parts = check_src(src)
    target = next((r.joinpath(*parts) for r in roots if r.joinpath(*parts).is_file()), roots[0].joinpath(*parts))
    base = next((r for r in roots if _is_within(target, r)), roots[0])
    if not is_inside_tree(base, target):
        raise InputError(f"{target}: a symbolic link that leads outside {base}; refusing to write it")
    if Path(os.path.abspath(target.parent)) == Path(os.path.abspath(folder)) and "." in target.stem \
            and target.suffix.lower() in (*SCRIPT_SUFFIXES, UI_SUFFIX):
        raise InputError(f"{src} would be read as an object's file <Name>.<guid>{target.suffix}")
    return target
