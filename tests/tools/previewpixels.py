"""Checking a preview (tools/preview.py) as a picture: at points of each object, found from the object's
``Transform`` through the preview's own world → pixel mapping (:class:`tools.preview.View`), the picture must show
the object — its image's colour there (read from the image file the save names, its card cut from its sheet by
its ``CardID``), or its outline's fill — and at points of empty table the table's colour. An object moved or gone
shows something else at its points, so these checks fail.

Points are only taken where the answer is clear: inside the object (not near its edge), under no object drawn
after it, no label, count disc or snap point, not by a zone's line, and (for an image) where the image is of one
colour around the point.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from PIL import Image, ImageStat

from tools.preview import (FILL_OPACITY, FLOOR_COLOUR, TABLE_COLOUR, Drawn, Preview, View, placement_of)

SAMPLES = [(0.5, 0.5), (0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7), (0.5, 0.25), (0.5, 0.75)]
TOLERANCE = 36          # per channel, between a preview pixel and the image's colour around that point
FLAT = 9.0              # an image window whose channels vary less than this (standard deviation) is one colour


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


def blend(colour: tuple[int, int, int], under: tuple[int, int, int]) -> tuple[int, ...]:
    return tuple(round(c * FILL_OPACITY + u * (1 - FILL_OPACITY)) for c, u in zip(colour, under))


def close(a, b, tolerance: int) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


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


class Checker:
    """The clear points of ``preview`` (drawn from ``save``, its ``file://`` images read from disk)."""

    def __init__(self, save: dict[str, Any], preview: Preview) -> None:
        self.save = save
        self.preview = preview
        self.view: View = preview.view
        self.image = preview.image.convert("RGB")
        self.by_guid = {obj.get("GUID"): obj for obj in save["ObjectStates"]}
        self.pixel_polygons = [[self.view.to_pixel(x, z) for x, z in entry.polygon] for entry in preview.objects]
        self.snaps = [self.view.to_pixel(x, z) for x, z in snap_points(save)]
        self.dot = max(1.5, 0.12 * self.view.scale) + 2.5
        self.badge_radius = 2.0 * max(9, round(max(self.view.width, self.view.height) / 72))

    def at(self, x: float, z: float) -> tuple[int, int, int]:
        return self.image.getpixel(self.view.pixel(x, z))

    def clear(self, point: tuple[float, float], index: int | None) -> bool:
        """Whether the picture at ``point`` (pixels) shows object ``index`` (None: the bare table) alone."""
        if not (2 <= point[0] <= self.view.width - 3 and 2 <= point[1] <= self.view.height - 3):
            return False
        for j, (entry, polygon) in enumerate(zip(self.preview.objects, self.pixel_polygons)):
            if entry.drawn == "zone" or j == index:
                if edge_distance(point, polygon) < 3.5:
                    return False
                continue
            if (index is None or j > index) and (inside(point, polygon) or edge_distance(point, polygon) < 2.5):
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
        """Where image point (u, v) of ``entry`` lies: its right edge at local -x, its top at local -z (a back
        seen through a flipped object the other way along x)."""
        placement = placement_of(self.by_guid[entry.guid])
        hx = entry.width / 2 / (placement.scale.x or 1)
        hz = entry.depth / 2 / (placement.scale.z or 1)
        sign = 1.0 if back else -1.0
        return placement.world(sign * (u - 0.5) * 2 * hx, (v - 0.5) * 2 * hz)

    def check_objects(self) -> tuple[int, int, list[str]]:
        """(points checked, objects checked, failures) over every image- and outline-drawn object."""
        points = objects = 0
        failures: list[str] = []
        for index, entry in enumerate(self.preview.objects):
            if entry.drawn not in ("image", "outline") or entry.guid not in self.by_guid:
                continue
            checked = self.check_object(index, entry, failures)
            points += checked
            objects += checked > 0
        return points, objects, failures

    def under(self, point: tuple[float, float], index: int) -> tuple[int, int, int] | None:
        """The bare table's colour at ``point`` when no object drawn before ``index`` lies there."""
        for j in range(index):
            entry = self.preview.objects[j]
            if entry.drawn != "zone" and inside(point, self.pixel_polygons[j]):
                return None
        return self.table_colour(point)

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
        obj = self.by_guid[entry.guid]
        polygon = self.pixel_polygons[index]
        source = self.source(obj, entry) if entry.drawn == "image" else None
        checked = 0
        for u, v in SAMPLES:
            point = self.view.to_pixel(*self.world_of(entry, u, v, bool(source and source[2])))
            if not inside(point, polygon) or edge_distance(point, polygon) < 2.5 or not self.clear(point, index):
                continue
            got = self.image.getpixel((int(point[0]), int(point[1])))
            if entry.drawn == "outline":
                under = self.under(point, index)
                if under is None:
                    continue
                want, tolerance = blend(save_colour(obj), under), 4
            else:
                want = self.image_colour(source, u, v, entry)
                if want is None:
                    continue
                tolerance = TOLERANCE
            checked += 1
            if not close(got, want, tolerance):
                failures.append(f"{entry.name} {entry.nickname!r} ({entry.guid}) at image point ({u}, {v}), "
                                f"pixel {tuple(int(c) for c in point)}: {got}, expected {want}")
        return checked

    def source(self, obj: dict[str, Any], entry: Drawn) -> tuple[Path, tuple[int, int, int, int] | None, bool]:
        """The file, cell and side the preview's rules say ``entry`` shows (docs/modding.md)."""
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

    _opened: dict[Path, Image.Image] = {}

    def image_colour(self, source, u: float, v: float, entry: Drawn) -> tuple[int, ...] | None:
        path, cell, _ = source
        image = self._opened.get(path)
        if image is None:
            image = Image.open(path)
            image.draft("RGB", (image.width // 8, image.height // 8))
            image = self._opened[path] = image.convert("RGBA")
        if cell is not None:
            column, row, columns, rows = cell
            w, h = image.width / columns, image.height / rows
            box = (column * w, row * h, (column + 1) * w, (row + 1) * h)
        else:
            box = (0, 0, image.width, image.height)
        x = box[0] + u * (box[2] - box[0])
        y = box[1] + v * (box[3] - box[1])
        # the window one preview pixel covers, and three times that to know the colour is the same around it
        per_pixel = max(1.0, (box[2] - box[0]) / max(1.0, entry.width * self.view.scale))
        wide = image.crop((round(x - 3 * per_pixel), round(y - 3 * per_pixel),
                           round(x + 3 * per_pixel) + 1, round(y + 3 * per_pixel) + 1))
        stat = ImageStat.Stat(wide)
        if max(stat.stddev[:3]) > FLAT or stat.extrema[3][0] < 250:      # varied, or see-through (a token's cut)
            return None
        return tuple(round(c) for c in stat.mean[:3])

    # ---------------------------------------------------------------- the bare table
    def check_table(self, steps: int = 40) -> tuple[int, list[str]]:
        """(points checked, failures) over a grid of the picture's points that no object, zone or label covers."""
        checked = 0
        failures = []
        for i in range(steps):
            for j in range(steps):
                point = ((i + 0.5) * self.view.width / steps, (j + 0.5) * self.view.height / steps)
                if any(inside(point, polygon) or edge_distance(point, polygon) < 3.5
                       for polygon in self.pixel_polygons) or not self.clear(point, None):
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
