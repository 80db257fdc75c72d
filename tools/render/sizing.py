"""Drawing a face at the size of its output: a renderer lays a face out once, in its layout's design pixels,
and draws it at any size from that layout.

:class:`DrawsAtSize` is the part every game's renderer shares. ``render(name, size)`` draws image ``name`` at
``size`` pixels: the renderer is copied with its layouts scaled (:meth:`tools.render.layout.Layouts.scaled`:
boxes, font size ranges, frame widths, radii and icon sizes) and the copy draws, its :attr:`DrawsAtSize.scale`
telling the drawing code the factor for its own pixel constants (:meth:`DrawsAtSize.px`). Texts are fitted at
that size (a text that cannot fit there is a :class:`bridge.errors.DataError` naming its file, entry and field,
as at the design size). Nothing is resampled: lines and text come out sharp at every size, and the same inputs
give the same pixels.

:func:`measure_text` records the texts a drawing fits (box name and font size), so the build can report how
high a deck's body text stands on its sheet (:func:`cap_height`: cap-to-baseline, in pixels).
"""

from __future__ import annotations

import contextlib
import copy
import functools
from typing import Iterator, Mapping

from PIL import Image

from tools.render import text as _text
from tools.render.layout import CardLayout, Layouts
from tools.render.text import load_font


class DrawsAtSize:
    """Mixin of a game's renderer: ``self.layouts`` (:class:`Layouts`), ``items()`` and ``draw(name)`` (the image at
    the layouts' current scale) are the renderer's; :attr:`BODY_BOXES` names, per layout kind, the boxes that hold
    a face's body text (the smallest text a player reads on it)."""

    BODY_BOXES: Mapping[str, tuple[str, ...]] = {}
    DESIGN_SIZE_ONLY: tuple[str, ...] = ()
    """Layout kinds drawn at their design size only (their drawing places things by a geometry of their own):
    asking for another size is a ``ValueError``."""
    scale: float = 1.0
    """The factor the layouts are scaled by (1 at the design size)."""

    layouts: Layouts

    def draw(self, name: str) -> Image.Image:   # pragma: no cover - every renderer defines it
        raise NotImplementedError

    def items(self) -> list[tuple[str, str]]:   # pragma: no cover - every renderer defines it
        raise NotImplementedError

    def px(self, value: float) -> int:
        """A pixel length of the design scaled to the drawing (a positive one stays at least 1 px)."""
        return max(1, round(value * self.scale)) if value > 0 else 0

    def kind_of(self, name: str) -> str:
        kinds = self.__dict__.get("_kinds")
        if kinds is None:
            kinds = self.__dict__["_kinds"] = dict(self.items())
        return kinds[name]

    def design_size(self, name: str) -> tuple[int, int] | None:
        """The pixel size image ``name`` is designed at, or None when it has no size of its own to be drawn at
        another (a tiled layout: a board is its grid of tiles; a kind of :attr:`DESIGN_SIZE_ONLY`)."""
        kind = self.kind_of(name)
        layout = self.layouts.layouts[kind]
        return None if layout.tiled or kind in self.DESIGN_SIZE_ONLY else (layout.width, layout.height)

    def body_boxes(self, name: str) -> tuple[str, ...]:
        """The names of the boxes holding the body text of image ``name`` (none for an image without)."""
        return tuple(self.BODY_BOXES.get(self.kind_of(name), ()))

    def render(self, name: str, size: tuple[int, int] | None = None) -> Image.Image:
        """Image ``name`` drawn at ``size`` pixels (its design size when None; a tiled layout's tiles are
        scaled by the width's factor). Bad data raises :class:`bridge.errors.DataError`."""
        kind = self.kind_of(name)
        layout = self.layouts.layouts[kind]
        if size is None or (not layout.tiled and tuple(size) == (layout.width, layout.height)):
            return self.draw(name)
        if kind in self.DESIGN_SIZE_ONLY:
            raise ValueError(f"{name}: drawn at its design size only, not at {size[0]}x{size[1]}")
        return self.at(layout, tuple(size)).draw(name)

    def at(self, layout: CardLayout, size: tuple[int, int]) -> "DrawsAtSize":
        """A copy of this renderer drawing ``layout``'s kind at ``size`` (a tile's size scaled alike for a tiled
        layout) and every other layout at the same factor."""
        known = self.__dict__.setdefault("_at", {})
        key = (layout.kind, size)
        found = known.get(key)
        if found is None:
            factor = min(size[0] / layout.width, size[1] / layout.height)   # relative to this renderer's layouts
            found = copy.copy(self)
            found.__dict__["_at"] = {}
            found.scale = self.scale * factor
            exact = {} if layout.tiled else {layout.kind: size}
            found.layouts = self.layouts.scaled(factor, exact)
            if "colours" in self.__dict__:
                found.colours = found.layouts.colours
            if len(known) > 16:
                known.clear()   # a few sizes at a time: sheet cells, then print faces
            known[key] = found
        return found

    def __getstate__(self) -> dict:
        # Scaled copies are made again where they are needed (a worker process draws its own sizes).
        state = dict(self.__dict__)
        state.pop("_at", None)
        return state


@contextlib.contextmanager
def measure_text() -> Iterator[list[tuple]]:
    """Record every text drawn inside the block: ``(box name, font file, font size, box rectangle, ink
    rectangle)``, rectangles ``(left, top, right, bottom)`` on the image."""
    record: list[tuple] = []
    previous = _text.recorder
    _text.recorder = record
    try:
        yield record
    finally:
        _text.recorder = previous


@functools.lru_cache(maxsize=1024)
def cap_height(font_path: str, size: int) -> int:
    """The height in pixels of a capital H above the baseline, in the font at ``font_path`` and ``size``."""
    top = load_font(font_path, size).getbbox("H", anchor="ls")[1]
    return -top


def body_text_height(record: list[tuple], boxes: tuple[str, ...]) -> int | None:
    """The smallest cap height of the texts of ``record`` (:func:`measure_text`) drawn in ``boxes`` (None when
    there are none). A box named for a repeat group of a template counts its items' texts (``resolution``:
    ``resolution-3-text``, its third item's)."""
    heights = [cap_height(font, size) for box, font, size, *_ in record if in_boxes(box, boxes)]
    return min(heights) if heights else None


def in_boxes(name: str, boxes: tuple[str, ...]) -> bool:
    """Whether a drawn text's box ``name`` is one of ``boxes`` or an item's copy of a layer of a group of them."""
    if name in boxes:
        return True
    head, _, rest = name.partition("-")
    while rest:
        number, _, tail = rest.partition("-")
        if head in boxes and number.isdigit() and tail:
            return True
        more, _, rest = rest.partition("-")
        head = f"{head}-{more}"
    return False
