"""Vectors and Unity-style transforms for the headless table.

TTS (Unity) rotations are Euler angles in degrees applied z, then x, then y (``R = Ry · Rx · Rz``);
``position_to_world`` is Unity's ``TransformPoint``: scale, rotate, then translate.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass


@dataclass
class Vec:
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0

    def __add__(self, other: "Vec") -> "Vec":
        return Vec(self.x + other.x, self.y + other.y, self.z + other.z)

    def __sub__(self, other: "Vec") -> "Vec":
        return Vec(self.x - other.x, self.y - other.y, self.z - other.z)

    def scaled(self, s: "Vec") -> "Vec":
        return Vec(self.x * s.x, self.y * s.y, self.z * s.z)

    def distance(self, other: "Vec") -> float:
        return math.dist((self.x, self.y, self.z), (other.x, other.y, other.z))

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.z)


@functools.lru_cache(maxsize=4096)
def _rot_matrix(ax_deg: float, ay_deg: float, az_deg: float) -> tuple[float, ...]:
    """``Ry · Rx · Rz`` as 9 numbers, row by row (cached: a table has few distinct rotations)."""
    ax, ay, az = math.radians(ax_deg), math.radians(ay_deg), math.radians(az_deg)
    cx, sx, cy, sy, cz, sz = math.cos(ax), math.sin(ax), math.cos(ay), math.sin(ay), math.cos(az), math.sin(az)
    # Rx · Rz
    m = ((cz, -sz, 0.0),
         (cx * sz, cx * cz, -sx),
         (sx * sz, sx * cz, cx))
    # Ry · (Rx · Rz)
    return (cy * m[0][0] + sy * m[2][0], cy * m[0][1] + sy * m[2][1], cy * m[0][2] + sy * m[2][2],
            m[1][0], m[1][1], m[1][2],
            -sy * m[0][0] + cy * m[2][0], -sy * m[0][1] + cy * m[2][1], -sy * m[0][2] + cy * m[2][2])


def _rotation(rot: Vec) -> tuple[float, ...]:
    return _rot_matrix(float(rot.x), float(rot.y), float(rot.z))


def position_to_world(local: Vec, position: Vec, rotation: Vec, scale: Vec) -> Vec:
    """Local point of an object → world point (Unity ``TransformPoint``)."""
    m = _rotation(rotation)
    x, y, z = local.x * scale.x, local.y * scale.y, local.z * scale.z
    return Vec(m[0] * x + m[1] * y + m[2] * z + position.x,
               m[3] * x + m[4] * y + m[5] * z + position.y,
               m[6] * x + m[7] * y + m[8] * z + position.z)


def position_to_local(world: Vec, position: Vec, rotation: Vec, scale: Vec) -> Vec:
    """World point → the object's local space (inverse of :func:`position_to_world`)."""
    m = _rotation(rotation)
    x, y, z = world.x - position.x, world.y - position.y, world.z - position.z
    lx = m[0] * x + m[3] * y + m[6] * z     # the transpose is the inverse of a rotation
    ly = m[1] * x + m[4] * y + m[7] * z
    lz = m[2] * x + m[5] * y + m[8] * z
    return Vec(lx / scale.x if scale.x else 0.0, ly / scale.y if scale.y else 0.0, lz / scale.z if scale.z else 0.0)


def inside_box(world: Vec, position: Vec, rotation: Vec, scale: Vec) -> bool:
    """Whether a point lies in a unit box transformed like a zone (zones are 1×1×1 boxes scaled)."""
    local = position_to_local(world, position, rotation, scale)
    edge = 0.5 + 1e-9
    return abs(local.x) <= edge and abs(local.y) <= edge and abs(local.z) <= edge


def is_face_down(rotation: Vec) -> bool:
    """Face down when the object is turned over around z (or x): the up vector points down."""
    return _rotation(rotation)[4] < 0
