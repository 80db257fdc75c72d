"""Card templates as data (tools/render/template.py, templatedraw.py, richtext.py): a layout's layers drawn at
every size, with text inside its layer, conditions, images, icons, styles and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat

from bridge.catalog import assets_dir
from bridge.errors import DataError
from tools.render import richtext
from tools.render.layout import load_layouts
from tools.render.pipeline import DeckPlan, ThumbnailPlan, render_art
from tools.render.sizing import measure_text
from tools.render.templatedraw import TemplateCard, TemplateRenderer

FONTS = assets_dir() / "fonts"
RED = (200, 30, 30)
BLUE = (40, 120, 200)

LAYOUTS = '''
[colours]
paper = "#f3ead6"
ink = "#2b2118"

[layouts.card]
units = "mm"
size_mm = [63, 88]

[[layouts.card.layers]]
name = "frame"
shape = "rect"
fill = "paper"
outline = "ink"
stroke = 0.8
radius = 3

[[layouts.card.layers]]
name = "band"
shape = "rect"
box = [0, 50, 63, 2]
fill = "{band}"
when = "band"

[[layouts.card.layers]]
name = "art"
image = "art/{id}.png"
box = [4, 14, 55, 34]
fit = "crop"
unless = { field = "type", is = "plain" }

[[layouts.card.layers]]
name = "title"
text = "{title}"
box = [5, 4, 53, 8]
size = [8, 14]
align = "center"
valign = "middle"

[[layouts.card.layers]]
name = "rules"
text = "{text}"
box = [5, 54, 53, 22]
size = [5, 11]
bold_font = "DejaVuSans-Bold.ttf"
italic_font = "DejaVuSans-Oblique.ttf"
body = true

[[layouts.card.layers]]
name = "cost"
text = "{cost}"
box = [50, 76, 10, 10]
size = [8, 12]
rotation = 90
when = "cost"

[layouts.back]
size = [372, 520]

[[layouts.back.layers]]
shape = "ellipse"
fill = "#3d2f4f"
'''


def make_game(folder: Path, layouts: str = LAYOUTS) -> Path:
    (folder / "art").mkdir(parents=True, exist_ok=True)
    (folder / "icons").mkdir(exist_ok=True)
    Image.new("RGB", (400, 300), BLUE).save(folder / "art" / "a.png")
    icon = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    ImageDraw.Draw(icon).ellipse((0, 0, 63, 63), fill=(*RED, 255))
    icon.save(folder / "icons" / "heart.png")
    (folder / "layouts.toml").write_text(layouts, encoding="utf-8")
    return folder


def card(name: str = "a", **values) -> TemplateCard:
    base = {"id": "a", "title": {"en": "Alpha", "uk": "Альфа"}, "text": "Deal **2** damage.", "cost": 3,
            "type": "spell", "band": "#00ff00"}
    return TemplateCard(f"card:{name}", "card", {**base, **values}, "cards.csv", f'row "{name}"')


def renderer(folder: Path, *cards: TemplateCard, lang: str = "en") -> TemplateRenderer:
    layouts = load_layouts(folder / "layouts.toml", fonts_dir=FONTS)
    return TemplateRenderer(layouts, list(cards) or [card()], game_dir=folder, bundled_fonts=FONTS, lang=lang)


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    """The mean absolute difference of two RGB images' channels (0..255)."""
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def red_pixels(image: Image.Image) -> int:
    """How many pixels are the icon's red."""
    r, g, _ = image.split()
    hits = ImageChops.multiply(r.point(lambda v: 255 if v > 150 else 0), g.point(lambda v: 255 if v < 80 else 0))
    return hits.histogram()[255]


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return make_game(tmp_path / "game")


# -- the format -----------------------------------------------------------------------------------------------

def test_a_mm_layout_is_designed_at_300_dpi_and_keeps_its_printed_size(game):
    layouts = load_layouts(game / "layouts.toml", fonts_dir=FONTS)
    card_layout = layouts.layouts["card"]
    assert (card_layout.width, card_layout.height) == (744, 1039) and card_layout.size_mm == (63.0, 88.0)
    assert [layer.name for layer in card_layout.template.layers] == ["frame", "band", "art", "title", "rules",
                                                                     "cost"]
    assert layouts.layouts["back"].template.design_size == (372, 520)


