"""``ttsmod pull DIR``: write every scripted object's script and UI from TTS into files."""

from __future__ import annotations

import json
from typing import Any

import click

from tools.commands.common import console, make_bridge, network_options, run_async, setup_logging, warn


@click.command("pull", short_help='Get every script and UI from TTS into files.')
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@network_options
@click.option("--lua-path", "lua_path", multiple=True, type=click.Path(file_okay=False),
              help="Where bundled modules go back (repeatable; default: [lua] path of ttsmod.toml, else DIR).")
@click.option("--no-unbundle", is_flag=True, help="Write bundled scripts as they are, in one file each.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: dir, objects, scripts, modules, includes.")
def pull_command(folder: str, timeout: float, lua_path: tuple[str, ...], no_unbundle: bool, as_json: bool,
                 **network: Any) -> None:
    """Get every scripted object's script and UI from TTS into DIR as <Name>.<guid>.lua and .xml.

    A bundled script (luabundle format) is split: its root module is <Name>.<guid>.lua and every module it
    carries goes back to the file require() finds it in (lib.util: lib/util.lua under the search path), so
    push DIR sends the same bundle again. XML between <!-- include F --> comments becomes <Include src="F"/>
    again and its text goes to F (found the same way). Names are made into safe file names; an object whose GUID cannot be a
    file name is skipped with a warning. Nothing is written outside DIR and the search folders, and only files
    pull names itself (never ttsmod.toml; an include only to its .xml file)."""
    from tools.live import pull_scripts
    from bridge.luaproject.scriptfolder import pull_into

    setup_logging()
    states = run_async(pull_scripts(make_bridge(**network, console=console), timeout=timeout))
    if states is None:
        return
    report = pull_into(folder, states, lua_path=lua_path, unbundle=not no_unbundle, warn=warn)
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False))
        return
    modules = f", {len(report.modules)} module(s)" if report.modules else ""
    click.secho(f"pulled {report.objects} object(s) into {folder} ({report.files} file(s){modules})", fg="green")
