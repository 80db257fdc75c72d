"""``ttsmod bridge``: run the live bridge beside Tabletop Simulator (and the options push/pull/exec share)."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path
from typing import Any, Callable

import click

from bridge.errors import TtsmodError

# Exit codes of the bridge commands (also in docs/bridge.md).
EXIT_OK = 0
EXIT_FAILED = 1  # TTS not running, timed out, refused push, exec error, replay found differences
EXIT_INPUT = 2  # bad arguments or unreadable input (journal, folder)


def network_options(func: Callable) -> Callable:
    """--host/--port/--tts-host/--tts-port/--allow-remote/--timeout, shared by every command that talks to TTS."""
    options = [
        click.option("--host", default="127.0.0.1", show_default=True, help="Address the bridge listens on."),
        click.option("--port", default=39998, show_default=True, type=click.IntRange(0, 65535),
                     help="Port the bridge listens on (TTS sends here; 0 picks a free port)."),
        click.option("--tts-host", default="127.0.0.1", show_default=True, help="Address of Tabletop Simulator."),
        click.option("--tts-port", default=39999, show_default=True, type=click.IntRange(1, 65535),
                     help="Port Tabletop Simulator listens on."),
        click.option("--allow-remote", is_flag=True, help="Allow a --host/--tts-host that is not this machine."),
        click.option("--timeout", default=10.0, show_default=True, type=click.FloatRange(0.1, 600),
                     help="Seconds to wait for TTS's answer."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def console(kind: str, text: str) -> None:
    """Mirror of TTS's output in the terminal: prints plain, errors red, bridge notes dim."""
    if kind == "print":
        click.echo(text)
    elif kind == "error":
        click.secho(text, fg="red", err=True)
    else:
        click.secho(text, fg="cyan", err=True)


class _ClickLogHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = self.format(record)
        except Exception:
            message = record.getMessage()
        colour = "red" if record.levelno >= logging.ERROR else "yellow" if record.levelno >= logging.WARNING else None
        click.secho(message, fg=colour, err=True, dim=record.levelno < logging.WARNING)


def setup_logging(verbose: int = 0) -> None:
    """Bridge logs to stderr: warnings by default, ``-v`` for info, ``-vv`` for debug."""
    logger = logging.getLogger("ttsmod")
    if not any(isinstance(h, _ClickLogHandler) for h in logger.handlers):
        handler = _ClickLogHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.WARNING - 10 * min(verbose, 2))
    logger.propagate = False


def make_bridge(host: str, port: int, tts_host: str, tts_port: int, allow_remote: bool, **kwargs: Any):
    from bridge.server import Bridge

    return Bridge(host=host, port=port, tts_host=tts_host, tts_port=tts_port, allow_remote=allow_remote, **kwargs)


class _Terminated(Exception):
    """SIGTERM arrived: stop as Ctrl-C does."""


