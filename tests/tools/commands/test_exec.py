"""``ttsmod exec``: what the Lua returns is printed whatever text it holds."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bridge.protocol import ReturnValue
from tests.tools.threadtts import ThreadTTS
from tools.cli import cli


def answering(wrapped_result: str):
    """A TTS whose Lua answers every execution with ``wrapped_result`` (the JSON text the exec wrapper returns)."""
    return lambda message: [ReturnValue(return_id=message.return_id, value=wrapped_result, has_value=True)]


def test_a_returned_string_with_a_lone_surrogate_prints_as_json_that_reads_back_the_same():
    # a Lua string is bytes: JSON.encode may spell one that is not UTF-8 as "\ud800"
    with ThreadTTS(lua=answering('{"ok":true,"value":{"name":"bad\\ud800"}}')) as tts:
        result = CliRunner().invoke(cli, ["exec", *tts.args(), "return x"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"name": "bad\ud800"}


def test_an_error_with_a_lone_surrogate_is_one_line_exit_1():
    with ThreadTTS(lua=answering('{"ok":false,"error":"attempt to index bad\\udfff"}')) as tts:
        result = CliRunner().invoke(cli, ["exec", *tts.args(), "return x.y"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr == "error: attempt to index bad\\udfff\n"
