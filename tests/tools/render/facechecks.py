"""Checks of a game's renderer drawing its faces at any size from their layout (used by each game's builder
tests): text inside its box at every size, the same picture at every size, the same bytes every time, body text
growing with the size."""

from __future__ import annotations

from PIL import ImageFilter

from tests.tools.games.buildtest import mean_difference
from tools.render.sizing import body_text_height, measure_text

SCALES = (0.37, 0.5, 0.93, 1.0, 1.36, 2.0)   # a big deck's cells to a small deck's, and print sizes


def one_of_each_kind(renderer) -> list[str]:
    """The first image of each layout kind with a size of its own (not a tiled board, nor a board drawn at its
    design size only)."""
    seen: dict[str, str] = {}
    for name, kind in renderer.items():
        if kind not in seen and renderer.design_size(name) is not None:
            seen[kind] = name
    return list(seen.values())


def at(size: tuple[int, int], scale: float) -> tuple[int, int]:
    return round(size[0] * scale), round(size[1] * scale)


def assert_every_text_lies_inside_its_box_at_every_size(renderer) -> None:
    for name in one_of_each_kind(renderer):
        for scale in SCALES:
            size = at(renderer.design_size(name), scale)
            with measure_text() as record:
                image = renderer.render(name, size)
            assert image.size == size
            for box, _, font_size, (left, top, right, bottom), ink in record:
                assert left <= ink[0] and top <= ink[1] and ink[2] <= right and ink[3] <= bottom, \
                    (name, scale, box, ink)
                assert font_size >= 1


def assert_drawn_small_and_large_it_is_the_same_picture(renderer) -> None:
    # every length of a face scales with it (boxes, fonts, frames, radii, paddings): brought to one size, a face
    # drawn at its design size and at twice it differ only where an edge's pixels fall
    for name in one_of_each_kind(renderer):
        design = renderer.design_size(name)
        small = renderer.render(name, design)
        large = renderer.render(name, at(design, 2.0)).resize(small.size)
        soft = [image.filter(ImageFilter.GaussianBlur(2)) for image in (small, large)]
        assert mean_difference(*soft) < 6, name


def assert_drawing_at_a_size_gives_the_same_bytes_every_time(make_renderer) -> None:
    first, second = make_renderer(), make_renderer()
    for name in one_of_each_kind(first)[:4]:
        size = at(first.design_size(name), 0.61)
        assert first.render(name, size).tobytes() == second.render(name, size).tobytes() \
            == first.render(name, size).tobytes(), name
        assert first.render(name).tobytes() == second.render(name, first.design_size(name)).tobytes(), name


def assert_body_text_grows_with_the_size_a_face_is_drawn_at(renderer) -> None:
    measured = 0
    for name in one_of_each_kind(renderer):
        boxes = renderer.body_boxes(name)
        if not boxes:
            continue
        heights = []
        for scale in (0.5, 1.0, 2.0):
            with measure_text() as record:
                renderer.render(name, at(renderer.design_size(name), scale))
            heights.append(body_text_height(record, boxes))
        assert None not in heights and heights[0] < heights[1] < heights[2], (name, heights)
        measured += 1
    assert measured