@pytest.mark.parametrize("layer, field, words", [
    ('shape = "rect"\nfill = "#000000"\nimage = "x.png"', "layers[0]", "exactly one of"),
    ('shape = "rect"\nfill = "#000000"\ncolour = "#000000"', "layers[0].colour", "unknown field"),
    ('shape = "rect"\nfill = "#000000"\nbox = [0, 0, 64, 10]', "layers[0].box", "lies outside"),
    ('shape = "rect"\nfill = "gold"', "layers[0].fill", 'not a colour of [colours]'),
    ('shape = "star"\nfill = "#000000"', "layers[0].shape", "must be one of rect, ellipse"),
    ('text = "{title}"\nsize = [8, 12]\nfont = "Missing.ttf"', "layers[0].font", "fonts/"),
    ('text = "{title"\nsize = [8, 12]', "layers[0].text", "neither a {field}"),
    ('text = "{title}"', "layers[0].size", "missing"),
    ('text = "{title}"\nsize = [8, 12]\nrotation = 45', "layers[0].rotation", "0, 90, 180, 270"),
    ('image = "art/{id}.png"\nwhen = { field = "type" }', "layers[0].when", "field name"),
    ('image = "art/{id}.png"\nplaceholder = "sky"', "layers[0].placeholder", 'not a colour of [colours]'),
    ('picture = "two words"', "layers[0].picture", "picture's name"),
    ('picture = "stars"\ncolours = "#ffffff"', "layers[0].colours", "must be a list"),
    ('picture = "stars"\ncolours = ["#fff"]', "layers[0].colours", 'is not "#rrggbb"'),
    ('picture = "stars"\nfit = "crop"', "layers[0].fit", "unknown field of a picture layer"),
])
def test_a_bad_layer_is_reported_with_its_layout_index_and_field(tmp_path, layer, field, words):
    make_game(tmp_path, f'[layouts.card]\nunits = "mm"\nsize_mm = [63, 88]\n\n[[layouts.card.layers]]\n{layer}\n')
    with pytest.raises(DataError) as caught:
        load_layouts(tmp_path / "layouts.toml", fonts_dir=FONTS)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("layouts.toml", 'layout "card"', field)
    assert words in caught.value.message


def test_a_font_of_the_game_folder_comes_before_the_bundled_one(game):
    (game / "fonts").mkdir()
    (game / "fonts" / "Custom.ttf").write_bytes((FONTS / "DejaVuSerif-Bold.ttf").read_bytes())
    text = LAYOUTS.replace('name = "title"\n', 'name = "title"\nfont = "Custom.ttf"\n')
    (game / "layouts.toml").write_text(text, encoding="utf-8")
    drawn = renderer(game)
    title = next(layer for layer in drawn.template("card").layers if layer.name == "title")
    assert title.font.in_game and title.font.path(game, FONTS) == game / "fonts" / "Custom.ttf"
    with measure_text() as record:
        drawn.render("card:a")
    assert any(name == "title" and path.endswith("Custom.ttf") for name, path, *_ in record)


# -- drawing at every size ------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [None, (372, 520), (1488, 2078), (200, 279)])
def test_every_text_lies_inside_its_layer_at_every_size(game, size):
    long_text = "Deal **2** damage {icon:heart} to *any* target, then draw two cards and discard one of them."
    drawn = renderer(game, card(text=long_text))
    with measure_text() as record:
        image = drawn.render("card:a", size)
    assert image.size == (size or (744, 1039))
    assert {entry[0] for entry in record} == {"title", "rules", "cost"}
    for name, _, font_size, box, ink in record:
        assert box[0] <= ink[0] and box[1] <= ink[1] and ink[2] <= box[2] and ink[3] <= box[3], (name, box, ink)


def test_a_face_drawn_small_agrees_with_the_face_drawn_large_and_scaled_down(game):
    drawn = renderer(game)
    small = drawn.render("card:a", (372, 520))
    large = drawn.render("card:a", (1488, 2078)).resize((372, 520), Image.Resampling.LANCZOS)
    assert mean_difference(small, large) < 6


def test_the_same_card_gives_the_same_pixels_and_the_key_follows_its_art(game):
    first, second = renderer(game), renderer(game)
    assert first.render("card:a").tobytes() == second.render("card:a").tobytes()
    key = first.key("card:a", "card")
    assert key == second.key("card:a", "card")
    assert renderer(game, card(title={"en": "Beta"})).key("card:a", "card") != key
    Image.new("RGB", (400, 300), RED).save(game / "art" / "a.png")
    changed = renderer(game)
    assert changed.key("card:a", "card") != key
    assert changed.render("card:a").getpixel((372, 400)) == RED


