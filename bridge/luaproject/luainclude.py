"""Lua ``#include`` the way the Atom editor plugin writes it (the ``require`` of the days before luabundle).

A line ``#include name`` in a script stands for the text of the file ``name`` names. TTS has no such thing, so an
editor expands it before it sends the script and folds it back when it reads the script from TTS. The expanded
form keeps the directive in a comment line (``----`` and the directive) on each side of the included text
(tts-facts §1.9)::

    #include lib/dice                →     ----#include lib/dice
    #include <lib/deck>                    <the text of lib/dice.lua>
                                            ----#include lib/dice
                                            ----#include <lib/deck>
                                            do
                                            <the text of lib/deck.lua>
                                            end
                                            ----#include <lib/deck>

``#include <name>`` also wraps the text in ``do`` … ``end``, so its ``local`` names stay inside it. The marker is
``----`` followed by the directive line exactly as it was written (its indentation kept), so :func:`fold` gives
back the very line :func:`expand` replaced; markers written by the plugin read the same. A directive is a line
whose first non-blank characters are ``#include`` (a Lua chunk cannot hold such a line anywhere but inside a long
string or comment, where the plugins expand it too).

Names (:func:`parse_name`): a relative path of plain parts separated by ``/`` (no ``..``, no backslash, no
absolute path, no ``~/``, no device names). ``.lua`` or ``.ttslua`` may be given; without either, ``name.lua``
then ``name.ttslua`` is looked for. A name is looked up, as the plugin does, first beside the file that holds
the directive (for an include inside an included file), then under each search folder (the folders ``require``
searches, :mod:`bridge.luaproject.project`); ``!/name`` skips the first step (the plugin's "configured folder").
A file is read only inside the folder it was found under (a link that leads out is refused).

A file that includes itself (directly or not), a chain deeper than
:data:`~bridge.luaproject.limits.MAX_INCLUDE_DEPTH` or a script expanded beyond
:data:`~bridge.luaproject.limits.MAX_EXPANDED_LUA_CHARS` is a :class:`LuaIncludeError` naming the file and the line
of the directive (exit 2), as is a name that is not plain or a file found nowhere. The same file included twice
(not a cycle) is expanded twice: the plugin blanks the second line, which a round trip could not give back.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from bridge.luaproject.limits import MAX_EXPANDED_LUA_CHARS, MAX_INCLUDE_DEPTH
from bridge.luaproject.xmlinclude import IncludeError
from bridge.safenames import is_inside_tree, safe_component

KEYWORD = "#include"
MARKER_PREFIX = "----"
EXTENSIONS = (".lua", ".ttslua")

DIRECTIVE = re.compile(r"^([ \t]*#include[ \t]+(\S(?:.*\S)?))[ \t\r]*$")
"""A directive line: group 1 the directive as written (without trailing blanks), group 2 the name."""
MARKER = re.compile(r"^----([ \t]*#include[ \t]+(\S(?:.*\S)?))[ \t\r]*$")


class LuaIncludeError(IncludeError):
    """An ``#include`` that cannot be expanded: ``str(error)`` reads ``file:line: #include name: why`` (exit 2)."""

    def __init__(self, file: str, line: int | None, message: str) -> None:
        self.file = file
        self.line = line
        self.message = message
        super().__init__(f"{file}:{line}: {message}" if line else f"{file}: {message}")


@dataclass(frozen=True)
class IncludeName:
    """A parsed ``#include`` name: ``spec`` as written, the path ``parts``, whether the text is wrapped in
    ``do … end`` (``<name>``) and whether it is looked up under the search folders only (``!/name``)."""

    spec: str
    parts: tuple[str, ...]
    enclosed: bool
    from_root: bool

    def candidates(self) -> list[tuple[str, ...]]:
        """The relative paths looked for, in order: the name itself when it ends in ``.lua``/``.ttslua``, else
        ``name.lua`` then ``name.ttslua``."""
        if self.parts[-1].lower().endswith(EXTENSIONS):
            return [self.parts]
        return [(*self.parts[:-1], self.parts[-1] + ext) for ext in EXTENSIONS]

    @property
    def new_file(self) -> tuple[str, ...]:
        """The relative path a pulled text is written to when no file has the name yet."""
        return self.candidates()[0]


