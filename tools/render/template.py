"""Card templates as data: the ``layers`` of a layout in ``layouts.toml`` → a validated :class:`Template`.

A layout with ``layers`` needs no Python to be drawn (:mod:`tools.render.templatedraw` draws it): each layer is
a shape, an image or a text, drawn in order over the ones before, as nanDECK and Squib lay a card out (or a
picture that a game's own renderer paints by name, for what layers cannot express). Every
length is in the layout's ``units``: ``"px"`` (the default; the layout gives ``size = [w, h]``) or ``"mm"``
(the layout gives ``size_mm = [w, h]`` and is designed at :data:`DESIGN_DPI`); font sizes are pixels in a
``px`` layout and points in a ``mm`` one. Each output draws the card at its own resolution from these numbers
(the sheet cell, the print page), so nothing is resampled but the art.

Format (``docs/data-format.md``, "Card templates")::

    [layouts.card]
    units = "mm"
    size_mm = [63, 88]

    [[layouts.card.layers]]          # a shape: rect (corner radius) or ellipse, filled and/or outlined
    shape = "rect"
    box = [0, 0, 63, 88]             # [x, y, width, height] from the top-left corner; default the whole card
    fill = "background"              # "#rrggbb", a name of [colours], or "{field}" holding either
    outline = "#2b2118"
    stroke = 0.8
    radius = 3

    [[layouts.card.layers]]          # an image: a path in the game folder, with {field}s
    image = "art/{id}.png"
    box = [4, 12, 55, 40]
    fit = "crop"                     # crop (cover, centred), fit (contain) or fill (stretch)
    placeholder = "paper"            # a file that is not there is drawn as a stand-in in this colour
    when = "id"                      # shown only when the card has a value for this field …

    [[layouts.card.layers]]          # a picture the game's renderer paints by name (TemplateRenderer's pictures)
    picture = "hatching"             # a name, or "{field}" naming one
    colours = ["#5a4a3a", "{ink}"]   # handed to the painter in order ("{field}" holding a list: each of its colours)

    [[layouts.card.layers]]          # a text: fixed words and {field}s, **bold**, *italic*, {icon:name}
    name = "rules"
    text = "{text}"
    box = [5, 56, 53, 26]
    font = "DejaVuSans.ttf"          # from the game folder's fonts/, else ttsmod's bundled fonts
    size = [7, 11]                   # the largest size in this range at which the text fits its box
    when = { field = "type", is = ["spell", "trap"] }   # … or when its value is one of these
    body = true                      # the face's body text: its sheet cell is sized for it to be legible

    [[layouts.card.layers]]          # a group repeated for each item of a list field: a row per item
    name = "powers"
    repeat = "powers"                # the field holding the list (of tables or of plain values)
    box = [5, 60, 53, 24]            # where the items lie; each gets an equal share of it ("spread")
    cell = [53, 8]                   # an item's own box, its layers' boxes inside it
    direction = "down"               # down (rows) or across (columns)

    [[layouts.card.layers.layers]]   # an item's layers: {item} is the item, {item.name} a field of it
    text = "{item.name}: {item.text}"
    size = [6, 9]

Every mistake is a :class:`bridge.errors.DataError` ``layouts.toml: layout "<kind>": layers[<n>].<field>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

from bridge.errors import DataError
from tools.render.colour import is_colour

UNITS = ("px", "mm")
DESIGN_DPI = 300
"""The resolution a ``mm`` layout is designed at (its pixel size, and where its body text is measured)."""
MM_PER_POINT = 25.4 / 72
SHAPES = ("rect", "ellipse")
FITS = ("crop", "fit", "fill")
ALIGNS = ("left", "center", "right")
VALIGNS = ("top", "middle", "bottom")
ROTATIONS = (0, 90, 180, 270)
MAX_LAYERS = 200
DEFAULT_FONT = "DejaVuSans.ttf"
FONT_SUFFIXES = (".ttf", ".otf", ".ttc")

PICTURE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The name of a picture a game's renderer paints (a picture layer's ``picture``)."""
FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)\}")
"""A ``{field}`` (or ``{field.sub.key}``) reference in a template string."""
_ITEM_FIELD = re.compile(r"(?<!\{)" + FIELD.pattern + r"(?!\})")
"""A ``{field}`` that is not inside ``{{`` and ``}}`` (a literal brace pair is left as it is)."""
_BRACES = re.compile(r"\{\{|\}\}|\{icon:[^{}]*\}|\{[^{}]*\}|[{}]")


