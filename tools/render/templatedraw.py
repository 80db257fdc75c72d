"""Drawing card templates (:mod:`tools.render.template`) at any size: the renderer of a game drawn from data.

:class:`TemplateRenderer` is a :class:`tools.render.pipeline.FaceRenderer` that draws at any size: given the
cards (:class:`TemplateCard`: an image name, its layout kind, its field values and where they came from) and the
game's layouts, it draws each card from its layout's layers at the size each output asks — its sheet cell, its
print face — with every length scaled from the template's units, text fitted at that size
(:mod:`tools.render.richtext`) and art resampled once, from its file to its box. Paths named by the data are
looked up inside the game folder only (``bridge.catalog.asset_path``); icons come from its ``icons/``, fonts
from its ``fonts/`` (else ttsmod's). A bad value raises :class:`bridge.errors.DataError` naming the card's data
file, its entry and the field.

A picture layer (``picture = "name"``) is painted in code: a game's renderer hands the drawer its painters by
name (``pictures``), and each is called with a :class:`PictureRequest` — the layer's box in pixels at the size
being drawn, its colours, the card's fields — for every size a card is drawn at, so a picture is as sharp on a
print page as on a sheet cell and nothing of it is resampled. What the templates cannot express (a pattern, an
emblem drawn in the data's colours, a row of as many stars as a card has) is such a painter; the frames, fills,
texts and places around it stay layers.
"""

from __future__ import annotations

import hashlib
import math
import json
import os
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from PIL import Image, ImageChops, ImageDraw, ImageOps

from bridge.catalog import asset_path
from bridge.errors import DataError
from bridge.rules.game import LANGUAGES
from tools.imageio import ImageError, open_image, to_rgb
from tools.render import richtext
from tools.render.colour import is_colour, parse_colour
from tools.render.draw import mirror_pad, paste_placeholder
from tools.render.layout import Layouts
from tools.render.template import FIELD, MAX_ITEMS, Condition, Layer, Repeat, Template, expand, item_count

SUPERSAMPLE = 4
"""Rounded and round shapes are drawn at this many times their size and scaled down: smooth edges."""
ICON_SUFFIXES = (".png", ".webp", ".jpg", ".jpeg")


@dataclass(frozen=True)
class TemplateCard:
    """One image to draw from a template: ``name`` (unique), ``kind`` (its layout), its field values, and the
    data file and entry they came from (for errors)."""

    name: str
    kind: str
    values: Mapping[str, Any]
    file: str
    entry: str
    origins: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Where a field (or an item of a list field) came from, when not from the card's own entry: a path →
    ``(file, entry)`` or ``(file, entry, field)``. An error about that path or a field inside it then names that
    file and entry, and the field there: ``"animals.2"`` → ``("components.toml", 'animal "fox"')`` turns an error
    about ``animals.2.power.en`` into one about ``power.en`` of that animal; ``"title"`` → ``("layouts.toml",
    'string "scoring"', "en")`` one about the title into one about that string's ``en``."""

    def placed(self, error: DataError) -> DataError:
        """``error`` about one of this card's fields, told where the field came from (:attr:`origins`)."""
        if not self.origins or (error.file, error.entry) != (self.file, self.entry) or not error.field:
            return error
        head, rest = error.field, ""
        while True:
            origin = self.origins.get(head)
            if origin is not None:
                field_name = ".".join(part for part in (*origin[2:3], rest) if part) or None
                return DataError(origin[0], origin[1], field_name, error.message)
            if "." not in head:
                return error
            head, tail = head.rsplit(".", 1)
            rest = f"{tail}.{rest}" if rest else tail


@dataclass(frozen=True)
class PictureRequest:
    """What a painter paints from: ``size`` (the layer's box in pixels at the size the card is drawn at), the
    layer's ``colours`` resolved in order (a ``{field}`` holding a list gives each of its colours), the card's
    ``fields`` as its data gives them (a language table whole: :func:`lookup` with ``lang`` reduces it), and
    ``scale``, the pixels per unit of the template at this size. A painter paints from these alone: the card's
    cache key (:meth:`TemplateRenderer.card_key`) hashes them, so whatever else a picture showed would not
    draw it again when it changed."""

    size: tuple[int, int]
    colours: tuple[tuple[int, int, int], ...]
    fields: Mapping[str, Any]
    lang: str
    scale: float


Painter = Callable[[PictureRequest], Image.Image]
"""A picture's painter: an RGBA image of exactly ``request.size`` (its transparency shows the layers below).
A module-level function or a :func:`functools.partial` of one, so the renderer holding it can be pickled."""


class PictureError(ValueError):
    """A painter's refusal of what a layer or card gives it (too few colours, a field it cannot read): reported as a
    :class:`DataError` naming the card's ``field`` when given, else the layer's ``colours`` in the layouts file."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


_MISSING = object()


_PLAIN = frozenset({list, str, int, float, bool, tuple, type(None)})


def _is_mapping(value: Any) -> bool:
    # a dict, and the plain values, answered without the ABC's check: a template reads fields of every card, card
    # after card (and a repeat group's items, in lists)
    kind = type(value)
    if kind is dict:
        return True
    return kind not in _PLAIN and isinstance(value, Mapping)


_LANGUAGES = frozenset(LANGUAGES)


def lookup(values: Mapping[str, Any], path: str, lang: str) -> Any:
    """The value at dotted ``path`` (``title``, ``cost.gold``), a language table reduced to ``lang``'s text;
    None when absent."""
    value = values.get(path) if "." not in path and type(values) is dict else _raw(values, path)
    if _is_mapping(value) and value and _LANGUAGES.issuperset(value):
        return value.get(lang, _MISSING)
    return value


def _raw(values: Any, path: str) -> Any:
    """The value at dotted ``path`` as the data gives it (a language table whole); None when absent."""
    value: Any = values
    keys = _PATHS.get(path)
    if keys is None:
        keys = tuple((key, int(key) if key.isdigit() else None) for key in path.split("."))
        if len(_PATHS) < 1 << 16:
            _PATHS[path] = keys
    for key, number in keys:
        kind = type(value)
        if kind is list:
            if number is None or not 1 <= number <= len(value):
                return None
            value = value[number - 1]
        elif (kind is dict or (kind not in _PLAIN and isinstance(value, Mapping))) and key in value:
            value = value[key]
        else:
            return None
    return value


_PATHS: dict[str, tuple[tuple[str, int | None], ...]] = {}
"""A dotted path → its keys, each with its number when it is one (an item of a list): split once."""


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_text(value: Any) -> str:
    """A field value as it is printed: text as it is, numbers as written, booleans ``true``/``false``, a list
    of plain values joined with ", ", nothing for None."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(as_text(v) for v in value)
    return str(value)


