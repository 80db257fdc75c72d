"""Checking a preview (tools/preview.py) as a picture: at points of each object, found from the object's
``Transform`` in the save through the preview's world → pixel mapping (:class:`tools.preview.View`), the picture
must show the object — its image there (read from the file the save names, a card cut from its sheet by its
``CardID``, reduced to the size the object has in the picture), or its outline's fill over what lies under it —
and at points of empty table the table's colour. An object moved or gone shows something else at its points, so
these checks fail (``tests/tools/test_preview.py`` proves it on a copy of a save with one object moved).

Where the points are is known before the picture is looked at: :class:`Checker` takes the expectation (the save
and the report of its preview: the view, each object's footprint, labels and count discs) and the picture to
check separately, so the picture of an edited save can be held against the expectation of the original.

Points are only taken where the answer is clear: inside the object (off its edge), under no object drawn after
it, no label, count disc or snap point, not by a zone's line; for an outline, where only the table and other
outlines lie under it; for an image, where it is opaque. Each point where the image is of about one colour
around it must match on its own (:data:`POINT_TOLERANCE`), and all the object's points together on average
(:data:`MEAN_TOLERANCE`: text and lines, resampled, match only on average).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from PIL import Image

from tools.preview import FILL_OPACITY, FLOOR_COLOUR, TABLE_COLOUR, Drawn, Preview, View, placement_of

GRID = tuple(0.15 + 0.7 * i / 6 for i in range(7))
"""Where on an object's image (u right, v down, 0..1) points are taken: a 7 × 7 grid."""
POINT_TOLERANCE = 40
"""Per channel, between a preview pixel and the image's pixel there, where the image is of about one colour."""
FLAT_RANGE = 24
"""An image whose channels vary less than this around a point (3 × 3 pixels at the picture's size) is flat there."""
MEAN_TOLERANCE = 28
"""The mean, over an object's points, of the largest channel difference between the preview and its image."""
OUTLINE_TOLERANCE = 4
"""Per channel, between a preview pixel and an outline's fill blended over what lies under it."""


def inside(point: tuple[float, float], polygon: list[tuple[float, float]]) -> bool:
    x, y = point
    result = False
    j = len(polygon) - 1
    for i, (xi, yi) in enumerate(polygon):
        xj, yj = polygon[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            result = not result
        j = i
    return result


def edge_distance(point: tuple[float, float], polygon: list[tuple[float, float]]) -> float:
    px, py = point
    best = math.inf
    for i, (ax, ay) in enumerate(polygon):
        bx, by = polygon[(i + 1) % len(polygon)]
        dx, dy = bx - ax, by - ay
        t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(px - ax - t * dx, py - ay - t * dy))
    return best


