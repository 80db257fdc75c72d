"""Text on cards: font loading, the missing-glyph check, and fit-to-box layout that never overflows.

``fit_text`` picks the largest size in a box's ``[size_min, size_max]`` range at which the text, wrapped at
word boundaries (words longer than the box are broken between characters), fits the box in both directions.
It measures *ink* boxes (``FreeTypeFont.getbbox``), not advances, so accents and overhangs stay inside too.
If even ``size_min`` does not fit, it raises :class:`DataError` naming the data file, entry and field — a
designer fixes the text or the layout; nothing is ever drawn outside its box.

``check_glyphs`` raises :class:`DataError` when the font lacks a glyph for any character (Pillow would draw
the font's ``.notdef`` box).  Pillow exposes no cmap, so a character counts as missing when its rendered mask
and advance equal those of a code point no font maps (U+10FFFF, a Unicode noncharacter), i.e. ``.notdef``.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import ImageDraw, ImageFont

from bridge import __version__
from bridge.errors import DataError
from bridge.fsio import atomic_write_bytes
from tools.render.layout import Box

_NOTDEF_PROBE = "\U0010ffff"
_IGNORED = {"\n", "\r", "\t"}


@lru_cache(maxsize=64)
def font_file(fonts_dir: Path, font: str) -> str:
    """The path of font ``font`` in ``fonts_dir`` as text (the key :func:`load_font` and the glyph check use): made
    once per font, as a card's dozen texts would each join the same path again."""
    return str(fonts_dir / font)


@lru_cache(maxsize=256)
def load_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    """The TrueType font at ``path`` in ``size`` px (cached per process)."""
    return ImageFont.truetype(path, size)


def _signature(font: ImageFont.FreeTypeFont, char: str) -> tuple:
    mask = font.getmask(char, mode="L")
    return mask.size, bytes(mask), font.getlength(char)


@lru_cache(maxsize=65536)
def has_glyph(font_path: str, char: str) -> bool:
    """Whether the font at ``font_path`` maps ``char`` to a real glyph (not ``.notdef``)."""
    if char in _IGNORED:
        return True
    font = load_font(font_path, 48)
    return _signature(font, char) != _signature(font, _NOTDEF_PROBE)


_DRAWABLE: dict[str, set[str]] = {}
"""Font path → the characters found to have a glyph in it so far (this process)."""


def missing_glyphs(text: str, font_path: str | Path) -> list[str]:
    """The distinct characters of ``text`` the font cannot draw, in order of appearance."""
    path = str(font_path)
    drawable = _DRAWABLE.setdefault(path, set())
    # A big game checks tens of thousands of texts made of the same few letters: one set test (in C) answers
    # for a text whose every character was found drawable before.
    if drawable.issuperset(text):
        return []
    # dict.fromkeys: each distinct character once, in order of appearance (a long text repeats its letters)
    missing = [char for char in dict.fromkeys(text) if not has_glyph(path, char)]
    drawable.update(char for char in text if char not in missing)
    return missing


def check_glyphs(text: str, font_path: str | Path, *, file: str, entry: str | None, field: str | None) -> None:
    """Raise :class:`DataError` (file/entry/field) if the font lacks a glyph for some character of ``text``."""
    missing = missing_glyphs(text, font_path)
    if missing:
        listed = ", ".join(f'"{c}" (U+{ord(c):04X})' for c in missing[:5])
        raise DataError(file, entry, field, f"font {Path(font_path).name} has no glyph for {listed}")


class CheckedKeys:
    """The cache keys of images whose texts passed the glyph check, kept between builds in a cache file
    (:meth:`load`, :meth:`save`): a renderer whose image key fixes the image's texts and their fonts (the font
    files' bytes among them) checks only the texts of images whose key is not here. A 10,000-card rebuild
    after one edit checks one card's texts instead of 130,000.

    The file is a header naming this check's version and ttsmod's (an upgrade may check glyphs otherwise:
    then everything is checked again), then one key a line. A cache: a missing or unreadable file is no
    keys."""

    FORMAT = "ttsmod glyph-checked keys 1"

    def __init__(self, known: frozenset[str] = frozenset()) -> None:
        self.known = known

    @classmethod
    def _header(cls) -> str:
        return f"{cls.FORMAT} {__version__}"

    @classmethod
    def load(cls, path: Path) -> "CheckedKeys":
        try:
            header, _, body = Path(path).read_text(encoding="ascii").partition("\n")
        except (OSError, ValueError):
            return cls()
        return cls(frozenset(body.split("\n")) - {""}) if header == cls._header() else cls()

    def save(self, path: Path, keys: set[str]) -> None:
        """Keep ``keys`` (every key whose texts passed: this build's images) in ``path`` when they differ from
        what was read; a file that cannot be written is left as it is."""
        if keys == self.known:
            return
        try:
            atomic_write_bytes(Path(path), "\n".join([self._header(), *sorted(keys)]).encode("ascii") + b"\n",
                               durable=False)
        except (OSError, UnicodeEncodeError):
            return
        self.known = frozenset(keys)


