"""The ``ttsmod`` command line: a thin click layer over library functions.

Each command lives in ``tools/commands/<name>.py`` and is listed in :data:`COMMANDS` with its one-line summary;
user errors are :class:`bridge.errors.TtsmodError` subclasses, printed as one line with their exit status (2 for
bad data, 1 for a file that cannot be written: :class:`bridge.errors.WriteError`). The usage errors click finds
(a bad option, a missing argument) are printed the same way, ``error: ...`` and exit status 2
(:func:`click_error_line`). Any other ``OSError`` that
reaches the group (the operating system refused something no command turned into its own message) is one line and
exit status 1 too: a full disk or a read-only folder is the user's to fix, and a traceback would only hide it.

Commands are imported only when run (or asked for their own ``--help``): importing them all would load the
engines, Pillow, requests and the checker, which costs more than the rest of a ``ttsmod --help`` together. The
summaries ``ttsmod --help`` prints are therefore kept here; ``tests/tools/test_cli.py`` checks that each equals its
command's own.
"""

from __future__ import annotations

import gc
import importlib
import sys
from typing import NamedTuple

import click
from click.exceptions import NoArgsIsHelpError

from bridge import __version__
from bridge.errors import TtsmodError


class CommandEntry(NamedTuple):
    """Where a command is defined, and the one-line summary ``ttsmod --help`` shows for it."""

    name: str
    module: str     # under tools.commands
    attr: str
    summary: str


# One line per command, in --help order.
COMMANDS: tuple[CommandEntry, ...] = (
    CommandEntry("simulate", "simulate", "simulate", "Play random legal games and report balance figures."),
    CommandEntry("arena", "arena", "arena", "Play bots against each other and report their win shares."),
    CommandEntry("sweep", "sweep", "sweep_command", "Run a balance study over rule flags, player counts and bots."),
    CommandEntry("adjudicate", "adjudicate", "adjudicate", "Print a game's ruling for a table snapshot."),
    CommandEntry("sheets", "sheets", "sheets", "Pack card images into TTS sheets and a deck object."),
    CommandEntry("new", "new", "new_command", "Make a new game folder that builds at once."),
    CommandEntry("build", "build", "build", "Build a game into a TTS save with card sheets."),
    CommandEntry("data", "data", "data", "Export a game's card lists as CSV or XLSX sheets."),
    CommandEntry("check", "check", "check", "Lint a TTS save and report problems."),
    CommandEntry("preview", "preview", "preview_command", "Draw a TTS save's table from above as a picture."),
    CommandEntry("pnp", "pnp", "pnp_command", "Write a game's cards as a print-and-play PDF."),
    CommandEntry("install", "install", "install", "Copy a built save into the TTS Saves folder."),
    CommandEntry("publish", "publish", "publish", "Upload a build's images to a web host."),
    CommandEntry("bridge", "bridge", "bridge_command", "Run the live bridge beside Tabletop Simulator."),
    CommandEntry("push", "push", "push_command", "Send scripts and UI to TTS (Save & Play), or update one object."),
    CommandEntry("pull", "pull", "pull_command", "Get every script and UI from TTS into files."),
    CommandEntry("exec", "exec", "exec_command", "Run Lua in the running TTS game and print the result."),
    CommandEntry("console", "console", "console_command", "Type Lua into the running TTS game and see the results."),
    CommandEntry("selftest", "selftest", "selftest_command", "Check a running TTS game against what the mod assumes."),
    CommandEntry("watch", "watch", "watch_command", "Rebuild and push to TTS as game files change."),
    CommandEntry("replay", "replay", "replay_command", "Re-run a journal's rulings and report changes, or write a page."),
    CommandEntry("unpack", "unpack", "unpack_command", "Write a TTS save as a folder tree to keep in git."),
    CommandEntry("pack", "pack", "pack_command", "Build a TTS save from a folder tree made by unpack."),
    CommandEntry("bundle", "bundle", "bundle_command", "Bundle a Lua script and the modules it requires into one script."),
    CommandEntry("unbundle", "unbundle", "unbundle_command", "Split a bundled Lua script back into its module files."),
)

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class TtsmodGroup(click.Group):
    """The command group: commands loaded on first use, and :class:`TtsmodError` reported as one red line with
    the error's exit status (any other ``OSError`` as one line, exit status 1)."""

    def __init__(self, *args, entries: tuple[CommandEntry, ...] = COMMANDS, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.entries = {entry.name: entry for entry in entries}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.entries) + [name for name in self.commands if name not in self.entries]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = self.entries.get(cmd_name)
        if entry is not None and cmd_name not in self.commands:
            self.add_command(getattr(importlib.import_module(f"tools.commands.{entry.module}"), entry.attr),
                             cmd_name)
        return self.commands.get(cmd_name)

    def load_all(self) -> dict[str, click.Command]:
        """Every command, imported (for tests and tools that inspect their options)."""
        ctx = click.Context(self)
        return {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The listing uses the kept summaries, so `ttsmod --help` imports no command.
        rows = [(entry.name, entry.summary) for entry in self.entries.values()]
        rows += [(name, command.get_short_help_str(limit=formatter.width))
                 for name, command in self.commands.items() if name not in self.entries]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra) -> click.Context:
        # the group's own options (ttsmod --bogus): reported as a command's are, below
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as exc:
            if isinstance(exc, NoArgsIsHelpError):
                raise   # click prints the help
            click.secho(f"error: {click_error_line(exc)}", fg="red", err=True)
            raise click.exceptions.Exit(exc.exit_code) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TtsmodError as exc:
            click.secho(f"error: {exc}", fg="red", err=True)
            ctx.exit(exc.exit_code)
        except OSError as exc:
            click.secho(f"error: {os_error_line(exc)}", fg="red", err=True)
            ctx.exit(1)
        except click.ClickException as exc:
            if isinstance(exc, NoArgsIsHelpError):
                raise   # `ttsmod data` alone: click prints the group's help
            click.secho(f"error: {click_error_line(exc)}", fg="red", err=True)
            ctx.exit(exc.exit_code)


def click_error_line(exc: click.ClickException) -> str:
    """A usage error click found (a bad option or value, a missing argument, a path that does not exist) as the
    one line ttsmod prints for its own errors: the message, then where the command's help is. Click's own form
    (usage, a "Try ..." line, then ``Error: ...``) sat beside ttsmod's ``error: ...`` lines."""
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        return f"{message} (see {ctx.command_path} --help)"
    return message


def os_error_line(exc: OSError) -> str:
    """``exc`` as one line: the file(s) it names, then the operating system's reason."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    files = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
    return ": ".join(files + [reason]) if files else reason


@click.group(cls=TtsmodGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="ttsmod")
def cli() -> None:
    """ttsmod: bring board games to Tabletop Simulator and keep them honest while people play."""


ONE_SHOT_WITHOUT_COLLECTOR = frozenset({"build"})
"""Commands whose process runs Python's cyclic garbage collector not at all: a build pauses it anyway (its
millions of objects make few cycles, :func:`tools.build.collector_paused`), and turning it back on only to exit
made it walk all of a big game's save twice — once at once, and again as the interpreter shut down (about a
tenth of a second of a 10,000-card rebuild). Only the process's own entry point does this; the library function
and the command run in-process (tests) keep the collector as they found it."""


def main() -> None:
    """Console-script entry point."""
    if len(sys.argv) > 1 and sys.argv[1] in ONE_SHOT_WITHOUT_COLLECTOR:
        gc.disable()
    cli(prog_name="ttsmod")
