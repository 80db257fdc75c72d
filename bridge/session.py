"""What the bridge does with each message: adjudication requests, exec correlation, push/pull, console mirror.

The transport (``bridge.server``) decodes one message per connection and hands it to
:meth:`Session.on_message`; everything the session sends goes through one injected coroutine
``send(message: ToTTS)``. So the session never touches a socket and tests can drive it with fakes.

The custom-message envelope (``docs/bridge.md``):

* request, TTS → bridge (message 4): ``{"ttsmod": 1, "id": <string|number>, "type": <string>,
  "game": <game id>, "body": {...}}``;
* reply, bridge → TTS (message 2): ``{"ttsmod": 1, "re": <id>, "type": <type>, "ok": true, "body": {...}}`` or
  ``{"ttsmod": 1, "re": <id>, "type": <type>, "ok": false, "error": {"code": <code>, "message": <text>}}``
  with ``code`` one of :data:`ERROR_CODES`.

A custom message without ``"ttsmod"`` belongs to some other script: it is logged and ignored. Requests are
handled concurrently (game rulings run in worker threads) and each reply is sent as soon as it is ready, so
replies may leave in any order; the mod correlates them by ``re``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import math
import time
import traceback
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping, Sequence

from bridge import ENVELOPE_VERSION, __version__
from bridge.games import GameRegistry, GameUnavailable
from bridge.journal import NullJournal
from bridge.protocol import (
    GLOBAL_GUID,
    CustomMessage,
    ErrorMessage,
    ExecuteLua,
    FromTTS,
    GameLoaded,
    GameSaved,
    GetScripts,
    LocalProtocolError,
    Message,
    ObjectCreated,
    PrintMessage,
    PushNewObject,
    ReturnValue,
    SaveAndPlay,
    ScriptState,
    SendCustomMessage,
    ToTTS,
    valid_unicode,
)
from bridge.rules.errors import RulesError
from bridge.rules.contract import lua_json
from bridge.errors import TtsmodError

log = logging.getLogger("ttsmod.bridge")

HELLO = "hello"
BROADCAST = "broadcast"
"""A mod's note of what the table told everyone (``{"ttsmod": 1, "type": "broadcast", "game": …, "body":
{"text": …}}``, no id): journaled, never answered (``ttsmod replay --html`` reads it back)."""
ERROR_CODES = ("bad_request", "unknown_type", "unknown_game", "internal")
MAX_REQUEST_DEPTH = 64
"""Deepest nesting of objects and arrays accepted in a request (the deepest the built-in games send is 6). Deeper
requests get ``bad_request``: they cannot be a real request, and Python's JSON writer stops near 1000 levels."""

Console = Callable[[str, str], None]
"""``console(kind, text)``: ``kind`` is ``"print"``, ``"error"`` or ``"info"``."""


# --------------------------------------------------------------------------------------------------------
# Errors a user meets (one sentence each; the CLI prints them without a traceback)


class BridgeError(TtsmodError):
    """A bridge operation could not be done; the message says why in one sentence."""


class TtsNotRunning(BridgeError):
    """Nothing accepted our connection on the TTS port."""


class TtsTimeout(BridgeError):
    """TTS did not answer within the time allowed."""


class PushRefused(BridgeError):
    """A push would have damaged the game (empty Global, an object's UI unknown); nothing was sent."""


# --------------------------------------------------------------------------------------------------------
# The envelope, without I/O (also used by ``ttsmod replay``)


@dataclass(frozen=True)
class Request:
    """A well-formed adjudication request."""

    id: Any
    type: str
    game: str | None
    body: Mapping[str, Any]


def reply_ok(request_id: Any, request_type: Any, body: Mapping[str, Any]) -> dict[str, Any]:
    return {"ttsmod": ENVELOPE_VERSION, "re": request_id, "type": request_type, "ok": True, "body": dict(body)}


def reply_error(request_id: Any, request_type: Any, code: str, message: str) -> dict[str, Any]:
    return {
        "ttsmod": ENVELOPE_VERSION,
        "re": request_id,
        "type": request_type,
        "ok": False,
        "error": {"code": code, "message": message},
    }


