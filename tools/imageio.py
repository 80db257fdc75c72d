"""Opening images that come from users or from untrusted saves: one place for the limits and the fixes.

Every image ttsmod did not render itself (card art, faces given to ``sheets``, images a save points at)
is opened through :func:`open_image` or sized through :func:`image_size`, so that:

- a decompression bomb (a small file that claims 30000×30000 pixels) is refused from its header, before
  any pixel is decoded, with an error naming the file and its pixel size; the limit is a parameter
  (``DEFAULT_MAX_PIXELS`` unless the caller passes its own, e.g. from a ``--max-pixels`` option);
- the EXIF orientation a camera or phone wrote is applied, so the image looks as it does in a viewer;
- 16-bit greyscale (Pillow modes ``I;16``/``I``) keeps its greys: a plain ``convert("RGB")`` clips every
  value above 255, which turns almost the whole image white;
- a missing, unreadable or truncated file is an :class:`ImageError` (an ``InputError``, exit status 2),
  never a traceback.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from bridge.errors import InputError
from tools.defaults import DEFAULT_MAX_PIXELS  # defined there so that --help needs no Pillow

# EXIF orientations 5–8 rotate by 90° or 270°: the image as shown is the stored one with width and height
# swapped.
_SWAPPING_ORIENTATIONS = frozenset({5, 6, 7, 8})
_EXIF_ORIENTATION_TAG = 0x0112

# Pillow's own bomb check reads the module-global Image.MAX_IMAGE_PIXELS inside Image.open.  We do the
# check ourselves (to name the file and honour the caller's limit), so it is switched off for the few
# milliseconds a header takes to parse; the lock keeps two threads from restoring each other's value.
_PILLOW_LIMIT_LOCK = threading.Lock()


class ImageError(InputError):
    """An image that cannot be used; ``str()`` is ``"<path>: <reason>"``, ``reason`` is the part after."""

    def __init__(self, path: str | os.PathLike, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class ImageTooLargeError(ImageError):
    """An image whose width × height is over the limit (a likely decompression bomb)."""

    def __init__(self, path: str | os.PathLike, size: tuple[int, int], max_pixels: int) -> None:
        self.size = size
        self.max_pixels = max_pixels
        width, height = size
        super().__init__(path, f"image is {width}x{height} = {width * height:,} pixels, over the limit of "
                               f"{max_pixels:,} pixels")


def open_image(path: str | os.PathLike, *, max_pixels: int | None = None,
               at_least: tuple[int, int] | None = None) -> Image.Image:
    """Decode the image at ``path``, as it is meant to be seen, with the file closed again.

    Contract:

    - ``max_pixels`` (default :data:`DEFAULT_MAX_PIXELS`): an image whose stored width × height is larger
      raises :class:`ImageTooLargeError` before its pixels are decoded;
    - ``at_least`` (width, height as shown): a JPEG may be decoded at 1/2, 1/4 or 1/8 of its size, the smallest
      of these still at least that large (Pillow's ``draft``: far cheaper than decoding it whole to shrink it
      after); other formats, and ``None``, are decoded at their full size;
    - EXIF orientation is applied (the result has no orientation tag left to apply twice);
    - 16-bit greyscale comes back as 8-bit ``L`` with its greys scaled (65535 → 255), not clipped;
    - every other mode is returned as decoded (``RGB``, ``RGBA``, ``P``, ``LA``, …): callers convert;
    - a missing file, a folder, or a file that is not a readable image raises :class:`ImageError`.
    """
    limit = DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels
    image = _open_checked(Path(path), limit)
    try:
        with image:
            if at_least is not None and image.format == "JPEG":
                try:
                    orientation = image.getexif().get(_EXIF_ORIENTATION_TAG)
                except (OSError, SyntaxError, ValueError, EOFError):
                    orientation = None
                width, height = at_least
                if orientation in _SWAPPING_ORIENTATIONS:   # the size asked for is as shown, draft's as stored
                    width, height = height, width
                image.draft(image.mode, (max(1, int(width)), max(1, int(height))))
            image.load()
            image = ImageOps.exif_transpose(image)
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError(path, f"not a readable image ({_why(exc)})") from None
    return _eight_bit_grey(image)


def image_size(path: str | os.PathLike, *, max_pixels: int | None = None) -> tuple[int, int]:
    """The ``(width, height)`` :func:`open_image` would return, read from the header without decoding.

    Same limit and errors as :func:`open_image`; an EXIF orientation that turns the image by 90° swaps the
    stored width and height, as the decoded image will.
    """
    return probe_image(path, max_pixels=max_pixels)[1]


def probe_image(path: str | os.PathLike, *, max_pixels: int | None = None) -> tuple[str, tuple[int, int]]:
    """``(stored mode, shown size)`` from the header only: what a linter needs without decoding pixels.

    Same limit and errors as :func:`open_image`; the mode is Pillow's for the file as stored (``"CMYK"``,
    ``"I;16"``, ``"P"``, …), the size is as shown (EXIF orientation applied, as in :func:`image_size`).
    """
    limit = DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels
    with _open_checked(Path(path), limit) as image:
        mode, (width, height) = image.mode, image.size
        try:
            orientation = image.getexif().get(_EXIF_ORIENTATION_TAG)
        except (OSError, SyntaxError, ValueError, EOFError):
            orientation = None  # a broken EXIF block: open_image ignores it too
    return mode, ((height, width) if orientation in _SWAPPING_ORIENTATIONS else (width, height))


def _open_checked(path: Path, max_pixels: int) -> Image.Image:
    """``Image.open`` (lazy: header only) plus our pixel limit; every failure → :class:`ImageError`."""
    try:
        with _PILLOW_LIMIT_LOCK:
            saved = Image.MAX_IMAGE_PIXELS
            Image.MAX_IMAGE_PIXELS = None
            try:
                image = Image.open(path)
            finally:
                Image.MAX_IMAGE_PIXELS = saved
    except FileNotFoundError:
        raise ImageError(path, "no such file") from None
    except IsADirectoryError:
        raise ImageError(path, "is a folder, not an image") from None
    except PermissionError:
        raise ImageError(path, "cannot be read (permission denied)") from None
    except UnidentifiedImageError:
        raise ImageError(path, "not a readable image (unknown or broken format)") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError(path, f"not a readable image ({_why(exc)})") from None
    width, height = image.size
    if width * height > max_pixels:
        image.close()
        raise ImageTooLargeError(path, (width, height), max_pixels)
    return image


def _eight_bit_grey(image: Image.Image) -> Image.Image:
    """16-bit (``I;16*``) or 32-bit integer (``I``) grey → ``L``, scaling 0–65535 onto 0–255."""
    if image.mode.startswith("I;16"):
        image = image.convert("I")
    elif image.mode != "I":
        return image
    # Pillow opens 16-bit PNG greys as I;16 (newer) or I (older): both hold 0–65535.  An "I" image whose
    # values all fit in 0–255 is already 8-bit-ranged and only needs the mode change.
    low, high = image.getextrema()
    if high > 255 or low < 0:
        image = image.point(lambda value: value * (1 / 257) + 0.5)  # round, not truncate
    return image.convert("L")


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__


def to_rgb(image: Image.Image) -> Image.Image:
    """``image`` as 8-bit RGB; transparency is composited over white, 16-bit greys are scaled to 8 bits."""
    if image.mode == "RGB":
        return image
    if image.mode.startswith("I;16"):
        image = image.convert("I")  # point() cannot scale big-endian I;16B, "I" takes every 16-bit layout
    if image.mode == "I":
        image = image.point(lambda v: v * (1 / 257) + 0.5).convert("L")  # 0..65535 → 0..255, rounded
    if image.mode == "PA" or (image.mode == "P" and "transparency" in image.info):
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA", "RGBa", "La"):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, (255, 255, 255))
        canvas.paste(rgba, mask=rgba.getchannel("A"))
        return canvas
    return image.convert("RGB")
