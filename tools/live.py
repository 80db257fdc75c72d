"""The live bridge's wiring beneath the commands: its journal, where a game's root script is, serving (with a
watch of a game's files), pushing scripts and reading them back.

The commands (``tools/commands/``) parse options, call these and print; everything here reports through
callables it is given (``report(kind, text)``), never to the terminal itself.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
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
    table (:class:`tools.watch.GameUpdater`); ``watch_game`` may also be a tree ``ttsmod unpack`` wrote, whose
    edits are packed and pushed, one object in place when only its script or UI changed
    (:class:`tools.watch.TreeUpdater`); ``report(kind, text)`` (kind ``"info"``, ``"warning"`` or
    ``"error"``) is called on the event loop's thread with what happened (a warning when a watched folder has
    gone: :meth:`tools.watch.Watcher.check_folders`). ``ready(bridge)`` is called once the bridge listens.
    """
    from bridge.catalog import resolve_game_dir
    from bridge.paths import mod_dir
    from tools.watch import GameUpdater, TreeUpdater, Watcher, classify, default_hooks, is_tree

    async with bridge:
        loop = asyncio.get_running_loop()
        watcher = None
        if watch_game is not None and is_tree(watch_game):
            session = bridge.session

            def push_tree(states: list) -> Any:
                return asyncio.run_coroutine_threadsafe(
                    session.push(states, fill_from_tts=False, wait=False), loop).result(timeout=60)

            def update_tree(states: list) -> Any:
                return asyncio.run_coroutine_threadsafe(
                    apply_object_updates(session, states, timeout=30), loop).result(timeout=90)

            def report_tree(kind: str, text: str) -> None:
                loop.call_soon_threadsafe(report, kind, text)

            tree_updater = TreeUpdater(watch_game, push_tree, update_tree, report_tree)

            def on_tree_batch(paths: frozenset) -> None:
                try:
                    tree_updater.apply(paths)
                except TtsmodError as exc:
                    report_tree("error", f"error: {exc}")

            watcher = Watcher([Path(watch_game)], on_tree_batch, quiet=quiet, report=report_tree).start()
        elif watch_game is not None:
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

            watcher = Watcher([game_assets, mod_dir()], on_batch, quiet=quiet, report=report_from_watcher).start()
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
    """The script states :func:`push_plan` gives for ``source`` (without the tagged objects of a game, whose
    GUIDs only the live table knows)."""
    return push_plan(source, lua_path).states


@dataclass(frozen=True)
class PushPlan:
    """What ``ttsmod push`` sends: ``states`` known before asking TTS, and ``tag_scripts`` (tag → script) for
    the objects of the live table that carry a tag (a game's ``[scripts]`` table), looked up when pushing."""

    states: list[ScriptState]
    tag_scripts: dict[str, str] = field(default_factory=dict)


def push_plan(source: str, lua_path: Sequence[str] = ()) -> PushPlan:
    """What to push for a tree written by ``ttsmod unpack`` (it holds a ``save.json``), a pulled folder
    (``<Name>.<guid>.lua|.xml``) or a game (a game id or a game folder, which holds a ``game.toml``). In a tree
    and a pulled folder, scripts that require modules are bundled with ``lua_path`` or the folder's search path
    and XML includes are expanded (:mod:`bridge.luaproject.scriptfolder`); a game gives its Global and its
    ``[scripts]``."""
    from bridge.luaproject.editor import states_from_bundle_scripts

    path = Path(source)
    if path.is_dir() and (path / "save.json").is_file():
        from bridge.luaproject.savetree import script_states   # a tree written by ttsmod unpack

        return PushPlan(script_states(path, lua_path))
    if path.is_dir() and not (path / "game.toml").is_file():
        from bridge.luaproject.scriptfolder import push_states

        return PushPlan(push_states(path, lua_path))
    from tools.build import push_scripts_of   # brings Pillow: only when a game is pushed

    global_scripts, tag_scripts = push_scripts_of(source)
    return PushPlan(states_from_bundle_scripts(global_scripts), dict(tag_scripts))


TAGGED_LUA = """local found = {{}}
for _, tag in ipairs({{{tags}}}) do
  local objects = {{}}
  for _, obj in ipairs(getObjectsWithTag(tag)) do
    table.insert(objects, {{guid = obj.getGUID(), name = obj.getName(), type = obj.name}})
  end
  found[tag] = objects
end
return found
"""


async def tagged_states(session: Any, tag_scripts: dict[str, str], *, timeout: float) -> list[ScriptState]:
    """A script state (script, no UI: the push keeps the one TTS has) for every object of the live table that
    carries a tag of ``tag_scripts``, found with one Execute Lua round trip (``getObjectsWithTag``).
    :class:`TtsmodError` when the lookup fails or an object carries two such tags (exit 1)."""
    from bridge.luaproject.bundle import lua_string

    tags = sorted(tag_scripts)
    lua = TAGGED_LUA.format(tags=", ".join(lua_string(tag) for tag in tags))
    result = await session.execute(lua, timeout=timeout)
    if not result.ok:
        raise TtsmodError(f"could not look up the tagged objects on the table: {result.error}")
    found = result.value if isinstance(result.value, dict) else {}
    owner: dict[str, str] = {}
    states: list[ScriptState] = []
    for tag in tags:
        objects = found.get(tag)
        for obj in objects if isinstance(objects, list) else ():
            if not isinstance(obj, dict) or not isinstance(obj.get("guid"), str) or not obj["guid"]:
                continue
            guid = obj["guid"]
            if guid in owner:
                raise TtsmodError(f"the object {guid} on the table has the tags {owner[guid]} and {tag}, each with "
                                  "a script in [scripts]; give it one")
            owner[guid] = tag
            name = obj.get("name") or obj.get("type") or guid
            states.append(ScriptState(str(name), guid, tag_scripts[tag], None))
    return states


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


