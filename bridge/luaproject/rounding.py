"""``ttsmod unpack --round``: quantise positions, rotations, scales and colours, for quiet git diffs.

TTS's physics moves resting objects by tiny amounts (``posY`` 1.00000453 one save, 0.99999714 the next, a
rotation of 179.999985), so each save touches lines of objects nobody moved. With ``--round`` unpack writes these
numbers rounded, by these rules, everywhere in the save (objects at any depth, snap points, hands):

- **positions**: ``posX``/``posY``/``posZ`` of a ``Transform``, and ``x``/``y``/``z`` of a ``Position``, to the
  nearest 0.001 (TTS's units are inches-ish; a thousandth is far below what a player can see);
- **rotations**: ``rotX``/``rotY``/``rotZ`` of a ``Transform``, and ``x``/``y``/``z`` of a ``Rotation``: within
  0.05 degrees of a multiple of 90, that multiple (360 becomes 0); otherwise to the nearest 0.01 degree;
- **scales**: ``scaleX``/``scaleY``/``scaleZ`` of a ``Transform`` to the nearest 0.0001 (a scale that this would
  make 0 is left as it is);
- **colours**: ``r``/``g``/``b``/``a`` of any object whose keys are only those (``ColorDiffuse``, a hand's
  ``Color``…), with at least ``r``, ``g`` and ``b``, to the nearest 0.0001.

A tiny negative number rounds to ``0.0``, not ``-0.0``. A number the rule leaves equal is left as it is, spelling included (``1E+09`` stays ``1E+09``); a rounded one is
written as the shortest text for its new value (``0.123``). Nothing else is touched: not scripts, not script
states, not other numbers. Without ``--round`` unpack rounds nothing.

No I/O here.
"""

from __future__ import annotations

from typing import Any

POSITION_DIGITS = 3
ROTATION_DIGITS = 2
ROTATION_SNAP_DEGREES = 0.05
SCALE_DIGITS = 4
COLOUR_DIGITS = 4

_TRANSFORM_POSITION = ("posX", "posY", "posZ")
_TRANSFORM_ROTATION = ("rotX", "rotY", "rotZ")
_TRANSFORM_SCALE = ("scaleX", "scaleY", "scaleZ")
_XYZ = ("x", "y", "z")
_COLOUR = frozenset("rgba")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def round_position(value: float) -> float:
    return round(value, POSITION_DIGITS)


def round_rotation(value: float) -> float:
    """Snap to a multiple of 90 within :data:`ROTATION_SNAP_DEGREES` (360 → 0), else 0.01 degree."""
    nearest = round(value / 90.0) * 90.0
    if abs(value - nearest) <= ROTATION_SNAP_DEGREES:
        return 0.0 if abs(nearest) == 360.0 else nearest
    rounded = round(value, ROTATION_DIGITS)
    return 0.0 if abs(rounded) == 360.0 else rounded


def round_scale(value: float) -> float:
    rounded = round(value, SCALE_DIGITS)
    return value if rounded == 0 else rounded


def round_colour(value: float) -> float:
    return round(value, COLOUR_DIGITS)


def _apply(holder: dict[str, Any], keys, rule) -> int:
    changed = 0
    for key in keys:
        value = holder.get(key)
        if not _is_number(value) or value != value or value in (float("inf"), float("-inf")):
            continue
        new = float(rule(value)) + 0.0     # + 0.0: a tiny negative rounds to 0.0, not -0.0
        if new != value or (new == 0 and str(value).startswith("-")):
            holder[key] = new
            changed += 1
    return changed


def round_save(save: Any) -> int:
    """Round, in place, the numbers of ``save`` the rules in the module docstring name; returns how many
    changed. Iterative: any depth."""
    changed = 0
    stack: list[tuple[Any, Any]] = [(None, save)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, list):
            stack.extend((None, item) for item in value)
            continue
        if not isinstance(value, dict):
            continue
        if key == "Transform":
            changed += _apply(value, _TRANSFORM_POSITION, round_position)
            changed += _apply(value, _TRANSFORM_ROTATION, round_rotation)
            changed += _apply(value, _TRANSFORM_SCALE, round_scale)
        elif key == "Position":
            changed += _apply(value, _XYZ, round_position)
        elif key == "Rotation":
            changed += _apply(value, _XYZ, round_rotation)
        elif value and set(value) <= _COLOUR and {"r", "g", "b"} <= set(value):
            changed += _apply(value, "rgba", round_colour)
        stack.extend((sub_key, sub) for sub_key, sub in value.items() if isinstance(sub, (dict, list)))
    return changed