def _echoable(value: Any) -> Any:
    """``value`` if a reply can carry it back as ``re`` or ``type`` (a string, an integer or a finite number),
    else ``None``: an ``"id": 1e999`` must not make the reply itself impossible to send."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


def nesting_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` has objects or arrays nested more than ``limit`` deep (iterative: any depth is safe)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if type(item) is dict or isinstance(item, Mapping):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        for child in children:
            kind = type(child)
            # Scalars first by their exact type: an isinstance check against Mapping is slow for each of them.
            if kind is dict or kind is list or (kind not in _SCALARS and isinstance(child, (Mapping, list))):
                stack.append((child, depth + 1))
    return False


_SCALARS = frozenset({str, int, float, bool, type(None)})


def is_envelope(custom: Mapping[str, Any]) -> bool:
    """Whether a custom message is addressed to ttsmod (carries a ``"ttsmod"`` key)."""
    return isinstance(custom, Mapping) and "ttsmod" in custom


def is_broadcast(custom: Any) -> bool:
    """Whether a custom message is a mod's :data:`BROADCAST` note (journaled, never answered)."""
    return is_envelope(custom) and custom.get("type") == BROADCAST


class Dispatcher:
    """Envelope validation and dispatch to the game registry; synchronous and socket-free.

    :meth:`check` validates and returns either a :class:`Request` or an error reply; :meth:`run` answers a
    request (calling the game's service); :meth:`reply` does both. Nothing here raises for bad input: every
    outcome is a reply dict (or ``None`` for a message that is not ours).
    """

    def __init__(self, registry: GameRegistry, version: str = __version__) -> None:
        self.registry = registry
        self.version = version

    def check(self, custom: Mapping[str, Any]) -> tuple[Request | None, dict[str, Any] | None]:
        if not is_envelope(custom) or is_broadcast(custom):
            return None, None   # another script's message, or a note that is never answered
        custom = lua_json(custom)   # TTS sends every number as a float (2.0): ints before anything reads them
        request_id = custom.get("id")
        request_type = custom.get("type")
        if isinstance(request_id, bool) or not isinstance(request_id, (str, int, float)):
            return None, reply_error(None, _echoable(request_type), "bad_request", "the request has no string or number \"id\"")
        if not isinstance(request_type, str):
            request_type = _echoable(request_type)
        if isinstance(request_id, float) and not math.isfinite(request_id):
            return None, reply_error(None, request_type, "bad_request", "the request's \"id\" is not a finite number")
        if nesting_exceeds(custom, MAX_REQUEST_DEPTH):
            return None, reply_error(
                request_id, request_type, "bad_request", f"the request is nested more than {MAX_REQUEST_DEPTH} levels deep"
            )
        if custom.get("ttsmod") != ENVELOPE_VERSION:
            return None, reply_error(
                request_id, request_type, "bad_request", f"unsupported envelope version {custom.get('ttsmod')!r}; "
                f"this bridge speaks {ENVELOPE_VERSION}"
            )
        if not isinstance(request_type, str) or not request_type:
            return None, reply_error(request_id, request_type, "bad_request", "the request has no string \"type\"")
        body = custom.get("body", {})
        if body == [] or body is None:
            body = {}  # Lua encodes an empty table as []
        if not isinstance(body, dict):
            return None, reply_error(request_id, request_type, "bad_request", "\"body\" is not a JSON object")
        game = custom.get("game")
        if request_type == HELLO:
            return Request(request_id, request_type, game if isinstance(game, str) else None, body), None
        if not isinstance(game, str) or not game:
            return None, reply_error(request_id, request_type, "bad_request", "the request has no string \"game\"")
        if game not in self.registry:
            known = ", ".join(self.registry.ids()) or "none"
            return None, reply_error(
                request_id, request_type, "unknown_game", f"this bridge does not know the game {game!r} (it knows: {known})"
            )
        return Request(request_id, request_type, game, body), None

    def run(self, request: Request) -> dict[str, Any]:
        if request.type == HELLO:
            return reply_ok(request.id, request.type, {"bridge": self.version, "games": self.registry.ids()})
        try:
            service = self.registry.get(request.game)  # type: ignore[arg-type]
        except GameUnavailable as exc:
            log.error("%s", exc)
            return reply_error(request.id, request.type, "internal", str(exc))
        except Exception:
            log.error("loading game %r failed:\n%s", request.game, traceback.format_exc())
            return reply_error(request.id, request.type, "internal", f"the bridge failed to load {request.game!r}")
        if request.type not in service.request_types:
            return reply_error(
                request.id, request.type, "unknown_type",
                f"{request.game} has no request type {request.type!r} (it has: {', '.join(service.request_types)})",
            )
        try:
            body = service.handle(request.type, request.body)
        except ValueError as exc:
            code = exc.code if isinstance(exc, RulesError) else None
            if code in ERROR_CODES and code != "internal":
                return reply_error(request.id, request.type, code, str(exc))
            log.error("%s %s request %r failed:\n%s", request.game, request.type, request.id, traceback.format_exc())
            return reply_error(request.id, request.type, "internal", f"the {request.game} engine failed: {exc}")
        except Exception as exc:
            log.error("%s %s request %r failed:\n%s", request.game, request.type, request.id, traceback.format_exc())
            return reply_error(request.id, request.type, "internal", f"the {request.game} engine failed: {type(exc).__name__}")
        if not isinstance(body, dict):
            log.error("%s %s returned %s, not a dict", request.game, request.type, type(body).__name__)
            return reply_error(request.id, request.type, "internal", f"the {request.game} engine returned no reply body")
        return reply_ok(request.id, request.type, body)

    def reply(self, custom: Mapping[str, Any]) -> dict[str, Any] | None:
        """The reply to one custom message, or ``None`` when it is not addressed to ttsmod."""
        request, early = self.check(custom)
        if request is None:
            return early
        return self.run(request)


