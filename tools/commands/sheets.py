"""``ttsmod sheets``: pack existing face images into TTS card sheets plus a Saved Object JSON of the deck."""

from __future__ import annotations

import json
from pathlib import Path

import click
from PIL import Image

from tools.errors import InputError
from tools.fsio import atomic_write_text
from tools.sheets import FORMATS, deck_saved_object, pack_faces


@click.command("sheets", short_help='Pack card images into TTS sheets and a deck object.')
@click.argument("faces", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the sheets and the deck JSON.")
@click.option("--back", type=click.Path(path_type=Path), help="Card back image (default: plain grey).")
@click.option("--hidden", type=click.Path(path_type=Path),
              help="Hidden-card image for each sheet's last cell (default: the back).")
@click.option("--back-is-hidden", is_flag=True,
              help="Use the back as the hidden face: 70 faces per sheet instead of 69.")
@click.option("--name", default="deck", show_default=True, help="Deck name: file names and SaveName.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="jpg", show_default=True)
@click.option("--quality", type=click.IntRange(1, 100), default=90, show_default=True, help="JPEG quality.")
@click.option("--one-sheet", is_flag=True, help="Fail instead of writing more than one sheet.")
def sheets(faces, out_dir, back, hidden, back_is_hidden, name, fmt, quality, one_sheet) -> None:
    """Pack FACES (in the order given) into sheets of at most 10 x 7 in --out, with <name>.json beside them.

    The JSON is a TTS Saved Object: copy it to "Saves/Saved Objects" to spawn the deck. Its image URLs are
    file:/// paths, visible on this machine only; host the sheets for multiplayer.
    """
    if not name or any(ch in name for ch in "/\\:") or name.startswith("."):
        raise InputError(f'--name must be a plain file name, not "{name}"')
    if hidden is not None and back_is_hidden:
        raise InputError("--hidden and --back-is-hidden exclude each other")
    capacity = 70 if back_is_hidden else 69
    if one_sheet and len(faces) > capacity:
        raise InputError(f"{len(faces)} faces do not fit one sheet (at most {capacity})")
    for face in faces:
        if not face.is_file():
            raise InputError(f"{face}: no such file")
    back_source = back if back is not None else Image.new("RGB", (64, 64), (96, 96, 96))
    deck = pack_faces(list(faces), out_dir, name, back=back_source, hidden=hidden,
                      back_is_hidden=back_is_hidden, fmt=fmt, quality=quality)
    saved = deck_saved_object(deck, save_name=name, nicknames=[f.stem for f in faces])
    json_path = out_dir / f"{name}.json"
    atomic_write_text(json_path, json.dumps(saved, indent=2, ensure_ascii=False) + "\n")
    for sheet in deck.sheets:
        click.echo(f"{sheet.path}  {sheet.columns}x{sheet.rows}, {sheet.count} faces, "
                   f"cell {sheet.cell_width}x{sheet.cell_height}")
    click.echo(f"{deck.back_path}  back")
    click.echo(f"{json_path}  saved object (file:/// URLs: this machine only)")
