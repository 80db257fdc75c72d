"""Packing card faces into Tabletop Simulator card sheets, and the saved-object JSON of such a deck.

TTS reads a deck's faces from sheet images of at most 10 × 7 cells (tts-facts §3):

- Without ``BackIsHidden`` the last cell of each sheet holds the *hidden* face (shown for cards in a hand or
  hidden zone), so a sheet carries at most 69 faces; with ``back_is_hidden=True`` the back serves as the hidden
  face and all 70 cells carry faces.
- Each sheet picks the smallest grid (≤ 10 columns, ≤ 7 rows) that holds its cells; among grids of the same
  cell count the one giving the largest cells wins.  The hidden face always sits in the grid's last cell.
- Each side is ≤ 4096 px: cells are scaled down uniformly (one factor for the whole sheet) to fit.  Every face
  is resized to the exact cell size — no letterboxing, so a face always fills its cell.
- Output is 8-bit RGB (alpha is composited over white), JPEG by default (fixed quality, 4:4:4 chroma,
  no metadata) or PNG; the same inputs give byte-identical files.
- File names carry a content hash, ``<name>-<sheet no>-<sha256[:12]>.<ext>``, because TTS caches images by URL.
- Sheets are built one at a time, each face decoded, resized, pasted and dropped: memory stays at about one
  sheet plus one face whatever the deck size.

Public API (used by ``tools.build`` and ``ttsmod sheets``)::

    pack_faces(faces, out_dir, name, *, back, hidden=None, back_is_hidden=False, fmt="jpg", quality=90)
        -> PackedDeck
    deck_saved_object(deck, save_name=..., first_key=1) -> dict   # a TTS Saved Object of the deck

``PackedDeck.placement[i]`` is ``(sheet index, index in sheet)`` of input face ``i`` (faces fill sheets in
input order, row-major), so a card's ``CardID`` is ``(first_key + sheet index) * 100 + index in sheet``.
"""

from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from PIL import Image, UnidentifiedImageError

from tools.errors import InputError
from tools.fsio import atomic_write_bytes

MAX_COLUMNS = 10
MAX_ROWS = 7
MAX_SIDE = 4096
FORMATS = ("jpg", "png")


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
class PackedDeck:
    """A deck packed into sheets; ``placement[i]`` is ``(sheet index, index in sheet)`` of input face ``i``."""

    name: str
    sheets: tuple[Sheet, ...]
    back_file: str
    back_path: Path
    placement: tuple[tuple[int, int], ...]
    back_is_hidden: bool = False


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


def to_rgb(image: Image.Image) -> Image.Image:
    """``image`` as 8-bit RGB; transparency is composited over white, 16-bit greys are scaled to 8 bits."""
    if image.mode == "RGB":
        return image
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        image = image.point(lambda v: v / 257).convert("L")
    if image.mode == "P" and "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA", "RGBa", "La"):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, (255, 255, 255))
        canvas.paste(rgba, mask=rgba.getchannel("A"))
        return canvas
    return image.convert("RGB")


def open_face(source: Path | Image.Image) -> Image.Image:
    """Open a face given as a path or an image, as RGB.  A missing or unreadable file → :class:`InputError`."""
    if isinstance(source, Image.Image):
        return to_rgb(source)
    path = Path(source)
    try:
        with Image.open(path) as image:
            image.load()
            return to_rgb(image)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not an image") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InputError(f"{path}: not a readable image ({exc.__class__.__name__})") from None


def face_size(source: Path | Image.Image) -> tuple[int, int]:
    """The pixel size of a face without decoding its pixels when it is a file."""
    if isinstance(source, Image.Image):
        return source.size
    path = Path(source)
    try:
        with Image.open(path) as image:
            return image.size
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not an image") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InputError(f"{path}: not a readable image ({exc.__class__.__name__})") from None


def encode(image: Image.Image, fmt: str, quality: int) -> bytes:
    """Encode an RGB image deterministically: baseline JPEG (4:4:4, no EXIF/ICC) or PNG without metadata."""
    buffer = io.BytesIO()
    if fmt == "jpg":
        image.save(buffer, format="JPEG", quality=quality, subsampling=0, optimize=False, progressive=False)
    elif fmt == "png":
        image.save(buffer, format="PNG", compress_level=6)
    else:
        raise InputError(f'image format must be one of {", ".join(FORMATS)}, not "{fmt}"')
    return buffer.getvalue()


def hashed_name(stem: str, data: bytes, fmt: str) -> str:
    """``<stem>-<sha256(data)[:12]>.<fmt>``: a changed image always gets a new name (and so a new URL)."""
    return f"{stem}-{hashlib.sha256(data).hexdigest()[:12]}.{fmt}"


def write_image(image: Image.Image, out_dir: Path, stem: str, *, fmt: str = "jpg", quality: int = 90) -> Path:
    """Write ``image`` as 8-bit RGB to ``out_dir/<stem>-<hash>.<fmt>`` atomically and return the path."""
    data = encode(to_rgb(image), fmt, quality)
    path = Path(out_dir) / hashed_name(stem, data, fmt)
    if not (path.exists() and path.read_bytes() == data):
        atomic_write_bytes(path, data)
    return path


