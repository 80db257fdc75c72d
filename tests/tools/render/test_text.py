"""Text fitting never overflows its box; missing glyphs fail with file/entry/field before drawing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from bridge.errors import DataError
from bridge.paths import assets_dir
from tools.render.layout import Box
from tools.render.text import CheckedKeys, check_glyphs, draw_text, fit_text, has_glyph, load_font, missing_glyphs

FONTS = assets_dir() / "fonts"
SANS = str(FONTS / "DejaVuSans.ttf")


def box(w, h, align="left", valign="top", smin=8, smax=60, font="DejaVuSans.ttf"):
    return Box("text", 0, 0, w, h, font, smin, smax, align, valign, (0, 0, 0))


def test_the_bundled_font_covers_ukrainian_and_russian():
    for text in ("Її Єє Ґґ ʼ", "Ёё Ъъ Ыы Ээ", "Title – 2+ → ≤3"):
        check_glyphs(text, SANS, file="x", entry=None, field=None)
    assert not has_glyph(SANS, "中")


def test_a_missing_glyph_names_file_entry_and_field():
    with pytest.raises(DataError) as caught:
        check_glyphs("Млин 中", SANS, file="scenes.toml", entry='scene "mill"', field="title.uk")
    assert str(caught.value).startswith('scenes.toml: scene "mill": title.uk: font DejaVuSans.ttf has no glyph')
    assert "U+4E2D" in str(caught.value)


def test_a_missing_glyph_is_found_however_often_its_neighbours_were_checked_before():
    for _ in range(3):
        check_glyphs("Mill mill", SANS, file="x", entry=None, field=None)
    for text, missing in (("Mill 中", ["中"]), ("中 Mill 中 龍", ["中", "龍"]), ("Mill", [])):
        assert missing_glyphs(text, SANS) == missing
        assert missing_glyphs(text, FONTS / "DejaVuSans.ttf") == missing   # a Path names the same font
    with pytest.raises(DataError, match="U\\+4E2D"):
        check_glyphs("mill 中", SANS, file="x", entry=None, field=None)


def test_fit_shrinks_long_text_and_keeps_short_text_large():
    short = fit_text("Mill", box(400, 100), FONTS, file="f", entry=None, field=None)
    long = fit_text("The mill by the river where the miller grinds " * 3, box(400, 100), FONTS,
                    file="f", entry=None, field=None)
    assert short.size == 60 and long.size < short.size and len(long.lines) > 1


def test_text_that_cannot_fit_at_the_minimum_size_is_a_data_error():
    with pytest.raises(DataError, match="title.en: text does not fit box"):
        fit_text("word " * 200, box(100, 30, smin=20, smax=30), FONTS, file="goals.toml", entry='goal "g"',
                 field="title.en")


def ink_bbox(image: Image.Image):
    return Image.eval(image.convert("L"), lambda v: 255 - v).getbbox()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(alphabet="abcdefghij klmnopqrstuvwxyz ЖжЙйЇїЁёЩщ,.!ÁÅ \nQgyp", min_size=1, max_size=120),
    width=st.integers(20, 400),
    height=st.integers(12, 300),
    align=st.sampled_from(["left", "center", "right"]),
    valign=st.sampled_from(["top", "middle", "bottom"]),
    font=st.sampled_from(["DejaVuSans.ttf", "DejaVuSerif-Bold.ttf"]),
)
def test_fitted_text_never_leaves_its_box(text, width, height, align, valign, font):
    margin = 20
    target = Box("t", margin, margin, width, height, font, 6, 48, align, valign, (0, 0, 0))
    image = Image.new("RGB", (width + 2 * margin, height + 2 * margin), (255, 255, 255))
    try:
        fitted = draw_text(ImageDraw.Draw(image), text, target, FONTS, file="f", entry=None, field=None)
    except DataError as exc:
        assert "does not fit" in exc.message
        return
    assert 6 <= fitted.size <= 48
    left, top, right, bottom = fitted.ink
    assert 0 <= left and right <= width and 0 <= top and bottom <= height
    drawn = ink_bbox(image)
    if drawn is not None:  # the pixels actually drawn stay inside the box too
        assert drawn[0] >= margin and drawn[1] >= margin
        assert drawn[2] <= margin + width and drawn[3] <= margin + height


def test_font_cache_returns_the_requested_size():
    assert load_font(SANS, 17).size == 17


@pytest.mark.parametrize("font_file", ["DejaVuSans.ttf", "DejaVuSerif-Bold.ttf"])
def test_a_line_drawn_again_from_its_kept_mask_has_the_pixels_pillow_draws(font_file):
    from tools.render.text import draw_line

    path = str(assets_dir() / "fonts" / font_file)
    cases = [("Mill", 12, (10, 30)), ("Мірошник · Мельник", 31, (3.0, 60.0)), ("Landlord 9,999", 24, (40.5, 90.25)),
             ("ÅÉ ſ ﬁ gjpqy", 17, (0.75, 120.9)), ("x", 48, (-5, 170)), ("Mill", 12, (200, 30))]
    for colour in [(0, 0, 0), (200, 30, 90)]:
        expected = Image.new("RGB", (320, 200), (240, 230, 210))
        ours = expected.copy()
        pillow, mine = ImageDraw.Draw(expected), ImageDraw.Draw(ours)
        for text, size, xy in cases * 3:   # drawn, then seen again, then taken from the kept masks
            font = load_font(path, size)
            pillow.text(xy, text, font=font, fill=colour, anchor="ls")
            draw_line(mine, xy, text, font, (path, size), colour)
        assert ours.tobytes() == expected.tobytes()


def test_a_text_drawn_at_another_size_keeps_its_design_lines():
    # fitted afresh at twice the size, this title would take two lines at a larger size (font sizes are whole
    # pixels, line pitches rounded); laid out once, it keeps the one line it has at the design size, drawn twice
    # as large
    design = Box("title", 0, 0, 452, 120, "DejaVuSerif-Bold.ttf", 20, 72, "center", "middle")
    at_design = fit_text("Four Rumours", design, FONTS, file="f", entry=None, field=None)
    large = design.scaled(2, 2, 2)
    fresh = Box("title", 0, 0, 904, 240, "DejaVuSerif-Bold.ttf", 40, 144, "center", "middle")
    assert fit_text("Four Rumours", fresh, FONTS, file="f", entry=None, field=None).lines != at_design.lines
    drawn = fit_text("Four Rumours", large, FONTS, file="f", entry=None, field=None)
    assert drawn.lines == at_design.lines and abs(drawn.size - 2 * at_design.size) <= 4
    left, top, right, bottom = drawn.ink
    assert 0 <= left and 0 <= top and right <= large.width and bottom <= large.height


def test_checked_keys_are_kept_between_builds_and_forgotten_by_another_version(tmp_path, monkeypatch):
    import tools.render.text as module

    path = tmp_path / ".cache" / "texts-checked.txt"
    assert CheckedKeys.load(path).known == frozenset()   # no file yet: nothing passed
    CheckedKeys().save(path, {"b" * 64, "a" * 64})
    assert CheckedKeys.load(path).known == {"a" * 64, "b" * 64}
    kept = CheckedKeys.load(path)
    kept.save(path, {"a" * 64})   # the keys of this build only: an image gone is forgotten
    assert CheckedKeys.load(path).known == {"a" * 64}
    monkeypatch.setattr(module, "__version__", "another")   # an upgrade may check glyphs otherwise
    assert CheckedKeys.load(path).known == frozenset()
    path.write_bytes(b"\xff\xfe not ascii")
    assert CheckedKeys.load(path).known == frozenset()
