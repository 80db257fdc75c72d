"""Files the tests read from ``../shared/`` beside the checkout, and what happens when that folder is absent.

A bare clone has nothing beside it: tests that need ``../shared/`` are skipped there with a one-line reason.
In CI (``CI`` set to ``true``, as CI services set it) the folder must be present, so the same tests fail instead
of skipping: a CI run can never pass while silently leaving them out.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"


def running_in_ci(environ: Mapping[str, str] | None = None) -> bool:
    """True when ``CI`` is set to a true value (``true``, ``1``, ``yes``), as CI services do."""
    value = (os.environ if environ is None else environ).get("CI", "")
    return value.strip().lower() in {"true", "1", "yes"}


def require_shared(relative: str, *, shared_dir: Path | None = None,
                   environ: Mapping[str, str] | None = None) -> Path:
    """The path of ``../shared/<relative>``; skips the calling test when it is absent (fails it in CI)."""
    path = (SHARED_DIR if shared_dir is None else shared_dir) / relative
    if path.exists():
        return path
    reason = f"needs ../shared/{relative} beside the checkout (absent here, e.g. a bare clone)"
    if running_in_ci(environ):
        pytest.fail(f"{reason}; CI must provide it", pytrace=False)
    pytest.skip(reason)
