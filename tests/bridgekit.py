"""What the bridge tests share: a toy game service, a Lua-backed fake TTS, and a way to run both (the ``kit``
fixture of tests/conftest.py is this module, for the tests of tests/bridge/ and of a game's tests/games/<game>/).

Everything listens on 127.0.0.1 ephemeral ports; every wait has a time limit so a broken bridge fails a test
instead of hanging it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from bridge import protocol as p
from bridge.faketts import FakeTTS
from bridge.games import FunctionService, GameRegistry
from bridge.server import Bridge

TOY = "toy"


class ToyGame:
    """``double`` → ``{"n": 2n}``; ``boom`` → a bug; ``refuse`` → a RulesError; ``wait`` blocks until released."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def handle(self, request_type: str, body: dict) -> dict:
        from bridge.rules.errors import IllegalAction

        if request_type == "double":
            return {"n": body["n"] * 2}
        if request_type == "boom":
            raise RuntimeError("engine bug")
        if request_type == "refuse":
            raise IllegalAction("not your turn")
        if request_type == "wait":
            assert self.release.wait(20), "the test never released the slow request"
            return {"waited": True}
        raise AssertionError(request_type)


def toy_registry(game: ToyGame | None = None) -> GameRegistry:
    game = game or ToyGame()
    registry = GameRegistry()
    registry.register_service(TOY, FunctionService(("double", "boom", "refuse", "wait"), game.handle))
    return registry


def lua_runner():
    """An ``ExecuteLua`` handler that runs the code in real Lua (lupa) the way TTS would answer it:
    a value → message 5 with it; nil → message 5 without ``returnValue``; a compile error → message 3
    without returnID, then an empty message 5. ``JSON.encode`` is provided as in TTS."""
    lupa = pytest.importorskip("lupa")

    def to_python(value: Any) -> Any:
        if lupa.lua_type(value) == "table":
            keys = list(value.keys())
            if keys and all(isinstance(k, int) for k in keys) and sorted(keys) == list(range(1, len(keys) + 1)):
                return [to_python(value[k]) for k in sorted(keys)]
            return {str(k): to_python(value[k]) for k in keys}
        if lupa.lua_type(value) is not None:
            raise TypeError(f"cannot encode a Lua {lupa.lua_type(value)}")
        return value

    def run(message: p.ExecuteLua) -> list[p.FromTTS]:
        lua = lupa.LuaRuntime(unpack_returned_tuples=False)
        lua.globals().JSON = lua.table_from({"encode": lambda v: json.dumps(to_python(v))})
        lua.globals().getObjectFromGUID = lambda guid: None
        try:
            function = lua.execute(f"return function() {message.script}\nend")
        except lupa.LuaSyntaxError as exc:
            return [
                p.ErrorMessage(error=f"chunk_0:(1,0): {exc}", guid=message.guid, error_message_prefix="Error: "),
                p.ReturnValue(return_id=message.return_id),
            ]
        try:
            value = function()
        except lupa.LuaError as exc:
            return [p.ErrorMessage(error=str(exc), guid=message.guid), p.ReturnValue(return_id=message.return_id)]
        if value is None:
            return [p.ReturnValue(return_id=message.return_id)]
        if lupa.lua_type(value) == "table":
            return []  # TTS sends no reply at all for a raw table
        return [p.ReturnValue(return_id=message.return_id, value=value, has_value=True)]

    return run


async def start_pair(registry: GameRegistry | None = None, **bridge_options: Any) -> tuple[FakeTTS, Bridge]:
    """A fake TTS and a bridge on ephemeral 127.0.0.1 ports, wired to each other."""
    tts = await FakeTTS().start()
    bridge = Bridge(registry=registry or toy_registry(), port=0, tts_port=tts.port, **bridge_options)
    await bridge.start()
    tts.bridge_port = bridge.port
    return tts, bridge


async def stop_pair(tts: FakeTTS, bridge: Bridge) -> None:
    await bridge.close()
    await tts.close()


def run(coroutine: Any, limit: float = 60.0) -> Any:
    """``asyncio.run`` with an overall time limit."""

    async def bounded() -> Any:
        async with asyncio.timeout(limit):
            return await coroutine

    return asyncio.run(bounded())


async def wait_for(condition, limit: float = 10.0) -> None:
    """Poll ``condition()`` until it is true (bounded)."""
    async with asyncio.timeout(limit):
        while not condition():
            await asyncio.sleep(0.005)


def request(id: Any, type: str, body: Any = None, game: str = TOY) -> dict:
    return {"ttsmod": 1, "id": id, "type": type, "game": game, "body": {} if body is None else body}
