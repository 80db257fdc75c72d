"""Text with styled runs and inline icons, fitted to a box: what a card template's text layer draws.

Markup (after a template's ``{field}``\\ s are filled in, so card data may use it too):

- ``**bold**`` and ``*italic*`` switch the style (each needs the layer's ``bold_font`` / ``italic_font``);
  ``***both***`` needs a font for both, so it is refused; ``\\*`` is a literal asterisk;
- ``{icon:name}`` is the game folder's ``icons/name.png`` drawn at the text's height, as a word of the line;
- a line feed starts a new paragraph.

:func:`fit_rich` picks the largest font size of a range at which the text, wrapped between words, fits the box
in both directions, measuring the ink of every run (as :mod:`tools.render.text` does for plain text), so nothing
is ever drawn outside the box; when even the smallest size does not fit it raises :class:`DataError` naming the
data file, entry and field. :func:`draw_rich` draws a fitted text.

Fitting reuses its work as plain text does: a layout depends on nothing but the text, its fonts, the box, the size
range, the alignment and the icons' sizes, so each is found once per process (a title or label that recurs on
card after card is fitted once); and a text drawn at another size than its design size, given that design
(``fit_rich(..., design=)``), keeps the lines it has at the design size at the font size scaled (a few sizes smaller
if hinting needs it, :data:`tools.render.text.SAME_LINES_TRIES`), so a face reads the same on its sheet and in
print; only when those lines cannot fit is it fitted afresh.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Mapping, NamedTuple

from PIL import Image, ImageDraw, ImageFont

from bridge.errors import DataError
from tools.render import text as _text
from tools.render.text import SAME_LINES_TRIES, check_glyphs, load_font

REGULAR, BOLD, ITALIC = "regular", "bold", "italic"
ICON_HEIGHT = 1.3
"""An inline icon's height, in cap heights of the text around it."""
_TOKEN = re.compile(r"\\\*|\*\*|\*|\{icon:([A-Za-z0-9_-]+)\}|\n")


@dataclass(frozen=True)
class Run:
    """Words of one style (``regular``, ``bold`` or ``italic``)."""

    text: str
    style: str = REGULAR


@dataclass(frozen=True)
class Icon:
    """An inline icon: ``icons/<name>.png`` of the game folder."""

    name: str


BREAK = "\n"


def parse_markup(text: str) -> list[Run | Icon | str]:
    """``text`` as runs, icons and :data:`BREAK`\\ s, in order. Raises ``ValueError`` for an unclosed or nested
    style (the message says which)."""
    parts: list[Run | Icon | str] = []
    bold = italic = False
    position = 0
    buffer: list[str] = []

    def flush() -> None:
        if buffer:
            parts.append(Run("".join(buffer), BOLD if bold else ITALIC if italic else REGULAR))
            buffer.clear()

    for match in _TOKEN.finditer(text):
        buffer.append(text[position:match.start()])
        position = match.end()
        token = match.group(0)
        if token == "\\*":
            buffer.append("*")
        elif token == "**":
            flush()
            if italic:
                raise ValueError("**bold** inside *italic*: a run is bold or italic, not both")
            bold = not bold
        elif token == "*":
            flush()
            if bold:
                raise ValueError("*italic* inside **bold**: a run is bold or italic, not both")
            italic = not italic
        elif token == BREAK:
            flush()
            parts.append(BREAK)
        else:
            flush()
            parts.append(Icon(match.group(1)))
    buffer.append(text[position:])
    if bold or italic:
        raise ValueError(f"a {'**bold**' if bold else '*italic*'} run is not closed")
    flush()
    return [p for p in parts if not (isinstance(p, Run) and not p.text)]


@dataclass(frozen=True)
class Piece:
    """One drawn piece of a fitted line: a run's text or an icon, at ``x`` (box-relative, its pen position)."""

    x: float
    text: str = ""
    style: str = REGULAR
    icon: str = ""
    width: int = 0          # an icon's size
    height: int = 0


@dataclass(frozen=True)
class FittedRich:
    """A rich text laid out in a box: its font size, its lines' pieces and baselines, and its ink box; ``breaks``
    is how many words each line holds (every paragraph's lines in order), the lines to keep at another size."""

    size: int
    lines: tuple[tuple[Piece, ...], ...]
    baselines: tuple[float, ...]
    ink: tuple[int, int, int, int]
    breaks: tuple[int, ...] = ()


FontPaths = Mapping[str, str]
"""Style → font file path (``regular`` always; ``bold`` / ``italic`` when the layer gives them)."""
IconSize = Callable[[str], tuple[int, int]]
"""Icon name → its image's (width, height) in pixels."""


