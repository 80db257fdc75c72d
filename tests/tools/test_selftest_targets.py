"""Which objects `ttsmod selftest` probes is each game's data: the [selftest] table of its game.toml."""

from __future__ import annotations

import pytest

from bridge.catalog import builtin_games, read_toml
from bridge.errors import DataError
from tools.selftest import SelftestTargets, lua, parse_targets, selftest_targets


def test_every_built_in_game_declares_targets_its_table_uses():
    for game, folder in builtin_games().items():
        targets = selftest_targets(game)
        assert targets != SelftestTargets.none(), f"{game} has no [selftest] table"
        assert targets.snap_points and all(targets.snap_points)


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


def test_the_shipped_table_parses_from_the_file(repo_root):
    folder = next(iter(builtin_games().values()))
    assert parse_targets(read_toml(folder, "game.toml")).piece
