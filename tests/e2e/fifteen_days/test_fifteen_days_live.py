"""End to end: `ttsmod build fifteen-days` → the headless table → a real `ttsmod bridge` over sockets.

Scripted players seat, press Setup and play whole games by buttons and drags, each decision one the engine
allows on the table as it lies; after every decision the harness checks the table against the engine's own
state after the same decision (tests/e2e/fifteen_days/harness.py, ``Game.check``). Then the cases a host meets:
a refused move put back and explained, the bridge stopped and restarted in the middle of a turn, and a reload in
the middle of a turn.
"""

from __future__ import annotations

import pytest

from bridge.catalog import load_game
from bridge.rules.fifteen_days.actions import Draw, EndTurn, Play, Take
from tests.e2e.fifteen_days.harness import Game, build
from tests.e2e.fifteen_days.tableview import physical


@pytest.fixture(scope="module")
def data():
    return load_game("fifteen-days")


@pytest.fixture(scope="module")
def save(tmp_path_factory, repo_root):
    return build(repo_root, tmp_path_factory.mktemp("fifteen-days"))


@pytest.fixture
def games():
    started: list[Game] = []
    yield started
    for game in started:
        game.close()


def _start(games, save, data, repo_root, colours, seed) -> Game:
    game = Game(save, data, repo_root, list(colours), seed=seed)
    games.append(game)
    game.start()
    return game


@pytest.mark.parametrize("colours, seed", [
    (("White", "Red"), 1), (("White", "Red", "Yellow"), 2), (("White", "Red", "Yellow", "Blue"), 3),
], ids=["2-players", "3-players", "4-players"])
def test_a_whole_game_ends_with_the_winners_the_engine_names(games, save, data, repo_root, colours, seed):
    game = _start(games, save, data, repo_root, colours, seed)
    game.play_game()
    assert game.outcome is not None
    # every kind of decision a game needs went through the buttons and drags, each checked against the engine
    for kind in ("draw", "take", "refill", "play", "pay", "end"):
        assert game.kinds.get(kind, 0) > 0, (kind, game.kinds)
    assert game.actions_checked == sum(game.kinds.values())
    assert game.table.ui_value("scoreRound") == "Final scores"
    assert game.table.errors == []
