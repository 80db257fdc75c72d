"""15 Days card faces, backs, boards and tokens, drawn from the game records and ``layouts.toml``.

Everything is drawn (no art files): a season card shows its value in both upper corners (so it stays readable
when cards overlap on a board or in the market), its season's name and emblem in the season's colour, and its
title in the build language; each back season (summer, autumn, winter) has its own back in its colour; the wild
card, feathers, animals (their colour and their season's emblem), the player boards (four corners of card places,
each with its direction as an arrow: up ascending, down descending) and the overview cards.

Images (:class:`Renderer.items`), all through :func:`tools.render.pipeline.render_art`:

- decks ``seasons-<back>`` for each back season: the faces of the cards with that back, in data order, packed
  with the back ``season-back:<back>`` (so a card's ``CustomDeck`` carries its own back); ``wilds``: the wild cards
  with ``wild-back``;
- singles ``feather:<id>``, ``animal:<id>``, ``board:<id>``, ``overview:<id>``, and the thumbnail.

Cache keys hash what affects the pixels (not the record id), so identical copies share one cached image.
Every text is checked against its font before anything is drawn (a missing glyph or a text that cannot fit is a
:class:`DataError` naming file, entry and field).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterator, Mapping

from PIL import Image, ImageDraw

from bridge.catalog import resolve_game_dir
from bridge.errors import DataError, InputError
from bridge.paths import assets_dir
from bridge.rules.fifteen_days.records import ASC, BACK_SEASONS, FifteenDaysData
from bridge.rules.game import LANGUAGES
from tools.games.fifteen_days import geometry
from tools.render.colour import to_hex
from tools.render.draw import SUPERSAMPLE, composite_icon, contrast, cover_fit, hatching, mix, star_icon
from tools.render.layout import Box, CardLayout, Layouts, load_layouts, parse_colour
from tools.render.pipeline import Art, DeckPlan, Progress, ThumbnailPlan, check_image_options, render_art
from tools.render.sizing import DrawsAtSize
from tools.render.templatedraw import PictureError, PictureRequest, TemplateCard, TemplateRenderer
from tools.render.text import check_glyphs, draw_text, fit_text

RENDERER_VERSION = "3"
"""Bump when a drawing change must invalidate every cached image."""

LAYOUTS_FILE = "layouts.toml"
THUMBNAIL_SIZE = 256

TEMPLATE_KINDS = ("season", "season_back", "wild", "wild_back", "feather", "animal", "overview")
"""Layouts drawn from their layers in layouts.toml (tools.render.template), with fields this renderer gives and
the pictures it paints (:data:`PICTURES`: the backs' hatching and chequer of stars, the wild's dots in the
seasons' colours, the feather); the overview's rows are a repeat group over its ``animals``. One kind stays drawn
here, because its places are not the layout's to choose: the board (its corners' card places are table geometry,
:mod:`tools.games.fifteen_days.geometry`, one per value of the rules, which the table's snap points are computed
from too, and its token places one per animal and feather)."""

EMBLEMS_DIR = "icons"
FALLBACK_EMBLEM = "season"
"""A season's emblem is the picture ``icons/<season id>.png`` of the game folder, drawn in the colour it is
printed in (its transparency is its shape); a season with no picture of its own gets ``icons/season.png``."""

REQUIRED_BOXES: Mapping[str, Mapping[str, bool]] = {
    "board": {**{f"corner_{k}": False for k in range(4)}, **{f"arrow_{k}": False for k in range(4)},
              **{f"label_{k}": True for k in range(4)}, "name": True, "animals": True, "feathers": True},
}
"""Image kind → its boxes (``True``: a text box) that ``layouts.toml`` must define."""

REQUIRED_STRINGS = ("ascending", "descending", "card_back", "animals", "feathers")
REQUIRED_COLOURS = ("background", "ink", "frame", "back_ink", "wild", "feather", "slot")


@dataclass(frozen=True)
class _Text:
    """A text with the place in the data it comes from (for error messages)."""

    text: str
    file: str
    entry: str | None
    field: str | None


def load_fifteen_days_layouts(game_dir: Path) -> Layouts:
    """Read and validate ``game_dir/layouts.toml`` against what this renderer draws; the board's corner boxes
    must be tall and wide enough for a card (:mod:`tools.games.fifteen_days.geometry`)."""
    layouts = load_layouts(Path(game_dir) / LAYOUTS_FILE, fonts_dir=assets_dir() / "fonts", required=REQUIRED_BOXES,
                           required_strings=REQUIRED_STRINGS, required_colours=REQUIRED_COLOURS)
    for kind in TEMPLATE_KINDS:
        if kind not in layouts.layouts or layouts.layouts[kind].template is None:
            raise DataError(LAYOUTS_FILE, f'layout "{kind}"', "layers",
                            "missing: this layout is drawn from its layers (docs/data-format.md, Card templates)")
    board = layouts.layouts["board"]
    card_w, card_h = geometry.card_size_pixels(board)
    for k in range(4):
        box = board.box(f"corner_{k}")
        if box.width < card_w or box.height < card_h:
            raise DataError(LAYOUTS_FILE, 'layout "board"', f"boxes.corner_{k}.box",
                            f"{box.width}x{box.height} px cannot hold a card of {card_w:.0f}x{card_h:.0f} px")
    return layouts


class Renderer(DrawsAtSize):
    """Draws one image at a time from the records, at any size (:class:`DrawsAtSize`); holds no files open and
    writes nothing (picklable)."""

    BODY_BOXES = {"season": ("title", "season"), "wild": ("text",)}
    """The boxes of each deck face's body text: a season card's title and season name, a wild's text."""

    def __init__(self, data: FifteenDaysData, layouts: Layouts, fonts_dir: Path, lang: str,
                 game_dir: Path | None = None):
        self.data = data
        self.layouts = layouts
        self.fonts_dir = fonts_dir
        self.lang = lang
        self.colours = layouts.colours
        self.game_dir = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)

    # -- naming and keys ---------------------------------------------------------------------------------

    def items(self) -> list[tuple[str, str]]:
        """Every image to render as ``(name, layout kind)``, in a stable order."""
        d = self.data
        out = [(f"season:{c.id}", "season") for c in d.cards]
        out += [(f"season-back:{b}", "season_back") for b in BACK_SEASONS]
        out += [(f"wild:{w.id}", "wild") for w in d.wilds] + [("wild-back", "wild_back")]
        out += [(f"feather:{f.id}", "feather") for f in d.feathers]
        out += [(f"animal:{a.id}", "animal") for a in d.animals]
        out += [(f"board:{b.id}", "board") for b in d.boards]
        out += [(f"overview:{o.id}", "overview") for o in d.overviews]
        return out

    def _content(self, name: str) -> object:
        """What image ``name`` shows, without ids where copies look alike (they then share a cache entry)."""
        d = self.data
        head, _, ident = name.partition(":")
        if head == "board":
            return (d.board_by_id[ident], d.rules.values, d.animals, len(d.feathers))
        return d.info.name

    @cached_property
    def _font_hashes(self) -> Mapping[str, str]:
        fonts = {b.font for lay in self.layouts.layouts.values() for b in lay.boxes.values() if b.font}
        return {f: hashlib.sha256((self.fonts_dir / f).read_bytes()).hexdigest() for f in sorted(fonts)}

    def key(self, name: str, kind: str) -> str:
        """The cache key of image ``name``: a hash of everything that affects its pixels (for a kind drawn from
        its layers, the template drawer's key of its card: layout, fields, language and every file it draws)."""
        if kind in TEMPLATE_KINDS:
            digest = hashlib.sha256(f"{RENDERER_VERSION}\0{self._layers.card_key(self._card(name))}".encode())
            return digest.hexdigest()
        layout = self.layouts.layouts[kind]
        fonts = sorted({b.font for b in layout.boxes.values() if b.font})
        digest = hashlib.sha256()
        for part in (RENDERER_VERSION, self.lang, kind, layout.fingerprint(), self.layouts.fingerprint(),
                     *(self._font_hashes[f] for f in fonts), repr(self._content(name))):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()

    # -- texts -------------------------------------------------------------------------------------------

    def string(self, key: str) -> _Text:
        return _Text(self.layouts.string(key, self.lang), LAYOUTS_FILE, f'string "{key}"', self.lang)

    def season_name(self, season: str) -> _Text:
        return _Text(self.data.season_by_id[season].name.get(self.lang), "game.toml", f"seasons.{season}",
                     f"name.{self.lang}")

    def texts(self) -> Iterator[tuple[_Text, Box]]:
        """Every text drawn, with the box it is drawn in (for the checks before rendering)."""
        d, L, lang = self.data, self.layouts.layouts, self.lang
        board = L["board"]
        for spec in d.boards:
            yield _Text(spec.name.get(lang), "components.toml", f'board "{spec.id}"', f"name.{lang}"), board.box("name")
        for k in range(4):
            for word in ("ascending", "descending"):
                yield self.string(word), board.box(f"label_{k}")
        yield self.string("animals"), self._label_box(board.box("animals"))
        yield self.string("feathers"), self._label_box(board.box("feathers"))

    def check_texts(self) -> None:
        """Raise :class:`DataError` for a text the font cannot draw or that cannot fit its box (on the kinds drawn
        from layers, :data:`TEMPLATE_KINDS`, a character the font cannot draw: a text that does not fit is named
        when its card is drawn)."""
        for name, kind in self.items():
            if kind in TEMPLATE_KINDS:
                self._layers.check_glyphs(self._card(name))
        seen: set[tuple[str, str]] = set()
        for text, box in self.texts():
            if (text.text, repr(box)) in seen:
                continue
            seen.add((text.text, repr(box)))
            check_glyphs(text.text, self.fonts_dir / (box.font or ""), file=text.file, entry=text.entry,
                         field=text.field)
            fit_text(text.text, box, self.fonts_dir, file=text.file, entry=text.entry, field=text.field)

    def _label_box(self, box: Box) -> Box:
        height = self.px(geometry.LABEL_HEIGHT)
        return Box(box.name, box.x, box.y, box.width, height, box.font, box.size_min,
                   min(box.size_max, height), box.align, "middle", box.colour)

    # -- drawing -----------------------------------------------------------------------------------------

    def draw(self, name: str) -> Image.Image:
        """The RGB image called ``name`` (one of :meth:`items`) at the layouts' scale."""
        head, _, ident = name.partition(":")
        d = self.data
        if head == "season":
            return self.season_card(ident)
        if head in ("season-back", "wild", "wild-back", "feather", "animal", "overview"):
            return self._from_layers(self._card(name))
        if head == "board":
            return self.board(ident)
        raise DataError("render", None, None, f'no image called "{name}"')

    def _text(self, draw: ImageDraw.ImageDraw, text: _Text, box: Box, colour=None) -> None:
        draw_text(draw, text.text, box, self.fonts_dir, file=text.file, entry=text.entry, field=text.field,
                  colour=colour)

    def _base(self, layout: CardLayout, fill, outline) -> tuple[Image.Image, ImageDraw.ImageDraw]:
        image = Image.new("RGB", (layout.width, layout.height), fill)
        draw = ImageDraw.Draw(image)
        frame = layout.params.get("frame", 0)
        if frame:
            draw.rectangle((0, 0, layout.width - 1, layout.height - 1), outline=outline, width=frame)
        return image, draw

    def season_colour(self, season: str) -> tuple[int, int, int]:
        return parse_colour(self.data.season_by_id[season].colour)

    def season_card(self, card_id: str) -> Image.Image:
        """A season card, drawn from the layers of its layout with the card's fields and its season's."""
        return self._from_layers(self._card(f"season:{card_id}"))

    def season_back(self, back: str) -> Image.Image:
        """The back of the cards with back season ``back``, drawn from the layers of its layout."""
        return self._from_layers(self._card(f"season-back:{back}"))

    def _card(self, name: str) -> TemplateCard:
        """Image ``name`` of a kind drawn from its layers (:data:`TEMPLATE_KINDS`) as a card of its layout with the
        fields the layout reads: the data's, and what this renderer adds (colours mixed from the season's or the
        animal's, the emblem's file). No id among them: copies that look alike share one cached image."""
        head, _, ident = name.partition(":")
        d = self.data
        if head == "season":
            card = d.card_by_id[ident]
            season = d.season_by_id[card.season]
            colour = parse_colour(season.colour)
            values = {"value": card.value, "title": card.title.to_json(), "season": season.name.to_json(),
                      "colour": season.colour, "tint": to_hex(mix(colour, self.colours["background"], 0.72)),
                      "strip_ink": to_hex(contrast(colour)), "emblem": self._emblem_name(card.season)}
            return TemplateCard(name, "season", values, "cards.toml", f'card "{card.id}"')
        if head == "animal":
            animal = d.animal_by_id[ident]
            values = {"name": animal.name.to_json(), "colour": animal.colour,
                      "ink": to_hex(contrast(parse_colour(animal.colour))), "emblem": self._emblem_name(animal.season)}
            return TemplateCard(name, "animal", values, "components.toml", f'animal "{animal.id}"')
        if head == "season-back":
            colour = self.season_colour(ident)
            dark = mix(colour, (0, 0, 0), 0.35)
            values = {"game": d.info.name.to_json(), "season": d.season_by_id[ident].name.to_json(),
                      "dark": to_hex(dark), "hatch": to_hex(mix(dark, colour, 0.45)),
                      "emblem": self._emblem_name(ident)}
            return TemplateCard(name, "season_back", values, "game.toml", f"seasons.{ident}")
        if head == "wild":
            wild = next(w for w in d.wilds if w.id == ident)
            values = {"title": wild.title.to_json(), "text": wild.text.to_json(),
                      "season_colours": [season.colour for season in d.seasons]}
            return TemplateCard(name, "wild", values, "components.toml", "wild")
        if head == "wild-back":
            back = mix(self.colours["wild"], (0, 0, 0), 0.3)
            values = {"title": d.wilds[0].title.to_json(), "back": to_hex(back),
                      "star": to_hex(mix(back, (255, 255, 255), 0.2))}
            return TemplateCard(name, "wild_back", values, "components.toml", "wild")
        if head == "feather":
            return TemplateCard(name, "feather", {}, "components.toml", f'feather "{ident}"')
        if head == "overview":
            overview = next(o for o in d.overviews if o.id == ident)
            # every animal of the data, a row each (an overview shows them all, in data order)
            animals = [{"name": a.name.to_json(), "power_text": a.power_text.to_json(), "colour": a.colour,
                        "ink": to_hex(contrast(parse_colour(a.colour))), "emblem": self._emblem_name(a.season)}
                       for a in d.animals]
            values = {"title": overview.title.to_json(), "text": overview.text.to_json(), "animals": animals}
            origins = {f"animals.{n}": ("components.toml", f'animal "{a.id}"') for n, a in enumerate(d.animals, 1)}
            return TemplateCard(name, "overview", values, "components.toml", f'overview "{overview.id}"', origins)
        raise DataError("render", None, None, f'"{name}" is not drawn from layers')

    @cached_property
    def _layers(self) -> TemplateRenderer:
        """The drawer of the layouts with layers (it keeps no card: each is handed to it)."""
        return TemplateRenderer(self.layouts, [], game_dir=self.game_dir, bundled_fonts=self.fonts_dir,
                                lang=self.lang, pictures=PICTURES)

    def _from_layers(self, card: TemplateCard) -> Image.Image:
        """``card`` drawn from its layout's layers at this renderer's size of that layout."""
        layout = self.layouts.layouts[card.kind]
        return self._layers.draw(card, layout.template, (layout.width, layout.height))

    # -- emblems -------------------------------------------------------------------------------------------

    def _emblem_name(self, season: str) -> str:
        """The emblem picture of ``season``, relative to the game folder (:data:`FALLBACK_EMBLEM`)."""
        return self._emblem_files[season].relative_to(self.game_dir).as_posix()

    @cached_property
    def _emblem_files(self) -> Mapping[str, Path]:
        found: dict[str, Path] = {}
        for season in self.data.seasons:
            for stem in (season.id, FALLBACK_EMBLEM):
                path = self.game_dir / EMBLEMS_DIR / f"{stem}.png"
                if path.is_file():
                    found[season.id] = path
                    break
            else:
                raise DataError("game.toml", f"seasons.{season.id}", None,
                                f"has no emblem: neither {EMBLEMS_DIR}/{season.id}.png nor "
                                f"{EMBLEMS_DIR}/{FALLBACK_EMBLEM}.png is in the game folder")
        return found

    def board(self, board_id: str) -> Image.Image:
        spec = self.data.board_by_id[board_id]
        layout = self.layouts.layouts["board"]
        paper, ink, frame = self.colours["background"], self.colours["ink"], self.colours["frame"]
        image, draw = self._base(layout, paper, frame)
        values = self.data.rules.values
        card_w, card_h = geometry.card_size_pixels(layout)
        slot = self.colours["slot"]
        value_box_h = max(self.px(40), round(card_h * 0.3))
        for k, direction in enumerate(spec.corners):
            for value, (x, y) in zip(values, geometry.corner_card_centres(layout, k, len(values))):
                rect = (x - card_w / 2, y - card_h / 2, x + card_w / 2, y + card_h / 2)
                draw.rounded_rectangle(rect, radius=round(card_w / 12), fill=slot, outline=frame, width=self.px(3))
                number = Box("value", round(rect[0]) + self.px(6), round(rect[1]) + self.px(6), round(card_w * 0.45),
                             value_box_h, "DejaVuSerif-Bold.ttf", self.px(12), value_box_h, "center", "middle", frame)
                draw_text(draw, str(value), number, self.fonts_dir, file="game.toml", entry="rules", field="values")
            self._arrow(image, layout.box(f"arrow_{k}"), direction == ASC, frame)
            word = "ascending" if direction == ASC else "descending"
            self._text(draw, self.string(word), layout.box(f"label_{k}"), ink)
        self._text(draw, _Text(spec.name.get(self.lang), "components.toml", f'board "{spec.id}"',
                               f"name.{self.lang}"), layout.box("name"))
        diameter = geometry.token_diameter_pixels(layout)
        for key, count, fill in (("animals", len(self.data.animals), None),
                                 ("feathers", len(self.data.feathers), self.colours["feather"])):
            box = layout.box(key)
            self._text(draw, self.string(key), self._label_box(box))
            for i, (x, y) in enumerate(geometry.token_centres(box, count)):
                colour = fill if fill is not None else parse_colour(self.data.animals[i].colour)
                r = diameter / 2
                draw.ellipse((x - r, y - r, x + r, y + r), fill=mix(colour, paper, 0.6), outline=frame,
                             width=self.px(3))
        return image

    def _arrow(self, image: Image.Image, box: Box, up: bool, colour) -> None:
        """An arrow filling ``box``: pointing up for an ascending corner, down for a descending one."""
        s = SUPERSAMPLE
        layer = Image.new("RGBA", (box.width * s, box.height * s), (0, 0, 0, 0))
        draw = ImageDraw.Draw(layer)
        w, h = layer.size
        shaft = w * 0.18
        head = min(h * 0.3, w * 0.9)
        if up:
            draw.polygon([(w / 2, 0), (w * 0.95, head), (w * 0.05, head)], fill=colour)
            draw.rectangle((w / 2 - shaft, head - 1, w / 2 + shaft, h), fill=colour)
        else:
            draw.polygon([(w / 2, h), (w * 0.95, h - head), (w * 0.05, h - head)], fill=colour)
            draw.rectangle((w / 2 - shaft, 0, w / 2 + shaft, h - head + 1), fill=colour)
        layer = layer.resize((box.width, box.height), Image.Resampling.LANCZOS)
        image.paste(layer, (box.x, box.y), layer)


