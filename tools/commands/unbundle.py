"""``ttsmod unbundle BUNDLE DIR``: a luabundle-format script back into its module files."""

from __future__ import annotations

import json

import click


@click.command("unbundle", short_help="Split a bundled Lua script back into its module files.")
@click.argument("bundle", type=click.Path(dir_okay=False))
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--root-name", default=None, help="File for the root module (default: BUNDLE's name, .lua).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: module name → file written.")
def unbundle_command(bundle: str, folder: str, root_name: str | None, as_json: bool) -> None:
    """Write each module of BUNDLE (written by ttsmod or by luabundle, the TTS editor plugins' bundler) into
    DIR: lib.util as DIR/lib/util.lua, the root module as DIR/<root name>.

    A module name that is not plain (.., separators, device names) is refused before anything is written (exit 2).
    """
    from bridge.luaproject.project import unbundle_script

    written = unbundle_script(bundle, folder, root_name)
    if as_json:
        click.echo(json.dumps({name: str(path.absolute()) for name, path in written.items()}, ensure_ascii=False))
    else:
        click.echo(f"unbundled {len(written)} module(s) into {folder}")
