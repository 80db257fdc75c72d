"""Where things lie on the Kill the Unicorns boards and on the table: the one place the renderer (which draws the
card places) and the table composer (which puts snap points, zones and the mod's offsets on them) both read.

Image points are pixels of a board image from its top-left corner; the boards' boxes come from ``layouts.toml``.
The hunting ground and the seat mats are drawn at :data:`PX_PER_UNIT` pixels per table unit, so a card lying on
them covers exactly its drawn place; the market board is :data:`MARKET_WIDTH` units wide whatever its image size.

Table positions are world ``(x, y, z)``: +x is the White seat's right, +z away from the south edge.  A tile lies
with ``rot_y`` 180 (upright for a player at the south edge) or 0 (upright for the north edge); a point of its
image maps to local coordinates by :func:`tools.save.geometry.image_point_to_local` and to the table by
:func:`local_to_world`.  Pure arithmetic: no files, no images.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tools.render.layout import Box, CardLayout
from tools.save.geometry import card_half_extents, image_point_to_local, tile_half_extents
from tools.save.objects import Vector

CARD_FACE = (630, 880)
"""Pixel size of every card face (hunting, trick, unicorn): sets a card's shape on the table."""

PX_PER_UNIT = 100
"""Pixels of the ground and seat-mat images per table unit."""

MARKET_WIDTH = 13.0
"""Width of the market board on the table, in table units."""

TOKEN_SIZE = 0.8
"""Diameter of a market token on the table (a round tile of a square image)."""

CHARACTER_WIDTH = 3.6
"""Width of a character card (a landscape tile) on the table."""

CATCH_STEP = 0.6
"""Table units from one unicorn of a catch-area column to the next one laid, towards the mat's owner: the later
card covers the lower part of the earlier ones, whose upper strip (stars, colour) stays visible."""

CATCH_LIFT = 0.05
"""Table units each later unicorn of a catch column lies higher than the one before."""

def _strip_middle() -> float:
    """``towards the owner`` from a caught unicorn's centre to the middle of its strip that the next unicorn of the
    column leaves visible (its upper ``CATCH_STEP``): on its card, under no later one."""
    depth = 2 * card_half_extents(*CARD_FACE)[1]
    return round(-(depth / 2 - CATCH_STEP / 2), 4)


PINNED_OFFSET = (0.3, -0.05, _strip_middle())
"""``(right, up, towards the owner)`` from a caught unicorn to a pinned trick card travelling with it: tucked under
the unicorn, its centre on the unicorn's visible strip (so it is read as that unicorn's and no other's, by the
reading rule of the table contract) and a little to the right, so its edge shows beside the unicorn."""

TOKEN_OFFSET = (0.55, 0.2, _strip_middle())
"""``(right, up, towards the owner)`` from a caught unicorn to a market token put on it: on the unicorn's visible
strip, right of its stars (each further token 0.35 further left)."""

HUNT_SPOTS = 3
"""Places of the hunt area: a hunt is opened with 1 to ``max_hunt_cards`` (3) cards."""

LEGENDARY = "legendary"
"""The catch-area column of colourless (legendary) unicorns, after the colours' columns."""

LINE_ROWS = ("above", "unicorn", "below")
"""The rows of the hunting ground's ``line`` box, top to bottom (as the White seat sees it)."""

MAT_SPOTS = ("hunt_discard", "trick_discard", "character", "trick_deck")
"""The seat-mat boxes that hold one thing each, at their centre."""

LAY_Y = 1.3         # height the mod lays cards at (just above a board)

# -- the table's plan: where the boards lie (the rest of the table is placed by the game folder's table.toml) --

GROUND_AT = (0.0, 0.0)
MARKET_AT = (17.5, 0.0)
MAT_Z = 16.6
SOUTH_X = (20.4, 6.8, -6.8, -20.4)   # seats 0-3 along the south edge, clockwise (to each one's left)
NORTH_X = (-13.6, 0.0, 13.6)          # seats 4-6 along the north edge, clockwise


def card_size_units() -> tuple[float, float]:
    """``(width, depth)`` of a card on the table (scale 1)."""
    hx, hz = card_half_extents(*CARD_FACE)
    return 2 * hx, 2 * hz


