"""``ttsmod new NAME [--from GAME]``: a game folder that builds at once (:mod:`tools.newgame`)."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command("new", short_help="Make a new game folder that builds at once.")
@click.argument("name", type=click.Path(path_type=Path))
@click.option("--from", "from_game", metavar="GAME",
              help="Copy this built-in game (or game folder) to edit its data, instead of the small template game.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the folder and its files.")
def new_command(name: Path, from_game: str | None, as_json: bool) -> None:
    """Write the folder NAME: a small card game drawn from data alone (cards in cards.csv, card templates in
    layouts.toml, the table in table.toml, two images and an icon: no Python), or with --from GAME a copy of
    GAME's folder to edit (it keeps GAME's rules and id, and builds into build/NAME/). NAME must not exist.
    docs/tutorial.md goes on from here."""
    from tools.newgame import new_game

    folder = new_game(name, from_game=from_game)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    if as_json:
        click.echo(json.dumps({"folder": str(folder), "from": from_game, "files": files}))
        return
    click.secho(f"Wrote {folder} ({len(files)} files).", fg="green", err=True)
    click.echo(f"next: ttsmod build {folder}")
