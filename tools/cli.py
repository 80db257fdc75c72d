"""The ``ttsmod`` command line: a thin click layer over library functions.

Each command lives in ``tools/commands/<name>.py`` and is listed in :data:`COMMANDS`; user errors are
:class:`bridge.errors.TtsmodError` subclasses, printed as one line with their exit status (2 for bad data).
"""

from __future__ import annotations

import importlib
import click

from bridge import __version__
from bridge.errors import TtsmodError

# (module under tools.commands, attribute) — one line per command, in --help order.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("simulate", "simulate"),
    ("adjudicate", "adjudicate"),
    ("sheets", "sheets"),
    ("build", "build"),
    ("check", "check"),
    ("install", "install"),
    ("publish", "publish"),
    ("bridge", "bridge_command"),
    ("push", "push_command"),
    ("pull", "pull_command"),
    ("exec", "exec_command"),
    ("selftest", "selftest_command"),
    ("watch", "watch_command"),
    ("replay", "replay_command"),
)

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class TtsmodGroup(click.Group):
    """A group that reports :class:`TtsmodError` as one red line and exits with the error's status."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TtsmodError as exc:
            click.secho(f"error: {exc}", fg="red", err=True)
            ctx.exit(exc.exit_code)


@click.group(cls=TtsmodGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="ttsmod")
def cli() -> None:
    """ttsmod: bring board games to Tabletop Simulator and keep them honest while people play."""


for _module, _attr in COMMANDS:
    cli.add_command(getattr(importlib.import_module(f"tools.commands.{_module}"), _attr))


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="ttsmod")
