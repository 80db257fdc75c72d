"""The render pipeline every game's renderer runs through: caches and manifest, parallel drawing and sheet
packing, single images, the thumbnail and the clean-up of files an earlier run wrote.

A game's renderer (a :class:`FaceRenderer`) only names its images, keys them and draws one at a time;
:func:`render_art` does the rest into ``out_dir``:

- each image has a key, the hash of everything that affects its pixels (the renderer computes it);
- decks (:class:`DeckPlan`) become TTS sheets; a sheet whose inputs are unchanged is not touched
  (``.cache/manifest.json`` maps each sheet's input key to its file). Every sheet to write is one task: it draws
  its faces (or takes them from the caches), pastes them with the back in the last cell and encodes the sheet;
  the tasks run in parallel over ``jobs`` processes (all cores by default; 1 runs in-process; the renderer is
  pickled into each worker), so a big game streams through a few sheets at a time and no process ever holds
  more than one sheet;
- a renderer that draws at any size (:class:`tools.render.sizing.DrawsAtSize`: the games' renderers) draws each
  deck face straight at its cell's size, never at another size to be resampled: a deck's grid and cell size
  come from its face's design size and count (:func:`tools.sheets.deck_sheets`), its cells large enough for
  its body text to stand :data:`BODY_TEXT_TARGET` px high (found once on its first face, ``scales`` in the
  manifest), and each face drawn records its body text's height (``heights``, reported as
  :attr:`tools.sheets.PackedDeck.text_height`); a deck with a face under the target is laid out again at the
  scale that face needs and its sheets drawn again (``raised``, kept for the same faces). The back is drawn at its cell's size too, and the deck's back
  image (its ``BackURL``) is the back as it lies in the deck's largest cell. Any other renderer's faces are
  packed exactly as :func:`tools.sheets.pack_faces` packs them (scaled into their cells: the same bytes);
- a face drawn at its cell's size is not cached: repacking a sheet after one card changed draws the sheet's
  faces again, which costs less than compressing every cell of a cold build (a third of its time at Four
  Humours' legible cell size) to decode a sheet's worth later; the back's cell is cached (``.cache/cells/``).
  A face scaled into its cell (a renderer drawing at one size) is cached as it lies there (its pixels
  compressed: :data:`CELL_SUFFIX`), so repacking its sheet draws that card only; images needed
  whole (backs, singles, the thumbnail's source, and for a renderer drawing at one size a deck's first face until
  its size — which sets the deck's cells — is known, ``sizes`` in the manifest, and a face more than one sheet
  cell needs drawn) are cached whole in ``.cache/faces/<key>.png``;
- a build writes no print copy: :func:`print_faces` draws a card face for print-and-play at its print
  resolution when first asked, into ``.cache/print/``, and keeps it there by content (a second PDF draws
  nothing). A build deletes the print copies and whole images whose key is no longer one of the items' keys (the
  image was edited); the others stay;
- single images (boards, tokens) and the thumbnail are written once per key, under content-hashed names;
- files this pipeline wrote before and no longer uses are deleted, or with ``prune=False`` left in place and
  listed in :attr:`Art.stale` for the caller to delete once its own output is written. Caches are written
  without ``fsync`` (a lost cache file is only work to redo); sheets and images are durable.

A :class:`bridge.errors.DataError` raised while drawing an image stops the run: the first failing image in item
order is reported, whatever finished first, with one process or several.
"""

from __future__ import annotations

import collections
import concurrent.futures
import hashlib
import io
import json
import math
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping, Protocol, Sequence

from PIL import Image

from bridge.errors import DataError, InputError
from bridge.fsio import atomic_write_bytes, atomic_write_text
from tools.defaults import IMAGE_FORMATS
from tools.imageio import image_size, to_rgb
from tools.render.heap import keep_freed_image_memory
from tools.render.sizing import body_text_height, measure_text
from tools.sheets import (LETTERBOX, FittedFace, PackedDeck, Sheet, cell_size_for, choose_grid, deck_sheets, encode,
                          fit_face, hashed_name, shape_differs, sheet_layout, write_image)

THUMBNAIL = "thumbnail"
"""The image name every :class:`Art` holds: the save's preview in TTS's load menu (a PNG)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: images rendered so far out of those to render this run. Each image is drawn once
(images of one key are one image), and ``total`` is exactly those drawn, known before the first is drawn; it is
reported again with a new value (before any sheet's face is drawn) only when a deck's first face comes out at
another size than the deck had, which changes the deck's cells."""

PRINT_DIR = "print"
"""The folder of ``out_dir/.cache/`` holding each deck face's print copy, ``<key>-<width>x<height>.jpg`` (drawn at
print resolution by :func:`print_faces`), or ``<key>.jpg`` for a renderer that draws at one size only."""
PRINT_QUALITY = 95
"""JPEG quality of the print copies: near-lossless at print resolution, fast to encode."""

BODY_TEXT_TARGET = 24
"""The cap-to-baseline height in pixels a deck's body text should reach on its sheet: legible in TTS without
zooming in. The deck's grid is chosen for it (:func:`tools.sheets.deck_sheets`)."""
RAISES = 4
"""How many times a deck's scale is raised at most, for its first face (:func:`_legible_scale`) or for a face whose
body text fits smaller (a build draws such a deck's sheets again)."""
RAISE_STEP = 1.02
"""The least a raise grows a deck's scale by (a font size one pixel short rounds the same at a hair more)."""


