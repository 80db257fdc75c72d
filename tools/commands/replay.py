"""``ttsmod replay JOURNAL``: re-run a bridge journal's rulings with the current engine."""

from __future__ import annotations

import json

import click


def _short(value: object, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _warn(text: str) -> None:
    click.secho(f"warning: {text}", fg="yellow", err=True)


@click.command("replay", short_help="Re-run a journal's adjudications and report changes.")
@click.argument("journal", type=click.Path(dir_okay=False))
def replay_command(journal: str) -> None:
    """Re-run every adjudication in JOURNAL and report each ruling that differs now.

    The journal is read line by line; a record cut short by a crash is skipped with a warning.
    A request whose snapshot is of an older format (a journal written before the one snapshot envelope)
    is reported as such: this ttsmod cannot re-check it. Exit status: 0 none differ, 1 some differ (or are of an
    older format), 2 the journal cannot be read.
    """
    from bridge.games import default_registry
    from bridge.journal import iter_rulings
    from bridge.session import Dispatcher

    checked = differing = unanswered = older = 0
    # Streamed: only counts are kept, so a journal of any size replays in the same memory.
    for ruling in iter_rulings(journal, Dispatcher(default_registry()).reply, warn=_warn):
        if ruling.recorded is None:
            unanswered += 1
            continue
        checked += 1
        if not ruling.differs:
            continue
        differing += 1
        request = ruling.request
        if ruling.older_format:
            older += 1
            click.secho(f"line {ruling.line}: {request.get('game')} {request.get('type')} id {request.get('id')!r}: "
                        "its snapshot is in an older format than this ttsmod reads (no \"ttsmod_snapshot\": 1); "
                        "replay this journal with the ttsmod that wrote it", fg="yellow")
            continue
        click.secho(f"line {ruling.line}: {request.get('game')} {request.get('type')} id {request.get('id')!r} differs",
                    fg="yellow")
        click.echo(f"  recorded: {_short(ruling.recorded)}")
        click.echo(f"  now:      {_short(ruling.current)}")
    note = f"; {unanswered} without a recorded reply" if unanswered else ""
    if older:
        note += f"; {older} in an older snapshot format, not re-checked"
    click.secho(f"{checked} ruling(s) replayed, {differing} differ{note}", fg="red" if differing else "green")
    if differing:
        raise click.exceptions.Exit(1)
