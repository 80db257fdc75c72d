"""``ttsmod pnp``: a game's cards and components as a print-and-play PDF.

The art comes from the build's own render pipeline, run into the build folder (``build/<game>/`` by default), so a
PDF made after a build draws nothing: none of the build's images, and no card face either. Card faces print from
their own images drawn at print resolution (:func:`print_pixels`: the deck's ``size_mm`` at :data:`DPI`), not from
their deck's packed sheet (whose cells are drawn for the screen and JPEG-compressed): each is drawn once and kept
by content in the build folder's print cache (:func:`tools.render.pipeline.print_faces`), so a second PDF draws
nothing. Each back is the deck's back image. Every deck's printed
size is data: ``size_mm`` of the layouts in the game's ``layouts.toml`` whose pixel size is the deck's face size
(they must agree).

The work is split in two so it can be tested to the millimetre:

- :func:`plan_pages` lays the cards out (a :class:`Plan`: pages, each card's cut rectangle and bleed, the crop
  marks) from sizes alone — no images, no PDF;
- :func:`write_pdf` draws a plan with fpdf2: each image extended by the bleed (its edges mirrored outward,
  the face itself never scaled past its cut line), resampled to 300 dpi and embedded as JPEG; crop marks as vector
  lines outside the cards. The creation date is fixed, so the same inputs give the same bytes.

Layout: the cards of one printed size (deck after deck, in the game's deck order) fill a page's grid, row by
row, the grid centred on the page; the next card size starts a new page. With duplex, each page of faces is
followed by a page of their backs (each card its own deck's back) mirrored left to right, so that printed
double-sided with a long-edge flip the back of face k lies behind face k. Without duplex, each
deck's back is printed once, after every face page.

Every other component image (tokens, mats, boards; ``size_mm`` of the layouts of its pixel size, or of a tiled
layout's tile) prints once: those that fit a page as punch-out sheets with crop marks, larger ones as tiles that
overlap by :data:`TILE_OVERLAP_MM`, with alignment crosses and a page index. A cover page comes first. Printed
double-sided, these one-sided pages get blank backs.
"""

from __future__ import annotations

import datetime as _dt
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from bridge.errors import DataError, InputError

