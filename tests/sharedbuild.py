"""One build of each built-in game per test run, shared by every test and every xdist worker that asks for it.

Building a game takes seconds of CPU; the end-to-end games, the selftests and the bridge tests all need the same
saves. :func:`shared_save` builds a game (with given ``ttsmod build`` options) once per run, into a folder of the
run's base temporary directory shared by all workers, under a file lock, and gives every caller the save as a new
dict. Callers must not write into the folder (:func:`shared_build_folder` is for reading its sheets).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.e2e.harness import build

try:
    import fcntl
except ImportError:        # no POSIX locks (Windows): each worker builds its own copy
    fcntl = None


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    # an xdist worker's base is <run>/popen-gwN: the run's folder is shared by every worker of this run
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") and fcntl is not None else base


def shared_build_folder(tmp_path_factory: pytest.TempPathFactory, repo_root: Path, game: str,
                        *options: str) -> Path:
    """The folder holding this run's one build of ``game`` with ``options``, built now if no test did before."""
    key = hashlib.sha256(json.dumps([game, list(options)]).encode()).hexdigest()[:12]
    root = _shared_root(tmp_path_factory)
    folder = root / f"shared-build-{game}-{key}"
    done = folder / ".built"
    with open(root / f"shared-build-{game}-{key}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            folder.mkdir(exist_ok=True)
            build(repo_root, folder, game, *options)
            done.write_text("", encoding="utf-8")
    return folder


def shared_save(tmp_path_factory: pytest.TempPathFactory, repo_root: Path, game: str, *options: str) -> dict:
    """The save of this run's one build of ``game`` with ``options``, as a new dict each call."""
    (path,) = sorted(shared_build_folder(tmp_path_factory, repo_root, game, *options).glob("*.json"))
    return json.loads(path.read_text(encoding="utf-8"))
