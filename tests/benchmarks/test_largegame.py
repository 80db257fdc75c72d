"""The synthetic large game of the build benchmarks is a valid game of the size asked for, for every game that
says how to grow it ([benchmark] grow in its game.toml: the ``benchmark`` capability; another game skips, saying
so)."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

from bridge.catalog import load
from tests.everygame import GAMES, require

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _largegame():
    spec = importlib.util.spec_from_file_location("largegame", BENCHMARKS / "largegame.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


largegame = _largegame()


@pytest.mark.parametrize("game", GAMES)
def test_a_grown_game_loads_with_as_many_cards_as_asked_and_every_id_and_title_distinct(game, tmp_path):
    require(load(game), "benchmark")
    recipe = largegame.grow_recipe(game)
    original = tomllib.loads((load(game).folder / recipe["file"]).read_text(encoding="utf-8"))[recipe["table"]]
    cards = len(original) + 25
    folder = largegame.make_large_game(game, tmp_path / "large", cards)
    entries = tomllib.loads((folder / recipe["file"]).read_text(encoding="utf-8"))[recipe["table"]]
    assert len(entries) == cards
    assert len({e[recipe["id"]] for e in entries}) == cards
    assert len({e[recipe["title"]]["en"] for e in entries}) == cards
    load(folder)   # the grown data passes the game's own checks


def test_at_least_one_built_in_game_can_be_grown():
    assert largegame.growable_games()