@dataclass(frozen=True)
class Condition:
    """When a layer is shown: ``field`` has a value (``values`` empty) or one of ``values``; ``negate`` for
    ``unless``."""

    field: str
    values: tuple[Any, ...] = ()
    negate: bool = False


@dataclass(frozen=True)
class Font:
    """A font file: ``name`` in the game folder's ``fonts/`` (``in_game``) or in ttsmod's bundled fonts."""

    name: str
    in_game: bool

    def path(self, game_dir: Path, bundled_dir: Path) -> Path:
        return (game_dir / "fonts" / self.name) if self.in_game else (bundled_dir / self.name)


@dataclass(frozen=True)
class Layer:
    """One layer of a template; lengths in the template's units. ``kind`` is ``shape``, ``image``, ``picture`` or
    ``text``."""

    kind: str
    name: str
    box: tuple[float, float, float, float]
    conditions: tuple[Condition, ...] = ()
    # where it is written in its layout (``layers[2]``, ``layers[2].layers[0]``), for errors; not in its repr,
    # which a layout's fingerprint hashes (a cached face's key is the same as before it was kept)
    at: str = field(default="", repr=False, compare=False)
    # shape
    shape: str = "rect"
    fill: str | None = None
    outline: str | None = None
    stroke: float = 0.0
    radius: float = 0.0
    # image
    image: str = ""
    fit: str = "crop"
    tint: str | None = None          # the picture in this colour, its transparency kept (a silhouette recoloured)
    placeholder: str | None = None   # a colour: a missing file is drawn as a stand-in (tools.render.draw.placeholder)
    # picture: painted by the renderer's painter of that name, at the layer's pixel size, with these colours
    picture: str = ""
    colours: tuple[str, ...] = ()
    # text
    text: str = ""
    font: Font | None = None
    bold_font: Font | None = None
    italic_font: Font | None = None
    size: tuple[float, float] = (0.0, 0.0)
    colour: str = "#000000"
    align: str = "left"
    valign: str = "top"
    line_spacing: float = 1.15
    rotation: int = 0
    body: bool = False
    size_group: str = field(default="", repr=False)   # (not in the repr when unset: see ``at``)

    def fields(self) -> tuple[str, ...]:
        """The card fields this layer reads (its strings' ``{field}`` references and its conditions)."""
        found: list[str] = []
        for text in (self.fill, self.outline, self.image, self.tint, self.placeholder, self.picture, *self.colours,
                     self.text, self.colour):
            if text:
                found += FIELD.findall(text)
        found += [c.field for c in self.conditions]
        return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class Repeat(Layer):
    """A repeat group (``kind`` ``repeat``): its ``layers`` drawn once per item of the list field ``repeat``, each
    in a cell of ``cell`` (the template's units) along ``direction`` inside ``box`` (:func:`expand`)."""

    repeat: str = ""
    item: str = "item"
    cell: tuple[float, float] = (0.0, 0.0)
    direction: str = "down"
    spread: bool = True
    stretch: bool = False
    gap: float = 0.0
    align: str = "start"
    layers: tuple[Layer, ...] = ()

    def fields(self) -> tuple[str, ...]:
        """The card fields the group itself reads: its list and its conditions (its layers': :meth:`item_fields`
        and theirs)."""
        return tuple(dict.fromkeys([self.repeat, *(c.field for c in self.conditions)]))

    def item_fields(self) -> tuple[str, ...]:
        """A repeat group's: the fields of an item its layers read (``{item.name}`` → ``name``; ``{item}``, the
        item itself, → ``""``)."""
        found: list[str] = []
        for layer in self.layers:
            names = list(layer.fields())
            if isinstance(layer, Repeat):   # an inner group's layers may read this group's item too
                names += [name for child in layer.layers for name in child.fields()]
            for name in names:
                head, _, rest = name.partition(".")
                if head == self.item:
                    found.append(rest)
        return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class Template:
    """A layout drawn from its layers: its size in its units and the layers in drawing order."""

    kind: str
    units: str
    width: float
    height: float
    layers: tuple[Layer, ...]   # a repeat group is a :class:`Repeat` among them
    transparent: bool = False   # drawn on a transparent canvas: a token's or tile's shape is cut out by its alpha

    @property
    def design_size(self) -> tuple[int, int]:
        """The pixel size the template is designed at: its ``size`` (px) or its ``size_mm`` at :data:`DESIGN_DPI`."""
        if self.units == "px":
            return round(self.width), round(self.height)
        return mm_to_px(self.width, DESIGN_DPI), mm_to_px(self.height, DESIGN_DPI)

    @property
    def body_layers(self) -> tuple[str, ...]:
        return tuple(layer.name for layer in self.layers if layer.body)

    @cached_property
    def repeats(self) -> tuple[Repeat, ...]:
        """Its repeat groups (a template without any is drawn as it is); kept once asked (a card asks each time
        it is drawn)."""
        return tuple(layer for layer in self.layers if isinstance(layer, Repeat))

    @cached_property
    def grouped(self) -> bool:
        """Whether a text layer of it has a size group (kept once asked)."""
        return any(layer.size_group for layer in self.layers)

    def fingerprint(self) -> str:
        """A stable text of everything that draws it (part of each card's cache key): its repr, which leaves out
        the fields newer than the cached faces (so those faces keep their keys), and those fields where set."""
        later = "".join(f"|{at}.size_group={layer.size_group}" for at, layer in self.all_layers() if layer.size_group)
        return repr(self) + later

    def all_layers(self) -> tuple[tuple[str, Layer], ...]:
        """Every layer with where it is written (``layers[2]``, ``layers[2].layers[0]``): a repeat group's own
        layers after it."""
        def walk(at: str, layers: tuple[Layer, ...]) -> list[tuple[str, Layer]]:
            found: list[tuple[str, Layer]] = []
            for index, layer in enumerate(layers):
                found.append((f"{at}layers[{index}]", layer))
                if isinstance(layer, Repeat):
                    found += walk(f"{at}layers[{index}].", layer.layers)
            return found
        return tuple(walk("", self.layers))

    def font_px(self, size: float, scale: float) -> float:
        """A font size of the template (px, or points in a mm template) in pixels at ``scale`` px per unit."""
        return size * scale * (MM_PER_POINT if self.units == "mm" else 1.0)


