"""``ttsmod console``: Lua typed line by line, run in the running game over the External Editor API.

* **Chunks** (:func:`chunk_state`): lines are gathered until they make a whole chunk, as the standalone ``lua``
  prompt does: an open ``function``/``if``/``do``/``repeat``/bracket, an unfinished long string or comment, or a
  trailing operator asks for another line. Lexing is :func:`bridge.luaproject.bundle.tokenize`; a real syntax error
  is left for TTS to report.
* **Expressions** (:func:`as_exec_code`): a chunk that is an expression (``x + 1``, ``getObjects()``) is sent
  as ``return <chunk>`` so its value comes back; statements are sent as they are. ``=expr`` is accepted too.
* **Results** come back through :meth:`bridge.session.Session.execute` (wrapped: tables, nil and errors all
  return) and are shown as JSON. TTS's prints and errors, which arrive on their own connections, are shown as
  they come, between the results.
* **Error positions**: TTS names a script's position ``chunk_0:(line,col-col)``; positions in an object's own
  script are mapped back to the file and line (:func:`map_positions`, with :func:`bridge.luaproject.bundle.
  map_error_message`): a bundle's module to ``lib/util.lua``, the root or a plain script to the
  ``<Name>.<guid>.lua`` that ``ttsmod pull`` writes.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable

from bridge.luaproject.bundle import (Bundle, BundledModule, LuaSyntaxError, ROOT_MODULE, Token, map_error_message,
                                      tokenize)
from bridge.protocol import GLOBAL_GUID, ErrorMessage, PrintMessage, ScriptState, valid_unicode

KEYWORDS = frozenset("and break do else elseif end false for function goto if in local nil not or repeat return "
                     "then true until while".split())
_OPENERS = {"(": ")", "{": "}", "[": "]"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
_TRAILING = frozenset({"+", "-", "*", "/", "//", "%", "^", "#", "&", "~", "|", "<<", ">>", "..", "==", "~=", "<",
                       "<=", ">", ">=", "=", ",", ".", ":", "and", "or", "not", "local", "in"})
_STATEMENT_START = frozenset({"local", "if", "for", "while", "repeat", "do", "return", "break", "goto"})
_VALUE_END = frozenset({"end", "true", "false", "nil", "..."})

COMPLETE, INCOMPLETE, EMPTY = "complete", "incomplete", "empty"


def _tokens(text: str) -> list[Token] | None:
    """The tokens of ``text``; None when a long string or comment is unfinished (more lines will close it)."""
    try:
        return list(tokenize(text))
    except LuaSyntaxError as exc:
        return None if "long" in exc.message else []


def chunk_state(text: str) -> str:
    """:data:`EMPTY` (only blanks and comments), :data:`INCOMPLETE` (the next line may finish it) or
    :data:`COMPLETE` (send it; a syntax error is TTS's to report)."""
    tokens = _tokens(text)
    if tokens is None:
        return INCOMPLETE
    if not tokens:
        try:
            list(tokenize(text))
        except LuaSyntaxError:
            return COMPLETE       # an unfinished quoted string: an error, as in lua
        return EMPTY
    stack: list[str] = []
    for token in tokens:
        if not _step(stack, token):
            return COMPLETE
    if stack:
        return INCOMPLETE
    last = tokens[-1]
    if last.kind != "string" and last.value in _TRAILING:
        return INCOMPLETE
    return COMPLETE


def is_expression(text: str) -> bool:
    """Whether ``text`` (a complete chunk) reads as one expression, whose value the console shows: not when it
    starts with a statement keyword, assigns at its top level, or holds two statements side by side."""
    tokens = _tokens(text) or []
    if not tokens:
        return False
    first = tokens[0]
    if first.kind == "op" and first.value in ("::", ";"):
        return False
    if first.kind == "name" and first.value in KEYWORDS and first.value not in ("function", "not", "nil", "true",
                                                                                "false"):
        return False      # a statement keyword (local, if, return…), or one no chunk starts with
    if first.kind == "name" and first.value == "function" and len(tokens) > 1 and tokens[1].kind == "name":
        return False
    stack: list[str] = []
    previous: Token | None = None
    for token in tokens:
        _step(stack, token)
        if not stack and token.kind == "op" and token.value == "=":
            return False
        if not stack and previous is not None and _ends_value(previous) and token.kind == "name" \
                and (token.value not in KEYWORDS or token.value in _STATEMENT_START or token.value == "function"):
            return False
        previous = token
    return True


def _step(stack: list[str], token: Token) -> bool:
    """Track the blocks and brackets open after ``token``; False when it closes one that is not open."""
    value = token.value
    if token.kind == "name":
        if value in ("function", "if", "repeat", "while", "for"):
            stack.append(value)
        elif value == "do":
            if stack and stack[-1] in ("while", "for"):
                stack[-1] = "do"
            else:
                stack.append("do")
        elif value == "end":
            if not stack or stack[-1] not in ("function", "if", "do"):
                return False
            stack.pop()
        elif value == "until":
            if not stack or stack[-1] != "repeat":
                return False
            stack.pop()
    elif token.kind == "op":
        if value in _OPENERS:
            stack.append(value)
        elif value in _CLOSERS:
            if not stack or stack[-1] != _CLOSERS[value]:
                return False
            stack.pop()
    return True


def _ends_value(token: Token) -> bool:
    if token.kind in ("string", "number"):
        return True
    if token.kind == "name":
        return token.value not in KEYWORDS or token.value in _VALUE_END
    return token.value in (")", "]", "}", "...")


def as_exec_code(chunk: str) -> tuple[str, bool]:
    """``(code to run, is an expression)``: an expression becomes ``return <chunk>``; ``=expr`` too."""
    stripped = chunk.lstrip()
    if stripped.startswith("=") and not stripped.startswith("=="):
        return "return " + stripped[1:], True
    if is_expression(chunk):
        return "return " + chunk, True
    return chunk, False


# ------------------------------------------------------------------------------------------- positions

_CHUNK_0 = re.compile(r"chunk_0:\((\d+),(\d+)(?:-(\d+))?\)")


def script_bundle(state: ScriptState) -> Bundle | None:
    """A :class:`Bundle` source map of an object's script: each module of a bundle named as ``ttsmod pull``
    writes it (``lib/util.lua``; the root: ``<Name>.<guid>.lua``), a plain script as that one file."""
    from bridge.luaproject.editor import script_file_stem
    from bridge.luaproject.errormap import module_lines
    from bridge.luaproject.project import module_file

    script = state.script or ""
    if not script:
        return None
    root = script_file_stem(state) + ".lua"
    lines = module_lines(script)
    if lines is None:
        count = script.replace("\r\n", "\n").count("\n") + 1
        return Bundle(script, (BundledModule(ROOT_MODULE, Path(root), script, 1, count + 1),))
    from bridge.luaproject.bundle import unbundle

    sources = unbundle(script)   # module_lines has read it as a bundle: the sources map included lines
    modules = []
    for name, first, count in lines:
        try:
            file = module_file(name, root)
        except Exception:
            file = f"<{name[:80]}>"
        modules.append(BundledModule(name, Path(file), sources.get(name, ""), first, first + count))
    return Bundle(script, tuple(modules))


def map_positions(text: str, state: ScriptState | None) -> str:
    """``text`` with each ``chunk_0:(l,c-c)`` (a position in the object's own script, which TTS loaded first)
    rewritten as ``file:line:col``; positions in other chunks (code run from the console) are left as they
    are."""
    if state is None or "chunk_0:" not in text:
        return text
    bundle = script_bundle(state)
    if bundle is None:
        return text
    return _CHUNK_0.sub(lambda match: map_error_message(bundle, match.group(0)), text)


# ------------------------------------------------------------------------------------------- the session


@dataclass
class ChunkResult:
    """One chunk run: its number, first input line, code, outcome, and what TTS printed meanwhile."""

    number: int
    line: int
    code: str
    ok: bool
    value: Any = None
    error: str | None = None
    expression: bool = False
    prints: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def shown(self) -> str | None:
        """The value as the console shows it, or None for nothing: a statement's value, or the nil of a call
        (``print("x")`` shows its print, not a nil after it)."""
        if not self.ok or (self.value is None and (not self.expression or self.code.rstrip().endswith(")"))):
            return None
        return format_value(self.value)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"chunk": self.number, "line": self.line, "code": self.code, "ok": self.ok}
        if self.ok:
            data["value"] = self.value
        else:
            data["error"] = self.error
        data["prints"] = self.prints
        data["errors"] = self.errors
        return data


