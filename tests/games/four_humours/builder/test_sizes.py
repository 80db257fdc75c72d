"""Four Humours's faces drawn at any size from their layouts (tests/tools/render/facechecks.py)."""

from __future__ import annotations

import pytest

from bridge.catalog import load
from bridge.errors import DataError
from bridge.paths import assets_dir
from tests.tools.render.facechecks import (assert_body_text_grows_with_the_size_a_face_is_drawn_at,
                                           assert_drawing_at_a_size_gives_the_same_bytes_every_time,
                                           assert_drawn_small_and_large_it_is_the_same_picture,
                                           assert_every_text_lies_inside_its_box_at_every_size)
from tools.games.four_humours.render import Renderer, load_four_humours_layouts


def renderer():
    loaded = load("four-humours")
    return Renderer(loaded.data, load_four_humours_layouts(loaded.folder), loaded.folder, assets_dir() / "fonts", "en")


def test_every_text_lies_inside_its_box_at_every_size():
    assert_every_text_lies_inside_its_box_at_every_size(renderer())


def test_a_face_drawn_at_its_design_size_and_at_twice_it_is_the_same_picture():
    assert_drawn_small_and_large_it_is_the_same_picture(renderer())


def test_drawing_a_face_at_a_size_gives_the_same_bytes_every_time():
    assert_drawing_at_a_size_gives_the_same_bytes_every_time(renderer)


def test_body_text_grows_with_the_size_a_face_is_drawn_at():
    assert_body_text_grows_with_the_size_a_face_is_drawn_at(renderer())


def test_a_text_that_cannot_fit_at_some_size_names_its_file_entry_and_field():
    drawing = renderer()
    scene = next(name for name, kind in drawing.items() if kind == "scene")
    drawing.render(scene)   # fits at the design size
    with pytest.raises(DataError) as failure:
        drawing.render(scene, (42, 29))
    error = failure.value
    assert error.file and error.entry and error.field, error
    assert "does not fit" in error.message