@dataclass(frozen=True)
class Art:
    """What a game's renderer produced, in ``out_dir/sheets/``.

    ``decks``: deck name → its packed sheets.  ``images``: image name → file, one of them :data:`THUMBNAIL`.
    ``rendered``: images drawn this run; ``repacked``: file names written into ``sheets/`` this run (an
    unchanged rebuild reports 0 and ``()``); ``stale``: files of earlier runs this run no longer uses, left in
    place when rendering with ``prune=False`` so the build deletes them once the new save is written.
    """

    decks: Mapping[str, PackedDeck]
    images: Mapping[str, Path]
    rendered: int
    repacked: tuple[str, ...]
    stale: tuple[str, ...] = ()
    faces: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Deck name → the image names of its faces, in order (for :func:`print_faces`)."""
    renderer: "FaceRenderer | None" = field(default=None, compare=False, repr=False)
    """The renderer that drew this art (for :func:`print_faces`)."""


class FaceRenderer(Protocol):
    """A game's drawing of its images, one at a time; it writes nothing and must be picklable.

    A renderer that can draw an image at any size (:class:`tools.render.sizing.DrawsAtSize`) also has
    ``design_size(name)`` (the pixel size its layout is designed at), ``body_boxes(name)`` (the boxes of its body
    text) and ``render(name, size)``: the pipeline then draws every deck face straight at its sheet cell's size,
    and :func:`print_faces` at print resolution. Without them a face is drawn at its one size and scaled to its
    cell."""

    def items(self) -> list[tuple[str, str]]:
        """Every image as ``(name, layout kind)``, in a stable order."""

    def key(self, name: str, kind: str) -> str:
        """The cache key of image ``name``: a hash of everything that affects its pixels."""

    def render(self, name: str) -> Image.Image:
        """The RGB image called ``name`` (RGBA for a single that is cut out by its transparency, written as a PNG
        keeping it); bad data raises :class:`DataError`."""


@dataclass(frozen=True)
class DeckPlan:
    """A deck to pack: its name (it starts the sheet file names), its face images in order, its back image."""

    name: str
    faces: tuple[str, ...]
    back: str


@dataclass(frozen=True)
class ThumbnailPlan:
    """The thumbnail: drawn by ``transform`` from the rendered image ``source``."""

    source: str
    transform: Callable[[Image.Image], Image.Image]


def check_image_options(fmt: str, quality: int) -> None:
    """:class:`InputError` for an image format other than jpg/png or a JPEG quality outside 1..100."""
    if fmt not in IMAGE_FORMATS:
        raise InputError(f'image format must be jpg or png, not "{fmt}"')
    if not 1 <= quality <= 100:
        raise InputError(f"JPEG quality must be 1..100, not {quality}")


def render_art(renderer: FaceRenderer, out_dir: Path, *, decks: Sequence[DeckPlan], singles: Sequence[str],
               thumbnail: ThumbnailPlan, fmt: str = "jpg", quality: int = 90, use_cache: bool = True,
               jobs: int | None = None, progress: Progress | None = None, prune: bool = True) -> Art:
    """Render what is missing, pack ``decks``, write ``singles`` and the thumbnail (see the module docstring).

    A deck with no faces is left out of :attr:`Art.decks`.  ``progress`` is called as images finish rendering.
    """
    check_image_options(fmt, quality)
    out_dir = Path(out_dir)
    sheets_dir = out_dir / "sheets"
    cache_dir = out_dir / ".cache"
    faces_dir = cache_dir / "faces"
    cells_dir = cache_dir / "cells"
    print_dir = cache_dir / PRINT_DIR
    manifest_path = cache_dir / "manifest.json"
    previous = _read_manifest(manifest_path)
    manifest = previous if use_cache else _empty_manifest()
    sizes: dict[str, list[int]] = manifest["sizes"]

    items = renderer.items()
    keys = {name: renderer.key(name, kind) for name, kind in items}
    whole = _CacheFiles(faces_dir, keys, ".png")
    plans = [plan for plan in decks if plan.faces]
    sized = draws_at_size(renderer)
    own_sizes: dict[str, tuple[int, int]] = {}
    scales: dict[str, float] = manifest["scales"]
    raised: dict[str, list] = manifest["raised"]
    min_scales: dict[str, float] = {}
    digests: dict[str, str] = {}
    if sized:
        # A deck face's size is its layout's: known without drawing it. Its cells are drawn at the size the deck's
        # grid gives them, chosen for its body text: at least the scale at which its first face's stands
        # BODY_TEXT_TARGET px high (found once, ``scales`` in the manifest), or the larger scale an earlier build
        # found these very faces to need (``raised``: see _raise_illegible).
        for plan in plans:
            for name in plan.faces:
                own_sizes[name] = _design_size(renderer, name)
            first = keys[plan.faces[0]]
            sizes[first] = list(own_sizes[plan.faces[0]])
            if first not in scales:
                scales[first] = _legible_scale(renderer, plan.faces[0], [n for n, _ in items])
            min_scales[plan.name] = scales[first]
            if scales[first]:
                digests[plan.name] = _faces_digest(plan, keys, scales[first])
                found = raised.get(plan.name)
                if found is not None and found[0] == digests[plan.name]:
                    min_scales[plan.name] = found[1]

    # Images needed whole: backs (a renderer drawing at any size draws a back in its cells instead, and its
    # BackURL image from them: see _deck_back), singles, the thumbnail's source, and each deck's first face while
    # its size (which sets the deck's cells) is not known yet.
    needed = list(dict.fromkeys([*(p.back for p in plans
                                   if not (sized and renderer.design_size(p.back) is not None)),  # type: ignore
                                 *singles, thumbnail.source,
                                 *(p.faces[0] for p in plans if keys[p.faces[0]] not in sizes)]))
    order = [n for n, _ in items]
    todo = _one_per_key([n for n in needed if not (use_cache and whole[n].is_file())], keys)
    whole_keys = {keys[n] for n in todo}   # images held whole by this run, drawn or to draw: a sheet reads them

    cells_text = os.path.join(cells_dir, "")

    def cached(path: Path) -> bool:
        return use_cache and path.is_file()

    def sheet_tasks(plan: DeckPlan, layout: _DeckLayout) -> Iterator[_SheetTask | tuple[int, str]]:
        """Each sheet of ``plan``: ``(number, file)`` when it is written already, else the task that writes it."""
        for number, (start, count) in enumerate(layout.groups):
            key = layout.sheet_key(number, plan.back, keys)
            file = manifest["sheets"].get(key)
            if file is not None and cached(sheets_dir / file):
                yield number, file
                continue
            yield _SheetTask(
                deck=plan.name, number=number, key=key,
                faces=tuple((n, keys[n], f"{cells_text}{layout.cell_id(keys[n], number)}{CELL_SUFFIX}",
                             "" if sized else whole.text(n) if use_cache or keys[n] in whole_keys else "",
                             own_sizes.get(n))
                            for n in plan.faces[start:start + count]),
                size=layout.size, columns=layout.grids[number][0], rows=layout.grids[number][1],
                cell=layout.cells[number], back=str(whole[plan.back]), sheets_dir=str(sheets_dir), fmt=fmt,
                quality=quality, use_cache=use_cache,
                back_cell=f"{cells_text}{layout.back_cell_id(keys[plan.back], number)}{CELL_SUFFIX}",
                back_name=plan.back if sized else "", cache_cells=not sized)

    def layout_of(plan: DeckPlan, size: Sequence[int] | None = None) -> _DeckLayout:
        return _DeckLayout.of(plan, keys, tuple(size or sizes[keys[plan.faces[0]]]), fmt, quality,
                              min_scales.get(plan.name))

    def to_draw(layouts: Mapping[str, _DeckLayout | None]) -> tuple[list[str], int]:
        """What the sheets of ``layouts`` (deck name → its cells, None when not known) would draw: the faces to
        draw whole first, one per key that more than one sheet cell needs (drawn once, then read by each), and
        how many faces the sheet tasks draw themselves (each the only cell of its key to draw)."""
        slots: list[str] = []   # a face of a cell neither cached nor held whole, once per cell
        drawn_in_sheets = 0
        for plan in plans:
            layout = layouts[plan.name]
            if layout is None:   # the deck's cells are unknown, and so is any of them being cached
                slots += [n for n in plan.faces if keys[n] not in whole_keys and not cached(whole[n])]
                continue
            for task in sheet_tasks(plan, layout):
                if not isinstance(task, _SheetTask):
                    continue
                if sized:   # every face of a sheet to write is drawn by it, at its cell's size, once a key
                    drawn_in_sheets += len({key for _, key, _, _, _ in task.faces})
                    continue
                slots += [n for n, key, cell, full, _ in task.faces
                          if not cached(Path(cell)) and key not in whole_keys and not (full and cached(Path(full)))]
        count = collections.Counter(keys[n] for n in slots)
        shared = _one_per_key([n for n in slots if count[keys[n]] > 1], keys)
        return shared, drawn_in_sheets + sum(1 for times in count.values() if times == 1)

    # The number of images this run will draw, known before drawing any (a progress bar needs its length): each
    # image is drawn once. A deck whose first face changed is expected to keep its size (the size recorded for
    # the deck, ``decks`` in the manifest; a new face of the same layout); its cells are checked once it is drawn.
    def expected_layout(plan: DeckPlan) -> _DeckLayout | None:
        size = sizes.get(keys[plan.faces[0]]) or manifest["decks"].get(plan.name)
        return layout_of(plan, size) if size else None

    expected = {plan.name: expected_layout(plan) for plan in plans}
    shared, in_sheets = to_draw(expected)
    todo += shared
    whole_keys.update(keys[n] for n in shared)
    tracker = _Progress(progress, len(todo) + in_sheets)

    with _Workers(renderer, jobs) as workers:
        for name, size in workers.render_whole(todo, whole, tracker, order):
            if not sized:
                sizes[keys[name]] = list(size)
        for name in needed:
            if keys[name] not in sizes:
                sizes[keys[name]] = list(image_size(whole[name]))
        layouts = {plan.name: layout_of(plan) for plan in plans}
        # the expected layouts where they held: their cell ids are made already
        layouts = {name: expected[name] if expected[name] == layout else layout for name, layout in layouts.items()}
        if layouts != expected:
            # A first face drawn at another size than its deck had (or a deck new to the manifest): count again.
            late, in_sheets = to_draw(layouts)
            whole_keys.update(keys[n] for n in late)
            tracker.recount(tracker.rendered + len(late) + in_sheets)
            for name, size in workers.render_whole(late, whole, tracker, order):
                sizes[keys[name]] = list(size)
        # Sheets: each one not written yet is a task that takes its faces from the cell cache (scaled to the
        # cell), else from the whole-image cache, else draws them, then pastes and encodes the sheet; the tasks
        # run in parallel over the workers.
        reused: dict[tuple[str, int], str] = {}
        tasks: list[_SheetTask] = []
        for plan in plans:
            for entry in sheet_tasks(plan, layouts[plan.name]):
                if isinstance(entry, _SheetTask):
                    tasks.append(entry)
                else:
                    reused[(plan.name, entry[0])] = entry[1]
        done = {(task.deck, task.number): outcome for task, outcome in workers.pack_sheets(tasks, tracker, order)}
        heights: dict[str, int] = manifest["heights"]
        for outcome in done.values():
            heights.update(outcome.heights)
        for _ in range(RAISES):
            # Every face drawn at its cell's size was measured. A deck with a face whose body text came out under
            # the target (it fits its text smaller than the first face does: a longer name, another wrap) gets
            # the larger cells that face needs, and its sheets are drawn again.
            low = {plan.name: height for plan in plans if min_scales.get(plan.name)
                   for height in [_lowest_height(plan, layouts[plan.name], keys, heights)]
                   if height is not None and height < BODY_TEXT_TARGET}
            if not low:
                break
            again: list[_SheetTask] = []
            for plan in plans:
                if plan.name not in low:
                    continue
                for number in range(len(layouts[plan.name].groups)):
                    reused.pop((plan.name, number), None)
                    outcome = done.pop((plan.name, number), None)
                    if outcome is not None:   # written this run, now used by nothing
                        (sheets_dir / outcome.file).unlink(missing_ok=True)
                min_scales[plan.name] *= max(BODY_TEXT_TARGET / max(1, low[plan.name]), RAISE_STEP)
                raised[plan.name] = [digests[plan.name], min_scales[plan.name]]
                layouts[plan.name] = layout_of(plan)
                for entry in sheet_tasks(plan, layouts[plan.name]):
                    if isinstance(entry, _SheetTask):
                        again.append(entry)
                    else:
                        reused[(plan.name, entry[0])] = entry[1]
            tracker.recount(tracker.total + sum(len({key for _, key, _, _, _ in task.faces}) for task in again))
            for task, outcome in workers.pack_sheets(again, tracker, order):
                done[(task.deck, task.number)] = outcome
                heights.update(outcome.heights)
    rendered = tracker.rendered
    written: list[str] = []

    packed: dict[str, PackedDeck] = {}
    used_cells: set[str] = set()
    for plan in plans:
        layout = layouts[plan.name]
        back_key = layout.back_key(plan.back, keys)
        back_file = manifest["sheets"].get(back_key)
        if not (use_cache and back_file is not None and (sheets_dir / back_file).is_file()):
            data = encode(_deck_back(renderer, plan, layout, keys, whole, cells_dir, sized), fmt, quality)
            back_file = hashed_name(f"{plan.name}-back", data, fmt)
            atomic_write_bytes(sheets_dir / back_file, data)
            written.append(back_file)
        manifest["sheets"][back_key] = back_file
        sheets: list[Sheet] = []
        fitted: list[FittedFace] = []
        placement: list[tuple[int, int]] = []
        measured: list[int] = []   # the body text height of each face of the deck (0: a face without)
        for number, (start, count) in enumerate(layout.groups):
            key = layout.sheet_key(number, plan.back, keys)
            outcome = done.get((plan.name, number))
            if outcome is None:
                file = reused[(plan.name, number)]
            else:
                file = outcome.file
                written.append(file)
                fitted.extend(FittedFace(start + index, size) for index, size in outcome.fitted)
                for face_key, size in outcome.sizes.items():
                    sizes[face_key] = list(size)
            manifest["sheets"][key] = file
            columns, rows = layout.grids[number]
            cw, ch = layout.cells[number]
            sheets.append(Sheet(file, sheets_dir / file, columns, rows, count, cw, ch))
            placement.extend((number, index) for index in range(count))
            deck_cells = [layout.cell_id(keys[n], number) for n in plan.faces[start:start + count]]
            used_cells.update(deck_cells)
            used_cells.add(layout.back_cell_id(keys[plan.back], number))
            measured += [heights[c] for c in deck_cells if c in heights]
        packed[plan.name] = PackedDeck(plan.name, tuple(sheets), back_file, sheets_dir / back_file,
                                       tuple(placement), False, face_size=layout.size, fit=FIT,
                                       fitted=tuple(fitted),
                                       text_height=min((h for h in measured if h), default=None))

    images: dict[str, Path] = {}
    for name in singles:
        images[name] = _write_once(manifest["images"], f"{keys[name]}|{fmt}|{quality}", sheets_dir,
                                   name.replace(":", "-").lower(), whole[name], fmt, quality, written)
    images[THUMBNAIL] = _write_once(manifest["images"], f"{keys[thumbnail.source]}|thumbnail", sheets_dir,
                                    THUMBNAIL, whole[thumbnail.source], "png", quality, written,
                                    transform=thumbnail.transform)

    used_files = {p.name for d in packed.values() for p in [d.back_path, *(s.path for s in d.sheets)]}
    used_files |= {p.name for p in images.values()}
    used_keys = set(keys.values())
    manifest["sizes"] = {k: v for k, v in sorted(sizes.items()) if k in used_keys}
    manifest["decks"] = {plan.name: list(layouts[plan.name].size) for plan in plans}
    manifest["scales"] = {k: v for k, v in sorted(scales.items()) if k in used_keys}
    manifest["raised"] = {name: raised[name] for name in sorted(raised)
                          if name in digests and raised[name][0] == digests[name]}
    manifest["heights"] = {k: v for k, v in sorted(heights.items()) if k in used_cells}
    # The whole-image and print caches keep every image still current: a build reads a deck face from its cell,
    # never from them, so keeping one costs it nothing, and an edited face's old files go.
    stale = _forget_stale(previous, manifest, used_files, sheets_dir, faces_dir, used_keys, prune)
    _forget_prints(print_dir, used_keys)
    _forget_unused(cells_dir, "*" + CELL_SUFFIX, used_cells)   # a face edited, a deck regrown to another cell size
    _forget_unused(cells_dir, "*.png", set())   # cells as the PNGs of earlier versions: never read now
    # Compact: a cache file read by this module only, and at 10,000 cards the indented form took the pure-Python
    # encoder a tenth of a second.
    atomic_write_text(manifest_path, json.dumps(manifest, sort_keys=True, separators=(",", ":")) + "\n")
    return Art(packed, images, rendered, tuple(written), stale,
               faces={plan.name: plan.faces for plan in plans}, renderer=renderer)


def print_faces(renderer: FaceRenderer, out_dir: Path, names: Sequence[str], *,
                sizes: Mapping[str, tuple[int, int]] | None = None, jobs: int | None = None,
                progress: Progress | None = None, bleed: int = 0) -> dict[str, Path]:
    """The print copy of each image ``names`` of ``renderer`` (name → its file in ``out_dir/.cache/print/``, in the
    order of ``names``, each once), drawn once and then kept by content.

    A renderer that draws at any size (:func:`draws_at_size`) draws each image at ``sizes[name]`` (its print
    resolution; its design size when ``sizes`` leaves it out; a face of another shape than that size is drawn whole
    inside it) into ``<key>-<width>x<height>.jpg``; any other draws
    it at its one size into ``<key>.jpg`` (taken from the whole-image cache when that holds it). A copy already
    there is not drawn again: a second call draws nothing. Drawings run in parallel over ``jobs`` processes;
    ``progress(done, total)`` counts them (``(0, 0)`` when there are none). A print copy is the image as drawn, in
    RGB, encoded by :func:`print_bytes`, so the same inputs give the same bytes. An unknown name is a
    :class:`KeyError`; a :class:`DataError` while drawing stops with the first failing image in item order.

    ``bleed`` (px): a renderer that can (``draws_bleed``) draws each face with that much more on every side, its
    art's own pixels past the cut line (``<key>-<width>x<height>-b<bleed>.jpg``); others draw the face alone,
    whose bleed the PDF mirrors from its edges."""
    cache_dir = Path(out_dir) / ".cache"
    items = renderer.items()
    kinds = dict(items)
    wanted = list(dict.fromkeys(names))
    keys = {name: renderer.key(name, kinds[name]) for name in wanted}
    sized = draws_at_size(renderer)
    targets: dict[str, tuple[int, int] | None] = {}
    printed: dict[str, Path] = {}
    for name in wanted:
        target = None
        if sized:
            own = _design_size(renderer, name)
            target = tuple((sizes or {}).get(name) or own)
            if shape_differs(own, target):   # never stretched: drawn whole inside the size asked
                target = _contained(own, target)
        stem = f"{keys[name]}-{target[0]}x{target[1]}" if target else keys[name]
        if target and bleed > 0 and getattr(renderer, "draws_bleed", False):
            target = (*target, bleed)   # _draw: drawn at (width, height) with this bleed
            stem += f"-b{bleed}"
        targets[name] = target
        printed[name] = cache_dir / PRINT_DIR / f"{stem}.jpg"
    todo = []
    claimed: set[Path] = set()   # images of one key and size are one drawing
    for name in wanted:
        if printed[name] in claimed or printed[name].is_file():
            continue
        claimed.add(printed[name])
        face = None if sized else _read_png(str(cache_dir / "faces" / f"{keys[name]}.png"))
        if face is None:
            todo.append(name)
        else:
            _write_print(face, str(printed[name]))
    tracker = _Progress(progress, len(todo))
    with _Workers(renderer, jobs) as workers:
        for _ in workers.render_print(todo, printed, targets, tracker, [n for n, _ in items]):
            pass
    return printed


def draws_at_size(renderer: FaceRenderer) -> bool:
    """Whether ``renderer`` draws an image at any size asked (see :class:`FaceRenderer`)."""
    return callable(getattr(renderer, "design_size", None))


def _design_size(renderer: FaceRenderer, name: str) -> tuple[int, int]:
    size = renderer.design_size(name)   # type: ignore[attr-defined]
    if size is None:
        raise ValueError(f"{name}: a tiled image has no size of its own to draw a card face at")
    return tuple(size)


def _legible_scale(renderer: FaceRenderer, name: str, order: list[str]) -> float:
    """The smallest scale of its design size at which face ``name``'s body text stands :data:`BODY_TEXT_TARGET` px
    high, cap to baseline (from the scale its height at the design size suggests, a little larger each time its
    font sizes round below); 0.0 for a face without body text. A deck's cells are at least this scale of its first face (:func:`tools.sheets.deck_sheets`), so the
    first face is legible on its sheet, however its font sizes round at that size."""
    boxes = tuple(renderer.body_boxes(name))   # type: ignore[attr-defined]
    if not boxes:
        return 0.0   # nothing to measure: no drawing
    design = _design_size(renderer, name)
    height = _body_height(renderer, name, None, boxes, order)
    if not height:
        return 0.0
    scale = BODY_TEXT_TARGET / height
    for _ in range(RAISES):
        size = (max(1, math.floor(design[0] * scale)), max(1, math.floor(design[1] * scale)))
        height = _body_height(renderer, name, size, boxes, order)
        if height >= BODY_TEXT_TARGET:
            break
        scale *= max(BODY_TEXT_TARGET / max(1, height), RAISE_STEP)
    return scale


def _body_height(renderer: FaceRenderer, name: str, size: tuple[int, int] | None, boxes: tuple[str, ...],
                 order: list[str]) -> int:
    """The body text height of ``name`` drawn at ``size`` (its design size when None); 0 when it has none."""
    with measure_text() as record:
        _draw(renderer, name, size, order)
    return body_text_height(record, boxes) or 0


def _faces_digest(plan: DeckPlan, keys: Mapping[str, str], scale: float) -> str:
    """What a deck's raised scale was found for: its faces (their keys, in order) and its first face's scale."""
    return hashlib.sha256("|".join([repr(scale), *(keys[n] for n in plan.faces)]).encode()).hexdigest()


def _lowest_height(plan: DeckPlan, layout: "_DeckLayout", keys: Mapping[str, str],
                   heights: Mapping[str, int]) -> int | None:
    """The smallest body text height measured on a face of ``plan`` as ``layout`` lays it out (None: none
    measured; a face without body text does not count)."""
    found = [heights.get(layout.cell_id(keys[n], number))
             for number, (start, count) in enumerate(layout.groups) for n in plan.faces[start:start + count]]
    return min((h for h in found if h), default=None)


def print_bytes(face: Image.Image) -> bytes:
    """An RGB face encoded as its print copy: baseline JPEG at :data:`PRINT_QUALITY`, 4:2:0, no metadata (the
    same pixels always give the same bytes)."""
    buffer = io.BytesIO()
    face.save(buffer, format="JPEG", quality=PRINT_QUALITY, subsampling=2, optimize=False, progressive=False)
    return buffer.getvalue()


FIT = "contain"
"""How a face of another shape than its deck's first face is put into its cell (:func:`tools.sheets.fit_face`)."""


