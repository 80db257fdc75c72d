"""``ttsmod push GAME|DIR``: Save & Play with every scripted object's script and UI."""

from __future__ import annotations

import json
from typing import Any

import click

from tools.commands.common import console, make_bridge, network_options, run_async, setup_logging


@click.command("push", short_help='Send scripts and UI to TTS (Save & Play), or update one object.')
@click.argument("source", metavar="GAME|DIR")
@network_options
@click.option("--no-wait", is_flag=True, help="Do not wait for TTS to reload the game.")
@click.option("--lua-path", "lua_path", multiple=True, type=click.Path(file_okay=False),
              help="A folder require() searches (repeatable; default: [lua] path of ttsmod.toml, else DIR).")
@click.option("--object", "objects", multiple=True, metavar="GUID",
              help="Update only this object in place, without reloading the table (repeatable; -1: Global's UI).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: objects pushed, scripted objects reloaded (or null), busy port (or null); "
                   "with --object: the objects given a new script, a new UI, unchanged, not on the table.")
def push_command(source: str, no_wait: bool, timeout: float, lua_path: tuple[str, ...], objects: tuple[str, ...],
                 as_json: bool, **network: Any) -> None:
    """Send scripts and UI to TTS and reload the game (Save & Play).

    GAME pushes the game's bundled Global, and each tag's script of its [scripts] table to the objects on the
    table that carry the tag (looked up in TTS first). DIR pushes <Name>.<guid>.lua/.xml files (as written by
    pull) or a tree written by unpack: each script that require()s modules is bundled with them (luabundle
    format) and <Include src="F"/> in a UI is expanded.
    Every object keeps its UI: a missing .xml is filled in from what TTS has. An empty Global is refused.

    --object GUID updates that object alone, in place, without Save & Play: a script that differs from what TTS
    has is set and that object reloaded by itself; a UI that differs is set. The rest of the table is not
    touched. Global's UI can be updated so (--object -1); its script needs a reload, so a push without --object.
    """
    from tools.live import push_plan, push_scripts, select_states, update_objects

    setup_logging()
    plan = push_plan(source, lua_path)
    bridge = make_bridge(**network, console=_stderr_console if as_json else console)
    if objects:
        states = select_states(plan.states, objects, source)
        update = run_async(update_objects(bridge, states, timeout=timeout))
        if update is not None and as_json:   # docs/modding.md
            click.echo(json.dumps({"scripts": list(update.scripts), "uis": list(update.uis),
                                   "unchanged": list(update.unchanged), "missing": list(update.missing)}))
        elif update is not None:
            click.secho(update.summary(), fg="yellow" if update.missing else "green")
        if update is not None and update.missing:
            raise SystemExit(1)
        return
    result = run_async(push_scripts(bridge, plan.states, wait=not no_wait, timeout=timeout,
                                    tag_scripts=plan.tag_scripts))
    if result is not None and as_json:   # docs/modding.md
        click.echo(json.dumps({"objects": result.objects, "reloaded": result.reloaded,
                               "busy_port": result.busy_port}))
    elif result is not None:
        click.secho(result.summary(), fg="green")


def _stderr_console(kind: str, text: str) -> None:
    """With --json, stdout holds the JSON alone: what TTS prints meanwhile goes to stderr."""
    if kind == "print":
        click.echo(text, err=True)
    else:
        console(kind, text)
