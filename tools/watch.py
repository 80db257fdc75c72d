"""``ttsmod watch``: file changes under ``assets/<game>/`` and ``mod/`` → rebuild → update the running game.

Editors fire several file-system events per save (write a temp file, rename, touch), so events are collected
by a :class:`Debouncer` and acted on once the folders have been quiet for ``quiet`` seconds: a burst of edits is
one action. A batch is classified by :func:`classify`:

* Lua or XML under ``mod/`` → the scripts are bundled again and pushed (Save & Play);
* anything under ``assets/<game>/`` (the game folder) → an incremental build; the objects whose sheets changed
  are updated in place through Execute Lua (no reload). That includes the CSV and XLSX card lists its
  ``game.toml`` names in ``[sheets]`` (:func:`tools.buildstamp.sheet_files`; they lie in the game folder): an edited
  spreadsheet rebuilds like an edited ``cards.toml``, even in a folder whose name is otherwise ignored, while
  the lock files a spreadsheet program keeps beside an open workbook (``~$cards.xlsx``, ``.~lock.cards.xlsx#``)
  are not changes.

The build half is reached through :class:`BuildHooks` so tests can put fakes in its place; the default hooks
import ``tools.build`` (and with it Pillow) only when a watch starts.
"""

from __future__ import annotations

import logging
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
    """

    def __init__(self, folders: Iterable[Path], on_batch: Callable[[frozenset[Path]], None], *, quiet: float = 0.3) -> None:
        self.folders = [Path(f).resolve() for f in folders]
        self.on_batch = on_batch
        self.debouncer = Debouncer(quiet)
        self.batches = 0
        self._cond = threading.Condition()
        self._running_batch = False
        self._stop = False
        self._observer: Any = None
        self._thread: threading.Thread | None = None
        self._sheet_cache: dict[Path, tuple[Any, frozenset[Path]]] = {}

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

    def start(self) -> "Watcher":
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.is_directory or event.event_type in ("opened", "closed_no_write"):
                    return
                for value in (event.src_path, event.dest_path):   # dest_path is "" unless moved
                    if value:
                        watcher.notify(value if isinstance(value, str) else value.decode())

        self._observer = Observer()
        for folder in self.folders:
            if folder.is_dir():
                self._observer.schedule(Handler(), str(folder), recursive=True)
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="ttsmod-watch", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stop:
                    wait = self.debouncer.wait_time(time.monotonic())
                    if wait == 0:
                        break
                    self._cond.wait(timeout=wait if wait is not None else 1.0)
                if self._stop:
                    return
                batch = self.debouncer.take(time.monotonic())
                if not batch:
                    continue
                self._running_batch = True
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
