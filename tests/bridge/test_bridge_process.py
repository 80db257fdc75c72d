"""A real ``ttsmod bridge`` process: SIGTERM and Ctrl-C stop it cleanly, a full disk and a low file limit do not
flood the terminal, and it says which mod said hello."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from bridge.faketts import FakeTTS

pytestmark = pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX signals and resource limits")

HELLO = {"ttsmod": 1, "id": 1, "type": "hello", "game": "some-game", "body": {"mod": "0.1.0"}}


async def _start_bridge(tts: FakeTTS, repo_root: Path, stderr_path: Path, journal: str, preexec=None):
    """``ttsmod bridge`` on an ephemeral port with stderr in a file (a pipe could fill up and stall it), started as
    a terminal starts it: Ctrl-C's SIGINT at its default, even when the test run itself was started in the
    background by a shell, which sets it to be ignored (and a child inherits that)."""

    def as_from_a_terminal() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if preexec is not None:
            preexec()

    with open(stderr_path, "wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "from tools.cli import main; main()", "bridge", "--port", "0",
            "--tts-port", str(tts.port), "--journal", journal,
            cwd=repo_root, stdout=asyncio.subprocess.DEVNULL, stderr=stderr, preexec_fn=as_from_a_terminal,
        )
    async with asyncio.timeout(30):
        while True:
            match = re.search(r"listening on 127\.0\.0\.1:(\d+)", stderr_path.read_text(encoding="utf-8", errors="replace"))
            if match:
                break
            assert process.returncode is None, "the bridge exited before listening"
            await asyncio.sleep(0.05)
    tts.bridge_port = int(match.group(1))
    return process


async def _stop(process, signum: int) -> int:
    process.send_signal(signum)
    async with asyncio.timeout(30):
        return await process.wait()


def _run(scenario, limit: float = 90):
    async def bounded():
        async with asyncio.timeout(limit):
            return await scenario

    return asyncio.run(bounded())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_bridge_cleanly_and_a_hello_is_announced(tmp_path, repo_root, signum):
    stderr_path = tmp_path / "stderr.txt"

    async def scenario():
        async with FakeTTS() as tts:
            process = await _start_bridge(tts, repo_root, stderr_path, str(tmp_path / "j.jsonl"))
            try:
                await tts.send_custom(HELLO)
                reply = await tts.next_custom(timeout=20)
            finally:
                code = await _stop(process, signum)
            return reply, code

    reply, code = _run(scenario())
    stderr = stderr_path.read_text(encoding="utf-8")
    assert reply["ok"] is True
    assert code == 0, stderr
    assert "hello from the some-game mod 0.1.0" in stderr
    assert stderr.rstrip().endswith("stopped")
    assert "Traceback" not in stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_bridge_stopped_while_tts_holds_a_connection_open_stops_quietly(tmp_path, repo_root, signum):
    # TTS (or anything on the port) has sent half a frame and keeps the connection open when the user stops the
    # bridge: it stops with its last line and no traceback (asyncio used to log the cancelled connection's)
    stderr_path = tmp_path / "stderr.txt"

    async def scenario():
        async with FakeTTS() as tts:
            process = await _start_bridge(tts, repo_root, stderr_path, str(tmp_path / "j.jsonl"))
            reader, writer = await asyncio.open_connection("127.0.0.1", tts.bridge_port)
            try:
                writer.write(b'{"messageID": 4, "customMessage": {"ttsmod"')
                await writer.drain()
                await asyncio.sleep(0.5)
                return await _stop(process, signum)
            finally:
                writer.close()

    code = _run(scenario())
    stderr = stderr_path.read_text(encoding="utf-8")
    assert code == 0, stderr
    assert stderr.rstrip().endswith("stopped")
    assert "Traceback" not in stderr and "CancelledError" not in stderr, stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_journal_on_a_full_disk_is_reported_once_and_the_bridge_keeps_serving(tmp_path, repo_root):
    stderr_path = tmp_path / "stderr.txt"

    async def scenario():
        async with FakeTTS() as tts:
            process = await _start_bridge(tts, repo_root, stderr_path, "/dev/full")
            try:
                replies = []
                for n in range(3):
                    await tts.send_custom({**HELLO, "id": n})
                    replies.append(await tts.next_custom(timeout=20))
            finally:
                code = await _stop(process, signal.SIGINT)
            return replies, code

    replies, code = _run(scenario())
    stderr = stderr_path.read_text(encoding="utf-8")
    assert [r["re"] for r in replies] == [0, 1, 2] and all(r["ok"] for r in replies)
    assert code == 0, stderr
    assert stderr.count("cannot write the journal /dev/full: No space left on device") == 1
    assert "Traceback" not in stderr


def test_running_out_of_file_descriptors_gives_one_warning_and_the_bridge_recovers(tmp_path, repo_root):
    resource = pytest.importorskip("resource")
    stderr_path = tmp_path / "stderr.txt"

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40))

    async def scenario():
        async with FakeTTS() as tts:
            process = await _start_bridge(tts, repo_root, stderr_path, str(tmp_path / "j.jsonl"), preexec=low_limit)
            try:
                held = []
                for _ in range(120):  # each open connection holds one of the bridge's descriptors
                    held.append(await asyncio.open_connection("127.0.0.1", tts.bridge_port))
                await asyncio.sleep(2.5)  # asyncio retries accept() once a second meanwhile
                for _reader, writer in held:
                    writer.close()
                await tts.send_custom(HELLO)
                reply = await tts.next_custom(timeout=30)
            finally:
                code = await _stop(process, signal.SIGTERM)
            return reply, code

    reply, code = _run(scenario(), limit=120)
    stderr = stderr_path.read_text(encoding="utf-8")
    assert reply["ok"] is True
    assert code == 0
    assert stderr.count("cannot accept connections from TTS: Too many open files") == 1
    assert "Traceback" not in stderr