@dataclass(frozen=True)
class FittedText:
    """A text laid out for a box: font size, lines, and the ink box of each line relative to the box."""

    size: int
    lines: tuple[str, ...]
    origins: tuple[tuple[float, float], ...]  # per line: where to draw it with anchor "ls", box-relative
    ink: tuple[int, int, int, int]  # union ink box (left, top, right, bottom), box-relative


@lru_cache(maxsize=1 << 16)
def _ink_bbox(font: ImageFont.FreeTypeFont, text: str) -> tuple[int, int, int, int]:
    # Fonts come from load_font's cache, so one font object per (file, size) and its identity is a fair key.
    # Fitting a box measures the same words at the same sizes again and again, and on card after card.
    return font.getbbox(text, anchor="ls")


def _wrap(text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str] | None:
    """Greedy word wrap by measured ink width; ``None`` if a single character is wider than ``width``."""

    def fits(s: str) -> bool:
        left, _, right, _ = _ink_bbox(font, s)
        return right - min(left, 0) <= width

    lines: list[str] = []
    for paragraph in text.split("\n"):
        words = paragraph.split()
        current = ""
        for word in words:
            candidate = f"{current} {word}" if current else word
            if fits(candidate):
                current = candidate
                continue
            if current:
                lines.append(current)
                current = ""
            if fits(word):
                current = word
                continue
            piece = ""
            for ch in word:  # a word wider than the box: break it between characters
                if fits(piece + ch):
                    piece += ch
                elif not piece:
                    return None
                else:
                    lines.append(piece)
                    piece = ch
            current = piece
        lines.append(current)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def layout_text(text: str, font: ImageFont.FreeTypeFont, box: Box,
                lines: tuple[str, ...] | None = None) -> FittedText | None:
    """Lay ``text`` out in ``box`` at ``font``'s size (wrapped to the box, or in the ``lines`` given), or ``None``
    if it does not fit."""
    if lines is None:
        lines = _wrap(text, font, box.width)
        if lines is None:
            return None
    lines = list(lines)
    ascent, descent = font.getmetrics()
    pitch = round((ascent + descent) * box.line_spacing)
    boxes = []
    for i, line in enumerate(lines):
        left, top, right, bottom = _ink_bbox(font, line or " ")
        if not line.strip():
            left, top, right, bottom = 0, 0, 0, 0
        boxes.append((left, top + i * pitch, right, bottom + i * pitch))
    if not boxes:
        return FittedText(font.size, (), (), (0, 0, 0, 0))
    block_top = min(b[1] for b in boxes)
    block_bottom = max(b[3] for b in boxes)
    block_height = block_bottom - block_top
    if block_height > box.height:
        return None
    widths = [b[2] - min(b[0], 0) for b in boxes]
    if max(widths) > box.width:
        return None
    free_y = box.height - block_height
    offset_y = {"top": 0, "middle": free_y // 2, "bottom": free_y}[box.valign] - block_top
    origins = []
    inks = []
    for i, ((left, top, right, bottom), w) in enumerate(zip(boxes, widths)):
        free_x = box.width - w
        x = {"left": 0, "center": free_x // 2, "right": free_x}[box.align] - min(left, 0)
        origins.append((float(x), float(offset_y + i * pitch)))  # the baseline of line i
        inks.append((x + left, top + offset_y, x + right, bottom + offset_y))
    ink = (min(b[0] for b in inks), min(b[1] for b in inks), max(b[2] for b in inks), max(b[3] for b in inks))
    return FittedText(font.size, tuple(lines), tuple(origins), ink)


def fit_text(text: str, box: Box, fonts_dir: Path, *, file: str, entry: str | None, field: str | None,
             size_max: int | None = None) -> FittedText:
    """The largest fitting layout of ``text`` in ``box`` within its size range (binary search).

    Raises :class:`DataError` (file/entry/field) when a glyph is missing or the text cannot fit even at the
    box's minimum size.  ``size_max`` may lower the box's maximum (e.g. to keep sibling labels alike).
    """
    if box.font is None:
        raise ValueError(f"box {box.name} has no font")
    font_path = font_file(fonts_dir, box.font)
    check_glyphs(text, font_path, file=file, entry=entry, field=field)
    best = _best_layout(text, box, font_path, size_max)
    if best is None:
        raise DataError(file, entry, field,
                        f'text does not fit box "{box.name}" ({box.width}x{box.height} px) even at '
                        f"{box.size_min} px: shorten it or enlarge the box in layouts.toml")
    return best


SAME_LINES_TRIES = 4
"""How many font sizes below the design's, scaled, a text drawn at another size tries in its design lines."""


@lru_cache(maxsize=1 << 14)
def _best_layout(text: str, box: Box, font_path: str, size_max: int | None) -> FittedText | None:
    # The same label in the same box recurs on card after card (a citizen's name, a season's title): a layout
    # depends on nothing else, so it is found once per process.
    low, high = box.size_min, min(box.size_max, size_max or box.size_max)
    best: FittedText | None = None
    if low > high:
        low = high
    found = box.design_layout()
    if found is not None:
        # Laid out once: a box of a layout drawn at another size keeps the lines the text has at the design size,
        # at that size scaled (a little smaller if hinting needs it), so a face reads the same on its sheet and in
        # print; only when those lines cannot fit is the text fitted afresh.
        design, factor = found
        reference = _best_layout(text, design, font_path,
                                 None if size_max is None else max(1, math.ceil(size_max / factor)))
        if reference is not None:
            size = min(high, max(1, round(reference.size * factor)))
            for candidate in range(size, max(low, size - SAME_LINES_TRIES) - 1, -1):
                fitted = layout_text(text, load_font(font_path, candidate), box, reference.lines)
                if fitted is not None:
                    return fitted
    while low <= high:
        mid = (low + high) // 2
        fitted = layout_text(text, load_font(font_path, mid), box)
        if fitted is not None:
            best = fitted
            low = mid + 1
        else:
            high = mid - 1
    return best


recorder: list[tuple] | None = None
"""While set (:func:`tools.render.sizing.measure_text`), :func:`draw_fitted` appends ``(box name, font file,
size, box rectangle, ink rectangle)`` of each text it draws (rectangles ``(left, top, right, bottom)`` on the
image)."""


def draw_fitted(draw: ImageDraw.ImageDraw, fitted: FittedText, box: Box, fonts_dir: Path,
                colour: tuple[int, int, int] | None = None) -> None:
    """Draw a :class:`FittedText` into ``box`` (positions from :func:`layout_text`)."""
    assert box.font is not None
    path = font_file(fonts_dir, box.font)
    if recorder is not None and fitted.lines:
        left, top, right, bottom = fitted.ink
        recorder.append((box.name, path, fitted.size, box.rect,
                         (box.x + left, box.y + top, box.x + right, box.y + bottom)))
    font = load_font(path, fitted.size)
    for line, (x, y) in zip(fitted.lines, fitted.origins):
        if line:
            draw_line(draw, (box.x + x, box.y + y), line, font, (path, fitted.size), colour or box.colour)


_LINE_MASKS: dict[tuple, tuple] = {}
"""(font file, size, line, fractional start, ink) → the line's glyph mask and offset, for lines drawn again."""
_LINES_SEEN: set[tuple] = set()
_MASKS_KEPT = 4096    # lines kept at most (a line's mask is a few tens of kilobytes)
_SEEN_KEPT = 65536
_MASK_OPTIONS = ({"stroke_filled": True}
                 if "stroke_filled" in inspect.signature(ImageFont.FreeTypeFont.getmask2).parameters else {})
"""What this Pillow's ``ImageDraw.text`` passes to ``getmask2`` beyond the line's own arguments."""


def draw_line(draw: ImageDraw.ImageDraw, xy: tuple[float, float], line: str, font: ImageFont.FreeTypeFont,
              font_key: tuple[str, int], fill) -> None:
    """Exactly ``draw.text(xy, line, font=font, fill=fill, anchor="ls")`` for one line of text; ``font_key`` is
    the font's (file, size), as :func:`load_font` was given them.

    The glyph mask of a line drawn a second time in a process is kept and pasted again: a big game's cards show
    the same names and steps card after card, and rendering them was a third of drawing a card. It is what
    ``ImageDraw.text`` does for one line (the mask at the position's fractional part, drawn with the fill's ink
    at its integer part), so the pixels are the same (``tests/tools/render/test_text.py`` compares them); any
    other case is left to ``ImageDraw.text``."""
    if draw.fontmode != "L" or not isinstance(fill, tuple) or "\n" in line:
        draw.text(xy, line, font=font, fill=fill, anchor="ls")
        return
    x, y = xy
    ink = draw.draw.draw_ink(fill)
    start = (math.modf(x)[0], math.modf(y)[0])
    key = (*font_key, line, start, ink)
    found = _LINE_MASKS.get(key)
    if found is None:
        found = font.getmask2(line, "L", None, None, None, 0, "ls", ink, start, **_MASK_OPTIONS)
        if key in _LINES_SEEN:   # drawn before: worth keeping (a card's own title is drawn once)
            if len(_LINE_MASKS) >= _MASKS_KEPT:
                _LINE_MASKS.clear()
            _LINE_MASKS[key] = found
        else:
            if len(_LINES_SEEN) >= _SEEN_KEPT:
                _LINES_SEEN.clear()
            _LINES_SEEN.add(key)
    mask, offset = found
    draw.draw.draw_bitmap((int(x) + offset[0], int(y) + offset[1]), mask, ink)


def draw_text(draw: ImageDraw.ImageDraw, text: str, box: Box, fonts_dir: Path, *, file: str,
              entry: str | None, field: str | None, colour: tuple[int, int, int] | None = None,
              size_max: int | None = None) -> FittedText:
    """Fit ``text`` to ``box`` and draw it; returns the layout used."""
    fitted = fit_text(text, box, fonts_dir, file=file, entry=entry, field=field, size_max=size_max)
    draw_fitted(draw, fitted, box, fonts_dir, colour)
    return fitted