def blend(colour: tuple[int, ...], under: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(round(c * FILL_OPACITY + u * (1 - FILL_OPACITY)) for c, u in zip(colour, under))


def difference(a, b) -> int:
    return max(abs(int(x) - int(y)) for x, y in zip(a, b))


def save_colour(obj: dict[str, Any]) -> tuple[int, int, int]:
    c = obj.get("ColorDiffuse") or {}
    return tuple(round(c[k] * 255) for k in ("r", "g", "b")) if all(k in c for k in "rgb") else (180, 180, 180)


def snap_points(save: dict[str, Any]) -> list[tuple[float, float]]:
    """World (x, z) of every snap point of the save and of its top-level objects."""
    found = [(p["Position"]["x"], p["Position"]["z"]) for p in save.get("SnapPoints") or ()]
    for obj in save["ObjectStates"]:
        for point in obj.get("AttachedSnapPoints") or ():
            found.append(placement_of(obj).world(point["Position"]["x"], point["Position"]["z"]))
    return found


_decoded: dict[tuple[Path, int], Image.Image] = {}
_reduced: dict[tuple[Path, tuple | None, tuple[int, int]], Image.Image] = {}


def _open(path: Path, at_least: tuple[int, int]) -> Image.Image:
    """The image file as RGBA, decoded (a JPEG at 1/2, 1/4 or 1/8 of its size) no smaller than ``at_least``."""
    with Image.open(path) as image:
        reduction = 1
        while reduction < 8 and image.width // (2 * reduction) >= at_least[0] \
                and image.height // (2 * reduction) >= at_least[1]:
            reduction *= 2
        key = (path, reduction)
        if key not in _decoded:
            image.draft("RGB", (-(-image.width // reduction), -(-image.height // reduction)))
            _decoded[key] = image.convert("RGBA")
    return _decoded[key]


class Checker:
    """The clear points of ``preview`` (drawn from ``save``, its ``file://`` images read from disk), checked in
    ``image`` (default: the preview's own picture; another picture of the same view, to show that it differs)."""

    def __init__(self, save: dict[str, Any], preview: Preview, image: Image.Image | None = None) -> None:
        self.save = save
        self.preview = preview
        self.view: View = preview.view
        self.image = (preview.image if image is None else image).convert("RGB")
        assert self.image.size == (self.view.width, self.view.height), "a picture of another size"
        self.by_guid = {obj.get("GUID"): obj for obj in save["ObjectStates"]}
        self.pixel_polygons = [[self.view.to_pixel(x, z) for x, z in entry.polygon] for entry in preview.objects]
        self.boxes = [(min(x for x, _ in p), min(y for _, y in p), max(x for x, _ in p), max(y for _, y in p))
                      for p in self.pixel_polygons]
        self.snaps = [self.view.to_pixel(x, z) for x, z in snap_points(save)]
        self.dot = max(1.5, 0.12 * self.view.scale) + 2.0
        self.badge_radius = 2.0 * max(9, round(max(self.view.width, self.view.height) / 72))
        # how far from a drawn line a point must lie: the lines' widths as tools.preview draws them, and a margin
        self.zone_margin = max(1, round(self.view.scale * 0.08)) + 2.0
        self.outline_margin = max(1, round(self.view.scale * 0.06)) + 1.5
        self.image_margin = 1.5     # an image's edge: pasted through its footprint's mask, resampled

    def at(self, x: float, z: float) -> tuple[int, int, int]:
        """The picture's pixel at world point ``(x, z)``."""
        return self.image.getpixel(self.view.pixel(x, z))

    def margin(self, j: int) -> float:
        return self.outline_margin if self.preview.objects[j].drawn == "outline" else self.image_margin

    def near(self, point: tuple[float, float], j: int, margin: float) -> bool:
        """Whether ``point`` lies inside object ``j``'s footprint or within ``margin`` pixels of its edge."""
        x0, y0, x1, y1 = self.boxes[j]
        if not (x0 - margin <= point[0] <= x1 + margin and y0 - margin <= point[1] <= y1 + margin):
            return False
        polygon = self.pixel_polygons[j]
        return inside(point, polygon) or edge_distance(point, polygon) < margin

    def on_edge(self, point: tuple[float, float], j: int, margin: float) -> bool:
        x0, y0, x1, y1 = self.boxes[j]
        if not (x0 - margin <= point[0] <= x1 + margin and y0 - margin <= point[1] <= y1 + margin):
            return False
        return edge_distance(point, self.pixel_polygons[j]) < margin

    def clear(self, point: tuple[float, float], index: int | None) -> bool:
        """Whether the picture at ``point`` (pixels) shows object ``index`` (None: the bare table) alone: no
        object drawn after it, no zone's line, label, count disc or snap point there."""
        if not (2 <= point[0] <= self.view.width - 3 and 2 <= point[1] <= self.view.height - 3):
            return False
        for j, entry in enumerate(self.preview.objects):
            if entry.drawn == "zone":
                if self.on_edge(point, j, self.zone_margin):
                    return False
            elif j == index:
                if self.on_edge(point, j, self.margin(j)):
                    return False
            elif (index is None or j > index) and self.near(point, j, self.margin(j)):
                return False
            if entry.label is not None:
                x0, y0, x1, y1 = entry.label
                if x0 - 2 <= point[0] <= x1 + 2 and y0 - 2 <= point[1] <= y1 + 2:
                    return False
            if entry.badge is not None and math.dist(point, entry.badge) < self.badge_radius:
                return False
        return all(math.dist(point, snap) > self.dot for snap in self.snaps)

    # ---------------------------------------------------------------- objects
    def world_of(self, entry: Drawn, u: float, v: float, back: bool) -> tuple[float, float]:
        """Where image point (u, v) of ``entry`` lies, from its object's transform in the save: the image's right
        edge at local -x, its top at local -z (a back, seen through a flipped object, the other way along x)."""
        placement = placement_of(self.by_guid[entry.guid])
        hx = entry.width / 2 / (placement.scale.x or 1)
        hz = entry.depth / 2 / (placement.scale.z or 1)
        sign = 1.0 if back else -1.0
        return placement.world(sign * (u - 0.5) * 2 * hx, (v - 0.5) * 2 * hz)

    def check_objects(self) -> tuple[int, set[str], list[str]]:
        """(points checked, GUIDs of the objects checked, failures) over every image- and outline-drawn object."""
        points = 0
        checked_guids: set[str] = set()
        failures: list[str] = []
        for index, entry in enumerate(self.preview.objects):
            if entry.drawn not in ("image", "outline") or entry.guid not in self.by_guid:
                continue
            checked = self.check_object(index, entry, failures)
            points += checked
            if checked:
                checked_guids.add(entry.guid)
        return points, checked_guids, failures

    def under(self, point: tuple[float, float], index: int) -> tuple[int, ...] | None:
        """The colour the picture has at ``point`` before object ``index`` is drawn, when only the table and
        outlines lie there (None when an image, or the edge of anything drawn before, does)."""
        colour = self.table_colour(point)
        for j in range(index):
            entry = self.preview.objects[j]
            if entry.drawn == "zone" or not self.near(point, j, self.margin(j)):
                continue
            if colour is None or entry.drawn != "outline" or self.on_edge(point, j, self.margin(j)):
                return None
            colour = blend(save_colour(self.by_guid.get(entry.guid) or {}), colour)
        return colour

    def table_colour(self, point: tuple[float, float]) -> tuple[int, int, int] | None:
        table = self.preview.table
        if not table.get("shape"):
            return FLOOR_COLOUR
        (x0, y0), (x1, y1) = (self.view.to_pixel(-table["width"] / 2, table["depth"] / 2),
                              self.view.to_pixel(table["width"] / 2, -table["depth"] / 2))
        if x0 + 2 < point[0] < x1 - 2 and y0 + 2 < point[1] < y1 - 2:
            return TABLE_COLOUR
        if point[0] < x0 - 2 or point[0] > x1 + 2 or point[1] < y0 - 2 or point[1] > y1 + 2:
            return FLOOR_COLOUR
        return None

    def check_object(self, index: int, entry: Drawn, failures: list[str]) -> int:
        """How many points of object ``index`` were checked; what did not match appended to ``failures``."""
        obj = self.by_guid[entry.guid]
        source = self.source(obj, entry) if entry.drawn == "image" else None
        expected = self.expected_image(source, entry) if source is not None else None
        differences = []
        for u in GRID:
            for v in GRID:
                point = self.view.to_pixel(*self.world_of(entry, u, v, bool(source and source[2])))
                if not inside(point, self.pixel_polygons[index]) or not self.clear(point, index):
                    continue
                if expected is None:
                    under = self.under(point, index)
                    if under is None:
                        continue
                    wants, tolerance = [blend(save_colour(obj), under)], OUTLINE_TOLERANCE
                else:
                    found = self.image_colour(expected, u, v)
                    if found is None:
                        continue
                    wants, flat = found
                    tolerance = POINT_TOLERANCE if flat else None
                got = self.image.getpixel((int(point[0]), int(point[1])))
                # the nearest of the image's pixels around the point: the picture's pixel grid and the image's
                # (reduced to the object's size) lie up to a pixel apart, which a fine line of a token is wide
                want = min(wants, key=lambda w: difference(got, w))
                differences.append(difference(got, want))
                if tolerance is not None and differences[-1] > tolerance:
                    failures.append(f"{entry.name} {entry.nickname!r} ({entry.guid}) at image point "
                                    f"({u:.2f}, {v:.2f}), pixel {tuple(int(c) for c in point)}: {got}, "
                                    f"expected {want}")
        if differences and sum(differences) / len(differences) > MEAN_TOLERANCE:
            failures.append(f"{entry.name} {entry.nickname!r} ({entry.guid}): its {len(differences)} points differ "
                            f"from its image by {sum(differences) / len(differences):.0f} on average")
        return len(differences)

    def source(self, obj: dict[str, Any], entry: Drawn) -> tuple[Path, tuple[int, int, int, int] | None, bool]:
        """The file, cell (column, row, columns, rows) and side (True: the back) the rules of docs/modding.md say
        ``entry`` shows: a deck its top card (face down: the first of its ``DeckIDs``, face up: the last)."""
        down = entry.face == "down"
        if entry.name in ("Deck", "DeckCustom", "Card", "CardCustom"):
            card = (obj["DeckIDs"][0 if down else -1]) if entry.name.startswith("Deck") else obj["CardID"]
            sheet = obj["CustomDeck"][str(card // 100)]
            index, columns = card % 100, sheet["NumWidth"]
            cell = (index % columns, index // columns, columns, sheet["NumHeight"])
            if down:
                return _path(sheet["BackURL"]), cell if sheet.get("UniqueBack") else None, True
            return _path(sheet["FaceURL"]), cell, False
        image = obj["CustomImage"]
        if down:
            return _path(image.get("ImageSecondaryURL") or image["ImageURL"]), None, True
        return _path(image["ImageURL"]), None, False

    def expected_image(self, source, entry: Drawn) -> Image.Image:
        """The image (its cell) at the size ``entry`` has in the picture, RGBA."""
        path, cell, _ = source
        size = (max(1, round(entry.width * self.view.scale)), max(1, round(entry.depth * self.view.scale)))
        key = (path, cell, size)
        if key not in _reduced:
            columns, rows = (cell[2], cell[3]) if cell else (1, 1)
            image = _open(path, (size[0] * columns, size[1] * rows))
            if cell is not None:
                w, h = image.width / columns, image.height / rows
                image = image.crop((round(cell[0] * w), round(cell[1] * h),
                                    round((cell[0] + 1) * w), round((cell[1] + 1) * h)))
            _reduced[key] = image.resize(size, Image.Resampling.BOX if size[0] < image.width
                                         else Image.Resampling.BILINEAR)
        return _reduced[key]

    @staticmethod
    def image_colour(image: Image.Image, u: float, v: float) -> tuple[list[tuple[int, ...]], bool] | None:
        """The image's colours around image point (u, v) (its pixel there and the 8 around it) and whether the
        image is flat there; None where it is not opaque (a token's cut-out) around it."""
        x, y = min(image.width - 1, int(u * image.width)), min(image.height - 1, int(v * image.height))
        window = [image.getpixel((i, j)) for i in range(max(0, x - 1), min(image.width, x + 2))
                  for j in range(max(0, y - 1), min(image.height, y + 2))]
        if min(p[3] for p in window) < 250:
            return None
        flat = all(max(p[c] for p in window) - min(p[c] for p in window) <= FLAT_RANGE for c in range(3))
        return [p[:3] for p in window], flat

    # ---------------------------------------------------------------- the bare table
    def check_table(self, steps: int = 40) -> tuple[int, list[str]]:
        """(points checked, failures) over a grid of the picture's points that no object, zone or label covers."""
        checked = 0
        failures = []
        for i in range(steps):
            for j in range(steps):
                point = ((i + 0.5) * self.view.width / steps, (j + 0.5) * self.view.height / steps)
                if any(self.near(point, k, self.zone_margin) for k in range(len(self.pixel_polygons))) \
                        or not self.clear(point, None):
                    continue
                want = self.table_colour(point)
                if want is None:
                    continue
                checked += 1
                got = self.image.getpixel((int(point[0]), int(point[1])))
                if got != want:
                    failures.append(f"empty table at pixel {tuple(int(c) for c in point)}: {got}, expected {want}")
        return checked, failures


def _path(url: str) -> Path:
    return Path(url2pathname(unquote(urlparse(url).path)))
