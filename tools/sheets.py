"""Packing card faces into Tabletop Simulator card sheets, and the saved-object JSON of such a deck.

TTS reads a deck's faces from sheet images of at most 10 × 7 cells (tts-facts §3):

- Without ``BackIsHidden`` the last cell of each sheet holds the *hidden* face (shown for cards in a hand or
  hidden zone), so a sheet carries at most 69 faces; with ``back_is_hidden=True`` the back serves as the hidden
  face and all 70 cells carry faces.
- Each sheet picks the smallest grid (≤ 10 columns, ≤ 7 rows) that holds its cells; among grids of the same
  cell count the one giving the largest cells wins.  The hidden face always sits in the grid's last cell.
- Each side is ≤ 4096 px: cells are scaled down uniformly (one factor for the whole sheet) to fit.
- The deck's cell has the shape of its first face.  A face of the same shape (within 1 %) is resized to the
  exact cell; a face of another shape is never stretched but fitted (``fit="contain"``: whole, centred on
  white bars; ``fit="cover"``: filling the cell, its overhanging edges cropped) and listed in
  ``PackedDeck.fitted``.  A deck whose first face is wider than high is ``sideways`` (``SidewaysCard``).
- Faces given as files are opened through :mod:`tools.imageio`: EXIF orientation applied, 16-bit grey kept
  grey, images over ``max_pixels`` refused from their header.
- Output is 8-bit RGB (alpha is composited over white), JPEG by default (fixed quality, 4:2:0 chroma,
  no metadata) or PNG; the same inputs give byte-identical files.
- File names carry a content hash, ``<name>-<sheet no>-<sha256[:12]>.<ext>``, because TTS caches images by URL.
- Sheets are built one at a time, each face decoded, resized, pasted and dropped: memory stays at about one
  sheet plus one face whatever the deck size.

Public API (used by ``tools.build`` and ``ttsmod sheets``)::

    pack_faces(faces, out_dir, name, *, back, hidden=None, back_is_hidden=False, fmt="jpg", quality=90,
               fit="contain") -> PackedDeck
    deck_saved_object(deck, save_name=..., first_key=1) -> dict   # a TTS Saved Object of the deck
    write_deck(faces, out_dir, name, ...) -> WrittenDeck   # all of ``ttsmod sheets``: all-or-nothing,
                                                           # stale sheets of earlier runs removed

``PackedDeck.placement[i]`` is ``(sheet index, index in sheet)`` of input face ``i`` (faces fill sheets in
input order, row-major), so a card's ``CardID`` is ``(first_key + sheet index) * 100 + index in sheet``.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from PIL import Image

from bridge.errors import InputError, TtsmodError
from bridge.fsio import atomic_write_bytes, atomic_write_text
from tools.imageio import image_size, open_image, to_rgb

MAX_COLUMNS = 10
MAX_ROWS = 7
MAX_SIDE = 4096
FORMATS = ("jpg", "png")
FITS = ("contain", "cover")
ASPECT_TOLERANCE = 0.01
"""A face whose width:height is within 1 % of the cell's is resized to the cell (a distortion nobody sees);
beyond that it is fitted."""
LETTERBOX = (255, 255, 255)


@dataclass(frozen=True)
class Sheet:
    """One written sheet image: its file name (with content hash), path, grid and cell size in pixels."""

    file: str
    path: Path
    columns: int
    rows: int
    count: int  # faces on this sheet, not counting the hidden face
    cell_width: int
    cell_height: int


@dataclass(frozen=True)
class FittedFace:
    """A face whose shape is not the deck's cell shape, fitted into its cell instead of stretched."""

    index: int  # its place in the faces given to pack_faces
    size: tuple[int, int]  # its own size in pixels, EXIF orientation applied


@dataclass(frozen=True)
class PackedDeck:
    """A deck packed into sheets; ``placement[i]`` is ``(sheet index, index in sheet)`` of input face ``i``.

    ``face_size`` is the first face's size (it sets the cells' shape); ``sideways`` is true when that is
    wider than high (TTS lays such cards landscape: ``SidewaysCard``); ``fitted`` lists the faces of another
    shape that were fitted (``fit`` says how), in sheets rendered by this call.
    """

    name: str
    sheets: tuple[Sheet, ...]
    back_file: str
    back_path: Path
    placement: tuple[tuple[int, int], ...]
    back_is_hidden: bool = False
    face_size: tuple[int, int] = (0, 0)
    fit: str = "contain"
    fitted: tuple[FittedFace, ...] = ()
    text_height: int | None = None
    """The smallest body text height (cap to baseline, in pixels) on the deck's sheets, when the renderer
    measures it (faces drawn at their cells' size); None otherwise."""

    @property
    def sideways(self) -> bool:
        return self.face_size[0] > self.face_size[1]


