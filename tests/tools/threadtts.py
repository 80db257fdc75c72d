"""A :class:`bridge.faketts.FakeTTS` on its own event loop in a thread, so commands run through click's
``CliRunner`` (which run their own ``asyncio.run``) can talk to it: ``--port`` / ``--tts-port`` from
:meth:`ThreadTTS.args`."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Iterable

from bridge.faketts import FakeTTS
from bridge.protocol import ScriptState
from tests.livebridge import free_port


class ThreadTTS:
    def __init__(self, scripts: Iterable[ScriptState] = (), **options: Any) -> None:
        self.bridge_port = free_port()
        self.loop = asyncio.new_event_loop()
        self.tts = FakeTTS(self.bridge_port, scripts=scripts, **options)
        self.thread = threading.Thread(target=self.loop.run_forever, name="fake-tts", daemon=True)

    def __enter__(self) -> "ThreadTTS":
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.tts.start(), self.loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.tts.close(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def args(self) -> list[str]:
        """The network options of a command talking to this TTS."""
        return ["--port", str(self.bridge_port), "--tts-port", str(self.tts.port), "--timeout", "5"]

    def scripts(self) -> dict[str, ScriptState]:
        """What the table holds now (read on the TTS thread)."""
        async def copy() -> dict[str, ScriptState]:
            return dict(self.tts.scripts)

        return asyncio.run_coroutine_threadsafe(copy(), self.loop).result(timeout=10)

    def scripts_once(self, ready, timeout: float = 5.0) -> dict[str, ScriptState]:
        """:meth:`scripts` as soon as ``ready(scripts)`` holds: a command run with ``--no-wait`` returns once it has
        sent, before this TTS has read what it sent."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            table = self.scripts()
            if ready(table) or time.monotonic() > deadline:
                return table
            time.sleep(0.02)
