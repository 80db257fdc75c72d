"""A TTS save drawn from above, to scale: the picture ``ttsmod preview`` writes and ``ttsmod build`` keeps beside
each save (``preview.png``).

Contract. :func:`draw` takes a parsed save (any save or Saved Object: a dict with an ``ObjectStates`` list) and
an image source (:class:`FolderImages` for a save on disk, :class:`MappedImages` for a build's own files) and
returns a :class:`Preview`: the picture (a Pillow RGB image) and its report (:meth:`Preview.report`). It opens
only the image files its source hands it, writes nothing, and never fails on what a save holds: an object it
cannot place is reported as not drawn, an image it cannot use leaves an outline, an object type it does not know
is drawn as an outline with one warning per type. The same save and images give the same pixels.

The picture is the table seen from above in TTS's coordinates: x to the right, z up the picture; y only orders
what lies on what (lower objects are drawn first). :class:`View` is the one world → pixel mapping; the report
gives it, so a reader can find any world point in the picture. Each object is drawn over its footprint, turned as
its rotation turns it: its image when it has one (a card's face cut from its ``CustomDeck`` sheet, or its back
when it lies face down; a deck as its visible card, with its count), otherwise a filled outline of its colour
with its nickname (or type) as a label where there is room. Scripting and hand zones are outlined in their
colour and labelled; snap points are dots; bags show their counts; the table's surface is drawn when its size is
known to ttsmod (:data:`TABLE_SURFACES`).

Sizes ttsmod assumes (TTS units at scale 1; none measured in TTS, docs/modding.md lists them): an object's image
sets its footprint's aspect — a tile, token or card spans 2 units along its image's (card face's) shorter side
(:mod:`tools.save.geometry`, the rule the table composers use), a custom board :data:`BOARD_LONG_SIDE` along its
longer side, a custom figurine :data:`FIGURINE_WIDTH` across. Without an image a card is ``2 × 2.8``, a tile or
token ``2 × 2``; other types take :data:`BASE_SIZES` (or :data:`PREFIX_SIZES`), an unknown type
:data:`UNKNOWN_SIZE`. Zones are unit boxes scaled by their transform. An image lies on its object with its right
edge at local −x and its top at local −z (:func:`tools.save.geometry.image_point_to_local`), so an object lying
at ``rotY`` 180 shows its image upright in the picture.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import unquote, urlparse

from PIL import Image, ImageChops, ImageDraw, ImageFont

from bridge.paths import assets_dir
from tools.headless.geometry import Vec, position_to_world
from tools.imageio import ImageError, image_size, open_image
from tools.save.geometry import card_half_extents, tile_half_extents
from tools.save.objects import SEAT_COLOURS

SCHEMA_VERSION = 1
"""Of :meth:`Preview.report` (``ttsmod preview --json``)."""

DEFAULT_SIZE = 800
"""Pixels along the picture's longer side unless asked otherwise (also the build's ``preview.png``)."""
MIN_SIZE, MAX_SIZE = 64, 8192

FLOOR_COLOUR = (38, 38, 44)
"""Everything off the table's surface (the whole picture when the table's size is not known)."""
TABLE_COLOUR = (92, 122, 96)
"""The table's surface."""
OUTLINE_GREY = (180, 180, 180)
"""The outline of an object without a colour of its own."""
FILL_OPACITY = 0.45
"""How much of an outlined object's colour covers what lies under it."""
SNAP_COLOUR = (255, 214, 10)
BADGE_COLOUR = (24, 24, 28)
"""The disc under a deck's or bag's count."""
LABEL_BACKGROUND = (0, 0, 0)
LABEL_OPACITY = 0.6
TEXT_COLOUR = (255, 255, 255)

CARD_SIZE = (2.0, 2.8)
"""A card's footprint when its face sheet cannot be read: 2 units across, a poker card's aspect."""
BOARD_LONG_SIDE = 20.0
FIGURINE_WIDTH = 1.0
UNKNOWN_SIZE = (2.0, 2.0)
TEXT_UNITS_PER_POINT = 1 / 64
"""A ``3DText`` is drawn this many units high per point of its ``fontSize`` (times its scale)."""
STRAIGHT = 0.25
"""An image whose edges lean less than this many pixels across the object is drawn as turned by a multiple of
90 degrees: resized to its box in whole pixels, not resampled (a small token's lines stay sharp)."""
FAR = 100_000.0
"""Objects farther from the centre, or larger, than this many units are not drawn (a broken transform)."""

BASE_SIZES: dict[str, tuple[float, float, str]] = {
    "Bag": (2.0, 2.0, "circle"), "Custom_Model_Bag": (2.0, 2.0, "circle"),
    "Custom_Assetbundle_Bag": (2.0, 2.0, "circle"), "Infinite_Bag": (2.0, 2.0, "circle"),
    "Custom_Model_Infinite_Bag": (2.0, 2.0, "circle"), "Custom_Assetbundle_Infinite_Bag": (2.0, 2.0, "circle"),
    "Custom_Model": (2.0, 2.0, "box"), "Custom_Assetbundle": (2.0, 2.0, "box"),
    "Custom_Dice": (1.0, 1.0, "box"), "Custom_PDF": (4.0, 5.2, "box"), "Notecard": (2.5, 2.5, "box"),
    "Counter": (2.5, 1.3, "box"), "Digital_Clock": (3.0, 1.3, "box"), "Calculator": (2.0, 3.0, "box"),
    "Tablet": (8.0, 5.0, "box"), "Mp3": (2.0, 1.0, "box"),
    "BlockSquare": (1.0, 1.0, "box"), "BlockRectangle": (2.0, 1.0, "box"), "BlockTriangle": (1.0, 1.0, "box"),
    "PlayerPawn": (0.8, 0.8, "circle"), "Chinese_Checkers_Piece": (0.5, 0.5, "circle"),
    "Quarter": (0.8, 0.8, "circle"), "Domino": (0.5, 1.0, "box"), "Metal Ball": (0.5, 0.5, "circle"),
    "Go_Board": (19.0, 19.0, "box"), "Chess_Board": (18.0, 18.0, "box"), "Checker_Board": (18.0, 18.0, "box"),
}
"""Footprint (width along local x, depth along local z, shape) at scale 1 of the types drawn as outlines."""
PREFIX_SIZES: tuple[tuple[str, tuple[float, float, str]], ...] = (
    ("Checker_", (1.0, 1.0, "circle")), ("Chess_", (0.8, 0.8, "circle")), ("Chip_", (1.0, 1.0, "circle")),
    ("Die_", (1.0, 1.0, "box")), ("Mahjong_", (0.8, 1.1, "box")), ("reversi_", (0.9, 0.9, "circle")),
    ("rpg_", (1.0, 1.0, "circle")), ("Tileset_", (2.0, 2.0, "box")), ("Backgammon", (0.9, 0.9, "circle")),
)
"""Families of built-in pieces by name prefix, as :data:`BASE_SIZES`."""

