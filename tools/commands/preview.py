"""``ttsmod preview SAVE``: the table of a TTS save drawn from above, to scale, as a PNG (:mod:`tools.preview`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from tools.defaults import DEFAULT_MAX_PIXELS

DEFAULT_PREVIEW_SIZE = 800   # tools.preview.DEFAULT_SIZE, kept here so that --help needs no Pillow


@click.command("preview", short_help="Draw a TTS save's table from above as a picture.")
@click.argument("save", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The PNG to write (default: <SAVE's name>-preview.png in the current folder).")
@click.option("--size", type=int, default=DEFAULT_PREVIEW_SIZE, show_default=True,
              help="Pixels along the picture's longer side (64 to 8192).")
@click.option("--state", type=click.IntRange(min=1), default=None,
              help="Draw state N of every object that has States (the others as they are).")
@click.option("--image-cache", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="A folder laid out as TTS's Mods/Images cache: http(s) images are read from there "
                   "(nothing is downloaded).")
@click.option("--max-pixels", type=click.IntRange(min=1), default=DEFAULT_MAX_PIXELS, show_default=True,
              help="Refuse an image with more pixels (width x height): a likely decompression bomb.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object (schema_version 1): what was drawn, and what was not and why.")
def preview_command(save: Path, out: Path | None, size: int, state: int | None, image_cache: Path | None,
                    max_pixels: int, as_json: bool) -> None:
    """Draw SAVE (any TTS save or Saved Object) from above, to scale, into a PNG.

    x runs to the right and z up the picture. Objects are drawn with their images (cards cut from their sheets,
    face up or down as they lie; a deck as its visible card with its count), or as labelled outlines of their
    footprint; zones outlined in their colour, snap points as dots. Images are read only from files inside
    SAVE's folder (file:// URLs and paths) and, for http(s) URLs, from --image-cache: a link or URL pointing
    elsewhere is reported, never read. Exit status: 0 drawn, 2 SAVE is not a readable save (or a bad option),
    1 the picture cannot be written.
    """
    from tools.preview import preview_file

    out = out if out is not None else Path(f"{save.stem}-preview.png")
    result = preview_file(save, out, size=size, state=state, image_cache=image_cache, max_pixels=max_pixels)
    report = result.report()
    if as_json:
        click.echo(json.dumps({"save": str(save.absolute()), "image": str(out.absolute()), **report},
                              ensure_ascii=False))
        return
    kinds = Counter(o["drawn"] for o in report["objects"])
    width, height = report["size"]
    click.echo(f"wrote {out} ({width} x {height}): {len(report['objects'])} object(s), {kinds['image']} with "
               f"their images, {kinds['outline']} as outlines, {kinds['zone']} zone(s), "
               f"{report['snap_points']} snap point(s)")
    for warning in report["warnings"]:
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    reasons = Counter(entry["reason"] for entry in report["not_drawn"] if entry["what"] == "image")
    for reason, count in sorted(reasons.items()):
        click.secho(f"warning: {count} image(s) not drawn: {reason} (--json lists them)", fg="yellow", err=True)
    for entry in report["not_drawn"]:
        if entry["what"] == "object":
            label = entry["nickname"] or entry["name"] or "an object"
            click.secho(f"warning: {label} ({entry['guid']}) not drawn: {entry['reason']}", fg="yellow", err=True)
