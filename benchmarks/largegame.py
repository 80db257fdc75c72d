"""A synthetic large game for build benchmarks: a game folder with one card list grown to N cards.

    .venv/bin/python benchmarks/largegame.py GAME FOLDER --cards 10000

GAME is a built-in game id or a game folder whose ``game.toml`` has a ``[benchmark]`` table naming the list to
grow, e.g. ``grow = { file = "scenes.toml", table = "scenes", id = "id", title = "title" }``. The folder is copied
to FOLDER and that list grown: each added entry is a copy of one of the game's own under a new id and a numbered
title (every language), so each face differs and the renderer draws every one, while the data stays valid.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.catalog import builtin_games, read_toml, resolve_game  # noqa: E402


def grow_recipe(game: str) -> dict | None:
    """The ``[benchmark] grow`` table of ``game``, or None when the game declares none."""
    found = resolve_game(game)
    recipe = read_toml(found.folder, "game.toml").get("benchmark", {}).get("grow")
    return recipe if isinstance(recipe, dict) else None


def growable_games() -> list[str]:
    """The built-in games that say how to grow them."""
    return [game for game in builtin_games() if grow_recipe(game)]


def make_large_game(game: str, folder: Path, cards: int) -> Path:
    """Write ``folder`` (replacing it): ``game``'s folder with its grown list holding ``cards`` entries."""
    recipe = grow_recipe(game)
    if recipe is None:
        raise SystemExit(f"{game}: game.toml has no [benchmark] grow table")
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(resolve_game(game).folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / recipe["file"]
    marker = f"[[{recipe['table']}]]\n"
    head, *blocks = path.read_text(encoding="utf-8").split(marker)
    id_line = re.compile(rf'^{re.escape(recipe["id"])} = "([^"]+)"', re.M)
    title_line = re.compile(rf'^{re.escape(recipe["title"])} = \{{.*\}}$', re.M)
    extra = []
    for n in range(max(0, cards - len(blocks))):
        number = n + 1
        block = id_line.sub(lambda m: f'{recipe["id"]} = "{m.group(1)}-{number}"', blocks[n % len(blocks)], count=1)
        block = title_line.sub(lambda m: re.sub(r'"([^"]*)"', lambda q: f'"{q.group(1)} {number}"', m.group(0)),
                               block, count=1)
        extra.append(block)
    path.write_text(head + "".join(marker + block for block in blocks + extra), encoding="utf-8")
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a built-in game id or a game folder with a [benchmark] grow table")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--cards", type=int, default=10_000)
    args = parser.parse_args()
    make_large_game(args.game, args.folder, args.cards)
    print(args.folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
