"""Where a point of an object's image lies on the object: the geometry every game's table composer shares.

A point ``(u, v)`` of an image (0..1 from the top-left) maps to an object's local, unscaled coordinates.
**Inferred, not verified in TTS**: a ``Custom_Tile`` spans 2 units along its image's shorter side and
``2 × aspect`` along the longer one (the reference saves' snap points fit this); a card spans 2 units across its
short side and ``2 × face aspect`` along its long side; objects lie with ``rotY = 180`` (upright for the White
seat) so image right is local −x and image top local −z.  Pure arithmetic: no files, no images.
"""

from __future__ import annotations

from tools.save.objects import Vector

SNAP_HEIGHT = 0.2
"""Local y of snap points: just above a tile's or card's surface."""


def tile_half_extents(width: int, height: int) -> tuple[float, float]:
    """Local half extents ``(x, z)`` of a ``Custom_Tile`` showing a ``width × height`` image (inferred)."""
    if width >= height:
        return width / height, 1.0
    return 1.0, height / width


def card_half_extents(width: int, height: int) -> tuple[float, float]:
    """Local half extents ``(x, z)`` of a card whose face is ``width × height`` (inferred, see module doc)."""
    return tile_half_extents(width, height)


def image_point_to_local(u: float, v: float, half_x: float, half_z: float) -> Vector:
    """Image point ``(u, v)`` (0..1 from the top-left) → local snap position on an object lying at rotY 180."""
    return Vector((0.5 - u) * 2 * half_x, SNAP_HEIGHT, (v - 0.5) * 2 * half_z)


def slot_centres(box: tuple[int, int, int, int], count: int, size: tuple[int, int]) -> list[tuple[float, float]]:
    """Centres ``(u, v)`` of ``count`` slots drawn as equal columns of the ``box`` (x, y, w, h) on a face of
    ``size`` pixels."""
    x, y, w, h = box
    width, height = size
    return [((x + (i + 0.5) * w / count) / width, (y + h / 2) / height) for i in range(count)]