CARDS = frozenset({"Card", "CardCustom"})
DECKS = frozenset({"Deck", "DeckCustom"})
IMAGED = frozenset({"Custom_Tile", "Custom_Token", "Custom_Token_Stack", "Custom_Board", "Figurine_Custom"})
ZONES = frozenset({"ScriptingTrigger", "HandTrigger", "FogOfWarTrigger", "RandomizeTrigger", "LayoutZone"})
BAGS = frozenset({"Bag", "Custom_Model_Bag", "Custom_Assetbundle_Bag"})
INFINITE_BAGS = frozenset({"Infinite_Bag", "Custom_Model_Infinite_Bag", "Custom_Assetbundle_Infinite_Bag"})
TILE_SHAPES = {0: "box", 1: "hex", 2: "circle", 3: "box"}
CARD_SHAPES = {0: "box", 1: "box", 2: "hex", 3: "hex", 4: "circle"}

TABLE_SURFACES: dict[str, tuple[str, float, float]] = {
    "Table_Square": ("box", 60.0, 60.0),
    "Table_Custom": ("box", 120.0, 71.0),
    "Table_Custom_Square": ("box", 71.0, 71.0),
}
"""The surface (shape, width, depth) of the tables whose size ttsmod assumes. **Estimates, not measured in TTS**:
``Table_Custom`` from the 4400 × 2600 image TTS asks for and the hand zones a real save lays along its edge,
``Table_Square`` from the tables ttsmod's games lay on it. Any other table is not drawn (the report says so)."""

_FONT = "DejaVuSans.ttf"
_CIRCLE_POINTS = 48