def card_size_pixels() -> tuple[float, float]:
    """``(width, height)`` in ground or mat pixels of a card lying there."""
    w, d = card_size_units()
    return w * PX_PER_UNIT, d * PX_PER_UNIT


def tile_scale(layout_or_size, width_units: float) -> float:
    """The uniform scale that makes a ``Custom_Tile`` of this image ``width_units`` wide on the table."""
    width, height = (layout_or_size.width, layout_or_size.height) if isinstance(layout_or_size, CardLayout) \
        else layout_or_size
    hx, _ = tile_half_extents(width, height)
    return width_units / (2 * hx)


def board_width(layout: CardLayout) -> float:
    """Table width of a ground or seat mat drawn at :data:`PX_PER_UNIT`."""
    return layout.width / PX_PER_UNIT


def box_centre(box: Box) -> tuple[float, float]:
    return box.x + box.width / 2, box.y + box.height / 2


# -- the hunting ground ---------------------------------------------------------------------------------------

def line_cells(layout: CardLayout, columns: int) -> dict[str, list[tuple[float, float]]]:
    """Pixel centres of the ground's places: ``{"above": [...], "unicorn": [...], "below": [...]}``, one per
    unicorn of the line (left to right: the order of the hunts)."""
    box = layout.box("line")
    col_w, row_h = box.width / columns, box.height / len(LINE_ROWS)
    return {row: [(box.x + (i + 0.5) * col_w, box.y + (r + 0.5) * row_h) for i in range(columns)]
            for r, row in enumerate(LINE_ROWS)}


# -- the seat mat ---------------------------------------------------------------------------------------------