class _CacheFiles(Mapping[str, Path]):
    """Image name → its file ``<folder>/<key><suffix>`` in a cache, made when asked for: a big game has tens of
    thousands of images, and a rebuild needs the paths of a few only (its sheet tasks take them as text)."""

    def __init__(self, folder: Path, keys: Mapping[str, str], suffix: str, names: set[str] | None = None) -> None:
        self.prefix = os.path.join(folder, "")
        self.keys = keys
        self.suffix = suffix
        self.names = names

    def text(self, name: str) -> str:
        if self.names is not None and name not in self.names:
            raise KeyError(name)
        return self.prefix + self.keys[name] + self.suffix

    def __getitem__(self, name: str) -> Path:
        return Path(self.text(name))

    def __contains__(self, name: object) -> bool:
        return name in (self.names if self.names is not None else self.keys)

    def __iter__(self):
        return iter(self.names if self.names is not None else self.keys)

    def __len__(self) -> int:
        return len(self.names if self.names is not None else self.keys)


def _empty_manifest() -> dict:
    return {"sheets": {}, "images": {}, "sizes": {}, "decks": {}, "scales": {}, "raised": {}, "heights": {}}


def _one_per_key(names: list[str], keys: Mapping[str, str]) -> list[str]:
    """``names`` without those whose key an earlier one has (images of the same key are one image to draw)."""
    first: dict[str, str] = {}
    for name in names:
        first.setdefault(keys[name], name)
    return list(first.values())