def test_layers_show_only_when_their_field_has_a_value_or_the_value_asked(game):
    def pixel(*xy, **values):
        return renderer(game, card(**values)).render("card:a").getpixel(xy)

    band = (372, round(51 / 88 * 1039))
    assert pixel(*band) == (0, 255, 0)
    assert pixel(*band, band="") == (0xf3, 0xea, 0xd6)               # no value: the band is not drawn
    art = (372, 400)
    assert pixel(*art) == BLUE
    assert pixel(*art, type="plain") == (0xf3, 0xea, 0xd6)           # unless type is "plain"


def test_an_icon_is_drawn_in_the_text_at_its_height_and_styles_use_their_fonts(game):
    plain = renderer(game, card(text="Deal two damage")).render("card:a")
    marked = renderer(game, card(text="Deal {icon:heart} damage")).render("card:a")
    box = (59, 638, 685, 898)
    assert red_pixels(marked.crop(box)) > 100 and red_pixels(plain.crop(box)) == 0
    with measure_text() as record:
        renderer(game, card(text="**Bold** and *italic*")).render("card:a")
    assert any(name == "rules" for name, *_ in record)


def test_rotated_text_is_turned_inside_its_layer(game):
    drawn = renderer(game, card(cost="123"))
    with measure_text() as record:
        image = drawn.render("card:a")
    (_, _, _, box, ink), = [entry for entry in record if entry[0] == "cost"]
    assert box[0] <= ink[0] and ink[2] <= box[2] and box[1] <= ink[1] and ink[3] <= box[3]
    assert ink[3] - ink[1] > 1.5 * (ink[2] - ink[0])      # a line of three digits, turned upright
    inked = [xy for xy in ((x, y) for x in range(box[0], box[2]) for y in range(box[1], box[3]))
             if image.getpixel(xy)[0] < 100]
    assert inked and all(ink[0] - 1 <= x <= ink[2] + 1 and ink[1] - 1 <= y <= ink[3] + 1 for x, y in inked)


# -- errors name the data -------------------------------------------------------------------------------------

def test_a_text_that_cannot_fit_names_the_cards_file_entry_and_field(game):
    drawn = renderer(game, card(text="word " * 400))
    with pytest.raises(DataError) as caught:
        drawn.render("card:a")
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("cards.csv", 'row "a"', "text")
    assert 'does not fit layer "rules"' in caught.value.message


def test_a_missing_glyph_names_the_character_and_the_field(game):
    with pytest.raises(DataError) as caught:
        renderer(game, card(title={"en": "Smile 漢", "uk": "Альфа"})).render("card:a")
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("cards.csv", 'row "a"', "title.en")
    assert "U+6F22" in caught.value.message


def test_a_language_the_card_has_no_text_in_is_named(game):
    with pytest.raises(DataError) as caught:
        renderer(game, card(title={"en": "Alpha", "uk": "Альфа"}), lang="ru").render("card:a")
    assert caught.value.field == "title.ru" and "no ru text" in caught.value.message


def test_a_field_no_card_has_is_a_layout_error_not_an_empty_text(game):
    values = card().values
    with pytest.raises(DataError) as caught:
        renderer(game, TemplateCard("card:a", "card", {k: v for k, v in values.items() if k != "cost"},
                                    "cards.csv", 'row "a"'))
    assert (caught.value.file, caught.value.field) == ("layouts.toml", "layers[5]")
    assert '"cost"' in caught.value.message


def test_an_image_path_outside_the_game_folder_is_refused(game):
    with pytest.raises(DataError) as caught:
        renderer(game, card(id="../../etc/passwd")).render("card:a")
    assert caught.value.field == "id" and "outside the game folder" in caught.value.message


def test_a_missing_icon_and_a_missing_art_file_are_named(game):
    with pytest.raises(DataError) as caught:
        renderer(game, card(text="Pay {icon:coin}")).render("card:a")
    assert caught.value.field == "text" and "icons/coin.png" in caught.value.message
    with pytest.raises(DataError) as caught:
        renderer(game, card(id="zzz")).render("card:a")
    assert caught.value.field == "id" and "art/zzz.png" in caught.value.message


def test_a_style_without_its_font_is_named(tmp_path):
    make_game(tmp_path, LAYOUTS.replace('bold_font = "DejaVuSans-Bold.ttf"\n', ""))
    with pytest.raises(DataError) as caught:
        renderer(tmp_path).render("card:a")
    assert caught.value.field == "text" and "bold_font" in caught.value.message


