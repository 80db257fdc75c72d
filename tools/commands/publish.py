"""``ttsmod publish``: upload a build's sheets and thumbnail with HTTP PUT, verified with HEAD."""

from __future__ import annotations

from pathlib import Path

import click

from tools.errors import InputError
from tools.publish import publish as publish_build


@click.command("publish", short_help="Upload a build's images to a web host.")
@click.argument("build_dir", type=click.Path(path_type=Path))
@click.option("--to", "to", required=True, help="Base URL; each file is PUT to URL/<file name>.")
@click.option("--header", "headers", multiple=True, metavar="NAME:VALUE",
              help="Extra HTTP header for every request (e.g. authorisation); repeatable.")
@click.option("--retries", type=click.IntRange(0, 10), default=3, show_default=True)
def publish(build_dir: Path, to: str, headers: tuple[str, ...], retries: int) -> None:
    """Upload the images BUILD_DIR's save uses (and its thumbnail) to --to, then check each with HEAD.

    Build with the same URL first (ttsmod build GAME --asset-base-url URL) so the save points at them.
    """
    parsed: dict[str, str] = {}
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            raise InputError(f'--header must look like "Name: value", not "{header}"')
        parsed[name.strip()] = value.strip()
    result = publish_build(build_dir, to, retries=retries, headers=parsed,
                           progress=lambda item: click.echo(f"{item.url}  {item.size} bytes  verified"))
    click.echo(f"{len(result.uploaded)} file(s) published to {to}")
    if result.save_uses_local_urls:
        click.secho(f"note: the save still uses file:/// URLs; rebuild with --asset-base-url {to} "
                    "so other players load the published files", fg="yellow")