@dataclass(frozen=True)
class _DeckLayout:
    """How a deck falls into sheets: its cells' shape (its first face's size), the faces per sheet, each sheet's
    grid and cell size, and the cache keys of its sheets and back (those :func:`tools.sheets.pack_faces` uses
    with a :class:`tools.sheets.SheetCache`, so both agree on what a sheet's inputs are)."""

    settings: str
    size: tuple[int, int]
    groups: tuple[tuple[int, int], ...]
    grids: tuple[tuple[int, int], ...]
    cells: tuple[tuple[int, int], ...]
    face_keys: tuple[str, ...]
    # cell_id's answers: a build asks for each face's two or three times (its sheet task, the heights measured,
    # the cells in use), and a 10,000-card deck's hashes cost a few hundredths of a second each time
    _cell_ids: dict[tuple[str, int], str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, plan: DeckPlan, keys: Mapping[str, str], size: tuple[int, int], fmt: str,
           quality: int, min_scale: float | None = None) -> "_DeckLayout":
        """The layout of ``plan`` when its first face is ``size``: with ``min_scale`` (faces drawn at their
        cells' size) the grids of :func:`tools.sheets.deck_sheets`, else those of :func:`tools.sheets.pack_faces`
        (faces of one size scaled down into their cells)."""
        if min_scale is None:
            groups = tuple(sheet_layout(len(plan.faces), False))
            grids = tuple(choose_grid(count + 1, size) for _, count in groups)
            cells = tuple(cell_size_for(columns, rows, size) for columns, rows in grids)
            settings = f"{plan.name}|{fmt}|{quality}|False|{size}|{FIT}"
        else:
            sheets = deck_sheets(len(plan.faces), size, min_scale)
            groups = tuple((start, count) for start, count, _, _, _ in sheets)
            grids = tuple((columns, rows) for _, _, columns, rows, _ in sheets)
            cells = tuple(cell for *_, cell in sheets)
            # The cells' sizes are part of every sheet's inputs: a face drawn at another size is other pixels.
            # Hashed once: a 10,000-card deck has over a thousand sheets, each key made from this text.
            drawn = hashlib.sha256(repr(cells).encode()).hexdigest()[:16]
            settings = f"{plan.name}|{fmt}|{quality}|False|{size}|{FIT}|drawn|{drawn}"
        return cls(settings, size, groups, grids, cells, tuple(keys[n] for n in plan.faces))

    def sheet_key(self, number: int, back: str, keys: Mapping[str, str]) -> str:
        start, count = self.groups[number]
        return hashlib.sha256("|".join(
            [f"sheet {number}", self.settings, keys[back], *self.face_keys[start:start + count]]).encode()).hexdigest()

    def back_key(self, back: str, keys: Mapping[str, str]) -> str:
        return hashlib.sha256(f"back|{self.settings}|{keys[back]}".encode()).hexdigest()

    def back_cell_id(self, back_key: str, number: int) -> str:
        """The cell cache's name for the back as it lies in the last cell of sheet ``number`` (scaled to the
        cell, never fitted)."""
        cw, ch = self.cells[number]
        return hashlib.sha256(f"back|{back_key}|{cw}x{ch}".encode()).hexdigest()[:40]

    def cell_id(self, face_key: str, number: int) -> str:
        """The cell cache's name for a face as it lies in sheet ``number``: what it is, the cell's size and the
        deck's shape (which decides between scaling and fitting)."""
        found = self._cell_ids.get((face_key, number))
        if found is None:
            cw, ch = self.cells[number]
            found = self._cell_ids[(face_key, number)] = hashlib.sha256(
                f"{face_key}|{cw}x{ch}|{self.size}|{FIT}".encode()).hexdigest()[:40]
        return found