def format_value(value: Any) -> str:
    """A result as the console shows it: ``nil``, else JSON (indented when it spans more than one line), valid
    Unicode whatever TTS sent (a lone surrogate shown as its escape)."""
    if value is None:
        return "nil"
    one_line = valid_unicode(json.dumps(value, ensure_ascii=False))
    if len(one_line) <= 100:
        return one_line
    return valid_unicode(json.dumps(value, ensure_ascii=False, indent=2))


class LuaConsole:
    """Runs chunks through a started :class:`bridge.server.Bridge`'s session in object ``guid``.

    ``show(kind, text)`` receives ``"print"`` and ``"error"`` lines from TTS as they arrive (``"error"`` text
    mapped to source lines) while :attr:`collect` is false; with :attr:`collect` they are kept for the next
    :class:`ChunkResult` instead (``--json``).
    """

    def __init__(self, session: Any, guid: str = GLOBAL_GUID, *, timeout: float = 10.0, settle: float = 0.2,
                 show: Callable[[str, str], None] | None = None, collect: bool = False) -> None:
        self.session = session
        self.guid = guid
        self.timeout = timeout
        self.settle = settle
        self.show = show
        self.collect = collect
        self.prints: list[str] = []
        self.errors: list[str] = []
        self.count = 0
        session.listeners.append(self.on_message)

    def state_of(self, guid: str) -> ScriptState | None:
        return self.session.scripts.get(guid)

    def on_message(self, message: Any) -> None:
        if isinstance(message, PrintMessage):
            self._emit("print", message.message)
        elif isinstance(message, ErrorMessage):
            text = f"{message.error_message_prefix}{message.error}".strip()
            self._emit("error", map_positions(text, self.state_of(message.guid)))

    def _emit(self, kind: str, text: str) -> None:
        if self.collect:
            (self.prints if kind == "print" else self.errors).append(text)
        elif self.show is not None:
            self.show(kind, text)

    async def load_scripts(self) -> None:
        """Ask TTS for the scripts (for mapping error positions); raises what ``get_scripts`` raises."""
        await self.session.get_scripts(timeout=self.timeout)

    async def run(self, chunk: str, line: int = 1) -> ChunkResult:
        """Run one complete chunk. TTS not answering is a failed result, not an exception."""
        from bridge.errors import TtsmodError

        self.count += 1
        code, expression = as_exec_code(chunk)
        try:
            result = await self.session.execute(code, self.guid, timeout=self.timeout)
            ok, value, error = result.ok, result.value, result.error
        except TtsmodError as exc:
            ok, value, error = False, None, str(exc)
        if error:
            error = map_positions(error, self.state_of(self.guid))
        if self.collect and self.settle > 0:
            await asyncio.sleep(self.settle)   # prints travel on their own connections: let them arrive
        done = ChunkResult(self.count, line, chunk, ok, value if ok else None, error, expression)
        if self.collect:
            done.prints, done.errors = self.prints, self.errors
            self.prints, self.errors = [], []
        return done


