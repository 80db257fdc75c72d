"""``ttsmod sheets``: pack existing face images into TTS card sheets plus a Saved Object JSON of the deck."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import click

from tools.imageio import DEFAULT_MAX_PIXELS
from tools.sheets import FITS, FORMATS, write_deck


@click.command("sheets", short_help='Pack card images into TTS sheets and a deck object.')
@click.argument("faces", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the sheets and the deck JSON (created if missing).")
@click.option("--back", type=click.Path(path_type=Path),
              help="Card back image (default: plain grey in the shape of the first face).")
@click.option("--hidden", type=click.Path(path_type=Path),
              help="Hidden-card image for each sheet's last cell (default: the back).")
@click.option("--back-is-hidden", is_flag=True,
              help="Use the back as the hidden face: 70 faces per sheet instead of 69.")
@click.option("--name", default="deck", show_default=True,
              help="Deck name: starts every file name, names <name>.json and its SaveName.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="jpg", show_default=True,
              help="Sheet image format: jpg (smaller, lossy) or png (lossless, larger).")
@click.option("--quality", type=click.IntRange(1, 100), default=90, show_default=True,
              help="JPEG quality (ignored for png).")
@click.option("--fit", type=click.Choice(FITS), default="contain", show_default=True,
              help="A face not of the first face's shape: contain = whole face on white bars, "
                   "cover = fill the cell, crop the overhang. Never stretched; each one is warned about.")
@click.option("--one-sheet", is_flag=True, help="Fail instead of writing more than one sheet.")
@click.option("--max-pixels", type=click.IntRange(min=1), default=DEFAULT_MAX_PIXELS, show_default=True,
              help="Refuse any image larger than this many pixels (width x height).")
@click.option("--asset-base-url", metavar="URL",
              help="Write image URLs as URL/<file name> for hosted play (then: ttsmod publish OUT --to URL); "
                   "default: file:/// paths, visible on this machine only.")
@click.option("--progress/--no-progress", default=None,
              help="Show progress on stderr (default: only when stderr is a terminal).")
@click.option("--json", "as_json", is_flag=True,
              help="Print what was written, and where, as one JSON object on stdout.")
def sheets(faces, out_dir, back, hidden, back_is_hidden, name, fmt, quality, fit, one_sheet, max_pixels,
           asset_base_url, progress, as_json) -> None:
    """Pack FACES (in the order given) into sheets of at most 10 x 7 in --out, with <name>.json beside them.

    The JSON is a TTS Saved Object: ttsmod install OUT copies it to "Saves/Saved Objects" to spawn the deck. Its
    image URLs are file:/// paths, visible on this machine only; for multiplayer pass --asset-base-url URL and
    upload the sheets with ttsmod publish OUT --to URL. A failed run leaves
    --out as it was; a re-run removes the sheets its previous run of the same --name wrote and no longer needs.
    """
    with _progress_reporter(progress, len(faces)) as report:
        written = write_deck(list(faces), out_dir, name, back=back, hidden=hidden, back_is_hidden=back_is_hidden,
                             fmt=fmt, quality=quality, fit=fit, one_sheet=one_sheet, max_pixels=max_pixels,
                             progress=report, asset_base_url=asset_base_url)
    for warning in written.warnings:
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    if as_json:
        click.echo(json.dumps(written.to_json(), indent=2, ensure_ascii=False))
        return
    deck = written.deck
    for sheet in deck.sheets:
        click.echo(f"{sheet.path}  {sheet.columns}x{sheet.rows}, {sheet.count} faces, "
                   f"cell {sheet.cell_width}x{sheet.cell_height}")
    click.echo(f"{deck.back_path}  back")
    shape = ", sideways (landscape) cards" if deck.sideways else ""
    where = ("file:/// URLs: this machine only" if asset_base_url is None
             else f"images at {asset_base_url.rstrip('/')}/: upload them with "
                  f"ttsmod publish {out_dir} --to {asset_base_url}")
    click.echo(f"{written.saved_object}  saved object{shape} ({where})")
    for file in written.removed:
        click.echo(f"{written.out_dir / file}  removed (stale, from an earlier run)")


@contextmanager
def _progress_reporter(requested: bool | None, total: int) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback drawing on stderr, or None when progress is not to be shown.

    Shown when asked for, or by default when stderr is a terminal (pipes, logs and tests stay clean). On a
    terminal it is a bar; asked for on a non-terminal it is a line per tenth, which reads well in a log.
    """
    stderr = sys.stderr  # (click.get_text_stream is deprecated; the test runner swaps sys.stderr too)
    is_terminal = stderr.isatty()
    if requested is False or (requested is None and not is_terminal):
        yield None
        return
    if is_terminal:
        with click.progressbar(length=total, label="packing faces", file=stderr) as bar:
            yield lambda done, _total: bar.update(done - bar.pos)
        return
    shown = -1

    def line(done: int, of: int) -> None:
        nonlocal shown
        tenth = done * 10 // of
        if tenth != shown:
            shown = tenth
            click.echo(f"packing faces: {done}/{of}", err=True)

    yield line
