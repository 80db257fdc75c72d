"""Where ttsmod's own folders are: the built-in game data (``assets/``) and the Lua sources (``mod/``).

The project is installed in place (``pip install -e .``), so both live beside the ``tools`` package.
``TTSMOD_ASSETS`` and ``TTSMOD_MOD`` override them (a designer's checkout, a packaged install).
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def assets_dir() -> Path:
    """The folder that holds one sub-folder per built-in game (``four_humours/``) and ``fonts/``."""
    return Path(os.environ.get("TTSMOD_ASSETS") or PROJECT_ROOT / "assets")


def mod_dir() -> Path:
    """The folder of the Lua mod sources: ``lib/`` plus one sub-folder per game."""
    return Path(os.environ.get("TTSMOD_MOD") or PROJECT_ROOT / "mod")
