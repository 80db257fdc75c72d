"""Where ttsmod's own folders are: the built-in game data (``assets/``) and the Lua sources (``mod/``).

- A wheel install (``pip install .``, pipx) carries both inside the package as ``bridge/_bundled/assets`` and
  ``bridge/_bundled/mod`` (copied there by ``setup.py`` when the wheel is built).
- A checkout, installed in place (``pip install -e .``), has no ``bridge/_bundled/``: both are read from the
  repository root beside the ``bridge`` package, so edits take effect without reinstalling.

``TTSMOD_ASSETS`` and ``TTSMOD_MOD`` override both (a designer's copy of the data or the mod).
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
BUNDLED_DIR = PACKAGE_DIR / "_bundled"
PROJECT_ROOT = PACKAGE_DIR.parent


def _shipped(name: str) -> Path:
    # The bundled copy wins: in a wheel install PROJECT_ROOT is site-packages, where an unrelated "assets"
    # folder may exist; a checkout never has bridge/_bundled/.
    bundled = BUNDLED_DIR / name
    return bundled if bundled.is_dir() else PROJECT_ROOT / name


def assets_dir() -> Path:
    """The folder that holds one sub-folder per built-in game (``<game>/``) and ``fonts/``."""
    return Path(os.environ.get("TTSMOD_ASSETS") or _shipped("assets"))


def mod_dir() -> Path:
    """The folder of the Lua mod sources: ``lib/`` plus one sub-folder per game."""
    return Path(os.environ.get("TTSMOD_MOD") or _shipped("mod"))
