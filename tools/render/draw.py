"""Drawing helpers every game's renderer shares: colours, icons pasted with alpha, discs, art and placeholders.

Icons are drawn at 4× and downsampled (``ImageDraw`` has no antialiasing), as RGBA so they can be pasted on
any background (:func:`star_icon`, :func:`paste_icon`, :func:`disc`).

Art: :func:`cover_fit` scales an image to fill a box without distortion (cropping the overflow, centred);
:func:`placeholder` draws a generated stand-in (gradient and hatching in the card's zone colour) when a card
has no art file; :func:`find_art` finds ``art/<card-id>.png|jpg`` and refuses paths leaving the game folder;
:func:`load_art` decodes it safely.
"""

from __future__ import annotations

import math
from functools import lru_cache
import os
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageOps

from bridge.errors import DataError
from tools.imageio import ImageError, open_image, to_rgb

SUPERSAMPLE = 4
ART_EXTENSIONS = (".png", ".jpg", ".jpeg")


def luminance(colour: tuple[int, int, int]) -> float:
    r, g, b = colour
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(colour: tuple[int, int, int], dark=(34, 26, 20), light=(250, 246, 236)) -> tuple[int, int, int]:
    """A dark or light ink readable on ``colour``."""
    return dark if luminance(colour) > 140 else light


def mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    """Linear mix of two colours, ``t`` = 0 → ``a``, 1 → ``b``."""
    if len(a) == 3 and len(b) == 3:   # the usual RGB, spelled out: card drawing mixes colours ~400 times a card
        return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