# -- markup ---------------------------------------------------------------------------------------------------

def test_markup_gives_runs_icons_and_breaks():
    assert richtext.parse_markup("Deal **2** {icon:fire}\n*now* \\*") == [
        richtext.Run("Deal "), richtext.Run("2", "bold"), richtext.Run(" "), richtext.Icon("fire"),
        richtext.BREAK, richtext.Run("now", "italic"), richtext.Run(" *")]
    for bad in ("**open", "*a **b** c*"):
        with pytest.raises(ValueError):
            richtext.parse_markup(bad)


# -- through the pipeline -------------------------------------------------------------------------------------

def test_a_template_deck_is_drawn_at_its_cells_size_and_packed(game, tmp_path):
    cards = [card(f"{n}", title={"en": f"Card {n}", "uk": f"Карта {n}"}) for n in range(5)]
    back = TemplateCard("back", "back", {}, "cards.csv", "back")
    drawn = renderer(game, *cards, back)
    art = render_art(drawn, tmp_path / "out", decks=[DeckPlan("cards", tuple(c.name for c in cards), "back")],
                     singles=[], thumbnail=ThumbnailPlan("back", lambda image: image), jobs=1)
    deck = art.decks["cards"]
    (sheet,) = deck.sheets
    cell = (sheet.cell_width, sheet.cell_height)
    assert abs(cell[0] / cell[1] - 744 / 1039) < 0.01
    with Image.open(sheet.path) as packed:
        first = packed.convert("RGB").crop((0, 0, *cell))
    expected = drawn.render("card:0", cell)       # drawn at the cell's size, not scaled into it
    assert mean_difference(first, expected) < 3


# -- the documented example -----------------------------------------------------------------------------------

def documented_template() -> str:
    page = (Path(__file__).resolve().parents[3] / "docs" / "data-format.md").read_text(encoding="utf-8")
    section = page.split("## Card templates (layers)", 1)[1]
    return section.split("```toml\n", 1)[1].split("```", 1)[0]


def test_the_documented_template_loads_and_draws_a_card_with_every_layer(tmp_path):
    make_game(tmp_path, documented_template())
    layouts = load_layouts(tmp_path / "layouts.toml", fonts_dir=FONTS)
    assert [layer.kind for layer in layouts.layouts["card"].template.layers] == \
        ["shape", "image", "text", "text", "text"]
    values = {"id": "a", "title": {"en": "Alpha"}, "text": "Deal **2** damage {icon:heart}, *then* draw.",
              "cost": 2}
    drawn = TemplateRenderer(layouts, [TemplateCard("card:a", "card", values, "cards.csv", "row 2")],
                             game_dir=tmp_path, bundled_fonts=FONTS, lang="en")
    with measure_text() as record:
        image = drawn.render("card:a", (372, 520))
    assert sorted(name for name, *_ in record) == ["cost", "rules", "title"]
    assert image.getpixel((186, 180)) == BLUE                 # the art, cropped into its box
    free = TemplateRenderer(layouts, [TemplateCard("card:a", "card", {**values, "cost": 0}, "cards.csv", "row 2")],
                            game_dir=tmp_path, bundled_fonts=FONTS, lang="en")
    with measure_text() as record:
        free.render("card:a", (372, 520))
    assert "cost" not in [name for name, *_ in record]        # unless cost is 0


# -- bleed for print ------------------------------------------------------------------------------------------

BLEED_LAYOUT = '''
[layouts.card]
units = "mm"
size_mm = [63, 88]

[[layouts.card.layers]]
image = "art/wide.png"

[[layouts.card.layers]]
shape = "rect"
outline = "#000000"
stroke = 1

[[layouts.card.layers]]
name = "title"
text = "{title}"
box = [5, 4, 53, 8]
size = [8, 14]
'''