@dataclass
class SheetCache:
    """Lets :func:`pack_faces` skip sheets whose inputs did not change (used by incremental builds).

    ``face_keys[i]`` identifies the pixels of face ``i`` (a hash of everything they depend on) and
    ``back_key`` those of the back; ``known`` maps a sheet's input key to the file written for it before
    and is updated in place (persist it between runs); ``written`` collects the files written by this call.
    A sheet is reused only if its key is known and its file still exists in ``out_dir``.
    """

    face_keys: Sequence[str]
    back_key: str
    known: dict[str, str]
    written: list[str] = field(default_factory=list)


def choose_grid(cells: int, cell_size: tuple[int, int] = (1, 1)) -> tuple[int, int]:
    """The smallest ``(columns, rows)`` grid, ≤ 10 × 7, with at least ``cells`` cells.

    Among grids with the same number of cells, the one whose cells need the least down-scaling to keep both
    sides ≤ 4096 px wins (then the one with more columns).  Raises ``ValueError`` above 70 cells.
    """
    if not 1 <= cells <= MAX_COLUMNS * MAX_ROWS:
        raise ValueError(f"a sheet holds 1..{MAX_COLUMNS * MAX_ROWS} cells, not {cells}")
    w, h = cell_size
    best: tuple | None = None
    for columns in range(1, MAX_COLUMNS + 1):
        rows = math.ceil(cells / columns)
        if rows > MAX_ROWS:
            continue
        overflow = max(columns * w / MAX_SIDE, rows * h / MAX_SIDE)
        key = (columns * rows, overflow, -columns)
        if best is None or key < best[0]:
            best = (key, columns, rows)
    assert best is not None
    return best[1], best[2]


def cell_size_for(columns: int, rows: int, face_size: tuple[int, int]) -> tuple[int, int]:
    """The cell size for faces of ``face_size`` on a ``columns × rows`` sheet: scaled down uniformly so
    that neither side of the sheet exceeds 4096 px (never scaled up)."""
    w, h = face_size
    scale = min(1.0, MAX_SIDE / (columns * w), MAX_SIDE / (rows * h))
    if scale >= 1.0:
        return w, h
    return max(1, math.floor(w * scale)), max(1, math.floor(h * scale))




MAX_CELL_SIDE = 2048
"""The longest side of a cell :func:`deck_sheets` makes: TTS never shows a card larger on screen, and a bigger
cell would only cost memory on the table."""


def cell_scale(columns: int, rows: int, face_size: tuple[int, int]) -> float:
    """The factor a face of ``face_size`` is drawn at in a ``columns × rows`` sheet whose cells are as large as
    the sheet allows (both sides ≤ 4096 px, the cell's longer side ≤ :data:`MAX_CELL_SIDE`)."""
    w, h = face_size
    return min(MAX_SIDE / (columns * w), MAX_SIDE / (rows * h), MAX_CELL_SIDE / max(w, h))


def _grids() -> list[tuple[int, int]]:
    return [(c, r) for c in range(1, MAX_COLUMNS + 1) for r in range(1, MAX_ROWS + 1)]


def deck_sheets(count: int, face_size: tuple[int, int], min_scale: float, max_scale: float | None = None, *,
                hidden: bool = True) -> list[tuple[int, int, int, int, tuple[int, int]]]:
    """How ``count`` faces designed at ``face_size`` fall into sheets whose cells are drawn at the face's own
    resolution: ``[(first face, faces, columns, rows, (cell width, cell height)), ...]``.

    The faces per sheet are the most a grid (≤ 10 × 7, one cell kept for the hidden face when ``hidden``) holds
    whose cells are at least ``min_scale`` × the design size (the scale at which the deck's body text is legible);
    when no grid allows that, one face per sheet at the largest cell there is. Each sheet then takes, among the
    grids holding its faces (and the hidden face), the one with the largest cells (then the one with fewer
    cells, then more columns), and its cells are as large as that grid allows (:func:`cell_scale`: drawn, not
    resampled, so they may be larger than the design size), up to ``max_scale`` × the design size (default
    ``max(1, min_scale)``: a small deck's cells grow no larger than its design or its legible size, which would
    only cost drawing time and the table's memory). Raises ``ValueError`` for no faces."""
    if count < 1:
        raise ValueError("a deck needs at least one face")
    spare = 1 if hidden else 0
    grids = [g for g in _grids() if g[0] * g[1] > spare]
    top = max(1.0, min_scale) if max_scale is None else max_scale

    def scale_of(grid: tuple[int, int]) -> float:
        return min(top, cell_scale(*grid, face_size))

    def rank(grid: tuple[int, int]) -> tuple:
        return (-scale_of(grid), grid[0] * grid[1], -grid[0])

    legible = [g for g in grids if cell_scale(*g, face_size) >= min_scale]
    if legible:
        capacity = max(c * r for c, r in legible) - spare
    else:
        capacity = 1
    sheets = []
    chosen: dict[int, tuple[int, int, tuple[int, int]]] = {}   # faces on a sheet → its grid and cell (full sheets
    for start in range(0, count, capacity):                      # share theirs: a big deck has a thousand)
        faces = min(capacity, count - start)
        if faces not in chosen:
            columns, rows = min((g for g in grids if g[0] * g[1] >= faces + spare), key=rank)
            scale = scale_of((columns, rows))
            chosen[faces] = (columns, rows,
                             (max(1, math.floor(face_size[0] * scale)), max(1, math.floor(face_size[1] * scale))))
        sheets.append((start, faces, *chosen[faces]))
    return sheets


