"""``ttsmod pull DIR``: write every scripted object's script and UI from TTS into files."""

from __future__ import annotations

from typing import Any

import click

from tools.commands.common import console, make_bridge, network_options, run_async, setup_logging, warn


@click.command("pull", short_help='Get every script and UI from TTS into files.')
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@network_options
def pull_command(folder: str, timeout: float, **network: Any) -> None:
    """Get every scripted object's script and UI from TTS into DIR as <Name>.<guid>.lua and .xml.

    Names are made into safe file names; an object whose GUID cannot be a file name is skipped with a warning.
    Nothing is written outside DIR."""
    from bridge.editor import write_script_files
    from tools.live import pull_scripts

    setup_logging()
    states = run_async(pull_scripts(make_bridge(**network, console=console), timeout=timeout))
    if states is None:
        return
    written = write_script_files(folder, states, warn=warn)
    click.secho(f"pulled {len(states)} object(s) into {folder} ({len(written)} file(s))", fg="green")
