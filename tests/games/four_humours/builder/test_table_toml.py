"""The Four Humours table is laid out by its game folder's table.toml: an entry moved there moves its objects in
the save, and nothing else (tools/games/four_humours/table.py only gives it what the format cannot compute)."""

from __future__ import annotations

import pytest

from tests.games.four_humours.builder.test_build import fake_render
from tests.savejson import by_tag
from tests.tools.games.buildtest import assert_only_these_moved, game_copy, rebuild_with_table
from tools.build import build


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("four_humours_table")
    folder = game_copy(tmp, "four_humours")
    return build(folder, tmp / "out", render=fake_render), folder


def test_moving_the_party_strip_in_table_toml_moves_every_party_tile_and_nothing_else(built, tmp_path):
    after = rebuild_with_table(built, tmp_path, lambda text: text.replace("position = [20, 9]\n",
                                                                          "position = [18.5, 7]\n"),
                               render=fake_render)
    moved = assert_only_these_moved(built[0].save, after, lambda o: "fh-party" in o.get("Tags", []), by=(-1.5, -2))
    assert len(moved) == len(by_tag(after, "fh-party")) > 1


def without_goal_spots(text: str) -> str:
    text = text.replace(' "goal-spots",', "", 1)
    start = text.index('[[zones]]\nname = "goal-spots"')
    return text[:start] + text[text.index("\n\n", start):]


def test_an_entry_taken_out_of_table_toml_is_gone_from_the_table(built, tmp_path):
    after = rebuild_with_table(built, tmp_path, without_goal_spots, render=fake_render)
    assert by_tag(built[0].save, "fh-goal-spot") and not by_tag(after, "fh-goal-spot")
    assert len(after["ObjectStates"]) == len(built[0].save["ObjectStates"]) - len(by_tag(built[0].save,
                                                                                         "fh-goal-spot"))
