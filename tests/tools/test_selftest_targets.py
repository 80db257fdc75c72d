"""Which objects `ttsmod selftest` probes is each game's data: the [selftest] table of its game.toml."""

from __future__ import annotations

import pytest

from bridge.catalog import load, read_toml
from bridge.errors import DataError
from tests.everygame import GAMES, require
from tools.selftest import TARGET_KEYS, SelftestTargets, lua, parse_targets, selftest_targets


@pytest.mark.parametrize("source", GAMES)
def test_a_game_with_the_table_gets_every_target_it_names(source):
    game = load(source)
    require(game, "selftest")
    targets = selftest_targets(source)
    assert targets != SelftestTargets.none() and all(getattr(targets, key) for key in TARGET_KEYS)
    assert targets.snap_points and all(targets.snap_points)
    assert parse_targets(read_toml(game.folder, "game.toml")) == targets   # what the probes get is the file's


def test_a_game_without_the_table_gets_none_and_an_unknown_game_too():
    assert parse_targets({"game": {}}) == SelftestTargets.none()
    assert selftest_targets(None) == SelftestTargets.none()
    assert selftest_targets("no-such-game") == SelftestTargets.none()


def test_a_bad_table_names_the_field():
    with pytest.raises(DataError) as info:
        parse_targets({"selftest": {"piece": "p", "bag": "b", "spot": "s", "spot_card": "c", "marker": "m",
                                    "snap_points": "slot"}})
    assert str(info.value) == "game.toml: [selftest]: snap_points: expected an array, got \"slot\""
    with pytest.raises(DataError, match=r"\[selftest\]: colour: unknown field"):
        parse_targets({"selftest": {"colour": "x"}})


def test_targets_reach_the_probes_lua_as_string_literals():
    targets = SelftestTargets('a"b', "bag", "spot", "card", "marker", ("slot-", "cell-"))
    code = lua("return T", "run1", targets)
    assert 'local T = { piece = "a\\"b", bag = "bag", spot = "spot", spot_card = "card", marker = "marker", ' \
           'snap_points = { "slot-", "cell-" } }' in code

