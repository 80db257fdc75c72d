"""``ttsmod install``: copy a built save into TTS's Saves folder."""

from __future__ import annotations

from pathlib import Path

import click

from tools.errors import InputError
from tools.install import install as install_save


@click.command("install", short_help='Copy a built save into the TTS Saves folder.')
@click.argument("source")
@click.option("--tts-dir", type=click.Path(file_okay=False, path_type=Path),
              help="TTS data folder (the one holding Saves/); default: this OS's usual location.")
def install(source: str, tts_dir: Path | None) -> None:
    """Copy a built save (GAME, a build folder or a save file) into TTS as TS_Save_<N>.json.

    GAME means its default build folder build/<game>/. Re-installing the same game replaces the save
    installed before; no other save is ever overwritten.
    """
    path = Path(source)
    if not path.exists():
        candidate = Path("build") / source
        if not candidate.is_dir():
            raise InputError(f"{source}: no such file or folder, and no build/{source}/ (run ttsmod build)")
        path = candidate
    result = install_save(path, tts_dir)
    verb = "replaced" if result.replaced else "installed as"
    click.echo(f'"{result.save_name}" {verb} {result.save_path}')
    if result.thumbnail_path is None:
        click.echo("(no thumbnail beside the save)")