@dataclass(frozen=True)
class _SheetTask:
    deck: str
    number: int
    key: str
    faces: tuple[tuple[str, str, str, str, tuple[int, int] | None], ...]
    # (name, key, cell cache file, whole file, design size: set when the face is drawn at its cell's size)
    size: tuple[int, int]
    columns: int
    rows: int
    cell: tuple[int, int]
    back: str
    sheets_dir: str
    fmt: str
    quality: int
    use_cache: bool
    back_cell: str   # the cell cache file of the back as it lies in this sheet
    back_name: str = ""   # the back's image name, to draw it at the cell's size (a renderer drawing at any size)
    cache_cells: bool = True   # read and write the faces' cells in the cell cache


@dataclass(frozen=True)
class _SheetOutcome:
    file: str
    fitted: tuple[tuple[int, tuple[int, int]], ...]   # (index in the sheet, the face's own size)
    sizes: Mapping[str, tuple[int, int]]              # own sizes of the faces drawn for this sheet
    rendered: int
    heights: Mapping[str, int] = field(default_factory=dict)   # cell id → body text height of a face drawn


class _Progress:
    def __init__(self, callback: Progress | None, total: int) -> None:
        self.callback = callback
        self.total = total
        self.rendered = 0
        if callback is not None:
            callback(0, total)

    def recount(self, total: int) -> None:
        """The run will draw ``total`` images in all (a deck's cells turned out other than expected)."""
        if total != self.total:
            self.total = total
            if self.callback is not None:
                self.callback(self.rendered, total)

    def advance(self, count: int) -> None:
        self.rendered += count
        if self.callback is not None and count:
            self.callback(min(self.rendered, max(self.total, self.rendered)), max(self.total, self.rendered))