def _words(parts: list[Run | Icon | str]) -> list[list[list[Run | Icon]]]:
    """Paragraphs → words → pieces (a word is what lies between spaces; a style may change inside it)."""
    paragraphs: list[list[list[Run | Icon]]] = [[]]
    word: list[Run | Icon] = []

    def end_word() -> None:
        nonlocal word
        if word:
            paragraphs[-1].append(word)
            word = []

    for part in parts:
        if part == BREAK:
            end_word()
            paragraphs.append([])
        elif isinstance(part, Icon):
            word.append(part)
        else:
            chunks = re.split(r"(\s+)", part.text)
            for chunk in chunks:
                if not chunk:
                    continue
                if chunk.isspace():
                    end_word()
                else:
                    word.append(Run(chunk, part.style))
    end_word()
    return paragraphs


class _Line(NamedTuple):
    """A line being set from x = 0: its pieces, where its pen stands, its ink (left, top, right, bottom) relative to
    the pen start and the baseline (infinite while it has no piece) and how many words it holds."""

    pieces: tuple[Piece, ...] = ()
    x: float = 0.0
    ink: tuple[float, float, float, float] = (float("inf"), float("inf"), float("-inf"), float("-inf"))
    words: int = 0


_EMPTY = _Line()


class _Measure:
    """Fonts and measures at one size."""

    def __init__(self, fonts: FontPaths, size: int, icon_size: IconSize) -> None:
        self.fonts, self.space, self.cap, self.line_height = _metrics(tuple(sorted(fonts.items())), size)
        self.icon_h = max(1, round(self.cap * ICON_HEIGHT))
        self.icon_size = icon_size

    def icon(self, name: str) -> tuple[int, int]:
        w, h = self.icon_size(name)
        return max(1, round(w * self.icon_h / h)), self.icon_h

    def extend(self, line: _Line, word: list[Run | Icon]) -> _Line:
        """``line`` with ``word`` set after it (a space between them when it has words already)."""
        pieces = list(line.pieces)
        x = line.x + self.space if line.words else line.x
        left, top, right, bottom = line.ink
        for part in word:
            if isinstance(part, Icon):
                w, h = self.icon(part.name)
                pieces.append(Piece(x, icon=part.name, width=w, height=h))
                y0 = -self.cap / 2 - h / 2
                box = (x, y0, x + w, y0 + h)
                x += w
            else:
                font = self.fonts[part.style]
                pieces.append(Piece(x, part.text, part.style))
                l, t, r, b = _text._ink_bbox(font, part.text)
                box = (x + l, t, x + r, b)
                x += _advance(font, part.text)
            left, top = min(left, box[0]), min(top, box[1])
            right, bottom = max(right, box[2]), max(bottom, box[3])
        return _Line(tuple(pieces), x, (left, top, right, bottom), line.words + 1)


@lru_cache(maxsize=1024)
def _metrics(fonts: tuple[tuple[str, str], ...], size: int) -> tuple[dict, float, int, int]:
    """The fonts by style at ``size``, and the regular one's space advance, cap height and line height."""
    faces = {style: load_font(path, size) for style, path in fonts}
    regular = faces[REGULAR]
    ascent, descent = regular.getmetrics()
    return faces, regular.getlength(" "), max(1, -regular.getbbox("H", anchor="ls")[1]), ascent + descent


@lru_cache(maxsize=1 << 16)
def _advance(font: ImageFont.FreeTypeFont, text: str) -> float:
    # One font object per (file, size) (load_font's cache): the same words are measured card after card.
    return font.getlength(text)


def _ink_width(ink: tuple[float, float, float, float]) -> float:
    return ink[2] - min(ink[0], 0.0)


_Words = list[list[list[Run | Icon]]]


def _wrapped(paragraphs: _Words, measure: _Measure, width: int) -> list[_Line] | None:
    """The lines of ``paragraphs`` wrapped greedily between words to ``width``; None if a word is wider."""
    lines: list[_Line] = []
    for paragraph in paragraphs:
        line = _EMPTY
        for word in paragraph:
            candidate = measure.extend(line, word)
            if _ink_width(candidate.ink) <= width:
                line = candidate
                continue
            if not line.words:
                return None   # one word wider than the box at this size: try a smaller one
            lines.append(line)
            line = measure.extend(_EMPTY, word)
            if _ink_width(line.ink) > width:
                return None
        lines.append(line)
    return lines


