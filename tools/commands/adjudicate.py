"""``ttsmod adjudicate``: the ruling for the end of a round, from a table snapshot."""

from __future__ import annotations

import json

import click

from bridge.rules.errors import RulesError
from bridge.rules.four_humours.service import resolve_round
from bridge.errors import InputError
from bridge.catalog import load_game


@click.command(short_help='Print the end-of-round ruling for a table snapshot.')
@click.argument("game")
@click.argument("snapshot", type=click.File("r", encoding="utf-8"))
@click.option("--choice", "choices", multiple=True, metavar="PLAYER:CELL",
              help="Answer a decision the ruling asked for (repeatable, in order).")
@click.option("--force", is_flag=True, help="End the round even if no round-end condition holds.")
def adjudicate(game: str, snapshot, choices: tuple[str, ...], force: bool) -> None:
    """Print the end-of-round ruling JSON for SNAPSHOT (a file, or - for stdin).

    SNAPSHOT is a table snapshot (docs/protocol.md), or an end_round request body with "snapshot" and
    "choices".
    """
    data = load_game(game)
    name = getattr(snapshot, "name", "-")
    try:
        document = json.load(snapshot)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply to read (a snapshot nests a few levels)") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text") from None
    if isinstance(document, dict) and "snapshot" in document:
        if not isinstance(document.get("choices", []), list):
            raise InputError(f'{name}: "choices" must be a list')
        body_choices = list(document.get("choices", []))
        force = force or bool(document.get("force", False))
        document = document["snapshot"]
    else:
        body_choices = []
    for text in choices:
        player, sep, cell = text.partition(":")
        if not sep or not player.isdigit() or not cell:
            raise click.BadParameter(f"{text!r} is not PLAYER:CELL", param_hint="--choice")
        body_choices.append({"player": int(player), "cell": cell})
    try:
        ruling = resolve_round(data, document, body_choices, force=force)
    except RulesError as exc:
        raise InputError(f"{name}: {exc}") from None
    click.echo(json.dumps(ruling, ensure_ascii=False, indent=2))
