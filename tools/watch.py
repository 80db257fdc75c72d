"""``ttsmod watch``: file changes under ``assets/<game>/`` and ``mod/`` → rebuild → update the running game; or,
for a folder ``ttsmod unpack`` wrote, its edits → pack → push (one object's script or UI in place:
:class:`TreeUpdater`).

Editors fire several file-system events per save (write a temp file, rename, touch), so events are collected
by a :class:`Debouncer` and acted on once the folders have been quiet for ``quiet`` seconds: a burst of edits is
one action. A batch is classified by :func:`classify`:

* Lua or XML under ``mod/`` → the scripts are bundled again and pushed (Save & Play);
* anything under ``assets/<game>/`` (the game folder) → an incremental build (which draws the build's
  ``preview.png`` again when the save changed: reported); the objects whose sheets changed
  are updated in place through Execute Lua (no reload). That includes the CSV and XLSX card lists its
  ``game.toml`` names in ``[sheets]`` (:func:`tools.buildstamp.sheet_files`; they lie in the game folder): an edited
  spreadsheet rebuilds like an edited ``cards.toml``, even in a folder whose name is otherwise ignored, while
  the lock files a spreadsheet program keeps beside an open workbook (``~$cards.xlsx``, ``.~lock.cards.xlsx#``)
  are not changes.

A watched folder that is deleted, or moved away, is noticed (:meth:`Watcher.check_folders`, every
``recheck`` seconds and at once when the file-system watcher reports it): the user is warned, and when a folder
is there again at that path (recreated, checked out again, moved back) it is watched again and every file in it
counts as changed. Without this the watch went deaf: a file-system watch follows the folder it was set on, which
is gone, and later edits were never acted on.

The build half is reached through :class:`BuildHooks` so tests can put fakes in its place; the default hooks
import ``tools.build`` (and with it Pillow) only when a watch starts.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from tools.buildstamp import sheet_files

log = logging.getLogger("ttsmod.watch")

IGNORED_SUFFIXES = (".swp", ".swx", ".tmp", ".bak", ".pyc", "~")
IGNORED_PREFIXES = (".", "#", "~$")
"""Hidden files (LibreOffice's ``.~lock.<file>#`` among them), Emacs' ``#autosave#`` and the owner files
``~$<file>`` Microsoft Office keeps beside an open document (created on opening, deleted on closing)."""
IGNORED_PARTS = ("__pycache__", ".git", "build", "cache", ".cache")
MAX_RESCAN_FILES = 10_000
"""Most files of a folder that is back counted as changed (a game folder holds a few hundred)."""


def is_ignored(path: Path, root: Path | None = None) -> bool:
    """Editor droppings, hidden files, caches and build output are not changes to act on.

    Folder names are only looked at below ``root`` (the watched folder), never above it.
    """
    name = path.name
    if not name or name.startswith(IGNORED_PREFIXES) or name.endswith(IGNORED_SUFFIXES):
        return True
    if root is None:
        return False
    try:
        parts = path.relative_to(root).parts[:-1]
    except ValueError:
        return False
    return any(part in IGNORED_PARTS or part.startswith(".") for part in parts)


class Debouncer:
    """Collects paths and releases them as one batch once no new path arrived for ``quiet`` seconds.

    Pure: the caller passes the time (``now``), so the behaviour is testable without sleeping.
    """

    def __init__(self, quiet: float = 0.3) -> None:
        self.quiet = quiet
        self._paths: set[Path] = set()
        self._last: float | None = None

    def add(self, path: Path, now: float) -> None:
        self._paths.add(path)
        self._last = now

    @property
    def pending(self) -> bool:
        return bool(self._paths)

    def wait_time(self, now: float) -> float | None:
        """Seconds until the current batch is due, ``0`` if due now, ``None`` when nothing is pending."""
        if not self._paths or self._last is None:
            return None
        return max(0.0, self._last + self.quiet - now)

    def take(self, now: float) -> frozenset[Path] | None:
        """The batch if the quiet period has passed (and forget it), else ``None``."""
        wait = self.wait_time(now)
        if wait is None or wait > 0:
            return None
        batch = frozenset(self._paths)
        self._paths.clear()
        self._last = None
        return batch


@dataclass(frozen=True)
class Change:
    """What a batch of paths asks for."""

    scripts: bool = False
    assets: frozenset[Path] = frozenset()

    def __bool__(self) -> bool:
        return self.scripts or bool(self.assets)


def classify(paths: Iterable[Path], mod_root: Path, game_assets: Path) -> Change:
    """Sort changed paths into script changes (``.lua``/``.ttslua``/``.xml`` under ``mod_root``) and asset changes
    (any file under ``game_assets``, the spreadsheets of its ``[sheets]`` in any of its folders); everything else
    is dropped."""
    scripts = False
    assets: set[Path] = set()
    mod_root, game_assets = mod_root.resolve(), game_assets.resolve()
    sheets: frozenset[Path] | None = None
    for path in paths:
        path = Path(path).resolve()
        if path.is_relative_to(game_assets):
            if not is_ignored(path, game_assets):
                assets.add(path)
            else:
                sheets = sheet_files(game_assets) if sheets is None else sheets
                if path in sheets:
                    assets.add(path)
        elif path.is_relative_to(mod_root) and path.suffix.lower() in (".lua", ".ttslua", ".xml"):
            if is_ignored(path, mod_root):
                continue
            scripts = True
    return Change(scripts=scripts, assets=frozenset(assets))


class Watcher:
    """Watches folders with watchdog and calls ``on_batch(frozenset of paths)`` once per quiet burst.

    ``on_batch`` runs on the watcher's own thread, one batch at a time; its exceptions are logged and the
    watcher continues. :meth:`wait_idle` (for tests and shutdown) returns when no batch is pending or running.
    Every ``recheck`` seconds (never when ``None``) the folders are checked (:meth:`check_folders`);
    ``report(kind, text)`` (kind ``"warning"`` or ``"info"``, called on the watcher's threads) says when a
    folder has gone and when it is watched again.
    """

    def __init__(self, folders: Iterable[Path], on_batch: Callable[[frozenset[Path]], None], *, quiet: float = 0.3,
                 recheck: float | None = 1.0, report: Callable[[str, str], None] | None = None) -> None:
        self.folders = [Path(f).resolve() for f in folders]
        self.on_batch = on_batch
        self.debouncer = Debouncer(quiet)
        self.recheck = recheck
        self.report = report or _log_report
        self.batches = 0
        self._cond = threading.Condition()
        self._running_batch = False
        self._stop = False
        self._check_requested = False
        self._observer: Any = None
        self._handler: Any = None
        self._thread: threading.Thread | None = None
        self._sheet_cache: dict[Path, tuple[Any, frozenset[Path]]] = {}
        self._folder_lock = threading.Lock()
        self._watches: dict[Path, tuple[Any, tuple[int, int]]] = {}
        """Each watched folder's watchdog watch and the identity (device, inode) of the folder it was set on."""
        self._gone: set[Path] = set()
        self._unwatchable: set[Path] = set()
        self._roots = {str(folder) for folder in self.folders}

    def _sheets(self, folder: Path) -> frozenset[Path]:
        """:func:`sheet_files` of a watched folder that is a game folder, read again when its game.toml changes
        (only for paths the ignore rules would drop, so a common edit costs no TOML parse)."""
        try:
            stat = (folder / "game.toml").stat()
            stamp: Any = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            return frozenset()
        cached = self._sheet_cache.get(folder)
        if cached is None or cached[0] != stamp:
            cached = self._sheet_cache[folder] = (stamp, sheet_files(folder))
        return cached[1]

    def notify(self, path: str | Path) -> None:
        """Record one changed path (what the watchdog handler calls; tests may call it directly)."""
        path = Path(path)
        root = next((f for f in self.folders if path.is_relative_to(f)), None)
        if is_ignored(path, root) and not (root is not None and path.resolve() in self._sheets(root)):
            return
        with self._cond:
            self.debouncer.add(path, time.monotonic())
            self._cond.notify_all()

    def request_check(self) -> None:
        """Have the watcher's thread check the folders now (the watchdog handler calls it when a watched
        folder itself is deleted or moved)."""
        with self._cond:
            self._check_requested = True
            self._cond.notify_all()

    def check_folders(self) -> None:
        """Notice each watched folder that has gone, or is there again: warn once when one is gone (its watch
        is dropped); when a folder is at its path again, or another folder stands there (its identity changed,
        or the file-system watch on it has ended), watch it again, say so, and count every file in it as
        changed (edits made while it was away are not lost). A folder missing when the watch starts is watched
        once it appears."""
        with self._folder_lock:
            for folder in self.folders:
                self._check_folder(folder)

    def _check_folder(self, folder: Path) -> None:
        identity = _identity(folder)
        watched = self._watches.get(folder)
        if identity is None:
            if watched is not None:
                self._unschedule(watched[0])
                del self._watches[folder]
            if folder not in self._gone:
                self._gone.add(folder)
                self.report("warning", f"{folder} is gone (deleted or moved away): nothing in it is watched until "
                                       "a folder is there again" if watched is not None else
                                       f"{folder} does not exist: it is watched once it does")
            return
        if watched is not None and watched[1] == identity and self._alive(watched[0]):
            return
        again = watched is not None or folder in self._gone
        if watched is not None:
            self._unschedule(watched[0])
        try:
            watch = self._observer.schedule(self._handler, str(folder), recursive=True)
        except OSError as exc:   # gone again in between, or out of inotify watches: tried at the next check
            self._watches.pop(folder, None)
            if folder not in self._unwatchable:   # said once, not at every check
                self._unwatchable.add(folder)
                self.report("warning", f"cannot watch {folder}: {exc.strerror or exc}")
            return
        self._watches[folder] = (watch, identity)
        self._gone.discard(folder)
        self._unwatchable.discard(folder)
        if again:
            self.report("info", f"watching {folder} again; every file in it counts as changed")
            for path in _files_under(folder):
                self.notify(path)

    def _alive(self, watch: Any) -> bool:
        """Whether the file-system watch still runs (watchdog ends it when its folder is deleted)."""
        emitter = next((e for e in list(self._observer.emitters) if e.watch == watch), None)
        return emitter is not None and emitter.is_alive()

    def _unschedule(self, watch: Any) -> None:
        try:
            self._observer.unschedule(watch)
        except (KeyError, OSError):
            pass   # already ended with its folder

    def start(self) -> "Watcher":
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.is_directory:
                    if event.event_type in ("deleted", "moved") and _text(event.src_path) in watcher._roots:
                        watcher.request_check()
                    return
                if event.event_type in ("opened", "closed_no_write"):
                    return
                for value in (event.src_path, event.dest_path):   # dest_path is "" unless moved
                    if value:
                        watcher.notify(_text(value))

        self._observer = Observer()
        self._handler = Handler()
        self.check_folders()
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="ttsmod-watch", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        next_check = time.monotonic() + self.recheck if self.recheck is not None else None
        while True:
            with self._cond:
                while not self._stop:
                    now = time.monotonic()
                    if self._check_requested or (next_check is not None and now >= next_check):
                        break
                    wait = self.debouncer.wait_time(now)
                    if wait == 0:
                        break
                    timeouts = [t for t in (wait, next_check - now if next_check is not None else None)
                                if t is not None]
                    self._cond.wait(timeout=min(timeouts) if timeouts else 1.0)
                if self._stop:
                    return
                check = self._check_requested or (next_check is not None and time.monotonic() >= next_check)
                self._check_requested = False
                batch = None if check else self.debouncer.take(time.monotonic())
                if batch:
                    self._running_batch = True
            if check:
                try:
                    self.check_folders()
                except Exception:
                    log.exception("checking the watched folders failed")
                if self.recheck is not None:
                    next_check = time.monotonic() + self.recheck
                continue
            # What happened in a folder that is gone (its files deleted with it) is not acted on: once a folder
            # is there again all its files count as changed.
            gone = [folder for folder in self.folders if _identity(folder) is None]
            batch = frozenset(path for path in batch or () if not any(path.is_relative_to(f) for f in gone))
            if not batch:
                with self._cond:
                    self._running_batch = False
                    self._cond.notify_all()
                continue
            try:
                self.on_batch(batch)
            except Exception:
                log.exception("acting on changed files failed")
            finally:
                with self._cond:
                    self._running_batch = False
                    self.batches += 1
                    self._cond.notify_all()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until nothing is pending or running; ``False`` if ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.debouncer.pending or self._running_batch:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(timeout=min(remaining, 0.1))
        return True

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        if self._thread is not None:
            self._thread.join(timeout=5)


def _log_report(kind: str, text: str) -> None:
    (log.warning if kind == "warning" else log.info)("%s", text)


def _text(path: str | bytes) -> str:
    return path if isinstance(path, str) else os.fsdecode(path)


def _identity(folder: Path) -> tuple[int, int] | None:
    """(device, inode) of the folder at ``folder``, or None when no folder is there (a link is not followed:
    a watched folder is a folder)."""
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _files_under(folder: Path) -> list[Path]:
    """The files in ``folder`` and its sub-folders (links not followed), skipping the folders a watch ignores,
    at most :data:`MAX_RESCAN_FILES`, in a stable order."""
    found: list[Path] = []
    for current, folders, files in os.walk(folder):
        here = Path(current)
        folders[:] = sorted(name for name in folders if name not in IGNORED_PARTS)
        for name in sorted(files):
            found.append(here / name)
            if len(found) >= MAX_RESCAN_FILES:
                return found
    return found


# --------------------------------------------------------------------------------------------------------
# What a change does


@dataclass
class BuildHooks:
    """The build functions the watcher needs (``tools.build`` by default; fakes in tests).

    ``bundle_scripts(game) -> mapping`` as ``tools.build.bundle_scripts``; ``build(game, **options) ->
    BuildResult`` with ``.save`` (the save dict) and ``.changed_sheets``.
    """

    bundle_scripts: Callable[[str], Any]
    build: Callable[..., Any]
    build_options: dict[str, Any] = field(default_factory=dict)


def default_hooks(**build_options: Any) -> BuildHooks:
    """Hooks bound to ``tools.build`` (imported now: it brings Pillow)."""
    from tools import build as build_module

    return BuildHooks(build_module.bundle_scripts, build_module.build, dict(build_options))


class GameUpdater:
    """Turns a :class:`Change` into bridge operations: push scripts, or update changed objects in place.

    ``push(states)`` and ``execute(lua) -> ExecResult`` are blocking callables (the CLI wraps the session's
    coroutines with ``asyncio.run_coroutine_threadsafe``); ``report(kind, text)`` tells the user what happened.
    """

    def __init__(
        self,
        game: str,
        hooks: BuildHooks,
        push: Callable[[list], Any],
        execute: Callable[[str], Any],
        report: Callable[[str, str], None] = lambda kind, text: None,
    ) -> None:
        self.game = game
        self.hooks = hooks
        self.push = push
        self.execute = execute
        self.report = report

    def apply(self, change: Change) -> None:
        from bridge.luaproject.editor import affected_objects, live_update_lua, states_from_bundle_scripts

        if change.assets:
            result = self.hooks.build(self.game, **self.hooks.build_options)
            # the build drew the table from above again if the save changed (tools.build.write_preview)
            if getattr(result, "preview_written", False):
                self.report("info", f"redrew {result.preview_path}")
            objects = affected_objects(result.save, result.changed_sheets)
            lua = live_update_lua(objects)
            if lua is None:
                self.report("info", f"rebuilt {self.game}: no sheet on the table changed")
            else:
                outcome = self.execute(lua)
                if outcome.ok:
                    value = outcome.value or {}
                    updated = value.get("updated", []) if isinstance(value, dict) else []
                    missing = value.get("missing", []) if isinstance(value, dict) else []
                    text = f"updated {len(updated)} object(s) in place"
                    if missing:
                        text += f"; not on the table: {', '.join(map(str, missing))}"
                    self.report("info", text)
                else:
                    self.report("error", f"updating objects in place failed: {outcome.error}")
        if change.scripts:
            states = states_from_bundle_scripts(self.hooks.bundle_scripts(self.game))
            self.push(states)
            self.report("info", f"pushed {len(states)} script(s) of {self.game} (Save & Play)")


# --------------------------------------------------------------------------------------------------------
# Watching an unpacked tree


def is_tree(source: str | os.PathLike[str]) -> bool:
    """Whether ``source`` is a folder ``ttsmod unpack`` wrote (it holds a ``save.json``) rather than a game."""
    path = Path(source)
    return path.is_dir() and (path / "save.json").is_file() and not (path / "game.toml").is_file()


def tree_paths(paths: Iterable[Path], folder: Path) -> frozenset[Path]:
    """The changed paths that are files of the tree ``folder`` (its hidden entries, unpack's own swap folder among
    them, and editor droppings left out)."""
    folder = folder.resolve()
    found: set[Path] = set()
    for path in paths:
        path = Path(path).resolve()
        if path.is_relative_to(folder) and not is_ignored(path, folder):
            found.add(path)
    return frozenset(found)


class TreeUpdater:
    """Turns edits of an unpacked tree into bridge operations: the tree is packed (``DIR.json`` beside it, so the
    save is always the tree's), then what changed is sent. When only objects' scripts or UIs changed (and not
    Global's script, and no object came or went), just those objects are updated in place, without reloading
    the table (``update(states)``, :func:`tools.live.apply_object_updates`); otherwise every script and UI is
    pushed (``push(states)``, Save & Play). Other edits (``object.json``, ``save.json``) reach TTS with the save
    only: the report says so.

    ``push`` and ``update`` are blocking callables; ``report(kind, text)`` tells the user what happened.
    """

    def __init__(self, folder: str | os.PathLike[str], push: Callable[[list], Any], update: Callable[[list], Any],
                 report: Callable[[str, str], None] = lambda kind, text: None) -> None:
        self.folder = Path(folder)
        self.push = push
        self.update = update
        self.report = report
        self.known: dict[str, Any] | None = None
        try:
            self.known = self._states()
        except Exception as exc:   # a broken tree at the start: its first good state is pushed whole
            report("warning", f"{self.folder}: {exc}; the first edit that mends it pushes every script")

    def _states(self) -> dict[str, Any]:
        from bridge.luaproject.savetree import script_states

        return {state.guid: state for state in script_states(self.folder)}

    def apply(self, paths: Iterable[Path]) -> None:
        from bridge.luaproject.savetree import pack
        from bridge.protocol import GLOBAL_GUID

        changed = tree_paths(paths, self.folder)
        if not changed:
            return
        result, _ = pack(self.folder)
        states = self._states()
        known = self.known
        packed = f"packed {result.save.name}"
        if known is None or set(known) != set(states) or (
                states[GLOBAL_GUID].script != known[GLOBAL_GUID].script):
            self.push(list(states.values()))
            self.known = states
            self.report("info", f"{packed}; pushed {len(states)} script(s) of {self.folder.name} (Save & Play)")
            return
        edited = [s for guid, s in states.items() if (s.script, s.ui) != (known[guid].script, known[guid].ui)]
        if not edited:
            self.report("info", f"{packed}; no script or UI changed (other edits reach TTS with the save: "
                                "install it and load it)")
            return
        outcome = self.update(edited)
        self.known = states   # what failed to go out is sent again at the next edit
        self.report("info", f"{packed}; {outcome.summary()}")
