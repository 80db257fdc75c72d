"""Build hook: a wheel carries the game data (``assets/``) and the Lua mod (``mod/``) as ``bridge/_bundled/``.

Everything else is in ``pyproject.toml``. An editable install (``pip install -e .``) copies nothing: it reads
both folders from the checkout (``bridge/paths.py`` decides where they are).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED_FOLDERS = ("assets", "mod")  # bridge/paths.py reads them from bridge/_bundled/<name> in a wheel install


class build_py_with_game_files(build_py):
    """``build_py`` that also copies the shipped folders into the build as ``bridge/_bundled/<name>/``."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in SHIPPED_FOLDERS:
            target = Path(self.build_lib) / "bridge" / "_bundled" / name
            if target.exists():
                shutil.rmtree(target)  # a file deleted from the checkout must not survive in the next wheel
            shutil.copytree(ROOT / name, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))


setup(cmdclass={"build_py": build_py_with_game_files})