def has_directives(text: str) -> bool:
    """Whether ``text`` has an ``#include`` line (cheap: most scripts do not spell ``#include`` at all)."""
    return KEYWORD in text and any(DIRECTIVE.match(line) for line in text.split("\n") if KEYWORD in line)


def has_markers(text: str) -> bool:
    """Whether ``text`` has an ``----#include`` marker line."""
    return KEYWORD in text and MARKER_PREFIX in text and any(
        MARKER.match(line) for line in text.split("\n") if line.startswith(MARKER_PREFIX))


def parse_name(spec: str) -> IncludeName:
    """The :class:`IncludeName` of ``spec`` (what follows ``#include``); :class:`ValueError` (one sentence) when it
    is not a plain relative path."""
    name = spec
    enclosed = name.startswith("<") and name.endswith(">") and len(name) > 2
    if enclosed:
        name = name[1:-1].strip()
    from_root = name.startswith("!/")
    if from_root:
        name = name[2:]
    parts = name.split("/")
    if not name or name.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", name) or any(
            not part or part in (".", "..") or "\\" in part or safe_component(part) != part for part in parts):
        raise ValueError(f"#include {spec[:120]}: not a plain relative path (parts separated by /, no .., no "
                         "backslash, not absolute, no ~/)")
    return IncludeName(spec, tuple(parts), enclosed, from_root)


# ------------------------------------------------------------------------------------------------------ expand

Reader = Callable[[IncludeName, "str | None"], "tuple[str, str]"]
"""``read(name, parent) -> (file, text)``: the file ``name`` names, looked up from ``parent`` (the file holding
the directive, as ``read`` returned it; None for the script itself), and its text. :class:`ValueError` (one
sentence) when there is none."""


def expand(text: str, where: str, read: Reader) -> str:
    """``text`` (the script ``where``) with every ``#include`` line replaced by the text ``read`` gives (one
    trailing newline dropped, CRLF read as LF, nested includes expanded) between two marker lines.
    :class:`LuaIncludeError` naming the file and line for a bad name, a missing file, a cycle, a chain deeper
    than ``MAX_INCLUDE_DEPTH`` or a result longer than ``MAX_EXPANDED_LUA_CHARS``."""
    if KEYWORD not in text:
        return text
    size = [0]
    return _expand(text, where, None, read, (_key(where),), (where,), size)


def _key(file: str) -> str:
    return os.path.normcase(os.path.abspath(file))


def _expand(text: str, where: str, parent: str | None, read: Reader, chain: tuple[str, ...],
            shown: tuple[str, ...], size: list[int]) -> str:
    if KEYWORD not in text:
        size[0] += len(text)
        _check_size(size, where, None)
        return text
    out: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        match = DIRECTIVE.match(line) if KEYWORD in line else None
        if match is None:
            out.append(line)
            size[0] += len(line) + 1
            continue
        directive, spec = match.group(1), match.group(2)
        try:
            name = parse_name(spec)
            file, content = read(name, parent)
        except ValueError as exc:
            raise LuaIncludeError(where, number, str(exc)) from None
        key = _key(file)
        if key in chain:
            loop = " → ".join((*shown[chain.index(key):], file))
            raise LuaIncludeError(where, number, f"#include {spec}: {file} includes itself ({loop})")
        if len(chain) > MAX_INCLUDE_DEPTH:
            raise LuaIncludeError(where, number, f"#include {spec}: includes nested more than {MAX_INCLUDE_DEPTH} "
                                                 f"deep (from {shown[0]})")
        content = content.replace("\r\n", "\n").lstrip("\ufeff")
        if content.endswith("\n"):
            content = content[:-1]
        marker = MARKER_PREFIX + directive
        size[0] += 2 * len(marker)
        inner = _expand(content, file, file, read, (*chain, key), (*shown, file), size)
        out.append(f"{marker}\ndo\n{inner}\nend\n{marker}" if name.enclosed else f"{marker}\n{inner}\n{marker}")
        _check_size(size, where, number)
    return "\n".join(out)


