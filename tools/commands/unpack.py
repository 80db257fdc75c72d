"""``ttsmod unpack SAVE DIR``: a TTS save as a folder tree (one folder per object, scripts and UI as files)."""

from __future__ import annotations

import json

import click


@click.command("unpack", short_help="Write a TTS save as a folder tree to keep in git.")
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: save, dir, objects, scripts, files.")
def unpack_command(save: str, folder: str, as_json: bool) -> None:
    """Write SAVE (any TTS save or Saved Object) as a folder tree in DIR.

    One folder per object (<Nickname>.<GUID>) with object.json, script.lua, ui.xml and state.json; contained
    objects in contents/, in order; Global's script, UI and state at the top beside save.json. DIR is replaced
    as a whole (its .git and other files of yours are kept); a folder that is not empty and holds no save.json
    is refused. `ttsmod pack DIR` gives the save back. Exit status: 0 done, 2 unreadable save or unusable DIR.
    """
    from bridge.luaproject.savetree import unpack

    result = unpack(save, folder)
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False))
        return
    click.echo(f"unpacked {result.objects} object(s), {result.scripts} script(s) into {folder} "
               f"({result.files} file(s))")
