"""Every command's options: help text for each, and the options commands share."""

from __future__ import annotations

import click
from click.testing import CliRunner

from tools.cli import cli


def walk(command: click.Command, path: tuple[str, ...] = ("ttsmod",)):
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in sorted(command.list_commands(ctx)):
            yield from walk(command.get_command(ctx, name), (*path, name))


def test_every_option_of_every_command_has_help():
    missing = [f"{' '.join(path)} {'/'.join(option.opts)}"
               for path, command in walk(cli)
               for option in command.params
               if isinstance(option, click.Option) and not option.hidden and not (option.help or "").strip()]
    assert not missing, "options without help text: " + ", ".join(missing)


def test_watch_takes_the_bridge_port_options():
    def options(name: str) -> set[str]:
        return {opt for param in cli.load_all()[name].params for opt in param.opts if opt.startswith("--")}

    network = {"--host", "--port", "--tts-host", "--tts-port", "--allow-remote", "--timeout"}
    assert network <= options("bridge") and network <= options("watch")


def test_watch_passes_its_journal_options_to_the_bridge(monkeypatch):
    seen = {}
    import tools.commands.watch as watch

    monkeypatch.setattr(watch, "run_bridge_in_terminal", lambda **kwargs: seen.update(kwargs))
    assert CliRunner().invoke(cli, ["watch", "some-game", "--journal", "w.jsonl"]).exit_code == 0
    assert seen["journal_path"] == "w.jsonl" and seen["no_journal"] is False
    assert CliRunner().invoke(cli, ["watch", "some-game", "--no-journal"]).exit_code == 0
    assert seen["journal_path"] is None and seen["no_journal"] is True


def test_watch_passes_its_port_options_to_the_bridge(monkeypatch):
    seen = {}

    def fake_bridge(**kwargs):
        seen.update(kwargs)

    import tools.commands.watch as watch

    monkeypatch.setattr(watch, "run_bridge_in_terminal", fake_bridge)
    result = CliRunner().invoke(cli, ["watch", "some-game", "--port", "0", "--tts-port", "40001",
                                      "--timeout", "3"])
    assert result.exit_code == 0, result.output
    assert seen["watch_game"] == "some-game" and seen["port"] == 0 and seen["tts_port"] == 40001
    assert seen["timeout"] == 3.0 and seen["host"] == "127.0.0.1" and not seen["allow_remote"]
