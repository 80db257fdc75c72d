"""``ttsmod pull DIR``: write every scripted object's script and UI from TTS into files."""

from __future__ import annotations

from typing import Any

import click

from tools.commands.bridge import console, make_bridge, network_options, run_async, setup_logging


async def pull_states(options: dict[str, Any]) -> list:
    timeout = options.pop("timeout")
    async with make_bridge(**options, console=console) as bridge:
        loaded = await bridge.session.get_scripts(timeout=timeout)
    return list(loaded.script_states)


@click.command("pull", short_help='Get every script and UI from TTS into files.')
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@network_options
def pull_command(folder: str, **options: Any) -> None:
    """Get every scripted object's script and UI from TTS into DIR as <Name>.<guid>.lua and .xml.

    Names are made into safe file names; an object whose GUID cannot be a file name is skipped with a warning.
    Nothing is written outside DIR."""
    from bridge.editor import write_script_files

    setup_logging()
    states = run_async(pull_states(options))
    if states is None:
        return
    written = write_script_files(folder, states, warn=lambda text: click.secho(f"warning: {text}", fg="yellow", err=True))
    click.secho(f"pulled {len(states)} object(s) into {folder} ({len(written)} file(s))", fg="green")
