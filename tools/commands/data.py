"""``ttsmod data``: a game's card data in the forms designers keep it in (``data export``: CSV or XLSX sheets)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from bridge.spreadsheets import FORMATS


@click.group("data", short_help="Export a game's card lists as CSV or XLSX sheets.")
def data() -> None:
    """A game's card data as spreadsheets (docs/data-format.md, "Card data from spreadsheets")."""


@data.command("export", short_help="Write a game's card lists as CSV files or XLSX workbooks.")
@click.argument("game")
@click.option("--to", "fmt", type=click.Choice(FORMATS), required=True,
              help="csv: one <list>.csv per list; xlsx: one workbook per data file, a sheet per list.")
@click.argument("out_dir", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object instead of the [sheets] table: dir, format, each list written, the table.")
def export_command(game: str, fmt: str, out_dir: Path, as_json: bool) -> None:
    """Write every card list of GAME (a built-in game id or a game folder) into DIR in the flat form that
    game.toml's [sheets] table reads back, then print that [sheets] table (paths relative to the game folder
    when DIR is inside it). Export then import gives the same records."""
    from bridge.catalog import resolve_game
    from tools.data_export import card_lists_count, export, sheets_table

    folder = resolve_game(game).folder
    with click.progressbar(length=card_lists_count(game), label="Writing lists", file=sys.stderr,
                           show_eta=False) as bar:
        written = export(game, fmt, out_dir, progress=lambda name: bar.update(1))
    try:
        prefix = out_dir.resolve().relative_to(folder).as_posix() + "/"
        where_to = "add to game.toml"
    except ValueError:
        prefix = ""   # the sheets must lie in the game folder: copy them there
        where_to = "copy them into the game folder and add to game.toml"
    table = sheets_table(written, "" if prefix == "./" else prefix)
    if as_json:
        # docs/data-format.md: absolute paths, as build --json
        click.echo(json.dumps({
            "dir": str(out_dir.absolute()), "format": fmt, "in_game_folder": bool(prefix),
            "lists": [{"name": item.name, "into": item.into, "file": str((out_dir / item.file).absolute()),
                       "sheet": item.sheet, "records": item.records} for item in written],
            "sheets": table}, ensure_ascii=False))
        return
    for item in written:
        where = f'{item.file} sheet "{item.sheet}"' if item.sheet else item.file
        click.secho(f"{item.name}: {item.records} rows -> {where}", err=True, dim=True)
    click.secho(f"Wrote {len(written)} lists to {out_dir}. To read them, {where_to}:", fg="green", err=True)
    click.echo(table, nl=False)