class TemplateRenderer:
    """Draws ``cards`` from the templates of ``layouts`` (each card's kind must be a layout with layers)."""

    def __init__(self, layouts: Layouts, cards: Sequence[TemplateCard], *, game_dir: Path, bundled_fonts: Path,
                 lang: str, max_pixels: int | None = None, pictures: Mapping[str, Painter] | None = None) -> None:
        """``pictures``: the painters of the picture layers by name (none: a layout with a picture layer naming
        one is a :class:`DataError`)."""
        self.layouts = layouts
        self.pictures: dict[str, Painter] = dict(pictures or {})
        self.cards: dict[str, TemplateCard] = {}
        for card in cards:
            if card.name in self.cards:
                raise DataError(card.file, card.entry, "id", f'"{card.name}" is the name of another card too')
            self.cards[card.name] = card
        self.game_dir = Path(game_dir)
        self.bundled_fonts = Path(bundled_fonts)
        self.lang = lang
        self.max_pixels = max_pixels
        for card in cards:
            layout = layouts.layouts.get(card.kind)
            if layout is None or layout.template is None:
                raise DataError(card.file, card.entry, None,
                                f'layout "{card.kind}" is not a layout with layers in {layouts.file}')
        self._check_fields(cards)
        self._check_pictures()

    def __getstate__(self) -> dict:
        # What is kept while drawing is made again where it is needed (hash objects do not pickle; the layers'
        # fonts and designs are kept by the layers' identities, another process's).
        state = dict(self.__dict__)
        for kept in ("_key_heads", "_layer_fonts", "_designs", "_glyphs_passed", "_laid_out", "_font_keys"):
            state.pop(kept, None)
        return state

    def _check_pictures(self) -> None:
        """Every picture a layer names outright must be one of :attr:`pictures` (a ``{field}`` naming one is
        looked up when its card is drawn)."""
        for kind, layout in self.layouts.layouts.items():
            if layout.template is None:
                continue
            for at, layer in layout.template.all_layers():
                named = layer.kind == "picture" and not FIELD.fullmatch(layer.picture)
                if named and layer.picture not in self.pictures:
                    raise DataError(self.layouts.file, f'layout "{kind}"', f"{at}.picture",
                                    self._no_picture(layer.picture))

    def _no_picture(self, name: str) -> str:
        known = ", ".join(sorted(self.pictures))
        return (f'no picture "{name}": the game\'s renderer paints ' + (known if known else "none") +
                " (a picture layer is painted by the code of a game's own renderer)")

    def _check_fields(self, cards: Sequence[TemplateCard]) -> None:
        """A field a template reads must be a field of some card of its kind: a misspelt name is an error, not an
        empty text on every card."""
        known: dict[str, set[str]] = {}
        for card in cards:
            known.setdefault(card.kind, set()).update(card.values)
        for kind, fields in known.items():
            template = self.template(kind)
            for index, layer in enumerate(template.layers):
                for name in layer.fields():
                    if name.split(".")[0] not in fields:
                        raise DataError(self.layouts.file, f'layout "{kind}"', f"layers[{index}]",
                                        f'reads the field "{name}", which no card of this layout has')
                if isinstance(layer, Repeat):
                    self._check_item_fields(kind, index, layer, [c for c in cards if c.kind == kind], fields)

    def _check_item_fields(self, kind: str, index: int, group: Repeat, cards: Sequence[TemplateCard],
                           fields: set[str]) -> None:
        """A repeat group's layers read fields of an item that some item has (when the items are tables), and
        fields of the card that some card has; so do the layers of a group inside it, of their own items too."""
        items = [item for card in cards for item in _list(lookup(card.values, group.repeat, self.lang))]
        keys = {key for item in items if _is_mapping(item) for key in item}

        def check(at: str, name: str, inner: Repeat | None, inner_keys: set[str]) -> None:
            head, _, rest = name.partition(".")
            if head == group.item:
                if rest and keys and rest.split(".")[0] not in keys:
                    raise DataError(self.layouts.file, f'layout "{kind}"', at,
                                    f'reads the field "{name}", which no item of "{group.repeat}" has')
            elif inner is not None and head == inner.item:
                if rest and inner_keys and rest.split(".")[0] not in inner_keys:
                    raise DataError(self.layouts.file, f'layout "{kind}"', at,
                                    f'reads the field "{name}", which no item of "{inner.repeat}" has')
            elif head not in fields:
                raise DataError(self.layouts.file, f'layout "{kind}"', at,
                                f'reads the field "{name}", which no card of this layout has')

        for number, child in enumerate(group.layers):
            at = f"layers[{index}].layers[{number}]"
            for name in child.fields():
                check(at, name, None, set())
            if isinstance(child, Repeat):
                path = child.repeat.partition(".")[2] if child.repeat.startswith(group.item + ".") else None
                inner_items = [value for item in items if _is_mapping(item) and path
                               for value in _list(lookup(item, path, self.lang))]
                inner_keys = {key for value in inner_items if _is_mapping(value) for key in value}
                for deeper, grandchild in enumerate(child.layers):
                    for name in grandchild.fields():
                        check(f"{at}.layers[{deeper}]", name, child, inner_keys)

    def template(self, kind: str) -> Template:
        template = self.layouts.layouts[kind].template
        assert template is not None
        return template

    def laid_out(self, card: TemplateCard, template: Template) -> Template:
        """``template`` as ``card`` draws it: each repeat group made plain layers, once per item of its list, and
        so the groups inside them (:func:`tools.render.template.expand`; kept per number of items, so the layers
        keep their identities)."""
        if not template.repeats:
            return template
        known = self.__dict__.setdefault("_laid_out", {})
        if len(known) > 4096:
            known.clear()
        key: tuple = (id(template),)
        while template.repeats:
            counts = []
            for group in template.repeats:
                count = item_count(lookup(card.values, group.repeat, self.lang))
                if count > MAX_ITEMS:
                    raise DataError(card.file, card.entry, group.repeat,
                                    f'{count} items: at most {MAX_ITEMS} are drawn (layer "{group.name}")')
                counts.append(count)
            key += (tuple(counts),)
            found = known.get(key)
            if found is None or found[0] is not template:
                found = known[key] = (template, expand(template, tuple(counts)))
            template = found[1]
        return template

    # -- the FaceRenderer interface ------------------------------------------------------------------------

    def items(self) -> list[tuple[str, str]]:
        return [(card.name, card.kind) for card in self.cards.values()]

    def design_size(self, name: str) -> tuple[int, int]:
        return self.template(self.cards[name].kind).design_size

    def body_boxes(self, name: str) -> tuple[str, ...]:
        return self.template(self.cards[name].kind).body_layers

    def key(self, name: str, kind: str) -> str:
        """A hash of everything the card's pixels depend on (:meth:`card_key`)."""
        return self.card_key(self.cards[name])

    def card_key(self, card: TemplateCard) -> str:
        """A hash of everything ``card``'s pixels depend on: its layout, its values, the language and the bytes
        of every file it draws (art, icons, the game's fonts). A game's own renderer that draws some kinds from
        their layers keys those cards by it."""
        heads = self.__dict__.setdefault("_key_heads", {})
        head = heads.get(card.kind)
        if head is None:   # what every card of a layout hashes first, hashed once (a template's text is long)
            head = heads[card.kind] = hashlib.sha256()
            head.update(self.layouts.layouts[card.kind].fingerprint().encode())
            head.update(self.layouts.fingerprint().encode())
            # which code paints each picture by name (a card's values and its layout name the pictures it shows)
            for name in sorted(self.pictures):
                head.update(f"{name}={_painter_id(self.pictures[name])}\0".encode())
        digest = head.copy()
        values = json.dumps(card.values, sort_keys=True, default=str, ensure_ascii=False)
        digest.update(values.encode())
        digest.update(self.lang.encode())
        for path in self._files(card, icons="{icon:" in values):
            digest.update(str(path).encode())
            digest.update(_file_digest(str(path)))
        return digest.hexdigest()[:32]

    draws_bleed = True
    """:func:`tools.render.pipeline.print_faces` may ask for a face with its bleed (``render(..., bleed=)``)."""

    def render(self, name: str, size: tuple[int, int] | None = None, bleed: int = 0) -> Image.Image:
        """Image ``name`` at ``size`` (its design size when None); with ``bleed`` px on every side past the cut
        line (:meth:`draw`)."""
        card = self.cards[name]
        template = self.template(card.kind)
        size = tuple(size) if size else template.design_size
        if bleed > 0:
            return self.draw_with_bleed(card, template, size, bleed)
        return self.draw(card, template, size)

    def draw_with_bleed(self, card: TemplateCard, template: Template, size: tuple[int, int],
                        bleed: int) -> Image.Image:
        """``card`` at ``size`` with ``bleed`` px more on every side, for print: the card drawn at ``size`` with its
        edges mirrored outward, then every fill and cropped image that reaches a card edge drawn again past it —
        an art larger than its box gives its own pixels to the bleed, as far as it has them. Outlines and texts
        stay where they are on the card, so what is cut is the card as the sheets show it."""
        try:
            return self._with_bleed(card, self.laid_out(card, template), size, bleed)
        except DataError as exc:
            raise card.placed(exc) from None

    def _with_bleed(self, card: TemplateCard, template: Template, size: tuple[int, int],
                    bleed: int) -> Image.Image:
        canvas = mirror_pad(to_rgb(self._draw(card, template, size)), bleed)   # a print is on white paper
        width, height = size
        sx, sy = width / template.width, height / template.height
        scale = min(sx, sy)
        groups, alone = self._group_sizes(card, template, size) if template.grouped else ({}, {})
        for layer in template.layers:   # drawn again in order, over the mirror, each where it lies on the card
            if not self._shown(layer, card):
                continue
            rect = _layer_rect(layer, sx, sy)
            grow = (bleed if rect[0] <= 0 else 0, bleed if rect[1] <= 0 else 0,
                    bleed if rect[2] >= width else 0, bleed if rect[3] >= height else 0)
            on_canvas = (rect[0] + bleed, rect[1] + bleed, rect[2] + bleed, rect[3] + bleed)
            if layer.kind == "text":
                self._text(canvas, layer, card, template, on_canvas, scale, groups.get(layer.size_group),
                           alone.get(id(layer)))
            elif layer.kind == "shape":
                if layer.fill is not None:   # a fill reaching an edge goes on past it; its outline stays put
                    grown = (on_canvas[0] - grow[0], on_canvas[1] - grow[1], on_canvas[2] + grow[2],
                             on_canvas[3] + grow[3])
                    # square past the edges: a card's rounded corners are the cutter's, not the print's
                    square = replace(layer, outline=None, stroke=0.0, radius=0.0 if any(grow) else layer.radius)
                    self._shape(canvas, square, card, grown, scale)
                if layer.outline is not None:
                    self._shape(canvas, replace(layer, fill=None), card, on_canvas, scale)
            elif layer.kind == "picture":
                self._picture(canvas, layer, card, on_canvas, scale, margins=grow)
            elif any(grow) and (layer.fit == "crop" or self._stand_in(layer, card)):
                self._image(canvas, layer, card, on_canvas, margins=grow)
            else:
                self._image(canvas, layer, card, on_canvas)
        return canvas

    # -- drawing -------------------------------------------------------------------------------------------

    def _files(self, card: TemplateCard, *, icons: bool = True) -> list[Path]:
        """The files ``card`` draws: its images, its layers' fonts of the game folder and its texts' icons
        (``icons`` False: its values hold no icon, so only a layer's own text may)."""
        template = self.laid_out(card, self.template(card.kind))
        files: list[Path] = []
        for layer in _file_layers(template, icons):
            if not self._shown(layer, card):
                continue
            if layer.kind == "image":
                found = self._image_path(layer, card, present_only=True)
                if found is not None:
                    files.append(found)
            elif layer.kind == "text":
                for font in (layer.font, layer.bold_font, layer.italic_font):
                    if font is not None and font.in_game:
                        files.append(font.path(self.game_dir, self.bundled_fonts))
                if not icons and "{icon:" not in layer.text:
                    continue   # (most texts: no markup to read, in the layer or in the card's values)
                try:
                    text = self._fill(layer.text, card, layer)
                    if "{icon:" not in text:
                        continue
                    parts = richtext.parse_markup(text)
                except (ValueError, DataError):
                    continue   # reported when the card is drawn
                files += [p for part in parts if isinstance(part, richtext.Icon)
                          for p in [self._icon_path(part.name, card, layer, missing_ok=True)] if p is not None]
        return files

    def draw(self, card: TemplateCard, template: Template, size: tuple[int, int]) -> Image.Image:
        """``card`` drawn from ``template`` at ``size`` pixels: RGB on white, or RGBA for a transparent template."""
        try:
            return self._draw(card, self.laid_out(card, template), size)
        except DataError as exc:
            raise card.placed(exc) from None

    def _draw(self, card: TemplateCard, template: Template, size: tuple[int, int]) -> Image.Image:
        if not template.transparent:
            return self._draw_on(card, template, size, (255, 255, 255))
        # Every layer is laid over what lies below it by a mask, so drawing the card twice, on black and on white,
        # tells each pixel's coverage (how far the two differ) and its colour (the black drawing, un-premultiplied):
        # the layers' own code serves both kinds of canvas.
        on_black = self._draw_on(card, template, size, (0, 0, 0))
        on_white = self._draw_on(card, template, size, (255, 255, 255))
        spread = ImageChops.difference(on_white, on_black).split()
        alpha = ImageChops.invert(ImageChops.lighter(ImageChops.lighter(spread[0], spread[1]), spread[2]))
        return Image.merge("RGBa", (*on_black.split(), alpha)).convert("RGBA")

    def _draw_on(self, card: TemplateCard, template: Template, size: tuple[int, int],
                 background: tuple[int, int, int]) -> Image.Image:
        width, height = size
        sx, sy = width / template.width, height / template.height
        scale = min(sx, sy)
        layers = template.layers
        first = layers[0]
        rect = _layer_rect(first, sx, sy)
        filled = (first.kind == "shape" and first.shape == "rect" and first.fill is not None and
                  first.radius * scale < 0.5 and rect == (0, 0, width, height) and self._shown(first, card))
        if filled:   # a card filled whole by its first layer starts in its colour (the same pixels, filled once)
            background = self._colour(first.fill, card, first, "fill")
        image = Image.new("RGB", (width, height), background)
        groups, alone = self._group_sizes(card, template, size) if template.grouped else ({}, {})
        for layer in layers:
            if not self._shown(layer, card):
                continue
            rect = _layer_rect(layer, sx, sy)
            if layer.kind == "shape":
                self._shape(image, layer, card, rect, scale, filled=filled and layer is first)
            elif layer.kind == "image":
                self._image(image, layer, card, rect)
            elif layer.kind == "picture":
                self._picture(image, layer, card, rect, scale)
            else:
                self._text(image, layer, card, template, rect, scale, groups.get(layer.size_group),
                           alone.get(id(layer)))
        return image

    def _shown(self, layer: Layer, card: TemplateCard) -> bool:
        if not layer.conditions:
            return True   # (most layers: asked on every card)
        return all(self._holds(c, card) for c in layer.conditions)

    def _holds(self, condition: Condition, card: TemplateCard) -> bool:
        value = lookup(card.values, condition.field, self.lang)
        text = "" if value is _MISSING else as_text(value)
        if condition.values:
            met = text in {as_text(v) for v in condition.values}
        else:
            met = bool(text.strip())
        return met != condition.negate

    def _value(self, path: str, card: TemplateCard, layer: Layer) -> str:
        value = lookup(card.values, path, self.lang)
        if value is _MISSING:
            raise DataError(card.file, card.entry, f"{path}.{self.lang}", f"no {self.lang} text "
                                                                           f'(layer "{layer.name}" prints it)')
        return as_text(value)

    def _fill(self, template: str, card: TemplateCard, layer: Layer) -> str:
        """A template string with its ``{field}``\\ s filled in (``{{`` and ``}}`` are braces)."""
        tokens = _tokens(template)
        if len(tokens) == 1:
            field, text = tokens[0]
            return self._value(text, card, layer) if field else text
        return "".join(self._value(text, card, layer) if field else text for field, text in tokens)

    def _field_of(self, text: str, card: TemplateCard, layer: Layer) -> str:
        """The field to name in an error about ``text``: the ``{field}`` it reads (of several, the one whose value
        is the longest: the likeliest not to fit), with the language of a language table; else the layer."""
        paths = FIELD.findall(text)
        if not paths:
            return f'layer "{layer.name}"'
        path = paths[0]
        if len(paths) > 1:
            def length(candidate: str) -> int:
                value = lookup(card.values, candidate, self.lang)
                return 0 if value is _MISSING else len(as_text(value))
            path = max(paths, key=length)   # (the first of the longest)
        return f"{path}.{self.lang}" if _is_mapping(_raw(card.values, path)) else path

    def _colour(self, value: str, card: TemplateCard, layer: Layer, key: str) -> tuple[int, int, int]:
        text = self._fill(value, card, layer) if FIELD.fullmatch(value) else value
        if is_colour(text):
            return parse_colour(text)
        if text in self.layouts.colours:
            return self.layouts.colours[text]
        raise DataError(card.file, card.entry, self._field_of(value, card, layer),
                        f'"{text}" is not "#rrggbb" nor a colour of [colours] (layer "{layer.name}" {key})')

    def _shape(self, image: Image.Image, layer: Layer, card: TemplateCard, rect, scale: float, *,
               filled: bool = False) -> None:
        """Shape ``layer`` drawn in ``rect``; ``filled``: its fill is on the image already (:meth:`_draw_on`)."""
        fill = self._colour(layer.fill, card, layer, "fill") if layer.fill and not filled else None
        outline = self._colour(layer.outline, card, layer, "outline") if layer.outline else None
        stroke = max(1, round(layer.stroke * scale)) if outline is not None else 0
        radius = layer.radius * scale
        left, top, right, bottom = rect
        size = (right - left, bottom - top)
        if layer.shape == "rect" and radius < 0.5:
            if fill is not None:   # the pixels of draw.rectangle's fill, filled as a block (a whole card's, often)
                image.paste(fill, (left, top, right, bottom))
            if outline is not None and 2 * stroke < min(size):
                # draw.rectangle's outline, as its four bands filled as blocks (it draws the sides pixel by pixel)
                for band in ((left, top, right, top + stroke), (left, bottom - stroke, right, bottom),
                             (left, top + stroke, left + stroke, bottom - stroke),
                             (right - stroke, top + stroke, right, bottom - stroke)):
                    image.paste(outline, band)
            elif outline is not None:
                ImageDraw.Draw(image).rectangle((left, top, right - 1, bottom - 1), outline=outline, width=stroke)
            return
        reach = _corner(layer.shape, radius, stroke, size) if fill is not None and outline is not None else None
        if reach is not None and size[0] * size[1] <= KEPT_MASK_PIXELS:
            # A filled and outlined rounded rectangle (a panel): its straight parts as blocks, each corner one
            # picture of both (kept: the same panels are on card after card)
            c = reach
            for block in _straight_parts(rect, c, None):
                image.paste(fill, block)
            for band in _straight_parts(rect, c, stroke):
                image.paste(outline, band)
            w, h = size
            for (x, y), part in zip(((0, 0), (w - c, 0), (0, h - c), (w - c, h - c)),
                                    _panel_corners(layer.shape, size, radius, stroke, fill, outline, c)):
                image.paste(part, (left + x, top + y, left + x + c, top + y + c), part)
            return
        if fill is not None:
            _paste_masked(image, fill, rect, _shape_mask(layer.shape, size, radius, 0),
                          _corner(layer.shape, radius, 0, size), None)
        if outline is not None:
            _paste_masked(image, outline, rect, _ring_mask(layer.shape, size, radius, stroke),
                          _corner(layer.shape, radius, stroke, size), stroke)

    def _image_path(self, layer: Layer, card: TemplateCard, *, present_only: bool = False) -> Path | None:
        """Where image ``layer``'s file is on ``card`` (None when its path is refused: reported when it is drawn);
        ``present_only``: None too when nothing is there (looked up without resolving links: a key of a card without
        its art, thousands of them in a big game, reads no more of the disk than that)."""
        try:
            relative = self._fill(layer.image, card, layer)
            if present_only and not os.path.lexists(os.path.join(self.game_dir, relative)):
                return None
            return asset_path(self.game_dir, relative, file=card.file, entry=card.entry,
                              field=self._field_of(layer.image, card, layer))
        except DataError:
            return None

    def _stand_in(self, layer: Layer, card: TemplateCard) -> bool:
        """Whether image ``layer`` draws its placeholder on ``card``: it has one and its file is not there."""
        if layer.placeholder is None:
            return False
        path = self._image_path(layer, card)
        return path is not None and not path.is_file()

    def _image(self, image: Image.Image, layer: Layer, card: TemplateCard, rect,
               margins: tuple[int, int, int, int] = (0, 0, 0, 0)) -> None:
        field = self._field_of(layer.image, card, layer)
        relative = self._fill(layer.image, card, layer)
        path = asset_path(self.game_dir, relative, file=card.file, entry=card.entry, field=field)
        left, top, right, bottom = rect
        if not path.is_file():
            if layer.placeholder is None:
                raise DataError(card.file, card.entry, field, f"{relative}: no such file in the game folder "
                                                              f'(layer "{layer.name}")')
            # A stand-in where the art will go (drawn on past the card's edges for print, as the art would be).
            left, top, right, bottom = left - margins[0], top - margins[1], right + margins[2], bottom + margins[3]
            colour = self._colour(layer.placeholder, card, layer, "placeholder")
            paste_placeholder(image, (left, top, right, bottom), colour)
            return
        try:
            if any(margins):
                picture, (dx, dy) = _cropped_with_margins(str(path), _file_digest(str(path)),
                                                          (right - left, bottom - top), margins, self.max_pixels)
                picture = self._tinted(picture, layer, card)
                image.paste(picture, (left + dx, top + dy), picture)
                return
            picture = _fitted(str(path), _file_digest(str(path)), (right - left, bottom - top), layer.fit,
                              self.max_pixels)
        except ImageError as exc:
            raise DataError(card.file, card.entry, field, f"{relative}: {exc.reason}") from None
        picture = self._tinted(picture, layer, card)
        offset = ((right - left - picture.width) // 2, (bottom - top - picture.height) // 2)
        image.paste(picture, (left + offset[0], top + offset[1]), picture)

    def _painter(self, layer: Layer, card: TemplateCard) -> Painter:
        name = self._fill(layer.picture, card, layer)
        painter = self.pictures.get(name)
        if painter is None:
            raise DataError(card.file, card.entry, self._field_of(layer.picture, card, layer),
                            f'{self._no_picture(name)} (layer "{layer.name}")')
        return painter

    def _picture_colours(self, layer: Layer, card: TemplateCard) -> tuple[tuple[int, int, int], ...]:
        """The layer's ``colours`` resolved in order; a ``{field}`` holding a list gives each of its colours."""
        out: list[tuple[int, int, int]] = []
        for value in layer.colours:
            found = FIELD.fullmatch(value)
            held = lookup(card.values, found.group(1), self.lang) if found else None
            if isinstance(held, list):
                for index, item in enumerate(held):
                    if not isinstance(item, str) or not (is_colour(item) or item in self.layouts.colours):
                        raise DataError(card.file, card.entry, f"{found.group(1)}[{index}]",
                                        f'"{item}" is not "#rrggbb" nor a colour of [colours] '
                                        f'(layer "{layer.name}" colours)')
                    out.append(parse_colour(item) if is_colour(item) else self.layouts.colours[item])
            else:
                out.append(self._colour(value, card, layer, "colours"))
        return tuple(out)

    def _picture(self, image: Image.Image, layer: Layer, card: TemplateCard, rect, scale: float,
                 margins: tuple[int, int, int, int] = (0, 0, 0, 0)) -> None:
        """Picture ``layer`` painted at its box's pixel size, laid over the layers below by its transparency; with
        ``margins``, its edges mirrored past the box that far (a pattern reaching the card's edges, for print)."""
        painter = self._painter(layer, card)
        left, top, right, bottom = rect
        size = (right - left, bottom - top)
        request = PictureRequest(size, self._picture_colours(layer, card), card.values, self.lang, scale)
        try:
            picture = painter(request)
        except PictureError as exc:
            if exc.field is not None:
                raise DataError(card.file, card.entry, exc.field, f'{exc} (layer "{layer.name}")') from None
            raise DataError(self.layouts.file, f'layout "{card.kind}"', f"{layer.at}.colours",
                            f'picture "{self._fill(layer.picture, card, layer)}": {exc}') from None
        if picture.size != size or picture.mode != "RGBA":
            raise ValueError(f'picture painter for layer "{layer.name}" gave a {picture.mode} image of '
                             f"{picture.width}x{picture.height}, not RGBA of {size[0]}x{size[1]}")
        picture = self._tinted(picture, layer, card)
        if any(margins):
            picture = _mirror_out(picture, margins)
            left, top = left - margins[0], top - margins[1]
        image.paste(picture, (left, top), picture)

    def _tinted(self, picture: Image.Image, layer: Layer, card: TemplateCard) -> Image.Image:
        """``picture`` in the layer's ``tint`` colour where it has one, its transparency kept."""
        return picture if layer.tint is None else _tint(picture, self._colour(layer.tint, card, layer, "tint"))

    def _icon_path(self, name: str, card: TemplateCard, layer: Layer, *, missing_ok: bool = False) -> Path | None:
        folder = self.game_dir / "icons"
        for suffix in ICON_SUFFIXES:
            path = folder / f"{name}{suffix}"
            if path.is_file():
                if not path.resolve().is_relative_to(self.game_dir.resolve()):
                    raise DataError(card.file, card.entry, self._field_of(layer.text, card, layer),
                                    f"icons/{path.name} leads outside the game folder")
                return path
        if missing_ok:
            return None
        raise DataError(card.file, card.entry, self._field_of(layer.text, card, layer),
                        f'no icon "{name}": icons/{name}.png is not in the game folder (layer "{layer.name}")')

    def _fonts(self, layer: Layer) -> dict[str, str]:
        """Style → font file path of text ``layer`` (made once per layer: asked for on every card)."""
        known = self.__dict__.setdefault("_layer_fonts", {})
        found = known.get(id(layer))
        if found is None or found[0] is not layer:
            fonts = {richtext.REGULAR: str(layer.font.path(self.game_dir, self.bundled_fonts))}
            if layer.bold_font is not None:
                fonts[richtext.BOLD] = str(layer.bold_font.path(self.game_dir, self.bundled_fonts))
            if layer.italic_font is not None:
                fonts[richtext.ITALIC] = str(layer.italic_font.path(self.game_dir, self.bundled_fonts))
            found = known[id(layer)] = (layer, fonts)
        return found[1]

    def _font_key(self, layer: Layer) -> tuple:
        """Text ``layer``'s fonts as one value (a text that passed the glyph check in them passes again)."""
        known = self.__dict__.setdefault("_font_keys", {})
        found = known.get(id(layer))
        if found is None or found[0] is not layer:
            found = known[id(layer)] = (layer, tuple(sorted(self._fonts(layer).items())))
        return found[1]

    def _design(self, template: Template, layer: Layer, scale: float) -> richtext.Design:
        """Where text ``layer`` is designed (:func:`_design`), made once per layer and scale."""
        known = self.__dict__.setdefault("_designs", {})
        found = known.get((id(layer), scale))
        if found is None or found[0] is not layer:
            if len(known) > 4096:
                known.clear()
            found = known[(id(layer), scale)] = (layer, _design(template, layer, scale))
        return found[1]

    def check_glyphs(self, card: TemplateCard) -> None:
        """:class:`DataError` (the card's file, entry and field, and the characters) for a character of one of
        ``card``'s texts that its layer's font cannot draw; nothing is drawn, so a game can check every card
        this way before it draws any."""
        # A text that passed in a layer's fonts passes again: a big game checks the same labels on card after
        # card (the first failing text is still reported with its own card's place).
        try:
            self._check_glyphs(card)
        except DataError as exc:
            raise card.placed(exc) from None

    def _check_glyphs(self, card: TemplateCard) -> None:
        passed = self.__dict__.setdefault("_glyphs_passed", set())
        for layer in self.laid_out(card, self.template(card.kind)).layers:
            if layer.kind != "text" or not self._shown(layer, card):
                continue
            text = self._fill(layer.text, card, layer)
            seen = (text, self._font_key(layer))
            if seen in passed:
                continue
            fonts = self._fonts(layer)
            field = self._field_of(layer.text, card, layer)
            try:
                parts = richtext.parse_markup(text)
            except ValueError as exc:
                raise DataError(card.file, card.entry, field, str(exc)) from None
            try:
                richtext.check_runs(parts, fonts, file=card.file, entry=card.entry, field=field,
                                    box_name=layer.name)
            except DataError as exc:
                raise self._glyph_culprit(exc, layer, card, fonts) from None
            if len(passed) > 1 << 16:
                passed.clear()
            passed.add(seen)

    def _glyph_culprit(self, error: DataError, layer: Layer, card: TemplateCard, fonts: Mapping[str, str]
                       ) -> DataError:
        """``error``, a glyph missing from a text that reads several fields, naming the field whose value holds
        the character (each value checked alone; the error as it is when none, or the template's words, fails)."""
        paths = FIELD.findall(layer.text)
        if len(paths) < 2:
            return error
        for path in paths:
            try:
                value = self._value(path, card, layer)
                richtext.check_runs(richtext.parse_markup(value), fonts, file=card.file, entry=card.entry,
                                    field=path, box_name=layer.name)
            except DataError:
                return DataError(error.file, error.entry, self._field_of("{" + path + "}", card, layer),
                                 error.message)
            except ValueError:
                continue   # (markup that opens in one field and closes in another: not this one's alone)
        return error

    def _group_sizes(self, card: TemplateCard, template: Template, size: tuple[int, int]
                     ) -> tuple[dict[str, int], dict[int, tuple]]:
        """Size group → the font size its texts are drawn at on ``card`` at ``size``: the smallest any of them fits
        at (texts of one group read evenly: a table's numbers); and each grouped text layer's fitting alone, by
        the layer's id (one that fits alone at no more than its group's size is drawn as fitted, not again)."""
        width, height = size
        sx, sy = width / template.width, height / template.height
        found: dict[str, int] = {}
        alone: dict[int, tuple] = {}
        for layer in template.layers:
            if layer.kind == "text" and layer.size_group and self._shown(layer, card):
                fitted = self._fitted(layer, card, template, _layer_rect(layer, sx, sy), min(sx, sy))
                if fitted is not None:
                    found[layer.size_group] = min(found.get(layer.size_group, fitted[0].size), fitted[0].size)
                    alone[id(layer)] = fitted
        return found, alone

    def _text(self, image: Image.Image, layer: Layer, card: TemplateCard, template: Template, rect,
              scale: float, cap: int | None = None, alone: tuple | None = None) -> None:
        """Text ``layer`` drawn in ``rect``, at most ``cap`` px (its size group's; ``alone``: its fitting alone,
        drawn as it is when no larger than that)."""
        found = alone if cap is not None and alone is not None and alone[0].size <= cap else None
        if found is None:
            found = self._fitted(layer, card, template, rect, scale, cap)
        if found is None:
            return
        fitted, fonts, icon, field = found
        left, top, right, bottom = rect
        box_w, box_h = right - left, bottom - top
        if layer.rotation in (90, 270):
            box_w, box_h = box_h, box_w
        colour = self._colour(layer.colour, card, layer, "colour")
        if layer.rotation == 0:
            richtext.draw_rich(image, fitted, (left, top), fonts, colour, icon, box_name=layer.name, box_rect=rect)
            return
        canvas = Image.new("RGBA", (box_w, box_h), (*colour, 0))
        l, t, r, b = fitted.ink
        turned_ink = {90: (t, box_w - r, b, box_w - l), 180: (box_w - r, box_h - b, box_w - l, box_h - t),
                      270: (box_h - b, l, box_h - t, r)}[layer.rotation]
        richtext.draw_rich(canvas, fitted, (0, 0), fonts, (*colour, 255), icon, box_name=layer.name,
                           box_rect=rect, ink_rect=(left + turned_ink[0], top + turned_ink[1],
                                                    left + turned_ink[2], top + turned_ink[3]))
        turned = canvas.transpose({90: Image.Transpose.ROTATE_90, 180: Image.Transpose.ROTATE_180,
                                   270: Image.Transpose.ROTATE_270}[layer.rotation])
        image.paste(turned, (left, top), turned)

    def _fitted(self, layer: Layer, card: TemplateCard, template: Template, rect, scale: float,
                cap: int | None = None):
        """Text ``layer`` of ``card`` fitted in ``rect`` (at most ``cap`` px: its size group's), with its fonts,
        its icons' drawer and the field it is named by; None for an empty text."""
        field = self._field_of(layer.text, card, layer)
        text = self._fill(layer.text, card, layer)
        if not text.strip():
            return None
        try:
            parts = richtext.parse_markup(text)
        except ValueError as exc:
            raise DataError(card.file, card.entry, field, str(exc)) from None
        fonts = self._fonts(layer)
        icons = {part.name: self._icon_path(part.name, card, layer) for part in parts
                 if isinstance(part, richtext.Icon)}

        def icon_at(name: str, size: tuple[int, int] | None) -> Image.Image:
            try:
                return _icon(str(icons[name]), _file_digest(str(icons[name])), size, self.max_pixels)
            except ImageError as exc:
                raise DataError(card.file, card.entry, field, f"icons/{icons[name].name}: {exc.reason}") from None

        def icon_size(name: str) -> tuple[int, int]:
            return icon_at(name, None).size

        def icon(name: str, w: int, h: int) -> Image.Image:
            return icon_at(name, (w, h))

        left, top, right, bottom = rect
        box_w, box_h = right - left, bottom - top
        if layer.rotation in (90, 270):
            box_w, box_h = box_h, box_w
        sizes = _font_sizes(template, layer, scale)
        design = self._design(template, layer, scale)
        if cap is not None and cap < sizes[1]:
            sizes, design = (min(sizes[0], cap), cap), None   # its group's size, fitted at it
        fitted = richtext.fit_rich(parts, fonts, sizes, (box_w, box_h), align=layer.align,
                                   valign=layer.valign, line_spacing=layer.line_spacing, icon_size=icon_size,
                                   file=card.file, entry=card.entry, field=field, box_name=layer.name,
                                   design=design)
        return fitted, fonts, icon, field


_FILE_LAYERS: dict[tuple[int, bool], tuple[Template, tuple[Layer, ...]]] = {}


def _file_layers(template: Template, icons: bool) -> tuple[Layer, ...]:
    """The layers of ``template`` that may draw a file: its images, its texts in a font of the game folder and
    (``icons``: the card's values hold icons) its texts, else those whose own text has one. Kept per template."""
    found = _FILE_LAYERS.get((id(template), icons))
    if found is None or found[0] is not template:
        if len(_FILE_LAYERS) > 1024:
            _FILE_LAYERS.clear()
        layers = tuple(layer for layer in template.layers if layer.kind == "image" or (layer.kind == "text" and (
            icons or "{icon:" in layer.text
            or any(f is not None and f.in_game for f in (layer.font, layer.bold_font, layer.italic_font)))))
        found = _FILE_LAYERS[(id(template), icons)] = (template, layers)
    return found[1]


def _font_sizes(template: Template, layer: Layer, scale: float) -> tuple[int, int]:
    """A text layer's font size range in pixels at ``scale`` px per unit (the minimum rounded down, so a text that
    fits at the design size keeps room to fit)."""
    low = max(1, int(template.font_px(layer.size[0], scale)))
    return low, max(low, round(template.font_px(layer.size[1], scale)))


def _layer_rect(layer: Layer, sx: float, sy: float) -> tuple[int, int, int, int]:
    """Where ``layer``'s box lies on the card drawn at ``sx``, ``sy`` px per unit (each side at least 1 px)."""
    x, y, w, h = layer.box
    left, top = round(x * sx), round(y * sy)
    return left, top, max(left + 1, round((x + w) * sx)), max(top + 1, round((y + h) * sy))


def _design(template: Template, layer: Layer, scale: float) -> richtext.Design:
    """Text ``layer``'s box (turned as its text reads) and font size range at the template's design size, and the
    factor from there to ``scale`` px per unit: a text drawn at another size keeps its design lines
    (:func:`tools.render.richtext.fit_rich`)."""
    width, height = template.design_size
    sx, sy = width / template.width, height / template.height
    left, top, right, bottom = _layer_rect(layer, sx, sy)
    box = (right - left, bottom - top)
    if layer.rotation in (90, 270):
        box = box[::-1]
    return box, _font_sizes(template, layer, min(sx, sy)), scale / min(sx, sy)


def _painter_id(painter: Painter) -> str:
    """Which code a painter is, the same in every process (a partial: its function and bound arguments); kept
    per painter (a card's key asks for each of its pictures')."""
    found = _PAINTER_IDS.get(id(painter))
    if found is None or found[0] is not painter:
        if len(_PAINTER_IDS) > 1024:
            _PAINTER_IDS.clear()
        found = _PAINTER_IDS[id(painter)] = (painter, _new_painter_id(painter))
    return found[1]


_PAINTER_IDS: dict[int, tuple[Painter, str]] = {}


def _new_painter_id(painter: Painter) -> str:
    if isinstance(painter, partial):
        keywords = sorted(painter.keywords.items())
        return f"{_painter_id(painter.func)}({painter.args!r}, {keywords!r})"
    return f"{getattr(painter, '__module__', '')}.{getattr(painter, '__qualname__', type(painter).__qualname__)}"


def _mirror_out(picture: Image.Image, margins: tuple[int, int, int, int]) -> Image.Image:
    """``picture`` with ``margins`` (left, top, right, bottom) px more on each side, mirrors of its edges."""
    border = max(margins)
    colour = mirror_pad(picture.convert("RGB"), border)
    alpha = mirror_pad(picture.getchannel("A").convert("RGB"), border).getchannel(0)
    padded = Image.merge("RGBA", (*colour.split(), alpha))
    return padded.crop((border - margins[0], border - margins[1], border + picture.width + margins[2],
                        border + picture.height + margins[3]))


_PLACES = re.compile(r"\{\{|\}\}|\{icon:[^{}]*\}|\{[^{}]*\}")


@lru_cache(maxsize=4096)
def _tokens(template: str) -> tuple[tuple[bool, str], ...]:
    """A template string as its pieces in order: ``(True, field path)`` for a ``{field}``, ``(False, text)`` for
    the text between them (``{{`` and ``}}`` made braces, ``{icon:name}`` kept for the markup). Parsed once: every
    card fills the same few strings."""
    out: list[tuple[bool, str]] = []
    text: list[str] = []
    position = 0
    for match in _PLACES.finditer(template):
        text.append(template[position:match.start()])
        position = match.end()
        token = match.group(0)
        if token in ("{{", "}}"):
            text.append(token[0])
        elif token.startswith("{icon:"):
            text.append(token)
        else:
            out += [(False, "".join(text)), (True, token[1:-1])]
            text = []
    text.append(template[position:])
    out.append((False, "".join(text)))
    return tuple(piece for piece in out if piece[0] or piece[1]) or ((False, ""),)


def _shape_mask(shape: str, size: tuple[int, int], radius: float, inset: int) -> Image.Image:
    """An antialiased mask (L) of ``shape`` filling ``size``, shrunk by ``inset`` px on every side (shared: do not
    modify it). The masks of small shapes are kept: a card's panels and badges recur on card after card."""
    if size[0] * size[1] <= KEPT_MASK_PIXELS:
        return _kept_mask(shape, tuple(size), radius, inset)
    return _new_mask(shape, size, radius, inset)


def _corner(shape: str, radius: float, stroke: int, size: tuple[int, int]) -> int | None:
    """How far a rounded rectangle's curved corners reach in from its sides, in px: past them its mask is whole
    (inside) or empty (past an outline's band), its straight edges lying on whole pixels. None: not such a shape,
    or one too small for the split to pay."""
    if shape != "rect":
        return None
    reach = max(math.ceil(radius), stroke) + 1
    return reach if 4 * reach <= min(size) else None


def _paste_masked(image: Image.Image, colour, rect, mask: Image.Image, corner: int | None,
                  band: int | None) -> None:
    """``colour`` pasted in ``rect`` through ``mask``, the same pixels either way: a rounded rectangle's straight
    parts filled as blocks (a fill's cross, or an outline's four bands ``band`` px wide) and only its four corners
    (``corner`` px square) through their part of the mask — a mask paste costs per pixel, and a card's panels
    are mostly straight."""
    left, top, right, bottom = rect
    if corner is None:
        image.paste(colour, rect, mask)
        return
    c = corner
    for block in _straight_parts(rect, c, band):
        image.paste(colour, block)
    w, h = right - left, bottom - top
    for (x, y), part in zip(((0, 0), (w - c, 0), (0, h - c), (w - c, h - c)), _corners_of(mask, c)):
        image.paste(colour, (left + x, top + y, left + x + c, top + y + c), part)


def _straight_parts(rect, c: int, band: int | None) -> tuple[tuple[int, int, int, int], ...]:
    """A rounded rectangle's parts past its ``c`` px corners: a fill's cross (``band`` None) or an outline's four
    bands ``band`` px wide."""
    left, top, right, bottom = rect
    if band is None:
        return ((left + c, top, right - c, bottom), (left, top + c, left + c, bottom - c),
                (right - c, top + c, right, bottom - c))
    return ((left + c, top, right - c, top + band), (left + c, bottom - band, right - c, bottom),
            (left, top + c, left + band, bottom - c), (right - band, top + c, right, bottom - c))


@lru_cache(maxsize=256)
def _panel_corners(shape: str, size: tuple[int, int], radius: float, stroke: int, fill: tuple[int, int, int],
                   outline: tuple[int, int, int], c: int) -> tuple[Image.Image, ...]:
    """The four ``c`` px corners of a rounded rectangle filled with ``fill`` and outlined in ``outline``, as RGBA
    pictures to lay over a card (the fill through its mask, then the outline through its ring's)."""
    fills = _corners_of(_shape_mask(shape, size, radius, 0), c)
    rings = _corners_of(_ring_mask(shape, size, radius, stroke), c)
    parts = []
    for fill_mask, ring_mask in zip(fills, rings):
        colour = Image.new("RGB", (c, c), fill)
        colour.paste(outline, (0, 0, c, c), ring_mask)
        parts.append(Image.merge("RGBA", (*colour.split(), ImageChops.lighter(fill_mask, ring_mask))))
    return tuple(parts)


_corner_parts: dict[int, tuple[Image.Image, int, tuple[Image.Image, ...]]] = {}


def _corners_of(mask: Image.Image, c: int) -> tuple[Image.Image, ...]:
    """The four ``c`` px corner squares of ``mask`` (kept with a kept mask: cut once, pasted card after card)."""
    found = _corner_parts.get(id(mask))
    if found is not None and found[0] is mask and found[1] == c:
        return found[2]
    w, h = mask.size
    parts = tuple(mask.crop((x, y, x + c, y + c)) for x, y in ((0, 0), (w - c, 0), (0, h - c), (w - c, h - c)))
    if len(_corner_parts) > 256:
        _corner_parts.clear()
    _corner_parts[id(mask)] = (mask, c, parts)   # (the mask held: its id is not reused while kept here)
    return parts


def _ring_mask(shape: str, size: tuple[int, int], radius: float, stroke: int) -> Image.Image:
    """The mask of ``shape``'s outline ``stroke`` px wide (shared, kept as :func:`_shape_mask` keeps masks)."""
    if size[0] * size[1] <= KEPT_MASK_PIXELS:
        return _kept_ring(shape, tuple(size), radius, stroke)
    return _new_ring(shape, size, radius, stroke)


@lru_cache(maxsize=64)
def _kept_ring(shape: str, size: tuple[int, int], radius: float, stroke: int) -> Image.Image:
    return _new_ring(shape, size, radius, stroke)


def _new_ring(shape: str, size: tuple[int, int], radius: float, stroke: int) -> Image.Image:
    return ImageChops.subtract(_shape_mask(shape, size, radius, 0),
                               _shape_mask(shape, size, max(0.0, radius - stroke), stroke))


KEPT_MASK_PIXELS = 400 * 400
"""The largest shape whose mask is kept (64 of them: at most ~10 MB)."""


@lru_cache(maxsize=64)
def _kept_mask(shape: str, size: tuple[int, int], radius: float, inset: int) -> Image.Image:
    return _new_mask(shape, size, radius, inset)


def _new_mask(shape: str, size: tuple[int, int], radius: float, inset: int) -> Image.Image:
    w, h = size
    s = SUPERSAMPLE
    mask = Image.new("L", (w * s, h * s), 0)
    draw = ImageDraw.Draw(mask)
    box = (inset * s, inset * s, (w - inset) * s - 1, (h - inset) * s - 1)
    if box[2] > box[0] and box[3] > box[1]:
        if shape == "ellipse":
            draw.ellipse(box, fill=255)
        else:
            draw.rounded_rectangle(box, radius=radius * s, fill=255)
    return mask.resize((w, h), Image.Resampling.BOX)


@lru_cache(maxsize=1024)
def _digest_of(path: str, size: int, mtime: int) -> bytes:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").digest()


def _file_digest(path: str) -> bytes:
    """The sha256 of a file's bytes (read again only when its size or time changed)."""
    try:
        stat = os.stat(path)
    except OSError:
        return b"missing"
    return _digest_of(path, stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=32)
def _open_rgba(path: str, digest: bytes, max_pixels: int | None) -> Image.Image:
    """The image at ``path`` as RGBA (EXIF orientation applied); :class:`ImageError` when it cannot be used."""
    return open_image(Path(path), max_pixels=max_pixels).convert("RGBA")


def fitted_picture(path: Path, box: tuple[int, int], *, fit: str = "fit",
                   tint: tuple[int, int, int] | None = None, max_pixels: int | None = None) -> Image.Image:
    """The picture at ``path`` made to ``box`` as a layer's ``fit`` does (RGBA), in ``tint`` where given (its
    transparency kept): what an image layer draws, for a game's renderer drawing the same art in code.
    Raises :class:`tools.imageio.ImageError` for a file that cannot be used."""
    picture = _fitted(str(path), _file_digest(str(path)), tuple(box), fit, max_pixels)
    return picture.copy() if tint is None else _tint(picture, tint)


def _tint(picture: Image.Image, colour: tuple[int, int, int]) -> Image.Image:
    """``picture``'s shape in ``colour``: its transparency kept, its own colours replaced."""
    shade = Image.new("RGBA", picture.size, tuple(colour))
    shade.putalpha(picture.getchannel("A"))
    return shade


@lru_cache(maxsize=64)
def _fitted(path: str, digest: bytes, box: tuple[int, int], fit: str, max_pixels: int | None) -> Image.Image:
    """The art at ``path`` made to ``box``: cropped to cover it, contained in it, or stretched to it (RGBA).
    Cached by the file's digest and the box: a frame or background drawn on every card is scaled once."""
    art = _open_rgba(path, digest, max_pixels)
    if fit == "crop":
        return ImageOps.fit(art, box, method=Image.Resampling.LANCZOS, centering=(0.5, 0.5))
    if fit == "fill":
        return art.resize(box, Image.Resampling.LANCZOS)
    ratio = min(box[0] / art.width, box[1] / art.height)
    return art.resize((max(1, round(art.width * ratio)), max(1, round(art.height * ratio))),
                      Image.Resampling.LANCZOS)


def _cropped_with_margins(path: str, digest: bytes, box: tuple[int, int], margins: tuple[int, int, int, int],
                          max_pixels: int | None) -> tuple[Image.Image, tuple[int, int]]:
    """The art scaled and centred as ``crop`` puts it in ``box``, with as much of it beyond the box as it has, up
    to ``margins`` (left, top, right, bottom) px: the picture and where its top-left lies relative to the box."""
    art = _open_rgba(path, digest, max_pixels)
    scale = max(box[0] / art.width, box[1] / art.height)
    scaled_w, scaled_h = max(1, round(art.width * scale)), max(1, round(art.height * scale))
    x0, y0 = (scaled_w - box[0]) // 2, (scaled_h - box[1]) // 2     # where the box starts in the scaled art
    left, top = max(0, x0 - margins[0]), max(0, y0 - margins[1])
    right, bottom = min(scaled_w, x0 + box[0] + margins[2]), min(scaled_h, y0 + box[1] + margins[3])
    scaled = art.resize((scaled_w, scaled_h), Image.Resampling.LANCZOS)
    return scaled.crop((left, top, right, bottom)), (left - x0, top - y0)


@lru_cache(maxsize=256)
def _icon(path: str, digest: bytes, size: tuple[int, int] | None, max_pixels: int | None) -> Image.Image:
    art = _open_rgba(path, digest, max_pixels)
    return art if size is None else art.resize(size, Image.Resampling.LANCZOS)
