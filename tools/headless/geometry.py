"""Vectors and Unity-style transforms for the headless table.

TTS (Unity) rotations are Euler angles in degrees applied z, then x, then y (``R = Ry · Rx · Rz``);
``position_to_world`` is Unity's ``TransformPoint``: scale, rotate, then translate.
"""

from __future__ import annotations

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


def _rot_matrix(rot: Vec) -> list[list[float]]:
    ax, ay, az = (math.radians(a) for a in (rot.x, rot.y, rot.z))
    cx, sx, cy, sy, cz, sz = math.cos(ax), math.sin(ax), math.cos(ay), math.sin(ay), math.cos(az), math.sin(az)
    rx = [[1, 0, 0], [0, cx, -sx], [0, sx, cx]]
    ry = [[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]
    rz = [[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]
    return _mul(ry, _mul(rx, rz))


def _mul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def _apply(m: list[list[float]], v: Vec) -> Vec:
    t = (v.x, v.y, v.z)
    return Vec(*(sum(m[i][k] * t[k] for k in range(3)) for i in range(3)))


def _transpose(m: list[list[float]]) -> list[list[float]]:
    return [[m[j][i] for j in range(3)] for i in range(3)]


def position_to_world(local: Vec, position: Vec, rotation: Vec, scale: Vec) -> Vec:
    """Local point of an object → world point (Unity ``TransformPoint``)."""
    return _apply(_rot_matrix(rotation), local.scaled(scale)) + position


def position_to_local(world: Vec, position: Vec, rotation: Vec, scale: Vec) -> Vec:
    """World point → the object's local space (inverse of :func:`position_to_world`)."""
    v = _apply(_transpose(_rot_matrix(rotation)), world - position)
    return Vec(*(c / s if s else 0.0 for c, s in zip(v.as_tuple(), scale.as_tuple())))


def inside_box(world: Vec, position: Vec, rotation: Vec, scale: Vec) -> bool:
    """Whether a point lies in a unit box transformed like a zone (zones are 1×1×1 boxes scaled)."""
    local = position_to_local(world, position, rotation, scale)
    return all(abs(c) <= 0.5 + 1e-9 for c in local.as_tuple())


def is_face_down(rotation: Vec) -> bool:
    """Face down when the object is turned over around z (or x): the up vector points down."""
    up = _apply(_rot_matrix(rotation), Vec(0.0, 1.0, 0.0))
    return up.y < 0
