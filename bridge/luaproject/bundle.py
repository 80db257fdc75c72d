"""Lua bundling in the luabundle format, in Python: ``require`` resolved at build time, no Node.

TTS has no ``require``, so the build folds the root script and every module it requires into one script.
The output follows the format of the npm ``luabundle`` tool (tts-facts §1.9), so the TTS editor plugins for
VS Code and Atom can still unbundle what ttsmod writes::

    -- Bundled by luabundle {"version":"1.6.0"}
    local __bundle_require, __bundle_loaded, __bundle_register, __bundle_modules = (function(superRequire)
        ... a small module registry ...
    end)(nil)
    __bundle_register("__root", function(require, _LOADED, __bundle_register, __bundle_modules)
    <root source>
    end)
    __bundle_register("lib.json", function(require, _LOADED, __bundle_register, __bundle_modules)
    <module source>
    end)
    return __bundle_require("__root")

Each module's source is copied verbatim between its header line and ``end)``, so a bundle line maps back to a
source line by subtraction (:func:`map_bundle_line`; TTS reports errors as ``chunk_0:(line,col-col)``).

Each file's ``#include`` lines (the Atom plugin's older way to split a script) are expanded as it is read, with the
plugin's marker comments (:mod:`bridge.luaproject.luainclude`), so a module may include files and an included file
may ``require`` modules.

Module names are dotted paths below a search root: ``require("lib.json")`` finds ``<root>/lib/json.lua``
(or ``.ttslua``, or ``lib/json/init.lua``).  Only literal requires can be bundled: ``require("x")`` and
``require "x"``.  A ``require`` whose argument is computed, or a module found under no root, is a
:class:`BundleError` naming the file and line.  Sources are scanned with a real Lua lexer (strings,
long strings and comments are skipped), so a ``require`` inside a string or comment is ignored — and
:func:`unbundle` parses a bundle the same way instead of matching text patterns.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, NamedTuple, Sequence

from bridge.errors import TtsmodError
from bridge.safenames import is_inside_tree

LUABUNDLE_VERSION = "1.6.0"
HEADER_PREFIX = "-- Bundled by luabundle "
ROOT_MODULE = "__root"
REGISTER_SIGNATURE = "function(require, _LOADED, __bundle_register, __bundle_modules)"
MODULE_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*(\.[A-Za-z0-9_][A-Za-z0-9_\-]*)*$")
EXTENSIONS = (".lua", ".ttslua")

# The registry the bundle runs first: register(name, body) stores a module body; require(name) runs a body
# once and caches its result (a module that is still loading reads as nil, which breaks require cycles);
# an unknown name falls back to superRequire, which TTS does not have, so it raises a clear Lua error.
_RUNTIME = """\
local __bundle_require, __bundle_loaded, __bundle_register, __bundle_modules = (function(superRequire)
\tlocal loading = {}
\tlocal bodies = {}
\tlocal results = {}

\tlocal function register(name, body)
\t\tif bodies[name] == nil then
\t\t\tbodies[name] = body
\t\tend
\tend

\tlocal require
\trequire = function(name)
\t\tlocal result = results[name]
\t\tif result == loading then
\t\t\treturn nil
\t\tend
\t\tif result ~= nil then
\t\t\treturn result
\t\tend
\t\tlocal body = bodies[name]
\t\tif body == nil then
\t\t\tif superRequire then
\t\t\t\treturn superRequire(name)
\t\t\tend
\t\t\terror('Tried to require "' .. tostring(name) .. '", but no such module has been registered')
\t\tend
\t\tresults[name] = loading
\t\tresult = body(require, results, register, bodies)
\t\tif result == nil then
\t\t\tresult = true
\t\tend
\t\tresults[name] = result
\t\treturn result
\tend

\treturn require, results, register, bodies
end)(nil)
"""


class BundleError(TtsmodError):
    """A script cannot be bundled (missing module, computed require, Lua syntax the lexer rejects): exit 2.

    ``str(error)`` reads ``mod/<game>/global.lua:12: module "lib.jsn" not found (searched: ...)``.
    """

    exit_code = 2

    def __init__(self, file: str, line: int | None, message: str) -> None:
        self.file = file
        self.line = line
        self.message = message
        super().__init__(f"{file}:{line}: {message}" if line else f"{file}: {message}")


# --------------------------------------------------------------------------------------------- lexer


class Token(NamedTuple):
    """One lexeme. A named tuple, not a frozen dataclass: a build makes a hundred thousand of them, and a tuple is
    made four times faster (it is as immutable, and compares and hashes by its fields as well)."""

    kind: str  # "name" | "string" | "number" | "op"
    value: str  # the name, operator or number text; the decoded value of a string
    start: int  # offset of the first character in the text
    end: int  # offset just after the token
    line: int  # 1-based line of the first character


class LuaSyntaxError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


_OPERATORS = frozenset(("..", "==", "~=", "<=", ">=", "::", "//", "<<", ">>"))
"""The operators of two characters (``...`` is the only one of three)."""
_OPERATOR_STARTS = frozenset(op[0] for op in _OPERATORS)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\",
            '"': '"', "'": "'", "\n": "\n"}


def _long_bracket(text: str, i: int) -> int | None:
    """The level of a long bracket ``[==[`` opening at ``i``, or None."""
    if i >= len(text) or text[i] != "[":
        return None
    j = i + 1
    while j < len(text) and text[j] == "=":
        j += 1
    if j < len(text) and text[j] == "[":
        return j - i - 1
    return None


_BLANK = re.compile(r"[ \t\r\f\v\n]+")
_NAME_REST = re.compile(r"\w*")


def tokenize(text: str) -> Iterator[Token]:
    """Lua 5.2 tokens of ``text`` (comments and whitespace skipped); :class:`LuaSyntaxError` on an unfinished
    string or comment."""
    # Blanks and the rest of a name are matched a run at a time (in C), not a character at a time: a build
    # lexes every module it bundles and its check lexes the whole bundle again.
    blank, name_rest = _BLANK.match, _NAME_REST.match
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c in " \t\r\f\v\n":
            end = blank(text, i).end()
            line += text.count("\n", i, end)
            i = end
            continue
        if c == "-" and text.startswith("--", i):
            level = _long_bracket(text, i + 2)
            if level is not None:
                close = "]" + "=" * level + "]"
                end = text.find(close, i + 2)
                if end < 0:
                    raise LuaSyntaxError(line, "unfinished long comment")
                line += text.count("\n", i, end)
                i = end + len(close)
            else:
                end = text.find("\n", i)
                i = n if end < 0 else end
            continue
        start, start_line = i, line
        if c == "[":
            level = _long_bracket(text, i)
            if level is not None:
                close = "]" + "=" * level + "]"
                body = i + level + 2
                end = text.find(close, body)
                if end < 0:
                    raise LuaSyntaxError(line, "unfinished long string")
                value = text[body:end]
                if value.startswith("\r\n"):
                    value = value[2:]
                elif value.startswith("\n"):
                    value = value[1:]
                line += text.count("\n", i, end)
                i = end + len(close)
                yield Token("string", value, start, i, start_line)
                continue
        if c in "\"'":
            value, i, line = _quoted(text, i, line)
            yield Token("string", value, start, i, start_line)
            continue
        if c.isalpha() or c == "_":
            j = name_rest(text, i + 1).end()   # \w: what str.isalnum() accepts, and "_"
            yield Token("name", text[i:j], start, j, line)
            i = j
            continue
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            j = i + 1
            while j < n:
                ch = text[j]
                if ch.isalnum() or ch in "._":
                    j += 1
                elif ch in "+-" and text[j - 1] in "eEpP" and not text[start:j].lower().startswith("0x") \
                        or ch in "+-" and text[j - 1] in "pP":
                    j += 1
                else:
                    break
            yield Token("number", text[i:j], start, j, line)
            i = j
            continue
        if c in _OPERATOR_STARTS:   # the longest operator first: "..." before ".."
            op = text[i:i + 3]
            if op != "...":
                op = text[i:i + 2]
                if op not in _OPERATORS:
                    op = c
        else:
            op = c
        yield Token("op", op, start, i + len(op), line)
        i += len(op)


_PLAIN_RUN = {'"': re.compile(r'[^"\\\n]++'), "'": re.compile(r"[^'\\\n]++")}
"""A run of characters that stand for themselves inside a string of each quote: a generated module's strings run
to megabytes, so they are copied a run at a time, not a character at a time."""


_SIMPLE_LITERAL = {q: re.compile(rf'{q}([^{q}\\\n]*+(?:\\[ntrabfv\\"\'][^{q}\\\n]*+)*+){q}') for q in "\"'"}
"""A whole string literal whose escapes are all one-character ones (what ``lua_string`` writes for JSON).
Possessive: a run of plain characters never gives any back (the next character can only be an escape or the
end), and not keeping the places to backtrack to makes a megabyte literal three times faster to match."""


def _decode_simple(body: str) -> str:
    # Lua's one-character escapes are Python's too, so the C codec decodes them; characters above Latin-1 pass
    # through it as \uXXXX escapes of their own (the body holds no other backslash: _SIMPLE_LITERAL saw to it).
    if "\\" not in body:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")


def _quoted(text: str, i: int, line: int) -> tuple[str, int, int]:
    quote, n = text[i], len(text)
    simple = _SIMPLE_LITERAL[quote].match(text, i)
    if simple is not None:
        return _decode_simple(simple.group(1)), simple.end(), line
    plain = _PLAIN_RUN[quote]
    out: list[str] = []
    j = i + 1
    while True:
        run = plain.match(text, j)
        if run is not None:
            out.append(run.group())
            j = run.end()
        if j >= n or text[j] == "\n":
            raise LuaSyntaxError(line, "unfinished string")
        ch = text[j]
        if ch == quote:
            return "".join(out), j + 1, line
        if ch != "\\":
            out.append(ch)
            j += 1
            continue
        j += 1
        if j >= n:
            raise LuaSyntaxError(line, "unfinished string")
        esc = text[j]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            if esc == "\n":
                line += 1
            j += 1
        elif esc == "\r":
            out.append("\n")
            line += 1
            j += 2 if text.startswith("\r\n", j) else 1
        elif esc == "z":
            j += 1
            while j < n and text[j] in " \t\r\n\f\v":
                line += text[j] == "\n"
                j += 1
        elif esc == "x":
            out.append(chr(int(text[j + 1:j + 3], 16)))
            j += 3
        elif esc.isdigit():
            k = j
            while k < n and k < j + 3 and text[k].isdigit():
                k += 1
            out.append(chr(int(text[j:k])))
            j = k
        elif esc == "u" and text.startswith("{", j + 1):
            close = text.index("}", j)
            out.append(chr(int(text[j + 2:close], 16)))
            j = close + 1
        else:
            out.append(esc)
            j += 1


# --------------------------------------------------------------------------------------------- requires


@dataclass(frozen=True)
class Require:
    name: str | None  # the module name, or None for a computed require
    line: int


def find_requires(source: str) -> list[Require]:
    """Every ``require`` call in ``source`` in order; ``name`` is None where the argument is not a literal.

    ``obj.require(...)``/``obj:require(...)`` (fields) and ``function require``/``local require``
    (definitions) are not requires of a module.  Raises :class:`LuaSyntaxError`.
    """
    tokens = list(tokenize(source))
    found: list[Require] = []
    for k, tok in enumerate(tokens):
        if tok.kind != "name" or tok.value != "require":
            continue
        prev = tokens[k - 1] if k else None
        if prev is not None and (prev.kind == "op" and prev.value in (".", ":")
                                 or prev.kind == "name" and prev.value in ("function", "local")):
            continue
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        if nxt is not None and nxt.kind == "op" and nxt.value == "=":
            continue  # assignment to a variable named require
        if nxt is not None and nxt.kind == "string":
            found.append(Require(nxt.value, tok.line))
        elif (nxt is not None and nxt.kind == "op" and nxt.value == "(" and k + 3 < len(tokens)
              and tokens[k + 2].kind == "string" and tokens[k + 3].kind == "op" and tokens[k + 3].value == ")"):
            found.append(Require(tokens[k + 2].value, tok.line))
        else:
            found.append(Require(None, tok.line))
    return found


class LexMemo:
    """What lexing Lua texts found, kept by each text's digest: the requires of a source
    (:meth:`requires`) and whether a bundle unbundles (:meth:`unbundles`). A build lexes the same few hundred
    kilobytes of Lua (the shared library, the game's mod, the bundle in its check) every time; only texts that
    lexed without error are kept, so every error is still found and reported by the lexer itself. The caller
    keeps it between runs (:meth:`to_bytes`, :meth:`from_bytes`); an unreadable one is an empty one."""

    FORMAT = "ttsmod lua lex 1"

    def __init__(self, requires: dict[str, list] | None = None, bundles: set[str] | None = None) -> None:
        self._known_requires = requires or {}
        self._known_bundles = bundles or set()
        self.used_requires: dict[str, list] = {}
        self.used_bundles: set[str] = set()

    @staticmethod
    def _digest(text: str) -> str:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def requires(self, source: str) -> list[Require]:
        """:func:`find_requires` of ``source`` (same result, same errors)."""
        digest = self._digest(source)
        found = self._known_requires.get(digest)
        if found is None:
            result = find_requires(source)
            found = [[r.name, r.line] for r in result]
        else:
            result = [Require(name, line) for name, line in found]
        self.used_requires[digest] = found
        return result

    def unbundles(self, text: str) -> None:
        """Raise what :func:`unbundle` raises for ``text``; nothing when it unbundles."""
        digest = self._digest(text)
        if digest not in self._known_bundles:
            unbundle(text)
        self.used_bundles.add(digest)

    @property
    def changed(self) -> bool:
        return self.used_requires.keys() != self._known_requires.keys() or self.used_bundles != self._known_bundles

    def to_bytes(self) -> bytes:
        return json.dumps({"format": self.FORMAT, "requires": self.used_requires,
                           "bundles": sorted(self.used_bundles)}, sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> "LexMemo":
        try:
            stored = json.loads(data)
            if not isinstance(stored, dict) or stored.get("format") != cls.FORMAT:
                return cls()
            requires, bundles = stored["requires"], stored["bundles"]
            ok = (isinstance(requires, dict) and isinstance(bundles, list)
                  and all(isinstance(b, str) for b in bundles)
                  and all(isinstance(found, list) and all(
                      isinstance(r, list) and len(r) == 2 and (r[0] is None or isinstance(r[0], str))
                      and isinstance(r[1], int) and not isinstance(r[1], bool) for r in found)
                      for found in requires.values()))
        except (ValueError, KeyError, TypeError, RecursionError):
            return cls()
        return cls(requires, set(bundles)) if ok else cls()


# --------------------------------------------------------------------------------------------- bundle


@dataclass(frozen=True)
class BundledModule:
    """A module inside a bundle: its source and where that source starts in the bundle text."""

    name: str
    path: Path | None  # None for a generated module
    source: str
    first_line: int  # bundle line (1-based) holding the first source line
    last_line: int  # bundle line of the module's closing "end)"

    @property
    def display(self) -> str:
        return str(self.path) if self.path is not None else f"<{self.name}>"


@dataclass(frozen=True)
class Bundle:
    """A bundled script: ``text`` for ``LuaScript`` and the modules in it (the source map)."""

    text: str
    modules: tuple[BundledModule, ...]

    def module(self, name: str) -> BundledModule:
        for m in self.modules:
            if m.name == name:
                return m
        raise KeyError(name)


def _read_source(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError(str(path), None, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise BundleError(str(path), None, f"cannot read ({exc.strerror})") from None
    return text.replace("\r\n", "\n").lstrip("\ufeff")


def _read_module(path: Path, search_roots: Sequence[Path]) -> str:
    """The source of ``path`` as it is bundled: its ``#include`` lines expanded from the file's own folder and the
    search roots (:mod:`bridge.luaproject.luainclude`; a bad include is a
    :class:`~bridge.luaproject.luainclude.LuaIncludeError` naming the file and line)."""
    source = _read_source(path)
    if "#include" not in source:
        return source
    from bridge.luaproject.luainclude import expand_file_text

    return expand_file_text(source, path, search_roots)


def _resolve(name: str, search_roots: Sequence[Path]) -> Path | None:
    found = resolve_module(name, search_roots)
    return found[0] if found else None


def resolve_module(name: str, search_roots: Sequence[Path]) -> tuple[Path, Path] | None:
    """``(file, the search root it is under)`` for module ``name``: the first of ``<root>/a/b.lua``,
    ``.ttslua``, ``a/b/init.lua`` that is a file, root by root; None when there is none."""
    relative = name.replace(".", "/")
    for root in search_roots:
        for candidate in [root / (relative + ext) for ext in EXTENSIONS] + [root / relative / "init.lua"]:
            if candidate.is_file():
                return candidate, root
    return None


_LUA_ESCAPES = {**{code: f"\\{code:03d}" for code in [*range(32), 127]},
                ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n"}


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def _lua_string(text: str) -> str:
    """``text`` as a double-quoted Lua string literal (any bytes survive: escapes are decimal)."""
    # What text.translate(_LUA_ESCAPES) gives, in C passes: translate looks every character up in the table, and a
    # generated module's JSON runs to megabytes. The backslashes first, so the escapes added after keep theirs.
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    for char in sorted(set(_CONTROL.findall(text))):
        text = text.replace(char, _LUA_ESCAPES[ord(char)])
    return '"' + text + '"'


def lua_string(text: str) -> str:
    """Public alias of the Lua string quoting used for generated modules."""
    return _lua_string(text)


def bundle(root: Path, search_roots: Sequence[Path], extra_modules: Mapping[str, str] | None = None, *,
           memo: LexMemo | None = None) -> Bundle:
    """Bundle the script ``root`` (registered as ``__root``) with every module it requires, transitively.

    Modules are looked up first in ``extra_modules`` (name → source, for generated modules, always included),
    then under each of ``search_roots`` in order.  Modules appear in the order they are first required
    (breadth-first from the root), then the unrequired extra modules by name, so the output is deterministic.
    Raises :class:`BundleError` (file:line) for a missing root or module, a computed require or a lexer error.
    ``memo`` gives the requires of sources lexed before (the same bundle, the same errors).
    """
    scan = memo.requires if memo is not None else find_requires
    extra = dict(extra_modules or {})
    for name in extra:
        if not MODULE_NAME_RE.match(name):
            raise BundleError(f"<{name}>", None, "not a valid module name")
    root = Path(root)
    if not root.is_file():
        raise BundleError(str(root), None, "root script not found")
    pending: list[tuple[str, Path | None, str]] = [(ROOT_MODULE, root, _read_module(root, search_roots))]
    seen = {ROOT_MODULE}
    ordered: list[tuple[str, Path | None, str]] = []
    while pending:
        name, path, source = pending.pop(0)
        ordered.append((name, path, source))
        display = str(path) if path is not None else f"<{name}>"
        try:
            # A generated module that does not spell "require" requires nothing, and it is the build's own
            # quoted data (megabytes for a big game), valid Lua by construction: it is not lexed for nothing.
            requires = scan(source) if path is not None or "require" in source else []
        except LuaSyntaxError as exc:
            raise BundleError(display, exc.line, exc.message) from None
        for req in requires:
            if req.name is None:
                raise BundleError(display, req.line, "require with a computed argument cannot be bundled; "
                                                     'use a literal name: require("lib.name")')
            if req.name in seen:
                continue
            if not MODULE_NAME_RE.match(req.name):
                raise BundleError(display, req.line, f'"{req.name}" is not a module name (a.b.c)')
            if req.name in extra:
                seen.add(req.name)
                pending.append((req.name, None, extra[req.name]))
                continue
            located = resolve_module(req.name, search_roots)
            if located is None:
                searched = ", ".join(str(r) for r in search_roots) or "no search roots"
                raise BundleError(display, req.line, f'module "{req.name}" not found (searched: {searched})')
            found, under = located
            if not is_inside_tree(under, found):
                raise BundleError(display, req.line, f'module "{req.name}": {found}: a symbolic link that leads '
                                                     f"outside {under}; refusing to read it")
            seen.add(req.name)
            pending.append((req.name, found, _read_module(found, search_roots)))
        if not pending:
            for extra_name in sorted(extra):
                if extra_name not in seen:
                    seen.add(extra_name)
                    pending.append((extra_name, None, extra[extra_name]))
    return _assemble(ordered)


def _assemble(modules: Sequence[tuple[str, Path | None, str]]) -> Bundle:
    parts = [HEADER_PREFIX + json.dumps({"version": LUABUNDLE_VERSION}, separators=(",", ":")) + "\n", _RUNTIME]
    line = 1 + _RUNTIME.count("\n")  # the last line written so far
    placed: list[BundledModule] = []
    for name, path, source in modules:
        parts.append(f"__bundle_register({_lua_string(name)}, {REGISTER_SIGNATURE}\n")
        header_line = line + 1
        body = source + "\nend)\n"
        parts.append(body)
        line = header_line + body.count("\n")
        placed.append(BundledModule(name, path, source, header_line + 1, line))
    parts.append(f"return __bundle_require({_lua_string(ROOT_MODULE)})")
    return Bundle("".join(parts), tuple(placed))


def map_bundle_line(bundle: Bundle, line: int) -> tuple[str, int]:
    """``(source file, source line)`` of bundle line ``line`` (1-based).

    A generated module reads as ``<generated.game>``; a line of the bundle's own runtime or of a module's
    header/closing line reads as ``("<bundle>", line)``. A line that an ``#include`` brought in reads as the line of
    the included file, named relative to its search folder as pull writes it
    (:func:`bridge.luaproject.luainclude.included_path`).
    """
    for m in bundle.modules:
        if m.first_line <= line < m.last_line:
            local = line - m.first_line + 1
            if "----" in m.source and "#include" in m.source:   # a line of an included file: that file's line
                from bridge.luaproject.luainclude import include_position, included_path

                chain, local = include_position(m.source, local)
                if chain:
                    return included_path(chain), local
            return m.display, local
    return "<bundle>", line


_CHUNK_POSITION = re.compile(r"chunk_\d+:\((\d+),(\d+)(?:-(\d+))?\)")


def map_error_message(bundle: Bundle, message: str) -> str:
    """Rewrite every TTS position ``chunk_0:(line,col-col)`` in ``message`` as ``file:line:col``."""
    def replace(match: re.Match) -> str:
        file, src_line = map_bundle_line(bundle, int(match.group(1)))
        return f"{file}:{src_line}:{match.group(2)}"

    return _CHUNK_POSITION.sub(replace, message)


# --------------------------------------------------------------------------------------------- unbundle


def is_bundle(text: str) -> bool:
    """True when ``text`` starts with the luabundle header comment."""
    return text.lstrip("\ufeff").startswith(HEADER_PREFIX)


def bundle_metadata(text: str) -> dict:
    """The JSON metadata of the header line (``{"version": ...}``); ``ValueError`` when absent or broken."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if not first.startswith(HEADER_PREFIX):
        raise ValueError("not a luabundle bundle (no '-- Bundled by luabundle' header)")
    try:
        meta = json.loads(first[len(HEADER_PREFIX):])
    except json.JSONDecodeError as exc:
        raise ValueError(f"bundle header metadata is not JSON ({exc.msg})") from None
    if not isinstance(meta, dict):
        raise ValueError("bundle header metadata is not a JSON object")
    return meta


_OPENERS = {"function", "if", "do"}  # each is closed by one "end" (while/for open with their "do")


def unbundle(text: str) -> dict[str, str]:
    """Module name → source of a luabundle bundle (ours or one written by luabundle itself).

    The text is lexed as Lua: a module is a top-level ``__bundle_register("name", function(...) ... end)``
    call whose body ends at the ``end`` matching its ``function``, so strings and comments that contain
    bundle-like text cannot confuse it.  ``ValueError`` when ``text`` is not a well-formed bundle.
    """
    bundle_metadata(text)
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    try:
        tokens = list(tokenize(text))
    except LuaSyntaxError as exc:
        raise ValueError(f"bundle is not valid Lua: {exc}") from None
    modules: dict[str, str] = {}
    depth = 0
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        if depth == 0 and tok.kind == "name" and tok.value == "__bundle_register" \
                and _is(tokens, k + 1, "op", "(") and k + 2 < len(tokens) and tokens[k + 2].kind == "string" \
                and _is(tokens, k + 3, "op", ",") and _is(tokens, k + 4, "name", "function"):
            name = tokens[k + 2].value
            close_params = k + 5
            while close_params < len(tokens) and not _is(tokens, close_params, "op", ")"):
                close_params += 1
            if close_params >= len(tokens):
                raise ValueError(f'module "{name}": unfinished function header')
            body_start = tokens[close_params].end
            if text.startswith("\n", body_start):
                body_start += 1
            inner = 1
            m = close_params + 1
            while m < len(tokens) and inner:
                t = tokens[m]
                if t.kind == "name":
                    if t.value in _OPENERS:
                        inner += 1
                    elif t.value == "end":
                        inner -= 1
                m += 1
            if inner:
                raise ValueError(f'module "{name}": no matching end')
            end_tok = tokens[m - 1]
            body_end = end_tok.start
            if body_end > body_start and text[body_end - 1] == "\n":
                body_end -= 1
            modules.setdefault(name, text[body_start:body_end])
            k = m
            continue
        if tok.kind == "name":
            if tok.value in _OPENERS:
                depth += 1
            elif tok.value == "end":
                depth -= 1
        k += 1
    if not modules:
        raise ValueError("no __bundle_register modules found")
    return modules


def _is(tokens: Sequence[Token], k: int, kind: str, value: str) -> bool:
    return k < len(tokens) and tokens[k].kind == kind and tokens[k].value == value
