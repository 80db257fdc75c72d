"""A stand-in for Tabletop Simulator's side of the External Editor API, for tests and benchmarks.

:class:`FakeTTS` listens where TTS would (an ephemeral port on 127.0.0.1 by default), decodes every message an
editor sends it and answers like TTS does: "get scripts" and "save & play" with a "game loaded" message that
reflects the pushed scripts, "execute Lua" through a pluggable ``lua`` function. It sends its own messages
(custom messages, prints, errors, raw bytes) to the editor's port one connection each, as TTS does.

It holds no real Lua: ``lua(script, guid) -> list of messages`` decides what an execution produces; the
default answers every execution with nil.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Iterable, Mapping

from bridge.protocol import (
    GLOBAL_GUID,
    ExecuteLua,
    FromTTS,
    GameLoaded,
    GetScripts,
    Message,
    MessageReceiver,
    ProtocolError,
    ReturnValue,
    SaveAndPlay,
    ScriptState,
    SendCustomMessage,
    ToTTS,
    CustomMessage,
    encode,
)
from bridge.server import write_frame

LuaRunner = Callable[[ExecuteLua], Iterable[FromTTS]]


class FakeTTS:
    """TTS's half of the protocol on ``host:port`` (``port=0`` picks a free one), talking to ``bridge_port``."""

    def __init__(
        self,
        bridge_port: int = 0,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        scripts: Iterable[ScriptState] = (),
        lua: LuaRunner | None = None,
        save_path: str = "TS_Save_1.json",
    ) -> None:
        self.host = host
        self.port = port
        self.bridge_port = bridge_port
        self.scripts: dict[str, ScriptState] = {s.guid: s for s in scripts}
        self.lua = lua
        self.save_path = save_path
        self.received: list[ToTTS] = []
        self.custom: asyncio.Queue[Mapping[str, Any]] = asyncio.Queue()
        self.messages: asyncio.Queue[ToTTS] = asyncio.Queue()
        self.malformed = 0
        self.reloads = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> "FakeTTS":
        self._server = await asyncio.start_server(self._on_connection, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def __aenter__(self) -> "FakeTTS":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- TTS → editor

    async def send_bytes(self, data: bytes, *, timeout: float = 5.0) -> None:
        """Open a connection to the editor, write ``data``, close (one frame)."""
        async with asyncio.timeout(timeout):
            await write_frame(self.host, self.bridge_port, data)

    async def send(self, message: FromTTS) -> None:
        await self.send_bytes(encode(message))

    async def send_custom(self, custom: Mapping[str, Any]) -> None:
        """What Lua's ``sendExternalMessage(custom)`` does."""
        await self.send(CustomMessage(custom_message=dict(custom)))

    async def next_custom(self, timeout: float = 5.0) -> Mapping[str, Any]:
        """The next custom message the editor sent (message 2)."""
        async with asyncio.timeout(timeout):
            return await self.custom.get()

    async def next_message(self, timeout: float = 5.0) -> ToTTS:
        async with asyncio.timeout(timeout):
            return await self.messages.get()

    # ---- editor → TTS

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        receiver = MessageReceiver(ToTTS.direction)
        try:
            async with asyncio.timeout(10):
                while chunk := await reader.read(65536):
                    receiver.receive_data(chunk)
            message = receiver.finish()
        except (ProtocolError, TimeoutError, OSError):
            self.malformed += 1
            return
        finally:
            writer.close()
        self.received.append(message)
        self.messages.put_nowait(message)
        if isinstance(message, SendCustomMessage):
            self.custom.put_nowait(message.custom_message)
        replies = self._react(message)
        if replies:
            task = asyncio.ensure_future(self._send_all(replies))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _react(self, message: Message) -> list[FromTTS]:
        if isinstance(message, GetScripts):
            return [self.game_loaded()]
        if isinstance(message, SaveAndPlay):
            for state in message.script_states:
                # TTS deletes a listed object's script or UI when the field is missing.
                self.scripts[state.guid] = ScriptState(state.name, state.guid, state.script or "", state.ui or "")
            self.reloads += 1
            return [self.game_loaded()]
        if isinstance(message, ExecuteLua):
            if self.lua is None:
                return [ReturnValue(return_id=message.return_id)]
            return list(self.lua(message))
        return []

    def game_loaded(self) -> GameLoaded:
        """The "game loaded" message for the current scripts (objects with neither script nor UI omitted)."""
        states = tuple(
            ScriptState(s.name, s.guid, s.script or "", s.ui or None)
            for s in self.scripts.values()
            if s.script or s.ui or s.guid == GLOBAL_GUID
        )
        return GameLoaded(script_states=states, save_path=self.save_path)

    async def _send_all(self, messages: Iterable[FromTTS]) -> None:
        for message in messages:
            try:
                await self.send(message)
            except (OSError, TimeoutError):
                pass
