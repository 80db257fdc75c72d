"""Colours as layouts write them: ``"#rrggbb"`` → ``(r, g, b)``."""

from __future__ import annotations

import re

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


def parse_colour(text: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` → ``(r, g, b)``; raises ``ValueError`` otherwise."""
    found = _PARSED.get(text) if type(text) is str else None
    if found is not None:
        return found
    if not isinstance(text, str) or not _COLOUR.match(text):
        raise ValueError(f'"{text}" is not a colour "#rrggbb"')
    found = int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
    if len(_PARSED) < 4096:   # (the few colours of a game, asked for on every card)
        _PARSED[text] = found
    return found


_PARSED: dict[str, tuple[int, int, int]] = {}


def is_colour(text: object) -> bool:
    """Whether ``text`` is a ``"#rrggbb"`` colour."""
    return isinstance(text, str) and bool(_COLOUR.match(text))


def to_hex(colour: tuple[int, int, int]) -> str:
    """``(r, g, b)`` → ``"#rrggbb"`` (what a template's colour field takes)."""
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in colour[:3])
