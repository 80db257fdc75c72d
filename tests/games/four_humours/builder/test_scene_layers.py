"""Scene cards drawn from the layers of layout "scene" in layouts.toml, their resolution and slots repeat groups of
them (a row per step, a panel per slot with an icon per humour)."""

from __future__ import annotations

import dataclasses

import pytest

from bridge.errors import DataError
from bridge.paths import assets_dir
from tools.games.four_humours.render import Renderer, load_four_humours_layouts
from tools.render.sizing import measure_text

TITLE_LAYER = ('box = [40, 30, 970, 70]\nfont = "DejaVuSerif-Bold.ttf"\nsize = [24, 54]\nalign = "center"\n'
               'valign = "middle"\ncolour = "#2b2118"')


def reds(image) -> int:
    data = image.tobytes()
    return sum(1 for r, g, b in zip(data[0::3], data[1::3], data[2::3]) if r > 200 and g < 60 and b < 60)


def drawing(game, game_dir) -> Renderer:
    return Renderer(game, load_four_humours_layouts(game_dir), game_dir, assets_dir() / "fonts", "en")


def edit_layouts(game_dir, old: str, new: str) -> None:
    path = game_dir / "layouts.toml"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_scene_is_drawn_from_its_layers_and_a_changed_layer_changes_its_face_and_key(game, game_dir):
    before = drawing(game, game_dir)
    face, key = before.render("scene:scene-1"), before.key("scene:scene-1", "scene")
    party_key = before.key("party:ball", "party")
    edit_layouts(game_dir, TITLE_LAYER, TITLE_LAYER.replace('colour = "#2b2118"', 'colour = "#ff0000"'))
    after = drawing(game, game_dir)
    red = after.render("scene:scene-1")
    assert red.size == face.size == (1050, 730)
    title_box = (40, 30, 1010, 100)
    assert reds(red.crop(title_box)) > 200 and reds(face.crop(title_box)) == 0
    assert red.crop((0, 110, 1050, 730)).tobytes() == face.crop((0, 110, 1050, 730)).tobytes()   # the rest as it was
    assert after.key("scene:scene-1", "scene") != key and after.key("party:ball", "party") == party_key


def test_an_animal_scene_s_zone_line_names_its_animals_and_the_body_is_measured_in_its_boxes(game, game_dir):
    renderer = drawing(game, game_dir)
    for name, zone_layer in (("scene:wolves", "subtitle"), ("scene:scene-0", "subtitle_alone")):
        with measure_text() as record:
            renderer.render(name, (800, 556))
        drawn = [box for box, *_ in record]
        assert zone_layer in drawn and {"subtitle", "subtitle_alone"} - {zone_layer} - set(drawn)
        assert "title" in drawn, drawn
        steps = [box for box in drawn if box.startswith("resolution-")]
        slots = [box for box in drawn if box.startswith("slots-")]
        scene = renderer.data.scene_by_id[name.split(":")[1]]
        assert len(steps) == len(renderer.data.resolution_for(scene)) and len(slots) == len(scene.slots)
        sizes = {box: size for box, _, size, *_ in record}
        assert len({sizes[box] for box in steps}) == 1 and len({sizes[box] for box in slots}) == 1   # one size each
        for box, _, size, (left, top, right, bottom), ink in record:   # everything inside its box
            assert left <= ink[0] and top <= ink[1] and ink[2] <= right and ink[3] <= bottom, (name, box)
    assert renderer.body_boxes("scene:wolves") == ("resolution", "slots")


def test_without_its_layers_the_scene_layout_is_an_error_naming_the_file_and_the_layout(game_dir):
    path = game_dir / "layouts.toml"
    text = path.read_text(encoding="utf-8")
    start, end = text.index("[[layouts.scene.layers]]"), text.index("# A party tile, drawn from its layers")
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_four_humours_layouts(game_dir)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("layouts.toml", 'layout "scene"', "layers")


def test_a_scene_layout_without_its_slots_group_is_an_error_naming_the_group(game_dir):
    edit_layouts(game_dir, 'name = "slots"\nrepeat = "slots"\nas = "slot"\nbox = [40, 480, 970, 220]',
                 'name = "panels"\nrepeat = "slots"\nas = "slot"\nbox = [40, 480, 970, 220]')
    with pytest.raises(DataError) as caught:
        load_four_humours_layouts(game_dir)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("layouts.toml", 'layout "scene"', "layers")
    assert 'needs a repeat group named "slots" (repeat = "slots")' in caught.value.message


def test_a_title_that_cannot_fit_names_the_scene_s_file_entry_and_field(game, game_dir):
    scenes = list(game.scenes)
    scenes[2] = dataclasses.replace(scenes[2], title=dataclasses.replace(scenes[2].title, en="Tower " * 60))
    renderer = drawing(dataclasses.replace(game, scenes=tuple(scenes)), game_dir)
    for size in (None, (1066, 741)):
        with pytest.raises(DataError) as caught:
            renderer.render("scene:scene-2", size)
        assert (caught.value.file, caught.value.entry, caught.value.field) == ("scenes.toml", 'scene "scene-2"',
                                                                             "title.en")
        assert 'does not fit layer "title"' in caught.value.message
    renderer.render("scene:scene-1", (1066, 741))   # the others draw


def test_a_layouts_file_from_before_the_body_groups_names_the_old_layout_and_the_way_on(game_dir):
    path = game_dir / "layouts.toml"
    path.write_text(path.read_text(encoding="utf-8") + "\n[layouts.scene_body]\nsize = [1050, 730]\n"
                    "[layouts.scene_body.boxes]\nslots = { box = [40, 480, 970, 220], font = \"DejaVuSans.ttf\", size = [14, 36] }\n",
                    encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_four_humours_layouts(game_dir)
    assert (caught.value.file, caught.value.entry) == ("layouts.toml", 'layout "scene_body"')
    assert "repeat groups of layout \"scene\"" in caught.value.message and "--from four-humours" in caught.value.message
