"""The ``ttsmod`` group: one console script whose --help lists every command with a one-line summary."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from tools.cli import COMMANDS, cli


def test_help_lists_every_command_with_a_whole_one_line_summary():
    result = CliRunner().invoke(cli, ["--help"], terminal_width=80)
    assert result.exit_code == 0
    lines = result.output.split("Commands:")[1].strip().splitlines()
    listed = {line.split()[0]: line.split(None, 1)[1] for line in lines}
    assert list(listed) == [entry.name for entry in COMMANDS]
    for name, summary in listed.items():
        assert summary.endswith(".") and "..." not in summary, (name, summary)


def test_each_kept_summary_is_the_commands_own():
    # --help lists the summaries kept in tools/cli.py so that it imports no command; they must not drift
    for name, command in cli.load_all().items():
        kept = next(entry.summary for entry in COMMANDS if entry.name == name)
        assert command.get_short_help_str(limit=300) == kept, name


def test_help_imports_no_command_module():
    # what makes `ttsmod --help` start at once: no engine, Pillow, requests or checker is loaded for it (only the
    # rules' errors module, where the TtsmodError the group catches lives, and its package, a docstring)
    probe = ("import sys; from tools.cli import main; sys.argv = ['ttsmod', '--help']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "heavy = sorted(m for m in sys.modules if m.startswith(('tools.commands.', 'PIL', 'requests', "
             "'bridge.rules.')) and m != 'bridge.rules.errors')\nprint('LOADED', heavy)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "LOADED []" in result.stdout, result.stdout + result.stderr


def test_a_command_runs_when_only_its_name_is_known():
    result = CliRunner().invoke(cli, ["check", "--help"])
    assert result.exit_code == 0 and "Lint SAVE (any TTS save" in result.output


def test_the_console_script_entry_point_runs():
    result = subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", "--version"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "ttsmod, version" in result.stdout


def test_an_os_error_no_command_reported_is_one_line_naming_the_file_exit_1():
    from tools.cli import TtsmodGroup

    @click.group(cls=TtsmodGroup, entries=())
    def group() -> None:
        pass

    @group.command()
    def copy() -> None:
        raise PermissionError(13, "Permission denied", "saves/a.json", None, "saves/b.json")

    @group.command()
    def nameless() -> None:
        raise OSError(28, "No space left on device")

    runner = CliRunner()
    result = runner.invoke(group, ["copy"])
    assert result.exit_code == 1 and result.output == "error: saves/a.json: saves/b.json: Permission denied\n"
    result = runner.invoke(group, ["nameless"])
    assert result.exit_code == 1 and result.output == "error: No space left on device\n"


@pytest.mark.parametrize("args, says", [
    (["check", "save.json", "--bogus"], "No such option '--bogus'"),                 # a bad option
    (["sheets", "face.png", "--out", "o", "--quality", "500"], "'--quality': 500 is not in the range"),
    (["check"], "Missing argument 'SAVE'"),
    (["no-such-command"], "No such command 'no-such-command'"),
    (["--bogus"], "No such option '--bogus'"),                                        # the group's own
    (["check", "missing.json"], "missing.json: no such file"),                       # a bad file (ttsmod's)
    (["check", "broken.json"], "broken.json: "),                                     # a file that is no save
    (["install", "broken.json", "--tts-dir", "tts"], "broken.json: not a JSON save file"),
])
def test_usage_errors_and_data_errors_look_the_same(tmp_path, monkeypatch, args, says):
    """Issue #28: click's ``Usage: … Try … Error: …`` sat beside ttsmod's one ``error: …`` line. Now each is one
    red line on stderr, ``error: ``, naming what is wrong, exit status 2; a usage error also says where help is."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "tts").mkdir()
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], result.stderr
    assert "Usage:" not in result.output and "Error:" not in result.output and result.stdout == ""
    if "No such" in says or "Missing" in says or "range" in says:
        assert lines[0].endswith("--help)")
