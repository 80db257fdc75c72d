"""``ttsmod bridge``: run the live bridge beside Tabletop Simulator."""

from __future__ import annotations

import click

from tools.commands.common import (DEFAULT_ECHO_LIMIT, DEFAULT_JOURNAL_LIMIT, DEFAULT_MAX_SIZE, network_options,
                                   run_bridge_in_terminal)


@click.command("bridge", short_help='Run the live bridge beside Tabletop Simulator.')
@network_options
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False),
              help="JSON-lines file recording every message (default: in the user's data folder).")
@click.option("--no-journal", is_flag=True, help="Record nothing.")
@click.option("--watch", "watch_game", metavar="GAME|DIR",
              help="Also watch GAME's assets and mod/ (or a tree DIR written by unpack) and update TTS live.")
@click.option("--game", "game_folders", metavar="FOLDER", multiple=True,
              help="Also answer for the game in FOLDER (a game folder outside ttsmod; repeatable).")
@click.option("--max-size", default=DEFAULT_MAX_SIZE, show_default=True, type=click.IntRange(1024),
              help="Largest message accepted from TTS, in bytes.")
@click.option("--journal-limit", default=DEFAULT_JOURNAL_LIMIT, show_default=True, type=click.IntRange(1024),
              help="Longest journal line in bytes; a larger message is journaled truncated, with its size.")
@click.option("--echo-limit", default=DEFAULT_ECHO_LIMIT, show_default=True, type=click.IntRange(80),
              help="Longest print or error shown in the terminal, in characters; longer ones are cut, with their size.")
@click.option("-v", "--verbose", count=True, help="Log more (-vv for debug).")
def bridge_command(**options: object) -> None:
    """Run the live bridge beside Tabletop Simulator: answer the mod's rules requests, mirror its prints
    and errors. It holds port 39998, so it replaces the VS Code or Atom TTS plugin while it runs."""
    run_bridge_in_terminal(**options)