def _broken(paragraphs: _Words, measure: _Measure, width: int, breaks: tuple[int, ...]) -> list[_Line] | None:
    """The lines of ``paragraphs`` holding ``breaks`` words each, in order; None if one is wider than ``width``
    (or the breaks are not those of these paragraphs)."""
    lines: list[_Line] = []
    counts = iter(breaks)
    for paragraph in paragraphs:
        start = 0
        while True:
            count = next(counts, None)
            if count is None:
                return None
            line = _EMPTY
            for word in paragraph[start:start + count]:
                line = measure.extend(line, word)
            if line.pieces and _ink_width(line.ink) > width:
                return None
            lines.append(line)
            start += count
            if start >= len(paragraph):
                break
    return lines if next(counts, None) is None else None


def layout_rich(parts: list[Run | Icon | str], fonts: FontPaths, size: int, box: tuple[int, int], *,
                align: str, valign: str, line_spacing: float, icon_size: IconSize,
                breaks: tuple[int, ...] | None = None) -> FittedRich | None:
    """``parts`` laid out in a ``box`` (width, height) at font ``size``, or None when it does not fit: wrapped to
    the box, or in the lines ``breaks`` gives (the words of each line, as :attr:`FittedRich.breaks` has them)."""
    width, height = box
    measure = _Measure(fonts, size, icon_size)
    paragraphs = _words(parts)
    lines = _wrapped(paragraphs, measure, width) if breaks is None else _broken(paragraphs, measure, width, breaks)
    if lines is None:
        return None
    kept = tuple(line.words for line in lines)
    while lines and not lines[-1].pieces:
        lines.pop()
    pitch = round(measure.line_height * line_spacing)
    inks = [(line.ink[0], line.ink[1] + i * pitch, line.ink[2], line.ink[3] + i * pitch)
            for i, line in enumerate(lines) if line.pieces]
    if not inks:
        return FittedRich(size, (), (), (0, 0, 0, 0), kept)
    block_top = min(i[1] for i in inks)
    block_bottom = max(i[3] for i in inks)
    if block_bottom - block_top > height:
        return None
    free_y = height - (block_bottom - block_top)
    offset_y = {"top": 0, "middle": free_y // 2, "bottom": free_y}[valign] - block_top
    out_lines, baselines = [], []
    union = [float("inf"), float("inf"), float("-inf"), float("-inf")]
    for i, line in enumerate(lines):
        pieces, ink = line.pieces, line.ink
        baseline = offset_y + i * pitch
        if not pieces:
            out_lines.append(())
            baselines.append(float(baseline))
            continue
        free_x = width - _ink_width(ink)
        shift = {"left": 0, "center": free_x // 2, "right": free_x}[align] - min(ink[0], 0.0)
        out_lines.append(tuple(Piece(p.x + shift, p.text, p.style, p.icon, p.width, p.height) for p in pieces))
        baselines.append(float(baseline))
        union = [min(union[0], ink[0] + shift), min(union[1], ink[1] + baseline),
                 max(union[2], ink[2] + shift), max(union[3], ink[3] + baseline)]
    ink_box = (int(union[0]), int(union[1]), int(round(union[2])), int(round(union[3])))
    return FittedRich(size, tuple(out_lines), tuple(baselines), ink_box, kept)


def check_runs(parts: list[Run | Icon | str], fonts: FontPaths, *, file: str, entry: str | None, field: str | None,
               box_name: str) -> None:
    """:class:`DataError` when a run's style has no font or its font has no glyph for one of its characters."""
    for part in parts:
        if isinstance(part, Run):
            if part.style not in fonts:
                raise DataError(file, entry, field, f"{part.style} text needs the layer's {part.style}_font "
                                                    f'(layer "{box_name}")')
            check_glyphs(part.text, fonts[part.style], file=file, entry=entry, field=field)


Design = tuple[tuple[int, int], tuple[int, int], float]
"""Where a text is designed (:func:`fit_rich`'s ``design``): the box (width, height) and size range (min, max) it
has at the design size, and the factor the font sizes are scaled by from there."""


def fit_rich(parts: list[Run | Icon | str], fonts: FontPaths, sizes: tuple[int, int], box: tuple[int, int], *,
             align: str, valign: str, line_spacing: float, icon_size: IconSize, file: str, entry: str | None,
             field: str | None, box_name: str, design: Design | None = None) -> FittedRich:
    """The largest fitting layout in ``sizes`` (min, max) px (the maximum, else a binary search below it);
    :class:`DataError` when a glyph is missing, a style has no font, or the text does not fit even at the minimum.

    With ``design`` (the text drawn at another size than its design's), the lines the text has at the design size,
    at its font size times the factor (or up to :data:`~tools.render.text.SAME_LINES_TRIES` sizes smaller, never
    below the minimum), when they fit; else the largest fitting layout. Layouts are kept per process: the same
    arguments give the same layout, found once."""
    check_runs(parts, fonts, file=file, entry=entry, field=field, box_name=box_name)
    icons = tuple(sorted({part.name: tuple(icon_size(part.name)) for part in parts if isinstance(part, Icon)}.items()))
    if design is not None and (tuple(design[0]), tuple(design[1])) == (tuple(box), tuple(sizes)):
        design = None   # drawn at its design size
    best = _best_rich(tuple(parts), tuple(sorted(fonts.items())), tuple(sizes), tuple(box), align, valign,
                      line_spacing, icons, design)
    if best is None:
        raise DataError(file, entry, field, f'text does not fit layer "{box_name}" ({box[0]}x{box[1]} px) even at '
                                            f"{sizes[0]} px: shorten it or enlarge the layer in layouts.toml")
    return best


@lru_cache(maxsize=1 << 14)
def _best_rich(parts: tuple[Run | Icon | str, ...], fonts: tuple[tuple[str, str], ...], sizes: tuple[int, int],
               box: tuple[int, int], align: str, valign: str, line_spacing: float,
               icons: tuple[tuple[str, tuple[int, int]], ...], design: Design | None) -> FittedRich | None:
    # A layout depends on these arguments alone (an icon's drawn size on its image's size): the same title in
    # the same layer recurs on card after card, and is fitted once per process.
    paths, sizes_of = dict(fonts), dict(icons)
    settings = dict(align=align, valign=valign, line_spacing=line_spacing, icon_size=sizes_of.__getitem__)
    low, high = sizes
    if design is not None:
        design_box, design_sizes, factor = design
        reference = _best_rich(parts, fonts, tuple(design_sizes), tuple(design_box), align, valign, line_spacing,
                               icons, None)
        if reference is not None:
            size = min(high, max(1, round(reference.size * factor)))
            for candidate in range(size, max(low, size - SAME_LINES_TRIES) - 1, -1):
                fitted = layout_rich(list(parts), paths, candidate, box, breaks=reference.breaks, **settings)
                if fitted is not None:
                    return fitted
    if low <= high:
        # The top of the range first: a title or a label mostly fits at its largest size, found in one layout.
        fitted = layout_rich(list(parts), paths, high, box, **settings)
        if fitted is not None:
            return fitted
        high -= 1
    best = None
    while low <= high:
        mid = (low + high) // 2
        fitted = layout_rich(list(parts), paths, mid, box, **settings)
        if fitted is not None:
            best, low = fitted, mid + 1
        else:
            high = mid - 1
    return best


def draw_rich(image: Image.Image, fitted: FittedRich, origin: tuple[int, int], fonts: FontPaths, colour,
              icon: Callable[[str, int, int], Image.Image], *, box_name: str,
              box_rect: tuple[int, int, int, int], ink_rect: tuple[int, int, int, int] | None = None) -> None:
    """Draw ``fitted`` with its box's top-left at ``origin`` on ``image`` (icons from ``icon(name, w, h)``, RGBA).
    While :func:`tools.render.sizing.measure_text` records, the text is recorded with ``box_rect`` and its ink
    on the card: ``ink_rect``, or its ink at ``origin`` when None (a text drawn on a canvas turned afterwards
    gives where its ink lies once turned)."""
    draw = ImageDraw.Draw(image)
    ox, oy = origin
    if _text.recorder is not None and fitted.lines:
        left, top, right, bottom = fitted.ink
        _text.recorder.append((box_name, fonts[REGULAR], fitted.size, box_rect,
                               ink_rect or (ox + left, oy + top, ox + right, oy + bottom)))
    faces: dict[str, ImageFont.FreeTypeFont] = {}
    cap = None
    for pieces, baseline in zip(fitted.lines, fitted.baselines):
        for piece in pieces:
            if piece.icon:
                if cap is None:
                    cap = max(1, -load_font(fonts[REGULAR], fitted.size).getbbox("H", anchor="ls")[1])
                picture = icon(piece.icon, piece.width, piece.height)
                y0 = round(oy + baseline - cap / 2 - piece.height / 2)
                image.paste(picture, (round(ox + piece.x), y0), picture)
                continue
            font = faces.get(piece.style)
            if font is None:
                font = faces[piece.style] = load_font(fonts[piece.style], fitted.size)
            # the same pixels as draw.text, its glyph mask kept for a line drawn again (a title card after card)
            _text.draw_line(draw, (ox + piece.x, oy + baseline), piece.text, font,
                            (fonts[piece.style], fitted.size), colour)
