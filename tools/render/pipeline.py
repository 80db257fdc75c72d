"""The render pipeline every game's renderer runs through: per-image cache and manifest, parallel rendering,
sheet packing, single images, the thumbnail and the clean-up of files an earlier run wrote.

A game's renderer (a :class:`FaceRenderer`) only names its images, keys them and draws one at a time;
:func:`render_art` does the rest into ``out_dir``:

- each image has a key, the hash of everything that affects its pixels (the renderer computes it); rendered
  images are cached as ``out_dir/.cache/faces/<key>.png`` and only missing keys are rendered, in parallel over
  ``jobs`` processes (all cores by default; 1 renders in-process; the renderer is pickled into each worker);
- decks (:class:`DeckPlan`) are packed into TTS sheets with :func:`tools.sheets.pack_faces`; a sheet is
  re-packed only when one of its faces' keys changed (``.cache/manifest.json``);
- single images (boards, tokens) and the thumbnail are written once per key, under content-hashed names;
- files this pipeline wrote before and no longer uses are deleted, or with ``prune=False`` left in place and
  listed in :attr:`Art.stale` for the caller to delete once its own output is written.

A :class:`bridge.errors.DataError` raised while drawing an image stops the run (with several processes, the
first failing image in item order is reported, whatever finished first).
"""

from __future__ import annotations

import concurrent.futures
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

from PIL import Image

from bridge.errors import DataError, InputError
from bridge.fsio import atomic_write_bytes, atomic_write_text
from tools.defaults import IMAGE_FORMATS
from tools.sheets import PackedDeck, SheetCache, pack_faces, write_image

THUMBNAIL = "thumbnail"
"""The image name every :class:`Art` holds: the save's preview in TTS's load menu (a PNG)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: images rendered so far out of those to render this run."""


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


class FaceRenderer(Protocol):
    """A game's drawing of its images, one at a time; it writes nothing and must be picklable."""

    def items(self) -> list[tuple[str, str]]:
        """Every image as ``(name, layout kind)``, in a stable order."""

    def key(self, name: str, kind: str) -> str:
        """The cache key of image ``name``: a hash of everything that affects its pixels."""

    def render(self, name: str) -> Image.Image:
        """The RGB image called ``name``; bad data raises :class:`DataError`."""


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
    manifest_path = cache_dir / "manifest.json"
    previous = _read_manifest(manifest_path)
    manifest = previous if use_cache else {"sheets": {}, "images": {}}

    items = renderer.items()
    keys = {name: renderer.key(name, kind) for name, kind in items}
    face = {name: faces_dir / f"{key}.png" for name, key in keys.items()}
    todo = [name for name, _ in items if not (use_cache and face[name].is_file())]
    _render_all(renderer, todo, face, jobs, progress)

    written: list[str] = []
    packed: dict[str, PackedDeck] = {}
    for plan in decks:
        if not plan.faces:
            continue
        cache = SheetCache([keys[n] for n in plan.faces], keys[plan.back], manifest["sheets"])
        packed[plan.name] = pack_faces([face[n] for n in plan.faces], sheets_dir, plan.name, back=face[plan.back],
                                       fmt=fmt, quality=quality, cache=cache)
        written.extend(cache.written)

    images: dict[str, Path] = {}
    for name in singles:
        images[name] = _write_once(manifest["images"], f"{keys[name]}|{fmt}|{quality}", sheets_dir,
                                   name.replace(":", "-").lower(), face[name], fmt, quality, written)
    images[THUMBNAIL] = _write_once(manifest["images"], f"{keys[thumbnail.source]}|thumbnail", sheets_dir,
                                    THUMBNAIL, face[thumbnail.source], "png", quality, written,
                                    transform=thumbnail.transform)

    used_files = {p.name for d in packed.values() for p in [d.back_path, *(s.path for s in d.sheets)]}
    used_files |= {p.name for p in images.values()}
    stale = _forget_stale(previous, manifest, used_files, sheets_dir, faces_dir, set(keys.values()), prune)
    atomic_write_text(manifest_path, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return Art(packed, images, len(todo), tuple(written), stale)


# -- rendering, in this process or in a pool -------------------------------------------------------------

_worker: FaceRenderer | None = None


def _init_worker(renderer: FaceRenderer) -> None:
    global _worker
    _worker = renderer


def _render_to(renderer: FaceRenderer, name: str, path: Path) -> tuple | None:
    """Render ``name`` into the PNG ``path``; a :class:`DataError` comes back as its fields (picklable)."""
    try:
        image = renderer.render(name)
    except DataError as exc:
        return (exc.file, exc.entry, exc.field, exc.message)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    atomic_write_bytes(path, buffer.getvalue())
    return None


def _work(name: str, path: str) -> tuple | None:
    assert _worker is not None, "the pool initializer sets the renderer"
    return _render_to(_worker, name, Path(path))


def _render_all(renderer: FaceRenderer, todo: list[str], face: Mapping[str, Path], jobs: int | None,
                progress: Progress | None) -> None:
    total = len(todo)
    if progress is not None:
        progress(0, total)
    if not todo:
        return
    workers = max(1, min(jobs or os.cpu_count() or 1, total))
    errors: list[tuple] = []
    if workers == 1:
        for done, name in enumerate(todo, 1):
            error = _render_to(renderer, name, face[name])
            if error:
                raise DataError(*error)
            if progress is not None:
                progress(done, total)
        return
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                                                initargs=(renderer,)) as pool:
        futures = {pool.submit(_work, name, str(face[name])): name for name in todo}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            error = future.result()
            if error:
                errors.append((todo.index(futures[future]), error))
            if progress is not None:
                progress(done, total)
    if errors:
        raise DataError(*min(errors)[1])  # the first failing image in item order, whatever finished first


# -- writing and forgetting files ------------------------------------------------------------------------

def _write_once(known: dict, key: str, out_dir: Path, stem: str, source: Path, fmt: str, quality: int,
                written: list[str], transform: Callable[[Image.Image], Image.Image] | None = None) -> Path:
    file = known.get(key)
    if file is not None and (out_dir / file).is_file():
        return out_dir / file
    with Image.open(source) as image:
        image.load()
        image = transform(image) if transform else image
        path = write_image(image, out_dir, stem, fmt=fmt, quality=quality)
    known[key] = path.name
    written.append(path.name)
    return path


def _read_manifest(path: Path) -> dict:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"sheets": {}, "images": {}}
    if (not isinstance(manifest, dict) or not isinstance(manifest.get("sheets"), dict)
            or not isinstance(manifest.get("images"), dict)):
        return {"sheets": {}, "images": {}}
    return manifest


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
    if faces_dir.is_dir():
        for cached in faces_dir.glob("*.png"):
            if cached.stem not in used_keys:
                cached.unlink()
    return tuple(sorted(stale))
