"""Where things lie on a 15 Days player board and on the table: the one place the renderer (which draws card
places, arrows and token spots) and the table composer (which puts snap points on them) both read.

Image points are ``(u, v)`` fractions of the board image from its top-left corner; the board's boxes come from
``layouts.toml`` (``corner_<k>``, ``animals``, ``feathers``).  Cards of a corner spread evenly across its box, the
first flush with the left edge and the last with the right edge, values ascending from left to right; tokens sit
in a row in the lower part of their box (the upper part holds the box's label).  Pure arithmetic.
"""

from __future__ import annotations

from tools.render.layout import Box, CardLayout
from tools.save.geometry import card_half_extents, tile_half_extents

CARD_FACE = (630, 880)
"""Pixel size of a season or wild card face (``layouts.toml`` ``season``); sets the card's shape on the table."""

CARD_SCALE = 1.0
"""Scale of every card on the table: a card is 2 × 2.79 table units."""

BOARD_WIDTH = 19.2
"""Width of a player board on the table, in table units (its depth follows the image's aspect)."""

TOKEN_SCALE = 0.6
"""Scale of feathers and animals (round or rounded tiles of a square image): 1.2 table units across."""

LABEL_HEIGHT = 40
"""Pixels at the top of the animals and feathers boxes kept for their label."""

MARKET_STEP = -2.9
"""Signed z offset in table units from one card of a market column to the next one laid (negative: the later
card lies nearer the south edge). More than a card's depth (2.79): cards that overlap merge into a deck in TTS (a
card laid or dropped onto a card forms a deck), which would hide a column's cards under its top; the column's
cards lie one below the other, each in full view."""

MARKET_LIFT = 0.05
"""Table units each later card of a market column lies higher than the one before."""


def card_size_units() -> tuple[float, float]:
    """``(width, depth)`` of a card on the table."""
    hx, hz = card_half_extents(*CARD_FACE)
    return 2 * hx * CARD_SCALE, 2 * hz * CARD_SCALE


def board_scale(layout: CardLayout) -> float:
    """The uniform scale of the board tile that makes it :data:`BOARD_WIDTH` units wide."""
    hx, _ = tile_half_extents(layout.width, layout.height)
    return BOARD_WIDTH / (2 * hx)


def pixels_per_unit(layout: CardLayout) -> float:
    return layout.width / BOARD_WIDTH


def card_size_pixels(layout: CardLayout) -> tuple[float, float]:
    """``(width, height)`` in board pixels of a card lying on the board."""
    w, d = card_size_units()
    ppu = pixels_per_unit(layout)
    return w * ppu, d * ppu


def corner_card_centres(layout: CardLayout, corner: int, count: int) -> list[tuple[float, float]]:
    """Pixel centres of the ``count`` card places of corner ``corner`` (values ascending from left to right)."""
    box = layout.box(f"corner_{corner}")
    card_w, _ = card_size_pixels(layout)
    step = (box.width - card_w) / max(1, count - 1)
    y = box.y + box.height / 2
    return [(box.x + card_w / 2 + i * step, y) for i in range(count)]


def token_diameter_pixels(layout: CardLayout) -> float:
    return 2 * TOKEN_SCALE * pixels_per_unit(layout)


def token_centres(box: Box, count: int) -> list[tuple[float, float]]:
    """Pixel centres of ``count`` token places in a row across ``box``, below its label."""
    y = box.y + LABEL_HEIGHT + (box.height - LABEL_HEIGHT) / 2
    return [(box.x + (i + 0.5) * box.width / count, y) for i in range(count)]


def fractions(points: list[tuple[float, float]], layout: CardLayout) -> list[tuple[float, float]]:
    """Pixel points → ``(u, v)`` fractions of the board image."""
    return [(x / layout.width, y / layout.height) for x, y in points]


def market_offsets(height: int) -> list[tuple[float, float, float]]:
    """``(dx, dy, dz)`` from a market column's zone to its ``k``-th card (0 = first laid) for ``k < height``:
    the first card lies at the zone's position, each later one :data:`MARKET_STEP` further and a little higher."""
    return [(0.0, k * MARKET_LIFT, k * MARKET_STEP) for k in range(height)]


def market_zone_depth(height: int) -> float:
    """Depth of a market column's zone: centred on the first card, it reaches past the last one either way."""
    _, card_d = card_size_units()
    return card_d + 2 * (height - 1) * abs(MARKET_STEP) + 0.6
