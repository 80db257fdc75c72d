"""README's first command installs ttsmod without its test extra (``pip install -e .``): the commands a user runs
then must not need what only the tests and ``sweep`` use (lupa, hypothesis, dask, matplotlib).

The commands run in a process in which importing any of those fails, as on a machine that never installed them,
on the tests' toy game (tests/games/pebble_race/: a build draws its preview and checks its save as every game's
does, in a fraction of a second).
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.shared import REPO_ROOT

EXTRAS_ONLY = ("lupa", "hypothesis", "dask", "distributed", "matplotlib")
"""The top-level modules of pyproject.toml's test and sim extras that the base install does not have."""

_WITHOUT_EXTRAS = (
    "import sys\n"
    f"for name in {EXTRAS_ONLY!r}:\n"
    "    sys.modules[name] = None   # importing it now fails, as where it is not installed\n"
    "from tools.cli import main\n"
    "sys.argv = ['ttsmod', *sys.argv[1:]]\n"
    "main()\n"
)


def ttsmod_without_extras(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _WITHOUT_EXTRAS, *args], capture_output=True, text=True,
                          timeout=300, cwd=REPO_ROOT)


def test_the_blocked_modules_really_cannot_be_imported():
    result = subprocess.run([sys.executable, "-c", _WITHOUT_EXTRAS.split("from tools.cli")[0] + "import lupa\n"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "ModuleNotFoundError" in result.stderr


def test_build_preview_and_check_need_no_test_extra(tmp_path):
    out = tmp_path / "build"
    toy = REPO_ROOT / "tests" / "games" / "pebble_race"
    built = ttsmod_without_extras("build", str(toy), "--out", str(out), "--jobs", "1", "--json")
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert (out / "preview.png").is_file() and report["preview"].endswith("preview.png")
    drawn = ttsmod_without_extras("preview", report["save"], "-o", str(tmp_path / "table.png"))
    assert drawn.returncode == 0, drawn.stderr
    assert (tmp_path / "table.png").read_bytes() == (out / "preview.png").read_bytes()
    checked = ttsmod_without_extras("check", report["save"])
    assert checked.returncode == 0, checked.stderr
