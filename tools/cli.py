"""The ``ttsmod`` command line: a thin click layer over library functions.

Each command lives in ``tools/commands/<name>.py`` and is listed in :data:`COMMANDS`; user errors are
:class:`tools.errors.TtsmodError` subclasses, printed as one line with their exit status (2 for bad data).
"""

from __future__ import annotations

import importlib
import sys

import click

from bridge import __version__
from tools.errors import TtsmodError

# (module under tools.commands, attribute) — one line per command, in --help order.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("simulate", "simulate"),
    ("adjudicate", "adjudicate"),
)

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="ttsmod")
def cli() -> None:
    """ttsmod: bring board games to Tabletop Simulator and keep them honest while people play."""


for _module, _attr in COMMANDS:
    cli.add_command(getattr(importlib.import_module(f"tools.commands.{_module}"), _attr))


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: runs the group, turning ttsmod errors into one line and an exit status."""
    try:
        cli.main(args=argv, prog_name="ttsmod", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except TtsmodError as exc:
        click.secho(f"error: {exc}", fg="red", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
