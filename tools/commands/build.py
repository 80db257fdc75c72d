"""``ttsmod build``: render a game's art, lay its table and write a TTS save."""

from __future__ import annotations

import json
from pathlib import Path

import click

from bridge.rules.game import LANGUAGES
from tools import buildstamp
from tools.defaults import DEFAULT_MAX_PIXELS, IMAGE_FORMATS


@click.command("build", short_help='Build a game into a TTS save with card sheets.')
@click.argument("game")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: build/<game>/).")
@click.option("--lang", type=click.Choice(LANGUAGES), default="en", show_default=True,
              help="Card language (one of the game's languages).")
@click.option("--mode", metavar="MODE", help="Which table to lay: one of the game's modes (default: its first).")
@click.option("--asset-base-url", metavar="URL",
              help="Write image URLs as URL/<file> (hosted play; upload with ttsmod publish).")
@click.option("--format", "fmt", type=click.Choice(IMAGE_FORMATS), default="jpg", show_default=True,
              help="Sheet image format.")
@click.option("--no-cache", is_flag=True, help="Re-render every image (a cold build).")
@click.option("--jobs", type=click.IntRange(min=1), help="Render processes (default: all cores).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: what was written and where.")
@click.option("--max-pixels", type=click.IntRange(min=1), default=DEFAULT_MAX_PIXELS, show_default=True,
              help="Refuse art with more pixels (width x height): a likely decompression bomb.")
def build(game: str, out_dir: Path | None, lang: str, mode: str | None, asset_base_url: str | None, fmt: str,
          no_cache: bool, jobs: int | None, max_pixels: int, as_json: bool) -> None:
    """Build GAME (a built-in game id, or a game data folder) into a TTS save.

    Writes <Game>.json, the <Game>.png thumbnail, preview.png (the table from above) and sheets/ into the
    output folder; install the save with ttsmod install.
    """
    result = None
    if not no_cache:
        # A no-op rebuild is answered from the build stamp before the builder (and Pillow) is even imported.
        result = buildstamp.fresh_game_build(game, out_dir, buildstamp.build_options(
            lang=lang, mode=mode, fmt=fmt, asset_base_url=asset_base_url, max_pixels=max_pixels))
    if result is None:
        result = _build(game, out_dir, lang=lang, asset_base_url=asset_base_url, fmt=fmt, no_cache=no_cache,
                        jobs=jobs, mode=mode, max_pixels=max_pixels)
    if as_json:
        click.echo(json.dumps(build_report(result), ensure_ascii=False))
        return
    state = "written" if result.save_changed else "unchanged"
    click.echo(f"{result.save_path}  save ({state})")
    click.echo(f"{result.thumbnail_path}  thumbnail")
    click.echo(f"{result.preview_path}  preview (the table from above)")
    click.echo(f"{result.save_path.parent / 'sheets'}  {len(result.sheets)} image(s), "
               f"{len(result.changed_sheets)} written this build")
    if result.local_urls:
        click.secho("note: image URLs are file:/// paths: only this computer can see them (solo or hotseat). "
                    "For hosted play rebuild with --asset-base-url URL and run ttsmod publish.", fg="yellow")
    click.echo(f"next: ttsmod install {result.save_path.parent}")


def _build(game: str, out_dir: Path | None, *, lang: str, asset_base_url: str | None, fmt: str, no_cache: bool,
           jobs: int | None, mode: str | None, max_pixels: int):
    from tools.build import build as build_game
    from tools.commands.common import ProgressBars
    from tools.render.heap import keep_freed_image_memory

    # A rebuild draws its few changed sheets in this process, then reads and writes tens of megabytes of save
    # text: the images' freed memory is kept for them instead of being handed back and faulted in again
    # (tools.render.heap; 77,000 page faults of a 10,000-card rebuild after one edit were 59,000 with it).
    keep_freed_image_memory()
    with ProgressBars() as bars:
        return build_game(game, out_dir, lang=lang, asset_base_url=asset_base_url, fmt=fmt,
                          use_cache=not no_cache, jobs=jobs, mode=mode, progress=bars.progress("rendering"),
                          max_pixels=max_pixels, stamp_checked=not no_cache)


def build_report(result) -> dict:
    """What ``ttsmod build --json`` prints (docs/building.md): absolute paths, so a script can use them anywhere.
    ``result`` is a :class:`tools.build.BuildResult` or, for a no-op rebuild, a
    :class:`tools.buildstamp.StampedBuild`."""
    return {
        "save": str(result.save_path.absolute()),
        "save_written": result.save_changed,
        "thumbnail": str(result.thumbnail_path.absolute()),
        "preview": str(result.preview_path.absolute()),
        "sheets_dir": str((result.save_path.parent / "sheets").absolute()),
        "images": [str(p.absolute()) for p in result.sheets],
        "images_written": [str(p.absolute()) for p in result.changed_sheets],
        "local_urls": result.local_urls,
        "decks": [dict(deck) for deck in result.decks],
    }
