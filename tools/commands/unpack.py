"""``ttsmod unpack SAVE DIR``: a TTS save as a folder tree (one folder per object, scripts and UI as files)."""

from __future__ import annotations

import json

import click


@click.command("unpack", short_help="Write a TTS save as a folder tree to keep in git.")
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--round", "round_numbers", is_flag=True,
              help="Round positions (0.001), rotations (0.01 degree, snapped to multiples of 90 within 0.05), "
                   "scales and colours (0.0001) for quiet git diffs; nothing is rounded without it.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: save, dir, objects, scripts, files (and exact: false, rounded).")
def unpack_command(save: str, folder: str, round_numbers: bool, as_json: bool) -> None:
    """Write SAVE (any TTS save or Saved Object) as a folder tree in DIR.

    One folder per object (<Nickname>.<GUID>) with object.json, script.lua, ui.xml and state.json; contained
    objects in contents/, in order; Global's script, UI and state at the top beside save.json, and format.json
    (what pack needs to give SAVE's own bytes back). DIR is replaced as a whole (its .git and other files of
    yours are kept); a folder that is not empty and holds no save.json is refused. `ttsmod pack DIR` gives the
    save back byte for byte. Exit status: 0 done, 2 unreadable save or unusable DIR.
    """
    from bridge.luaproject.savetree import unpack

    result = unpack(save, folder, round_numbers=round_numbers)
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False))
        return
    rounded = f", {result.rounded} number(s) rounded" if result.rounded is not None else ""
    click.echo(f"unpacked {result.objects} object(s), {result.scripts} script(s) into {folder} "
               f"({result.files} file(s){rounded})")
    if result.exact is False:
        click.echo(f"note: {save} is laid out in a way ttsmod does not write (uneven spacing or unusual "
                   "escapes); pack gives back the same JSON value, laid out as TTS does", err=True)