def open_face(source: Path | Image.Image, *, max_pixels: int | None = None) -> Image.Image:
    """Open a face given as a path or an image, as RGB, as a viewer shows it (EXIF orientation applied).

    A missing, unreadable or over-``max_pixels`` file → :class:`InputError` (see :func:`tools.imageio.open_image`).
    """
    if isinstance(source, Image.Image):
        return to_rgb(source)
    return to_rgb(open_image(source, max_pixels=max_pixels))


def face_size(source: Path | Image.Image, *, max_pixels: int | None = None) -> tuple[int, int]:
    """The pixel size of a face as shown (EXIF orientation applied), without decoding a file's pixels."""
    if isinstance(source, Image.Image):
        return source.size
    return image_size(source, max_pixels=max_pixels)


def shape_differs(size: tuple[int, int], reference: tuple[int, int]) -> bool:
    """Whether ``size`` and ``reference`` have width:height ratios more than 1 % apart."""
    (w, h), (rw, rh) = size, reference
    return abs((w * rh) / (h * rw) - 1) > ASPECT_TOLERANCE


def fit_face(face: Image.Image, cell: tuple[int, int], fit: str) -> Image.Image:
    """``face`` scaled into a ``cell``-sized image without distortion.

    ``"contain"``: the whole face, centred, the rest of the cell white; ``"cover"``: the face fills the cell,
    the centred part of the cell's shape is kept and what overhangs on two opposite sides is cropped.
    """
    cw, ch = cell
    w, h = face.size
    if fit == "cover":
        if w * ch > h * cw:  # wider than the cell: keep the full height, crop left and right
            kept = h * cw / ch
            box = ((w - kept) / 2, 0.0, (w + kept) / 2, float(h))
        else:
            kept = w * ch / cw
            box = (0.0, (h - kept) / 2, float(w), (h + kept) / 2)
        return face.resize((cw, ch), Image.Resampling.LANCZOS, box=box, reducing_gap=3.0)
    if fit != "contain":
        raise InputError(f'fit must be one of {", ".join(FITS)}, not "{fit}"')
    scale = min(cw / w, ch / h)
    fw, fh = min(cw, max(1, round(w * scale))), min(ch, max(1, round(h * scale)))
    canvas = Image.new("RGB", (cw, ch), LETTERBOX)
    canvas.paste(face.resize((fw, fh), Image.Resampling.LANCZOS, reducing_gap=3.0),
                 ((cw - fw) // 2, (ch - fh) // 2))
    return canvas


def encode(image: Image.Image, fmt: str, quality: int) -> bytes:
    """Encode an RGB image deterministically: baseline JPEG (4:2:0 chroma, no EXIF/ICC) or PNG without metadata.

    Chroma is subsampled (4:2:0) because the faces are drawn at their cells' size with legible text, whose edges
    live in the full-resolution luma: 4:4:4 would keep colour edges a pixel sharper at 2.4x the encoding time,
    the largest part of a big deck's cold build."""
    buffer = io.BytesIO()
    if fmt == "jpg":
        image.save(buffer, format="JPEG", quality=quality, subsampling=2, optimize=False, progressive=False)
    elif fmt == "png":
        image.save(buffer, format="PNG", compress_level=6)
    else:
        raise InputError(f'image format must be one of {", ".join(FORMATS)}, not "{fmt}"')
    return buffer.getvalue()


def hashed_name(stem: str, data: bytes, fmt: str) -> str:
    """``<stem>-<sha256(data)[:12]>.<fmt>``: a changed image always gets a new name (and so a new URL)."""
    return f"{stem}-{hashlib.sha256(data).hexdigest()[:12]}.{fmt}"


def write_image(image: Image.Image, out_dir: Path, stem: str, *, fmt: str = "jpg", quality: int = 90,
                keep_alpha: bool = False) -> Path:
    """Write ``image`` as 8-bit RGB (RGBA with ``keep_alpha``, a PNG only) to ``out_dir/<stem>-<hash>.<fmt>``
    atomically and return the path."""
    if keep_alpha and fmt != "png":
        raise ValueError("only a PNG keeps transparency")
    data = encode(image.convert("RGBA") if keep_alpha else to_rgb(image), fmt, quality)
    path = Path(out_dir) / hashed_name(stem, data, fmt)
    if not (path.exists() and path.read_bytes() == data):
        atomic_write_bytes(path, data)
    return path


def _check_options(fmt: str, quality: int, fit: str = "contain") -> None:
    if fmt not in FORMATS:
        raise InputError(f'image format must be one of {", ".join(FORMATS)}, not "{fmt}"')
    if not 1 <= quality <= 100:
        raise InputError(f"JPEG quality must be 1..100, not {quality}")
    if fit not in FITS:
        raise InputError(f'fit must be one of {", ".join(FITS)}, not "{fit}"')


def sheet_layout(count: int, back_is_hidden: bool) -> list[tuple[int, int]]:
    """Split ``count`` faces over sheets: ``[(first face index, faces on the sheet), ...]``."""
    capacity = MAX_COLUMNS * MAX_ROWS - (0 if back_is_hidden else 1)
    return [(start, min(capacity, count - start)) for start in range(0, count, capacity)]


def render_sheet(
    faces: Sequence[Path | Image.Image],
    hidden: Image.Image | None,
    cell_face_size: tuple[int, int],
    *,
    fit: str = "contain",
    max_pixels: int | None = None,
    on_face: Callable[[], None] | None = None,
) -> tuple[Image.Image, int, int, int, int, list[tuple[int, tuple[int, int]]]]:
    """Compose one sheet: ``faces`` row-major, ``hidden`` (if any) in the grid's last cell.

    Cells have the shape of ``cell_face_size``; a face of another shape is fitted (:func:`fit_face`), the
    hidden face is resized to the cell as TTS stretches a back onto a card.  Returns ``(image, columns, rows, cell_width, cell_height, fitted)`` where ``fitted``
    lists ``(index in faces, face size)`` of the faces that were fitted.  Each face is decoded only while
    pasted; ``on_face()`` is called after each.
    """
    cells = len(faces) + (1 if hidden is not None else 0)
    columns, rows = choose_grid(cells, cell_face_size)
    cw, ch = cell_size_for(columns, rows, cell_face_size)
    sheet = Image.new("RGB", (columns * cw, rows * ch), (255, 255, 255))
    fitted: list[tuple[int, tuple[int, int]]] = []

    def paste(face: Image.Image, slot: int, *, may_fit: bool = True) -> bool:
        reshaped = may_fit and shape_differs(face.size, cell_face_size)
        if reshaped:
            face = fit_face(face, (cw, ch), fit)
        elif face.size != (cw, ch):
            face = face.resize((cw, ch), Image.Resampling.LANCZOS, reducing_gap=3.0)
        sheet.paste(face, ((slot % columns) * cw, (slot // columns) * ch))
        return reshaped

    for slot, source in enumerate(faces):
        face = open_face(source, max_pixels=max_pixels)
        if paste(face, slot):
            fitted.append((slot, face.size))
        del face
        if on_face is not None:
            on_face()
    if hidden is not None:
        # TTS stretches the back image over the whole card, so the hidden face (usually that back) is
        # stretched alike: a card in a hand then looks like its back on the table.
        paste(hidden, columns * rows - 1, may_fit=False)
    return sheet, columns, rows, cw, ch, fitted


def pack_faces(
    faces: Sequence[Path | Image.Image],
    out_dir: Path,
    name: str,
    *,
    back: Path | Image.Image,
    hidden: Path | Image.Image | None = None,
    back_is_hidden: bool = False,
    fmt: str = "jpg",
    quality: int = 90,
    fit: str = "contain",
    max_pixels: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cache: SheetCache | None = None,
) -> PackedDeck:
    """Pack ``faces`` (paths or images, in order) into sheets in ``out_dir`` and write the back image there.

    - Cell size is the first face's size (scaled down uniformly if a sheet would exceed 4096 px); every face
      of that shape (within 1 %) is resized to exactly that size, every other face is fitted as ``fit``
      says (``"contain"`` or ``"cover"``, see :func:`fit_face`) and listed in ``PackedDeck.fitted``.
      The hidden face is stretched to the cell, as TTS stretches the back over a card.  Files are opened
      through :mod:`tools.imageio` with ``max_pixels``.
    - ``back_is_hidden=False``: up to 69 faces per sheet, ``hidden`` (default: the back) in each sheet's last
      cell.  ``back_is_hidden=True``: up to 70 faces per sheet, no hidden cell (``hidden`` must be ``None``).
    - ``fmt`` is ``"jpg"`` (``quality`` 1..100) or ``"png"``.  Sheets are named
      ``<name>-<n>-<hash>.<fmt>`` (``n`` from 1), the back ``<name>-back-<hash>.<fmt>``.
    - ``progress(done, total)`` is called after each face (``total`` = number of faces; a reused sheet
      counts all its faces at once).
    - ``cache`` (optional) reuses sheets written before from the same inputs (see :class:`SheetCache`);
      with a cache, ``hidden`` must be ``None`` (the back, covered by ``back_key``).

    Raises :class:`InputError` for no faces, a missing, unreadable or too large image, a bad format,
    quality or fit.  Files are written atomically; nothing else in ``out_dir`` is touched.
    """
    _check_options(fmt, quality, fit)
    if not faces:
        raise InputError("no faces to pack")
    if back_is_hidden and hidden is not None:
        raise InputError("a hidden face and back_is_hidden exclude each other")
    out_dir = Path(out_dir)
    if cache is not None and (hidden is not None or len(cache.face_keys) != len(faces)):
        raise ValueError("a SheetCache needs one key per face and hidden=None")
    size = face_size(faces[0], max_pixels=max_pixels)
    groups = sheet_layout(len(faces), back_is_hidden)
    settings = f"{name}|{fmt}|{quality}|{back_is_hidden}|{size}|{fit}"
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, len(faces))

    def reuse(key: str) -> str | None:
        if cache is None:
            return None
        file = cache.known.get(key)
        return file if file is not None and (out_dir / file).is_file() else None

    def store(key: str, file: str, data: bytes) -> None:
        atomic_write_bytes(out_dir / file, data)
        if cache is not None:
            cache.known[key] = file
            cache.written.append(file)

    back_image: Image.Image | None = None
    hidden_image: Image.Image | None = None

    def images() -> tuple[Image.Image, Image.Image | None]:
        nonlocal back_image, hidden_image
        if back_image is None:
            back_image = open_face(back, max_pixels=max_pixels)
            hidden_image = None if back_is_hidden else (
                open_face(hidden, max_pixels=max_pixels) if hidden is not None else back_image)
        return back_image, hidden_image

    back_key = hashlib.sha256(f"back|{settings}|{cache.back_key}".encode()).hexdigest() if cache else ""
    back_file = reuse(back_key)
    if back_file is None:
        back_data = encode(images()[0], fmt, quality)
        back_file = hashed_name(f"{name}-back", back_data, fmt)
        store(back_key, back_file, back_data)

    sheets: list[Sheet] = []
    placement: list[tuple[int, int]] = []
    fitted: list[FittedFace] = []
    for number, (start, count) in enumerate(groups):
        cells = count + (0 if back_is_hidden else 1)
        columns, rows = choose_grid(cells, size)
        cw, ch = cell_size_for(columns, rows, size)
        key = ""
        if cache is not None:
            key = hashlib.sha256("|".join(
                [f"sheet {number}", settings, cache.back_key, *cache.face_keys[start : start + count]]
            ).encode()).hexdigest()
        file = reuse(key)
        if file is None:
            image, columns, rows, cw, ch, fitted_here = render_sheet(
                faces[start : start + count], images()[1], size, fit=fit, max_pixels=max_pixels,
                on_face=lambda: advance(1))
            fitted.extend(FittedFace(start + index, face) for index, face in fitted_here)
            data = encode(image, fmt, quality)
            del image
            file = hashed_name(f"{name}-{number + 1}", data, fmt)
            store(key, file, data)
        else:
            advance(count)
        sheets.append(Sheet(file, out_dir / file, columns, rows, count, cw, ch))
        placement.extend((number, index) for index in range(count))
    return PackedDeck(name, tuple(sheets), back_file, out_dir / back_file, tuple(placement), back_is_hidden,
                      face_size=size, fit=fit, fitted=tuple(fitted))


def file_url(path: Path) -> str:
    """The ``file:///`` URL TTS loads a local image from (visible to this machine's players only)."""
    return Path(path).resolve().as_uri()


def file_urls() -> Callable[[Path], str]:
    """:func:`file_url` for many files of a few folders (a big game's thousand sheets): each folder is resolved
    once, then each file is joined to it, unless the file itself is a symbolic link (followed as
    :func:`file_url` follows it). The same URLs; made per build, so a folder moved meanwhile is resolved anew."""
    from urllib.parse import quote_from_bytes

    folders: dict[str, str] = {}

    def url_for(path: Path) -> str:
        path = path if isinstance(path, Path) else Path(path)
        name = path.name
        if os.name != "posix" or name in ("", ".", "..") or os.path.islink(path):
            return file_url(path)
        parent = path.parent
        folder = folders.get(str(parent))
        if folder is None:
            folder = folders[str(parent)] = str(parent.resolve()).rstrip("/") + "/"
        return "file://" + quote_from_bytes(os.fsencode(folder + name))   # what PurePosixPath.as_uri gives

    return url_for


def check_asset_base_url(asset_base_url: str | None) -> None:
    """``--asset-base-url`` must be an http(s) URL with a host (the check ``ttsmod build`` makes)."""
    if asset_base_url is not None and not re.match(r"^https?://[^/\s]+", asset_base_url):
        raise InputError(f'--asset-base-url must be an http(s) URL, not "{asset_base_url}"')


def hosted_urls(asset_base_url: str) -> Callable[[Path], str]:
    """``<asset_base_url>/<file name>``: where ``ttsmod publish --to <asset_base_url>`` puts each file."""
    from tools.publish import url_for

    return lambda path: url_for(asset_base_url, Path(path).name)


def deck_saved_object(
    deck: PackedDeck,
    *,
    save_name: str | None = None,
    first_key: int = 1,
    url_for: Callable[[Path], str] = file_url,
    nicknames: Sequence[str] | None = None,
) -> dict:
    """A minimal TTS Saved Object (``Saves/Saved Objects/*.json``) holding ``deck`` as one Deck.

    Sheet ``i`` gets ``CustomDeck`` key ``first_key + i``; card ``j`` gets ``CardID = key * 100 + index``;
    ``DeckIDs`` follow ``ContainedObjects`` order (the input face order).  GUIDs are derived from the sheet
    file names, so they are stable for unchanged sheets.  A single face is saved as a lone Card.
    """
    name = save_name or deck.name
    custom = {
        str(first_key + i): {
            "FaceURL": url_for(sheet.path),
            "BackURL": url_for(deck.back_path),
            "NumWidth": sheet.columns,
            "NumHeight": sheet.rows,
            "BackIsHidden": deck.back_is_hidden,
            "UniqueBack": False,
            "Type": 0,
        }
        for i, sheet in enumerate(deck.sheets)
    }
    seed = "|".join(s.file for s in deck.sheets)

    used: set[str] = set()

    def guid(label: str) -> str:
        salt = 0
        while True:
            value = hashlib.sha256(f"{seed}|{label}|{salt}".encode()).hexdigest()[:6]
            if value not in used:
                used.add(value)
                return value
            salt += 1

    def transform(y: float = 1.0) -> dict:
        return {"posX": 0.0, "posY": y, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
                "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}

    cards = []
    for i, (sheet_index, index) in enumerate(deck.placement):
        key = str(first_key + sheet_index)
        cards.append({
            "GUID": guid(f"card{i}"),
            "Name": "Card",
            "Transform": transform(),
            "Nickname": nicknames[i] if nicknames else "",
            "Description": "",
            "CardID": int(key) * 100 + index,
            "Hands": True,
            "HideWhenFaceDown": True,
            "SidewaysCard": deck.sideways,
            "CustomDeck": {key: custom[key]},
            "LuaScript": "",
            "LuaScriptState": "",
            "XmlUI": "",
        })
    if len(cards) == 1:
        obj = cards[0]
        obj["Nickname"] = obj["Nickname"] or name
    else:
        obj = {
            "GUID": guid("deck"),
            "Name": "Deck",
            "Transform": transform(),
            "Nickname": name,
            "Description": "",
            "HideWhenFaceDown": True,
            "Hands": False,
            "SidewaysCard": deck.sideways,
            "DeckIDs": [c["CardID"] for c in cards],
            "CustomDeck": custom,
            "LuaScript": "",
            "LuaScriptState": "",
            "XmlUI": "",
            "ContainedObjects": cards,
        }
    return {
        "SaveName": name,
        "Date": "",
        "VersionNumber": "",
        "GameMode": "",
        "Gravity": 0.5,
        "PlayArea": 0.5,
        "Table": "",
        "Sky": "",
        "Note": "",
        "Rules": "",
        "XmlUI": "",
        "LuaScript": "",
        "LuaScriptState": "",
        "ObjectStates": [obj],
        "TabStates": {},
    }


# --- ttsmod sheets: a whole deck folder, all or nothing -----------------------------------------------------

MANIFEST_NAME = ".ttsmod-sheets.json"
"""The record, in a ``sheets`` output folder, of the files each deck name's last run wrote (with their hashes)."""

MANIFEST_FORMAT = "ttsmod-sheets-manifest"
_STAGING_PREFIX = ".ttsmod-sheets-"
_DEFAULT_BACK = (96, 96, 96)
_DEFAULT_BACK_SIDE = 256


@dataclass(frozen=True)
class WrittenDeck:
    """What :func:`write_deck` left in its folder: the deck (paths in ``out_dir``), the Saved Object JSON,
    the stale files of an earlier run it removed, and warnings (one line each, naming the file)."""

    deck: PackedDeck
    out_dir: Path
    saved_object: Path
    removed: tuple[str, ...]
    warnings: tuple[str, ...]
    face_names: tuple[str, ...]
    asset_base_url: str | None = None

    def to_json(self) -> dict:
        """The ``ttsmod sheets --json`` object (documented in docs/building.md)."""
        deck = self.deck
        return {
            "name": deck.name,
            "out": str(self.out_dir),
            "saved_object": str(self.saved_object),
            "back": str(deck.back_path),
            "sheets": [{"file": s.file, "path": str(s.path), "columns": s.columns, "rows": s.rows,
                        "faces": s.count, "cell": [s.cell_width, s.cell_height]} for s in deck.sheets],
            "sideways": deck.sideways,
            "local_urls": self.asset_base_url is None,
            "fit": deck.fit,
            "fitted": [{"face": self.face_names[f.index], "size": list(f.size)} for f in deck.fitted],
            "removed": list(self.removed),
            "warnings": list(self.warnings),
        }


MAX_NAME_LENGTH = 100
"""A deck name starts file names that also carry a sheet number and a hash; file systems cap names at 255."""


def check_deck_name(name: str) -> None:
    """A deck name becomes file names: refuse separators, characters Windows forbids, control characters,
    a leading dot, surrounding spaces, the empty name and names over 100 characters."""
    if (not name or name.startswith(".") or name != name.strip()
            or any(ch in '/\\:*?"<>|' or ord(ch) < 32 for ch in name)):
        raise InputError(f'--name must be a plain file name, not "{name}"')
    if len(name) > MAX_NAME_LENGTH:
        raise InputError(f"--name is {len(name)} characters long, at most {MAX_NAME_LENGTH}")


def write_deck(
    faces: Sequence[Path],
    out_dir: Path,
    name: str,
    *,
    back: Path | None = None,
    hidden: Path | None = None,
    back_is_hidden: bool = False,
    fmt: str = "jpg",
    quality: int = 90,
    fit: str = "contain",
    one_sheet: bool = False,
    max_pixels: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    asset_base_url: str | None = None,
) -> WrittenDeck:
    """Pack the face files into sheets in ``out_dir`` with ``<name>.json`` (a TTS Saved Object) beside them.

    Contract (what ``ttsmod sheets`` promises):

    - **All or nothing.** Everything is written into a hidden staging folder inside ``out_dir`` and moved
      into place at the end; on any error (or Ctrl-C) the staging folder, the files moved so far and any
      folders this call created are removed, so ``out_dir`` is as it was.
    - **Stale sheets.** ``out_dir/.ttsmod-sheets.json`` records, per deck name, the files the last run wrote
      and their SHA-256.  Files the previous run of this ``name`` wrote that this run does not produce are
      deleted, but only if their content is still what ttsmod wrote; nothing else is ever deleted.
    - The default back (``back=None``) is plain grey in the shape of the first face.
    - Image URLs are ``file:///`` paths, or with ``asset_base_url`` ``<asset_base_url>/<file name>``, where
      ``ttsmod publish out_dir --to <asset_base_url>`` puts the files (as ``ttsmod build --asset-base-url``).
    - ``warnings``: one line per face fitted into the cells (naming it), and one if the back's or the hidden
      face's shape is not the cards' (both are stretched over a card, as TTS stretches a back).

    Raises :class:`InputError` (exit 2) for bad options, images or manifest, :class:`TtsmodError` (exit 1)
    when the folder cannot be written.
    """
    check_deck_name(name)
    _check_options(fmt, quality, fit)
    check_asset_base_url(asset_base_url)
    faces = [Path(face) for face in faces]
    if not faces:
        raise InputError("no faces to pack")
    if hidden is not None and back_is_hidden:
        raise InputError("--hidden and --back-is-hidden exclude each other")
    capacity = MAX_COLUMNS * MAX_ROWS - (0 if back_is_hidden else 1)
    if one_sheet and len(faces) > capacity:
        raise InputError(f"{len(faces)} faces do not fit one sheet (at most {capacity})")
    for face in faces:  # cheap, and saves packing 1000 faces to find the last one missing
        if face.is_dir():
            raise InputError(f"{face}: is a folder, not an image")
        if not face.is_file():
            raise InputError(f"{face}: no such file")
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"{out_dir}: is a file, not a folder")
    manifest_path = out_dir / MANIFEST_NAME
    manifest = _read_manifest(manifest_path)

    # Read before anything is created, so a bad first face or back fails with nothing to clean up.
    first_size = face_size(faces[0], max_pixels=max_pixels)
    warnings: list[str] = []
    if back is None:
        scale = _DEFAULT_BACK_SIDE / max(first_size)
        back_source: Path | Image.Image = Image.new(
            "RGB", (max(1, round(first_size[0] * scale)), max(1, round(first_size[1] * scale))), _DEFAULT_BACK)
    else:
        back_source = Path(back)
    for role, image in (("back", back), ("hidden face", hidden)):
        if image is None:
            continue
        size = face_size(Path(image), max_pixels=max_pixels)
        if shape_differs(size, first_size):
            warnings.append(f"{image}: the {role} is {size[0]}x{size[1]}, not the shape of the cards "
                            f"({first_size[0]}x{first_size[1]}, the first face); it is stretched over each card, "
                            f"as TTS stretches a back")

    created = _missing_folders(out_dir)
    staging: Path | None = None
    placed: list[Path] = []  # files moved into out_dir that were not there before
    manifest_written = False
    old_manifest: bytes | None = None
    try:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=out_dir))
        except (FileExistsError, NotADirectoryError):
            raise InputError(f"{out_dir}: a part of this path is a file, not a folder") from None
        staged = pack_faces(faces, staging, name, back=back_source, hidden=hidden,
                            back_is_hidden=back_is_hidden, fmt=fmt, quality=quality, fit=fit,
                            max_pixels=max_pixels, progress=progress)
        deck = replace(
            staged,
            sheets=tuple(replace(s, path=out_dir / s.file) for s in staged.sheets),
            back_path=out_dir / staged.back_file,
        )
        for fitted in deck.fitted:
            w, h = fitted.size
            how = "letterboxed (whole face on white bars)" if fit == "contain" else "cropped to fill its cell"
            warnings.append(f"{faces[fitted.index]}: {w}x{h} is not the shape of the deck's cells "
                            f"({first_size[0]}x{first_size[1]}, the first face); {how}")
        saved = deck_saved_object(deck, save_name=name, nicknames=[face.stem for face in faces],
                                  url_for=file_url if asset_base_url is None else hosted_urls(asset_base_url))
        json_file = f"{name}.json"
        atomic_write_text(staging / json_file, json.dumps(saved, indent=2, ensure_ascii=False) + "\n")

        images = [*(s.file for s in deck.sheets), deck.back_file]
        hashes = {file: _sha256(staging / file) for file in [*images, json_file]}
        previous = manifest["decks"].get(name, {})
        manifest["decks"][name] = dict(sorted(hashes.items()))
        for file in images:
            target = out_dir / file
            existed = target.exists()
            os.replace(staging / file, target)
            if not existed:
                placed.append(target)
        old_manifest = manifest_path.read_bytes() if manifest_path.is_file() else None
        atomic_write_text(manifest_path, json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        manifest_written = True
        # The JSON goes last: it references the sheets, so it must not appear before them.
        os.replace(staging / json_file, out_dir / json_file)
    except BaseException as exc:
        if manifest_written:  # only the JSON's move failed: the old JSON still points at the old sheets
            try:
                if old_manifest is None:
                    manifest_path.unlink()
                else:
                    atomic_write_bytes(manifest_path, old_manifest)
            except OSError:
                pass  # the error being raised is the one to report
        for path in placed:
            _unlink_quietly(path)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        for folder in created:  # innermost first; only if still empty
            try:
                folder.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError):
            raise TtsmodError(f"{out_dir}: cannot write the sheets ({exc.strerror or exc.__class__.__name__}); "
                              f"nothing was changed") from None
        raise
    shutil.rmtree(staging, ignore_errors=True)
    removed = _remove_stale(out_dir, previous, hashes, manifest, name, warnings)
    return WrittenDeck(deck, out_dir, out_dir / json_file, tuple(removed), tuple(warnings),
                       tuple(str(face) for face in faces), asset_base_url)


def _read_manifest(path: Path) -> dict:
    """The manifest at ``path`` (an empty one if there is none); a damaged one is an :class:`InputError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"format": MANIFEST_FORMAT, "version": 1, "decks": {}}
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the sheets manifest ({exc.__class__.__name__})") from None
    damaged = InputError(f"{path}: not a ttsmod sheets manifest; delete it to start afresh "
                         f"(stale sheets of earlier runs are then no longer removed)")
    try:
        manifest = json.loads(text)
    except (ValueError, RecursionError):
        raise damaged from None
    if not (isinstance(manifest, dict) and manifest.get("format") == MANIFEST_FORMAT
            and isinstance(manifest.get("decks"), dict)):
        raise damaged
    for files in manifest["decks"].values():
        if not (isinstance(files, dict) and all(isinstance(f, str) and isinstance(h, str)
                                                for f, h in files.items())):
            raise damaged
    return manifest


def _remove_stale(out_dir: Path, previous: dict[str, str], produced: dict[str, str], manifest: dict,
                  name: str, warnings: list[str]) -> list[str]:
    """Delete the files the previous run of deck ``name`` wrote that this run did not produce, when they are
    plain names in ``out_dir``, no other deck lists them and their content is still what was written."""
    others = {file for deck, files in manifest["decks"].items() if deck != name for file in files}
    removed = []
    for file, digest in sorted(previous.items()):
        if file in produced or file in others or not _plain_file_name(file):
            continue
        path = out_dir / file
        try:
            if not path.is_file() or path.is_symlink() or _sha256(path) != digest:
                continue  # gone already, or changed by someone else since: not ours to delete
            path.unlink()
        except OSError as exc:
            warnings.append(f"{path}: could not remove this stale sheet ({exc.strerror or exc.__class__.__name__})")
            continue
        removed.append(file)
    return removed


def _plain_file_name(file: str) -> bool:
    """Whether ``file`` names a file directly inside a folder (so a tampered manifest cannot reach out)."""
    return (bool(file) and file not in (".", "..") and not any(ch in file for ch in "/\\:\0")
            and Path(file).name == file)


def _missing_folders(folder: Path) -> list[Path]:
    """The folders of ``folder``'s path that do not exist yet, innermost first."""
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    return missing


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