# -- rendering, in this process or in a pool -------------------------------------------------------------

_worker: FaceRenderer | None = None
_backs: dict[tuple[str, tuple[int, int]], Image.Image] = {}   # (back file, cell size) → the back in that cell


def _init_worker(renderer: FaceRenderer) -> None:
    global _worker
    _worker = renderer
    keep_freed_image_memory()   # a worker draws and frees image after image: see tools.render.heap
    _backs.clear()


class _RenderFailed(Exception):
    """A :class:`DataError` raised while drawing ``name``, carried as picklable fields."""

    def __init__(self, name: str, fields: tuple) -> None:
        super().__init__(name, fields)
        self.name = name
        self.fields = fields


def _draw(renderer: FaceRenderer, name: str, size: tuple[int, int] | None = None,
          order: list[str] | None = None) -> Image.Image:
    """Image ``name`` drawn (at ``size``, for a renderer that draws at any size). With ``order`` (the items' names),
    a :class:`DataError` is raised as such, else carried as :class:`_RenderFailed` to the first-failure report."""
    try:
        if size is not None and len(size) == 3:   # (width, height, bleed): a print face with its bleed
            return renderer.render(name, tuple(size[:2]), bleed=size[2])   # type: ignore[call-arg]
        return renderer.render(name) if size is None else renderer.render(name, size)   # type: ignore[call-arg]
    except DataError as exc:
        if order is not None:
            raise
        raise _RenderFailed(name, (exc.file, exc.entry, exc.field, exc.message)) from None


def _render_whole(renderer: FaceRenderer, name: str, path: str) -> tuple[str, tuple[int, int]]:
    """Render ``name`` into the PNG ``path`` (the whole-image cache); returns its size."""
    image = _draw(renderer, name)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    atomic_write_bytes(path, buffer.getvalue(), durable=False)
    return name, image.size


def _render_print(renderer: FaceRenderer, name: str, print_path: str, size: tuple[int, int] | None) -> str:
    """Render ``name`` (at ``size``, when given) into its print copy ``print_path``."""
    _write_print(to_rgb(_draw(renderer, name, size)), print_path)
    return name


def _write_print(face: Image.Image, path: str) -> None:
    # A cache file: not fsynced (a lost one is drawn again by the next PDF).
    atomic_write_bytes(path, print_bytes(face), durable=False)


def _cell_image(face: Image.Image, task: _SheetTask) -> tuple[Image.Image, bool]:
    # Exactly what tools.sheets.render_sheet does to a face, so a sheet is the same bytes either way.
    if shape_differs(face.size, task.size):
        return fit_face(face, task.cell, FIT), True
    if face.size != task.cell:
        return face.resize(task.cell, Image.Resampling.LANCZOS, reducing_gap=3.0), False
    return face, False


def _back_cell(renderer: FaceRenderer, task: _SheetTask) -> Image.Image:
    """The deck's back as it lies in the sheet's last cell: drawn at the cell's size (by a renderer that draws at
    any size; else scaled) once per cell size in a process (a deck's full sheets share theirs), and kept in the
    cell cache for the next build."""
    kept = (task.back, task.cell)
    found = _backs.get(kept)
    if found is not None:
        return found
    found = _read_cell(task.back_cell, task.cell) if task.use_cache else None
    if found is None and task.back_name:
        # TTS stretches a back over the card, so the back fills the cell whatever its own shape.
        found = to_rgb(_draw(renderer, task.back_name, task.cell))
        _write_cell(found, task.back_cell)
    elif found is None:
        with Image.open(task.back) as image:
            back = to_rgb(image.copy() if image.mode == "RGB" else image)
            back.load()
        found = back if back.size == task.cell else back.resize(task.cell, Image.Resampling.LANCZOS,
                                                                 reducing_gap=3.0)
        _write_cell(found, task.back_cell)
    if len(_backs) > 4:
        _backs.clear()   # a few decks' backs at a time: sheets come deck by deck
    _backs[kept] = found
    return found


def _read_png(path: str) -> Image.Image | None:
    """A cached image as RGB, or None when it is missing or unreadable (the cache then draws it again)."""
    try:
        with Image.open(path) as cached:
            cached.load()
            return to_rgb(cached) if cached.mode != "RGB" else cached.copy()
    except (OSError, ValueError):
        return None


CELL_SUFFIX = ".cell"
"""The cell cache's files: ``_CELL_MAGIC``, width and height (4 bytes each, big-endian), then the RGB pixels
compressed with zlib at level 1. Half the time of a PNG both ways and no bigger (a PNG's row filters buy
little on a card face): a cold build writes one per card, a rebuild after an edit reads a sheet's worth."""
_CELL_MAGIC = b"ttsmod-cell-1\n"


def _write_cell(cell: Image.Image, path: str) -> None:
    cell = to_rgb(cell)   # what reading a PNG cell back gave
    header = _CELL_MAGIC + cell.width.to_bytes(4, "big") + cell.height.to_bytes(4, "big")
    atomic_write_bytes(path, header + zlib.compress(cell.tobytes(), 1), durable=False)


