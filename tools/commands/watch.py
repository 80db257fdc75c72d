"""``ttsmod watch GAME|DIR``: the bridge, plus live updates of TTS when GAME's files (or an unpacked tree's) change."""

from __future__ import annotations

import click

from tools.commands.common import network_options, run_bridge_in_terminal


@click.command("watch", short_help='Rebuild and push to TTS as game files change.')
@click.argument("game", metavar="GAME|DIR")
@network_options
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False),
              help="JSON-lines file recording every message (default: in the user's data folder).")
@click.option("--no-journal", is_flag=True, help="Record nothing.")
def watch_command(game: str, journal_path: str | None, no_journal: bool, **network: object) -> None:
    """Run the bridge and watch GAME: Lua edits are pushed, art and data edits update objects in place.

    DIR, a folder written by ttsmod unpack (it holds a save.json), is packed (DIR.json) at each edit and pushed;
    when only objects' scripts or UI changed, just those objects are updated in place, with no reload.

    The same as `ttsmod bridge --watch GAME`, with the same --host/--port/--tts-host/--tts-port/--allow-remote/
    --timeout and --journal/--no-journal options; for the bridge's other options run ttsmod bridge --watch GAME.
    """
    run_bridge_in_terminal(watch_game=game, journal_path=journal_path, no_journal=no_journal, **network)
