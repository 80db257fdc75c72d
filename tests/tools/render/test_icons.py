"""Art placement (cover-fit without distortion, path safety) and placeholders."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from bridge.errors import DataError
from tools.render.draw import cover_fit, find_art, placeholder


def test_cover_fit_fills_the_box_and_keeps_shapes_square():
    art = Image.new("RGB", (400, 200), (255, 255, 255))
    ImageDraw.Draw(art).rectangle((180, 80, 219, 119), fill=(0, 0, 0))  # a 40x40 square in the middle
    fitted = cover_fit(art, (100, 100))
    assert fitted.size == (100, 100)
    dark = Image.eval(fitted.convert("L"), lambda v: 255 if v < 128 else 0).getbbox()
    width, height = dark[2] - dark[0], dark[3] - dark[1]
    assert abs(width - height) <= 1 and 19 <= width <= 21  # scaled by 0.5 on both axes, not stretched
    assert abs((dark[0] + dark[2]) / 2 - 50) <= 1  # centred crop


def test_cover_fit_crops_the_overflow_instead_of_letterboxing():
    art = Image.new("RGB", (300, 100), (200, 0, 0))
    fitted = cover_fit(art, (100, 100))
    assert fitted.getpixel((0, 0)) == fitted.getpixel((99, 99)) == (200, 0, 0)


def test_art_files_are_found_and_escaping_ids_rejected(tmp_path):
    (tmp_path / "art").mkdir()
    Image.new("RGB", (10, 10)).save(tmp_path / "art" / "mill.jpg")
    assert find_art(tmp_path, "mill", file="scenes.toml", entry='scene "mill"').name == "mill.jpg"
    assert find_art(tmp_path, "ford", file="scenes.toml", entry='scene "ford"') is None
    for bad in ("../secret", "..", "sub/../../x", ".hidden"):
        with pytest.raises(DataError, match="escapes the game folder"):
            find_art(tmp_path, bad, file="scenes.toml", entry="scene")


def test_art_symlink_leaving_the_game_folder_is_rejected(tmp_path):
    outside = tmp_path / "outside.png"
    Image.new("RGB", (10, 10)).save(outside)
    game = tmp_path / "game"
    (game / "art").mkdir(parents=True)
    (game / "art" / "mill.png").symlink_to(outside)
    with pytest.raises(DataError, match='scenes.toml: scene "mill": id: art path art/mill.png escapes'):
        find_art(game, "mill", file="scenes.toml", entry='scene "mill"')


def test_placeholder_is_tinted_with_the_zone_colour():
    image = placeholder((120, 80), (0, 128, 0))
    assert image.size == (120, 80)
    r, g, b = image.resize((1, 1)).getpixel((0, 0))
    assert g > r and g > b


def test_a_placeholder_drawn_on_leaves_the_next_one_as_it_was():
    from PIL import ImageDraw

    first = placeholder((60, 40), (200, 10, 10))
    pixels = first.tobytes()
    ImageDraw.Draw(first).rectangle((0, 0, 59, 39), fill=(0, 0, 0))   # a caller paints over its copy
    again = placeholder([60, 40], [200, 10, 10])                       # lists name the same placeholder
    assert again.tobytes() == pixels and again.size == (60, 40) and again.mode == "RGB"


def test_mix_is_the_rounded_linear_mix_of_each_channel():
    from tools.render.draw import mix

    for a, b, t in [((0, 0, 0), (255, 255, 255), 0.5), ((10, 200, 31), (250, 3, 77), 0.35),
                    ((1, 2, 3), (4, 5, 6), 0.0), ((1, 2, 3), (4, 5, 6), 1.0), ((9, 9, 9, 9), (0, 0, 0, 0), 0.25)]:
        assert mix(a, b, t) == tuple(round(x + (y - x) * t) for x, y in zip(a, b))
    assert mix((0, 0, 0), (255, 255, 255), 0.5) == (128, 128, 128)