def test_art_larger_than_the_card_gives_its_own_pixels_to_the_bleed(tmp_path):
    make_game(tmp_path, BLEED_LAYOUT)
    # cropped to the card's shape (scaled by 1.039, 147 px cut off each side), the art's blue sides fall outside
    # the card: grey from column 140 to 859, whose edges lie on the cut lines
    wide = Image.new("RGB", (1000, 1000), BLUE)
    ImageDraw.Draw(wide).rectangle((140, 0, 859, 999), fill=(128, 128, 128))
    wide.save(tmp_path / "art" / "wide.png")
    drawn = renderer(tmp_path, TemplateCard("card:a", "card", {"title": {"en": "Alpha"}}, "cards.csv", "row 2"))
    card = drawn.render("card:a", (744, 1039))
    bled = drawn.render("card:a", (744, 1039), bleed=35)
    assert bled.size == (744 + 70, 1039 + 70)
    assert mean_difference(bled.crop((35, 35, 35 + 744, 35 + 1039)), card) < 1      # the card itself unchanged
    assert card.getpixel((20, 500)) == (128, 128, 128)                              # grey inside the cut line …
    assert bled.getpixel((5, 500)) == BLUE                                          # … the art's blue past it
    # the art has no rows beyond the card's top and bottom: there the bleed is the card's edge, mirrored
    assert bled.getpixel((400, 5)) == card.getpixel((365, 29))
    assert bled.getpixel((35 + 2, 500)) == (0, 0, 0)                               # the outline stays on the card


def test_a_fill_reaching_the_edges_goes_on_square_past_them_and_the_card_is_unchanged(game):
    drawn = renderer(game)
    card = drawn.render("card:a", (744, 1039))
    bled = drawn.render("card:a", (744, 1039), bleed=20)
    assert mean_difference(bled.crop((20, 20, 764, 1059)), card) < 1
    # the paper fill reaches the edges and goes on past them, corners square; the frame's outline stays put
    assert bled.getpixel((3, 500)) == (0xf3, 0xea, 0xd6) and bled.getpixel((3, 3)) == (0xf3, 0xea, 0xd6)


def test_a_transparent_layout_is_cut_out_by_its_layers_and_keeps_their_colours(tmp_path):
    layouts = LAYOUTS + '''
[layouts.coin]
size = [200, 200]
transparent = true

[[layouts.coin.layers]]
shape = "ellipse"
fill = "#c8a040"
outline = "#202020"
stroke = 6
'''
    folder = make_game(tmp_path / "game", layouts)
    coin = TemplateCard("object:coin", "coin", {}, "table.toml", "objects[0]")
    image = renderer(folder, coin).render("object:coin")
    assert image.mode == "RGBA" and image.size == (200, 200)
    assert image.getpixel((2, 2))[3] == 0 and image.getpixel((197, 197))[3] == 0         # outside the round
    assert image.getpixel((100, 100)) == (0xc8, 0xa0, 0x40, 255)                         # its fill, opaque
    assert image.getpixel((100, 3))[:3] == (0x20, 0x20, 0x20) and image.getpixel((100, 3))[3] > 200   # outline
    rim = [image.getpixel((d, d))[3] for d in range(24, 36)]          # the diagonal crosses the rim near 29
    assert rim[0] == 0 and rim[-1] == 255 and any(0 < a < 255 for a in rim)   # smooth, not a jagged cut
    assert renderer(folder).render("card:a").mode == "RGB"           # a card stays an opaque RGB face


def test_a_tinted_image_is_drawn_in_the_colour_of_a_field_with_its_own_shape(tmp_path):
    layouts = LAYOUTS + '''
[layouts.chip]
size = [100, 100]

[[layouts.chip.layers]]
image = "icons/heart.png"
fit = "fit"
tint = "{colour}"
'''
    folder = make_game(tmp_path / "game", layouts)
    chips = [TemplateCard(f"chip:{c}", "chip", {"colour": c}, "chips.csv", f'row "{c}"') for c in ("#00ff00", "blue")]
    drawer = renderer(folder, *chips)
    green = drawer.render("chip:#00ff00")
    assert green.getpixel((50, 50)) == (0, 255, 0) and green.getpixel((2, 2)) == (255, 255, 255)   # a red disc
    with pytest.raises(DataError, match=r'row "blue": colour: "blue" is not "#rrggbb" .* \(layer "image-1" tint\)'):
        drawer.render("chip:blue")


# -- pictures a renderer paints -------------------------------------------------------------------------------

PICTURE_LAYOUT = '''
[colours]
ink = "#101010"

[layouts.back]
size = [200, 280]

[[layouts.back.layers]]
shape = "rect"
fill = "#ffffff"

[[layouts.back.layers]]
name = "pattern"
picture = "{pattern}"
box = [20, 40, 160, 100]
colours = ["ink", "{shades}"]

[[layouts.back.layers]]
name = "edge"
picture = "checks"
box = [0, 200, 200, 80]
colours = ["ink", "#ffffff"]
'''


