"""Humour icons: each humour reads by its symbol, not only by its colour."""

from __future__ import annotations

from tools.games.four_humours.icons import humour_icon


def test_humour_icons_differ_by_shape_not_only_colour():
    shapes = {h: humour_icon(h, (128, 128, 128), 48).tobytes()
              for h in ("choleric", "sanguine", "melancholic", "phlegmatic")}
    assert len(set(shapes.values())) == 4
    icon = humour_icon("sanguine", (179, 32, 42), 48)
    assert icon.mode == "RGBA" and icon.getpixel((0, 0))[3] == 0  # round: transparent corners
