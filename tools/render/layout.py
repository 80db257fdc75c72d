"""Card layouts as data: ``assets/<game>/layouts.toml`` → validated :class:`Layouts`.

A layout names, per card kind, the image size and the *boxes* the renderer fills (Squib/nanDECK habit: data
fills boxes, the code only knows box names).  A box is ``[x, y, width, height]`` in pixels plus, for text
boxes, a font file from ``assets/fonts/``, a size range ``[min, max]``, alignment and colour.  The file also
holds the palette (zone, player and ink colours) and the short interface strings printed on cards.

Format (documented in ``docs/data-format.md``, "Layouts")::

    [colours]            # name = "#rrggbb"; "zones" is a list the renderer cycles through (board zones)
    [player_colours]     # TTS seat colour name = "#rrggbb"
    [strings.<id>]       # en/uk/ru texts printed on cards ("win", "discard", ...)
    [layouts.<kind>]     # size = [w, h] (or tile_size = [w, h] for boards), optional integer params,
                         # optional size_mm = [w, h]: the printed size in millimetres (ttsmod pnp; of one tile for boards)
    [layouts.<kind>.boxes]  # name = { box = [x, y, w, h], font = "...", size = [min, max], align, valign,
                            #          colour, line_spacing, anchor = "card" | "cell" }
    [[layouts.<kind>.layers]]   # instead of boxes: a card template drawn from data (tools.render.template),
                                # with units = "px" and size, or units = "mm" and size_mm

Every error is a :class:`DataError` naming the file, ``layout "<kind>"`` and the field.  Boxes anchored to
the card must lie inside it; ``anchor = "cell"`` boxes are relative to a cell centre (boards) and may be
negative.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from bridge.errors import DataError
from bridge.rules.game import LANGUAGES
from tools.render.colour import parse_colour  # noqa: F401  (re-exported: the renderers import it from here)
from tools.render.template import DESIGN_DPI, UNITS, Template, check_colour_names, parse_template

ALIGNS = ("left", "center", "right")
VALIGNS = ("top", "middle", "bottom")
ANCHORS = ("card", "cell")
NUMERIC_PARAMS = ("frame", "cell_radius", "icon_size", "radius")
MAX_SIZE = 4096


@dataclass(frozen=True)
class Box:
    """A rectangle of a layout; text boxes also carry font, size range, alignment and colour."""

    name: str
    x: int
    y: int
    width: int
    height: int
    font: str | None = None
    size_min: int = 0
    size_max: int = 0
    align: str = "left"
    valign: str = "top"
    colour: tuple[int, int, int] = (0, 0, 0)
    line_spacing: float = 1.15
    anchor: str = "card"
    origin: "tuple[Box, float, float, float] | None" = field(default=None, repr=False)
    """For a box of a layout drawn at another size (:meth:`scaled`): the design box and the factors it was scaled
    by, so a text is laid out as at the design size (the same lines) and drawn at this size."""

    @property
    def rect(self) -> tuple[int, int, int, int]:
        """``(left, top, right, bottom)``, right/bottom exclusive."""
        return self.x, self.y, self.x + self.width, self.y + self.height

    def scaled(self, fx: float, fy: float, factor: float) -> "Box":
        """The box as it lies on the image drawn at ``fx`` × the design width and ``fy`` × its height: its
        rectangle scaled (each side at least 1 px), its font size range scaled by ``factor`` (the smaller of
        the two; the minimum rounded down, so a text that fits at the design size keeps room to fit)."""
        if fx == fy == factor == 1:
            return self
        if self.origin is not None:   # scaled again: from the design box, by the factors multiplied
            design, dx, dy, dfactor = self.origin
            return design.scaled(dx * fx, dy * fy, dfactor * factor)
        x, y = round(self.x * fx), round(self.y * fy)
        width = max(1, round((self.x + self.width) * fx) - x)
        height = max(1, round((self.y + self.height) * fy) - y)
        size_min = max(1, math.floor(self.size_min * factor)) if self.size_min else 0
        size_max = max(size_min, round(self.size_max * factor)) if self.size_max else 0
        return replace(self, x=x, y=y, width=width, height=height, size_min=size_min, size_max=size_max,
                       origin=(self, fx, fy, factor))

    def design_layout(self) -> "tuple[Box, float] | None":
        """The design box this box is exactly the scaled form of, and the font factor; None for a design box or
        a box made from a scaled one (moved, resized: no longer the design's)."""
        if self.origin is None:
            return None
        design, fx, fy, factor = self.origin
        if design.scaled(fx, fy, factor) != self:
            return None
        return design, factor

    def moved(self, dx: int, dy: int) -> "Box":
        """The same box shifted by ``(dx, dy)`` (for cell-anchored boxes)."""
        return Box(self.name, self.x + dx, self.y + dy, self.width, self.height, self.font, self.size_min,
                   self.size_max, self.align, self.valign, self.colour, self.line_spacing, "card")


@dataclass(frozen=True)
class CardLayout:
    """The layout of one card kind: pixel size (or tile size for boards), integer params and boxes."""

    kind: str
    width: int
    height: int
    boxes: Mapping[str, Box]
    params: Mapping[str, int] = field(default_factory=dict)
    tiled: bool = False  # True: width/height are one board tile's size
    size_mm: tuple[float, float] | None = None  # printed size in millimetres (``ttsmod pnp``); not in fingerprint
    template: "Template | None" = None  # its layers, for a layout drawn from data (tools.render.template)

    def box(self, name: str) -> Box:
        return self.boxes[name]

    def scaled(self, size: tuple[int, int]) -> "CardLayout":
        """This layout drawn at ``size`` pixels (of one tile for a tiled layout) instead of its design size:
        boxes scaled on each axis, font size ranges and the integer params (frame, radii, icon sizes) by the
        smaller factor, a param that was positive staying at least 1 px. ``size_mm`` is kept (the printed
        size does not change with the pixels)."""
        width, height = size
        if (width, height) == (self.width, self.height):
            return self
        fx, fy = width / self.width, height / self.height
        factor = min(fx, fy)
        boxes = {name: box.scaled(fx, fy, factor) for name, box in self.boxes.items()}
        params = {k: (max(1, round(v * factor)) if v > 0 else 0) for k, v in self.params.items()}
        return CardLayout(self.kind, width, height, boxes, params, self.tiled, self.size_mm, self.template)

    def scaled_by(self, factor: float) -> "CardLayout":
        """This layout drawn at ``factor`` × its design size (each side rounded, at least 1 px)."""
        return self.scaled((max(1, round(self.width * factor)), max(1, round(self.height * factor))))

    def fingerprint(self) -> str:
        """A stable text of everything in this layout (part of each card's cache key)."""
        # Kept once made (the layout is frozen): every card's key asks for it, 10,000 times in a big game.
        known = self.__dict__.get("_fingerprint")
        if known is None:
            boxes = ";".join(repr(self.boxes[k]) for k in sorted(self.boxes))
            params = ";".join(f"{k}={self.params[k]}" for k in sorted(self.params))
            template = self.template.fingerprint() if self.template is not None else "None"
            known = f"{self.kind}|{self.width}x{self.height}|{self.tiled}|{params}|{boxes}|{template}"
            self.__dict__["_fingerprint"] = known
        return known


@dataclass(frozen=True)
class Layouts:
    """A whole ``layouts.toml``: layouts by kind, colours, player colours and card strings."""

    file: str
    layouts: Mapping[str, CardLayout]
    colours: Mapping[str, tuple[int, int, int]]
    zone_colours: tuple[tuple[int, int, int], ...]
    player_colours: Mapping[str, tuple[int, int, int]]
    strings: Mapping[str, Mapping[str, str]]

    def string(self, key: str, lang: str) -> str:
        return self.strings[key][lang]

    def scaled(self, factor: float, exact: Mapping[str, tuple[int, int]] | None = None) -> "Layouts":
        """Every layout drawn at ``factor`` × its design size (:meth:`CardLayout.scaled_by`), those of
        ``exact`` (kind → pixel size) at exactly that size; colours and strings unchanged."""
        exact = exact or {}
        layouts = {kind: layout.scaled(exact[kind]) if kind in exact else layout.scaled_by(factor)
                   for kind, layout in self.layouts.items()}
        return Layouts(self.file, layouts, self.colours, self.zone_colours, self.player_colours, self.strings)

    def fingerprint(self) -> str:
        """A stable text of the palette and strings (part of each card's cache key)."""
        known = self.__dict__.get("_fingerprint")   # kept once made, as CardLayout.fingerprint
        if known is None:
            known = self.__dict__["_fingerprint"] = repr((
                sorted(self.colours.items()), self.zone_colours, sorted(self.player_colours.items()),
                sorted((k, sorted(v.items())) for k, v in self.strings.items())))
        return known


BoxSpec = Mapping[str, bool]  # box name → is a text box (needs a font)


def load_layouts(
    path: Path,
    *,
    fonts_dir: Path,
    required: Mapping[str, BoxSpec] | None = None,
    required_strings: tuple[str, ...] = (),
    required_colours: tuple[str, ...] = (),
) -> Layouts:
    """Read and validate a layouts file.

    ``required`` maps each card kind the caller renders to its required boxes (``True`` = text box, which
    must name a font present in ``fonts_dir``).  Raises :class:`DataError` for unreadable TOML, unknown or
    malformed fields, boxes outside their card, missing fonts, kinds, boxes, strings or colours.
    """
    file = Path(path).name
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(file, None, None, "file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DataError(file, None, None, f"not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses on nested arrays and inline tables
        raise DataError(file, None, None, "arrays or inline tables nested too deeply to read") from None

    unknown = set(raw) - {"colours", "player_colours", "strings", "layouts"}
    if unknown:
        raise DataError(file, None, sorted(unknown)[0], "unknown table")

    def colour(entry: str | None, fld: str, value: Any) -> tuple[int, int, int]:
        try:
            return parse_colour(value)
        except ValueError as exc:
            raise DataError(file, entry, fld, str(exc)) from None

    colours: dict[str, tuple[int, int, int]] = {}
    zone_colours: tuple[tuple[int, int, int], ...] = ()
    for key, value in _table(file, None, "colours", raw.get("colours", {})).items():
        if key == "zones":
            if not isinstance(value, list) or not value:
                raise DataError(file, None, "colours.zones", "must be a non-empty list of colours")
            zone_colours = tuple(colour(None, f"colours.zones[{i}]", v) for i, v in enumerate(value))
        else:
            colours[key] = colour(None, f"colours.{key}", value)
    for key in required_colours:
        if key == "zones" and not zone_colours:
            raise DataError(file, None, "colours.zones", "missing")
        if key != "zones" and key not in colours:
            raise DataError(file, None, f"colours.{key}", "missing")

    player_colours = {
        k: colour(None, f"player_colours.{k}", v)
        for k, v in _table(file, None, "player_colours", raw.get("player_colours", {})).items()
    }

    strings: dict[str, dict[str, str]] = {}
    for key, value in _table(file, None, "strings", raw.get("strings", {})).items():
        texts = _table(file, f'string "{key}"', "", value)
        for lang in LANGUAGES:
            if not isinstance(texts.get(lang), str) or not texts[lang].strip():
                raise DataError(file, f'string "{key}"', lang, "missing or empty text")
        extra = set(texts) - set(LANGUAGES)
        if extra:
            raise DataError(file, f'string "{key}"', sorted(extra)[0], "unknown language")
        strings[key] = {lang: texts[lang] for lang in LANGUAGES}
    for key in required_strings:
        if key not in strings:
            raise DataError(file, f'string "{key}"', None, "missing")

    layouts: dict[str, CardLayout] = {}
    game_fonts = Path(path).parent / "fonts"
    for kind, spec in _table(file, None, "layouts", raw.get("layouts", {})).items():
        layouts[kind] = _layout(file, kind, _table(file, f'layout "{kind}"', "", spec), fonts_dir,
                                (required or {}).get(kind, {}), game_fonts)
        if layouts[kind].template is not None:
            check_colour_names(layouts[kind].template, colours, file)
    for kind, boxes in (required or {}).items():
        if kind not in layouts:
            raise DataError(file, f'layout "{kind}"', None, "missing")
    return Layouts(file, layouts, colours, zone_colours, player_colours, strings)


def _table(file: str, entry: str | None, fld: str, value: Any) -> dict:
    if not isinstance(value, dict):
        raise DataError(file, entry, fld or None, "must be a table")
    return value


def _int_pair(file: str, entry: str, fld: str, value: Any, *, low: int, high: int) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise DataError(file, entry, fld, "must be two integers")
    if not all(low <= v <= high for v in value):
        raise DataError(file, entry, fld, f"values must be {low}..{high}")
    return value[0], value[1]


def _layout(file: str, kind: str, spec: dict, fonts_dir: Path, required: BoxSpec,
            game_fonts: Path | None = None) -> CardLayout:
    entry = f'layout "{kind}"'
    if "layers" in spec or "units" in spec:
        return _template_layout(file, kind, spec, fonts_dir, game_fonts)
    known = {"size", "tile_size", "size_mm", "boxes", *NUMERIC_PARAMS}
    unknown = set(spec) - known
    if unknown:
        raise DataError(file, entry, sorted(unknown)[0], "unknown field")
    if ("size" in spec) == ("tile_size" in spec):
        raise DataError(file, entry, "size", 'give exactly one of "size" and "tile_size"')
    tiled = "tile_size" in spec
    fld = "tile_size" if tiled else "size"
    width, height = _int_pair(file, entry, fld, spec[fld], low=16, high=MAX_SIZE)
    params: dict[str, int] = {}
    for key in NUMERIC_PARAMS:
        if key in spec:
            value = spec[key]
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_SIZE:
                raise DataError(file, entry, key, f"must be an integer 0..{MAX_SIZE}")
            params[key] = value
    boxes: dict[str, Box] = {}
    for name, box_spec in _table(file, entry, "boxes", spec.get("boxes", {})).items():
        boxes[name] = _box(file, entry, f"boxes.{name}", name, _table(file, entry, f"boxes.{name}", box_spec),
                           width, height, fonts_dir)
    for name, is_text in required.items():
        if name not in boxes:
            raise DataError(file, entry, f"boxes.{name}", "missing")
        if is_text and boxes[name].font is None:
            raise DataError(file, entry, f"boxes.{name}.font", "missing (a text box needs a font)")
    size_mm = _size_mm(file, entry, spec["size_mm"], width, height, tiled) if "size_mm" in spec else None
    return CardLayout(kind, width, height, boxes, params, tiled, size_mm)


def _template_layout(file: str, kind: str, spec: dict, fonts_dir: Path, game_fonts: Path | None) -> CardLayout:
    """A layout drawn from its ``layers`` (:mod:`tools.render.template`): ``units = "px"`` with ``size``, or
    ``units = "mm"`` with ``size_mm`` (designed at :data:`tools.render.template.DESIGN_DPI`)."""
    entry = f'layout "{kind}"'
    unknown = set(spec) - {"units", "size", "size_mm", "layers", "transparent"}
    if unknown:
        raise DataError(file, entry, sorted(unknown)[0], "unknown field of a layout drawn from layers")
    transparent = spec.get("transparent", False)
    if not isinstance(transparent, bool):
        raise DataError(file, entry, "transparent", "must be true or false")
    units = spec.get("units", "px")
    if units not in UNITS:
        raise DataError(file, entry, "units", f'must be one of {", ".join(UNITS)}')
    if units == "px":
        if "size" not in spec:
            raise DataError(file, entry, "size", 'missing: a "px" layout gives its size = [width, height]')
        width, height = _int_pair(file, entry, "size", spec["size"], low=16, high=MAX_SIZE)
        size_mm = _size_mm(file, entry, spec["size_mm"], width, height, False) if "size_mm" in spec else None
        template = parse_template(file, kind, spec, width=width, height=height, units=units,
                                  game_fonts=game_fonts, bundled_fonts=fonts_dir, transparent=transparent)
    else:
        if "size" in spec:
            raise DataError(file, entry, "size", 'a "mm" layout gives size_mm only (its pixels follow from it)')
        if "size_mm" not in spec:
            raise DataError(file, entry, "size_mm", 'missing: a "mm" layout gives its size_mm = [width, height]')
        value = spec["size_mm"]
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
                or not all(MM_RANGE[0] <= v <= MM_RANGE[1] for v in value)):
            raise DataError(file, entry, "size_mm", f"must be two numbers {MM_RANGE[0]:g}..{MM_RANGE[1]:g} mm")
        size_mm = (float(value[0]), float(value[1]))
        template = parse_template(file, kind, spec, width=size_mm[0], height=size_mm[1], units=units,
                                  game_fonts=game_fonts, bundled_fonts=fonts_dir, transparent=transparent)
        width, height = template.design_size
        if max(width, height) > MAX_SIZE:
            raise DataError(file, entry, "size_mm", f"{size_mm[0]:g} x {size_mm[1]:g} mm is over {MAX_SIZE} px "
                                                    f"at {DESIGN_DPI} dpi")
    return CardLayout(kind, width, height, {}, {}, False, size_mm, template)


MM_RANGE = (5.0, 2000.0)
"""Smallest and largest printed side, in millimetres, a ``size_mm`` may give."""
MM_ASPECT_TOLERANCE = 0.01
"""How far (relative) ``size_mm``'s width/height ratio may stray from the pixel size's: a face is never stretched."""


def _size_mm(file: str, entry: str, value: Any, width: int, height: int, tiled: bool) -> tuple[float, float]:
    """``size_mm = [w, h]``: two numbers in :data:`MM_RANGE`, of the pixel size's shape (within 1 %); with
    ``tile_size`` it is one tile's printed size."""
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise DataError(file, entry, "size_mm", "must be two numbers [width, height] in millimetres")
    low, high = MM_RANGE
    if not all(low <= v <= high for v in value):
        raise DataError(file, entry, "size_mm", f"values must be {low:g}..{high:g} mm")
    mm_w, mm_h = float(value[0]), float(value[1])
    if abs((mm_w / mm_h) / (width / height) - 1) > MM_ASPECT_TOLERANCE:
        raise DataError(file, entry, "size_mm", f"[{mm_w:g}, {mm_h:g}] mm is not the shape of the {width}x{height} "
                                                "px image (the face would be stretched)")
    return mm_w, mm_h


def _box(file: str, entry: str, fld: str, name: str, spec: dict, width: int, height: int,
         fonts_dir: Path) -> Box:
    known = {"box", "font", "size", "align", "valign", "colour", "line_spacing", "anchor"}
    unknown = set(spec) - known
    if unknown:
        raise DataError(file, entry, f"{fld}.{sorted(unknown)[0]}", "unknown field")
    if "box" not in spec:
        raise DataError(file, entry, f"{fld}.box", "missing")
    rect = spec["box"]
    if (not isinstance(rect, list) or len(rect) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in rect)):
        raise DataError(file, entry, f"{fld}.box", "must be [x, y, width, height] in integers")
    x, y, w, h = rect
    anchor = spec.get("anchor", "card")
    if anchor not in ANCHORS:
        raise DataError(file, entry, f"{fld}.anchor", f'must be one of {", ".join(ANCHORS)}')
    if w <= 0 or h <= 0:
        raise DataError(file, entry, f"{fld}.box", "width and height must be positive")
    if anchor == "card" and (x < 0 or y < 0 or x + w > width or y + h > height):
        raise DataError(file, entry, f"{fld}.box", f"[{x}, {y}, {w}, {h}] lies outside the {width}x{height} card")
    font = spec.get("font")
    if font is not None:
        if not isinstance(font, str) or "/" in font or "\\" in font or font.startswith("."):
            raise DataError(file, entry, f"{fld}.font", "must be a font file name in assets/fonts/")
        if not (fonts_dir / font).is_file():
            raise DataError(file, entry, f"{fld}.font", f'"{font}" is not in assets/fonts/')
        size_min, size_max = _int_pair(file, entry, f"{fld}.size", spec.get("size"), low=4, high=1000)
        if size_min > size_max:
            raise DataError(file, entry, f"{fld}.size", "min is larger than max")
    elif "size" in spec:
        raise DataError(file, entry, f"{fld}.size", "a size range needs a font")
    else:
        size_min = size_max = 0
    align = spec.get("align", "left")
    if align not in ALIGNS:
        raise DataError(file, entry, f"{fld}.align", f'must be one of {", ".join(ALIGNS)}')
    valign = spec.get("valign", "top")
    if valign not in VALIGNS:
        raise DataError(file, entry, f"{fld}.valign", f'must be one of {", ".join(VALIGNS)}')
    try:
        colour = parse_colour(spec.get("colour", "#000000"))
    except ValueError as exc:
        raise DataError(file, entry, f"{fld}.colour", str(exc)) from None
    spacing = spec.get("line_spacing", 1.15)
    if not isinstance(spacing, (int, float)) or isinstance(spacing, bool) or not 0.8 <= spacing <= 3:
        raise DataError(file, entry, f"{fld}.line_spacing", "must be a number 0.8..3")
    return Box(name, x, y, w, h, font, size_min, size_max, align, valign, colour, float(spacing), anchor)
