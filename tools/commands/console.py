"""``ttsmod console [--object GUID]``: an interactive Lua prompt in the running TTS game."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from tools.commands.common import make_bridge, network_options, run_async, setup_logging, warn


@click.command("console", short_help="Type Lua into the running TTS game and see the results.")
@click.option("--object", "guid", default="-1", show_default=True, metavar="GUID",
              help="Run the code in this object's script (-1 = Global).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per chunk (for scripts).")
@click.option("--history", "history", type=click.Path(dir_okay=False),
              help="History file of the interactive prompt (default: console_history in ttsmod's data folder).")
@click.option("--no-history", is_flag=True, help="Keep no history.")
@network_options
def console_command(guid: str, as_json: bool, history: str | None, no_history: bool, timeout: float,
                    **network: Any) -> None:
    """Type Lua into the running TTS game and see the results (Ctrl-D ends).

    Lines are gathered until they make a whole chunk, as the lua prompt does (an open function, if, do,
    bracket or long string asks for more). An expression shows its value as JSON (x + 1, getObjects()); a
    statement runs (x = 1). TTS's prints and errors appear as they come, error positions in the object's
    script mapped back to the file and line (lib/util.lua:12, Global.-1.lua:3). Reads stdin: pipe a file in,
    with --json for one JSON line per chunk. Exit status 1 when a chunk failed or TTS is not running.
    With --json an error that stops the console is a JSON line too: {"ok": false, "error": ...}.
    """
    from bridge.errors import TtsmodError

    try:
        _console(guid, as_json, history, no_history, timeout, network)
    except TtsmodError as exc:
        if not as_json:
            raise
        # docs/modding.md: stdout stays JSON lines, so a script reading them sees the error as one of them
        click.echo(json.dumps({"ok": False, "error": str(exc)}, ensure_ascii=False))
        raise click.exceptions.Exit(exc.exit_code) from None


def _console(guid: str, as_json: bool, history: str | None, no_history: bool, timeout: float,
             network: dict[str, Any]) -> None:
    from bridge.errors import InputError
    from bridge.luaproject.console import LuaConsole, history_path, lines_of, run_lines

    setup_logging()
    if not guid or not guid.isprintable() or len(guid) > 64:
        raise InputError(f"--object {guid[:64]!r}: not a GUID")
    interactive = sys.stdin.isatty() and not as_json
    history_file = None if no_history or not interactive else (history or str(history_path()))

    def show(kind: str, text: str) -> None:
        if kind == "print":
            click.echo(text)
        else:
            click.secho(text, fg="red", err=True)

    def report(result: Any) -> None:
        if as_json:
            click.echo(json.dumps(result.to_json(), ensure_ascii=False))
        elif not result.ok:
            click.secho(f"error: {result.error}", fg="red", err=True)
        elif result.shown() is not None:
            click.echo(result.shown())

    async def main() -> int:
        bridge = make_bridge(**network)
        async with bridge:
            console = LuaConsole(bridge.session, guid, timeout=timeout, show=show, collect=as_json)
            await console.load_scripts()
            if guid != "-1" and guid not in bridge.session.scripts:
                raise InputError(f"--object {guid}: no scripted object with this GUID on the table (TTS runs "
                                 "code only in Global or in an object that has a script)")
            if interactive:
                where = "Global" if guid == "-1" else f"the object {guid}"
                click.secho(f"Lua in {where} of the running game; an expression shows its value. Ctrl-D ends.",
                            fg="cyan", err=True)
                read_line = _prompt_reader(history_file)
                prompts = ("lua> " if guid == "-1" else f"lua {guid}> ", "...> ")
            else:
                read_line, prompts = lines_of(sys.stdin), ("", "")
            try:
                return await run_lines(console, read_line, report, prompts=prompts)
            finally:
                if history_file:
                    _save_history(history_file)

    failed = run_async(main())
    if failed:
        raise click.exceptions.Exit(1)


def _prompt_reader(history_file: str | None):
    """``read_line(prompt)`` for a terminal: readline editing and history when Python has it."""
    import asyncio

    try:
        import readline
    except ImportError:   # Windows without pyreadline: plain input()
        readline = None
    if readline is not None and history_file:
        try:
            readline.read_history_file(history_file)
        except OSError:
            pass
        readline.set_history_length(1000)

    async def read_line(prompt: str) -> str | None:
        try:
            return await asyncio.to_thread(input, prompt)
        except EOFError:
            click.echo(err=True)
            return None

    return read_line


def _save_history(history_file: str) -> None:
    from pathlib import Path

    try:
        import readline
    except ImportError:
        return
    try:
        Path(history_file).parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(history_file)
    except OSError as exc:
        warn(f"could not save the console history to {history_file}: {exc.strerror or exc}")
