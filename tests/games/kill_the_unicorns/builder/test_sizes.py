"""Kill the Unicorns's faces drawn at any size from their layouts (tests/tools/render/facechecks.py)."""

from __future__ import annotations

import pytest

from bridge.catalog import load
from bridge.paths import assets_dir
from tests.tools.render.facechecks import (assert_body_text_grows_with_the_size_a_face_is_drawn_at,
                                           assert_drawing_at_a_size_gives_the_same_bytes_every_time,
                                           assert_drawn_small_and_large_it_is_the_same_picture,
                                           assert_every_text_lies_inside_its_box_at_every_size)
from tools.games.kill_the_unicorns.render import Renderer, load_unicorn_layouts


def renderer():
    loaded = load("kill-the-unicorns")
    return Renderer(loaded.data, load_unicorn_layouts(loaded.folder, loaded.data), assets_dir() / "fonts", "en")


def test_every_text_lies_inside_its_box_at_every_size():
    assert_every_text_lies_inside_its_box_at_every_size(renderer())


def test_a_face_drawn_at_its_design_size_and_at_twice_it_is_the_same_picture():
    assert_drawn_small_and_large_it_is_the_same_picture(renderer())


def test_drawing_a_face_at_a_size_gives_the_same_bytes_every_time():
    assert_drawing_at_a_size_gives_the_same_bytes_every_time(renderer)


def test_body_text_grows_with_the_size_a_face_is_drawn_at():
    assert_body_text_grows_with_the_size_a_face_is_drawn_at(renderer())


def test_a_board_placed_by_table_geometry_is_drawn_at_its_design_size_only():
    drawing = renderer()
    assert drawing.design_size("ground") is None
    assert drawing.render("ground", None).size == drawing.render("ground").size
    with pytest.raises(ValueError, match="design size only"):
        drawing.render("ground", (620, 500))
