"""The ``ttsmod`` group: one console script whose --help lists every command with a one-line summary."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from tools.cli import COMMANDS, cli


def test_help_lists_every_command_with_a_whole_one_line_summary():
    result = CliRunner().invoke(cli, ["--help"], terminal_width=80)
    assert result.exit_code == 0
    lines = result.output.split("Commands:")[1].strip().splitlines()
    listed = {line.split()[0]: line.split(None, 1)[1] for line in lines}
    assert set(listed) == set(cli.commands) and len(listed) == len(COMMANDS)
    for name, summary in listed.items():
        assert summary.endswith(".") and "..." not in summary, (name, summary)


def test_the_console_script_entry_point_runs():
    result = subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", "--version"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "ttsmod, version" in result.stdout
