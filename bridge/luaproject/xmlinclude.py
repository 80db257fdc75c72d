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
device names. It names a ``.xml`` file: ``.xml`` is added when ``src`` does not end in it, as the editor plugins
do (``<Include src="ui/score"/>`` is ``ui/score.xml``) — :func:`check_src`. So ``pull``, which writes each included
text to its file, writes only ``.xml`` files: never a ``ttsmod.toml`` or a ``main.lua``. How the file is found is
the caller's business (``read``).

An include bomb cannot run away: :func:`expand` stops with an :class:`IncludeError` at a chain of includes deeper
than :data:`~bridge.luaproject.limits.MAX_INCLUDE_DEPTH` or an expanded text longer than
:data:`~bridge.luaproject.limits.MAX_EXPANDED_UI_CHARS`, and :func:`fold` at markers nested deeper than the same
depth; both take time linear in the text they give (times the depth).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Callable

from bridge.errors import InputError
from bridge.luaproject.limits import MAX_EXPANDED_UI_CHARS, MAX_INCLUDE_DEPTH
from bridge.safenames import safe_component

INCLUDE_SUFFIX = ".xml"

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
    """The parts of the relative path of the file ``src`` names: ``src``'s own, ``.xml`` added to the last when
    it does not end in it (``ttsmod.toml`` is ``ttsmod.toml.xml``); :class:`IncludeError` when ``src`` is not a
    plain relative path."""
    parts = src.split("/")
    if parts and not parts[-1].lower().endswith(INCLUDE_SUFFIX):
        parts[-1] += INCLUDE_SUFFIX
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


def expand(text: str, read: Callable[[str], str]) -> str:
    """``text`` with every ``<Include src="…"/>`` replaced by the text ``read(src)`` returns (one trailing
    newline dropped), between two :func:`marker` comments. ``read`` raises :class:`IncludeError` for a file it
    cannot find; a file that includes itself, a chain deeper than ``MAX_INCLUDE_DEPTH`` or a result longer than
    ``MAX_EXPANDED_UI_CHARS`` is an :class:`IncludeError` naming the file where it stopped."""
    return _expand(text, read, ())


def _expand(text: str, read: Callable[[str], str], chain: tuple[str, ...]) -> str:
    out: list[str] = []
    size = 0
    pos = 0
    for match in INCLUDE_TAG.finditer(text):
        src = match.group(2)
        check_src(src)
        if src in chain:
            raise IncludeError(f"{src} includes itself ({' → '.join((*chain, src))})")
        if len(chain) >= MAX_INCLUDE_DEPTH:
            shown = " → ".join((*chain[:3], "…", *chain[-2:], src)) if len(chain) > 6 else " → ".join((*chain, src))
            raise IncludeError(f"{src}: includes nested more than {MAX_INCLUDE_DEPTH} deep ({shown})")
        content = read(src)
        if content.endswith("\n"):
            content = content[:-1]
        content = _expand(content, read, (*chain, src))
        indent = _line_indent(text, match.start())
        body = "\n".join(indent + line if line else line for line in content.split("\n"))
        piece = f"{marker(src)}\n{body}\n{indent}{marker(src)}"
        size += match.start() - pos + len(piece)
        if size > MAX_EXPANDED_UI_CHARS:
            where = f" (in {chain[-1]})" if chain else ""
            raise IncludeError(f"{src}{where}: the UI expanded would be longer than {MAX_EXPANDED_UI_CHARS:,} "
                               "characters (an include bomb?)")
        out.append(text[pos:match.start()])
        out.append(piece)
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
    its closing twin is left as it is. Blocks nested more than ``MAX_INCLUDE_DEPTH`` deep are an
    :class:`IncludeError` (``expand`` would not have written them)."""
    result = Folded(text)
    result.text = _fold(text, result, 0)
    return result


def _fold(text: str, result: Folded, depth: int) -> str:
    markers = list(MARKER.finditer(text))
    # Where each path's markers are, in order: the closing twin of an opening marker is found by bisection, not
    # by reading the rest of the text again (a UI of many markers without twins would take quadratic time).
    places: dict[str, list[int]] = {}
    for index, found in enumerate(markers):
        places.setdefault(found.group(1), []).append(index)
    out: list[str] = []
    pos = 0
    index = 0
    while index < len(markers):
        opening = markers[index]
        src = opening.group(1)
        same = places[src]
        after = bisect.bisect_right(same, index)
        if after == len(same):
            index += 1
            continue
        closing_index = same[after]
        closing = markers[closing_index]
        try:
            check_src(src)
        except IncludeError:
            result.refused.append(src)
            index = closing_index + 1
            continue
        if depth >= MAX_INCLUDE_DEPTH:
            raise IncludeError(f"{src}: include markers nested more than {MAX_INCLUDE_DEPTH} deep")
        indent = _line_indent(text, opening.start())
        inner = text[opening.end():closing.start()]
        if inner.startswith("\n") and inner.endswith("\n" + indent):
            inner = inner[1:len(inner) - len(indent) - 1]
        else:  # markers written by another tool without our line breaks
            inner = inner.strip("\n")
        lines = [line[len(indent):] if indent and line.startswith(indent) else line for line in inner.split("\n")]
        content = _fold("\n".join(lines), result, depth + 1) + "\n"
        if src not in result.files:
            result.files[src] = content
        elif result.files[src] != content and src not in result.conflicts:
            result.conflicts.append(src)
        out.append(text[pos:opening.start()])
        out.append(tag(src))
        pos = closing.end()
        index = closing_index + 1
    out.append(text[pos:])
    return "".join(out)