def mm_to_px(mm: float, dpi: float) -> int:
    return max(1, round(mm / 25.4 * dpi))


def parse_template(file: str, kind: str, spec: Mapping[str, Any], *, width: float, height: float, units: str,
                   game_fonts: Path | None, bundled_fonts: Path, transparent: bool = False) -> Template:
    """The template of layout ``kind`` from its ``layers`` (``spec["layers"]``), ``width`` × ``height`` in
    ``units``. Fonts are looked up in ``game_fonts`` (the game folder's ``fonts/``), then ``bundled_fonts``.
    A ``transparent`` template starts from a clear canvas instead of white."""
    entry = f'layout "{kind}"'
    raw = spec.get("layers")
    if not isinstance(raw, list) or not raw or not all(isinstance(layer, dict) for layer in raw):
        raise DataError(file, entry, "layers", "must be a non-empty array of tables ([[layouts.<kind>.layers]])")
    if len(raw) > MAX_LAYERS:
        raise DataError(file, entry, "layers", f"at most {MAX_LAYERS} layers")
    layers = []
    names: set[str] = set()
    for index, layer_spec in enumerate(raw):
        layer = _layer(file, entry, f"layers[{index}]", index, layer_spec, width, height, game_fonts, bundled_fonts)
        if layer.name in names:
            raise DataError(file, entry, f"layers[{index}].name", f'"{layer.name}" names another layer too')
        names.add(layer.name)
        layers.append(layer)
    return Template(kind, units, float(width), float(height), tuple(layers), transparent)


_KINDS = {"shape": "shape", "image": "image", "picture": "picture", "text": "text", "repeat": "repeat"}
_COMMON = {"name", "box", "when", "unless"}
_FIELDS = {
    "shape": _COMMON | {"shape", "fill", "outline", "stroke", "radius"},
    "image": _COMMON | {"image", "fit", "tint", "placeholder"},
    "picture": _COMMON | {"picture", "colours", "tint"},
    "text": _COMMON | {"text", "font", "bold_font", "italic_font", "size", "colour", "align", "valign",
                       "line_spacing", "rotation", "body", "size_group"},
    "repeat": _COMMON | {"repeat", "as", "cell", "direction", "spread", "stretch", "gap", "align", "layers"},
}
DIRECTIONS = ("down", "across")
PACKED_ALIGNS = ("start", "center", "end")
MAX_DEPTH = 2
"""How deep repeat groups go: a group's layers may hold a group (a panel per slot, an icon per humour of each)."""
MAX_ITEMS = 100
"""The most items a repeat group draws on one card (more is an error naming the card's field)."""


