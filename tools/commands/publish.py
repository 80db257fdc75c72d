"""``ttsmod publish``: upload a build's sheets and thumbnail with HTTP PUT, verified with HEAD."""

from __future__ import annotations

import json
from pathlib import Path

import click

from bridge.errors import InputError
from tools.publish import DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, publish as publish_build


@click.command("publish", short_help="Upload a build's images to a web host.")
@click.argument("build_dir", type=click.Path(path_type=Path))
@click.option("--to", "to", required=True, help="Base URL; each file is PUT to URL/<file name>.")
@click.option("--header", "headers", multiple=True, metavar="NAME:VALUE",
              help="Extra HTTP header for every request (e.g. authorisation); repeatable.")
@click.option("--retries", type=click.IntRange(0, 10), default=3, show_default=True,
              help="Extra attempts per file after a connection error, timeout, 429 or 5xx, waiting 0.5 s, 1 s, "
                   "2 s, ... in between.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="Total time one request may take (connect, upload, answer); a slower one is cut off.")
@click.option("--connect-timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_CONNECT_TIMEOUT,
              show_default=True, metavar="SECONDS", help="Time allowed to open a connection.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: the base URL and each file uploaded (file, url, size, attempts).")
def publish(build_dir: Path, to: str, headers: tuple[str, ...], retries: int, timeout: float,
            connect_timeout: float, as_json: bool) -> None:
    """Upload the images BUILD_DIR's save uses (and its thumbnail) to --to, then check each with HEAD.

    Build with the same URL first (ttsmod build GAME --asset-base-url URL; for a deck, ttsmod sheets ...
    --out DIR --asset-base-url URL, then publish DIR): a build whose save points elsewhere, or at file:///
    paths, is refused before anything is sent.
    """
    parsed: dict[str, str] = {}
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            raise InputError(f'--header must look like "Name: value", not "{header}"')
        parsed[name.strip()] = value.strip()

    def progress(item) -> None:
        if not as_json:
            click.echo(f"{item.url}  {item.size} bytes  verified")

    result = publish_build(build_dir, to, retries=retries, timeout=timeout, connect_timeout=connect_timeout,
                           headers=parsed, progress=progress)
    if as_json:
        click.echo(json.dumps(result.to_json(to), ensure_ascii=False))
        return
    click.echo(f"{len(result.uploaded)} file(s) published to {to}")