# -- pictures drawn in code ---------------------------------------------------------------------------

def _colours(request: PictureRequest, least: int, most: int | None = None) -> tuple[tuple[int, int, int], ...]:
    """The request's colours, refused when there are fewer than ``least`` or more than ``most``."""
    count = len(request.colours)
    if count < least or (most is not None and count > most):
        wanted = f"{least}" if most == least else f"at least {least}" if most is None else f"{least} to {most}"
        raise PictureError(f"takes {wanted} colours, not {count}")
    return request.colours


def paint_hatching(request: PictureRequest) -> Image.Image:
    """The backs' hatching: lines in its one colour, a twelfth of the box's smaller side apart."""
    (colour,) = _colours(request, 1, 1)
    step = min(request.size) / 12
    return hatching(request.size, colour, step, max(1, round(step / 6)))


def paint_wild(request: PictureRequest) -> Image.Image:
    """The wild's emblem, centred in its box: a star in the first colour amid a dot of each other colour (the
    seasons': a wild stands for a value of any season), the dots a quarter turn apart from the lower right."""
    star, *dots = _colours(request, 2)
    w, h = request.size
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    size = min(w, h)
    cx, cy = w / 2, h / 2
    r, dot = size * 0.36, size * 0.14
    for i, colour in enumerate(dots):
        angle = math.pi / 4 + i * 2 * math.pi / len(dots)
        x, y = cx + r * math.cos(angle), cy + r * math.sin(angle)
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=(*colour, 255))
    composite_icon(image, star_icon(star, round(size * 0.6)), (cx, cy))
    return image


