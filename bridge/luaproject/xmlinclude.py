"""XML UI includes the way the TTS editor plugins (Atom, VS Code) write them.

TTS has no include for its XML UI, so an editor expands ``<Include src="panel.xml"/>`` before it sends the UI
and folds it back when it reads the UI from TTS. The expanded form keeps the path in a comment on each side of
the included text (tts-facts §1.9)::

    <Panel>
      <Include src="score.xml"/>            →     <Panel>
    </Panel>                                        <!-- include score.xml -->
                                                    <Text id="score">0</Text>
                                                    <!-- include score.xml -->
                                                  </Panel>

The included text is indented like the ``<Include>`` line, so the result reads as one document; an include
inside an included file is expanded the same way, and a file that includes itself (directly or not) is an
error. :func:`fold` reverses :func:`expand` exactly for text :func:`expand` wrote (the tag written
``<Include src="…"/>``), and reads the plugins' markers leniently (any spacing inside the comment, the text
indented or not).

``src`` is a relative path of plain parts (``ui/score.xml``): no ``..``, no absolute path, no backslash, no
device names — :func:`check_src`. How it is resolved to a file is the caller's business (``read``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from bridge.errors import InputError
from bridge.safenames import safe_component

INCLUDE_TAG = re.compile(r"""<Include\s+src\s*=\s*(["'])([^"'<>]*)\1\s*/>""")
MARKER = re.compile(r"<!--\s*include\s+([^\s<>][^<>]*?)\s*-->")


class IncludeError(InputError):
    """An include that cannot be expanded (a file not found, a bad path, a cycle): one line, exit 2."""


def marker(src: str) -> str:
    """The comment that stands on each side of an included text."""
    return f"<!-- include {src} -->"


def tag(src: str) -> str:
    return f'<Include src="{src}"/>'


def check_src(src: str) -> list[str]:
    """The parts of the relative path ``src``; :class:`IncludeError` when it is not a plain relative path."""
    parts = src.split("/")
    if not src or src.startswith("/") or any(
            not part or part in (".", "..") or "\\" in part or safe_component(part) != part for part in parts):
        raise IncludeError(f'<Include src="{src[:120]}">: not a plain relative path (parts separated by /, '
                           "no .., no backslash)")
    return parts


def _line_indent(text: str, at: int) -> str:
    """The whitespace before ``at`` on its line, when only whitespace precedes it there; else ''."""
    start = text.rfind("\n", 0, at) + 1
    before = text[start:at]
    return before if before.strip(" \t") == "" else ""


def expand(text: str, read: Callable[[str], str], *, _chain: tuple[str, ...] = ()) -> str:
    """``text`` with every ``<Include src="…"/>`` replaced by the text ``read(src)`` returns (one trailing
    newline dropped), between two :func:`marker` comments. ``read`` raises :class:`IncludeError` for a file it
    cannot find."""
    out: list[str] = []
    pos = 0
    for match in INCLUDE_TAG.finditer(text):
        src = match.group(2)
        check_src(src)
        if src in _chain:
            raise IncludeError(f"{src} includes itself ({' → '.join((*_chain, src))})")
        content = read(src)
        if content.endswith("\n"):
            content = content[:-1]
        content = expand(content, read, _chain=(*_chain, src))
        indent = _line_indent(text, match.start())
        body = "\n".join(indent + line if line else line for line in content.split("\n"))
        out.append(text[pos:match.start()])
        out.append(f"{marker(src)}\n{body}\n{indent}{marker(src)}")
        pos = match.end()
    out.append(text[pos:])
    return "".join(out)


@dataclass
class Folded:
    """What :func:`fold` found: the text with ``<Include>`` tags again, and each included file's text (with a
    trailing newline, as it is kept in a file); ``conflicts`` the paths included twice with different texts
    (the first is kept)."""

    text: str
    files: dict[str, str] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def fold(text: str) -> Folded:
    """The reverse of :func:`expand`: every marked block back to ``<Include src="…"/>``. A block whose path is
    not a plain relative path (:func:`check_src`) is left expanded and listed in ``refused``; a marker without
    its closing twin is left as it is."""
    result = Folded(text)
    result.text = _fold(text, result)
    return result


def _fold(text: str, result: Folded) -> str:
    out: list[str] = []
    pos = 0
    search = 0
    while (opening := MARKER.search(text, search)) is not None:
        src = opening.group(1)
        closing = next((m for m in MARKER.finditer(text, opening.end()) if m.group(1) == src), None)
        if closing is None:
            search = opening.end()
            continue
        try:
            check_src(src)
        except IncludeError:
            result.refused.append(src)
            search = closing.end()
            continue
        indent = _line_indent(text, opening.start())
        inner = text[opening.end():closing.start()]
        if inner.startswith("\n") and inner.endswith("\n" + indent):
            inner = inner[1:len(inner) - len(indent) - 1]
        else:  # markers written by another tool without our line breaks
            inner = inner.strip("\n")
        lines = [line[len(indent):] if indent and line.startswith(indent) else line for line in inner.split("\n")]
        content = _fold("\n".join(lines), result) + "\n"
        if src not in result.files:
            result.files[src] = content
        elif result.files[src] != content and src not in result.conflicts:
            result.conflicts.append(src)
        out.append(text[pos:opening.start()])
        out.append(tag(src))
        pos = search = closing.end()
    out.append(text[pos:])
    return "".join(out)
