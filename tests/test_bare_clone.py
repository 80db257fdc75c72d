"""A clone with nothing beside it: tests needing ../shared/ skip with a reason, and fail instead in CI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import in_e2e_folder
from tests.shared import REPO_ROOT, require_shared, running_in_ci


def test_present_shared_file_is_returned(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "members.tsv").write_text("x", encoding="utf-8")
    assert require_shared("docs/members.tsv", shared_dir=tmp_path, environ={}) == tmp_path / "docs/members.tsv"


def test_absent_shared_folder_skips_with_its_name(tmp_path):
    with pytest.raises(pytest.skip.Exception, match=r"needs \.\./shared/reference-saves beside the checkout"):
        require_shared("reference-saves", shared_dir=tmp_path / "none", environ={})


@pytest.mark.parametrize("value", ["true", "True", "1"])
def test_absent_shared_folder_fails_in_ci(tmp_path, value):
    with pytest.raises(pytest.fail.Exception, match="CI must provide it"):
        require_shared("reference-saves", shared_dir=tmp_path / "none", environ={"CI": value})


def test_ci_detection():
    assert running_in_ci({"CI": "true"}) and not running_in_ci({}) and not running_in_ci({"CI": "false"})


def _bare_copy(tmp_path: Path) -> Path:
    """The conftest, the helper, two test files that read ../shared/ and what they read in the repo."""
    clone = tmp_path / "clone"
    for relative in ("pyproject.toml", "tests/conftest.py", "tests/shared.py", "tests/bridge/luaproject/test_bundle.py",
                     "tests/mod/luasrc.py", "tests/mod/test_sources.py"):
        (clone / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / relative, clone / relative)
    shutil.copytree(REPO_ROOT / "mod", clone / "mod")
    assert not (tmp_path / "shared").exists()
    return clone


def _pytest(clone: Path, ci: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/bridge/luaproject/test_bundle.py", "tests/mod/test_sources.py"],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=120)


def test_bare_clone_skips_then_ci_fails(tmp_path):
    clone = _bare_copy(tmp_path)
    bare = _pytest(clone, None)
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert "needs ../shared/reference-saves beside the checkout" in bare.stdout
    assert "needs ../shared/docs/tts-api-members.tsv beside the checkout" in bare.stdout
    assert " skipped" in bare.stdout and "failed" not in bare.stdout and "error" not in bare.stdout

    ci = _pytest(clone, "true")
    assert ci.returncode == 1, ci.stdout + ci.stderr
    assert "CI must provide it" in ci.stdout and " skipped" not in ci.stdout


def test_ci_script_runs_readme_test_command_with_ci_set():
    script = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -q -n auto"
    assert f'TEST_COMMAND="{command}"' in script
    assert command in (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert 'export CI="${CI:-true}"' in script.split('bash -c "$TEST_COMMAND"')[0]


# Loaded into the one collecting pytest below: it writes down what `-m "not e2e"` kept and what it left out, and
# which of them carry the e2e mark (what `-m e2e` selects), so one collection answers all three questions.
_RECORDER = """
import json, os

def pytest_deselected(items):
    _left_out.extend(items)

def pytest_collection_finish(session):
    record = {"kept": [i.nodeid for i in session.items], "left_out": [i.nodeid for i in _left_out],
              "marked": [i.nodeid for i in [*session.items, *_left_out] if i.get_closest_marker("e2e")]}
    with open(os.environ["E2E_COLLECT_RECORD"], "w", encoding="utf-8") as handle:
        json.dump(record, handle)

_left_out = []
"""


def test_every_e2e_test_is_marked_and_can_be_left_out(tmp_path):
    (tmp_path / "e2e_collect_record.py").write_text(_RECORDER, encoding="utf-8")
    record = tmp_path / "record.json"
    env = {**os.environ, "E2E_COLLECT_RECORD": str(record),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    # the end-to-end tests are in the e2e folders (tests/e2e/, tests/games/<game>/e2e/); a few others (a selftest
    # against a live table, a whole game of a test game) are marked in their own file: those are collected, beside
    # this file's unmarked tests (collecting every test of tests/games would take seconds and show nothing more)
    paths = sorted({str(p.relative_to(REPO_ROOT)) for p in [
        *REPO_ROOT.glob("tests/e2e"), *REPO_ROOT.glob("tests/games/*/e2e"),
        *(test for test in REPO_ROOT.glob("tests/**/test_*.py") if "pytest.mark.e2e" in test.read_text(
            encoding="utf-8") and not in_e2e_folder(test))]})
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             "-p", "e2e_collect_record", "-m", "not e2e", *paths, "tests/test_bare_clone.py"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    found = json.loads(record.read_text(encoding="utf-8"))
    kept, left_out, marked = set(found["kept"]), set(found["left_out"]), set(found["marked"])
    # what -m "not e2e" kept is what collect-only printed
    assert kept == {line for line in result.stdout.splitlines() if "::" in line}
    everything = kept | left_out
    in_e2e_folders = {t for t in everything if "e2e" in t.split("::")[0].split("/")[1:-1]}
    assert in_e2e_folders, everything
    assert in_e2e_folders <= marked and not in_e2e_folders & kept
    # -m "not e2e" leaves out exactly the marked tests, the ones -m e2e selects
    assert left_out == marked and not kept & left_out