async def run_lines(console: LuaConsole, read_line: Callable[[str], Awaitable[str | None]],
                    report: Callable[[ChunkResult], None], *, prompts: tuple[str, str] = ("", "")) -> int:
    """Read lines with ``read_line(prompt)`` (None at the end of input) until the end; run each complete
    chunk and ``report`` it. Returns how many chunks failed. An incomplete chunk at the end of input is run as
    it is (TTS reports its syntax error)."""
    failed = 0
    buffer: list[str] = []
    first_line = 1
    number = 0
    while True:
        line = await read_line(prompts[1] if buffer else prompts[0])
        if line is None:
            if buffer and chunk_state("\n".join(buffer)) != EMPTY:
                result = await console.run("\n".join(buffer), first_line)
                failed += not result.ok
                report(result)
            if console.settle > 0:
                # what the last chunks set off (a Wait.time callback, a late print) comes on connections of its
                # own after their answer: give it the moment it needs to be shown before the console ends
                await asyncio.sleep(console.settle)
            return failed
        number += 1
        if not buffer:
            first_line = number
        buffer.append(line)
        text = "\n".join(buffer)
        state = chunk_state(text)
        if state == INCOMPLETE:
            continue
        buffer = []
        if state == EMPTY:
            continue
        result = await console.run(text, first_line)
        failed += not result.ok
        report(result)


def history_path() -> Path:
    """Where the interactive console keeps its history (the user's ttsmod data folder)."""
    from bridge.journal import user_data_dir

    return user_data_dir() / "console_history"


def lines_of(stream: Iterable[str]) -> Callable[[str], Awaitable[str | None]]:
    """``read_line`` over a text stream (a pipe or a file): no prompt, None at the end."""
    iterator = iter(stream)

    async def read_line(prompt: str) -> str | None:
        line = await asyncio.to_thread(next, iterator, None)
        return None if line is None else line.rstrip("\r\n")

    return read_line