# --------------------------------------------------------------------------------------------------------
# Execute Lua: wrapping and results

_WRAPPER = """local __ttsmod_ok, __ttsmod_value = pcall(function()
{code}
end)
if __ttsmod_ok then
  local __ttsmod_encoded, __ttsmod_json = pcall(JSON.encode, {{ok = true, value = __ttsmod_value}})
  if __ttsmod_encoded then return __ttsmod_json end
  return JSON.encode({{ok = false, error = "the result cannot be written as JSON: " .. tostring(__ttsmod_json)}})
end
return JSON.encode({{ok = false, error = tostring(__ttsmod_value)}})
"""


def wrap_lua(code: str) -> str:
    """``code`` (a function body; ``return x`` gives a value) wrapped so that TTS always answers with a
    JSON string ``{"ok": true, "value": …}`` or ``{"ok": false, "error": "…"}`` — tables, nil and runtime
    errors all come back (TTS sends no reply at all for a raw table)."""
    return _WRAPPER.format(code=code)


@dataclass(frozen=True)
class ExecResult:
    """The outcome of :meth:`Session.execute`: ``value`` when ``ok``, else ``error`` (one line from Lua)."""

    ok: bool
    value: Any = None
    error: str | None = None


def exec_result(reply: ReturnValue, wrapped: bool, error: ErrorMessage | None = None) -> ExecResult:
    """Interpret the :class:`ReturnValue` of an (optionally wrapped) execution."""
    if not reply.has_value:
        if error is not None:
            return ExecResult(False, error=f"{error.error_message_prefix}{error.error}".strip())
        if wrapped:
            return ExecResult(False, error="TTS returned nothing: the code did not compile")
        return ExecResult(True, None)
    value = reply.value
    if wrapped and isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("ok"), bool):
            if decoded["ok"]:
                return ExecResult(True, decoded.get("value"))
            return ExecResult(False, error=str(decoded.get("error", "")))
    return ExecResult(True, value)


# --------------------------------------------------------------------------------------------------------
# The session


Sender = Callable[[ToTTS], Awaitable[None]]
ErrorLocator = Callable[[str, str], str | None]
"""``locate(error_text, bundle_text) -> "mod/…/file.lua:12"`` or ``None`` (see ``bridge.luaproject.errormap``)."""


@dataclass
class Stats:
    """Counters a user (and the tests) can read: what came in, what was refused, what failed to go out."""

    counts: Counter = field(default_factory=Counter)

    def __getitem__(self, key: str) -> int:
        return self.counts[key]