@lru_cache(maxsize=64)
def star_icon(colour: tuple[int, int, int], size: int) -> Image.Image:
    """A five-pointed star in ``colour`` with a contrasting outline (goal markers).  RGBA."""
    s = size * SUPERSAMPLE
    image = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    cx = cy = s / 2
    pts = []
    for i in range(10):
        radius = s * (0.48 if i % 2 == 0 else 0.2)
        angle = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    draw.polygon(pts, fill=colour, outline=contrast(colour), width=max(2, s // 40))
    return image.resize((size, size), Image.Resampling.LANCZOS)


def paste_icon(canvas: Image.Image, icon: Image.Image, centre: tuple[float, float]) -> None:
    """Alpha-composite ``icon`` onto ``canvas`` centred at ``centre``."""
    x = round(centre[0] - icon.width / 2)
    y = round(centre[1] - icon.height / 2)
    canvas.paste(icon, (x, y), icon)


def composite_icon(canvas: Image.Image, icon: Image.Image, centre: tuple[float, float]) -> None:
    """Lay ``icon`` over an RGBA ``canvas`` centred at ``centre`` (placed as :func:`paste_icon` places it, clipped
    at the canvas's edges), by its transparency: on a clear canvas the icon's own pixels, so the picture laid on a
    card later is the icon pasted straight on it."""
    x = round(centre[0] - icon.width / 2)
    y = round(centre[1] - icon.height / 2)
    left, top = max(0, -x), max(0, -y)
    right, bottom = min(icon.width, canvas.width - x), min(icon.height, canvas.height - y)
    if right > left and bottom > top:
        canvas.alpha_composite(icon.convert("RGBA"), (x + left, y + top), (left, top, right, bottom))


def hatching(size: tuple[int, int], colour: tuple[int, int, int], step: float, width: int, *,
             rising: bool = False) -> Image.Image:
    """Parallel lines at 45 degrees, ``step`` px apart and ``width`` px wide, in ``colour`` on a clear ``size``
    canvas (RGBA): falling from left to right, or ``rising``. With a step in proportion to the size (it may be
    fractional: :func:`stripes`), a pattern drawn at another size has its lines at the same places, scaled."""
    w, h = size
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    fill = (*colour[:3], 255)
    for x in stripes(-h, w + h, step):
        draw.line([(x + h, 0), (x, h)] if rising else [(x, 0), (x + h, h)], fill=fill, width=width)
    return image


def disc(size: int, fill: tuple[int, int, int], background: tuple[int, int, int], supersample: int = SUPERSAMPLE
         ) -> Image.Image:
    """An antialiased filled circle touching the edges of a ``size`` square of ``background``.  RGB."""
    s = size * supersample
    image = Image.new("RGB", (s, s), background)
    ImageDraw.Draw(image).ellipse((0, 0, s - 1, s - 1), fill=fill)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def cover_fit(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` scaled to cover ``size`` with its aspect ratio kept, centred and cropped (no distortion)."""
    return ImageOps.fit(image.convert("RGB"), size, method=Image.Resampling.LANCZOS, centering=(0.5, 0.5))


def stripes(start: float, stop: float, step: float) -> list[float]:
    """``start``, ``start + step``, … below ``stop``: where a hatching's lines go. ``step`` may be fractional, so a
    pattern drawn at another size has its lines at the same places, scaled (an integer step would drift)."""
    count = max(0, math.ceil((stop - start) / step))
    return [start + i * step for i in range(count)]


def placeholder(size: tuple[int, int], colour: tuple[int, int, int]) -> Image.Image:
    """A generated stand-in for missing art: a vertical gradient of the zone colour with diagonal hatching."""
    # Drawn once per size and colour in a process (a game has a few zones): a copy, as the caller may draw on it.
    return _placeholder(tuple(size), tuple(colour)).copy()


def paste_placeholder(image: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, int, int]) -> None:
    """:func:`placeholder` of ``box``'s size in ``colour`` pasted into ``box`` (left, top, right, bottom) of
    ``image`` (no copy of it made)."""
    left, top, right, bottom = box
    image.paste(_placeholder((right - left, bottom - top), tuple(colour)), (left, top))


@lru_cache(maxsize=32)
def _placeholder(size: tuple[int, int], colour: tuple[int, int, int]) -> Image.Image:
    w, h = size
    top, bottom = mix(colour, (255, 255, 255), 0.45), mix(colour, (0, 0, 0), 0.15)
    column = Image.new("RGB", (1, h))
    column.putdata([mix(top, bottom, y / max(1, h - 1)) for y in range(h)])
    image = column.resize((w, h))
    draw = ImageDraw.Draw(image)
    hatch = mix(colour, (255, 255, 255), 0.25)
    step = max(3.0, min(w, h) / 12)
    for x in stripes(-h, w, step):
        draw.line([(x, h), (x + h, 0)], fill=hatch, width=max(1, round(step / 6)))
    draw.rectangle((0, 0, w - 1, h - 1), outline=mix(colour, (0, 0, 0), 0.35), width=max(1, min(w, h) // 80))
    return image


def find_art(game_dir: Path, card_id: str, *, file: str, entry: str) -> Path | None:
    """``<game_dir>/art/<card_id>.png|jpg|jpeg`` if present, else ``None``.

    Raises :class:`DataError` if the card id would make the path leave the game folder (``..``, separators,
    symlinks pointing elsewhere).
    """
    if not card_id or "/" in card_id or "\\" in card_id or card_id.startswith(".") or "\0" in card_id:
        raise DataError(file, entry, "id", f'art path art/{card_id}.* escapes the game folder')
    names = _art_names(os.path.join(game_dir, "art"))
    if not names:
        return None   # no art folder, or an empty one: none of the names below is there
    art_dir = None
    for ext in ART_EXTENSIONS:
        if f"{card_id}{ext}".casefold() not in names:   # casefolded: as on a case-insensitive file system
            continue
        art_dir = art_dir or (game_dir / "art").resolve()
        resolved = (game_dir / "art" / f"{card_id}{ext}").resolve()
        if not resolved.is_relative_to(art_dir):
            raise DataError(file, entry, "id", f"art path art/{card_id}{ext} escapes the game folder")
        if resolved.is_file():
            return resolved
    return None


_art_listings: dict[str, tuple[int, frozenset[str], int]] = {}
"""Art folder → (its time, its names casefolded, when its time was last looked at: ``time.monotonic_ns``)."""


def _art_names(art_dir: str) -> frozenset[str]:
    """The names in an art folder, listed once while the folder is unchanged (its time is looked at again after a
    tenth of a second at most); none when there is no folder. A big game asks for the art of thousands of cards
    in a row, most of which have none: each question used to cost three path resolutions, and then a stat."""
    now = time.monotonic_ns()
    known = _art_listings.get(art_dir)
    if known is not None and now - known[2] < 100_000_000:
        return known[1]
    try:
        stamp = os.stat(art_dir).st_mtime_ns   # a file added, removed or renamed changes the folder's time
        if known is not None and known[0] == stamp:
            _art_listings[art_dir] = (stamp, known[1], now)
            return known[1]
        listed = frozenset(name.casefold() for name in os.listdir(art_dir))
    except OSError:
        _art_listings[art_dir] = (-1, frozenset(), now)   # no folder (most sample games): none to list
        return frozenset()
    if time.time_ns() - stamp > 2_000_000_000:   # a folder changed just now may change again within its time tick
        _art_listings[art_dir] = (stamp, listed, now)
    return listed


def load_art(path: Path, *, file: str, entry: str, max_pixels: int | None = None) -> Image.Image:
    """Decode an art file as RGB, as a viewer shows it (EXIF orientation, 16-bit grey kept grey).

    An unreadable file, or one over ``max_pixels`` (default :data:`tools.imageio.DEFAULT_MAX_PIXELS`: a likely
    decompression bomb, refused from its header), → :class:`DataError` naming the file and the reason.
    """
    try:
        image = open_image(path, max_pixels=max_pixels)
    except ImageError as exc:
        raise DataError(file, entry, "art", f"art/{path.name}: {exc.reason}") from None
    return to_rgb(image)


def mirror_pad(image: Image.Image, border: int) -> Image.Image:
    """``image`` with ``border`` pixels added on every side, each a mirror of the pixels next to it (a border
    wider than the image mirrors the mirrored image again); corners are mirrored both ways."""
    out = image
    left = border
    while left > 0:   # left and right, as many mirrors as the border needs
        step = min(left, out.width)
        wider = Image.new("RGB", (out.width + 2 * step, out.height))
        wider.paste(out, (step, 0))
        wider.paste(out.crop((0, 0, step, out.height)).transpose(Image.Transpose.FLIP_LEFT_RIGHT), (0, 0))
        wider.paste(out.crop((out.width - step, 0, out.width, out.height)).transpose(Image.Transpose.FLIP_LEFT_RIGHT),
                    (step + out.width, 0))
        out, left = wider, left - step
    top = border
    while top > 0:    # then top and bottom, of the widened image: its corners are mirrored both ways
        step = min(top, out.height)
        taller = Image.new("RGB", (out.width, out.height + 2 * step))
        taller.paste(out, (0, step))
        taller.paste(out.crop((0, 0, out.width, step)).transpose(Image.Transpose.FLIP_TOP_BOTTOM), (0, 0))
        taller.paste(out.crop((0, out.height - step, out.width, out.height)).transpose(Image.Transpose.FLIP_TOP_BOTTOM),
                     (0, step + out.height))
        out, top = taller, top - step
    return out
