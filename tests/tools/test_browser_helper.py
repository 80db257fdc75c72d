"""The browser the replay page is checked in (tests/browser.py): skipped with a reason without it, a failure
under CI=true, and installed by .ci/run when missing."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.browser import require_chromium
from tests.shared import REPO_ROOT


def test_a_missing_chromium_skips_with_the_package_to_install(tmp_path):
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        require_chromium(path=str(tmp_path / "chromium"), environ={})


@pytest.mark.parametrize("value", ["true", "1"])
def test_a_missing_chromium_fails_in_ci(tmp_path, value):
    with pytest.raises(pytest.fail.Exception, match="CI must provide it"):
        require_chromium(path=str(tmp_path / "chromium"), environ={"CI": value})


def test_a_present_chromium_is_returned(tmp_path):
    browser = tmp_path / "chromium"
    browser.write_text("", encoding="utf-8")
    assert require_chromium(path=str(browser), environ={"CI": "true"}) == str(browser)


def _install_step() -> str:
    script = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    found = re.search(r"^if \[ ! -x /usr/bin/chromium \].*?^fi\n", script, re.S | re.M)
    assert found, ".ci/run has no step installing chromium when /usr/bin/chromium is missing"
    return found.group(0)


def _run_step(tmp_path, chromium_present: bool, apt_works: bool = True) -> tuple[subprocess.CompletedProcess, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    for tool in ("apt-get", "sudo"):
        fake = bin_dir / tool
        body = f'echo "{tool} $*" >> "{calls}"\n'
        if tool == "sudo":
            body += 'shift; "$@"\n'   # sudo -n CMD…: run it
        body += "" if apt_works or tool == "sudo" else "exit 100\n"
        fake.write_text("#!/bin/sh\n" + body, encoding="utf-8")
        fake.chmod(0o755)
    browser = tmp_path / "chromium"
    if chromium_present:
        browser.write_text("#!/bin/sh\n", encoding="utf-8")
        browser.chmod(0o755)
    step = _install_step().replace("/usr/bin/chromium", str(browser))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["bash", "-c", "set -uo pipefail\n" + step], env=env, capture_output=True, text=True,
                          timeout=30)
    return done, calls.read_text(encoding="utf-8") if calls.exists() else ""


def test_ci_installs_chromium_quietly_when_it_is_missing(tmp_path):
    done, calls = _run_step(tmp_path, chromium_present=False)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    assert re.search(r"^apt-get install -y -qq chromium$", calls, re.M), calls
    assert "apt-get update -qq" in calls


def test_ci_leaves_an_installed_chromium_alone(tmp_path):
    done, calls = _run_step(tmp_path, chromium_present=True)
    assert done.returncode == 0 and calls == ""


def test_ci_says_once_when_chromium_cannot_be_installed(tmp_path):
    done, _ = _run_step(tmp_path, chromium_present=False, apt_works=False)
    assert done.returncode == 0 and done.stderr.strip() == "could not install chromium with apt-get: the browser tests will fail"


@pytest.mark.skipif(os.name != "posix", reason="the CI script is bash")
def test_the_ci_script_is_valid_bash():
    assert subprocess.run(["bash", "-n", str(REPO_ROOT / ".ci" / "run")], timeout=30).returncode == 0