def paint_star_chequer(request: PictureRequest) -> Image.Image:
    """A star of its one colour in every other square of a fifth of the box's smaller side (the wilds' back)."""
    (colour,) = _colours(request, 1, 1)
    w, h = request.size
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    size = max(2, min(w, h) // 5)
    star = star_icon(colour, size // 2)
    for row in range(h // size + 1):
        for col in range(w // size + 1):
            if (row + col) % 2 == 0:
                composite_icon(image, star, (col * size + size / 2, row * size + size / 2))
    return image


def paint_feather(request: PictureRequest) -> Image.Image:
    """A feather in its one colour, centred in its box (:func:`feather_icon`)."""
    (colour,) = _colours(request, 1, 1)
    image = Image.new("RGBA", request.size, (0, 0, 0, 0))
    composite_icon(image, feather_icon(colour, min(request.size)), (request.size[0] / 2, request.size[1] / 2))
    return image


PICTURES = {"hatching": paint_hatching, "wild": paint_wild, "star_chequer": paint_star_chequer,
            "feather": paint_feather}
"""The pictures the layouts' picture layers name (tools.render.templatedraw.PictureRequest): what a layer cannot
draw, painted at each size a card is drawn at from the layer's colours."""


def feather_icon(colour: tuple[int, int, int], size: int) -> Image.Image:
    """A feather (vane and quill) in ``colour``, lying diagonally on a transparent square (RGBA)."""
    s = size * SUPERSAMPLE
    layer = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    fill = tuple(colour) + (255,)
    draw.ellipse((s * 0.36, s * 0.04, s * 0.64, s * 0.8), fill=fill)
    draw.line([(s / 2, s * 0.1), (s / 2, s * 0.97)], fill=(255, 255, 255, 255), width=round(s * 0.025))
    for i in range(1, 8):
        y = s * (0.12 + i * 0.08)
        draw.line([(s / 2, y), (s * 0.37, y - s * 0.06)], fill=(255, 255, 255, 160), width=round(s * 0.01))
        draw.line([(s / 2, y), (s * 0.63, y - s * 0.06)], fill=(255, 255, 255, 160), width=round(s * 0.01))
    layer = layer.rotate(-35, resample=Image.Resampling.BICUBIC)
    return layer.resize((size, size), Image.Resampling.LANCZOS)


# -- the build ------------------------------------------------------------------------------------------

def deck_plans(data: FifteenDaysData) -> list[DeckPlan]:
    """One deck per back season (its cards' faces in data order, its back) and the wild deck."""
    plans = [DeckPlan(f"seasons-{back}", tuple(f"season:{c.id}" for c in data.cards_with_back(back)),
                      f"season-back:{back}") for back in BACK_SEASONS]
    plans.append(DeckPlan("wilds", tuple(f"wild:{w.id}" for w in data.wilds), "wild-back"))
    return plans


def render_game(data: FifteenDaysData, out_dir: Path, *, lang: str = "en", fmt: str = "jpg", quality: int = 90,
                use_cache: bool = True, jobs: int | None = None, progress: Progress | None = None,
                game_dir: Path | None = None, prune: bool = True) -> Art:
    """Render and pack every 15 Days image into ``out_dir/sheets/`` (see the module docstring).

    ``game_dir`` holds ``layouts.toml`` (default: the built-in game's folder).  Raises :class:`DataError` for bad
    layouts, missing glyphs and texts that cannot fit; :class:`InputError` for a bad ``lang``, ``fmt`` or
    ``quality``.
    """
    if lang not in LANGUAGES:
        raise InputError(f'language must be one of {", ".join(LANGUAGES)}, not "{lang}"')
    check_image_options(fmt, quality)
    game_dir = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)
    layouts = load_fifteen_days_layouts(game_dir)
    renderer = Renderer(data, layouts, assets_dir() / "fonts", lang, game_dir)
    renderer.check_texts()
    names = [name for name, _ in renderer.items()]
    singles = [n for n in names if n.split(":")[0] in ("feather", "animal", "board", "overview")]
    first_board = f"board:{data.boards[0].id}"
    return render_art(renderer, out_dir, decks=deck_plans(data), singles=singles,
                      thumbnail=ThumbnailPlan(first_board, _thumbnail), fmt=fmt, quality=quality,
                      use_cache=use_cache, jobs=jobs, progress=progress, prune=prune)


def _thumbnail(board: Image.Image) -> Image.Image:
    """The save's 256×256 preview: a player board, cover-fitted."""
    return cover_fit(board, (THUMBNAIL_SIZE, THUMBNAIL_SIZE))
