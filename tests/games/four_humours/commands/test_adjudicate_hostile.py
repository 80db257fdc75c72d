"""``ttsmod adjudicate`` on hostile snapshots: one ``error:`` line and exit status 2, never a traceback."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tools.cli import cli


@pytest.mark.parametrize("content, message", [
    ('{"players": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested too deeply to read"),
    (json.dumps({"snapshot": {"players": []}, "choices": 5}), '"choices" must be a list'),
    (b"\xff\xfe{", "not UTF-8 text"),
])
def test_hostile_snapshot_is_one_line_exit_2(tmp_path, content, message):
    path = tmp_path / "snapshot.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(cli, ["adjudicate", "four-humours", str(path)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.output.strip().startswith(f"error: {path}: {message}")
    assert len(result.output.strip().splitlines()) == 1
