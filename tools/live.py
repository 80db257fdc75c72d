"""The live bridge's wiring beneath the commands: its journal, where a game's root script is, serving (with a
watch of a game's files), pushing scripts and reading them back.

The commands (``tools/commands/``) parse options, call these and print; everything here reports through
callables it is given (``report(kind, text)``), never to the terminal itself.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from bridge.errors import TtsmodError
from bridge.protocol import ScriptState


def open_journal(path: str | os.PathLike[str] | None, disabled: bool, record_limit: int | None = None):
    """The bridge's journal: a :class:`bridge.journal.NullJournal` when ``disabled``, else a
    :class:`bridge.journal.Journal` at ``path`` (default: the user's data folder).

    Raises :class:`TtsmodError` (one sentence naming the file) when it cannot be opened.
    """
    from bridge.journal import DEFAULT_RECORD_LIMIT, Journal, NullJournal, default_journal_path

    if disabled:
        return NullJournal()
    target = Path(path) if path else default_journal_path()
    try:
        return Journal(target, record_limit=record_limit or DEFAULT_RECORD_LIMIT)
    except OSError as exc:
        raise TtsmodError(f"cannot open the journal {target}: {exc.strerror or exc}") from None


def game_root_file(game: str) -> str | None:
    """``mod/<its mod folder>/global.lua`` of GAME (the folder its metadata names), for error positions, when
    that file exists. Raises :class:`bridge.errors.DataError` for a GAME that is neither a game id nor a game
    folder."""
    from bridge.catalog import resolve_game
    from bridge.paths import mod_dir

    folder = resolve_game(game).meta.mod
    path = mod_dir() / folder / "global.lua"
    return f"{mod_dir().name}/{folder}/global.lua" if path.is_file() else None


async def serve(bridge: Any, *, report: Callable[[str, str], None], watch_game: str | None = None,
                hooks: Any = None, quiet: float = 0.3, ready: Callable[[Any], None] | None = None,
                stop: asyncio.Event | None = None) -> None:
    """Run ``bridge`` until cancelled (or ``stop`` is set), watching ``watch_game`` if given.

    While watching, Lua edits under ``mod/`` are pushed and edits of the game's folder update the objects on the
    table (:class:`tools.watch.GameUpdater`); ``report(kind, text)`` (kind ``"info"`` or ``"error"``) is called
    on the event loop's thread with what happened. ``ready(bridge)`` is called once the bridge listens.
    """
    from bridge.catalog import resolve_game_dir
    from bridge.paths import mod_dir
    from tools.watch import GameUpdater, Watcher, classify, default_hooks

    async with bridge:
        loop = asyncio.get_running_loop()
        watcher = None
        if watch_game is not None:
            game_assets = resolve_game_dir(watch_game)
            hooks = hooks or default_hooks()
            session = bridge.session

            def push(states: list) -> Any:
                return asyncio.run_coroutine_threadsafe(
                    session.push(states, fill_from_tts=False, wait=False), loop
                ).result(timeout=60)

            def execute(lua: str) -> Any:
                return asyncio.run_coroutine_threadsafe(session.execute(lua, timeout=30), loop).result(timeout=60)

            def report_from_watcher(kind: str, text: str) -> None:
                loop.call_soon_threadsafe(report, kind, text)

            updater = GameUpdater(watch_game, hooks, push, execute, report_from_watcher)

            def on_batch(paths: frozenset) -> None:
                change = classify(paths, mod_dir(), game_assets)
                if not change:
                    return
                try:
                    updater.apply(change)
                except TtsmodError as exc:
                    report_from_watcher("error", f"error: {exc}")

            watcher = Watcher([game_assets, mod_dir()], on_batch, quiet=quiet).start()
        try:
            if ready is not None:
                ready(bridge)
            if stop is not None:
                await stop.wait()
            else:
                await bridge.serve_forever()
        finally:
            if watcher is not None:
                await asyncio.to_thread(watcher.stop)


# --------------------------------------------------------------------------------------------------------
# push, pull, exec


def script_states_for(source: str, lua_path: Sequence[str] = ()) -> list[ScriptState]:
    """Script states from a tree written by ``ttsmod unpack`` (it holds a ``save.json``), a pulled folder
    (``<Name>.<guid>.lua|.xml``; scripts that require modules are bundled with ``lua_path`` or the folder's
    search path, :mod:`tools.scriptfolder`) or a game's bundled scripts (a game id or a game folder, which holds
    a ``game.toml``)."""
    from bridge.editor import states_from_bundle_scripts

    path = Path(source)
    if path.is_dir() and (path / "save.json").is_file():
        from tools.savetree import script_states   # a tree written by ttsmod unpack

        return script_states(path)
    if path.is_dir() and not (path / "game.toml").is_file():
        from tools.scriptfolder import push_states

        return push_states(path, lua_path)
    from tools.build import bundle_scripts   # brings Pillow: only when a game is pushed

    return states_from_bundle_scripts(bundle_scripts(source))


@dataclass(frozen=True)
class PushResult:
    """What a push did: ``objects`` sent; ``reloaded`` the scripted objects TTS reported after reloading (None
    when not waited for); ``busy_port`` the bridge port another editor held (then TTS's answer went there)."""

    objects: int
    reloaded: int | None = None
    busy_port: int | None = None

    def summary(self) -> str:
        """One line for the user."""
        if self.busy_port is not None:
            return (f"pushed {self.objects} object(s); port {self.busy_port} is busy, so not waiting for TTS to "
                    "reload")
        if self.reloaded is None:
            return f"pushed {self.objects} object(s)"
        return f"pushed {self.objects} object(s); TTS reloaded the game ({self.reloaded} scripted objects)"


async def push_scripts(bridge: Any, states: list[ScriptState], *, wait: bool, timeout: float) -> PushResult:
    """Save & Play with ``states`` through ``bridge`` (not yet started).

    When the bridge's port is held by another editor (perhaps a running bridge), a complete push (every state
    with a script and a UI) is sent directly, since it needs no answer; an incomplete one raises
    :class:`bridge.server.PortInUse`. A refused push raises :class:`bridge.errors.TtsmodError`.
    """
    from bridge.protocol import SaveAndPlay
    from bridge.server import PortInUse, send_message
    from bridge.session import check_push

    try:
        await bridge.start()
    except PortInUse:
        # Another editor receives TTS's answers; a complete push needs none.
        if any(s.script is None or s.ui is None for s in states):
            raise
        check_push(states)
        await send_message(SaveAndPlay(script_states=tuple(states)), bridge.tts_host, bridge.tts_port)
        return PushResult(len(states), busy_port=bridge.port)
    try:
        loaded = await bridge.session.push(states, wait=wait, timeout=timeout)
    finally:
        await bridge.close()
    return PushResult(len(states), None if loaded is None else len(loaded.script_states))


async def pull_scripts(bridge: Any, *, timeout: float) -> list[ScriptState]:
    """Every scripted object's script state, as TTS reports it (``bridge`` not yet started)."""
    async with bridge:
        loaded = await bridge.session.get_scripts(timeout=timeout)
    return list(loaded.script_states)


async def execute_lua(bridge: Any, code: str, guid: str, *, timeout: float):
    """Run ``code`` in TTS on the object ``guid`` (``"-1"``: Global) and return its
    :class:`bridge.session.ExecResult` (``bridge`` not yet started)."""
    async with bridge:
        return await bridge.session.execute(code, guid, timeout=timeout)
