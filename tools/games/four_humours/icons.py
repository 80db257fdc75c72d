"""Humour icons: a round potion in the humour's colour with a distinct symbol, so the icons stay readable for
colour-blind players and on greyscale prints: choleric a lightning bolt, sanguine a drop, melancholic a crescent,
phlegmatic waves.  Drawn at 4× and downsampled like every icon of :mod:`tools.render.draw`.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from tools.render.draw import SUPERSAMPLE, contrast, luminance


def _symbol(draw: ImageDraw.ImageDraw, humour: str, cx: float, cy: float, r: float, ink, base) -> None:
    if humour == "choleric":  # a lightning bolt (fire of yellow bile)
        pts = [(0.15, -0.8), (-0.45, 0.1), (-0.05, 0.1), (-0.2, 0.8), (0.45, -0.15), (0.05, -0.15), (0.3, -0.8)]
        draw.polygon([(cx + r * x, cy + r * y) for x, y in pts], fill=ink)
    elif humour == "sanguine":  # a drop
        draw.ellipse((cx - r * 0.45, cy - r * 0.05, cx + r * 0.45, cy + r * 0.85), fill=ink)
        draw.polygon([(cx, cy - r * 0.8), (cx - r * 0.42, cy + r * 0.25), (cx + r * 0.42, cy + r * 0.25)], fill=ink)
    elif humour == "melancholic":  # a crescent
        draw.ellipse((cx - r * 0.65, cy - r * 0.65, cx + r * 0.65, cy + r * 0.65), fill=ink)
        draw.ellipse((cx - r * 0.35, cy - r * 0.8, cx + r * 0.85, cy + r * 0.5), fill=base)
    elif humour == "phlegmatic":  # waves
        width = max(2, round(r * 0.16))
        for dy in (-0.4, 0.0, 0.4):
            pts = [(cx + r * (u / 20 * 1.3 - 0.65), cy + r * dy + r * 0.14 * math.sin(u / 20 * 2 * math.pi))
                   for u in range(21)]
            draw.line(pts, fill=ink, width=width, joint="curve")
    else:  # an unknown humour id: a plain dot
        draw.ellipse((cx - r * 0.3, cy - r * 0.3, cx + r * 0.3, cy + r * 0.3), fill=ink)


@lru_cache(maxsize=256)
def humour_icon(humour: str, colour: tuple[int, int, int], size: int) -> Image.Image:
    """A round potion icon of ``size`` px: ``colour`` disc, an outline visible on light and dark cards, and
    the humour's symbol in a contrasting ink.  RGBA; do not modify the returned (cached) image."""
    s = size * SUPERSAMPLE
    image = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    outline = (128, 128, 128) if luminance(colour) < 60 else (40, 32, 26)
    ring = max(2, s // 24)
    draw.ellipse((0, 0, s - 1, s - 1), fill=outline)
    draw.ellipse((ring, ring, s - 1 - ring, s - 1 - ring), fill=colour)
    _symbol(draw, humour, s / 2, s / 2, s / 2 - ring * 2, contrast(colour), colour)
    return image.resize((size, size), Image.Resampling.LANCZOS)


