"""A real `ttsmod bridge` process for tests that play against it (the e2e games, the toy game)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bridge:
    """A `ttsmod bridge` subprocess on an ephemeral port, pointed at the headless table's port."""

    def __init__(self, repo: Path, port: int, tts_port: int, extra: tuple[str, ...] = (),
                 journal: Path | None = None) -> None:
        self.repo, self.port, self.tts_port, self.extra = repo, port, tts_port, extra
        self.journal = journal   # where the bridge journals (``--journal``); None: ``--no-journal``
        self.proc: subprocess.Popen | None = None
        self.stderr: list[str] = []

    def start(self, ready_timeout: float = 30.0) -> None:
        """Start the bridge and return once it says it is listening."""
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from tools.cli import main; main()", "bridge", "--port", str(self.port),
             "--tts-port", str(self.tts_port),
             *(("--journal", str(self.journal)) if self.journal is not None else ("--no-journal",)), *self.extra],
            cwd=self.repo,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        listening = threading.Event()
        proc, lines = self.proc, self.stderr

        def read() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                lines.append(line.rstrip("\n"))
                if "listening on" in line:
                    listening.set()

        threading.Thread(target=read, name="bridge-stderr", daemon=True).start()
        assert listening.wait(ready_timeout), "the bridge did not start:\n" + "\n".join(self.stderr)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None
