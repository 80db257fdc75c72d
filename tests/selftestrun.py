"""A real ``ttsmod selftest`` process against a headless table, whose clock the test thread runs meanwhile."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tools.headless import Table


def ttsmod_args(*args: str) -> list[str]:
    return [sys.executable, "-c", "from tools.cli import main; main()", *args]


def table_state(table: Table) -> list[tuple]:
    """What a player could see change: every object's place, turn, lock and container contents."""
    return sorted((o.guid, tuple(round(v, 3) for v in (o.position.x, o.position.y, o.position.z)),
                   tuple(round(v % 360.0, 3) for v in (o.rotation.x, o.rotation.y, o.rotation.z)), o.locked,
                   tuple(sorted(c.guid for c in o.contents))) for o in table.objects)


class Runner:
    """A ``ttsmod selftest`` subprocess against ``table``, whose clock this thread runs until the process ends
    (the table does Save & Play itself: the reload probe reloads it in place)."""

    def __init__(self, table: Table, port: int, repo: Path) -> None:
        self.table, self.port, self.repo = table, port, repo

    def run(self, *args: str) -> subprocess.CompletedProcess:
        proc = subprocess.Popen(ttsmod_args("selftest", "--port", str(self.port), "--tts-port",
                                            str(self.table.endpoint.port), "--timeout", "5", *args),
                                cwd=self.repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            # reply_wait is short: a probe's exec result is answered by nothing, so the clock must not wait on it
            self.table.run_until(lambda: proc.poll() is not None, max_seconds=1, real_pause=0.003, reply_wait=0.2)
        if proc.poll() is None:
            proc.kill()
        out, err = proc.communicate(timeout=30)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