class Session:
    """The bridge's state between messages. Create inside a running event loop.

    ``send`` delivers one message to TTS (raising :class:`TtsNotRunning` when nothing listens); ``journal``
    records every message in and out; ``console(kind, text)`` shows TTS prints and errors;
    ``locate_error(error_text, bundle_text)`` maps a ``chunk_0:(line,col)`` position to a source line.
    """

    REPLY_BACKOFF = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
    """Delays between attempts to deliver a reply while TTS does not accept connections."""

    def __init__(
        self,
        registry: GameRegistry,
        send: Sender,
        *,
        journal: Any = None,
        console: Console | None = None,
        locate_error: ErrorLocator | None = None,
        version: str = __version__,
        echo_limit: int | None = None,
    ) -> None:
        self.dispatcher = Dispatcher(registry, version)
        self.echo_limit = echo_limit
        """Longest print or error shown on the console, in characters (``None``: no limit)."""
        self._send = send
        self.journal = journal if journal is not None else NullJournal()
        self.console = console
        self.locate_error = locate_error
        self.stats = Stats()
        self.scripts: dict[str, ScriptState] = {}
        """Last known script state of each object on the table, by guid (from "game loaded" and pushes)."""
        self._return_ids = itertools.count(1)
        self._returns: dict[int, asyncio.Future] = {}
        self._loaded_waiters: list[asyncio.Future] = []
        self._errors: deque[tuple[float, ErrorMessage]] = deque(maxlen=64)
        self._error_event = asyncio.Event()
        self._tasks: set[asyncio.Task] = set()
        self.listeners: list[Callable[[FromTTS], None]] = []
        """Extra callbacks run for every decoded message (watch mode, tests)."""

    # ---- sending

    async def send(self, message: ToTTS) -> None:
        """Send one message to TTS and journal it. Raises :class:`TtsNotRunning` if TTS is not listening."""
        self.journal.record("out", message.to_json())
        await self._send(message)
        self.stats.counts["sent"] += 1

    async def _deliver_reply(self, reply: dict[str, Any]) -> None:
        message = SendCustomMessage(custom_message=reply)
        self.journal.record("out", message.to_json())
        for attempt, delay in enumerate((0.0, *self.REPLY_BACKOFF)):
            if delay:
                await asyncio.sleep(delay)
            try:
                await self._send(message)
            except TtsNotRunning as exc:
                last = exc
                continue
            except (LocalProtocolError, RecursionError) as exc:
                if message.custom_message is not reply:
                    last = exc
                    break
                # The reply cannot be written as JSON (a non-finite number or deep nesting from the engine):
                # the mod still gets an answer to its request instead of waiting for one forever.
                log.error("the reply to request %r cannot be sent: %s", _echoable(reply.get("re")), exc)
                message = SendCustomMessage(custom_message=reply_error(
                    _echoable(reply.get("re")), _echoable(reply.get("type")), "internal",
                    "the bridge's reply could not be written as JSON",
                ))
                self.journal.record("out", message.to_json())
                last = exc
                continue
            except Exception as exc:  # a transport bug must not kill the session
                log.error("sending a reply failed:\n%s", traceback.format_exc())
                last = exc
                break
            self.stats.counts["replies"] += 1
            return
        self.stats.counts["reply_failures"] += 1
        log.warning("could not deliver the reply to request %r: %s", reply.get("re"), last)

    # ---- receiving

    def on_malformed(self, reason: str, size: int = 0) -> None:
        """A connection carried no usable message: count, journal and log it; nothing else happens."""
        self.stats.counts["malformed"] += 1
        self.stats.counts[f"malformed:{reason}"] += 1
        self.journal.record("in", None, malformed=reason, size=size)
        log.warning("ignored a malformed frame from TTS (%s, %d bytes)", reason, size)

    def on_message(self, message: FromTTS) -> None:
        """Handle one decoded message from TTS. Never raises; slow work is started as tasks."""
        self.stats.counts["received"] += 1
        self.journal.record("in", message.to_json())
        try:
            self._dispatch(message)
        except Exception:
            self.stats.counts["internal_errors"] += 1
            log.error("handling message %d failed:\n%s", message.message_id, traceback.format_exc())
        for listener in list(self.listeners):
            try:
                listener(message)
            except Exception:
                log.error("a message listener failed:\n%s", traceback.format_exc())

    def _dispatch(self, message: FromTTS) -> None:
        if isinstance(message, CustomMessage):
            self._on_custom(message.custom_message)
        elif isinstance(message, ReturnValue):
            future = self._returns.pop(message.return_id, None) if message.return_id is not None else None
            if future is None:
                self.stats.counts["unmatched_returns"] += 1
                log.info("a return value for no pending execution (returnID %r)", message.return_id)
            elif not future.done():
                future.set_result(message)
        elif isinstance(message, GameLoaded):
            self.scripts = {state.guid: state for state in message.script_states}
            waiters, self._loaded_waiters = self._loaded_waiters, []
            for future in waiters:
                if not future.done():
                    future.set_result(message)
            self._show("info", f"game loaded ({len(message.script_states)} scripted objects)")
        elif isinstance(message, PrintMessage):
            self._show("print", message.message)
        elif isinstance(message, ErrorMessage):
            self._errors.append((time.monotonic(), message))
            self._error_event.set()
            self._error_event = asyncio.Event()
            self._show("error", self.describe_error(message))
        elif isinstance(message, GameSaved):
            self._show("info", "game saved" + (f" to {message.save_path}" if message.save_path else ""))
        elif isinstance(message, ObjectCreated):
            log.debug("object created: %s", message.guid)
        elif isinstance(message, PushNewObject):
            names = ", ".join(f"{s.name} ({s.guid})" for s in message.script_states)
            self._show("info", f"TTS asks to edit the script of {names}; edit it under mod/ and push")

    def _show(self, kind: str, text: str) -> None:
        if self.echo_limit is not None and kind in ("print", "error"):
            text = clip_text(text, self.echo_limit)
        text = valid_unicode(text)   # a terminal, a log or a file can take it whatever TTS sent
        if self.console is not None:
            try:
                self.console(kind, text)
            except Exception:
                log.error("the console failed:\n%s", traceback.format_exc())

    def describe_error(self, message: ErrorMessage) -> str:
        """The error as one line, with ``(at mod/…/file.lua:N)`` when its position maps to a source file."""
        text = f"{message.error_message_prefix}{message.error}".strip()
        if self.locate_error is not None:
            state = self.scripts.get(message.guid)
            if state is not None and state.script:
                try:
                    where = self.locate_error(message.error, state.script)
                except Exception:
                    where = None
                if where:
                    text += f" (at {where})"
        return text

    def _on_custom(self, custom: Mapping[str, Any]) -> None:
        if is_broadcast(custom):
            self.stats.counts["broadcasts"] += 1   # journaled by on_message; nothing to answer
            return
        request, early = self.dispatcher.check(custom)
        if request is None and early is None:
            self.stats.counts["ignored_custom"] += 1
            log.info("ignored a custom message without \"ttsmod\" (another script's): %.200s", json.dumps(custom))
            return
        self.stats.counts["requests"] += 1
        if early is not None:
            self.stats.counts["bad_requests"] += 1
            self._spawn(self._deliver_reply(early))
        elif request.type == "hello":
            self._show("info", hello_line(request))
            self._spawn(self._deliver_reply(self.dispatcher.run(request)))
        else:
            self._spawn(self._answer(request))

    async def _answer(self, request: Request) -> None:
        reply = await asyncio.to_thread(self.dispatcher.run, request)
        await self._deliver_reply(reply)

    def _spawn(self, coroutine: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait until every reply started so far has been delivered (or given up)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # ---- editor operations

    async def execute(
        self, code: str, guid: str = GLOBAL_GUID, *, timeout: float = 5.0, wrap: bool = True
    ) -> ExecResult:
        """Run Lua in Global (or the object ``guid``) and return its result.

        With ``wrap`` (the default) the code runs inside :func:`wrap_lua`, so a table, nil or a runtime error
        all come back. Raises :class:`TtsNotRunning` or :class:`TtsTimeout` (no reply within ``timeout``).
        """
        loop = asyncio.get_running_loop()
        return_id = next(self._return_ids)
        future: asyncio.Future = loop.create_future()
        self._returns[return_id] = future
        sent_at = time.monotonic()
        try:
            await self.send(ExecuteLua(script=wrap_lua(code) if wrap else code, guid=guid, return_id=return_id))
            try:
                async with asyncio.timeout(timeout):
                    reply: ReturnValue = await future
            except TimeoutError:
                raise TtsTimeout(f"TTS sent no result within {timeout:g} s (is a game loaded?)") from None
        finally:
            self._returns.pop(return_id, None)
        error = None
        if not reply.has_value:
            error = await self._error_since(sent_at, guid, wait=0.5)
        return exec_result(reply, wrap, error)

    async def _error_since(self, since: float, guid: str, wait: float) -> ErrorMessage | None:
        """The first error for ``guid`` received after ``since``; waits up to ``wait`` s for a late one
        (messages arrive on separate connections, so the error may come after the return)."""
        deadline = time.monotonic() + wait
        while True:
            for when, error in self._errors:
                if when >= since and error.guid == guid:
                    return error
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                async with asyncio.timeout(remaining):
                    await self._error_event.wait()
            except TimeoutError:
                return None

    async def get_scripts(self, *, timeout: float = 10.0) -> GameLoaded:
        """Ask TTS for every scripted object's script and UI. Raises :class:`TtsTimeout` / :class:`TtsNotRunning`."""
        future = self._expect_loaded()
        try:
            await self.send(GetScripts())
            return await self._await_loaded(future, timeout, "the scripts")
        finally:
            future.cancel()

    def _expect_loaded(self) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self._loaded_waiters.append(future)
        return future

    async def _await_loaded(self, future: asyncio.Future, timeout: float, what: str) -> GameLoaded:
        try:
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            raise TtsTimeout(f"TTS did not send {what} within {timeout:g} s (is a game loaded?)") from None

    async def push(
        self,
        states: Sequence[ScriptState],
        *,
        fill_from_tts: bool = True,
        wait: bool = True,
        timeout: float = 30.0,
    ) -> GameLoaded | None:
        """Save & Play with ``states``; returns the "game loaded" that follows (``None`` when not ``wait``).

        Every object is sent with both its script and its UI. A state missing one of them is completed from
        what TTS currently has (one "get scripts" round trip, when ``fill_from_tts``); an object TTS does not
        know is sent with an empty UI. Raises :class:`PushRefused` — before sending anything — when the
        Global script is empty or an object's UI cannot be known.
        """
        states = list(states)
        incomplete = [s for s in states if s.script is None or s.ui is None]
        if incomplete:
            if not fill_from_tts:
                raise PushRefused(
                    "refusing to push without the UI of " + ", ".join(f"{s.name} ({s.guid})" for s in incomplete)
                    + ": TTS would delete it"
                )
            try:
                current = {s.guid: s for s in (await self.get_scripts(timeout=min(timeout, 10.0))).script_states}
            except TtsTimeout:
                raise PushRefused(
                    "TTS did not send the current scripts, so the UI of objects without an .xml file is unknown; "
                    "refusing to push (TTS would delete it)"
                ) from None
            states = [complete_state(s, current.get(s.guid)) for s in states]
        check_push(states)
        future = self._expect_loaded() if wait else None
        try:
            await self.send(SaveAndPlay(script_states=tuple(states)))
            for state in states:
                self.scripts[state.guid] = state
            if future is None:
                return None
            return await self._await_loaded(future, timeout, "\"game loaded\" after Save & Play")
        finally:
            if future is not None:
                future.cancel()


def _printable(value: Any, limit: int = 60) -> str:
    """Text from the network made safe for a terminal: no control or escape sequences, at most ``limit`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return "".join(ch if ch.isprintable() else "?" for ch in text[:limit])


def hello_line(request: Request) -> str:
    """What the console says when a mod says hello: ``hello from the <game id> mod 0.1.0``."""
    game = f"the {_printable(request.game)} mod" if request.game else "a mod"
    version = request.body.get("mod")
    return f"hello from {game} {_printable(version)}" if version is not None else f"hello from {game} (no version given)"


def clip_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a note of its full size, or unchanged when it fits."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [truncated: {len(text)} characters, {len(text.encode('utf-8', errors='replace'))} bytes]"


def complete_state(state: ScriptState, current: ScriptState | None) -> ScriptState:
    """``state`` with its missing script or UI taken from ``current`` (empty when TTS has none)."""
    script = state.script if state.script is not None else (current.script if current and current.script else "")
    ui = state.ui if state.ui is not None else (current.ui if current and current.ui else "")
    return ScriptState(name=state.name, guid=state.guid, script=script, ui=ui, extra=state.extra)


def check_push(states: Sequence[ScriptState]) -> None:
    """Raise :class:`PushRefused` if pushing ``states`` would damage the game: a blank Global script (it locks
    the save up), an object without a script or UI field (TTS deletes it), or the same guid twice."""
    seen: set[str] = set()
    for state in states:
        if state.script is None or state.ui is None:
            raise PushRefused(f"refusing to push {state.name} ({state.guid}) without its script and UI")
        if state.guid in seen:
            raise PushRefused(f"refusing to push: the guid {state.guid} appears twice")
        seen.add(state.guid)
        if state.guid == GLOBAL_GUID and not state.script.strip():
            raise PushRefused("refusing to push an empty Global script: TTS would lock the save up")


def message_summary(message: Message) -> str:
    """A short text naming a message, for logs."""
    return f"{type(message).__name__}({message.message_id})"
