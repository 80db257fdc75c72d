"""``ttsmod bundle ROOT [OUT]``: one luabundle-format script from a root script and the modules it requires."""

from __future__ import annotations

import json

import click


@click.command("bundle", short_help="Bundle a Lua script and the modules it requires into one script.")
@click.argument("root", type=click.Path(dir_okay=False))
@click.argument("out", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--lua-path", "lua_path", multiple=True, type=click.Path(file_okay=False),
              help="A folder require() searches (repeatable; default: [lua] path of ttsmod.toml, else ROOT's folder).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: root, out, modules, search.")
def bundle_command(root: str, out: str | None, lua_path: tuple[str, ...], as_json: bool) -> None:
    """Bundle ROOT with every module it requires (luabundle format, as TTS editor plugins write it) into OUT
    (default: print it).

    require("lib.util") finds lib/util.lua under each search folder. A missing module or a computed require is
    one line naming the file and line, exit 2.
    """
    from bridge.luaproject.project import bundle_script

    if as_json and out in (None, "-"):
        raise click.UsageError("--json prints the report; give OUT for the bundle")
    report, text = bundle_script(root, None if out in (None, "-") else out, lua_path)
    if out in (None, "-"):
        click.echo(text)
    elif as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        click.echo(f"bundled {root} and {len(report.modules)} module(s) into {out}")