class ImageRefused(Exception):
    """An image an object names that is not drawn; ``reason`` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ImageSource:
    """Where the images a save names come from: :meth:`path_of` maps a URL to a file or refuses it
    (:class:`ImageRefused`); sizes and decoded images are kept per URL for one drawing."""

    def __init__(self, *, max_pixels: int | None = None) -> None:
        self.max_pixels = max_pixels
        self._sizes: dict[str, tuple[int, int] | ImageRefused] = {}
        self._decoded: dict[tuple[str, int, int], Image.Image | ImageRefused] = {}

    def path_of(self, url: str) -> Path:
        raise NotImplementedError

    def size(self, url: str) -> tuple[int, int]:
        """The image's ``(width, height)`` from its header; :class:`ImageRefused` when it cannot be had."""
        return _remembered(self._sizes, url, lambda: image_size(self.path_of(url), max_pixels=self.max_pixels))

    def image(self, url: str, at_least: tuple[int, int]) -> Image.Image:
        """The image decoded (``RGB`` or ``RGBA``), at least ``at_least`` pixels large where the format lets a
        smaller decoding be had (a JPEG at 1/2, 1/4 or 1/8); :class:`ImageRefused` when it cannot be had."""
        full = self.size(url)
        # one decoding per power-of-two reduction, so a sheet shared by many objects is decoded once
        reduction = 1
        while reduction < 8 and full[0] // (reduction * 2) >= at_least[0] and full[1] // (reduction * 2) >= at_least[1]:
            reduction *= 2

        def decode() -> Image.Image:
            image = open_image(self.path_of(url), max_pixels=self.max_pixels,
                               at_least=(-(-full[0] // reduction), -(-full[1] // reduction)))
            return image.convert("RGBA" if _has_alpha(image) else "RGB")
        return _remembered(self._decoded, (url, reduction, 0), decode)


def _remembered(cache: dict, key: Any, make: Callable[[], Any]) -> Any:
    """``cache[key]``, made by ``make()`` the first time; an image that cannot be had is remembered as its
    :class:`ImageRefused` (an :class:`ImageError` becomes one) and raised each time it is asked for."""
    found = cache.get(key)
    if found is None:
        try:
            found = make()
        except ImageRefused as exc:
            found = exc
        except ImageError as exc:
            found = ImageRefused(exc.reason)
        cache[key] = found
    if isinstance(found, ImageRefused):
        raise found
    return found


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (image.mode == "P" and "transparency" in image.info)


def _inside(path: Path, folder: Path) -> Path | None:
    """``path`` with links followed, when it is a file inside ``folder`` (links followed too); else None."""
    try:
        real = path.resolve()
        root = folder.resolve()
    except (OSError, RuntimeError):
        return None
    return real if real.is_relative_to(root) else None


def cache_name(url: str) -> str:
    """The file name stem TTS's ``Mods/Images`` cache gives the image of ``url``: the URL with every character
    that is not an ASCII letter or digit left out (an extension follows it on disk)."""
    return re.sub(r"[^0-9A-Za-z]", "", url)


CACHE_SUFFIXES = (".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG")


class FolderImages(ImageSource):
    """The images of a save read from disk, never out of the folders the user named.

    - a ``file://`` URL, or a plain path (relative paths from ``folder``), is read only when the file, links
      followed, lies inside ``folder`` (the save's folder) or ``cache``;
    - an ``http(s)`` URL is read only from ``cache`` (a copy of TTS's ``Mods/Images``, or any folder laid out the
      same way): the file named :func:`cache_name` of the URL plus ``.png`` or ``.jpg`` (:data:`CACHE_SUFFIXES`);
      nothing is fetched from the network;
    - any other URL is refused.
    """

    def __init__(self, folder: str | Path, cache: str | Path | None = None, *, max_pixels: int | None = None) -> None:
        super().__init__(max_pixels=max_pixels)
        self.folder = Path(folder)
        self.cache = Path(cache) if cache is not None else None

    def path_of(self, url: str) -> Path:
        url = url.strip()
        parsed = urlparse(url)
        scheme = parsed.scheme.lower()
        if scheme in ("http", "https"):
            if self.cache is None:
                raise ImageRefused("an http(s) image: no --image-cache folder named")
            stem = cache_name(url)
            for suffix in CACHE_SUFFIXES:
                found = _inside(self.cache / (stem + suffix), self.cache)
                if found is not None and found.is_file():
                    return found
            raise ImageRefused("not in the image cache folder")
        if scheme == "file":
            if parsed.netloc not in ("", "localhost"):
                raise ImageRefused("a file:// URL of another computer")
            # Imported here: urllib.request brings http.client, email and more (some 25 ms of a rebuild that
            # finds its preview already drawn)
            from urllib.request import url2pathname

            path = Path(url2pathname(unquote(parsed.path)))
        elif scheme == "" or (len(scheme) == 1 and url[1:2] == ":"):
            path = Path(url)                    # a plain path (C:\... is one too: never inside the folder here)
            if not path.is_absolute():
                path = self.folder / path
        else:
            raise ImageRefused(f"a {scheme}: URL")
        for root in (self.folder, self.cache):
            if root is not None:
                found = _inside(path, root)
                if found is not None:
                    if not found.is_file():
                        raise ImageRefused("no such file")
                    return found
        raise ImageRefused("outside the save's folder" + (" and the cache folder" if self.cache else ""))


class MappedImages(ImageSource):
    """The images of a save whose files are known by URL (a build's sheets): any other URL is refused."""

    def __init__(self, files: Mapping[str, str | Path], *, max_pixels: int | None = None) -> None:
        super().__init__(max_pixels=max_pixels)
        self.files = {url: Path(path) for url, path in files.items()}

    def path_of(self, url: str) -> Path:
        path = self.files.get(url)
        if path is None:
            raise ImageRefused("not an image of this build")
        return path


# ------------------------------------------------------------------------------------------------ geometry

@dataclass(frozen=True)
class View:
    """The world → picture mapping: world ``(x, z)`` lies at pixel ``((x - min_x) * scale, (max_z - z) * scale)``
    (x to the right, z up the picture) of a ``width`` × ``height`` picture."""

    min_x: float
    max_z: float
    scale: float          # pixels per TTS unit
    width: int
    height: int

    def to_pixel(self, x: float, z: float) -> tuple[float, float]:
        return ((x - self.min_x) * self.scale, (self.max_z - z) * self.scale)

    def pixel(self, x: float, z: float) -> tuple[int, int]:
        """The pixel (column, row) holding world point ``(x, z)``."""
        px, py = self.to_pixel(x, z)
        return int(math.floor(px)), int(math.floor(py))

    def to_json(self) -> dict[str, Any]:
        return {"min_x": _r(self.min_x), "max_z": _r(self.max_z), "pixels_per_unit": _r(self.scale),
                "width": self.width, "height": self.height}


@dataclass(frozen=True)
class Placement:
    """Where an object lies: its transform (degrees; Unity's rotation order, :mod:`tools.headless.geometry`)."""

    position: Vec
    rotation: Vec
    scale: Vec

    def world(self, lx: float, lz: float) -> tuple[float, float]:
        """Local point ``(lx, 0, lz)`` (unscaled) → world ``(x, z)``."""
        w = position_to_world(Vec(lx, 0.0, lz), self.position, self.rotation, self.scale)
        return w.x, w.z

    @property
    def face_down(self) -> bool:
        return position_to_world(Vec(0.0, 1.0, 0.0), Vec(), self.rotation, Vec(1.0, 1.0, 1.0)).y < 0


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def placement_of(obj: Mapping[str, Any]) -> Placement:
    """The object's :class:`Placement`; :class:`ValueError` naming the field when its ``Transform`` is unusable."""
    t = obj.get("Transform")
    if not isinstance(t, dict):
        raise ValueError("no Transform")
    values = {}
    for key, default in (("posX", 0.0), ("posY", 0.0), ("posZ", 0.0), ("rotX", 0.0), ("rotY", 0.0), ("rotZ", 0.0),
                         ("scaleX", 1.0), ("scaleY", 1.0), ("scaleZ", 1.0)):
        value = _number(t.get(key, default))
        if value is None:
            raise ValueError(f"Transform.{key} is not a number")
        if key.startswith(("pos", "scale")) and abs(value) > FAR:
            raise ValueError(f"Transform.{key} is {value:g}, too far out to draw")
        values[key] = value
    return Placement(Vec(values["posX"], values["posY"], values["posZ"]),
                     Vec(values["rotX"], values["rotY"], values["rotZ"]),
                     Vec(abs(values["scaleX"]), abs(values["scaleY"]), abs(values["scaleZ"])))


def outline_points(shape: str, hx: float, hz: float) -> list[tuple[float, float]]:
    """The footprint's outline in local, unscaled ``(x, z)``: a box, a circle (ellipse) or a hexagon."""
    if shape == "circle":
        return [(hx * math.cos(2 * math.pi * i / _CIRCLE_POINTS), hz * math.sin(2 * math.pi * i / _CIRCLE_POINTS))
                for i in range(_CIRCLE_POINTS)]
    if shape == "hex":
        return [(hx, 0.0), (hx / 2, hz), (-hx / 2, hz), (-hx, 0.0), (-hx / 2, -hz), (hx / 2, -hz)]
    return [(-hx, -hz), (hx, -hz), (hx, hz), (-hx, hz)]


def _inside_polygon(point: tuple[float, float], polygon: list[tuple[float, float]]) -> bool:
    x, y = point
    inside = False
    j = len(polygon) - 1
    for i, (xi, yi) in enumerate(polygon):
        xj, yj = polygon[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def _r(value: float) -> float:
    return round(value, 4) + 0.0


# ------------------------------------------------------------------------------------------------ the report

@dataclass
class Drawn:
    """One object as the picture shows it (an entry of the report's ``objects``)."""

    guid: str
    name: str
    nickname: str
    x: float
    z: float
    rot_y: float
    width: float          # along the object's local x, scale applied
    depth: float          # along its local z
    drawn: str            # "image", "outline", "zone" or "text"
    pixel: tuple[int, int]
    why: str | None = None       # why an outline, not an image
    face: str | None = None      # "up" or "down" (cards, decks, tiles, tokens)
    count: int | None = None     # a deck's cards, a bag's objects
    state: int | None = None     # the state drawn, for an object with States
    label: tuple[int, int, int, int] | None = None   # the label's box in the picture
    badge: tuple[int, int] | None = None             # the centre of the count's disc
    polygon: list[tuple[float, float]] = field(default_factory=list, repr=False)   # world (x, z)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"guid": self.guid, "name": self.name, "nickname": self.nickname,
                               "x": _r(self.x), "z": _r(self.z), "rot_y": _r(self.rot_y),
                               "width": _r(self.width), "depth": _r(self.depth), "drawn": self.drawn,
                               "pixel": list(self.pixel)}
        for key in ("why", "face", "count", "state"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.label is not None:
            out["label"] = list(self.label)
        if self.badge is not None:
            out["badge"] = list(self.badge)
        return out


@dataclass
class Preview:
    """A drawn save: :attr:`image` and what :meth:`report` lists."""

    image: Image.Image
    view: View
    table: dict[str, Any]
    objects: list[Drawn]
    not_drawn: list[dict[str, Any]]
    snap_points: int
    warnings: list[str]

    def report(self) -> dict[str, Any]:
        """``--json``'s object (schema_version 1): ``size``, ``view`` (:meth:`View.to_json`), ``table``,
        ``objects`` (in drawing order), ``not_drawn`` (objects, and images with the objects naming them, each
        with its ``reason``), ``snap_points`` (how many dots) and ``warnings``."""
        return {"schema_version": SCHEMA_VERSION, "size": [self.view.width, self.view.height],
                "view": self.view.to_json(), "table": self.table,
                "objects": [o.to_json() for o in self.objects], "not_drawn": self.not_drawn,
                "snap_points": self.snap_points, "warnings": self.warnings}

    def png(self) -> bytes:
        """The picture as PNG bytes (the same picture, the same bytes)."""
        buffer = io.BytesIO()
        self.image.save(buffer, format="PNG")
        return buffer.getvalue()


# ------------------------------------------------------------------------------------------------ drawing

@dataclass
class _Face:
    """An image to lay over a footprint: a URL, the cell of its sheet (column, row, columns, rows) or None for
    the whole image, and whether it is the object's back (drawn mirrored: it lies face down)."""

    url: str
    cell: tuple[int, int, int, int] | None = None
    back: bool = False


@dataclass
class _Piece:
    obj: Mapping[str, Any]
    index: int
    placement: Placement
    name: str
    hx: float = 1.0
    hz: float = 1.0
    shape: str = "box"
    face: _Face | None = None
    why: str | None = None
    count: int | None = None
    infinite: bool = False
    colour: tuple[int, int, int] = OUTLINE_GREY
    label: str = ""
    state: int | None = None
    kind: str = "outline"        # outline (maybe an image), zone, text
    face_side: str | None = None
    text: str = ""


def _colour(value: Any, default: tuple[int, int, int] = OUTLINE_GREY) -> tuple[int, int, int]:
    if not isinstance(value, dict):
        return default
    channels = [_number(value.get(k)) for k in ("r", "g", "b")]
    if any(c is None for c in channels):
        return default
    return tuple(max(0, min(255, round(c * 255))) for c in channels)  # type: ignore[return-value]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(assets_dir() / "fonts" / _FONT), size)


class _Drawer:
    def __init__(self, save: Mapping[str, Any], images: ImageSource, size: int, state: int | None) -> None:
        self.save = save   # read at its DRAWN_KEYS only (visible_part keeps those)
        self.images = images
        self.size = size
        self.state = state
        self.not_drawn: list[dict[str, Any]] = []
        self._refused: dict[tuple[str, str], dict[str, Any]] = {}
        self.unknown: dict[str, int] = {}
        self.missing_state = 0
        self.label_px = max(9, round(size / 72))

    # -------------------------------------------------------------- reading the save
    def refuse_image(self, url: str, reason: str, obj: Mapping[str, Any]) -> None:
        key = (url, reason)
        entry = self._refused.get(key)
        if entry is None:
            entry = self._refused[key] = {"what": "image", "url": url, "reason": reason, "guids": []}
            self.not_drawn.append(entry)
        guid = _text(obj.get("GUID"))
        if guid not in entry["guids"]:
            entry["guids"].append(guid)

    def image_size(self, face: _Face, obj: Mapping[str, Any]) -> tuple[float, float] | None:
        """The size of ``face`` as it lies on the object (its cell's), or None (refused, reported)."""
        try:
            width, height = self.images.size(face.url)
        except ImageRefused as exc:
            self.refuse_image(face.url, exc.reason, obj)
            return None
        if face.cell is not None:
            return width / face.cell[2], height / face.cell[3]
        return float(width), float(height)

    def piece(self, obj: Mapping[str, Any], index: int) -> _Piece | None:
        name = _text(obj.get("Name"))
        try:
            placement = placement_of(obj)
        except ValueError as exc:
            self.not_drawn.append({"what": "object", "guid": _text(obj.get("GUID")), "name": name,
                                   "nickname": _text(obj.get("Nickname")), "reason": str(exc)})
            return None
        shown: Mapping[str, Any] = obj
        state_id = None
        states = obj.get("States")
        if self.state is not None and isinstance(states, dict) and states:
            chosen = states.get(str(self.state))
            own = next(i for i in range(1, len(states) + 2) if str(i) not in states)
            if isinstance(chosen, dict):
                shown, state_id = chosen, self.state      # drawn where the object lies: states share its place
                name = _text(chosen.get("Name"))
            elif self.state == own:
                state_id = own
            else:
                state_id = own
                self.missing_state += 1
        piece = _Piece(obj=shown, index=index, placement=placement, name=name, state=state_id,
                       colour=_colour(shown.get("ColorDiffuse")), label=_text(shown.get("Nickname")))
        self.describe(piece)
        return piece

    def describe(self, p: _Piece) -> None:
        obj, name = p.obj, p.name
        face_down = p.placement.face_down
        if name in ZONES:
            p.kind, p.hx, p.hz = "zone", 0.5, 0.5
            if name == "HandTrigger":
                owner = _text(obj.get("FogColor"))
                p.colour = _seat(owner)
                p.label = f"{owner} hand" if owner else "hand"
            else:
                p.label = p.label or ("zone" if name == "ScriptingTrigger" else name)
            return
        if name in CARDS or name in DECKS:
            self.describe_card(p, face_down)
            return
        if name in IMAGED:
            self.describe_imaged(p, face_down)
            return
        if name == "3DText":
            text = obj.get("Text") if isinstance(obj.get("Text"), dict) else {}
            p.kind, p.text = "text", _text(text.get("Text"))
            p.colour = _colour(text.get("colorstate"), (255, 255, 255))
            points = _number(text.get("fontSize")) or 64.0
            p.hx = p.hz = max(0.05, points * TEXT_UNITS_PER_POINT / 2)
            return
        size = BASE_SIZES.get(name) or next((s for prefix, s in PREFIX_SIZES if name.startswith(prefix)), None)
        if size is None:
            size = (*UNKNOWN_SIZE, "box")
            self.unknown[name] = self.unknown.get(name, 0) + 1
            p.why = "a type ttsmod does not know"
        else:
            p.why = "no image"
        p.hx, p.hz, p.shape = size[0] / 2, size[1] / 2, size[2]
        p.label = p.label or name
        if name in BAGS:
            contained = obj.get("ContainedObjects")
            p.count = len(contained) if isinstance(contained, list) else 0
        elif name in INFINITE_BAGS:
            p.infinite = True

    def describe_card(self, p: _Piece, face_down: bool) -> None:
        obj = p.obj
        p.face_side = "down" if face_down else "up"
        p.hx, p.hz = CARD_SIZE[0] / 2, CARD_SIZE[1] / 2
        decks = obj.get("CustomDeck") if isinstance(obj.get("CustomDeck"), dict) else {}
        if p.name in DECKS:
            ids = [i for i in obj.get("DeckIDs") or () if isinstance(i, int) and not isinstance(i, bool)]
            contained = [c for c in obj.get("ContainedObjects") or () if isinstance(c, dict)]
            p.count = len(ids) or len(contained)
            # the two ends of the pile: index 0 is its top (what takeObject gives), seen from above face down;
            # face up, the card at its other end is the one on top
            at = 0 if face_down else -1
            card_id = ids[at] if ids else _number((contained[at] if contained else {}).get("CardID"))
            if not decks and contained:
                decks = contained[at].get("CustomDeck") if isinstance(contained[at].get("CustomDeck"), dict) else {}
        else:
            card_id = obj.get("CardID")
        if obj.get("SidewaysCard") is True:
            p.hx, p.hz = p.hz, p.hx
        p.label = p.label or ""
        if not isinstance(card_id, (int, float)) or isinstance(card_id, bool) or card_id < 0:
            p.why = "no CardID"
            return
        card_id = int(card_id)
        sheet = decks.get(str(card_id // 100))
        if sheet is None and len(decks) == 1:
            sheet = next(iter(decks.values()))        # a single card's own entry under a stale key
        if not isinstance(sheet, dict):
            p.why = "built-in playing cards: no image" if not decks else f"no CustomDeck {card_id // 100}"
            return
        p.shape = CARD_SHAPES.get(sheet.get("Type"), "box") if isinstance(sheet.get("Type"), int) else "box"
        columns, rows = sheet.get("NumWidth"), sheet.get("NumHeight")
        if not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 100 for n in (columns, rows)):
            p.why = "CustomDeck has no usable NumWidth and NumHeight"
            return
        index = card_id % 100
        if index >= columns * rows:
            p.why = f"CardID {card_id} lies outside its {columns} x {rows} sheet"
            return
        cell = (index % columns, index // columns, columns, rows)
        face = _Face(_text(sheet.get("FaceURL")), cell)
        back = _Face(_text(sheet.get("BackURL")), cell if sheet.get("UniqueBack") is True else None, back=True)
        for source in (face, back):           # the face's cell gives the card's shape; else its back's
            if source.url:
                found = self.image_size(source, obj)
                if found is not None:
                    hx, hz = card_half_extents(*found)
                    p.hx, p.hz = hx, hz
                    break
        shown = back if face_down else face
        if not shown.url:
            p.why = f"no {'BackURL' if face_down else 'FaceURL'}"
        else:
            p.face = shown

    def describe_imaged(self, p: _Piece, face_down: bool) -> None:
        obj = p.obj
        p.face_side = "down" if face_down else "up"
        custom = obj.get("CustomImage") if isinstance(obj.get("CustomImage"), dict) else {}
        front = _text(custom.get("ImageURL")).strip()
        back = _text(custom.get("ImageSecondaryURL")).strip() or front
        if p.name == "Custom_Tile":
            tile = custom.get("CustomTile") if isinstance(custom.get("CustomTile"), dict) else {}
            kind = tile.get("Type")
            p.shape = TILE_SHAPES.get(kind, "box") if isinstance(kind, int) else "box"
        size = None
        for url in dict.fromkeys(u for u in (front, back) if u):
            size = self.image_size(_Face(url), obj)
            if size is not None:
                break
        if size is not None:
            hx, hz = tile_half_extents(max(1, round(size[0])), max(1, round(size[1])))
            if p.name == "Custom_Board":
                hx, hz = hx * BOARD_LONG_SIDE / (2 * max(hx, hz)), hz * BOARD_LONG_SIDE / (2 * max(hx, hz))
            elif p.name == "Figurine_Custom":
                scalar = _number(custom.get("ImageScalar")) or 1.0
                hx, hz = hx * FIGURINE_WIDTH * abs(scalar) / (2 * hx), hz * FIGURINE_WIDTH * abs(scalar) / (2 * hx)
            p.hx, p.hz = hx, hz
        url = back if face_down else front
        if url:
            p.face = _Face(url, back=face_down)
        else:
            p.why = "no image"

    # -------------------------------------------------------------- drawing
    def draw(self) -> Preview:
        pieces = []
        for index, obj in enumerate(self.save.get("ObjectStates") or ()):
            if not isinstance(obj, dict):
                self.not_drawn.append({"what": "object", "guid": "", "name": "", "nickname": "",
                                       "reason": f"ObjectStates[{index}] is not an object"})
                continue
            piece = self.piece(obj, index)
            if piece is not None:
                pieces.append(piece)
        hands = self.hand_transforms()
        snaps = self.snap_points(pieces)
        table = self.table()
        view = self.frame(pieces + hands, snaps, table)
        canvas = Image.new("RGB", (view.width, view.height), FLOOR_COLOUR)
        paint = ImageDraw.Draw(canvas)
        if table.get("shape"):
            half_w, half_d = table["width"] / 2, table["depth"] / 2
            (x0, y0), (x1, y1) = view.to_pixel(-half_w, half_d), view.to_pixel(half_w, -half_d)
            paint.rectangle((round(x0), round(y0), round(x1) - 1, round(y1) - 1), fill=TABLE_COLOUR)
        dot = max(1.5, 0.12 * view.scale)
        for x, z in snaps[None]:
            self.dot(paint, view, x, z, dot)
        drawn: list[Drawn] = []
        order = sorted((p for p in pieces if p.kind not in ("zone",)),
                       key=lambda p: (p.placement.position.y, p.index))
        zones = [p for p in pieces if p.kind == "zone"] + hands
        shown: list[_Piece] = []
        for piece in order + zones:
            entry = self.draw_piece(canvas, paint, view, piece)
            if entry is not None:
                drawn.append(entry)
                shown.append(piece)
            for x, z in snaps.get(id(piece), ()):
                self.dot(paint, view, x, z, dot)
        self.labels(canvas, view, shown, drawn)
        warnings = [f"{name}: {count} object(s) of a type ttsmod does not know, drawn as "
                    f"{UNKNOWN_SIZE[0]:g} x {UNKNOWN_SIZE[1]:g} outlines"
                    for name, count in sorted(self.unknown.items())]
        if self.missing_state:
            warnings.append(f"--state {self.state}: {self.missing_state} object(s) with States have no state "
                            f"{self.state}; drawn in the state they are in")
        return Preview(canvas, view, table, drawn, self.not_drawn,
                       sum(len(v) for v in snaps.values()), warnings)

    def hand_transforms(self) -> list[_Piece]:
        hands = self.save.get("Hands") if isinstance(self.save.get("Hands"), dict) else {}
        found = []
        for n, entry in enumerate(hands.get("HandTransforms") or ()):
            if not isinstance(entry, dict):
                continue
            try:
                placement = placement_of(entry)
            except ValueError as exc:
                self.not_drawn.append({"what": "object", "guid": "", "name": "HandTransforms", "nickname": "",
                                       "reason": f"Hands.HandTransforms[{n}]: {exc}"})
                continue
            owner = _text(entry.get("Color"))
            found.append(_Piece(obj=entry, index=10**9 + n, placement=placement, name="HandTransform",
                                hx=0.5, hz=0.5, kind="zone", colour=_seat(owner),
                                label=f"{owner} hand" if owner else "hand"))
        return found

    def snap_points(self, pieces: list[_Piece]) -> dict[Any, list[tuple[float, float]]]:
        """World (x, z) of the save's own snap points (key None) and of each object's (key: its piece's id)."""
        found: dict[Any, list[tuple[float, float]]] = {None: []}
        for point in self.save.get("SnapPoints") or ():
            position = point.get("Position") if isinstance(point, dict) else None
            if isinstance(position, dict):
                x, z = _number(position.get("x")), _number(position.get("z"))
                if x is not None and z is not None and abs(x) <= FAR and abs(z) <= FAR:
                    found[None].append((x, z))
        for piece in pieces:
            for point in piece.obj.get("AttachedSnapPoints") or ():
                position = point.get("Position") if isinstance(point, dict) else None
                if isinstance(position, dict):
                    x, z = _number(position.get("x")), _number(position.get("z"))
                    if x is not None and z is not None and abs(x) <= FAR and abs(z) <= FAR:
                        found.setdefault(id(piece), []).append(piece.placement.world(x, z))
        return found

    def table(self) -> dict[str, Any]:
        name = _text(self.save.get("Table"))
        surface = TABLE_SURFACES.get(name)
        if surface is None:
            why = "no table" if name in ("", "Table_None") else f"the size of {name} is not known to ttsmod"
            return {"name": name, "shape": None, "why": why}
        shape, width, depth = surface
        return {"name": name, "shape": shape, "width": width, "depth": depth, "assumed": True}

    def world_polygon(self, p: _Piece) -> list[tuple[float, float]]:
        return [p.placement.world(x, z) for x, z in outline_points(p.shape, p.hx, p.hz)]

    def frame(self, pieces: list[_Piece], snaps: dict[Any, list[tuple[float, float]]], table: dict) -> View:
        xs: list[float] = []
        zs: list[float] = []
        for piece in pieces:
            for x, z in self.world_polygon(piece):
                xs.append(x)
                zs.append(z)
        for points in snaps.values():
            xs.extend(x for x, _ in points)
            zs.extend(z for _, z in points)
        if table.get("shape"):
            xs += [-table["width"] / 2, table["width"] / 2]
            zs += [-table["depth"] / 2, table["depth"] / 2]
        if not xs:
            xs, zs = [-10.0, 10.0], [-10.0, 10.0]
        min_x, max_x, min_z, max_z = min(xs), max(xs), min(zs), max(zs)
        margin = max(1.0, 0.02 * max(max_x - min_x, max_z - min_z))
        min_x, max_x, min_z, max_z = min_x - margin, max_x + margin, min_z - margin, max_z + margin
        scale = self.size / max(max_x - min_x, max_z - min_z)
        return View(min_x, max_z, scale, max(1, round((max_x - min_x) * scale)), max(1, round((max_z - min_z) * scale)))

    def dot(self, paint: ImageDraw.ImageDraw, view: View, x: float, z: float, radius: float) -> None:
        px, py = view.to_pixel(x, z)
        paint.ellipse((px - radius, py - radius, px + radius, py + radius), fill=SNAP_COLOUR, outline=(40, 40, 40))

    def draw_piece(self, canvas: Image.Image, paint: ImageDraw.ImageDraw, view: View, p: _Piece) -> Drawn | None:
        polygon = self.world_polygon(p)
        pixels = [view.to_pixel(x, z) for x, z in polygon]
        cx, cz = p.placement.position.x, p.placement.position.z
        entry = Drawn(guid=_text(p.obj.get("GUID")), name=p.name, nickname=_text(p.obj.get("Nickname")),
                      x=cx, z=cz, rot_y=p.placement.rotation.y, width=2 * p.hx * p.placement.scale.x,
                      depth=2 * p.hz * p.placement.scale.z, drawn=p.kind, pixel=view.pixel(cx, cz),
                      face=p.face_side, count=p.count, state=p.state, polygon=polygon)
        if p.kind == "zone":
            paint.polygon(pixels, outline=p.colour, width=max(1, round(view.scale * 0.08)))
            return entry
        if p.kind == "text":
            return self.draw_text(canvas, view, p, entry)
        if p.face is not None:
            why = self.draw_image(canvas, view, p, pixels)
            if why is None:
                entry.drawn = "image"
                return entry
            p.why = why
        entry.drawn, entry.why = "outline", p.why
        self.draw_outline(canvas, paint, pixels, p.colour, max(1, round(view.scale * 0.06)))
        return entry

    def draw_outline(self, canvas: Image.Image, paint: ImageDraw.ImageDraw, pixels: list[tuple[float, float]],
                     colour: tuple[int, int, int], width: int) -> None:
        box = _bbox(pixels, canvas.size)
        if box is None:
            return
        x0, y0, x1, y1 = box
        mask = Image.new("L", (x1 - x0, y1 - y0), 0)
        ImageDraw.Draw(mask).polygon([(x - x0, y - y0) for x, y in pixels], fill=round(255 * FILL_OPACITY))
        canvas.paste(Image.new("RGB", mask.size, colour), (x0, y0), mask)
        paint.polygon(pixels, outline=colour, width=width)

    def draw_image(self, canvas: Image.Image, view: View, p: _Piece, pixels: list[tuple[float, float]]) -> str | None:
        """Lay ``p``'s image over its footprint; the reason when it cannot (reported), else None."""
        face = p.face
        assert face is not None
        # where the image's corners land: u right, v down on the image; the face's right edge lies at local -x,
        # a back seen through a flipped object at local +x (it reads the right way round once turned over)
        sign = 1.0 if face.back else -1.0

        def at(u: float, v: float) -> tuple[float, float]:
            return view.to_pixel(*p.placement.world(sign * (u - 0.5) * 2 * p.hx, (v - 0.5) * 2 * p.hz))

        origin, right, down = at(0, 0), at(1, 0), at(0, 1)
        width_px = math.dist(origin, right)
        height_px = math.dist(origin, down)
        box = _bbox(pixels, canvas.size)
        if box is None or width_px < 0.5 or height_px < 0.5:
            return None          # too small to show: nothing to lay
        columns, rows = (face.cell[2], face.cell[3]) if face.cell else (1, 1)
        want = (max(1, math.ceil(width_px * columns)), max(1, math.ceil(height_px * rows)))
        try:
            image = self.images.image(face.url, want)
        except ImageRefused as exc:
            self.refuse_image(face.url, exc.reason, p.obj)
            return exc.reason
        if face.cell is not None:
            column, row = face.cell[0], face.cell[1]
            w, h = image.size
            image = image.crop((round(column * w / columns), round(row * h / rows),
                                round((column + 1) * w / columns), round((row + 1) * h / rows)))
        rx, ry = right[0] - origin[0], right[1] - origin[1]
        dx, dy = down[0] - origin[0], down[1] - origin[1]
        if (abs(ry) < STRAIGHT and abs(dx) < STRAIGHT) or (abs(rx) < STRAIGHT and abs(dy) < STRAIGHT):
            # turned by a multiple of 90 degrees: the image is turned and resized to its box in whole pixels,
            # not resampled at a fraction of a pixel (which blurs a small token's lines)
            horizontal, vertical = rx, dy
            if abs(rx) < STRAIGHT:
                image = image.transpose(Image.Transpose.TRANSPOSE)
                horizontal, vertical = dx, ry
            if horizontal < 0:
                image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
            if vertical < 0:
                image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
            xs, ys = (origin[0], origin[0] + rx + dx), (origin[1], origin[1] + ry + dy)
            x0, y0 = round(min(xs)), round(min(ys))
            size = (round(max(xs)) - x0, round(max(ys)) - y0)
            if size[0] < 1 or size[1] < 1:
                return None
            smaller = size[0] <= image.width and size[1] <= image.height
            patch = image.resize(size, Image.Resampling.BOX if smaller else Image.Resampling.BILINEAR)
        else:
            target = (max(1, round(width_px)), max(1, round(height_px)))
            if target[0] < image.width or target[1] < image.height:
                image = image.resize(target, Image.Resampling.BOX)
            w, h = image.size
            # picture = origin + A (ix, iy); Pillow wants the inverse, for each pixel of the patch at the box's
            # corner
            a, b = rx / w, dx / h
            c, d = ry / w, dy / h
            det = a * d - b * c
            if abs(det) < 1e-12:
                return None
            x0, y0, x1, y1 = box
            ox, oy = x0 - origin[0], y0 - origin[1]
            # sampled from the image with a border of its own edge pixels (hence the +1): the resampling at its
            # edge then mixes the image's own colours, not the black beyond it (a dark fringe on every object)
            inverse = (d / det, -b / det, (d * ox - b * oy) / det + 1, -c / det, a / det,
                       (-c * ox + a * oy) / det + 1)
            size = (x1 - x0, y1 - y0)
            patch = _bordered(image).transform(size, Image.Transform.AFFINE, inverse,
                                               resample=Image.Resampling.BILINEAR)
        mask = Image.new("L", size, 0)
        ImageDraw.Draw(mask).polygon([(x - x0, y - y0) for x, y in pixels], fill=255)
        if patch.mode == "RGBA":
            mask = ImageChops.multiply(mask, patch.getchannel("A"))
            patch = patch.convert("RGB")
        canvas.paste(patch, (x0, y0), mask)
        return None

    def draw_text(self, canvas: Image.Image, view: View, p: _Piece, entry: Drawn) -> Drawn | None:
        """A ``3DText``'s text, upright, centred where it lies; its entry's footprint is the text's box. None
        (reported as not drawn) for an empty text or one too small to read in this picture."""
        height = round(2 * p.hz * p.placement.scale.z * view.scale)
        if not p.text.strip() or height < 6:
            self.not_drawn.append({"what": "object", "guid": entry.guid, "name": entry.name,
                                   "nickname": entry.nickname,
                                   "reason": "its text is too small to read at this size" if p.text.strip()
                                   else "no text"})
            return None
        font = _font(min(height, 400))
        paint = ImageDraw.Draw(canvas)
        px, py = view.to_pixel(p.placement.position.x, p.placement.position.z)
        paint.multiline_text((px, py), p.text, font=font, fill=p.colour, anchor="mm", align="center")
        x0, y0, x1, y1 = paint.multiline_textbbox((px, py), p.text, font=font, anchor="mm", align="center")
        left, right = view.min_x + x0 / view.scale, view.min_x + x1 / view.scale
        top, bottom = view.max_z - y0 / view.scale, view.max_z - y1 / view.scale
        entry.polygon = [(left, bottom), (right, bottom), (right, top), (left, top)]
        entry.width, entry.depth = right - left, top - bottom
        return entry

    # -------------------------------------------------------------- labels and counts
    def labels(self, canvas: Image.Image, view: View, pieces: list[_Piece], drawn: list[Drawn]) -> None:
        overlay = Image.new("L", canvas.size, 0)
        shade = ImageDraw.Draw(overlay)
        placed: list[tuple[int, int, int, int]] = []
        texts: list[tuple[tuple[float, float], str, tuple[int, int, int], str]] = []
        font = _font(self.label_px)
        for piece, entry in zip(pieces, drawn):
            pixels = [view.to_pixel(x, z) for x, z in entry.polygon]
            if piece.count is not None or piece.infinite:
                text = "\u221e" if piece.infinite else str(piece.count)
                self.badge(canvas, pixels, text, entry)
            label = piece.label.strip().splitlines()[0] if piece.label.strip() else ""
            if not label or piece.kind == "text":
                continue
            box = self.label_box(label, font, pixels, top=piece.kind == "zone")
            if box is None or any(_overlap(box, other) for other in placed):
                continue
            placed.append(box)
            entry.label = box
            if piece.kind == "zone":
                texts.append(((box[0] + 2, box[1]), label, piece.colour, "la"))
            else:
                shade.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=round(255 * LABEL_OPACITY))
                texts.append(((box[0] + 2, box[1]), label, TEXT_COLOUR, "la"))
        canvas.paste(Image.new("RGB", canvas.size, LABEL_BACKGROUND), (0, 0), overlay)
        paint = ImageDraw.Draw(canvas)
        for xy, text, colour, anchor in texts:
            paint.text(xy, text, font=font, fill=colour, anchor=anchor)
        for piece, entry in zip(pieces, drawn):
            if entry.badge is not None:
                text = "\u221e" if piece.infinite else str(piece.count)
                bx, by = entry.badge
                paint.text((bx, by), text, font=font, fill=TEXT_COLOUR, anchor="mm")

    def label_box(self, label: str, font: ImageFont.FreeTypeFont, pixels: list[tuple[float, float]],
                  *, top: bool) -> tuple[int, int, int, int] | None:
        """A box for ``label`` inside the footprint, along its bottom (a zone's: its top), leaving its centre
        free; None when there is no room."""
        x0, y0 = min(x for x, _ in pixels), min(y for _, y in pixels)
        x1, y1 = max(x for x, _ in pixels), max(y for _, y in pixels)
        height = self.label_px + 4
        if y1 - y0 < 3 * height:
            return None
        left, _, right, _ = font.getbbox(label)
        width = right - left + 4
        if width > x1 - x0 - 4:
            return None
        if top:
            bx0, by0 = x0 + 0.15 * height + 2, y0 + 0.15 * height + 2
        else:
            bx0, by0 = (x0 + x1) / 2 - width / 2, y1 - height - 0.15 * height - 2
        box = (round(bx0), round(by0), round(bx0) + width, round(by0) + height)
        corners = [(box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])]
        return box if all(_inside_polygon(c, pixels) for c in corners) else None

    def badge(self, canvas: Image.Image, pixels: list[tuple[float, float]], text: str, entry: Drawn) -> None:
        """A dark disc at the footprint's top right corner (of its box in the picture) for the count."""
        font = _font(self.label_px)
        left, _, right, _ = font.getbbox(text)
        radius = max((right - left) / 2 + 3, self.label_px * 0.75)
        cx = max(x for x, _ in pixels) - radius * 0.2
        cy = min(y for _, y in pixels) + radius * 0.2
        ImageDraw.Draw(canvas).ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=BADGE_COLOUR,
                                       outline=TEXT_COLOUR)
        entry.badge = (round(cx), round(cy))


def _seat(owner: str) -> tuple[int, int, int]:
    value = SEAT_COLOURS.get(owner, "#b0b0b0").lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def _bordered(image: Image.Image) -> Image.Image:
    """``image`` with a one-pixel border repeating its edge pixels (corners included)."""
    w, h = image.size
    out = Image.new(image.mode, (w + 2, h + 2))
    out.paste(image, (1, 1))
    out.paste(image.crop((0, 0, w, 1)), (1, 0))
    out.paste(image.crop((0, h - 1, w, h)), (1, h + 1))
    out.paste(out.crop((1, 0, 2, h + 2)), (0, 0))
    out.paste(out.crop((w, 0, w + 1, h + 2)), (w + 1, 0))
    return out


def _bbox(pixels: list[tuple[float, float]], size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    x0 = max(0, math.floor(min(x for x, _ in pixels)))
    y0 = max(0, math.floor(min(y for _, y in pixels)))
    x1 = min(size[0], math.ceil(max(x for x, _ in pixels)) + 1)
    y1 = min(size[1], math.ceil(max(y for _, y in pixels)) + 1)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


DRAWN_KEYS = ("ObjectStates", "Hands", "SnapPoints", "Table")
"""The keys of a save :class:`_Drawer` reads (``self.save.get``): keep it so when it reads another."""


def visible_part(save: Mapping[str, Any]) -> dict[str, Any]:
    """``save`` without what :func:`draw` (with no ``state``) never reads: its scripts and every other key but
    :data:`DRAWN_KEYS`, a bag's contents but their count, a
    deck's cards but the one on top and their count (its ``DeckIDs`` all that card, its ``CustomDeck`` that card's
    sheet). ``draw(visible_part(save), images)`` is ``draw(save, images)``, pixel for pixel; a build keys its
    preview by it, so an edit of a card inside a deck draws nothing again (a 10,000-card deck's edit redrew an
    unchanged picture otherwise). Anything it cannot be sure of is kept as it is."""
    shown = {key: save[key] for key in DRAWN_KEYS if key in save}
    objects = shown.get("ObjectStates")
    if isinstance(objects, list):
        shown["ObjectStates"] = [_visible_object(obj) for obj in objects]
    return shown


def _visible_object(obj: Any) -> Any:
    if not isinstance(obj, dict):
        return obj
    name = obj.get("Name")
    contained = obj.get("ContainedObjects")
    if name in BAGS and isinstance(contained, list):
        return {**obj, "ContainedObjects": [0] * len(contained)}
    if name not in DECKS:
        return obj
    ids = [i for i in obj.get("DeckIDs") or () if isinstance(i, int) and not isinstance(i, bool)]
    decks = obj.get("CustomDeck")
    if not ids or not isinstance(decks, dict):
        return obj
    try:
        face_down = placement_of(obj).face_down
    except ValueError:
        return obj
    card_id = ids[0 if face_down else -1]
    key = str(card_id // 100)
    if card_id < 0 or key not in decks:
        return obj
    return {**obj, "DeckIDs": [card_id] * len(ids), "ContainedObjects": [], "CustomDeck": {key: decks[key]}}


def draw(save: Mapping[str, Any], images: ImageSource, *, size: int = DEFAULT_SIZE,
         state: int | None = None) -> Preview:
    """The save seen from above (see the module docstring). ``size``: pixels along the longer side
    (:data:`MIN_SIZE`..:data:`MAX_SIZE`); ``state``: draw that state of every object with ``States``
    (others as they are). :class:`ValueError` for a size out of range."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"the size must be {MIN_SIZE} to {MAX_SIZE} pixels, not {size}")
    return _Drawer(save, images, size, state).draw()


def preview_file(save_path: str | Path, out: str | Path, *, size: int = DEFAULT_SIZE, state: int | None = None,
                 image_cache: str | Path | None = None, max_pixels: int | None = None) -> Preview:
    """Draw the save at ``save_path`` (images from its folder and ``image_cache``: :class:`FolderImages`) and
    write the picture to ``out`` as PNG, atomically. :class:`bridge.errors.InputError` for a file that is not a
    save, a cache that is not a folder or a size out of range; :class:`bridge.errors.WriteError` when ``out``
    cannot be written."""
    from bridge.errors import InputError
    from bridge.fsio import atomic_write_bytes
    from bridge.luaproject.savetree import read_save

    if not MIN_SIZE <= size <= MAX_SIZE:
        raise InputError(f"--size must be {MIN_SIZE} to {MAX_SIZE} pixels, not {size}")
    if image_cache is not None and not Path(image_cache).is_dir():
        raise InputError(f"{image_cache}: the image cache is not a folder")
    save = read_save(save_path)
    result = draw(save, FolderImages(Path(save_path).absolute().parent, image_cache, max_pixels=max_pixels),
                  size=size, state=state)
    atomic_write_bytes(out, result.png())
    return result
