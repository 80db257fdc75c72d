"""Repeat groups of card templates (tools/render/template.py ``expand``, templatedraw.py): a group of layers drawn
once per item of a list field — a row per animal, a column per cost — with each item's fields, in cells that
share the group's box, and errors that name the layout's layer or the card's item field."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from bridge.catalog import assets_dir
from bridge.errors import DataError
from tools.render.layout import load_layouts
from tools.render.sizing import measure_text
from tools.render.template import MAX_ITEMS, Repeat
from tools.render.templatedraw import TemplateCard, TemplateRenderer

FONTS = assets_dir() / "fonts"
PAPER = (243, 234, 214)

ROWS = '''
[colours]
paper = "#f3ead6"

[layouts.card]
size = [400, 560]

[[layouts.card.layers]]
shape = "rect"
fill = "paper"

[[layouts.card.layers]]
name = "title"
text = "{title}"
box = [20, 20, 360, 60]
size = [10, 30]

[[layouts.card.layers]]
name = "rows"
repeat = "rows"
box = [20, 100, 360, 400]
cell = [360, 100]

[[layouts.card.layers.layers]]
name = "dot"
shape = "ellipse"
box = [0, 10, 80, 80]
fill = "{item.colour}"

[[layouts.card.layers.layers]]
name = "line"
text = "{item.name}: {title}"
box = [90, 0, 270, 100]
size = [8, 30]
valign = "middle"
'''


def colours(count: int) -> list[tuple[int, int, int]]:
    return [(25 * n + 20, 200 - 20 * n, 90) for n in range(count)]


def rows_card(count: int, name: str = "a", **values) -> TemplateCard:
    rows = [{"name": f"Row {n + 1}", "colour": "#%02x%02x%02x" % c} for n, c in enumerate(colours(count))]
    return TemplateCard(f"card:{name}", "card", {"title": "Hello", "rows": rows, **values}, "cards.toml",
                        f'card "{name}"')


def renderer(folder: Path, layouts: str, *cards: TemplateCard) -> TemplateRenderer:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "layouts.toml").write_text(layouts, encoding="utf-8")
    return TemplateRenderer(load_layouts(folder / "layouts.toml", fonts_dir=FONTS), list(cards), game_dir=folder,
                            bundled_fonts=FONTS, lang="en")


@pytest.mark.parametrize("count", [1, 2, 4])
def test_each_item_gets_its_row_an_equal_share_of_the_box_with_its_own_colour(tmp_path, count):
    image = renderer(tmp_path, ROWS, rows_card(count)).render("card:a")
    slot = 400 / count
    for n, colour in enumerate(colours(count)):
        # the dot's centre: 40 px into the cell, in the middle of the item's slot
        assert image.getpixel((20 + 40, round(100 + (n + 0.5) * slot))) == colour
    assert image.getpixel((60, 100 + 2)) == PAPER   # above the first dot: a cell is centred in its slot


def test_a_row_text_reads_the_item_and_the_card_and_lies_in_its_cell(tmp_path):
    with measure_text() as record:
        renderer(tmp_path, ROWS, rows_card(4)).render("card:a")
    lines = sorted((entry for entry in record if entry[0].startswith("rows-")), key=lambda entry: entry[3][1])
    assert [name for name, *_ in lines] == ["rows-1-line", "rows-2-line", "rows-3-line", "rows-4-line"]
    for n, (_, _, _, box, ink) in enumerate(lines):
        assert box == (110, 100 + 100 * n, 380, 200 + 100 * n)
        assert box[1] <= ink[1] and ink[3] <= box[3]


def test_items_that_need_more_room_than_the_box_are_drawn_smaller_inside_it(tmp_path):
    image = renderer(tmp_path, ROWS, rows_card(8)).render("card:a")
    # eight cells of 100 in 400: each at half size, 50 px apart, the dot 40 px wide
    for n, colour in enumerate(colours(8)):
        assert image.getpixel((20 + 20, 100 + 50 * n + 25)) == colour
    assert image.getpixel((20 + 20, 100 + 400 + 5)) == PAPER   # nothing below the box


def test_a_packed_group_across_puts_its_items_side_by_side_a_gap_apart(tmp_path):
    layouts = ROWS.replace('box = [20, 100, 360, 400]\ncell = [360, 100]',
                           'box = [20, 100, 360, 400]\ncell = [80, 100]\ndirection = "across"\n'
                           'spread = false\ngap = 10')
    layouts = layouts.replace('text = "{item.name}: {title}"\nbox = [90, 0, 270, 100]', 'text = "{item.name}"\n'
                              'box = [0, 90, 80, 10]')
    image = renderer(tmp_path, layouts, rows_card(3)).render("card:a")
    for n, colour in enumerate(colours(3)):
        assert image.getpixel((20 + 90 * n + 40, 150)) == colour
    assert image.getpixel((20 + 90 * 3 + 40, 150)) == PAPER   # packed from the start: the rest is empty


def test_a_card_without_items_draws_no_row(tmp_path):
    drawn = renderer(tmp_path, ROWS, rows_card(2), rows_card(0, "b"), TemplateCard("card:c", "card", {
        "title": "Hello", "rows": "not a list"}, "cards.toml", 'card "c"'))
    for name in ("card:b", "card:c"):
        image = drawn.render(name)
        assert image.getpixel((60, 150)) == PAPER and image.getpixel((60, 450)) == PAPER


def test_an_item_layer_shown_only_when_the_item_has_the_field(tmp_path):
    layouts = ROWS.replace('fill = "{item.colour}"', 'fill = "{item.colour}"\nwhen = "item.colour"')
    card = rows_card(2)
    card.values["rows"][1].pop("colour")
    image = renderer(tmp_path, layouts, card).render("card:a")
    assert image.getpixel((60, 200)) == colours(2)[0] and image.getpixel((60, 400)) == PAPER


def test_the_key_follows_the_items_and_an_item_image_file(tmp_path):
    layouts = ROWS.replace('[[layouts.card.layers.layers]]\nname = "line"',
                           '[[layouts.card.layers.layers]]\nname = "art"\nimage = "art/{item.name}.png"\n'
                           'box = [0, 0, 10, 10]\nplaceholder = "paper"\n\n[[layouts.card.layers.layers]]\n'
                           'name = "line"')
    drawn = renderer(tmp_path, layouts, rows_card(2), rows_card(3, "b"))
    assert drawn.key("card:a", "card") != drawn.key("card:b", "card")
    before = drawn.key("card:a", "card")
    (tmp_path / "art").mkdir()
    Image.new("RGB", (10, 10), (1, 2, 3)).save(tmp_path / "art" / "Row 2.png")
    assert drawn.key("card:a", "card") != before
    assert drawn.render("card:a").getpixel((25, 355)) == (1, 2, 3)   # row 2: its cell centred in the lower half


def test_literal_braces_in_a_repeated_text_stay_braces(tmp_path):
    layouts = ROWS.replace('text = "{item.name}: {title}"', 'text = "{{item}} {item.name}"')
    with measure_text() as record:
        renderer(tmp_path, layouts, rows_card(1)).render("card:a")
    assert any(name == "rows-1-line" for name, *_ in record)
    drawn = renderer(tmp_path, layouts, rows_card(1))
    line = next(layer for layer in drawn.laid_out(rows_card(1), drawn.template("card")).layers
                if layer.name == "rows-1-line")
    assert line.text == "{{item}} {rows.1.name}"


def test_a_template_with_a_group_keeps_it_as_one_layer_of_its_own(tmp_path):
    drawn = renderer(tmp_path, ROWS, rows_card(1))
    group = drawn.template("card").layers[2]
    assert isinstance(group, Repeat) and group.repeat == "rows" and [c.name for c in group.layers] == ["dot", "line"]
    assert group.item_fields() == ("colour", "name")


# -- errors -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("change, field, words", [
    (('cell = [360, 100]', 'cell = [400, 100]'), "layers[2].cell", "larger than the group's box"),
    (('cell = [360, 100]\n', ''), "layers[2].cell", "an item's box"),
    (('repeat = "rows"', 'repeat = "rows of"'), "layers[2].repeat", "field holding a list"),
    (('cell = [360, 100]', 'cell = [360, 100]\ndirection = "up"'), "layers[2].direction", "down, across"),
    (('box = [0, 10, 80, 80]', 'box = [0, 10, 80, 95]'), "layers[2].layers[0].box", "outside the 360 x 100"),
    (('valign = "middle"', 'valign = "middle"\nbody = true'), "layers[2].layers[1].body", "cannot be the body"),
    (('name = "dot"\n', 'name = "dot"\nrepeat = "rows"\n'), "layers[2].layers[0]", "exactly one of"),
    (('fill = "{item.colour}"', 'fill = "gold"'), "layers[2].layers[0].fill", "not a colour of [colours]"),
])
def test_a_bad_group_is_reported_with_its_layer_and_field(tmp_path, change, field, words):
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, ROWS.replace(*change), rows_card(1))
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("layouts.toml", 'layout "card"', field)
    assert words in caught.value.message


def test_a_group_three_levels_deep_is_refused_and_an_inner_group_needs_its_own_item_name(tmp_path):
    inner = ('\n[[layouts.card.layers.layers]]\nname = "inner"\nrepeat = "item.marks"\nas = "mark"\n'
             'cell = [10, 10]\nbox = [0, 0, 100, 10]\n\n[[layouts.card.layers.layers.layers]]\n')
    deeper = ROWS + inner + 'repeat = "mark.more"\ncell = [1, 1]\nbox = [0, 0, 5, 5]\n'
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, deeper, rows_card(1))
    assert caught.value.field == "layers[2].layers[2].layers[0].repeat" and "cannot repeat again" in caught.value.message
    same_name = ROWS + inner.replace('as = "mark"\n', '') + 'shape = "rect"\nfill = "#000000"\n'
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, same_name, rows_card(1))
    assert caught.value.field == "layers[2].layers[2].as" and "outer group" in caught.value.message


def test_a_misspelt_item_field_is_named_before_anything_is_drawn(tmp_path):
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, ROWS.replace("{item.name}", "{item.nmae}"), rows_card(2))
    assert caught.value.field == "layers[2].layers[1]"
    assert 'reads the field "item.nmae", which no item of "rows" has' in caught.value.message
    with pytest.raises(DataError, match='"titel", which no card of this layout has'):
        renderer(tmp_path, ROWS.replace(": {title}", ": {titel}"), rows_card(2))


def test_a_text_of_an_item_that_cannot_fit_names_the_cards_item_field(tmp_path):
    card = rows_card(2)
    card.values["rows"][1]["name"] = "word " * 400
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, ROWS, card).render("card:a")
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("cards.toml", 'card "a"', "rows.2.name")


def test_a_glyph_an_item_font_lacks_is_named_by_the_check_before_drawing(tmp_path):
    card = rows_card(2)
    card.values["rows"][0]["name"] = "漢"
    drawn = renderer(tmp_path, ROWS, card)
    with pytest.raises(DataError) as caught:
        drawn.check_glyphs(card)
    assert caught.value.field == "rows.1.name" and "U+6F22" in caught.value.message


def test_more_items_than_a_card_may_draw_is_an_error_naming_the_list(tmp_path):
    card = rows_card(1)
    card.values["rows"] = [{"name": "x", "colour": "#000000"}] * (MAX_ITEMS + 1)
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, ROWS, card).render("card:a")
    assert caught.value.field == "rows" and f"at most {MAX_ITEMS}" in caught.value.message


# -- the documented example -----------------------------------------------------------------------------------

def documented_group() -> str:
    page = (Path(__file__).resolve().parents[3] / "docs" / "data-format.md").read_text(encoding="utf-8")
    section = page.split("## Card templates (layers)", 1)[1].split("\n## ", 1)[0]
    return next(block.split("```", 1)[0] for block in section.split("```toml\n")[1:] if "repeat =" in block)


def test_the_documented_group_draws_a_row_per_animal_and_names_its_fields(tmp_path):
    animals = [{"name": {"en": name}, "power": {"en": f"{name} jumps a card."}, "colour": colour}
               for name, colour in (("Hare", "#aa3322"), ("Fox", "#2255aa"), ("Owl", "#338844"))]
    card = TemplateCard("overview:1", "overview", {"animals": animals}, "components.toml", 'overview "overview-1"')
    drawn = renderer(tmp_path, documented_group(), card)
    with measure_text() as record:
        image = drawn.render("overview:1")
    assert sorted(name for name, *_ in record) == ["powers-1-power", "powers-2-power", "powers-3-power"]
    slot = 340 / 3
    for n, animal in enumerate(animals):
        centre = (40 + 35, round(262 + n * slot + slot / 2))
        assert image.getpixel(centre) == tuple(int(animal["colour"][i:i + 2], 16) for i in (1, 3, 5))
    animals[1]["power"]["en"] = "word " * 300
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, documented_group(), card).render("overview:1")
    # named by the longest field the text reads, the second item's
    assert (caught.value.entry, caught.value.field) == ('overview "overview-1"', "animals.2.power.en")
    assert 'layer "powers-2-power"' in caught.value.message
    with pytest.raises(DataError, match='reads the field "item.powr", which no item of "animals" has'):
        renderer(tmp_path, documented_group().replace("{item.power}", "{item.powr}"), card)


def test_an_error_about_an_item_from_another_entry_names_that_entry(tmp_path):
    card = rows_card(2)
    card = TemplateCard(card.name, card.kind, card.values, card.file, card.entry,
                        origins={"rows.2": ("components.toml", 'animal "fox"')})
    card.values["rows"][1]["name"] = "word " * 400
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, ROWS, card).render("card:a")
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("components.toml", 'animal "fox"', "name")
    card.values["rows"][1]["name"] = "Fox 漢"
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, ROWS, card).check_glyphs(card)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("components.toml", 'animal "fox"', "name")
    card.values["title"] = "漢"
    card.values["rows"][1]["name"] = "Fox"
    with pytest.raises(DataError) as caught:   # the card's own field: its own entry
        renderer(tmp_path, ROWS, card).check_glyphs(card)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("cards.toml", 'card "a"', "title")


# -- tables: stretched cells and texts of one size -------------------------------------------------------------

TABLE = '''
[layouts.card]
size = [400, 300]

[[layouts.card.layers]]
shape = "rect"
fill = "#ffffff"

[[layouts.card.layers]]
name = "columns"
repeat = "columns"
box = [50, 50, 300, 200]
cell = [40, 200]
direction = "across"
stretch = true

[[layouts.card.layers.layers]]
name = "cell"
shape = "rect"
box = [0, 0, 40, 200]
fill = "{item.colour}"

[[layouts.card.layers.layers]]
name = "line"
shape = "rect"
box = [0, 0, 2, 200]
fill = "#000000"

[[layouts.card.layers.layers]]
name = "number"
text = "{item.number}"
box = [2, 0, 38, 200]
size = [6, 60]
align = "center"
valign = "middle"
size_group = "numbers"
'''


def table_card(*numbers: str) -> TemplateCard:
    columns = [{"number": n, "colour": "#%02x%02x%02x" % c} for n, c in zip(numbers, colours(len(numbers)))]
    return TemplateCard("card:t", "card", {"columns": columns}, "cards.toml", 'card "t"')


def test_stretched_cells_fill_the_box_edge_to_edge_however_many_columns(tmp_path):
    for count in (3, 5):
        image = renderer(tmp_path, TABLE, table_card(*map(str, range(count)))).render("card:t")
        width = 300 / count
        for n, colour in enumerate(colours(count)):
            left = 50 + n * width
            assert image.getpixel((round(left), 150)) == (0, 0, 0)                    # its line, at its left edge
            assert image.getpixel((round(left + width - 3), 60)) == colour            # its colour to its right edge
        assert image.getpixel((351, 60)) == (255, 255, 255)


def test_texts_of_one_size_group_are_drawn_at_the_size_the_tightest_fits(tmp_path):
    def sizes(layouts: str) -> dict[str, int]:
        with measure_text() as record:
            renderer(tmp_path, layouts, table_card("1", "+1234", "7")).render("card:t")
        return {name: size for name, _, size, *_ in record}

    grouped = sizes(TABLE)
    assert len(set(grouped.values())) == 1 and set(grouped) == {f"columns-{n}-number" for n in (1, 2, 3)}
    alone = sizes(TABLE.replace('size_group = "numbers"\n', ''))
    assert alone["columns-2-number"] == grouped["columns-2-number"] < alone["columns-1-number"]


def test_a_size_group_is_part_of_the_layout_s_fingerprint_and_a_layout_without_one_keeps_its_own(tmp_path):
    grouped = renderer(tmp_path / "a", TABLE, table_card("1")).layouts.layouts["card"]
    plain = renderer(tmp_path / "b", TABLE.replace('size_group = "numbers"\n', ''), table_card("1")).layouts
    assert grouped.fingerprint() != plain.layouts["card"].fingerprint()
    assert plain.layouts["card"].template.fingerprint() == repr(plain.layouts["card"].template)


def test_align_places_only_packed_items(tmp_path):
    with pytest.raises(DataError) as caught:
        renderer(tmp_path, TABLE.replace("stretch = true", 'stretch = true\nalign = "center"'), table_card("1"))
    assert caught.value.field == "layers[1].align" and "spread = false" in caught.value.message


# -- packed rows and groups inside groups ----------------------------------------------------------------------

STEPS = '''
[layouts.card]
size = [400, 400]

[[layouts.card.layers]]
shape = "rect"
fill = "#ffffff"

[[layouts.card.layers]]
name = "steps"
repeat = "steps"
box = [0, 100, 400, 200]
cell = [400, 80]
spread = false
align = "center"
stretch = true

[[layouts.card.layers.layers]]
name = "bar"
shape = "rect"
box = [0, 4, 400, 72]
fill = "{item.colour}"
'''


def steps_card(count: int) -> TemplateCard:
    steps = [{"colour": "#%02x%02x%02x" % c} for c in colours(count)]
    return TemplateCard("card:s", "card", {"steps": steps}, "cards.toml", 'card "s"')


def test_packed_rows_sit_centred_at_their_own_height_and_squeeze_when_the_box_is_short(tmp_path):
    image = renderer(tmp_path, STEPS, steps_card(2)).render("card:s")
    # two rows of 80 in 200: a block of 160 from 120 to 280
    assert image.getpixel((200, 118)) == (255, 255, 255) and image.getpixel((200, 126)) == colours(2)[0]
    assert image.getpixel((200, 270)) == colours(2)[1] and image.getpixel((200, 282)) == (255, 255, 255)
    image = renderer(tmp_path, STEPS, steps_card(5)).render("card:s")
    # five rows need 400: each squeezed to 40 (only down: the bars keep the whole width)
    for n, colour in enumerate(colours(5)):
        assert image.getpixel((200, 100 + 40 * n + 20)) == colour and image.getpixel((2, 100 + 40 * n + 20)) == colour


SLOTS = '''
[layouts.card]
size = [600, 300]

[[layouts.card.layers]]
shape = "rect"
fill = "#ffffff"

[[layouts.card.layers]]
name = "slots"
repeat = "slots"
box = [0, 0, 600, 300]
cell = [200, 300]
direction = "across"
stretch = true

[[layouts.card.layers.layers]]
name = "name"
text = "{item.name}"
box = [10, 10, 180, 80]
size = [8, 40]
align = "center"
size_group = "names"

[[layouts.card.layers.layers]]
name = "marks"
repeat = "item.marks"
as = "mark"
box = [0, 150, 200, 50]
cell = [50, 50]
direction = "across"
spread = false
gap = 10
align = "center"

[[layouts.card.layers.layers.layers]]
name = "mark"
shape = "ellipse"
box = [0, 0, 50, 50]
fill = "{mark.colour}"
'''


def test_a_group_inside_a_group_draws_each_outer_item_s_own_list(tmp_path):
    red, blue = (200, 30, 30), (30, 60, 200)
    slots = [{"name": "Knight", "marks": [{"colour": "#c81e1e"}, {"colour": "#1e3cc8"}]},
             {"name": "Nun", "marks": [{"colour": "#1e3cc8"}]}]
    card = TemplateCard("card:k", "card", {"slots": slots}, "cards.toml", 'card "k"')
    drawn = renderer(tmp_path, SLOTS, card)
    image = drawn.render("card:k")
    # two slots of 300 each (stretched from 200); the first's two marks centred in it, 10 apart; the second's one
    assert image.getpixel((150 - 5 - 25, 175)) == red and image.getpixel((150 + 5 + 25, 175)) == blue
    assert image.getpixel((450, 175)) == blue and image.getpixel((450 - 40, 175)) == (255, 255, 255)
    names = [layer.name for layer in drawn.laid_out(card, drawn.template("card")).layers]
    assert names[1:] == ["slots-1-name", "slots-1-marks-1-mark", "slots-1-marks-2-mark", "slots-2-name",
                         "slots-2-marks-1-mark"]
    with measure_text() as record:
        drawn.render("card:k")
    assert len({size for _, _, size, *_ in record}) == 1           # the names of a row read at one size
    with pytest.raises(DataError, match='reads the field "mark.color", which no item of "item.marks" has'):
        renderer(tmp_path, SLOTS.replace("{mark.colour}", "{mark.color}"), card)


def test_a_group_named_as_body_text_counts_its_items_texts():
    from tools.render.sizing import body_text_height, cap_height

    font = str(FONTS / "DejaVuSans.ttf")
    record = [("title", font, 40, (0, 0, 1, 1), (0, 0, 1, 1)), ("steps-1-text", font, 30, (0, 0, 1, 1), (0, 0, 1, 1)),
              ("steps-2-text", font, 20, (0, 0, 1, 1), (0, 0, 1, 1)), ("stepsx", font, 10, (0, 0, 1, 1), (0, 0, 1, 1))]
    assert body_text_height(record, ("steps",)) == cap_height(font, 20)
    assert body_text_height(record, ("title",)) == cap_height(font, 40)
