"""``ttsmod selftest``: probe a running TTS game, print what TTS did against what the mod assumes, write a report."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import click

from tools.commands.common import make_bridge, network_options, run_async, setup_logging
from bridge.errors import InputError, TtsmodError

VERDICT_COLOURS = {"pass": "green", "differs": "red", "could not run": "yellow", "skipped": None}


async def _run(options: dict[str, Any], skip: tuple[str, ...]):
    from tools.selftest import run_selftest, selftest_registry

    timeout = options.pop("timeout")
    async with make_bridge(**options, registry=selftest_registry(), read_timeout=timeout) as bridge:
        return await run_selftest(bridge.session, timeout=timeout, skip=skip)


def _print_table(report: Any) -> None:
    width = max(80, min(shutil.get_terminal_size((100, 20)).columns, 140))
    name_w, verdict_w = 9, 13
    text_w = (width - name_w - verdict_w - 6) // 2
    header = f"{'probe':<{name_w}}  {'TTS did':<{text_w}}  {'mod assumes':<{text_w}}  verdict"
    click.secho(header, bold=True)
    click.echo("-" * min(width, len(header) + 8))
    for result in report.results:
        did = textwrap.wrap(result.tts_did, text_w) or [""]
        assumes = textwrap.wrap(result.mod_assumes, text_w) or [""]
        for i in range(max(len(did), len(assumes))):
            left = did[i] if i < len(did) else ""
            middle = assumes[i] if i < len(assumes) else ""
            name = result.name if i == 0 else ""
            line = f"{name:<{name_w}}  {left:<{text_w}}  {middle:<{text_w}}  "
            if i == 0:
                click.echo(line, nl=False)
                click.secho(result.verdict, fg=VERDICT_COLOURS.get(result.verdict), bold=result.verdict != "pass")
            else:
                click.echo(line.rstrip())
    for result in report.results:
        wrong = [f for f in result.facts if f.ok is False]
        if wrong:
            click.secho(f"\n{result.name}: {result.verdict}", fg=VERDICT_COLOURS.get(result.verdict), bold=True)
            for fact in wrong:
                click.echo(f"  {fact.label}: TTS did {fact.observed}; the mod assumes {fact.expected}")
    notes = [r for r in report.results if r.note and r.verdict != "skipped"]
    if notes:
        click.echo("")
        for result in notes:
            click.secho(f"{result.name}: {result.note}", fg="cyan")


@click.command("selftest", short_help="Check a running TTS game against what the mod assumes.")
@network_options
@click.option("--report", "report_path", default="ttsmod-selftest.json", show_default=True,
              type=click.Path(), help="Where to write the report a host sends back.")
@click.option("--skip", "skip", multiple=True, metavar="PROBE",
              help="Leave out a probe (messages, hand, zone, snap, smooth, merge, reload); may be repeated.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of a table.")
def selftest_command(report_path: str, skip: tuple[str, ...], as_json: bool, **options: Any) -> None:
    """With TTS running a ttsmod game (seated at a player colour, `ttsmod bridge` stopped: the selftest holds
    its port), run a short series of probes through the live link and the mod, print a table of what TTS did
    against what the mod assumes, and write it to --report.

    The reload probe reloads the game (Save & Play with its own scripts). Exit status: 0 every probe passed,
    1 a probe differs or could not run (or TTS did not answer), 2 bad arguments.
    """
    from bridge.fsio import atomic_write_text
    from tools.selftest import check_probe_names

    setup_logging()
    check_probe_names(skip)
    target = Path(report_path)
    if target.is_dir():
        raise InputError(f"--report {report_path} is a folder; give a file name")
    report = run_async(_run(options, skip))
    if report is None:   # interrupted
        raise click.exceptions.Exit(1)
    try:
        atomic_write_text(target, report.to_text())
    except OSError as exc:
        raise TtsmodError(f"cannot write the report {report_path}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        _print_table(report)
        colour = "green" if report.passed else "red"
        summary = "every probe passed" if report.passed else "some probes differ or could not run"
        click.secho(f"\n{summary}; report written to {report_path}", fg=colour, err=True)
    if not report.passed:
        raise click.exceptions.Exit(1)
