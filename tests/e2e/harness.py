"""End-to-end harness: a built save on the headless table, talking to a real `ttsmod bridge` process."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from tools.headless import Table

HAND_Z = {"White": -22.0, "Red": 22.0, "Yellow": -22.0, "Green": 22.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ttsmod(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from tools.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def build(repo: Path, out: Path, mode: str = "kingdom") -> dict:
    done = ttsmod("build", "four-humours", "--out", str(out), "--mode", mode, "--jobs", "2", cwd=repo)
    assert done.returncode == 0, done.stderr
    return json.loads((out / "FourHumours.json").read_text(encoding="utf-8"))


def with_hand_zones(save: dict, colours: list[str]) -> dict:
    """The build writes no HandTrigger objects yet; add one per colour (what a default TTS table has)."""
    save = dict(save)
    states = list(save["ObjectStates"])
    for i, colour in enumerate(colours):
        z = -24.0 if i % 2 == 0 else 24.0
        states.append({"GUID": f"hz{i:04d}", "Name": "HandTrigger", "FogColor": colour, "Tags": [],
                       "Transform": {"posX": -10.0 + 20.0 * (i // 2), "posY": 4.0, "posZ": z, "rotX": 0.0,
                                     "rotY": 0.0 if z < 0 else 180.0, "rotZ": 0.0, "scaleX": 14.0, "scaleY": 6.0,
                                     "scaleZ": 4.0}})
    save["ObjectStates"] = states
    return save


class Bridge:
    """A `ttsmod bridge` subprocess on an ephemeral port, pointed at the headless table's port."""

    def __init__(self, repo: Path, port: int, tts_port: int) -> None:
        self.repo, self.port, self.tts_port = repo, port, tts_port
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from tools.cli import main; main()", "bridge", "--port", str(self.port),
             "--tts-port", str(self.tts_port), "--no-journal"], cwd=self.repo,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None


def table_for(save: dict, bridge_port: int) -> Table:
    return Table.load(save, seed=1, bridge_port=bridge_port, listen_port=0)
