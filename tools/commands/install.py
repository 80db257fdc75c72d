"""``ttsmod install``: copy a built save (or a Saved Object) into TTS's Saves folder."""

from __future__ import annotations

import json
from pathlib import Path

import click

from bridge.errors import InputError
from tools.install import install as install_save


@click.command("install", short_help='Copy a built save into the TTS Saves folder.')
@click.argument("source")
@click.option("--tts-dir", type=click.Path(path_type=Path),
              help="TTS data folder (the one holding Saves/); default: this OS's usual location.")
@click.option("--create", is_flag=True, help="Create the TTS data folder if it does not exist (default: an error).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: what was written and where.")
def install(source: str, tts_dir: Path | None, create: bool, as_json: bool) -> None:
    """Copy a built save (GAME, a build folder or a save file) into TTS as TS_Save_<N>.json.

    GAME means its default build folder build/<game>/. Re-installing the same game replaces the save
    installed before; no other save is ever overwritten. A Saved Object (the deck JSON ttsmod sheets
    writes) goes to Saves/Saved Objects/ instead.
    """
    path = Path(source)
    if not path.exists():
        candidate = Path("build") / source
        if not candidate.is_dir():
            raise InputError(f"{source}: no such file or folder, and no build/{source}/ (run ttsmod build)")
        path = candidate
    result = install_save(path, tts_dir, create=create)
    if as_json:
        click.echo(json.dumps(result.as_json(), ensure_ascii=False))
        return
    what = "saved object" if result.kind == "object" else "save"
    verb = "replaced" if result.replaced else "installed as"
    click.echo(f'{what} "{result.save_name}" {verb} {result.save_path}')
    if result.thumbnail_path is None:
        click.echo("(no thumbnail beside the save)")
