"""``ttsmod exec [--guid G] CODE|-``: run Lua in the running game and print what it returns."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from tools.commands.common import console, make_bridge, network_options, run_async, setup_logging


@click.command("exec", short_help='Run Lua in the running TTS game and print the result.')
@click.argument("code", metavar="CODE|-")
@click.option("--guid", default="-1", show_default=True, help="Object whose script runs the code (-1 = Global).")
@network_options
def exec_command(code: str, guid: str, timeout: float, **network: Any) -> None:
    """Run Lua in TTS (a function body: use `return x` for a value) and print the result as JSON.

    Tables, nil and errors all come back; an error exits with status 1.
    """
    from bridge.protocol import valid_unicode
    from tools.live import execute_lua

    setup_logging()
    if code == "-":
        code = sys.stdin.read()
    result = run_async(execute_lua(make_bridge(**network, console=console), code, guid, timeout=timeout))
    if result is None:
        return
    if not result.ok:
        click.secho(f"error: {result.error}", fg="red", err=True)   # stderr escapes what it cannot encode
        raise click.exceptions.Exit(1)
    # a lone surrogate in a Lua string is printed as JSON's escape of it: the same value when read back
    click.echo("nil" if result.value is None else valid_unicode(json.dumps(result.value, ensure_ascii=False, indent=2)))
