"""The External Editor API of Tabletop Simulator as values and bytes, with no I/O (h11 style).

Facts (``docs/bridge.md`` and the shared TTS reference, §1):

* Two TCP endpoints on localhost. TTS listens on :data:`TTS_PORT` (39999) for messages from an editor; the
  editor (the bridge) listens on :data:`BRIDGE_PORT` (39998) for every message TTS emits. A reply never comes
  back on the request's connection: TTS opens a new connection to the editor.
* One JSON object per connection, in both directions: no length prefix, no delimiter; the message ends when
  the peer closes its side (end of stream).  TTS pretty-prints; never compare bytes, parse.
* UTF-8. Bytes are accumulated and decoded once at end of stream, so a character split across two reads is
  fine.

Rules of this module:

1. No sockets, no asyncio, no files: bytes in → typed messages out (:class:`MessageReceiver`, :func:`decode`),
   typed messages in → bytes out (:func:`encode`). The transport (``bridge.server``) only moves bytes.
2. Messages are frozen dataclasses. The ``messageID`` numbers overlap between the two directions, so each
   direction has its own base class: :class:`ToTTS` (editor → TTS) and :class:`FromTTS` (TTS → editor).
3. Tolerant where TTS varies: whitespace, unknown fields (kept in ``extra`` and written back by
   :func:`encode`), ``returnValue`` missing (nil) or a float, integral floats where an integer is meant.
   Strict where it matters: a size cap (:data:`DEFAULT_MAX_SIZE`), valid UTF-8, a JSON object with a known
   ``messageID`` and fields of the documented types.
4. Errors carry blame (h11): :class:`RemoteProtocolError` means the peer sent something we cannot use;
   :class:`LocalProtocolError` means our own code misused this module (encoding an invalid message, feeding a
   finished receiver). Both are :class:`ProtocolError`; nothing else escapes :func:`decode`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

BRIDGE_PORT = 39998
"""Where the editor (the bridge) listens; TTS connects here to deliver each message it emits."""

TTS_PORT = 39999
"""Where Tabletop Simulator listens for editor messages (fixed by TTS, bound to localhost)."""

DEFAULT_MAX_SIZE = 32 * 1024 * 1024
"""Largest message accepted by default, in bytes. Real "game loaded" messages are well under 1 MiB."""

GLOBAL_GUID = "-1"
"""The ``guid`` TTS uses for the Global script."""


# --------------------------------------------------------------------------------------------------------
# Errors


class ProtocolError(Exception):
    """Base of the protocol errors. ``reason`` is a short stable token for logs and counters."""

    reason = "protocol"

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason


class RemoteProtocolError(ProtocolError):
    """The peer sent bytes that are not a usable message (too large, not UTF-8, not a JSON object, …)."""


class LocalProtocolError(ProtocolError):
    """This program misused the protocol: an invalid message to encode, data fed after end of stream."""


# --------------------------------------------------------------------------------------------------------
# Messages


@dataclass(frozen=True)
class ScriptState:
    """One entry of ``scriptStates``: an object's Lua script and XML UI.

    ``script`` or ``ui`` is ``None`` when the field is absent. This matters when sending: TTS *deletes* the
    script or UI of a listed object whose field is missing (see :class:`SaveAndPlay`).
    """

    name: str
    guid: str
    script: str | None = None
    ui: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        data["name"] = self.name
        data["guid"] = self.guid
        if self.script is not None:
            data["script"] = self.script
        if self.ui is not None:
            data["ui"] = self.ui
        return data


class Message:
    """Base of every message. ``extra`` holds fields this module does not know, kept for round trips."""

    message_id: ClassVar[int]
    direction: ClassVar[str]
    extra: Mapping[str, Any]

    def fields(self) -> dict[str, Any]:  # pragma: no cover - overridden by each message
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """The JSON object put on the wire: ``messageID`` first, then the known fields, then ``extra``."""
        data: dict[str, Any] = {"messageID": self.message_id}
        for key, value in self.extra.items():
            if key != "messageID":
                data[key] = value
        data.update(self.fields())
        return data


class ToTTS(Message):
    """A message from the editor to TTS (sent to port 39999)."""

    direction = "to_tts"


class FromTTS(Message):
    """A message from TTS to the editor (received on port 39998)."""

    direction = "from_tts"


# ---- editor → TTS


@dataclass(frozen=True)
class GetScripts(ToTTS):
    """Id 0: ask for every scripted object's script and UI; TTS answers with :class:`GameLoaded`."""

    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 0

    def fields(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class SaveAndPlay(ToTTS):
    """Id 1: replace the listed objects' scripts and UI, then reload the game (answered by :class:`GameLoaded`).

    Every listed object must carry both ``script`` and ``ui`` (possibly empty strings): a missing field makes
    TTS delete that script or UI. Objects not listed keep theirs.
    """

    script_states: tuple[ScriptState, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 1

    def fields(self) -> dict[str, Any]:
        return {"scriptStates": [state.to_json() for state in self.script_states]}


@dataclass(frozen=True)
class SendCustomMessage(ToTTS):
    """Id 2: deliver ``custom_message`` (a JSON object) to the mod's ``onExternalMessage``."""

    custom_message: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 2

    def fields(self) -> dict[str, Any]:
        return {"customMessage": dict(self.custom_message)}


@dataclass(frozen=True)
class ExecuteLua(ToTTS):
    """Id 3: run ``script`` in Global (``guid="-1"``) or an object's script; TTS answers :class:`ReturnValue`.

    ``return_id`` is echoed by TTS in the reply (undocumented but sent by every real client).
    """

    script: str
    guid: str = GLOBAL_GUID
    return_id: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 3

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {"guid": self.guid, "script": self.script}
        if self.return_id is not None:
            data["returnID"] = self.return_id
        return data


# ---- TTS → editor


@dataclass(frozen=True)
class PushNewObject(FromTTS):
    """Id 0: the user chose "Scripting Editor" on an object without a script."""

    script_states: tuple[ScriptState, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 0

    def fields(self) -> dict[str, Any]:
        return {"scriptStates": [state.to_json() for state in self.script_states]}


@dataclass(frozen=True)
class GameLoaded(FromTTS):
    """Id 1: a game was loaded (also after Save & Play and in answer to :class:`GetScripts`).

    ``script_states`` lists the objects on the table that have a script or UI; ``save_path`` is the
    undocumented path of the save file, or ``None``.
    """

    script_states: tuple[ScriptState, ...] = ()
    save_path: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 1

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {"scriptStates": [state.to_json() for state in self.script_states]}
        if self.save_path is not None:
            data["savePath"] = self.save_path
        return data


@dataclass(frozen=True)
class PrintMessage(FromTTS):
    """Id 2: a Lua ``print()``."""

    message: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 2

    def fields(self) -> dict[str, Any]:
        return {"message": self.message}


@dataclass(frozen=True)
class ErrorMessage(FromTTS):
    """Id 3: a Lua error. ``error`` holds the position, e.g. ``chunk_0:(36,4-8): unexpected symbol``."""

    error: str = ""
    guid: str = GLOBAL_GUID
    error_message_prefix: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 3

    def fields(self) -> dict[str, Any]:
        return {"error": self.error, "guid": self.guid, "errorMessagePrefix": self.error_message_prefix}


@dataclass(frozen=True)
class CustomMessage(FromTTS):
    """Id 4: a table the mod passed to ``sendExternalMessage``."""

    custom_message: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 4

    def fields(self) -> dict[str, Any]:
        return {"customMessage": dict(self.custom_message)}


@dataclass(frozen=True)
class ReturnValue(FromTTS):
    """Id 5: the result of an :class:`ExecuteLua`.

    ``has_value`` is false when TTS omitted ``returnValue`` (the code returned nil, or failed to compile);
    then ``value`` is ``None``. ``return_id`` is ``None`` when TTS sent none.
    """

    return_id: int | None = None
    value: Any = None
    has_value: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 5

    def fields(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.return_id is not None:
            data["returnID"] = self.return_id
        if self.has_value:
            data["returnValue"] = self.value
        return data


@dataclass(frozen=True)
class GameSaved(FromTTS):
    """Id 6: the player saved; ``save_path`` (undocumented) names the file, or is ``None``."""

    save_path: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 6

    def fields(self) -> dict[str, Any]:
        return {} if self.save_path is None else {"savePath": self.save_path}


@dataclass(frozen=True)
class ObjectCreated(FromTTS):
    """Id 7: the player created an object."""

    guid: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    message_id: ClassVar[int] = 7

    def fields(self) -> dict[str, Any]:
        return {"guid": self.guid}


TO_TTS: dict[int, type[ToTTS]] = {cls.message_id: cls for cls in (GetScripts, SaveAndPlay, SendCustomMessage, ExecuteLua)}
FROM_TTS: dict[int, type[FromTTS]] = {
    cls.message_id: cls
    for cls in (PushNewObject, GameLoaded, PrintMessage, ErrorMessage, CustomMessage, ReturnValue, GameSaved, ObjectCreated)
}


# --------------------------------------------------------------------------------------------------------
# Encoding


def encode(message: Message) -> bytes:
    """The bytes of one connection carrying ``message`` (compact UTF-8 JSON; the sender then closes).

    Raises :class:`LocalProtocolError` when the message cannot be written as JSON (a non-finite float, an
    object that is not JSON data). A string holding a lone surrogate (JSON from TTS may spell ``"\\ud800"``,
    which UTF-8 cannot) is sent as the same ``\\u`` escape, so an id or a text comes back to TTS as it came.
    """
    if not isinstance(message, Message):
        raise LocalProtocolError(f"not a protocol message: {type(message).__name__}", "not_a_message")
    data = message.to_json()
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise LocalProtocolError(f"message {message.message_id} is not JSON data: {exc}", "not_json") from exc
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # escaping every non-ASCII character is valid JSON and valid UTF-8, and escapes the surrogates too
        return json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


# --------------------------------------------------------------------------------------------------------
# Decoding

_KNOWN: dict[type[Message], tuple[str, ...]] = {
    GetScripts: (),
    SaveAndPlay: ("scriptStates",),
    SendCustomMessage: ("customMessage",),
    ExecuteLua: ("script", "guid", "returnID"),
    PushNewObject: ("scriptStates",),
    GameLoaded: ("scriptStates", "savePath"),
    PrintMessage: ("message",),
    ErrorMessage: ("error", "guid", "errorMessagePrefix"),
    CustomMessage: ("customMessage",),
    ReturnValue: ("returnID", "returnValue"),
    GameSaved: ("savePath",),
    ObjectCreated: ("guid",),
}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _as_int(value: Any, what: str) -> int:
    """An integer, accepting integral floats (Lua numbers arrive as ``2.0``)."""
    if isinstance(value, bool):
        raise RemoteProtocolError(f"{what} is a boolean, not a number", "bad_field")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    raise RemoteProtocolError(f"{what} is not an integer: {value!r}", "bad_field")


def _as_str(data: Mapping[str, Any], key: str, default: str | None, *, optional: bool = False) -> str | None:
    value = data.get(key, default)
    if value is None and optional:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key == "guid":
        # A guid is a string in TTS; tolerate a number that a script produced.
        return str(_as_int(value, key)) if isinstance(value, float) else str(value)
    raise RemoteProtocolError(f"{key} is not a string: {value!r}", "bad_field")


def _as_object(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if isinstance(value, dict):
        return value
    if value == []:
        # Lua's JSON.encode writes an empty table as an empty array.
        return {}
    raise RemoteProtocolError(f"{key} is not a JSON object", "bad_field")


def _script_states(data: Mapping[str, Any]) -> tuple[ScriptState, ...]:
    raw = data.get("scriptStates", [])
    if raw is None or raw == {}:
        return ()
    if not isinstance(raw, list):
        raise RemoteProtocolError("scriptStates is not a list", "bad_field")
    states = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise RemoteProtocolError(f"scriptStates[{index}] is not an object", "bad_field")
        try:
            guid = _as_str(entry, "guid", None)
            name = _as_str(entry, "name", "")
            script = _as_str(entry, "script", None, optional=True)
            ui = _as_str(entry, "ui", None, optional=True)
        except RemoteProtocolError as exc:
            raise RemoteProtocolError(f"scriptStates[{index}].{exc}", "bad_field") from None
        extra = {k: v for k, v in entry.items() if k not in ("name", "guid", "script", "ui")}
        states.append(ScriptState(name=name or "", guid=guid or "", script=script, ui=ui, extra=extra))
    return tuple(states)


def message_from_json(data: Any, direction: str = FromTTS.direction) -> Message:
    """The typed message for a decoded JSON value sent in ``direction`` (``"from_tts"`` or ``"to_tts"``).

    Raises :class:`RemoteProtocolError` when ``data`` is not an object, has no known ``messageID`` or a field
    of the wrong type.
    """
    if not isinstance(data, dict):
        raise RemoteProtocolError(f"a message must be a JSON object, not {type(data).__name__}", "not_object")
    if "messageID" not in data:
        raise RemoteProtocolError("the object has no messageID", "no_message_id")
    message_id = _as_int(data["messageID"], "messageID")
    table = FROM_TTS if direction == FromTTS.direction else TO_TTS
    cls = table.get(message_id)
    if cls is None:
        raise RemoteProtocolError(f"unknown messageID {message_id}", "unknown_message_id")
    extra = {k: v for k, v in data.items() if k != "messageID" and k not in _KNOWN[cls]}
    if cls is GetScripts:
        return GetScripts(extra=extra)
    if cls is SaveAndPlay:
        return SaveAndPlay(script_states=_script_states(data), extra=extra)
    if cls is SendCustomMessage:
        return SendCustomMessage(custom_message=_as_object(data, "customMessage"), extra=extra)
    if cls is ExecuteLua:
        return_id = data.get("returnID")
        return ExecuteLua(
            script=_as_str(data, "script", ""),
            guid=_as_str(data, "guid", GLOBAL_GUID),
            return_id=None if return_id is None else _as_int(return_id, "returnID"),
            extra=extra,
        )
    if cls is PushNewObject:
        return PushNewObject(script_states=_script_states(data), extra=extra)
    if cls is GameLoaded:
        return GameLoaded(
            script_states=_script_states(data), save_path=_as_str(data, "savePath", None, optional=True), extra=extra
        )
    if cls is PrintMessage:
        message = data.get("message", "")
        # print() of a number or boolean still reaches us; show it as text rather than refusing it.
        return PrintMessage(message=message if isinstance(message, str) else json.dumps(message), extra=extra)
    if cls is ErrorMessage:
        return ErrorMessage(
            error=_as_str(data, "error", ""),
            guid=_as_str(data, "guid", GLOBAL_GUID),
            error_message_prefix=_as_str(data, "errorMessagePrefix", ""),
            extra=extra,
        )
    if cls is CustomMessage:
        return CustomMessage(custom_message=_as_object(data, "customMessage"), extra=extra)
    if cls is ReturnValue:
        return_id = data.get("returnID")
        return ReturnValue(
            return_id=None if return_id is None else _as_int(return_id, "returnID"),
            value=data.get("returnValue"),
            has_value="returnValue" in data,
            extra=extra,
        )
    if cls is GameSaved:
        return GameSaved(save_path=_as_str(data, "savePath", None, optional=True), extra=extra)
    assert cls is ObjectCreated
    return ObjectCreated(guid=_as_str(data, "guid", ""), extra=extra)


def decode(data: bytes, direction: str = FromTTS.direction, *, max_size: int = DEFAULT_MAX_SIZE) -> Message:
    """The message carried by the complete bytes of one connection.

    Raises :class:`RemoteProtocolError` (with ``reason`` one of ``too_large``, ``empty``, ``not_utf8``,
    ``not_json``, ``not_object``, ``no_message_id``, ``unknown_message_id``, ``bad_field``).
    """
    if len(data) > max_size:
        raise RemoteProtocolError(f"message of {len(data)} bytes exceeds the {max_size}-byte cap", "too_large")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RemoteProtocolError(f"message is not UTF-8 (byte {exc.start})", "not_utf8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise RemoteProtocolError("the connection closed without a message", "empty")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise RemoteProtocolError(f"message is not JSON: {exc}", "not_json") from None
    return message_from_json(value, direction)


class MessageReceiver:
    """Collects the bytes of one connection and yields its message at end of stream.

    Feed every chunk read with :meth:`receive_data`, then call :meth:`finish` when the peer closed. The
    size cap is enforced as bytes arrive, so a transport can stop reading an oversized message early:
    :meth:`receive_data` raises :class:`RemoteProtocolError` (``too_large``) as soon as the cap is passed.
    A receiver is single use: feeding it after :meth:`finish` raises :class:`LocalProtocolError`.
    """

    def __init__(self, direction: str = FromTTS.direction, *, max_size: int = DEFAULT_MAX_SIZE) -> None:
        if max_size <= 0:
            raise LocalProtocolError("max_size must be positive", "bad_argument")
        self.direction = direction
        self.max_size = max_size
        self._chunks: list[bytes] = []
        self._size = 0
        self._finished = False

    @property
    def size(self) -> int:
        """Bytes received so far."""
        return self._size

    def receive_data(self, data: bytes) -> None:
        """Add a chunk. Raises :class:`RemoteProtocolError` once the message exceeds the size cap."""
        if self._finished:
            raise LocalProtocolError("data fed to a receiver after end of stream", "after_finish")
        if not data:
            return
        self._size += len(data)
        if self._size > self.max_size:
            self._chunks.clear()
            self._finished = True
            raise RemoteProtocolError(f"message exceeds the {self.max_size}-byte cap", "too_large")
        self._chunks.append(bytes(data))

    def finish(self) -> Message:
        """End of stream: decode the whole message (see :func:`decode` for the errors)."""
        if self._finished:
            raise LocalProtocolError("receiver already finished", "after_finish")
        self._finished = True
        data = b"".join(self._chunks)
        self._chunks.clear()
        return decode(data, self.direction, max_size=self.max_size)


def valid_unicode(text: str) -> str:
    """``text`` with each lone surrogate (``"\\ud800"`` in TTS's JSON; no encoder writes one) as its escape
    ``\\ud800``; other text unchanged."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
