"""A Lua runner for :class:`bridge.faketts.FakeTTS` that really runs the code (lupa), the way TTS answers an
editor: each object's script is loaded first as ``chunk_0``, each executed code as the next chunk; ``print``
becomes a print message; an error becomes an error message (then a return without a value); ``Wait.time``
callbacks run after the return, their errors sent as the script's own errors. Positions are written as
MoonSharp writes them (``chunk_0:(3,1-1): boom``)."""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from bridge.protocol import ErrorMessage, ExecuteLua, FromTTS, PrintMessage, ReturnValue

_POSITION = re.compile(r"chunk_(\d+):(\d+):")


def tts_positions(text: str) -> str:
    return _POSITION.sub(lambda m: f"chunk_{m.group(1)}:({m.group(2)},1-1):", text)


class ObjectLua:
    def __init__(self, guid: str, script: str) -> None:
        import lupa

        self.guid = guid
        self.lua = lupa.LuaRuntime(unpack_returned_tuples=False)
        self.lupa = lupa
        self.out: list[FromTTS] = []
        self.waits: list[Any] = []
        self.chunks = 0
        g = self.lua.globals()
        g.print = lambda *args: self.out.append(PrintMessage(message="\t".join(self._str(a) for a in args)))
        json_table = self.lua.table()
        json_table.encode = lambda value: json.dumps(self._py(value), sort_keys=True)
        g.JSON = json_table
        wait = self.lua.table()
        wait.time = lambda fn, seconds=0: self.waits.append(fn)
        g.Wait = wait
        self._load = g.load
        fn, err = self.load(script, "=chunk_0")
        assert fn is not None, err
        fn()

    def load(self, code: str, name: str) -> tuple[Any, Any]:
        loaded = self._load(code, name)
        return loaded if isinstance(loaded, tuple) else (loaded, None)

    def _str(self, value: Any) -> str:
        return self.lua.globals().tostring(value)

    def _py(self, value: Any) -> Any:
        if self.lupa.lua_type(value) == "table":
            items = dict(value.items())
            if all(isinstance(k, int) for k in items) and sorted(items) == list(range(1, len(items) + 1)):
                return [self._py(items[k]) for k in sorted(items)]
            return {str(k): self._py(v) for k, v in items.items()}
        return value

    def _error(self, text: str, prefix: str) -> None:
        self.out.append(ErrorMessage(error=tts_positions(text), guid=self.guid, error_message_prefix=prefix))

    def execute(self, message: ExecuteLua) -> list[FromTTS]:
        self.out = []
        self.chunks += 1
        fn, err = self.load(message.script, f"=chunk_{self.chunks}")
        reply = ReturnValue(return_id=message.return_id)
        if fn is None:
            self._error(str(err), "Error in Script: ")
        else:
            try:
                value = fn()
            except self.lupa.LuaError as exc:
                self._error(str(exc), "Error in Script: ")
            else:
                if value is not None:
                    reply = ReturnValue(return_id=message.return_id, value=tts_positions(str(value)),
                                        has_value=True)
        out = [*self.out, reply]
        self.out = []
        for callback in self.waits:
            outcome = self.lua.globals().pcall(callback)
            ok, error = outcome if isinstance(outcome, tuple) else (outcome, None)
            if not ok:
                self._error(str(error), "Error in Global Script: " if self.guid == "-1" else "Error in Script: ")
        self.waits = []
        return out + self.out


class FakeLua:
    """``lua`` for :class:`FakeTTS`: one Lua state per scripted object."""

    def __init__(self, scripts: Iterable[Any]) -> None:
        self.objects = {s.guid: ObjectLua(s.guid, s.script or "") for s in scripts if s.script}

    def __call__(self, message: ExecuteLua) -> list[FromTTS]:
        runner = self.objects.get(message.guid)
        if runner is None:
            return [ErrorMessage(error="Object reference not set to an instance of an object", guid=message.guid,
                                 error_message_prefix="Error in Script: "), ReturnValue(return_id=message.return_id)]
        return runner.execute(message)
