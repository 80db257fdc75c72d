"""layouts.toml: a good file loads; mistakes name file, entry and field."""

from __future__ import annotations

import pytest

from bridge.errors import DataError
from bridge.paths import assets_dir
from tools.render.layout import load_layouts

GOOD = """
[colours]
ink = "#000000"
zones = ["#112233"]
[layouts.card]
size = [200, 300]
[layouts.card.boxes]
title = { box = [10, 10, 180, 40], font = "DejaVuSans.ttf", size = [10, 30], align = "center" }
art = { box = [10, 60, 180, 100] }
"""


def load(tmp_path, text, required=None):
    path = tmp_path / "layouts.toml"
    path.write_text(text, encoding="utf-8")
    return load_layouts(path, fonts_dir=assets_dir() / "fonts", required=required)


def test_a_good_layout_loads(tmp_path):
    layouts = load(tmp_path, GOOD, {"card": {"title": True, "art": False}})
    title = layouts.layouts["card"].box("title")
    assert (title.x, title.y, title.width, title.height, title.size_min, title.size_max) == (10, 10, 180, 40, 10, 30)
    assert layouts.zone_colours == ((0x11, 0x22, 0x33),)


@pytest.mark.parametrize("old, new, field, message", [
    ("[10, 60, 180, 100]", "[10, 260, 180, 100]", "boxes.art.box", "outside"),
    ('font = "DejaVuSans.ttf"', 'font = "Nope.ttf"', "boxes.title.font", "not in assets/fonts"),
    ('font = "DejaVuSans.ttf"', 'font = "../fonts/DejaVuSans.ttf"', "boxes.title.font", "font file name"),
    ("size = [10, 30]", "size = [30, 10]", "boxes.title.size", "min is larger"),
    ('align = "center"', 'align = "middle"', "boxes.title.align", "must be one of"),
    ("size = [200, 300]", "size = [200, 9000]", "size", "values must be"),
    ('ink = "#000000"', 'ink = "black"', "colours.ink", "not a colour"),
])
def test_mistakes_name_file_entry_and_field(tmp_path, old, new, field, message):
    with pytest.raises(DataError) as caught:
        load(tmp_path, GOOD.replace(old, new))
    error = caught.value
    assert error.file == "layouts.toml" and error.field == field and message in error.message
    if field != "colours.ink":
        assert error.entry == 'layout "card"'


def test_missing_kind_and_box_are_reported(tmp_path):
    with pytest.raises(DataError, match='layout "goal": missing'):
        load(tmp_path, GOOD, {"goal": {}})
    with pytest.raises(DataError, match='layout "card": boxes.text: missing'):
        load(tmp_path, GOOD, {"card": {"text": True}})
    with pytest.raises(DataError, match="boxes.art.font: missing"):
        load(tmp_path, GOOD, {"card": {"art": True}})


def test_unreadable_toml_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="layouts.toml: not valid TOML"):
        load(tmp_path, "[layouts\n")


def test_a_layouts_fingerprint_is_the_same_asked_again_or_after_pickling_into_a_worker_and_follows_an_edit(tmp_path):
    import pickle

    first = load(tmp_path, GOOD)
    texts = (first.fingerprint(), first.layouts["card"].fingerprint())
    for layouts in (first, pickle.loads(pickle.dumps(first)), load(tmp_path, GOOD)):
        assert (layouts.fingerprint(), layouts.layouts["card"].fingerprint()) == texts
    assert pickle.loads(pickle.dumps(first)) == first
    edited = load(tmp_path, GOOD.replace("[10, 30]", "[10, 31]").replace("#112233", "#112234"))
    assert edited.fingerprint() != texts[0] and edited.layouts["card"].fingerprint() != texts[1]


def test_a_layout_drawn_at_another_size_scales_boxes_font_sizes_and_params():
    from tools.render.layout import Box, CardLayout

    title = Box("title", 40, 30, 970, 70, "DejaVuSans.ttf", 24, 54)
    art = Box("art", 40, 146, 600, 300)
    layout = CardLayout("scene", 1050, 730, {"title": title, "art": art}, {"frame": 18, "icon_size": 64, "radius": 0},
                        size_mm=(177.0, 123.0))
    half = layout.scaled((525, 365))
    assert (half.width, half.height, half.size_mm) == (525, 365, (177.0, 123.0))
    assert half.box("title").rect == (20, 15, 505, 50) and half.box("art").rect == (20, 73, 320, 223)
    assert (half.box("title").size_min, half.box("title").size_max) == (12, 27)
    assert half.params == {"frame": 9, "icon_size": 32, "radius": 0}   # a zero stays zero
    tiny = layout.scaled_by(0.01)
    assert tiny.params["frame"] == 1 and tiny.box("title").size_min >= 1 and tiny.box("art").width >= 1
    # the fingerprint (every image key) is the design's: scaling makes no new layout data
    assert layout.scaled((1050, 730)) is layout
    # scaled twice is scaled once by the product, from the design box
    assert half.box("title").scaled(2, 2, 2) == title.scaled(1.0, 1.0, 1.0) == title
    assert half.box("title").design_layout() == (title, 0.5)
    moved = half.box("title").moved(5, 0)
    assert moved.design_layout() is None   # no longer the design's box


def test_a_box_s_minimum_font_size_rounds_down_so_a_text_keeps_room_to_fit():
    from tools.render.layout import Box

    box = Box("text", 0, 0, 100, 40, "DejaVuSans.ttf", 15, 30).scaled(0.5, 0.5, 0.5)
    assert (box.size_min, box.size_max) == (7, 15)
