"""The build stamp: whether a build's outputs are already those of its inputs, found without building.

A no-op rebuild is the common case (``ttsmod build`` in a watch loop or a script): it must cost a glance at the
files, not a parse, a render check, a Lua bundle, a compose and a lint. After every successful build,
:func:`record` writes ``<out>/.cache/build-stamp.json`` (beside the render cache) with

- the **key**: ttsmod's version, the game folder, the output folder and every option that changes an output;
- the **inputs**: every file the build can read — the game folder (data, art, its own Lua and Python, the
  spreadsheets its ``[sheets]`` names, even in a hidden folder), ttsmod's ``mod/`` (the shared Lua), the fonts,
  and ttsmod's own Python source (a changed renderer changes the images) — each with its size, modification
  time and SHA-256;
- the **outputs**: the save, the thumbnail, the preview and every image the save references, each with its size and
  modification time, and what the build reported.

:func:`fresh_build` answers the stamp's report when the key is the same, no input's content changed (a file whose
size and time are unchanged is taken as unchanged; any other is hashed again, so a touched but unchanged file
still counts as the same) and every output is still as the build left it. Anything else — an input added,
removed or edited, an output deleted or edited by hand, a stamp unreadable or from another version — means
"build". The stamp is a cache: deleting it (or the whole ``.cache/``) only costs one full build.

This module imports nothing heavy (no Pillow, no engine), so ``ttsmod build`` can answer a no-op at once.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from bridge import __version__
from bridge.fsio import atomic_write_bytes
from bridge.paths import assets_dir, mod_dir

STAMP_NAME = ".cache/build-stamp.json"
STAMP_FORMAT = 1
_SKIPPED_DIRS = {"__pycache__", "_bundled"}
_RACY_NS = 2_000_000_000
"""An input modified this close to its fingerprint is hashed again on every check: a same-size edit within the
file system's time granularity must not pass for unchanged (git's "racily clean" files)."""


@dataclass(frozen=True)
class StampedBuild:
    """What a build reported, read back from its stamp: the fields of :class:`tools.build.BuildResult` that a
    no-op rebuild can give without loading anything (``save_changed`` is false, nothing was written)."""

    save_path: Path
    thumbnail_path: Path
    sheets: tuple[Path, ...]
    local_urls: bool
    changed_sheets: tuple[Path, ...] = ()
    save_changed: bool = False
    decks: tuple[dict[str, Any], ...] = ()
    preview_path: Path | None = None
    preview_written: bool = False


def default_out_dir(game_id: str, folder: Path | None = None) -> Path:
    """Where a build writes when no ``--out`` is given, under the current folder: ``build/<game id>/`` for a
    built-in game, ``build/<folder name>/`` for a game ``folder`` of its own (a copy of a built-in game keeps its
    id, and must not replace the built-in game's save)."""
    if folder is not None:
        from bridge.catalog import builtin_games

        builtin = builtin_games().get(game_id)
        if builtin is None or Path(builtin).resolve() != Path(folder).resolve():
            return Path("build") / Path(folder).resolve().name
    return Path("build") / game_id


def build_options(*, lang: str, mode: str | None, fmt: str, asset_base_url: str | None,
                  max_pixels: int | None) -> dict[str, Any]:
    """The options of :func:`tools.build.build` that change what it writes (``jobs`` and progress do not)."""
    return {"lang": lang, "mode": mode, "format": fmt, "asset_base_url": asset_base_url, "max_pixels": max_pixels}


def fresh_game_build(game: Any, out: Path | None, options: Mapping[str, Any]) -> StampedBuild | None:
    """:func:`fresh_build` for GAME (a built-in id or a game folder) and ``--out`` (None: the default folder)."""
    from bridge.catalog import resolve_game

    found = resolve_game(game)
    out_dir = Path(out) if out is not None else default_out_dir(found.meta.id, found.folder)
    return fresh_build(found.folder, out_dir, options)


def stamp_key(game_dir: Path, out_dir: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """What must be equal for two builds to write the same files, besides the input files' contents."""
    return {"ttsmod": __version__, "game": str(Path(game_dir).resolve()), "out": str(Path(out_dir).resolve()),
            "options": dict(sorted(options.items()))}


def input_roots(game_dir: Path) -> list[tuple[Path, tuple[str, ...] | None]]:
    """The folders a build reads, each with the file suffixes that count (``None``: every file)."""
    import bridge
    import tools

    return [(Path(game_dir), None), (mod_dir(), None), (assets_dir() / "fonts", None),
            (Path(bridge.__file__).parent, (".py",)), (Path(tools.__file__).parent, (".py",))]


def sheet_files(game_dir: Path) -> frozenset[Path]:
    """The spreadsheets ``game_dir/game.toml`` names in its ``[sheets]`` table (``file`` of each list, resolved;
    those that would lie outside the folder left out, as the reader refuses them). Empty when there is no such
    table or ``game.toml`` cannot be read: the build reports a bad one."""
    import tomllib

    game_dir = Path(game_dir).resolve()
    try:
        with open(game_dir / "game.toml", "rb") as handle:
            table = tomllib.load(handle).get("sheets")
    except (OSError, ValueError):
        return frozenset()
    found = set()
    for spec in table.values() if isinstance(table, dict) else ():
        file = spec.get("file") if isinstance(spec, dict) else None
        if isinstance(file, str) and file.strip() and "\\" not in file:
            path = (game_dir / file).resolve()
            if path.is_relative_to(game_dir):
                found.add(path)
    return frozenset(found)


def _walk(root: Path, suffixes: tuple[str, ...] | None, skip: Path | None) -> Iterable[tuple[str, os.stat_result]]:
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            # hidden files and the lock files an editor or Office keeps beside an open file (~$cards.xlsx,
            # #autosave#) are no input: opening a workbook must not make the next build a full one
            if entry.name.startswith((".", "#", "~$")):
                continue
            if entry.is_dir(follow_symlinks=True):
                path = Path(entry.path)
                if entry.name not in _SKIPPED_DIRS and (skip is None or path.resolve() != skip):
                    stack.append(path)
            elif suffixes is None or entry.name.endswith(suffixes):
                yield str(Path(entry.path).resolve()), entry.stat()


def _sha256(path: str) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _stats(game_dir: Path, out_dir: Path) -> dict[str, tuple[int, int]]:
    skip = Path(out_dir).resolve()
    found: dict[str, tuple[int, int]] = {}
    for root, suffixes in input_roots(game_dir):
        for path, stat in _walk(Path(root), suffixes, skip):
            found[path] = (stat.st_size, stat.st_mtime_ns)
    # A spreadsheet of [sheets] is read wherever it lies in the game folder, a hidden folder included.
    for sheet in sorted(sheet_files(game_dir)):
        try:
            stat = os.stat(sheet)
        except OSError:
            continue
        found[str(sheet)] = (stat.st_size, stat.st_mtime_ns)
    return found


def input_stats(game_dir: Path, out_dir: Path) -> dict[str, tuple[int, int]]:
    """Every input file of a build of ``game_dir`` into ``out_dir`` → its size and modification time (ns)."""
    return _stats(game_dir, out_dir)


def fingerprint_inputs(game_dir: Path, out_dir: Path,
                       stats: Mapping[str, tuple[int, int]] | None = None) -> dict[str, list[Any]]:
    """Every input file → ``[size, mtime_ns, sha256]``, taken before a build starts reading them (an edit made
    while it runs then makes the stamp stale, never a stale build fresh). ``stats``: :func:`input_stats` just
    taken, to use instead of taking them again."""
    import time

    now = time.time_ns()
    return {path: [size, mtime if now - mtime > _RACY_NS else 0, _sha256(path)]
            for path, (size, mtime) in sorted((stats if stats is not None else _stats(game_dir, out_dir)).items())}


def _resolved(paths: Iterable[Path]) -> list[str]:
    """Each of ``paths`` with its folder resolved (symbolic links and ``..`` followed), as text: a build's
    outputs are a few folders' files, so each folder is resolved once, not each of thousands of sheets."""
    folders: dict[str, str] = {}
    found = []
    for path in paths:
        folder, name = os.path.split(os.fspath(path))
        real = folders.get(folder)
        if real is None:
            real = folders[folder] = os.path.realpath(folder or ".")
        found.append(os.path.join(real, name))
    return found


def _output_stats(paths: Iterable[Path]) -> dict[str, list[int]] | None:
    return _stats_of(_resolved(paths))


def _stats_of(resolved: Iterable[str]) -> dict[str, list[int]] | None:
    found: dict[str, list[int]] = {}
    for path in resolved:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        found[path] = [stat.st_size, stat.st_mtime_ns]
    return found


def record(out_dir: Path, key: Mapping[str, Any], inputs: Mapping[str, list[Any]], result: Any) -> None:
    """Write the stamp of a successful build (``result``: a :class:`tools.build.BuildResult`)."""
    out_dir = Path(out_dir)
    paths = [result.save_path, result.thumbnail_path, result.preview_path, *result.sheets]
    resolved = _resolved(paths)
    outputs = _stats_of(resolved)
    if outputs is None:   # an output vanished already: leave no stamp, the next build builds
        return
    root = os.path.join(os.path.realpath(out_dir), "")
    names = [p[len(root):] if p.startswith(root) else os.path.relpath(p, root) for p in resolved]
    stamp = {"stamp": STAMP_FORMAT, "key": dict(key), "inputs": dict(inputs), "outputs": outputs,
             "result": {"save": names[0], "thumbnail": names[1], "preview": names[2], "sheets": names[3:],
                        "local_urls": result.local_urls, "decks": list(getattr(result, "decks", ()))}}
    # a cache, written without fsync: a stamp lost to a power cut only costs a full build
    atomic_write_bytes(Path(out_dir) / STAMP_NAME, json.dumps(stamp, sort_keys=True).encode("utf-8"), durable=False)


def _read(out_dir: Path) -> dict[str, Any] | None:
    try:
        stamp = json.loads((Path(out_dir) / STAMP_NAME).read_bytes())
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) and stamp.get("stamp") == STAMP_FORMAT else None


def fresh_build(game_dir: Path, out_dir: Path, options: Mapping[str, Any]) -> StampedBuild | None:
    """The stamp's report when ``out_dir`` already holds the build of ``game_dir`` with ``options``; else None."""
    stamp = _read(out_dir)
    try:
        if stamp is None or stamp["key"] != stamp_key(game_dir, out_dir, options):
            return None
        recorded: dict[str, list[Any]] = stamp["inputs"]
        current = _stats(game_dir, out_dir)
        if current.keys() != recorded.keys():
            return None
        for path, (size, mtime) in current.items():
            old_size, old_mtime, old_sha = recorded[path]
            if (size, mtime) != (old_size, old_mtime) and (size != old_size or _sha256(path) != old_sha):
                return None
        report = stamp["result"]
        outputs = [Path(out_dir) / report["save"], Path(out_dir) / report["thumbnail"],
                   Path(out_dir) / report["preview"], *(Path(out_dir) / p for p in report["sheets"])]
        if _output_stats(outputs) != stamp["outputs"]:
            return None
        decks = report.get("decks", [])
        if not isinstance(decks, list) or not all(isinstance(d, dict) for d in decks):
            return None
        return StampedBuild(outputs[0], outputs[1], tuple(outputs[3:]), bool(report["local_urls"]),
                            decks=tuple(decks), preview_path=outputs[2])
    except (KeyError, TypeError, ValueError):
        return None
