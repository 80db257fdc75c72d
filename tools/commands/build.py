"""``ttsmod build``: render a game's art, lay its table and write a TTS save."""

from __future__ import annotations

from pathlib import Path

import click

from tools.build import FORMATS, LANGS, MODES, build as build_game


@click.command("build", short_help='Build a game into a TTS save with card sheets.')
@click.argument("game")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: build/<game>/).")
@click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True, help="Card language.")
@click.option("--mode", type=click.Choice(MODES), default="kingdom", show_default=True,
              help="Lay the kingdom map, or the fief boards.")
@click.option("--asset-base-url", metavar="URL",
              help="Write image URLs as URL/<file> (hosted play; upload with ttsmod publish).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="jpg", show_default=True,
              help="Sheet image format.")
@click.option("--no-cache", is_flag=True, help="Re-render every image (a cold build).")
@click.option("--jobs", type=click.IntRange(min=1), help="Render processes (default: all cores).")
def build(game: str, out_dir: Path | None, lang: str, mode: str, asset_base_url: str | None, fmt: str,
          no_cache: bool, jobs: int | None) -> None:
    """Build GAME (a built-in game id such as four-humours, or a game data folder) into a TTS save.

    Writes <Game>.json, the <Game>.png thumbnail and sheets/ into the output folder; install the save
    with ttsmod install.
    """
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label="rendering", file=click.get_text_stream("stderr"))
            bar.__enter__()
        bar.update(done - bar.pos)

    try:
        result = build_game(game, out_dir, lang=lang, asset_base_url=asset_base_url, fmt=fmt,
                            use_cache=not no_cache, jobs=jobs, mode=mode, progress=progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    state = "written" if result.save_changed else "unchanged"
    click.echo(f"{result.save_path}  save ({state})")
    click.echo(f"{result.thumbnail_path}  thumbnail")
    click.echo(f"{result.save_path.parent / 'sheets'}  {len(result.sheets)} image(s), "
               f"{len(result.changed_sheets)} written this build")
    if result.local_urls:
        click.secho("note: image URLs are file:/// paths: only this computer can see them (solo or hotseat). "
                    "For hosted play rebuild with --asset-base-url URL and run ttsmod publish.", fg="yellow")
    click.echo(f"next: ttsmod install {result.save_path.parent}")
