"""``ttsmod push GAME|DIR``: Save & Play with every scripted object's script and UI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tools.commands.bridge import console, make_bridge, network_options, run_async, setup_logging
from bridge.errors import TtsmodError


def states_for(source: str) -> list:
    """Script states from a pulled folder (``<Name>.<guid>.lua|.xml``) or from a game's bundled scripts."""
    from bridge.editor import read_script_files, states_from_bundle_scripts

    path = Path(source)
    if path.is_dir() and not (path / "game.toml").is_file():
        return read_script_files(path)
    try:
        from tools.build import bundle_scripts
    except ImportError:
        raise TtsmodError("this ttsmod has no build module, so it cannot bundle a game's scripts") from None
    return states_from_bundle_scripts(bundle_scripts(source))


async def push_states(states: list, options: dict[str, Any], wait: bool) -> str:
    from bridge.protocol import SaveAndPlay
    from bridge.server import PortInUse, send_message
    from bridge.session import check_push

    timeout = options.pop("timeout")
    bridge = make_bridge(**options, console=console)
    try:
        await bridge.start()
    except PortInUse:
        # Another editor (perhaps a running bridge) receives TTS's answers; a complete push needs none.
        if any(s.script is None or s.ui is None for s in states):
            raise
        check_push(states)
        await send_message(SaveAndPlay(script_states=tuple(states)), options["tts_host"], options["tts_port"])
        return f"pushed {len(states)} object(s); port {options['port']} is busy, so not waiting for TTS to reload"
    try:
        loaded = await bridge.session.push(states, wait=wait, timeout=timeout)
    finally:
        await bridge.close()
    if loaded is None:
        return f"pushed {len(states)} object(s)"
    return f"pushed {len(states)} object(s); TTS reloaded the game ({len(loaded.script_states)} scripted objects)"


@click.command("push", short_help='Send scripts and UI to TTS and reload (Save & Play).')
@click.argument("source", metavar="GAME|DIR")
@network_options
@click.option("--no-wait", is_flag=True, help="Do not wait for TTS to reload the game.")
def push_command(source: str, no_wait: bool, **options: Any) -> None:
    """Send scripts and UI to TTS and reload the game (Save & Play).

    GAME pushes the game's bundled scripts; DIR pushes <Name>.<guid>.lua/.xml files (as written by pull).
    Every object keeps its UI: a missing .xml is filled in from what TTS has. An empty Global is refused.
    """
    setup_logging()
    states = states_for(source)
    message = run_async(push_states(states, options, not no_wait))
    if message:
        click.secho(message, fg="green")