def _check_options(fmt: str, quality: int) -> None:
    if fmt not in FORMATS:
        raise InputError(f'image format must be one of {", ".join(FORMATS)}, not "{fmt}"')
    if not 1 <= quality <= 100:
        raise InputError(f"JPEG quality must be 1..100, not {quality}")


def sheet_layout(count: int, back_is_hidden: bool) -> list[tuple[int, int]]:
    """Split ``count`` faces over sheets: ``[(first face index, faces on the sheet), ...]``."""
    capacity = MAX_COLUMNS * MAX_ROWS - (0 if back_is_hidden else 1)
    return [(start, min(capacity, count - start)) for start in range(0, count, capacity)]


def render_sheet(
    faces: Sequence[Path | Image.Image],
    hidden: Image.Image | None,
    cell_face_size: tuple[int, int],
) -> tuple[Image.Image, int, int, int, int]:
    """Compose one sheet: ``faces`` row-major, ``hidden`` (if any) in the grid's last cell.

    Returns ``(image, columns, rows, cell_width, cell_height)``.  Each face is decoded only while pasted.
    """
    cells = len(faces) + (1 if hidden is not None else 0)
    columns, rows = choose_grid(cells, cell_face_size)
    cw, ch = cell_size_for(columns, rows, cell_face_size)
    sheet = Image.new("RGB", (columns * cw, rows * ch), (255, 255, 255))

    def paste(face: Image.Image, slot: int) -> None:
        if face.size != (cw, ch):
            face = face.resize((cw, ch), Image.Resampling.LANCZOS, reducing_gap=3.0)
        sheet.paste(face, ((slot % columns) * cw, (slot // columns) * ch))

    for slot, source in enumerate(faces):
        face = open_face(source)
        paste(face, slot)
        del face
    if hidden is not None:
        paste(hidden, columns * rows - 1)
    return sheet, columns, rows, cw, ch


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
    progress: Callable[[int, int], None] | None = None,
    cache: SheetCache | None = None,
) -> PackedDeck:
    """Pack ``faces`` (paths or images, in order) into sheets in ``out_dir`` and write the back image there.

    - Cell size is the first face's size (scaled down uniformly if a sheet would exceed 4096 px); every face
      is resized to exactly that size.
    - ``back_is_hidden=False``: up to 69 faces per sheet, ``hidden`` (default: the back) in each sheet's last
      cell.  ``back_is_hidden=True``: up to 70 faces per sheet, no hidden cell (``hidden`` must be ``None``).
    - ``fmt`` is ``"jpg"`` (``quality`` 1..100) or ``"png"``.  Sheets are named
      ``<name>-<n>-<hash>.<fmt>`` (``n`` from 1), the back ``<name>-back-<hash>.<fmt>``.
    - ``progress(done, total)`` is called after each sheet.
    - ``cache`` (optional) reuses sheets written before from the same inputs (see :class:`SheetCache`);
      with a cache, ``hidden`` must be ``None`` (the back, covered by ``back_key``).

    Raises :class:`InputError` for no faces, a missing or unreadable image, a bad format or quality.
    Files are written atomically; nothing else in ``out_dir`` is touched.
    """
    _check_options(fmt, quality)
    if not faces:
        raise InputError("no faces to pack")
    if back_is_hidden and hidden is not None:
        raise InputError("a hidden face and back_is_hidden exclude each other")
    out_dir = Path(out_dir)
    if cache is not None and (hidden is not None or len(cache.face_keys) != len(faces)):
        raise ValueError("a SheetCache needs one key per face and hidden=None")
    size = face_size(faces[0])
    groups = sheet_layout(len(faces), back_is_hidden)
    settings = f"{name}|{fmt}|{quality}|{back_is_hidden}|{size}"

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
            back_image = open_face(back)
            hidden_image = None if back_is_hidden else (open_face(hidden) if hidden is not None else back_image)
        return back_image, hidden_image

    back_key = hashlib.sha256(f"back|{settings}|{cache.back_key}".encode()).hexdigest() if cache else ""
    back_file = reuse(back_key)
    if back_file is None:
        back_data = encode(images()[0], fmt, quality)
        back_file = hashed_name(f"{name}-back", back_data, fmt)
        store(back_key, back_file, back_data)

    sheets: list[Sheet] = []
    placement: list[tuple[int, int]] = []
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
            image, columns, rows, cw, ch = render_sheet(faces[start : start + count], images()[1], size)
            data = encode(image, fmt, quality)
            del image
            file = hashed_name(f"{name}-{number + 1}", data, fmt)
            store(key, file, data)
        sheets.append(Sheet(file, out_dir / file, columns, rows, count, cw, ch))
        placement.extend((number, index) for index in range(count))
        if progress is not None:
            progress(number + 1, len(groups))
    return PackedDeck(name, tuple(sheets), back_file, out_dir / back_file, tuple(placement), back_is_hidden)


def file_url(path: Path) -> str:
    """The ``file:///`` URL TTS loads a local image from (visible to this machine's players only)."""
    return Path(path).resolve().as_uri()


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
            "SidewaysCard": False,
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
            "SidewaysCard": False,
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