async def push_scripts(bridge: Any, states: list[ScriptState], *, wait: bool, timeout: float,
                       tag_scripts: dict[str, str] | None = None) -> PushResult:
    """Save & Play with ``states`` through ``bridge`` (not yet started), and with ``tag_scripts`` given to the
    objects of the table that carry their tag (:func:`tagged_states`; each keeps its UI).

    When the bridge's port is held by another editor (perhaps a running bridge), a complete push (every state
    with a script and a UI, no tags to look up) is sent directly, since it needs no answer; any other raises
    :class:`bridge.server.PortInUse`. A refused push raises :class:`bridge.errors.TtsmodError`.
    """
    from bridge.protocol import SaveAndPlay
    from bridge.server import PortInUse, send_message
    from bridge.session import check_push

    try:
        await bridge.start()
    except PortInUse:
        # Another editor receives TTS's answers; a complete push needs none.
        if tag_scripts or any(s.script is None or s.ui is None for s in states):
            raise
        check_push(states)
        await send_message(SaveAndPlay(script_states=tuple(states)), bridge.tts_host, bridge.tts_port)
        return PushResult(len(states), busy_port=bridge.port)
    try:
        if tag_scripts:
            known = {s.guid for s in states}
            states = states + [s for s in await tagged_states(bridge.session, tag_scripts, timeout=timeout)
                               if s.guid not in known]
        loaded = await bridge.session.push(states, wait=wait, timeout=timeout)
    finally:
        await bridge.close()
    return PushResult(len(states), None if loaded is None else len(loaded.script_states))


@dataclass(frozen=True)
class UpdateResult:
    """What an in-place update did: ``scripts`` the objects given a new script (each reloaded alone), ``uis``
    those given a new UI, ``unchanged`` those whose files match what TTS has, ``missing`` those not on the
    table."""

    scripts: tuple[str, ...] = ()
    uis: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    def summary(self) -> str:
        parts = []
        if self.scripts:
            parts.append(f"new script for {', '.join(self.scripts)} (that object reloaded alone)"
                         if len(self.scripts) == 1 else f"new scripts for {', '.join(self.scripts)} (each reloaded alone)")
        if self.uis:
            parts.append(f"new UI for {', '.join(self.uis)}")
        if self.unchanged:
            parts.append(f"unchanged: {', '.join(self.unchanged)}")
        text = "updated in place, no reload of the table: " + "; ".join(parts) if parts else "nothing to update"
        if self.missing:
            text += f"; not on the table: {', '.join(self.missing)}"
        return text


def select_states(states: Sequence[ScriptState], guids: Sequence[str], source: str) -> list[ScriptState]:
    """The states of ``guids``, in that order; :class:`bridge.errors.InputError` for a GUID ``source`` has no
    script or UI for."""
    from bridge.errors import InputError

    by_guid = {s.guid: s for s in states}
    unknown = [g for g in guids if g not in by_guid]
    if unknown:
        known = ", ".join(sorted(by_guid)[:12]) + (" …" if len(by_guid) > 12 else "")
        raise InputError(f"{source}: no script or UI for the object {unknown[0]} (objects with files: {known})")
    seen: set[str] = set()
    return [by_guid[g] for g in guids if not (g in seen or seen.add(g))]


async def apply_object_updates(session: Any, states: Sequence[ScriptState], *, timeout: float,
                               current: dict[str, ScriptState] | None = None) -> UpdateResult:
    """Set the script and UI of each of ``states`` in the running game through one Execute Lua, without
    Save & Play (:func:`bridge.luaproject.editor.object_update_lua`): what differs from what TTS has (asked
    with one Get Scripts unless ``current`` is given) is set; an object whose script changes is reloaded alone.
    :class:`TtsmodError` when TTS reports an error (exit 1); :class:`bridge.errors.InputError` for a change of
    Global's script (exit 2), before anything is sent."""
    from bridge.luaproject.editor import object_update_lua, object_updates

    if current is None:
        current = {s.guid: s for s in (await session.get_scripts(timeout=timeout)).script_states}
    updates = object_updates(states, current)
    lua = object_update_lua(updates)
    unchanged = tuple(u.guid for u in updates if u.script is None and u.ui is None)
    if lua is None:
        return UpdateResult(unchanged=unchanged)
    result = await session.execute(lua, timeout=timeout)
    if not result.ok:
        raise TtsmodError(f"updating the objects in place failed: {result.error}")
    value = result.value if isinstance(result.value, dict) else {}
    missing = tuple(str(g) for g in value.get("missing") or [] if isinstance(g, str))
    done = [u for u in updates if u.guid not in missing and (u.script is not None or u.ui is not None)]
    return UpdateResult(tuple(u.guid for u in done if u.script is not None),
                        tuple(u.guid for u in done if u.ui is not None and u.script is None), unchanged, missing)


async def update_objects(bridge: Any, states: Sequence[ScriptState], *, timeout: float) -> UpdateResult:
    """:func:`apply_object_updates` through ``bridge`` (not yet started)."""
    async with bridge:
        return await apply_object_updates(bridge.session, states, timeout=timeout)


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