def _read_cell(path: str, size: tuple[int, int]) -> Image.Image | None:
    """A cached cell of ``size``, or None when it is missing, damaged or of another size (it is made again)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    start = len(_CELL_MAGIC) + 8
    if (not data.startswith(_CELL_MAGIC) or int.from_bytes(data[start - 8:start - 4], "big") != size[0]
            or int.from_bytes(data[start - 4:start], "big") != size[1]):
        return None
    try:
        pixels = zlib.decompress(data[start:])
    except zlib.error:
        return None
    if len(pixels) != size[0] * size[1] * 3:
        return None
    return Image.frombytes("RGB", size, pixels)


def _pack_sheet(renderer: FaceRenderer, task: _SheetTask) -> _SheetOutcome:
    """Draw (or take from the cell cache) the faces of one sheet, paste them with the back in the last cell,
    encode the sheet and write it into the sheets folder."""
    cw, ch = task.cell
    sheet = Image.new("RGB", (task.columns * cw, task.rows * ch), LETTERBOX)
    fitted: list[tuple[int, tuple[int, int]]] = []
    sizes: dict[str, tuple[int, int]] = {}
    heights: dict[str, int] = {}
    rendered = 0
    # key → where its cell lies on this sheet, drawn by it (images of one key are one drawing): a second cell of
    # the key is copied from the sheet, so each drawing is freed once pasted and the next one reuses its memory
    drawn: dict[str, tuple[int, int, int, int]] = {}
    for slot, (name, key, cell_file, whole_file, own_size) in enumerate(task.faces):
        at = ((slot % task.columns) * cw, (slot // task.columns) * ch)
        if task.use_cache and task.cache_cells:
            cell = _read_cell(cell_file, task.cell)
        else:
            box = drawn.get(key)
            cell = sheet.crop(box) if box is not None else None
        if cell is None and own_size is not None:
            # Drawn at the cell's size from its layout: sharp text and lines, no resampling. A face of another
            # shape than the deck's is drawn whole inside the cell, on white bars.
            reshaped = shape_differs(own_size, task.size)
            target = _contained(own_size, task.cell) if reshaped else task.cell
            with measure_text() as record:
                face = to_rgb(_draw(renderer, name, target))
            rendered += 1
            heights[os.path.basename(cell_file).removesuffix(CELL_SUFFIX)] = body_text_height(
                record, tuple(renderer.body_boxes(name))) or 0   # type: ignore[attr-defined]
            sizes[key] = own_size
            cell = face if target == task.cell else _letterboxed(face, task.cell)
            drawn[key] = (*at, at[0] + cw, at[1] + ch)
            if reshaped:
                fitted.append((slot, own_size))
        elif cell is None:
            face = _read_png(whole_file) if whole_file else None
            if face is None:
                face = to_rgb(_draw(renderer, name))
                rendered += 1
            sizes[key] = face.size
            cell, reshaped = _cell_image(face, task)
            if reshaped:
                fitted.append((slot, face.size))
            _write_cell(cell, cell_file)
        sheet.paste(cell, at)
        cell = face = None   # (freed before the next face is drawn)
    last = task.columns * task.rows - 1
    sheet.paste(_back_cell(renderer, task), ((last % task.columns) * cw, (last // task.columns) * ch))
    data = encode(sheet, task.fmt, task.quality)
    file = hashed_name(f"{task.deck}-{task.number + 1}", data, task.fmt)
    atomic_write_bytes(Path(task.sheets_dir) / file, data)
    return _SheetOutcome(file, tuple(fitted), sizes, rendered, heights)


def _deck_back(renderer: FaceRenderer, plan: DeckPlan, layout: "_DeckLayout", keys: Mapping[str, str],
               whole: "_CacheFiles", cells_dir: Path, sized: bool) -> Image.Image:
    """The deck's back image (its ``BackURL``): for a renderer that draws at any size, the back as drawn in the
    deck's largest cell (TTS shows the back image on every card, so it should be as sharp as the faces), taken
    from the cell cache a sheet task just wrote or drawn here; else the back drawn whole."""
    if sized and renderer.design_size(plan.back) is not None:   # type: ignore[attr-defined]
        number = max(range(len(layout.cells)), key=lambda n: layout.cells[n][0] * layout.cells[n][1])
        cell = layout.cells[number]
        found = _read_cell(str(cells_dir / f"{layout.back_cell_id(keys[plan.back], number)}{CELL_SUFFIX}"), cell)
        return found if found is not None else to_rgb(_draw(renderer, plan.back, cell, []))
    with Image.open(whole[plan.back]) as back:
        back.load()
        return to_rgb(back)


def _contained(size: tuple[int, int], cell: tuple[int, int]) -> tuple[int, int]:
    """The largest size of ``size``'s shape inside ``cell`` (what :func:`tools.sheets.fit_face` scales a face to)."""
    scale = min(cell[0] / size[0], cell[1] / size[1])
    return min(cell[0], max(1, round(size[0] * scale))), min(cell[1], max(1, round(size[1] * scale)))


