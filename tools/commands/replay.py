"""``ttsmod replay JOURNAL``: re-run a bridge journal's rulings with the current engine, or (``--html OUT``) write
the played game as a page to read back (:mod:`tools.replay_html`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

SCHEMA_VERSION = 1
"""Of ``--json``'s object (the replay report and the page's summary alike)."""


def _short(value: object, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _warn(text: str) -> None:
    click.secho(f"warning: {text}", fg="yellow", err=True)


@click.command("replay", short_help="Re-run a journal's rulings and report changes, or write a page.")
@click.argument("journal", type=click.Path(dir_okay=False))
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the played game(s) as one self-contained HTML page to this file instead of re-checking.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object (schema_version 1): the replay's counts and the rulings that differ, or "
                   "with --html what the page holds.")
@click.option("--game", "game_folders", metavar="FOLDER", multiple=True,
              help="Also know the game in FOLDER (a game folder outside ttsmod, as ttsmod bridge --game; repeatable).")
def replay_command(journal: str, html_out: Path | None, as_json: bool, game_folders: tuple[str, ...]) -> None:
    """Re-run every adjudication in JOURNAL and report each ruling that differs now.

    The journal is read line by line; a record cut short by a crash is skipped with a warning.
    A request whose snapshot is of an older format (a journal written before the one snapshot envelope)
    is reported as such: this ttsmod cannot re-check it. Exit status: 0 none differ, 1 some differ (or are of an
    older format), 2 the journal cannot be read.

    With --html OUT, nothing is re-checked: the page shows every request and its ruling in order, what the table
    told the players, every decision and who made it, the scores after every ruling as a plot and the final
    standings (docs/bridge.md). Exit status 0, 2 when the journal cannot be read, 1 when OUT cannot be written.
    """
    from bridge.games import default_registry, game_folder_sources

    sources = game_folder_sources(game_folders)
    if html_out is not None:
        _write_page(journal, html_out, as_json, sources)
        return
    from bridge.journal import iter_rulings
    from bridge.session import Dispatcher

    warnings: list[str] = []
    differences: list[dict[str, Any]] = []
    checked = differing = unanswered = older = 0
    warn = warnings.append if as_json else _warn
    # Streamed: only counts (and, for --json, the rulings that differ) are kept.
    for ruling in iter_rulings(journal, Dispatcher(default_registry(sources)).reply, warn=warn):
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
        if as_json:
            differences.append({"line": ruling.line, "game": request.get("game"), "type": request.get("type"),
                                "id": request.get("id"), "older_format": ruling.older_format,
                                "recorded": ruling.recorded, "now": ruling.current})
            continue
        if ruling.older_format:
            click.secho(f"line {ruling.line}: {request.get('game')} {request.get('type')} id {request.get('id')!r}: "
                        "its snapshot is in an older format than this ttsmod reads (no \"ttsmod_snapshot\": 1); "
                        "replay this journal with the ttsmod that wrote it", fg="yellow")
            continue
        click.secho(f"line {ruling.line}: {request.get('game')} {request.get('type')} id {request.get('id')!r} differs",
                    fg="yellow")
        click.echo(f"  recorded: {_short(ruling.recorded)}")
        click.echo(f"  now:      {_short(ruling.current)}")
    if as_json:
        click.echo(json.dumps({
            "schema_version": SCHEMA_VERSION, "journal": journal, "exit_status": 1 if differing else 0,
            "counts": {"replayed": checked, "differ": differing, "unanswered": unanswered, "older_format": older},
            "differences": differences, "warnings": warnings,
        }, indent=2, ensure_ascii=False))
    else:
        note = f"; {unanswered} without a recorded reply" if unanswered else ""
        if older:
            note += f"; {older} in an older snapshot format, not re-checked"
        click.secho(f"{checked} ruling(s) replayed, {differing} differ{note}", fg="red" if differing else "green")
    if differing:
        raise click.exceptions.Exit(1)


def _write_page(journal: str, out: Path, as_json: bool, sources: dict[str, str]) -> None:
    from bridge.catalog import load
    from bridge.errors import TtsmodError
    from bridge.fsio import atomic_write_text
    from bridge.journal import read_journal
    from tools.replay_html import engine_of, read_games, render

    warnings: list[str] = []
    loaded: dict[str, Any] = {}

    def engines(game_id: str):
        if game_id not in loaded:
            try:
                loaded[game_id] = engine_of(load(sources.get(game_id, game_id)))
            except TtsmodError as exc:
                loaded[game_id] = None
                warnings.append(f"{game_id}: no scores nor standings: {exc}")
        return loaded[game_id]

    games = read_games(read_journal(journal, warn=warnings.append), engines)
    atomic_write_text(out, render(games, title=Path(journal).name))
    if as_json:
        click.echo(json.dumps({
            "schema_version": SCHEMA_VERSION, "journal": journal,
            "html": str(out), "exit_status": 0,
            "games": [{k: v for k, v in g.to_json().items() if k != "steps"} for g in games],
            "warnings": warnings,
        }, indent=2, ensure_ascii=False))
        return
    for warning in warnings:
        _warn(warning)
    rulings = sum(len(g.rulings) for g in games)
    click.echo(f"wrote {out}: {len(games)} game(s), {sum(len(g.steps) for g in games)} request(s), {rulings} ruling(s)")