def _layer(file: str, entry: str, at: str, index: int, spec: dict, width: float, height: float,
           game_fonts: Path | None, bundled_fonts: Path, *, depth: int = 0) -> Layer:
    def error(field: str | None, message: str) -> DataError:
        return DataError(file, entry, f"{at}.{field}" if field else at, message)

    kinds = [k for k in _KINDS if k in spec]
    if len(kinds) != 1:
        raise error(None, 'give exactly one of "shape", "image", "picture", "text" and "repeat"')
    kind = kinds[0]
    unknown = sorted(set(spec) - _FIELDS[kind])
    if unknown:
        raise error(unknown[0], f"unknown field of a {kind} layer")
    name = spec.get("name", f"{kind}-{index + 1}")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise error("name", "must be a name of letters, digits, _ and - (at most 64)")
    box = _box(spec.get("box", [0, 0, width, height]), width, height, error)
    conditions = tuple(_condition(spec[key], key == "unless", error, key) for key in ("when", "unless") if key in spec)
    values: dict[str, Any] = {"kind": kind, "name": name, "box": box, "conditions": conditions, "at": at}
    if kind == "repeat":
        if depth >= MAX_DEPTH:
            raise error("repeat", f"a group inside a group cannot repeat again (at most {MAX_DEPTH} levels)")
        return _repeat(file, entry, at, spec, values, error, game_fonts, bundled_fonts, depth)
    if kind == "shape":
        values["shape"] = _choice(spec.get("shape", "rect"), SHAPES, error, "shape")
        for key in ("fill", "outline"):
            if key in spec:
                values[key] = _colour(spec[key], error, key)
        if "fill" not in values and "outline" not in values:
            raise error(None, 'a shape needs a "fill", an "outline" or both')
        values["stroke"] = _length(spec.get("stroke", 0 if "outline" not in values else min(width, height) / 200),
                                   error, "stroke", low=0)
        if "outline" in values and values["stroke"] <= 0:
            raise error("stroke", "an outline needs a stroke width above 0")
        values["radius"] = _length(spec.get("radius", 0), error, "radius", low=0)
    elif kind == "image":
        values["image"] = _template_string(spec["image"], error, "image")
        values["fit"] = _choice(spec.get("fit", "crop"), FITS, error, "fit")
        for key in ("tint", "placeholder"):
            if key in spec:
                values[key] = _colour(spec[key], error, key)
    elif kind == "picture":
        picture = spec["picture"]
        if not isinstance(picture, str) or not (PICTURE_NAME.fullmatch(picture) or FIELD.fullmatch(picture)):
            raise error("picture", 'must be a picture\'s name (letters, digits, _ and -) or "{field}" naming one')
        values["picture"] = picture
        colours = spec.get("colours", [])
        if not isinstance(colours, list) or len(colours) > 32:
            raise error("colours", 'must be a list of at most 32 colours ("#rrggbb", names of [colours], "{field}")')
        values["colours"] = tuple(_colour(c, error, "colours") for c in colours)
        if "tint" in spec:
            values["tint"] = _colour(spec["tint"], error, "tint")
    else:
        values["text"] = _template_string(spec["text"], error, "text", empty_ok=True)
        values["font"] = _font(spec.get("font", DEFAULT_FONT), error, "font", game_fonts, bundled_fonts)
        for key in ("bold_font", "italic_font"):
            if key in spec:
                values[key] = _font(spec[key], error, key, game_fonts, bundled_fonts)
        size = spec.get("size")
        if size is None:
            raise error("size", "missing: a font size, or a range [min, max] to fit the text in its box")
        if isinstance(size, (int, float)) and not isinstance(size, bool):
            size = [size, size]
        if (not isinstance(size, list) or len(size) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in size)):
            raise error("size", "must be a number or [min, max]")
        if not 1 <= size[0] <= size[1] <= 1000:
            raise error("size", "must be 1..1000, min no larger than max")
        values["size"] = (float(size[0]), float(size[1]))
        values["colour"] = _colour(spec.get("colour", "#000000"), error, "colour")
        values["align"] = _choice(spec.get("align", "left"), ALIGNS, error, "align")
        values["valign"] = _choice(spec.get("valign", "top"), VALIGNS, error, "valign")
        spacing = spec.get("line_spacing", 1.15)
        if not isinstance(spacing, (int, float)) or isinstance(spacing, bool) or not 0.8 <= spacing <= 3:
            raise error("line_spacing", "must be a number 0.8..3")
        values["line_spacing"] = float(spacing)
        values["rotation"] = _choice(spec.get("rotation", 0), ROTATIONS, error, "rotation")
        body = spec.get("body", False)
        if not isinstance(body, bool):
            raise error("body", "must be true or false")
        if body and depth:
            raise error("body", "a repeated text cannot be the body text (a card has one, at one place)")
        values["body"] = body
        group = spec.get("size_group", "")
        if not isinstance(group, str) or (group and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", group)):
            raise error("size_group", "must be a name of letters, digits, _ and - (at most 64)")
        values["size_group"] = group
    return Layer(**values)


def _repeat(file: str, entry: str, at: str, spec: dict, values: dict[str, Any], error, game_fonts: Path | None,
            bundled_fonts: Path, depth: int) -> Repeat:
    """A repeat group: its list field, its cell and how items lie in its box, and its own layers (parsed in the
    cell, as a card's are in the card)."""
    repeat = spec["repeat"]
    if not isinstance(repeat, str) or not FIELD.fullmatch("{" + repeat + "}"):
        raise error("repeat", "must be the name of a field holding a list")
    item = spec.get("as", "item")
    if not isinstance(item, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", item):
        raise error("as", "must be a name of letters, digits and _ (what an item is called in its layers)")
    cell = spec.get("cell")
    if (not isinstance(cell, list) or len(cell) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in cell)):
        raise error("cell", "missing or wrong: an item's box as [width, height] (its layers lie inside it)")
    cell_w, cell_h = float(cell[0]), float(cell[1])
    box = values["box"]
    if cell_w > box[2] + 1e-6 or cell_h > box[3] + 1e-6:
        raise error("cell", f"[{cell_w:g}, {cell_h:g}] is larger than the group's box ({box[2]:g} x {box[3]:g})")
    direction = _choice(spec.get("direction", "down"), DIRECTIONS, error, "direction")
    spread = spec.get("spread", True)
    if not isinstance(spread, bool):
        raise error("spread", "must be true or false")
    stretch = spec.get("stretch", False)
    if not isinstance(stretch, bool):
        raise error("stretch", "must be true or false")
    align = _choice(spec.get("align", "start"), PACKED_ALIGNS, error, "align")
    if "align" in spec and spread:
        raise error("align", "places packed items (spread = false): spread items fill the box")
    gap = _length(spec.get("gap", 0), error, "gap", low=0)
    raw = spec.get("layers")
    if not isinstance(raw, list) or not raw or not all(isinstance(layer, dict) for layer in raw):
        raise error("layers", "must be a non-empty array of tables (an item's layers)")
    if len(raw) > MAX_LAYERS:
        raise error("layers", f"at most {MAX_LAYERS} layers")
    layers = []
    names: set[str] = set()
    for index, child in enumerate(raw):
        layer = _layer(file, entry, f"{at}.layers[{index}]", index, child, cell_w, cell_h, game_fonts,
                       bundled_fonts, depth=depth + 1)
        if layer.name in names:
            raise DataError(file, entry, f"{at}.layers[{index}].name", f'"{layer.name}" names another layer too')
        names.add(layer.name)
        layers.append(layer)
    for index, layer in enumerate(layers):
        if isinstance(layer, Repeat) and layer.item == item:
            raise DataError(file, entry, f"{at}.layers[{index}].as", f'"{item}" names the outer group\'s item: '
                                                                     f'give this group\'s items another name')
    return Repeat(**values, repeat=repeat, item=item, cell=(cell_w, cell_h), direction=direction, spread=spread,
                 stretch=stretch, gap=gap, align=align, layers=tuple(layers))


def item_count(value: Any) -> int:
    """How many items a repeat group draws for its field's value: a list's length, none for anything else."""
    return len(value) if isinstance(value, list) else 0


def expand(template: Template, counts: tuple[int, ...]) -> Template:
    """``template`` with each of its repeat groups replaced by its layers, once per item (``counts``: the number of
    items of each group, in order), each where its item's cell lies: ``{item.name}`` becomes
    ``{<list>.<n>.name}``, so a card draws, checks and names fields as for any layer (an error names
    ``powers.2.text``). A group inside a group becomes a group of the card, one per outer item (its list
    ``{<list>.<n>.<inner list>}``): expand again for those (:func:`laid_out`).

    The items share the group's box along its ``direction``. With ``spread`` each gets an equal slot, its cell
    centred in it; else they follow each other a ``gap`` apart, placed at the box's start, centre or end
    (``align``). With ``stretch`` a cell changes its length along the direction only, its boxes with it and
    nothing else (font sizes, strokes, corners): spread, it fills its slot exactly (a table's columns); packed,
    it is squeezed when the items need more room than the box has. Otherwise items that need more room than the
    box has are drawn smaller, each cell scaled (its boxes, strokes, corners and font sizes) to fit."""
    if not template.repeats:
        return template
    layers: list[Layer] = []
    groups = iter(counts)
    for layer in template.layers:
        if not isinstance(layer, Repeat):
            layers.append(layer)
            continue
        count = next(groups)
        x, y, w, h = layer.box
        cell_w, cell_h = layer.cell
        down = layer.direction == "down"
        length, cell_length = (h, cell_h) if down else (w, cell_w)
        scale, factor, first, slot = 1.0, 1.0, 0.0, 0.0
        if count and layer.spread:
            slot = length / count
            if layer.stretch:
                factor = slot / cell_length
            else:
                scale = min(1.0, slot / cell_length)
                first = (slot - cell_length * scale) / 2
        elif count:
            fits = (length - (count - 1) * layer.gap) / (count * cell_length)
            if layer.stretch:
                factor = min(1.0, fits)
            else:
                scale = min(1.0, fits)
            slot = cell_length * scale * factor + layer.gap * scale
            used = slot * count - layer.gap * scale
            first = {"start": 0.0, "center": (length - used) / 2, "end": length - used}[layer.align]
        stretch = (1.0, factor) if down else (factor, 1.0)
        for n in range(count):
            along = first + n * slot
            origin = (x, y + along) if down else (x + along, y)
            layers += [_placed(child, layer, n + 1, origin, scale, stretch) for child in layer.layers]
    return replace(template, layers=tuple(layers))


def laid_out(template: Template, count_of) -> Template:
    """``template`` with every repeat group, inner ones too, made plain layers (:func:`expand` until none is
    left); ``count_of(group)`` is the number of items a group of the card draws."""
    while template.repeats:
        template = expand(template, tuple(count_of(group) for group in template.repeats))
    return template


def _placed(child: Layer, group: Repeat, number: int, origin: tuple[float, float], scale: float,
            stretch: tuple[float, float] = (1.0, 1.0), *, renamed: bool = True) -> Layer:
    """Item ``number``'s copy of a repeat group's layer ``child``: its box in the card (scaled, and stretched
    across and down), its sizes scaled, its item fields made the list's."""
    prefix = f"{group.repeat}.{number}"

    def of_item(text: str) -> str:
        def swap(match: re.Match) -> str:
            head, _, rest = match.group(1).partition(".")
            if head != group.item:
                return match.group(0)
            return "{" + prefix + (f".{rest}" if rest else "") + "}"
        return _ITEM_FIELD.sub(swap, text) if text else text

    bx, by, bw, bh = child.box
    conditions = tuple(replace(c, field=of_item("{" + c.field + "}")[1:-1]) for c in child.conditions)
    if isinstance(child, Repeat):
        # the inner group, one per outer item: its list and its layers read this item; its cells keep their size
        # (scaled with the outer cell, never stretched: an icon stays round)
        inner = tuple(_placed(grandchild, group, number, (0.0, 0.0), scale, renamed=False)
                      for grandchild in child.layers)
        return replace(
            child, name=f"{group.name}-{number}-{child.name}",
            box=(origin[0] + bx * scale * stretch[0], origin[1] + by * scale * stretch[1], bw * scale * stretch[0],
                 bh * scale * stretch[1]),
            conditions=group.conditions + conditions, repeat=of_item("{" + child.repeat + "}")[1:-1],
            cell=(child.cell[0] * scale, child.cell[1] * scale), gap=child.gap * scale, layers=inner)
    return replace(
        child, name=f"{group.name}-{number}-{child.name}" if renamed else child.name,
        box=(origin[0] + bx * scale * stretch[0], origin[1] + by * scale * stretch[1], bw * scale * stretch[0],
             bh * scale * stretch[1]),
        conditions=(group.conditions if renamed else ()) + conditions,
        fill=of_item(child.fill) if child.fill else child.fill,
        outline=of_item(child.outline) if child.outline else child.outline,
        stroke=child.stroke * scale, radius=child.radius * scale,
        image=of_item(child.image), tint=of_item(child.tint) if child.tint else child.tint,
        placeholder=of_item(child.placeholder) if child.placeholder else child.placeholder,
        picture=of_item(child.picture), colours=tuple(of_item(c) for c in child.colours),
        text=of_item(child.text), colour=of_item(child.colour),
        size=(child.size[0] * scale, child.size[1] * scale))


def _condition(value: Any, negate: bool, error, key: str) -> Condition:
    """``when``/``unless``: a field name (it has a value), or ``{ field = "...", is = value or [values] }``."""
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*", value):
        return Condition(value, (), negate)
    if isinstance(value, dict) and set(value) == {"field", "is"} and isinstance(value["field"], str):
        wanted = value["is"] if isinstance(value["is"], list) else [value["is"]]
        if wanted and all(isinstance(v, (str, int, float, bool)) for v in wanted):
            return Condition(value["field"], tuple(wanted), negate)
    raise error(key, 'must be a field name, or { field = "name", is = value or [values] }')


def _box(value: Any, width: float, height: float, error) -> tuple[float, float, float, float]:
    if (not isinstance(value, list) or len(value) != 4
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise error("box", "must be [x, y, width, height]")
    x, y, w, h = (float(v) for v in value)
    if w <= 0 or h <= 0:
        raise error("box", "width and height must be positive")
    slack = 1e-6 * max(width, height)
    if x < -slack or y < -slack or x + w > width + slack or y + h > height + slack:
        raise error("box", f"[{x:g}, {y:g}, {w:g}, {h:g}] lies outside the {width:g} x {height:g} card")
    return x, y, w, h


def _length(value: Any, error, field: str, *, low: float) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= 10_000:
        raise error(field, f"must be a number {low:g}..10000")
    return float(value)


def _choice(value: Any, allowed: tuple, error, field: str):
    if value not in allowed or isinstance(value, bool):
        raise error(field, f"must be one of {', '.join(str(a) for a in allowed)}")
    return value


def _template_string(value: Any, error, field: str, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise error(field, "must be a text")
    for match in _BRACES.finditer(value):
        token = match.group(0)
        if token in ("{{", "}}") or token.startswith("{icon:") or FIELD.fullmatch(token):
            continue
        raise error(field, f'"{token}" is neither a {{field}} nor {{icon:name}} (write {{{{ and }}}} for braces)')
    return value


def _colour(value: Any, error, field: str) -> str:
    if not isinstance(value, str):
        raise error(field, 'must be "#rrggbb", a colour name of [colours] or "{field}"')
    if is_colour(value) or FIELD.fullmatch(value) or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", value):
        return value
    raise error(field, f'"{value}" is not "#rrggbb", a colour name of [colours] or "{{field}}"')


def _font(value: Any, error, field: str, game_fonts: Path | None, bundled_fonts: Path) -> Font:
    if (not isinstance(value, str) or not value or "/" in value or "\\" in value or value.startswith(".")
            or not value.lower().endswith(FONT_SUFFIXES)):
        raise error(field, "must be a font file name (.ttf, .otf) in the game folder's fonts/")
    if game_fonts is not None and (game_fonts / value).is_file():
        if not (game_fonts / value).resolve().is_relative_to(game_fonts.resolve()):
            raise error(field, f'fonts/{value} leads outside the game folder')
        return Font(value, True)
    if (bundled_fonts / value).is_file():
        return Font(value, False)
    raise error(field, f'"{value}" is neither in the game folder\'s fonts/ nor one of ttsmod\'s fonts')


def check_colour_names(template: Template, colours: Mapping[str, Any], file: str) -> None:
    """A colour name a layer uses must be one of ``[colours]`` (fields are checked when a card is drawn)."""
    for at, layer in template.all_layers():
        for key, value in (("fill", layer.fill), ("outline", layer.outline), ("colour", layer.colour),
                           ("tint", layer.tint), ("placeholder", layer.placeholder),
                           *(("colours", c) for c in layer.colours)):
            if value and not is_colour(value) and not FIELD.fullmatch(value) and value not in colours:
                raise DataError(file, f'layout "{template.kind}"', f"{at}.{key}",
                                f'"{value}" is not a colour of [colours]')