def _letterboxed(face: Image.Image, cell: tuple[int, int]) -> Image.Image:
    canvas = Image.new("RGB", cell, LETTERBOX)
    canvas.paste(face, ((cell[0] - face.width) // 2, (cell[1] - face.height) // 2))
    return canvas


def _work_whole(name: str, path: str):
    assert _worker is not None, "the pool initializer sets the renderer"
    return _render_whole(_worker, name, path)


def _work_print(name: str, print_path: str, size: tuple[int, int] | None):
    assert _worker is not None, "the pool initializer sets the renderer"
    return _render_print(_worker, name, print_path, size)


def _work_sheet(task: _SheetTask):
    assert _worker is not None, "the pool initializer sets the renderer"
    return _pack_sheet(_worker, task)


class _Workers:
    """Runs the drawing in this process (``jobs`` 1, or one thing to do) or in a process pool started on first
    need; a :class:`DataError` of a drawing stops the run with the first failing image in item order."""

    def __init__(self, renderer: FaceRenderer, jobs: int | None) -> None:
        self.renderer = renderer
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None

    def __enter__(self) -> "_Workers":
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def _run(self, calls: list[tuple[Callable, tuple, Callable, tuple]], order: list[str]):
        """``calls``: (pool function, its args, in-process function, its args). Yields results in completion
        order; raises the first :class:`DataError` in ``order`` once every call has finished."""
        if not calls:
            return   # no pool for nothing (a rebuild after an edit usually draws no whole image)
        failures: list[tuple[int, tuple]] = []
        rank = {name: i for i, name in enumerate(order)}
        if self.jobs == 1 or len(calls) == 1:
            for _, _, local, args in calls:
                try:
                    yield local(self.renderer, *args)
                except _RenderFailed as exc:
                    failures.append((rank.get(exc.name, len(rank)), exc.fields))
            if failures:
                raise DataError(*min(failures)[1])
            return
        if self.pool is None:
            self.pool = concurrent.futures.ProcessPoolExecutor(max_workers=self.jobs, initializer=_init_worker,
                                                               initargs=(self.renderer,))
        futures = [self.pool.submit(remote, *args) for remote, args, _, _ in calls]
        for future in concurrent.futures.as_completed(futures):
            try:
                yield future.result()
            except _RenderFailed as exc:
                failures.append((rank.get(exc.name, len(rank)), exc.fields))
        if failures:
            raise DataError(*min(failures)[1])

    def render_whole(self, todo: list[str], whole: Mapping[str, Path], tracker: _Progress, order: list[str]):
        calls = []
        for n in todo:
            args = (n, whole.text(n))
            calls.append((_work_whole, args, _render_whole, args))
        for name, size in self._run(calls, order):
            tracker.advance(1)
            yield name, size

    def render_print(self, todo: list[str], printed: Mapping[str, Path], sizes: Mapping[str, tuple[int, int] | None],
                     tracker: _Progress, order: list[str]):
        calls = [(_work_print, (n, str(printed[n]), sizes[n]), _render_print, (n, str(printed[n]), sizes[n]))
                 for n in todo]
        for name in self._run(calls, order):
            tracker.advance(1)
            yield name

    def pack_sheets(self, tasks: list[_SheetTask], tracker: _Progress, order: list[str]):
        # Advanced as each sheet is done (a big deck's sheets are most of a cold build's time); a failure is
        # raised once every sheet has finished, as _run promises.
        for task, outcome in self._run([(_work_sheet_tagged, (t,), _pack_sheet_tagged, (t,)) for t in tasks], order):
            tracker.advance(outcome.rendered)
            yield task, outcome


def _pack_sheet_tagged(renderer: FaceRenderer, task: _SheetTask):
    return task, _pack_sheet(renderer, task)


def _work_sheet_tagged(task: _SheetTask):
    return task, _work_sheet(task)


# -- writing and forgetting files ------------------------------------------------------------------------

def _write_once(known: dict, key: str, out_dir: Path, stem: str, source: Path, fmt: str, quality: int,
                written: list[str], transform: Callable[[Image.Image], Image.Image] | None = None) -> Path:
    file = known.get(key)
    if file is not None and (out_dir / file).is_file():
        return out_dir / file
    with Image.open(source) as image:
        image.load()
        image = transform(image) if transform else image
        # An image drawn with see-through pixels (a token's cut-out shape) is written as a PNG that keeps them,
        # whatever the build's format: a JPEG would give the token a white square around it.
        if image.mode == "RGBA" and image.getchannel("A").getextrema()[0] < 255:
            path = write_image(image, out_dir, stem, fmt="png", keep_alpha=True)
        else:
            path = write_image(image, out_dir, stem, fmt=fmt, quality=quality)
    known[key] = path.name
    written.append(path.name)
    return path


def _read_manifest(path: Path) -> dict:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _empty_manifest()
    if (not isinstance(manifest, dict) or not isinstance(manifest.get("sheets"), dict)
            or not isinstance(manifest.get("images"), dict)):
        return _empty_manifest()
    # Measured text heights (a cell's by its cell id) and legible scales (a deck's by its first face's key, or by
    # its name once raised, with its faces' digest): a wrong one only changes a report or a deck's grid (the sheet
    # keys then differ, nothing is mixed); kept only when whole.
    found = manifest.get("heights")
    manifest["heights"] = {k: v for k, v in found.items() if isinstance(v, int) and not isinstance(v, bool)
                           and 0 <= v <= 4096} if isinstance(found, dict) else {}
    found = manifest.get("scales")
    manifest["scales"] = {k: v for k, v in found.items() if isinstance(v, float) and 0 <= v <= 4096
                          } if isinstance(found, dict) else {}
    found = manifest.get("raised")
    manifest["raised"] = {k: v for k, v in found.items() if isinstance(v, list) and len(v) == 2
                          and isinstance(v[0], str) and isinstance(v[1], float) and 0 < v[1] <= 4096
                          } if isinstance(found, dict) else {}
    # Sizes are a cache too: an entry that is not two positive integers is dropped (the image is measured again;
    # a deck's size only sets the progress count's expectation).
    for table in ("sizes", "decks"):
        sizes = manifest.get(table)
        manifest[table] = {k: v for k, v in sizes.items()
                           if isinstance(v, list) and len(v) == 2
                           and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in v)
                           } if isinstance(sizes, dict) else {}
    return manifest


def _forget_files(folder: Path, stale: Callable[[str], bool]) -> None:
    """Delete the files of ``folder`` whose name ``stale`` says is no longer used."""
    # Names from os.scandir, not Path objects from glob: a 10,000-card game's caches hold tens of thousands of
    # files, and only the few stale ones are worth an object.
    try:
        entries = os.scandir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    with entries:
        for entry in entries:
            if stale(entry.name) and entry.is_file():
                os.unlink(entry.path)


def _forget_unused(folder: Path, pattern: str, used: set[str]) -> None:
    """Delete the files ``*<suffix>`` (``pattern``) of ``folder`` whose name without suffix is not in ``used``."""
    suffix = pattern.removeprefix("*")
    _forget_files(folder, lambda name: name.endswith(suffix) and name[:-len(suffix)] not in used)


def _forget_prints(folder: Path, used_keys: set[str]) -> None:
    """Delete the print copies (``<key>.jpg``, ``<key>-<w>x<h>.jpg``) of ``folder`` whose key is not current."""
    _forget_files(folder, lambda name: name.endswith(".jpg") and name[:-4].split("-", 1)[0] not in used_keys)


def _forget_stale(previous: dict, manifest: dict, used_files: set[str], sheets_dir: Path, faces_dir: Path,
                  used_keys: set[str], prune: bool = True) -> tuple[str, ...]:
    """Drop manifest entries and files this pipeline wrote before that the current run does not use.

    Returns the stale file names of ``sheets_dir``; they are deleted only when ``prune`` is true.
    """
    stale: set[str] = set()
    known = [*previous.get("stale", [])]
    for table in ("sheets", "images"):
        known += [*previous[table].values(), *manifest[table].values()]
        manifest[table] = {k: v for k, v in manifest[table].items() if v in used_files}
    for old in known:
        if isinstance(old, str) and old not in used_files and (sheets_dir / old).is_file():
            stale.add(old)
            if prune:
                (sheets_dir / old).unlink()
    # Unpruned files stay listed, so a later run still knows they are this pipeline's to delete.
    manifest["stale"] = [] if prune else sorted(stale)
    _forget_unused(faces_dir, "*.png", used_keys)
    return tuple(sorted(stale))
