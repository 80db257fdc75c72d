"""The journal: every message in and out, surviving a killed process; data folders per OS; replay."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.faketts import FakeTTS
from bridge.journal import Journal, read_journal, replay, user_data_dir
from bridge.session import Dispatcher
from bridge.errors import InputError


def test_user_data_dir_per_platform():
    home = {"HOME": "/home/ann"}
    assert user_data_dir("linux", home) == Path("/home/ann/.local/share/ttsmod")
    assert user_data_dir("linux", {**home, "XDG_DATA_HOME": "/data"}) == Path("/data/ttsmod")
    assert user_data_dir("darwin", home) == Path("/home/ann/Library/Application Support/ttsmod")
    assert user_data_dir("win32", {"USERPROFILE": "C:/Users/ann", "APPDATA": "C:/Users/ann/AppData/Roaming"}) == Path(
        "C:/Users/ann/AppData/Roaming/ttsmod"
    )


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs kill -9")
def test_journal_keeps_every_message_when_the_bridge_is_killed(tmp_path, repo_root):
    journal = tmp_path / "journal.jsonl"

    async def scenario():
        async with FakeTTS() as tts:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", "from tools.cli import main; main()", "bridge", "--port", "0",
                "--tts-port", str(tts.port), "--journal", str(journal),
                cwd=repo_root, stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
            )
            try:
                async with asyncio.timeout(30):
                    while True:
                        line = (await process.stderr.readline()).decode()
                        assert line, "the bridge exited before listening"
                        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
                        if match:
                            break
                tts.bridge_port = int(match.group(1))
                await tts.send_custom({"ttsmod": 1, "id": 7, "type": "hello", "body": {"mod": "0.1.0"}})
                reply = await tts.next_custom(timeout=20)
                # The reply has arrived, and the bridge journals a message before sending it: both lines
                # are in the file now, whatever the kill does.
            finally:
                process.send_signal(signal.SIGKILL)
                await process.wait()
            return reply, process.returncode

    reply, code = asyncio.run(scenario())
    assert reply["re"] == 7 and reply["ok"] is True
    assert code == -signal.SIGKILL
    entries = list(read_journal(journal))
    incoming = [e.message for e in entries if e.direction == "in" and e.message]
    outgoing = [e.message for e in entries if e.direction == "out" and e.message]
    assert {"messageID": 4, "customMessage": {"ttsmod": 1, "id": 7, "type": "hello", "body": {"mod": "0.1.0"}}} in incoming
    assert {"messageID": 2, "customMessage": reply} in outgoing
    assert all(e.time for e in entries)


def test_read_journal_skips_a_line_cut_by_a_crash_but_refuses_garbage(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.record("in", {"messageID": 2, "message": "hi"})
        journal.record("in", None, malformed="not_json", size=3)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"t": "x", "dir": "ou')
    assert [e.direction for e in read_journal(path)] == ["in", "in"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n{}\n", encoding="utf-8")
    with pytest.raises(InputError):
        list(read_journal(bad))
    with pytest.raises(InputError):
        list(read_journal(tmp_path / "missing.jsonl"))


def _write_journal(path: Path, pairs: list[tuple[dict, dict]]) -> None:
    with Journal(path) as journal:
        for request, reply in pairs:
            journal.record("in", {"messageID": 4, "customMessage": request})
            journal.record("out", {"messageID": 2, "customMessage": reply})


def _toy_reply(kit):
    return Dispatcher(kit.toy_registry()).reply


def test_replay_reports_rulings_that_differ(kit, tmp_path):
    path = tmp_path / "j.jsonl"
    same = kit.request(1, "double", {"n": 2})
    changed = kit.request(2, "double", {"n": 5})
    _write_journal(path, [
        (same, {"ttsmod": 1, "re": 1, "type": "double", "ok": True, "body": {"n": 4}}),
        (changed, {"ttsmod": 1, "re": 2, "type": "double", "ok": True, "body": {"n": 11}}),
        ({"ttsmod": 1, "id": 3, "type": "hello", "body": {}}, {"ttsmod": 1, "re": 3, "type": "hello", "ok": True, "body": {}}),
    ])
    report = replay(path, _toy_reply(kit))
    assert len(report.rulings) == 2  # hello is not an adjudication
    assert [r.request["id"] for r in report.differing] == [2]
    assert report.differing[0].current["body"] == {"n": 10}


def test_replay_pairs_reused_ids_in_file_order(kit, tmp_path):
    path = tmp_path / "j.jsonl"
    _write_journal(path, [
        (kit.request(1, "double", {"n": 1}), {"ttsmod": 1, "re": 1, "type": "double", "ok": True, "body": {"n": 2}}),
        (kit.request(1, "double", {"n": 3}), {"ttsmod": 1, "re": 1, "type": "double", "ok": True, "body": {"n": 6}}),
    ])
    assert replay(path, _toy_reply(kit)).differing == []



def test_replay_of_a_journal_older_than_the_snapshot_envelope_says_so(tmp_path):
    """A journal written before every snapshot carried "ttsmod_snapshot" cannot be re-checked: replay says why, for
    every game, rather than reporting a changed ruling."""
    from click.testing import CliRunner

    from bridge.catalog import builtin_games
    from tools.cli import cli

    games = sorted(builtin_games())
    path = tmp_path / "old.jsonl"
    _write_journal(path, [
        ({"ttsmod": 1, "id": n, "type": "score", "game": game,
          "body": {"snapshot": {"game": game, "version": 1, "players": []}}},
         {"ttsmod": 1, "re": n, "type": "score", "ok": True, "body": {"leaders": [0]}})
        for n, game in enumerate(games, 1)])
    done = CliRunner().invoke(cli, ["replay", str(path)])
    assert done.exit_code == 1
    for n, game in enumerate(games, 1):
        assert f"line {2 * n - 1}: {game} score id {n}: its snapshot is in an older format than this ttsmod reads" \
            in done.output
    assert f"{len(games)} ruling(s) replayed, {len(games)} differ; {len(games)} in an older snapshot format, " \
           "not re-checked" in done.output
