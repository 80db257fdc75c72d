"""``ttsmod adjudicate``: a game's answer to one bridge request (by default the first type the game lists), from a
table snapshot or a request body, without TTS or a bridge. The answer is the bridge's: both read the request
through :func:`bridge.rules.contract.answer`."""

from __future__ import annotations

import json

import click

from bridge.catalog import load, require_rules
from bridge.errors import InputError
from bridge.rules.errors import RulesError


@click.command(short_help="Print a game's ruling for a table snapshot.")
@click.argument("game")
@click.argument("snapshot", type=click.File("r", encoding="utf-8"))
@click.option("--type", "request_type", metavar="TYPE",
              help="The request to answer, one of the game's request types  [default: its first]")
@click.option("--choice", "choices", multiple=True, metavar="PLAYER:ANSWER",
              help="Answer a decision the ruling asked for (repeatable, in order).")
@click.option("--force", is_flag=True, help='Set "force": true in the request (end the round even if no '
                                            'round-end condition holds).')
def adjudicate(game: str, snapshot, request_type: str | None, choices: tuple[str, ...], force: bool) -> None:
    """Print the game's answer JSON for SNAPSHOT (a file, or - for stdin).

    SNAPSHOT is a table snapshot (an object with "ttsmod_snapshot", docs/protocol.md), or a request body as
    the bridge gets it: {"players": 3, "seed": 7} for setup, {"snapshot": …, "action": …} for legal, and so on.
    """
    loaded = load(game)
    require_rules(loaded.meta, "adjudicate")
    engine = loaded.engine
    request_type = request_type or engine.request_types[0]
    if request_type not in engine.request_types:
        raise click.BadParameter(f"{loaded.meta.id} answers {', '.join(engine.request_types)}",
                                 param_hint="--type")
    answers = []
    for text in choices:
        player, sep, answer = text.partition(":")
        if not sep or not player.isdigit() or not answer:
            raise click.BadParameter(f"{text!r} is not PLAYER:ANSWER", param_hint="--choice")
        try:
            answers.append(engine.choice_json(loaded.data, int(player), answer))
        except RulesError as exc:
            raise click.BadParameter(f"{text!r}: {exc}", param_hint="--choice") from None
    name = getattr(snapshot, "name", "-")
    body = request_body(read_json(snapshot, name), name)
    if answers:
        body["choices"] = body.get("choices", []) + answers
    if force:
        body["force"] = True
    try:
        answer_json = engine.handle(loaded.data, request_type, body)
    except RulesError as exc:
        hint = ""
        if request_type != "setup" and "snapshot" not in body and "setup" in engine.request_types:
            hint = f" ({request_type} takes a table; a body for a new table is answered with --type setup)"
        raise InputError(f"{name}: {exc}{hint}") from None
    click.echo(json.dumps(answer_json, ensure_ascii=False, indent=2))


def read_json(stream, name: str):
    """The JSON document of ``stream``; unreadable input is an :class:`InputError` naming ``name``."""
    try:
        return json.load(stream)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply to read (a snapshot nests a few levels)") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text") from None


def request_body(document, name: str) -> dict:
    """The request body a document stands for: a snapshot (an object with ``"ttsmod_snapshot"``) becomes
    ``{"snapshot": document}``; any other object is a request body as it is (the engine judges it)."""
    if not isinstance(document, dict) and document != []:
        raise InputError(f"{name}: a snapshot or a request body is a JSON object, not {type(document).__name__}")
    if isinstance(document, dict) and "ttsmod_snapshot" in document:
        return {"snapshot": document}
    body = dict(document or {})
    if not isinstance(body.get("choices", []), list):
        raise InputError(f'{name}: "choices" must be a list')
    return body
