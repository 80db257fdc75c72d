"""``ttsmod check``: lint a TTS save; exit 0 clean, 1 findings, 2 unreadable input."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tools.check import SEVERITIES, check_file
from tools.defaults import DEFAULT_MAX_PIXELS

COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


@click.command("check", short_help='Lint a TTS save and report problems.')
@click.argument("save", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True,
              help="Print the report as JSON (schema_version 2: source, exit_status, counts, findings).")
@click.option("--errors-only", is_flag=True,
              help="Report errors only; warnings and infos are left out and do not change the exit status.")
@click.option("--max-pixels", type=click.IntRange(min=1), default=DEFAULT_MAX_PIXELS, show_default=True,
              help="A local image with more pixels (width x height) is an error: a likely decompression bomb.")
def check(save: Path, as_json: bool, errors_only: bool, max_pixels: int) -> None:
    """Lint SAVE (any TTS save or Saved Object JSON).

    Errors break the game in TTS, warnings are suspicious, infos do not change the exit status (what TTS
    writes into its own saves, file:/// URLs only this computer can load). Only local files are opened,
    never network paths. Exit status: 0 no errors or warnings, 1 some, 2 the file is not a readable save.
    """
    report = check_file(save, max_pixels=max_pixels)
    if errors_only:
        report = report.errors_only()
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for finding in report.findings:
            click.secho(str(finding), fg=COLOURS[finding.severity])
        shown = ("error",) if errors_only else SEVERITIES
        counts = ", ".join(f"{report.count(s)} {s}(s)" for s in shown)
        click.echo(f"{save}: {counts}")
    raise SystemExit(report.exit_status)
