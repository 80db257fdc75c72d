"""A wheel install (``pip install .``, pipx) builds every game: assets/ and mod/ travel inside the wheel.

The wheel is built from a copy of the checkout and installed into a fresh virtual environment that cannot see
the checkout. Its dependencies (click, Pillow, ...) are borrowed from the running environment through a ``.pth``
line instead of being downloaded; only building the wheel asks pip's configured index for setuptools.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.shared import REPO_ROOT
from bridge import __version__
from bridge.catalog import builtin_games

pytestmark = pytest.mark.wheel

IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                 ".hypothesis", "tests", "benchmarks")


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{' '.join(map(str, args))}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    """A fresh venv with the wheel installed: its bin folder, the wheel, and a scratch folder to work in."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "src"
    shutil.copytree(REPO_ROOT, source, ignore=IGNORED)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(source)])
    wheel = next((root / "dist").glob("ttsmod-*.whl"))
    # the name the sim extra's install hint gives (tools.sweep.SIM_EXTRA_MESSAGE, docs/bots.md)
    assert wheel.name == f"ttsmod-{__version__}-py3-none-any.whl"

    venv = root / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)])
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    # The dependencies, borrowed: appended after the venv's own site-packages, whose ttsmod therefore wins.
    borrowed = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_borrowed_dependencies.pth").write_text("\n".join(sorted(borrowed)) + "\n", encoding="utf-8")
    work = root / "work"
    work.mkdir()
    return {"bin": python.parent, "python": python, "wheel": wheel, "work": work, "site": site}


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in {"TTSMOD_ASSETS", "TTSMOD_MOD", "PYTHONPATH"}}


def test_wheel_carries_the_game_data_and_the_mod(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for folder in (p.name for p in builtin_games().values()):
        assert f"bridge/_bundled/assets/{folder}/game.toml" in names
        assert f"bridge/_bundled/mod/{folder}/global.lua" in names
    assert "bridge/_bundled/mod/lib/bridge.lua" in names
    assert "bridge/_bundled/assets/fonts/LICENSE-DejaVu.txt" in names


def test_installed_package_reads_its_own_copy(installed):
    out = run([str(installed["python"]), "-c",
               "import bridge.paths as p; print(p.assets_dir()); print(p.mod_dir()); print(p.__file__)"],
              cwd=installed["work"], env=clean_env()).stdout.split()
    assert all(Path(line).is_relative_to(installed["site"]) for line in out), out


@pytest.mark.parametrize("game", sorted(builtin_games()))
def test_wheel_install_builds_every_game(installed, game):
    ttsmod = installed["bin"] / ("ttsmod.exe" if os.name == "nt" else "ttsmod")
    out = installed["work"] / game
    run([str(ttsmod), "build", game, "--out", str(out)], cwd=installed["work"], env=clean_env())
    saves = list(out.glob("*.json"))
    assert len(saves) == 1 and (out / "sheets").is_dir()
    save = json.loads(saves[0].read_text(encoding="utf-8"))
    assert save["ObjectStates"] and save["LuaScript"].startswith("-- Bundled by luabundle")