PAPERS: Mapping[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Paper name → (width, height) in millimetres, portrait."""

DPI = 300
"""The resolution images are embedded at."""
JPEG_QUALITY = 90
MM_PER_INCH = 25.4
PT_PER_MM = 72 / MM_PER_INCH

MARGIN_MM = 5.0
"""The edge of the sheet no card, bleed or mark goes into (most printers cannot print there)."""
MARK_OFFSET_MM = 1.0
"""Crop marks start this far outside the outermost bleed, so they never touch printed art."""
MARK_LENGTH_MM = 4.0
MARK_WIDTH_MM = 0.2

DEFAULT_BLEED_MM = 0.0
"""No bleed by default: 3 × 3 poker cards fit an A4 or letter page only without it (``--bleed 3``: 2 × 2)."""
DEFAULT_GAP_MM = 0.0
MAX_BLEED_MM = 10.0
MAX_GAP_MM = 50.0

COVER_FONT = "DejaVuSans.ttf"
"""The font (of ``assets/fonts/``) of the cover and the tile indexes: any game's name prints."""
TILE_OVERLAP_MM = 10.0
"""How much neighbouring tiles of a board overlap (the alignment marks lie in the middle of the overlap)."""
TILE_INDEX_MM = 14.0
"""The strip at a tile page's foot that holds its page index."""
ALIGN_MARK_MM = 6.0
"""Length of each arm of an alignment cross on a tiled board."""

CREATION_DATE = _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc)
"""The fixed creation date every PDF carries (same inputs, same bytes)."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class DeckArt:
    """One deck to print: its name, printed card size (mm), one image key per face, the back's image key, and
    (from a build) the full pixel size its faces are drawn at."""

    name: str
    size_mm: tuple[float, float]
    faces: tuple[str, ...]
    back: str
    face_px: tuple[int, int] | None = None


@dataclass(frozen=True)
class SingleArt:
    """A component printed once (a board, a token, a player mat): its name, printed size (mm), image key."""

    name: str
    size_mm: tuple[float, float]
    image: str


@dataclass(frozen=True)
class Placement:
    """One card on a page: image ``image`` cut to the rectangle ``x, y, width, height`` (mm from the page's
    top-left corner), its art extended ``bleed`` mm past every side. ``index`` is the face's index in its deck
    (on a back page: the index of the face it lies behind)."""

    image: str
    deck: str
    index: int
    x: float
    y: float
    width: float
    height: float
    bleed: float
    region: tuple[float, float, float, float] | None = None   # part of the source shown: mm of its printed size
    source_mm: tuple[float, float] | None = None             # the source's whole printed size (with region)
    rotated: bool = False                                     # the source turned 90° clockwise to fit the page

    @property
    def cut(self) -> tuple[float, float, float, float]:
        """``(left, top, right, bottom)`` of the cut line, in mm."""
        return self.x, self.y, self.x + self.width, self.y + self.height


@dataclass(frozen=True)
class Page:
    """A page of the plan: ``kind`` is ``"faces"`` or ``"backs"``; ``marks`` are crop-mark lines
    ``(x1, y1, x2, y2)`` in mm."""

    kind: str
    cards: tuple[Placement, ...]
    marks: tuple[tuple[float, float, float, float], ...] = ()
    texts: tuple[tuple[float, float, float, str], ...] = ()          # (x, y baseline, size pt, text), mm
    boxes: tuple[tuple[float, float, float, float, bool], ...] = ()  # (x, y, w, h, filled): the tile index
    tile: "TileInfo | None" = None


@dataclass(frozen=True)
class TileInfo:
    """Which part of a board a tile page shows: the board, its tile grid, this tile's row and column and the
    board rectangle (mm of the board's printed size) it covers."""

    board: str
    rows: int
    columns: int
    row: int
    column: int
    region: tuple[float, float, float, float]


@dataclass(frozen=True)
class Plan:
    """Every page of the PDF, paper size in mm."""

    paper: str
    width: float
    height: float
    pages: tuple[Page, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Grid:
    """How a deck's cards fall on a page: columns × rows of cut rectangles, the first one's top-left corner."""

    columns: int
    rows: int
    left: float
    top: float
    pitch_x: float
    pitch_y: float
    card_w: float
    card_h: float

    @property
    def per_page(self) -> int:
        return self.columns * self.rows

    def slot(self, k: int) -> tuple[float, float]:
        """Top-left corner (mm) of slot ``k``'s cut rectangle."""
        return self.left + (k % self.columns) * self.pitch_x, self.top + (k // self.columns) * self.pitch_y


def check_options(paper: str, bleed: float, gap: float) -> None:
    """:class:`InputError` for an unknown paper or a bleed or gap out of range."""
    if paper not in PAPERS:
        raise InputError(f'--paper must be one of {", ".join(PAPERS)}, not "{paper}"')
    if not 0 <= bleed <= MAX_BLEED_MM:
        raise InputError(f"--bleed must be 0..{MAX_BLEED_MM:g} mm, not {bleed:g}")
    if not 0 <= gap <= MAX_GAP_MM:
        raise InputError(f"--gap must be 0..{MAX_GAP_MM:g} mm, not {gap:g}")


def grid_for(size_mm: tuple[float, float], paper: tuple[float, float], *, bleed: float, gap: float,
             crop_marks: bool, deck: str = "") -> Grid:
    """The most cards of ``size_mm`` a page holds, the block centred on the page.

    Cards are ``2 × bleed + gap`` apart (bleeds never overlap); the block with its bleed, and the crop marks
    outside it, stay :data:`MARGIN_MM` inside the sheet's edge. :class:`InputError` when not one card fits.
    """
    page_w, page_h = paper
    card_w, card_h = size_mm
    pitch_x, pitch_y = card_w + 2 * bleed + gap, card_h + 2 * bleed + gap
    edge = MARGIN_MM + (MARK_OFFSET_MM + MARK_LENGTH_MM if crop_marks else 0.0)

    def count(room: float, card: float, pitch: float) -> int:
        # n cards take n * card + n * 2 * bleed + (n - 1) * gap
        usable = room - 2 * edge
        return max(0, math.floor((usable - card - 2 * bleed) / pitch + 1e-9) + 1) if usable >= card + 2 * bleed else 0

    columns, rows = count(page_w, card_w, pitch_x), count(page_h, card_h, pitch_y)
    if columns < 1 or rows < 1:
        raise InputError(f"deck {deck!r}: a {card_w:g} x {card_h:g} mm card with {bleed:g} mm bleed does not fit "
                         f"on a {page_w:g} x {page_h:g} mm page")
    block_w = columns * card_w + (columns - 1) * (pitch_x - card_w)   # cut edge to cut edge
    block_h = rows * card_h + (rows - 1) * (pitch_y - card_h)
    return Grid(columns, rows, (page_w - block_w) / 2, (page_h - block_h) / 2, pitch_x, pitch_y, card_w, card_h)


def crop_marks_for(cards: Sequence[Placement]) -> tuple[tuple[float, float, float, float], ...]:
    """Crop marks for the cards of a page: for every cut line, a short line in the margin beyond each end of the
    block of cards (outside every card and its bleed), so the marks can be lined up with a ruler."""
    if not cards:
        return ()
    bleed = max(c.bleed for c in cards)
    left = min(c.x for c in cards) - bleed
    right = max(c.x + c.width for c in cards) + bleed
    top = min(c.y for c in cards) - bleed
    bottom = max(c.y + c.height for c in cards) + bleed
    xs = sorted({round(v, 6) for c in cards for v in (c.x, c.x + c.width)})
    ys = sorted({round(v, 6) for c in cards for v in (c.y, c.y + c.height)})
    near, far = MARK_OFFSET_MM, MARK_OFFSET_MM + MARK_LENGTH_MM
    marks: list[tuple[float, float, float, float]] = []
    for x in xs:
        marks.append((x, top - far, x, top - near))
        marks.append((x, bottom + near, x, bottom + far))
    for y in ys:
        marks.append((left - far, y, left - near, y))
        marks.append((right + near, y, right + far, y))
    return tuple(marks)


def plan_pages(decks: Sequence[DeckArt], singles: Sequence[SingleArt] = (), *, paper: str = "a4",
               bleed: float = DEFAULT_BLEED_MM, gap: float = DEFAULT_GAP_MM, crop_marks: bool = True,
               duplex: bool = True, title: str | None = None) -> Plan:
    """Lay ``decks`` and ``singles`` out on pages (see the module docstring); sizes only, no image is read.

    With a ``title``, the first page is a cover: the title, the component count and the contents."""
    check_options(paper, bleed, gap)
    page_w, page_h = PAPERS[paper]
    pages: list[Page] = []

    def page(kind: str, cards: list[Placement]) -> Page:
        marks = crop_marks_for(cards) if crop_marks else ()
        return Page(kind, tuple(cards), marks)

    by_size: dict[tuple[float, float], list[DeckArt]] = {}
    for deck in decks:
        if deck.faces:
            by_size.setdefault(deck.size_mm, []).append(deck)
    for size, group in by_size.items():
        grid = grid_for(size, (page_w, page_h), bleed=bleed, gap=gap, crop_marks=crop_marks, deck=group[0].name)
        cards = [(deck, i, image) for deck in group for i, image in enumerate(deck.faces)]
        for start in range(0, len(cards), grid.per_page):
            faces = []
            backs = []
            for k, (deck, index, image) in enumerate(cards[start:start + grid.per_page]):
                x, y = grid.slot(k)
                faces.append(Placement(image, deck.name, index, x, y, grid.card_w, grid.card_h, bleed))
                # long-edge flip: the sheet turns about its vertical axis, so x mirrors and y stays
                backs.append(Placement(deck.back, deck.name, index, page_w - x - grid.card_w, y,
                                       grid.card_w, grid.card_h, bleed))
            pages.append(page("faces", faces))
            if duplex:
                pages.append(page("backs", backs))
    if not duplex:
        # each deck's back once, decks of one card size sharing pages
        for size, group in by_size.items():
            grid = grid_for(size, (page_w, page_h), bleed=bleed, gap=gap, crop_marks=crop_marks, deck=group[0].name)
            for start in range(0, len(group), grid.per_page):
                cards = []
                for k, deck in enumerate(group[start:start + grid.per_page]):
                    x, y = grid.slot(k)
                    cards.append(Placement(deck.back, deck.name, 0, x, y, grid.card_w, grid.card_h, bleed))
                pages.append(page("backs", cards))
    for extra in plan_singles(singles, (page_w, page_h), bleed=bleed, gap=gap, crop_marks=crop_marks):
        # printed double-sided, a one-sided page gets a blank back: nothing lands behind a board or a token
        pages += [extra, Page("blank", ())] if duplex else [extra]
    if title is not None:
        cover = cover_pages(title, decks, singles, pages, (page_w, page_h))
        pages[:0] = [p for c in cover for p in ([c, Page("blank", ())] if duplex else [c])]
    return Plan(paper, page_w, page_h, tuple(pages))


def fits(size_mm: tuple[float, float], paper: tuple[float, float], *, bleed: float, crop_marks: bool) -> bool:
    edge = MARGIN_MM + (MARK_OFFSET_MM + MARK_LENGTH_MM if crop_marks else 0.0)
    return (size_mm[0] + 2 * bleed <= paper[0] - 2 * edge + 1e-9
            and size_mm[1] + 2 * bleed <= paper[1] - 2 * edge + 1e-9)


def plan_singles(singles: Sequence[SingleArt], paper: tuple[float, float], *, bleed: float, gap: float,
                 crop_marks: bool) -> list[Page]:
    """Components printed once: those that fit a page (upright, else turned) as punch-out sheets, grouped by
    size, with crop marks; larger ones (boards, maps) as overlapping tiles (:func:`plan_tiles`)."""
    pages: list[Page] = []
    sheets: dict[tuple[tuple[float, float], bool], list[SingleArt]] = {}
    large: list[SingleArt] = []
    for single in singles:
        if fits(single.size_mm, paper, bleed=bleed, crop_marks=crop_marks):
            sheets.setdefault((single.size_mm, False), []).append(single)
        elif fits(single.size_mm[::-1], paper, bleed=bleed, crop_marks=crop_marks):
            sheets.setdefault((single.size_mm, True), []).append(single)
        else:
            large.append(single)
    for (size, turned), group in sheets.items():
        printed = size[::-1] if turned else size
        grid = grid_for(printed, paper, bleed=bleed, gap=gap, crop_marks=crop_marks, deck=group[0].name)
        for start in range(0, len(group), grid.per_page):
            cards = []
            for k, single in enumerate(group[start:start + grid.per_page]):
                x, y = grid.slot(k)
                cards.append(Placement(single.image, single.name, 0, x, y, grid.card_w, grid.card_h, bleed,
                                       rotated=turned))
            pages.append(Page("components", tuple(cards), crop_marks_for(cards) if crop_marks else ()))
    for single in large:
        pages += plan_tiles(single, paper)
    return pages


def tile_spans(length: float, room: float, overlap: float = TILE_OVERLAP_MM) -> list[tuple[float, float]]:
    """Split ``length`` mm into the fewest equal spans of at most ``room`` mm, neighbours overlapping by
    ``overlap``: ``[(start, end), ...]`` from 0 to ``length``."""
    if length <= room + 1e-9:
        return [(0.0, length)]
    count = math.ceil((length - overlap) / (room - overlap) - 1e-9)
    span = (length + (count - 1) * overlap) / count
    return [(i * (span - overlap), i * (span - overlap) + span) for i in range(count)]


def plan_tiles(single: SingleArt, paper: tuple[float, float]) -> list[Page]:
    """A board larger than a page as overlapping tiles, one a page, each centred above a page index (the
    board's name, the tile's row and column, a small map of the tiles with this one filled). Alignment crosses
    sit in the middle of each overlap, at the same board position on both tiles that share it."""
    page_w, page_h = paper
    edge = MARGIN_MM + MARK_OFFSET_MM
    room_w, room_h = page_w - 2 * edge, page_h - 2 * edge - TILE_INDEX_MM
    board_w, board_h = single.size_mm
    columns, rows = tile_spans(board_w, room_w), tile_spans(board_h, room_h)
    # alignment crosses, in board mm: the middle of each overlap, at a quarter and three quarters of the span
    seams_x = [(columns[i + 1][0] + columns[i][1]) / 2 for i in range(len(columns) - 1)]
    seams_y = [(rows[i + 1][0] + rows[i][1]) / 2 for i in range(len(rows) - 1)]
    crosses: list[tuple[float, float]] = []
    for x in seams_x:
        for top, bottom in rows:
            crosses += [(x, top + (bottom - top) / 4), (x, top + 3 * (bottom - top) / 4)]
    for y in seams_y:
        for left, right in columns:
            crosses += [(left + (right - left) / 4, y), (left + 3 * (right - left) / 4, y)]
    pages = []
    total = len(columns) * len(rows)
    for r, (top, bottom) in enumerate(rows):
        for c, (left, right) in enumerate(columns):
            w, h = right - left, bottom - top
            x0, y0 = (page_w - w) / 2, edge + (room_h - h) / 2
            card = Placement(single.image, single.name, r * len(columns) + c, x0, y0, w, h, 0.0,
                             region=(left, top, right, bottom), source_mm=single.size_mm)
            marks = []
            arm = ALIGN_MARK_MM / 2
            for bx, by in crosses:
                if left - 1e-9 <= bx <= right + 1e-9 and top - 1e-9 <= by <= bottom + 1e-9:
                    px_, py_ = x0 + bx - left, y0 + by - top
                    marks += [(px_ - arm, py_, px_ + arm, py_), (px_, py_ - arm, px_, py_ + arm)]
            index_top = page_h - edge - TILE_INDEX_MM + 3
            cell = 3.0
            grid_x = page_w - edge - len(columns) * cell
            boxes = tuple((grid_x + cc * cell, index_top + rr * cell, cell, cell, (rr, cc) == (r, c))
                          for rr in range(len(rows)) for cc in range(len(columns)))
            text = (f"{single.name}: tile {r * len(columns) + c + 1} of {total}, row {r + 1} of {len(rows)}, "
                    f"column {c + 1} of {len(columns)}; overlap {TILE_OVERLAP_MM:g} mm, match the crosses")
            pages.append(Page("tile", (card,), tuple(marks), ((edge, index_top + 3, 8.0, text),), boxes,
                              TileInfo(single.name, len(rows), len(columns), r, c, (left, top, right, bottom))))
    return pages


def cover_pages(title: str, decks: Sequence[DeckArt], singles: Sequence[SingleArt], pages: Sequence[Page],
                paper: tuple[float, float]) -> list[Page]:
    """The cover: the game's name, how many components, and the contents (each deck with its card count and
    size, each component with its size, boards with their tile count), continued on more pages as needed."""
    page_w, page_h = paper
    count = sum(len(d.faces) for d in decks) + len(singles)
    tiles: dict[str, int] = {}
    for page in pages:
        if page.tile is not None:
            tiles[page.tile.board] = tiles.get(page.tile.board, 0) + 1
    lines = [f"{d.name}: {len(d.faces)} card(s), {d.size_mm[0]:g} x {d.size_mm[1]:g} mm" for d in decks if d.faces]
    for single in singles:
        extra = f", on {tiles[single.name]} tiled pages" if single.name in tiles else ""
        lines.append(f"{single.name}: {single.size_mm[0]:g} x {single.size_mm[1]:g} mm{extra}")
    left, top, step = MARGIN_MM + 10, MARGIN_MM + 15, 5.5
    per_page = max(1, int((page_h - top - 30 - MARGIN_MM) // step))
    out = []
    for start in range(0, max(1, len(lines)), per_page):
        texts = [(left, top, 22.0, title), (left, top + 10, 11.0, f"{count} components, {len(pages)} pages to print"),
                 (left, top + 20, 11.0, "Contents:" if start == 0 else "Contents (continued):")]
        texts += [(left + 5, top + 30 + i * step, 10.0, line) for i, line in enumerate(lines[start:start + per_page])]
        out.append(Page("cover", (), (), tuple(texts)))
    return out


# -- images ------------------------------------------------------------------------------------------------

def px(mm: float) -> int:
    """Millimetres → pixels at :data:`DPI` (at least 1)."""
    return max(1, round(mm / MM_PER_INCH * DPI))


def with_bleed(face, width_mm: float, height_mm: float, bleed_mm: float):
    """``face`` resampled to 300 dpi at its printed size, then extended by ``bleed_mm`` on every side with its
    edges mirrored outward (the face itself is not enlarged: its pixels end on the cut line). A mirror continues
    stripes, gradients and patterns across the cut line; repeating the edge pixels would smear them into streaks.
    A face its renderer drew with its bleed already (the size of the card and its bleed) is used as it is."""
    from PIL import Image

    from tools.render.draw import mirror_pad

    w, h = px(width_mm), px(height_mm)
    b = round(bleed_mm / MM_PER_INCH * DPI)
    face = face.convert("RGB")
    if b > 0 and face.size == (w + 2 * b, h + 2 * b):
        return face   # drawn with its bleed by its renderer (art larger than the card bleeds for real)
    if face.size != (w, h):
        face = face.resize((w, h), Image.Resampling.LANCZOS)
    if b <= 0:
        return face
    return mirror_pad(face, b)


def jpeg(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=JPEG_QUALITY, optimize=True, dpi=(DPI, DPI))
    return buffer.getvalue()


def source_image(card: Placement, image):
    """What a placement shows of its source ``image``: its region (tiles), turned (components laid sideways)."""
    if card.region is not None and card.source_mm is not None:
        sx, sy = image.width / card.source_mm[0], image.height / card.source_mm[1]
        left, top, right, bottom = card.region
        image = image.crop((round(left * sx), round(top * sy), round(right * sx), round(bottom * sy)))
    if card.rotated:
        from PIL import Image

        image = image.transpose(Image.Transpose.ROTATE_270)
    return image


def write_pdf(plan: Plan, images: Mapping[str, Callable[[], object]], *, title: str,
              progress: Progress | None = None, font: Path | None = None) -> bytes:
    """The PDF of ``plan``: ``images`` maps each image key of the plan to a function returning its PIL image.
    Each distinct (image, size, bleed) is encoded once and embedded once."""
    from fpdf import FPDF

    pdf = FPDF(orientation="P", unit="mm", format=(plan.width, plan.height))
    pdf.set_creation_date(CREATION_DATE)
    pdf.set_title(title)
    pdf.set_creator("ttsmod pnp")
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_fill_color(0, 0, 0)
    pdf.set_line_width(MARK_WIDTH_MM)
    family = "helvetica"
    if font is not None:
        pdf.add_font("body", "", str(font))
        family = "body"
    encoded: dict[tuple, bytes] = {}
    total = len(plan.pages)
    if progress is not None:
        progress(0, total)
    for number, page in enumerate(plan.pages):
        pdf.add_page()
        for card in page.cards:
            key = (card.image, card.width, card.height, card.bleed, card.region, card.rotated)
            data = encoded.get(key)
            if data is None:
                face = source_image(card, images[card.image]())
                data = encoded[key] = jpeg(with_bleed(face, card.width, card.height, card.bleed))
            pdf.image(io.BytesIO(data), x=card.x - card.bleed, y=card.y - card.bleed,
                      w=card.width + 2 * card.bleed, h=card.height + 2 * card.bleed)
        for x1, y1, x2, y2 in page.marks:
            pdf.line(x1, y1, x2, y2)
        for x, y, w, h, filled in page.boxes:
            pdf.rect(x, y, w, h, style="DF" if filled else "D")
        for x, y, size, text in page.texts:
            pdf.set_font(family, size=size)
            pdf.text(x, y, text)
        if progress is not None:
            progress(number + 1, total)
    return bytes(pdf.output())


# -- a game's decks, from its build --------------------------------------------------------------------------

def deck_sizes(layouts, face_size: tuple[int, int], deck: str) -> tuple[float, float]:
    """The printed size of a deck whose faces are ``face_size`` pixels: the ``size_mm`` of the layouts of that
    pixel size. :class:`DataError` when none has one or they disagree."""
    found = {k: lay.size_mm for k, lay in layouts.layouts.items()
             if not lay.tiled and (lay.width, lay.height) == tuple(face_size) and lay.size_mm is not None}
    sizes = set(found.values())
    if not sizes:
        raise DataError(layouts.file, None, None,
                        f"deck {deck!r}: no layout of {face_size[0]}x{face_size[1]} px gives size_mm, its printed "
                        "size (add size_mm = [width, height] in millimetres)")
    if len(sizes) > 1:
        kinds = sorted(found)
        raise DataError(layouts.file, f'layout "{kinds[0]}"', "size_mm",
                        f"deck {deck!r}: the {face_size[0]}x{face_size[1]} px layouts {', '.join(kinds)} give "
                        "different printed sizes")
    return sizes.pop()


def print_pixels(size_mm: tuple[float, float], dpi: int = DPI) -> tuple[int, int]:
    """The pixel size a face printed ``size_mm`` millimetres large is drawn at for ``dpi`` dots per inch."""
    return tuple(max(1, round(side / MM_PER_INCH * dpi)) for side in size_mm)   # type: ignore[return-value]


def single_size(layouts, size_px: tuple[int, int], name: str) -> tuple[float, float] | None:
    """The printed size of a component image of ``size_px`` pixels: the ``size_mm`` of the layouts of that
    size, else of the tiled layouts (boards) whose tile size divides it (``size_mm`` is then one tile's);
    ``None`` when no layout gives one. :class:`DataError` when they disagree."""
    width, height = size_px
    found: dict[str, tuple[float, float]] = {}
    for kind, lay in layouts.layouts.items():
        if lay.size_mm is None:
            continue
        if not lay.tiled and (lay.width, lay.height) == (width, height):
            found[kind] = lay.size_mm
    if not found:
        for kind, lay in layouts.layouts.items():
            if lay.size_mm is not None and lay.tiled and width % lay.width == 0 and height % lay.height == 0:
                found[kind] = (lay.size_mm[0] * width // lay.width, lay.size_mm[1] * height // lay.height)
    sizes = set(found.values())
    if len(sizes) > 1:
        kinds = sorted(found)
        raise DataError(layouts.file, f'layout "{kinds[0]}"', "size_mm",
                        f"{name}: the layouts {', '.join(kinds)} of its {width}x{height} px give different printed "
                        "sizes")
    return sizes.pop() if sizes else None


@dataclass(frozen=True)
class GameArt:
    """What the PDF of a game is made of: its decks, its components printed once, a loader per image key, and
    the components no layout gives a printed size (left out)."""

    id: str
    name: str
    out_dir: Path
    decks: tuple[DeckArt, ...]
    images: Mapping[str, Callable[[], object]]
    singles: tuple[SingleArt, ...] = ()
    unsized: tuple[str, ...] = ()


def _whole(path: Path, shape: tuple[int, int] | None = None) -> Callable[[], object]:
    """A loader of the image ``path``; given its deck's face ``shape``, a face of another shape is fitted into
    it as the deck's sheet fits it into its cell (:func:`tools.sheets.fit_face`)."""
    def load():
        from PIL import Image

        from tools.render.pipeline import FIT
        from tools.sheets import fit_face, shape_differs

        with Image.open(path) as image:
            face = image.convert("RGB")
        if shape is not None and shape_differs(face.size, shape):
            scale = max(face.width / shape[0], face.height / shape[1])
            face = fit_face(face, (round(shape[0] * scale), round(shape[1] * scale)), FIT)
        return face
    return load


def game_art(game, *, out_dir: Path | None = None, lang: str = "en", mode: str | None = None,
             jobs: int | None = None, progress: Progress | None = None,
             face_progress: Progress | None = None, bleed: float = 0.0) -> GameArt:
    """Render ``game``'s art through the build's pipeline into ``out_dir`` (default the build folder: after a
    build nothing is drawn), draw every card face at its print resolution into the build's print cache, those not
    drawn there before only (``face_progress`` counts them: none for a second PDF), and describe the decks for
    :func:`plan_pages`. ``bleed`` (mm): a renderer that can draws each face with its bleed (its art's own pixels
    past the cut line); the others' bleed is mirrored from their edges by :func:`with_bleed`."""
    from bridge.catalog import load
    from tools.build import JPEG_QUALITY as BUILD_QUALITY, check_lang, check_mode
    from tools.buildstamp import default_out_dir
    from tools.folderlock import folder_lock
    from tools.games.builder import builder_of
    from bridge.catalog import assets_dir
    from tools.imageio import image_size
    from tools.render.layout import load_layouts
    from tools.render.pipeline import THUMBNAIL, print_faces

    loaded = load(game)
    check_lang(loaded.meta, lang)
    check_mode(loaded.meta, mode)
    builder = builder_of(loaded.meta, loaded.folder)
    out = Path(out_dir) if out_dir is not None else default_out_dir(loaded.meta.id, loaded.folder)
    layouts = load_layouts(loaded.folder / "layouts.toml", fonts_dir=assets_dir() / "fonts")
    with folder_lock(out, what="pnp"):
        # prune=False: files of the last build stay for its save; the next build tidies up
        art = builder.render(loaded.data, out, lang=lang, fmt="jpg", quality=BUILD_QUALITY, use_cache=True,
                             jobs=jobs, progress=progress, game_dir=loaded.folder, prune=False)
        # A deck without a printed size fails before any face is drawn; every card face is drawn at its print
        # resolution (the sheets hold them at their cells' size), once: the print cache keeps it by content.
        targets = {face: print_pixels(deck_sizes(layouts, packed.face_size, name))
                   for name, packed in art.decks.items() for face in art.faces[name]}
        bleed_px = round(bleed / MM_PER_INCH * DPI) if bleed > 0 else 0
        bled = bleed_px > 0 and getattr(art.renderer, "draws_bleed", False)
        whole = print_faces(art.renderer, out, list(targets), sizes=targets, jobs=jobs, progress=face_progress,
                            bleed=bleed_px)
    decks: list[DeckArt] = []
    images: dict[str, Callable[[], object]] = {}
    # A builder whose decks hold copies of a face (a card drawn once, dealt three times) says how many of each to
    # print; otherwise each face is printed once, as it lies in its sheet.
    copies_of = getattr(builder, "print_copies", None)
    copies = copies_of(loaded.data, loaded.folder) if copies_of is not None else {}
    for name, packed in art.decks.items():
        size = deck_sizes(layouts, packed.face_size, name)
        faces = []
        for face in art.faces[name]:
            images[face] = _whole(whole[face], None if bled else packed.face_size)
            faces += [face] * copies.get(name, {}).get(face, 1)
        back = f"{name}:back"
        images[back] = _whole(packed.back_path)
        decks.append(DeckArt(name, size, tuple(faces), back, tuple(packed.face_size)))
    singles: list[SingleArt] = []
    unsized: list[str] = []
    for name, path in art.images.items():
        if name == THUMBNAIL:
            continue
        size = single_size(layouts, image_size(path), name)
        if size is None:
            unsized.append(name)
            continue
        # A component that is also a card face (a tile dealt as a card too) prints from its own image, while the
        # card face keeps its print-size drawing.
        image = name if name not in images else f"{name}:component"
        images[image] = _whole(path)
        singles.append(SingleArt(name, size, image))
    return GameArt(loaded.meta.id, loaded.meta.name.en, out, tuple(decks), images, tuple(singles), tuple(unsized))


def pnp(game, out: Path | None = None, *, paper: str = "a4", lang: str = "en", mode: str | None = None,
        bleed: float = DEFAULT_BLEED_MM, crop_marks: bool = True, duplex: bool = True, gap: float = DEFAULT_GAP_MM,
        build_dir: Path | None = None, jobs: int | None = None, render_progress: Progress | None = None,
        face_progress: Progress | None = None, page_progress: Progress | None = None) -> tuple[Path, Plan, GameArt]:
    """Write ``game``'s print-and-play PDF to ``out`` (default ``<build folder>/<Game>-pnp-<paper>.pdf``)
    atomically; returns the path and the plan it drew."""
    from bridge.fsio import atomic_write_bytes
    from tools.build import output_stem

    check_options(paper, bleed, gap)
    art = game_art(game, out_dir=build_dir, lang=lang, mode=mode, jobs=jobs, progress=render_progress,
                   face_progress=face_progress, bleed=bleed)
    from bridge.catalog import assets_dir

    plan = plan_pages(art.decks, art.singles, paper=paper, bleed=bleed, gap=gap, crop_marks=crop_marks,
                      duplex=duplex, title=art.name)
    data = write_pdf(plan, art.images, title=art.name, progress=page_progress,
                     font=assets_dir() / "fonts" / COVER_FONT)
    if out is None:
        out = art.out_dir / f"{output_stem(art.name)}-pnp-{paper}.pdf"
    out = Path(out)
    atomic_write_bytes(out, data)   # makes the folder; a failure names the file (bridge.errors.WriteError)
    return out, plan, art
