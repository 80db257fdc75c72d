"""``ttsmod check``: lint a TTS save; exit 0 clean, 1 findings, 2 unreadable input."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tools.check import check_file

COLOURS = {"error": "red", "warning": "yellow", "note": "cyan"}


@click.command("check", short_help='Lint a TTS save and report problems.')
@click.argument("save", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON (schema_version 1).")
def check(save: Path, as_json: bool) -> None:
    """Lint SAVE (any TTS save or Saved Object JSON).

    Errors break the game in TTS, warnings are suspicious (real saves have some), notes are information
    (file:/// URLs only this computer can load). Exit status: 0 no errors or warnings, 1 some, 2 the file
    is not a readable save.
    """
    report = check_file(save)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for finding in report.findings:
            click.secho(str(finding), fg=COLOURS[finding.severity])
        counts = ", ".join(f"{report.count(s)} {s}(s)" for s in ("error", "warning", "note"))
        click.echo(f"{save}: {counts}")
    raise SystemExit(report.exit_status)