def _check_size(size: list[int], where: str, line: int | None) -> None:
    if size[0] > MAX_EXPANDED_LUA_CHARS:
        raise LuaIncludeError(where, line, f"the script expanded would be longer than {MAX_EXPANDED_LUA_CHARS:,} "
                                           "characters (an include bomb?)")


def file_reader(roots: Sequence[Path]) -> Reader:
    """``read`` for :func:`expand` from files: beside ``parent`` first (unless the name starts ``!/``), then under
    each of ``roots``; a link that leads out of the folder a file was found under is refused."""
    def read(name: IncludeName, parent: str | None) -> tuple[str, str]:
        folders = ([Path(parent).parent] if parent is not None and not name.from_root else []) + list(roots)
        for folder in folders:
            for relative in name.candidates():
                path = folder.joinpath(*relative)
                if not path.is_file():
                    continue
                if not is_inside_tree(folder, path):
                    raise ValueError(f"#include {name.spec}: {path}: a symbolic link that leads outside {folder}; "
                                     "refusing to read it")
                try:
                    return str(path), path.read_bytes().decode("utf-8-sig")
                except OSError as exc:
                    raise ValueError(f"#include {name.spec}: {path}: cannot read ({exc.strerror or exc})") from None
                except UnicodeDecodeError:
                    raise ValueError(f"#include {name.spec}: {path}: not UTF-8 text") from None
        searched = ", ".join(str(f) for f in folders) or "no search folders"
        raise ValueError(f"#include {name.spec}: no such file (searched: {searched})")

    return read


def expand_file_text(text: str, path: str | os.PathLike, roots: Sequence[Path]) -> str:
    """:func:`expand` of ``text``, the script at ``path``, from files under ``roots``."""
    return expand(text, str(path), file_reader(roots))


# ------------------------------------------------------------------------------------------------------ fold