def catch_label_height(layout: CardLayout) -> int:
    """Pixels at the top of the ``catch`` box kept for the columns' colour chips."""
    return min(60, layout.box("catch").height // 8)


def catch_columns(layout: CardLayout, columns: list[str]) -> dict[str, tuple[float, float]]:
    """Pixel centre of the first card of each catch-area column (``columns``: colour ids, then
    :data:`LEGENDARY`), evenly across the ``catch`` box, just below its chips."""
    box = layout.box("catch")
    _, card_h = card_size_pixels()
    pitch = box.width / len(columns)
    y = box.y + catch_label_height(layout) + card_h / 2
    return {c: (box.x + (i + 0.5) * pitch, y) for i, c in enumerate(columns)}


def catch_capacity(layout: CardLayout) -> int:
    """How many unicorns a catch column shows in full steps before the next one would leave the box."""
    box = layout.box("catch")
    _, card_h = card_size_pixels()
    room = box.height - catch_label_height(layout) - card_h
    return 1 + max(0, int(room // (CATCH_STEP * PX_PER_UNIT)))


def hunt_spots(layout: CardLayout) -> list[tuple[float, float]]:
    """Pixel centres of the :data:`HUNT_SPOTS` places of the hunt area, left to right."""
    box = layout.box("hunt")
    return [(box.x + (i + 0.5) * box.width / HUNT_SPOTS, box.y + box.height / 2) for i in range(HUNT_SPOTS)]


def mat_spots(layout: CardLayout) -> dict[str, tuple[float, float]]:
    """Pixel centres of the single places of a seat mat (:data:`MAT_SPOTS`)."""
    return {name: box_centre(layout.box(name)) for name in MAT_SPOTS}


def check_boxes(layout: CardLayout, columns: int) -> list[tuple[str, str]]:
    """``(box name, problem)`` for every seat-mat or ground box too small for what lies there (empty: fine)."""
    card_w, card_h = card_size_pixels()
    problems = []

    def need(name: str, w: float, h: float) -> None:
        box = layout.box(name)
        if box.width < w or box.height < h:
            problems.append((name, f"{box.width}x{box.height} px cannot hold {w:.0f}x{h:.0f} px"))

    if layout.kind == "ground":
        need("line", columns * card_w, len(LINE_ROWS) * card_h)
    elif layout.kind == "seat_mat":
        need("catch", columns * card_w, catch_label_height(layout) + card_h)
        need("hunt", HUNT_SPOTS * card_w, card_h)
        for name in ("hunt_discard", "trick_discard", "trick_deck"):
            need(name, card_w, card_h)
        cw = CHARACTER_WIDTH * PX_PER_UNIT
        need("character", cw, cw * CARD_FACE[0] / CARD_FACE[1])
    return problems


# -- the market board -----------------------------------------------------------------------------------------

def market_card_rects(board: CardLayout, card: CardLayout, count: int) -> list[tuple[float, float, float]]:
    """``(left, top, scale)`` in board pixels of each market card: equal columns of the board's ``cards`` box,
    each card scaled to fit its column and centred in it."""
    box = board.box("cards")
    pitch = box.width / count
    scale = min(pitch / card.width, box.height / card.height)
    w, h = card.width * scale, card.height * scale
    return [(box.x + i * pitch + (pitch - w) / 2, box.y + (box.height - h) / 2, scale) for i in range(count)]


def token_grid(count: int) -> tuple[int, int]:
    """``(columns, rows)`` of a market card's token places: at most three a row."""
    columns = max(1, min(3, count))
    return columns, math.ceil(count / columns)


def market_token_spots(board: CardLayout, card: CardLayout, stocks: list[int]) -> list[list[tuple[float, float]]]:
    """Board-pixel centres of each item's token places (``stocks[i]`` places on card ``i``), row by row."""
    out = []
    for (left, top, scale), count in zip(market_card_rects(board, card, len(stocks)), stocks):
        box = card.box("tokens")
        columns, rows = token_grid(count)
        spots = []
        for k in range(count):
            r, c = divmod(k, columns)
            x = box.x + (c + 0.5) * box.width / columns
            y = box.y + (r + 0.5) * box.height / rows
            spots.append((left + x * scale, top + y * scale))
        out.append(spots)
    return out


def market_token_diameter_pixels(board: CardLayout) -> float:
    return TOKEN_SIZE * board.width / MARKET_WIDTH


# -- local and world ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Placed:
    """A tile on the table: its image size, position ``(x, z)``, uniform scale and ``rot_y``."""

    size: tuple[int, int]
    x: float
    z: float
    scale: float
    rot_y: float

    def local(self, point: tuple[float, float]) -> Vector:
        """Image pixel ``point`` → local (unscaled) coordinates of the tile (a snap point's position)."""
        hx, hz = tile_half_extents(*self.size)
        return image_point_to_local(point[0] / self.size[0], point[1] / self.size[1], hx, hz)

    def world(self, point: tuple[float, float], y: float = LAY_Y) -> tuple[float, float, float]:
        """Image pixel ``point`` → table position ``(x, y, z)``."""
        return local_to_world(self.local(point), self.x, self.z, self.scale, self.rot_y, y)

    def direction(self, right: float, up: float, towards_owner: float) -> tuple[float, float, float]:
        """A vector in the tile's frame (``right``, ``up``, ``towards_owner`` as its reader sees it) → table."""
        # Image right is local -x and image down local +z (tools/save/geometry.py); the tile's reader sits at
        # its image's bottom edge.
        x, z = _rotate(-right, towards_owner, self.rot_y)
        return _r(x), _r(up), _r(z)


def _rotate(x: float, z: float, rot_y: float) -> tuple[float, float]:
    a = math.radians(rot_y)
    return x * math.cos(a) + z * math.sin(a), -x * math.sin(a) + z * math.cos(a)


def _r(value: float) -> float:
    rounded = round(value, 4)
    return 0.0 if rounded == 0 else rounded


def local_to_world(local: Vector, x: float, z: float, scale: float, rot_y: float,
                   y: float = LAY_Y) -> tuple[float, float, float]:
    """A tile's local point → table ``(x, y, z)`` (``y`` given: the height a card is laid at)."""
    dx, dz = _rotate(local.x * scale, local.z * scale, rot_y)
    return _r(x + dx), _r(y), _r(z + dz)


def seat_places(count: int) -> list[tuple[float, float, float]]:
    """``(x, z, rot_y)`` of the seat mats for seats ``0 … count-1``: four along the south edge, then three along
    the north edge, going clockwise (each seat's left neighbour is the next seat)."""
    places = [(x, -MAT_Z, 180.0) for x in SOUTH_X] + [(x, MAT_Z, 0.0) for x in NORTH_X]
    if count > len(places):
        raise ValueError(f"the table has places for {len(places)} seats, not {count}")
    return places[:count]