def paint_checks(request):
    """A chequer of single pixels in the first two colours: any resampling of it would show as greys."""
    first, second = request.colours[:2]
    image = Image.new("RGBA", request.size, (*second, 255))
    draw = ImageDraw.Draw(image)
    for y in range(request.size[1]):
        for x in range(y % 2, request.size[0], 2):
            draw.point((x, y), fill=(*first, 255))
    return image


def paint_bands(request):
    """A band of each colour, side by side, on a clear ground; refuses a card whose field ``shades`` is empty."""
    from tools.render.templatedraw import PictureError

    if len(request.colours) < 2:
        raise PictureError("takes at least 2 colours", field="shades" if not request.fields["shades"] else None)
    w, h = request.size
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    step = w / len(request.colours)
    for i, colour in enumerate(request.colours):
        ImageDraw.Draw(image).rectangle((round(i * step), h // 4, round((i + 1) * step) - 1, h - h // 4 - 1),
                                        fill=(*colour, 255))
    return image


def picture_drawer(folder: Path, *cards: TemplateCard, pictures=None) -> TemplateRenderer:
    make_game(folder, PICTURE_LAYOUT)
    layouts = load_layouts(folder / "layouts.toml", fonts_dir=FONTS)
    return TemplateRenderer(layouts, list(cards), game_dir=folder, bundled_fonts=FONTS, lang="en",
                            pictures={"checks": paint_checks, "bands": paint_bands} if pictures is None else pictures)


def back(**values) -> TemplateCard:
    return TemplateCard("back", "back", {"pattern": "bands", "shades": ["#ff0000", "#0000ff"], **values},
                        "backs.csv", "row 2")


def test_a_picture_is_painted_at_its_layers_pixel_size_at_every_size_the_card_is_drawn_at(tmp_path):
    calls = []

    def recording(request):
        calls.append((request.size, request.colours, dict(request.fields), round(request.scale, 3)))
        return paint_checks(request)

    drawer = picture_drawer(tmp_path, back(), pictures={"checks": recording, "bands": paint_bands})
    for size, scale in (((200, 280), 1.0), ((500, 700), 2.5)):
        calls.clear()
        image = drawer.render("back", size)
        box = (0, round(200 * scale), size[0], size[1])
        # painted at the box's own pixel size, with the layer's colours and the card's fields
        assert calls == [((box[2] - box[0], box[3] - box[1]), ((16, 16, 16), (255, 255, 255)),
                          {"pattern": "bands", "shades": ["#ff0000", "#0000ff"]}, scale)]
        # and laid on the card as painted: every pixel of the chequer still pure ink or pure white, none resampled
        colours = {c for _, c in image.crop(box).getcolors(maxcolors=1 << 16)}
        assert colours == {(16, 16, 16), (255, 255, 255)}
        assert image.getpixel((box[0], box[1])) == (16, 16, 16) and image.getpixel((box[0] + 1, box[1])) == (255,) * 3
    # a field holding a list gives each of its colours, after the layer's own: ink, red, blue across the box
    image = drawer.render("back", (200, 280))
    assert [image.getpixel((x, 90)) for x in (40, 100, 160)] == [(16, 16, 16), (255, 0, 0), (0, 0, 255)]
    assert image.getpixel((100, 45)) == (255, 255, 255)      # the picture's clear ground shows the layer below


def test_a_picture_no_painter_has_is_named_with_its_file_entry_and_field(tmp_path):
    with pytest.raises(DataError, match=r'^layouts.toml: layout "back": layers\[2\].picture: no picture "checks": '
                                        r"the game's renderer paints bands"):
        picture_drawer(tmp_path / "a", back(), pictures={"bands": paint_bands})
    drawer = picture_drawer(tmp_path / "b", back(pattern="waves"))
    with pytest.raises(DataError, match=r'^backs.csv: row 2: pattern: no picture "waves": the game\'s renderer '
                                        r'paints bands, checks .*\(layer "pattern"\)'):
        drawer.render("back")
    # a painter's refusal is named too: the card's field it blames, else the layer's colours
    with pytest.raises(DataError, match=r'^backs.csv: row 2: shades: takes at least 2 colours \(layer "pattern"\)'):
        picture_drawer(tmp_path / "c", back(shades=[])).render("back")
    with pytest.raises(DataError, match=r'^backs.csv: row 2: shades\[1\]: "teal" is not "#rrggbb"'):
        picture_drawer(tmp_path / "d", back(shades=["#ff0000", "teal"])).render("back")


def test_the_key_of_a_card_follows_what_its_pictures_are_painted_from(tmp_path):
    from functools import partial

    def key(card=None, pictures=None):
        return picture_drawer(tmp_path, card or back(), pictures=pictures).card_key(card or back())

    first = key()
    assert key() == first                                                   # the same in every run
    assert key(back(shades=["#ff0000", "#00ff00"])) != first                # a colour it is handed
    assert key(back(pattern="checks")) != first                             # the picture a field names
    assert key(pictures={"checks": paint_bands, "bands": paint_bands}) != first                    # another painter
    bound = {"checks": partial(paint_checks), "bands": partial(paint_bands)}
    assert key(pictures=bound) == key(pictures={"checks": partial(paint_checks), "bands": partial(paint_bands)})


def test_a_picture_reaching_the_cards_edge_is_mirrored_past_it_for_print(tmp_path):
    drawer = picture_drawer(tmp_path, back())
    card = drawer.render("back", (200, 280))
    bled = drawer.render("back", (200, 280), bleed=6)
    assert bled.crop((6, 6, 206, 286)).tobytes() == card.tobytes()          # the card itself unchanged
    # below the cut line, the chequer's bottom rows mirrored (not the white fill grown past it)
    assert [bled.getpixel((6 + x, 286 + 1)) for x in range(4)] == [card.getpixel((x, 278)) for x in range(4)]


def test_missing_art_with_a_placeholder_is_a_stand_in_until_the_file_is_there(tmp_path):
    layouts = LAYOUTS.replace('fit = "crop"\n', 'fit = "crop"\nplaceholder = "#3070c0"\n', 1)
    folder = make_game(tmp_path / "game", layouts)
    missing = card("b", id="b")
    drawer = renderer(folder, missing)
    stand_in = drawer.render("card:b", (372, 520))
    r, g, b = stand_in.getpixel((186, 180))
    assert b > r and b > g and (r, g, b) != BLUE                     # the placeholder's blue, not art
    key = drawer.card_key(missing)
    Image.new("RGB", (400, 300), RED).save(folder / "art" / "b.png")
    assert drawer.card_key(missing) != key                           # drawn again once the art is there
    assert drawer.render("card:b", (372, 520)).getpixel((186, 180)) == RED
    with pytest.raises(DataError, match=r"art/c.png: no such file"):   # a layer without one still stops
        renderer(make_game(tmp_path / "plain"), card("c", id="c")).render("card:c")


def test_the_documented_picture_example_loads_and_draws(tmp_path):
    page = (Path(__file__).resolve().parents[3] / "docs" / "data-format.md").read_text(encoding="utf-8")
    example = page.split("## Card templates (layers)", 1)[1].split("```toml\n", 3)[2].split("```", 1)[0]
    make_game(tmp_path, example)
    layouts = load_layouts(tmp_path / "layouts.toml", fonts_dir=FONTS)
    with pytest.raises(DataError, match=r'layers\[1\].picture: no picture "hatching"'):
        TemplateRenderer(layouts, [], game_dir=tmp_path, bundled_fonts=FONTS, lang="en")
    sizes = []

    def hatching(request):
        from tools.render.draw import hatching as lines

        sizes.append(request.size)
        return lines(request.size, request.colours[1], step=request.size[0] / 8, width=3)

    drawer = TemplateRenderer(layouts, [TemplateCard("back", "back", {"ink": "#f0e0a0"}, "backs.csv", "row 2")],
                              game_dir=tmp_path, bundled_fonts=FONTS, lang="en", pictures={"hatching": hatching})
    image = drawer.render("back", (372, 520))
    assert sizes == [(372, 520)]
    assert (0xf0, 0xe0, 0xa0) in {c for _, c in image.getcolors(maxcolors=1 << 18)}   # the hatching's lines
    assert image.getpixel((186, 260))[2] < 180                       # the art's stand-in, not the violet fill


# -- fitting kept and reused ----------------------------------------------------------------------------------

def fit(text: str, box: tuple[int, int], sizes: tuple[int, int], design=None) -> richtext.FittedRich:
    return richtext.fit_rich(richtext.parse_markup(text), {"regular": str(FONTS / "DejaVuSans.ttf")}, sizes, box,
                             align="left", valign="top", line_spacing=1.15, icon_size=lambda name: (1, 1),
                             file="cards.csv", entry='row "a"', field="text", box_name="rules", design=design)


def test_a_text_drawn_at_another_size_keeps_the_lines_it_has_at_its_design_size():
    text = "Each player draws two cards, then passes one of them to the player on their left, face down."
    design = fit(text, (300, 200), (10, 30))
    changed = 0
    for factor in (0.37, 0.61, 0.93, 1.36, 2.0, 2.7):
        box, sizes = (round(300 * factor), round(200 * factor)), (int(10 * factor), round(30 * factor))
        kept = fit(text, box, sizes, design=((300, 200), (10, 30), factor))
        assert kept.breaks == design.breaks, factor
        assert round(design.size * factor) - kept.size in range(0, 5), factor   # at the size scaled, or a little less
        assert 0 <= kept.ink[0] and 0 <= kept.ink[1] and kept.ink[2] <= box[0] and kept.ink[3] <= box[1], factor
        changed += fit(text, box, sizes).breaks != design.breaks   # fitted afresh, the lines would change here
    assert changed >= 2
    # lines that cannot fit at the scaled size are fitted afresh: the box made narrower than the scaled text
    narrow = fit(text, (200, 400), (20, 60), design=((300, 200), (10, 30), 2.0))
    assert narrow.breaks != design.breaks and narrow.ink[2] <= 200


def test_a_text_recurring_card_after_card_is_fitted_once(game, tmp_path):
    title = f"Recurring {tmp_path.name}"   # a text no other test fits
    drawn = renderer(game, card("a", title=title), card("b", title=title, text="Other."))
    misses = richtext._best_rich.cache_info().misses
    drawn.render("card:a")
    after_first = richtext._best_rich.cache_info().misses
    drawn.render("card:b")   # the same title in the same layer: no new fitting for it (its rules text is new)
    assert after_first > misses and richtext._best_rich.cache_info().misses == after_first + 1
    first = drawn.render("card:a", (372, 520)).tobytes()
    assert drawn.render("card:a", (372, 520)).tobytes() == first == renderer(game, card("a", title=title)).render(
        "card:a", (372, 520)).tobytes()


def test_rectangles_filled_as_blocks_have_the_pixels_image_draw_gives_them(tmp_path):
    folder = make_game(tmp_path / "g", '''
[layouts.card]
size = [200, 150]

[[layouts.card.layers]]
shape = "rect"
fill = "#f0e0d0"
outline = "#000000"
stroke = 3

[[layouts.card.layers]]
shape = "rect"
box = [10, 10, 100, 80]
fill = "#112233"
outline = "#aa0000"
stroke = 6

[[layouts.card.layers]]
shape = "rect"
box = [120, 20, 60, 60]
outline = "#00aa00"
stroke = 40
''')
    layouts = load_layouts(folder / "layouts.toml", fonts_dir=FONTS)
    drawn = TemplateRenderer(layouts, [TemplateCard("c", "card", {}, "cards.csv", "row 1")], game_dir=folder,
                             bundled_fonts=FONTS, lang="en").render("c")
    expected = Image.new("RGB", (200, 150), (255, 255, 255))
    draw = ImageDraw.Draw(expected)
    draw.rectangle((0, 0, 199, 149), fill=(0xf0, 0xe0, 0xd0), outline=(0, 0, 0), width=3)
    draw.rectangle((10, 10, 109, 89), fill=(0x11, 0x22, 0x33), outline=(0xaa, 0, 0), width=6)
    draw.rectangle((120, 20, 179, 79), outline=(0, 0xaa, 0), width=40)
    assert drawn.tobytes() == expected.tobytes()


def test_a_rounded_rectangle_pasted_by_its_parts_has_the_pixels_of_its_whole_mask():
    """A rounded rectangle's straight parts are filled as blocks and only its corners pasted through its mask
    (templatedraw._paste_masked): the pixels must be those of the whole mask, fill and outline alike."""
    import random

    from tools.render import templatedraw as drawer

    rng = random.Random(7)
    for _ in range(150):
        size = (rng.randint(16, 320), rng.randint(16, 320))
        radius, stroke = rng.uniform(0, 40), rng.randint(1, 12)
        for band, mask in ((None, drawer._shape_mask("rect", size, radius, 0)),
                           (stroke, drawer._ring_mask("rect", size, radius, stroke))):
            whole = Image.new("RGB", (size[0] + 20, size[1] + 20), (10, 200, 30))
            parts = whole.copy()
            rect = (10, 10, 10 + size[0], 10 + size[1])
            whole.paste((200, 50, 90), rect, mask)
            drawer._paste_masked(parts, (200, 50, 90), rect, mask,
                                 drawer._corner("rect", radius, band or 0, size), band)
            assert ImageChops.difference(whole, parts).getbbox() is None, (size, radius, stroke, band)