@dataclass
class Folded:
    """What :func:`fold` found: the text with ``#include`` lines again, and each included text (with a trailing
    newline, as it is kept in a file) by its chain of names (outer first: a nested include is looked up beside
    the file of the one around it); ``conflicts`` the chains included twice with different texts (the first is
    kept); ``refused`` the names left expanded (not plain relative paths); ``unbalanced`` when markers lack
    their twins (then the text is left as it was)."""

    text: str
    files: dict[tuple[str, ...], str] = field(default_factory=dict)
    conflicts: list[tuple[str, ...]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    unbalanced: bool = False


@dataclass
class _Block:
    spec: str
    directive: str
    opening: str
    chain: tuple[str, ...]
    refused: bool
    lines: list[str] = field(default_factory=list)


def fold(text: str) -> Folded:
    """The reverse of :func:`expand`: each marked block back to its ``#include`` line. A block whose name is not
    plain (:func:`parse_name`) is left expanded, with every block inside it, and listed in ``refused``; text
    whose markers do not pair up is left as it is (``unbalanced``). Blocks nested more than ``MAX_INCLUDE_DEPTH``
    deep are an :class:`IncludeError` (``expand`` would not have written them)."""
    result = Folded(text)
    if not has_markers(text):
        return result
    out: list[str] = []
    stack: list[_Block] = []
    for line in text.split("\n"):
        match = MARKER.match(line) if line.startswith(MARKER_PREFIX) else None
        if match is None:
            (stack[-1].lines if stack else out).append(line)
            continue
        directive, spec = match.group(1), match.group(2)
        if stack and spec == stack[-1].spec:
            block = stack.pop()
            target = stack[-1].lines if stack else out
            if block.refused or (stack and stack[-1].refused):
                target.extend([block.opening, *block.lines, line])
                continue
            body = block.lines
            if parse_name(spec).enclosed and len(body) >= 2 and body[0].strip() == "do" and body[-1].strip() == "end":
                body = body[1:-1]
            content = "\n".join(body) + "\n"
            if block.chain not in result.files:
                result.files[block.chain] = content
            elif result.files[block.chain] != content and block.chain not in result.conflicts:
                result.conflicts.append(block.chain)
            target.append(block.directive)
            continue
        if len(stack) >= MAX_INCLUDE_DEPTH:
            raise IncludeError(f"----#include {spec[:120]}: include markers nested more than {MAX_INCLUDE_DEPTH} deep")
        try:
            parse_name(spec)
            refused = bool(stack and stack[-1].refused)
        except ValueError:
            refused = True
            result.refused.append(spec)
        chain = (stack[-1].chain if stack else ()) + (spec,)
        stack.append(_Block(spec, directive, line, chain, refused))
    if stack:
        return Folded(text, unbalanced=True)
    result.text = "\n".join(out)
    return result


def include_target(chain: Sequence[str], roots: Sequence[Path]) -> Path:
    """The file the text of a folded block is written to (``chain`` its names, outer first, as :class:`Folded`
    keys them): the file :func:`file_reader` would read for it now, else ``<first folder it would look in>/name.lua``
    (a nested name beside the file of the block around it). :class:`IncludeError` when a name is not plain or the
    file is a symbolic link that leads outside its search folder."""
    target: Path | None = None
    for spec in chain:
        try:
            name = parse_name(spec)
        except ValueError as exc:
            raise IncludeError(str(exc)) from None
        folders = ([target.parent] if target is not None and not name.from_root else []) + list(roots)
        found = next((folder.joinpath(*relative) for folder in folders for relative in name.candidates()
                      if folder.joinpath(*relative).is_file()), None)
        target = found if found is not None else folders[0].joinpath(*name.new_file)
    assert target is not None
    spelled = Path(os.path.abspath(target))
    base = next((root for root in roots if Path(os.path.abspath(root)) in spelled.parents), roots[0])
    if not is_inside_tree(base, target):
        raise IncludeError(f"#include {chain[-1][:120]}: {target}: a symbolic link that leads outside {base}; "
                           "refusing to write it")
    return target


def included_path(chain: Sequence[str]) -> str:
    """The path (relative, ``/``-separated) of the file ``chain`` names as pull writes it into a folder that is
    its only search folder: ``lib/dice.lua``; a nested name beside the file around it (unless ``!/``). For
    showing a position, not for reading: a name that is not plain reads as itself."""
    path: list[str] = []
    for spec in chain:
        try:
            name = parse_name(spec)
        except ValueError:
            return spec
        path = ([*path[:-1]] if path and not name.from_root else []) + list(name.new_file)
    return "/".join(path)


def include_position(text: str, line: int) -> tuple[tuple[str, ...], int]:
    """Where line ``line`` (1-based) of an expanded text comes from: ``(chain, line in that file)``, ``chain``
    the names of the includes around it (outer first; empty: the text's own line, numbered as in the file
    before expansion). A marker line, and the ``do``/``end`` of a ``<name>`` block, read as the ``#include``
    line of the file around it."""
    chain: list[str] = []
    counts = [0]
    enclosed: list[bool] = []
    pending_do = False
    lines = text.split("\n")
    for number, current in enumerate(lines[:max(line, 0)], 1):
        match = MARKER.match(current) if current.startswith(MARKER_PREFIX) else None
        if match is not None:
            spec = match.group(2)
            if chain and spec == chain[-1]:
                chain.pop()
                counts.pop()
                enclosed.pop()
                if number == line:
                    return tuple(chain), counts[-1]
                continue
            counts[-1] += 1
            if number == line:
                return tuple(chain), counts[-1]
            chain.append(spec)
            counts.append(0)
            is_enclosed = spec.startswith("<") and spec.endswith(">")
            enclosed.append(is_enclosed)
            pending_do = is_enclosed
            continue
        if pending_do:
            pending_do = False
            if current.strip() == "do":
                if number == line:
                    return tuple(chain[:-1]), counts[-2]
                continue
        if number == line and enclosed and enclosed[-1] and current.strip() == "end" and number < len(lines):
            after = MARKER.match(lines[number]) if lines[number].startswith(MARKER_PREFIX) else None
            if after is not None and after.group(2) == chain[-1]:
                return tuple(chain[:-1]), counts[-2]
        counts[-1] += 1
        if number == line:
            return tuple(chain), counts[-1]
    return tuple(chain), counts[-1]
