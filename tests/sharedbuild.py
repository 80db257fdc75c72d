"""One build of each built-in game per test run, shared by every test and every xdist worker that asks for it.

Building a game takes seconds of CPU; the end-to-end games, the selftests and the bridge tests all need the same
saves. :func:`shared_save` builds a game (with given ``ttsmod build`` options) once per run, into a folder of the
run's base temporary directory shared by all workers, under a file lock, and gives every caller the save as a new
dict. Callers must not write into the folder (:func:`shared_build_folder` is for reading its sheets; a test that
writes works in :func:`copy_of` it). The print-and-play art is shared the same way (:func:`shared_art`): drawing
every card face at 300 dpi costs more than the build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@contextmanager
def _run_lock(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """The run-wide folder ``name`` (not created), with this run's lock of it held for the ``with`` block."""
    root = _shared_root(tmp_path_factory)
    with open(root / f"{name}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield root / name


def _made_once(folder: Path, make: Callable[[Path], None]) -> Path:
    """``folder``, made by ``make(folder)`` unless a caller holding the same lock made it before."""
    done = folder / ".built"
    if not done.exists():
        folder.mkdir(exist_ok=True)
        make(folder)
        done.write_text("", encoding="utf-8")
    return folder


def _canonical(game: str, options: tuple[str, ...]) -> list[str]:
    """``options`` without a ``--mode`` naming the game's default mode: the same build as none."""
    from bridge.catalog import load

    options = list(options)
    if "--mode" in options:
        at = options.index("--mode")
        if at + 1 < len(options) and options[at + 1] == load(game).meta.default_mode:
            del options[at:at + 2]
    return options


def shared_build_folder(tmp_path_factory: pytest.TempPathFactory, repo_root: Path, game: str,
                        *options: str) -> Path:
    """The folder holding this run's one build of ``game`` with ``options``, built now if no test did before."""
    options = _canonical(game, options)
    key = hashlib.sha256(json.dumps([game, options]).encode()).hexdigest()[:12]
    with _run_lock(tmp_path_factory, f"shared-build-{Path(game).name}-{key}") as folder:
        return _made_once(folder, lambda out: build(repo_root, out, game, *options))


def shared_save(tmp_path_factory: pytest.TempPathFactory, repo_root: Path, game: str, *options: str) -> dict:
    """The save of this run's one build of ``game`` with ``options``, as a new dict each call."""
    (path,) = sorted(shared_build_folder(tmp_path_factory, repo_root, game, *options).glob("*.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def copy_of(folder: Path, into: Path) -> Path:
    """A copy of a shared ``folder`` at ``into`` (which must not exist), for a test that writes into it."""
    shutil.copytree(folder, into, ignore=shutil.ignore_patterns(".built"))
    return into


def shared_art(tmp_path_factory: pytest.TempPathFactory, repo_root: Path, game: str):
    """``tools.pnp.game_art(game)`` (default options) of this run's one print-art folder of ``game``: a copy of its
    shared build in which every card face was drawn at print size once, by the first caller. Every caller gets it
    from the folder with nothing left to draw; callers must not write into the folder (:func:`copy_of` it)."""
    from tools.pnp import game_art

    def make(folder: Path) -> None:
        shutil.copytree(shared_build_folder(tmp_path_factory, repo_root, game), folder, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".built"))
        game_art(game, out_dir=folder, jobs=2)

    key = hashlib.sha256(game.encode()).hexdigest()[:12]
    with _run_lock(tmp_path_factory, f"shared-art-{Path(game).name}-{key}") as folder:
        # under the lock: game_art holds the folder's own lock, which a second writer meets as "busy"
        return game_art(game, out_dir=_made_once(folder, make), jobs=2)
