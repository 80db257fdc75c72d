"""``ttsmod replay JOURNAL``: re-run a bridge journal's rulings with the current engine."""

from __future__ import annotations

import json

import click


def _short(value: object, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@click.command("replay", short_help="Re-run a journal's adjudications and report changes.")
@click.argument("journal", type=click.Path(dir_okay=False))
def replay_command(journal: str) -> None:
    """Re-run every adjudication in JOURNAL and report each ruling that differs now.

    Exit status: 0 none differ, 1 some differ, 2 the journal cannot be read.
    """
    from bridge.games import default_registry
    from bridge.journal import replay
    from bridge.session import Dispatcher

    report = replay(journal, Dispatcher(default_registry()).reply)
    for ruling in report.differing:
        request = ruling.request
        click.secho(f"line {ruling.line}: {request.get('game')} {request.get('type')} id {request.get('id')!r} differs",
                    fg="yellow")
        click.echo(f"  recorded: {_short(ruling.recorded)}")
        click.echo(f"  now:      {_short(ruling.current)}")
    checked = len(report.rulings) - len(report.unanswered)
    differing = len(report.differing)
    note = f"; {len(report.unanswered)} without a recorded reply" if report.unanswered else ""
    click.secho(f"{checked} ruling(s) replayed, {differing} differ{note}", fg="red" if differing else "green")
    if differing:
        raise click.exceptions.Exit(1)
