"""What the commands that talk to TTS share: network options, the terminal console, logging, running a
coroutine until Ctrl-C or SIGTERM, and building a :class:`bridge.server.Bridge` from the options; and the
progress bars of the commands that render (:class:`ProgressBars`).

Commands import their helpers from here and never from one another; anything that is not about the command
line (journals, serving, watching, pushing) lives in library modules (:mod:`tools.live`,
:mod:`bridge.luaproject.editor`).
"""

from __future__ import annotations

import logging
import signal
import sys
from typing import Any, Callable, Sequence

import click

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
    """Mirror of TTS's output in the terminal: prints plain, errors red, warnings yellow, bridge notes dim."""
    if kind == "print":
        click.echo(text)
    elif kind == "error":
        click.secho(text, fg="red", err=True)
    elif kind == "warning":
        warn(text)
    else:
        click.secho(text, fg="cyan", err=True)


class ProgressBars:
    """click progress bars on stderr, one per label, each made at the first report of something to do, closed
    when the ``with`` block ends. A report with another total resizes its bar: a render's count of the images it
    draws is exact, and known before the first is drawn unless a deck's first face comes out at another size
    (:func:`tools.render.pipeline.render_art`), when it changes once."""

    def __init__(self) -> None:
        self.bars: dict[str, Any] = {}

    def __enter__(self) -> "ProgressBars":
        return self

    def __exit__(self, *exc: object) -> None:
        for bar in self.bars.values():
            bar.__exit__(None, None, None)

    def progress(self, label: str) -> Callable[[int, int], None]:
        """The ``progress(done, total)`` of the bar called ``label``."""
        def report(done: int, total: int) -> None:
            bar = self.bars.get(label)
            if bar is None:
                if total == 0:
                    return
                bar = self.bars[label] = click.progressbar(length=total, label=label, file=sys.stderr)
                bar.__enter__()
            bar.length = total
            bar.update(done - bar.pos)
        return report


def warn(text: str) -> None:
    """One yellow ``warning: ...`` line on stderr."""
    click.secho(f"warning: {text}", fg="yellow", err=True)


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
    """A :class:`bridge.server.Bridge` from the network options (the rest of ``kwargs`` passed on)."""
    from bridge.server import Bridge

    return Bridge(host=host, port=port, tts_host=tts_host, tts_port=tts_port, allow_remote=allow_remote, **kwargs)


class _Terminated(Exception):
    """SIGTERM arrived: stop as Ctrl-C does."""


async def _stop_on_sigterm(coroutine: Any) -> Any:
    """Await ``coroutine``; SIGTERM cancels it (its cleanup runs) and raises :class:`_Terminated`."""
    import asyncio

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
    # asyncio (some 35 ms of imports, ssl among them) only here: the commands that render import this module
    # for their progress bars and never run a coroutine
    import asyncio

    try:
        return asyncio.run(_stop_on_sigterm(coroutine))
    except (KeyboardInterrupt, _Terminated):
        click.secho("stopped", fg="cyan", err=True)
        return None


DEFAULT_MAX_SIZE = 32 * 1024 * 1024      # --max-size: bridge.protocol's own cap on a message from TTS
DEFAULT_JOURNAL_LIMIT = 1024 * 1024      # --journal-limit
DEFAULT_ECHO_LIMIT = 4000                # --echo-limit


def run_bridge_in_terminal(*, host: str, port: int, tts_host: str, tts_port: int, allow_remote: bool,
                           timeout: float, journal_path: str | None = None, no_journal: bool = False,
                           watch_game: str | None = None, game_folders: Sequence[str] = (),
                           max_size: int = DEFAULT_MAX_SIZE, journal_limit: int = DEFAULT_JOURNAL_LIMIT,
                           echo_limit: int = DEFAULT_ECHO_LIMIT, verbose: int = 0) -> None:
    """``ttsmod bridge`` and ``ttsmod watch``: serve until Ctrl-C or SIGTERM, mirroring TTS in the terminal."""
    from bridge import __version__
    from bridge.luaproject.errormap import error_locator
    from bridge.paths import mod_dir
    from tools.live import game_root_file, open_journal, serve

    from bridge.games import default_registry, game_folder_sources

    from tools.watch import is_tree

    setup_logging(verbose)
    tree = watch_game is not None and is_tree(watch_game)   # a folder ttsmod unpack wrote, not a game
    # Without --watch the running game is not known here: the locator finds the root script by its text.
    root_file = game_root_file(watch_game) if watch_game and not tree else None
    watched_games = [watch_game] if watch_game and not tree else []
    registry = default_registry(game_folder_sources([*game_folders, *watched_games]))
    journal = open_journal(journal_path, no_journal, journal_limit)
    try:
        bridge = make_bridge(host, port, tts_host, tts_port, allow_remote, journal=journal, console=console,
                             locate_error=error_locator(mod_dir(), root_file), max_size=max_size,
                             read_timeout=timeout, echo_limit=echo_limit, registry=registry)

        def ready(b: Any) -> None:
            journal_note = f"journal: {journal.path}" if journal.path else "no journal"
            click.secho(f"ttsmod bridge {__version__} listening on {b.host}:{b.port} (TTS at {b.tts_host}:"
                        f"{b.tts_port}); {journal_note}", fg="green", err=True)
            if watch_game and tree:
                click.secho(f"watching {watch_game} (an unpacked save): edits → pack, then push (only objects' "
                            "scripts or UI changed: those objects updated in place)", fg="green", err=True)
            elif watch_game:
                click.secho(f"watching {watch_game}: Lua → push, art/data → live update", fg="green", err=True)

        run_async(serve(bridge, report=console, watch_game=watch_game, ready=ready))
    finally:
        journal.close()