async def _stop_on_sigterm(coroutine: Any) -> Any:
    """Await ``coroutine``; SIGTERM cancels it (its cleanup runs) and raises :class:`_Terminated`."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(coroutine)
    terminated = False

    def on_sigterm() -> None:
        nonlocal terminated
        terminated = True
        task.cancel()

    try:
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    except (NotImplementedError, AttributeError, RuntimeError, ValueError):
        pass  # Windows: no SIGTERM handlers in asyncio; the process is ended there without one
    try:
        return await task
    except asyncio.CancelledError:
        if terminated:
            raise _Terminated() from None
        raise
    finally:
        try:
            loop.remove_signal_handler(signal.SIGTERM)
        except (NotImplementedError, AttributeError, RuntimeError, ValueError):
            pass


def run_async(coroutine: Any) -> Any:
    """Run a coroutine to completion; Ctrl-C or SIGTERM ends it quietly (after its cleanup) and returns None."""
    try:
        return asyncio.run(_stop_on_sigterm(coroutine))
    except (KeyboardInterrupt, _Terminated):
        click.secho("stopped", fg="cyan", err=True)
        return None


def game_root_file(game: str) -> str | None:
    """``mod/<folder>/global.lua`` of a game, for error positions, when it exists."""
    from bridge.paths import mod_dir

    try:
        from bridge.catalog import resolve_game_dir

        folder = resolve_game_dir(game).name
    except (TtsmodError, ImportError):
        folder = game.replace("-", "_")
    path = mod_dir() / folder / "global.lua"
    return f"{mod_dir().name}/{folder}/global.lua" if path.is_file() else None


def open_journal(path: str | None, disabled: bool, record_limit: int | None = None):
    from bridge.journal import DEFAULT_RECORD_LIMIT, Journal, NullJournal, default_journal_path

    if disabled:
        return NullJournal()
    target = Path(path) if path else default_journal_path()
    try:
        return Journal(target, record_limit=record_limit or DEFAULT_RECORD_LIMIT)
    except OSError as exc:
        raise TtsmodError(f"cannot open the journal {target}: {exc.strerror or exc}") from None


async def serve(bridge: Any, *, watch_game: str | None = None, hooks: Any = None, quiet: float = 0.3,
                ready: Callable[[Any], None] | None = None, stop: asyncio.Event | None = None) -> None:
    """Run ``bridge`` until cancelled (or ``stop`` is set), watching ``watch_game`` if given."""
    from bridge.paths import assets_dir, mod_dir
    from tools.watch import GameUpdater, Watcher, classify, default_hooks

    async with bridge:
        loop = asyncio.get_running_loop()
        watcher = None
        if watch_game is not None:
            from bridge.catalog import resolve_game_dir

            game_assets = resolve_game_dir(watch_game)
            hooks = hooks or default_hooks()
            session = bridge.session

            def push(states: list) -> Any:
                return asyncio.run_coroutine_threadsafe(
                    session.push(states, fill_from_tts=False, wait=False), loop
                ).result(timeout=60)

            def execute(lua: str) -> Any:
                return asyncio.run_coroutine_threadsafe(session.execute(lua, timeout=30), loop).result(timeout=60)

            def report(kind: str, text: str) -> None:
                loop.call_soon_threadsafe(console, kind, text)

            updater = GameUpdater(watch_game, hooks, push, execute, report)

            def on_batch(paths: frozenset) -> None:
                change = classify(paths, mod_dir(), game_assets)
                if not change:
                    return
                try:
                    updater.apply(change)
                except TtsmodError as exc:
                    report("error", f"error: {exc}")

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


@click.command("bridge", short_help='Run the live bridge beside Tabletop Simulator.')
@network_options
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False),
              help="JSON-lines file recording every message (default: in the user's data folder).")
@click.option("--no-journal", is_flag=True, help="Record nothing.")
@click.option("--watch", "watch_game", metavar="GAME", help="Also watch GAME's assets and mod/ and update TTS live.")
@click.option("--max-size", default=32 * 1024 * 1024, show_default=True, type=click.IntRange(1024),
              help="Largest message accepted from TTS, in bytes.")
@click.option("--journal-limit", default=1024 * 1024, show_default=True, type=click.IntRange(1024),
              help="Longest journal line in bytes; a larger message is journaled truncated, with its size.")
@click.option("--echo-limit", default=4000, show_default=True, type=click.IntRange(80),
              help="Longest print or error shown in the terminal, in characters; longer ones are cut, with their size.")
@click.option("-v", "--verbose", count=True, help="Log more (-vv for debug).")
def bridge_command(host: str, port: int, tts_host: str, tts_port: int, allow_remote: bool, timeout: float,
                   journal_path: str | None, no_journal: bool, watch_game: str | None, max_size: int,
                   journal_limit: int, echo_limit: int, verbose: int) -> None:
    """Run the live bridge beside Tabletop Simulator: answer the mod's rules requests, mirror its prints
    and errors. It holds port 39998, so it replaces the VS Code or Atom TTS plugin while it runs."""
    from bridge import __version__
    from bridge.errormap import error_locator
    from bridge.paths import mod_dir

    setup_logging(verbose)
    journal = open_journal(journal_path, no_journal, journal_limit)
    root_file = game_root_file(watch_game or "four-humours")
    bridge = make_bridge(host, port, tts_host, tts_port, allow_remote, journal=journal, console=console,
                         locate_error=error_locator(mod_dir(), root_file), max_size=max_size, read_timeout=timeout,
                         echo_limit=echo_limit)

    def ready(b: Any) -> None:
        journal_note = f"journal: {journal.path}" if journal.path else "no journal"
        click.secho(f"ttsmod bridge {__version__} listening on {b.host}:{b.port} (TTS at {b.tts_host}:{b.tts_port}); "
                    f"{journal_note}", fg="green", err=True)
        if watch_game:
            click.secho(f"watching {watch_game}: Lua → push, art/data → live update", fg="green", err=True)

    try:
        run_async(serve(bridge, watch_game=watch_game, ready=ready))
    finally:
        journal.close()

