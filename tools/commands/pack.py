"""``ttsmod pack DIR [SAVE]``: the TTS save a folder tree written by ``ttsmod unpack`` describes."""

from __future__ import annotations

import json

import click


@click.command("pack", short_help="Build a TTS save from a folder tree made by unpack.")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@click.argument("save", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: save, dir, objects, scripts, files (not with SAVE '-').")
def pack_command(folder: str, save: str | None, as_json: bool) -> None:
    """Build the TTS save the tree in DIR describes and write it to SAVE (default: DIR.json beside DIR; '-'
    prints it).

    An unchanged tree gives the unpacked save's own bytes (number spellings, key order, layout, line ends, BOM,
    as format.json records them); an edit changes only what was edited. A file in the tree that is not JSON, a
    folder missing from (or not listed in) order.json, or a name that leads out of its folder is reported in
    one line naming the file, and nothing is written. Exit status: 0 done, 2 a bad tree.
    """
    from bridge.luaproject.savetree import pack

    if as_json and save == "-":
        raise click.UsageError("--json prints the report; it cannot go with SAVE '-' (the save on stdout)")
    result, raw = pack(folder, save)
    if save == "-":
        click.echo(raw.decode("utf-8"), nl=False)
    elif as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        click.echo(f"packed {result.objects} object(s), {result.scripts} script(s) into {result.save}")
