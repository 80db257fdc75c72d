"""The build's art loader: bombs refused with file and size, EXIF orientation, 16-bit grey, cache keys."""

from __future__ import annotations

import pytest
from PIL import Image

from bridge.errors import DataError
from tools.render import draw
from tools.games.four_humours.render import Renderer, load_four_humours_layouts, render_game
from bridge.paths import assets_dir

from tests.tools.test_imageio import bomb_png


def test_a_bomb_in_art_is_a_data_error_naming_card_file_and_size(game, game_dir, tmp_path):
    bomb_png(game_dir / "art" / "scene-1.png")
    with pytest.raises(DataError) as caught:
        render_game(game, tmp_path / "out", game_dir=game_dir, jobs=1)
    error = caught.value
    assert (error.file, error.entry, error.field) == ("scenes.toml", 'scene "scene-1"', "art")
    assert "art/scene-1.png" in error.message and "30000x30000" in error.message


def test_the_art_limit_is_the_callers(game, game_dir, tmp_path):
    Image.new("RGB", (300, 200), (0, 200, 255)).save(game_dir / "art" / "scene-1.png")
    with pytest.raises(DataError, match="300x200 = 60,000 pixels, over the limit of 59,999"):
        render_game(game, tmp_path / "out", game_dir=game_dir, jobs=1, max_pixels=59_999)


def test_art_is_shown_as_its_exif_orientation_says(tmp_path):
    stored = Image.new("RGB", (40, 20), (0, 0, 255))
    stored.paste((255, 0, 0), (0, 0, 20, 20))  # left half red
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to view: red on top
    path = tmp_path / "scene-1.jpg"
    stored.save(path, exif=exif.tobytes(), quality=95)
    art = draw.load_art(path, file="scenes.toml", entry='scene "scene-1"')
    assert art.size == (20, 40) and art.mode == "RGB"
    assert art.getpixel((10, 5))[0] > 200 and art.getpixel((10, 35))[2] > 200


def test_sixteen_bit_grey_art_keeps_its_greys(tmp_path):
    stored = Image.new("I;16", (2, 1))
    stored.putpixel((0, 0), 16448)  # a dark grey (64 of 255)
    stored.putpixel((1, 0), 49344)  # a light grey (192 of 255)
    path = tmp_path / "scene-1.png"
    stored.save(path)
    art = draw.load_art(path, file="scenes.toml", entry='scene "scene-1"')
    assert art.getpixel((0, 0)) == (64, 64, 64) and art.getpixel((1, 0)) == (192, 192, 192)


def test_no_art_and_empty_art_do_not_share_a_cache_key(game, game_dir, tmp_path):
    renderer = Renderer(game, load_four_humours_layouts(game_dir), game_dir, assets_dir() / "fonts", "en")
    without = renderer.key("scene:scene-1", "scene")
    (game_dir / "art" / "scene-1.png").write_bytes(b"")
    assert renderer.key("scene:scene-1", "scene") != without


def test_an_empty_art_file_after_a_build_without_art_is_an_error_not_a_cached_placeholder(game, game_dir, tmp_path):
    out = tmp_path / "out"
    render_game(game, out, game_dir=game_dir, jobs=1)  # scene-1 drawn with the placeholder and cached
    (game_dir / "art" / "scene-1.png").write_bytes(b"")
    with pytest.raises(DataError) as caught:
        render_game(game, out, game_dir=game_dir, jobs=1)
    assert caught.value.entry == 'scene "scene-1"' and "art/scene-1.png" in caught.value.message
