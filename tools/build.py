"""``ttsmod build``: game data + Lua mod → a TTS save, its thumbnail and its image sheets, for any game.

The pipeline names no game.  :func:`bridge.catalog.load` finds the game (a built-in id or a game folder), imports
its engine and parses its data; :func:`tools.games.builder.builder_of` imports its builder (``[game] builder`` of
its ``game.toml``), which renders the art, composes the table and writes the mod's ``generated.game`` module.
``build(game)`` writes, in ``out`` (default ``build/<game id>/`` under the current folder):

- ``sheets/`` — card sheets, boards and tokens (content-hashed names; the render cache lives in ``.cache/``);
- ``<Game>.png`` — the thumbnail TTS shows in its load menu;
- ``preview.png`` — the table drawn from above (:mod:`tools.preview`, from the sheets at hand), drawn again
  only when what it shows of the save or the drawing code changed (:func:`write_preview`);
- ``<Game>.json`` — the save.  Its image URLs are ``file:///`` paths (this computer only) or
  ``<asset_base_url>/<file name>`` for hosted play (``ttsmod publish`` uploads the files to the same place).

Options come from the game's metadata: ``mode`` is one of ``[game] modes`` (default the first), ``lang`` one of
``[game] languages``.  The Global script bundles ``mod/<[game] mod>/global.lua`` with two generated modules:
``generated.game`` (the builder's) and ``generated.ttsmod`` (:func:`ttsmod_module`: ttsmod's version, the bridge
envelope version, the game id and the mode).

Order and atomicity: the Lua bundle is made first (a missing ``global.lua``, a missing module or a computed
require fails before anything is written), then the art, then the table in memory.  The save is linted with
:mod:`tools.check` before it is written — an error or warning is a bug and fails the build.  The thumbnail, the
preview and then the save are written last, each atomically, so an error at any earlier step leaves the previous
save and thumbnail as they were (the renderer only adds new, content-hashed sheet files until it finishes).
Unchanged outputs are not rewritten.  The same inputs give byte-identical files, so a build whose inputs and
outputs are as the last one left them (:mod:`tools.buildstamp`) returns at once without reading or writing anything.
"""

from __future__ import annotations

import gc
import hashlib
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

from bridge import ENVELOPE_VERSION, __version__
from bridge.catalog import LoadedGame, TomlCache, load, resolve_game
from bridge.errors import InputError, TtsmodError
from bridge.fsio import atomic_write_bytes
from bridge.luaproject.bundle import Bundle, LexMemo, bundle, lua_string
from bridge.luaproject.xmlinclude import INCLUDE_TAG
from bridge.paths import mod_dir
from bridge.rules.game import GameMeta
from tools import buildstamp
from tools.buildstamp import default_out_dir
from tools.check import CheckReport, CleanObjects, ImageProbes, check_data
from tools.entrykeys import EntryKeys
from tools.folderlock import folder_lock
from tools.games.builder import GameBuilder, builder_of
from tools.render.pipeline import IMAGE_FORMATS, THUMBNAIL
from tools.save.save import ObjectTexts, encode
from tools.sheets import file_urls

FORMATS = IMAGE_FORMATS
JPEG_QUALITY = 90
OBJECT_TEXTS = ".cache/save-objects.bin"
"""The save's object texts kept for the next build (:class:`tools.save.save.ObjectTexts`), in the output folder."""
IMAGE_PROBES = ".cache/image-probes.json"
"""What the build's check found in the image files, kept for the next build (:class:`tools.check.ImageProbes`)."""
PREVIEW = "preview.png"
"""The table drawn from above (:mod:`tools.preview`), beside the save."""
PREVIEW_KEY = ".cache/preview-key.json"
"""What the preview was last drawn from and the hash of what was written (:func:`write_preview`)."""
CLEAN_OBJECTS = ".cache/check-clean.bin"
"""The objects of the save whose own checks found nothing, kept for the next build's check
(:class:`tools.check.CleanObjects`)."""
LUA_LEX = ".cache/lua-lex.json"
"""What lexing the Lua found (each source's requires, the bundle unbundling), kept for the next build
(:class:`bridge.luaproject.bundle.LexMemo`)."""


def load_lex_memo(path: Path) -> LexMemo:
    """The :class:`LexMemo` kept in ``path``; an empty one when it is missing or unreadable (a cache)."""
    try:
        return LexMemo.from_bytes(Path(path).read_bytes())
    except OSError:
        return LexMemo()


def save_lex_memo(memo: LexMemo, path: Path) -> None:
    """Keep ``memo`` in ``path`` when it changed (a cache: not synced, a failure to write is ignored)."""
    if memo.changed:
        try:
            atomic_write_bytes(path, memo.to_bytes(), durable=False)
        except OSError:
            pass


class BuildError(TtsmodError):
    """The build produced a save that does not check clean (a ttsmod bug): exit status 1."""

    exit_code = 1


@dataclass(frozen=True)
class BuildResult:
    save_path: Path
    thumbnail_path: Path
    sheets: tuple[Path, ...]  # every image file the save references
    changed_sheets: tuple[Path, ...]  # the image files of ``sheets`` (re)written by this build
    save_data: dict[str, Any]  # the save as the build made it (kept objects as their texts: use ``save``)
    local_urls: bool = True  # image URLs are file:/// (no --asset-base-url)
    save_changed: bool = True  # the save file's bytes differ from the previous build's
    check: CheckReport | None = None
    decks: tuple[dict[str, Any], ...] = ()  # each deck's sheets, cell size and body text height (deck_report)
    preview_path: Path | None = None   # the table drawn from above (PREVIEW)
    preview_written: bool = False      # this build drew it anew and its bytes changed

    @property
    def save(self) -> dict[str, Any]:
        """The save as JSON data (every object as its values: :func:`tools.save.save.plain`, done when first
        asked for; the ``ttsmod build`` command never asks)."""
        from tools.save.save import plain

        return plain(self.save_data)


def deck_report(art) -> tuple[dict[str, Any], ...]:
    """Per deck of ``art`` (a :class:`tools.render.pipeline.Art`), in its order: ``name``, ``sheets`` (how many),
    ``cell`` (``[width, height]`` of its smallest cell: its full sheets'), ``text_height`` (its body text's
    smallest cap-to-baseline height on the sheets in pixels, or None when the renderer does not measure it)."""
    report = []
    for name, deck in art.decks.items():
        cell = min(((s.cell_width, s.cell_height) for s in deck.sheets), key=lambda c: c[0] * c[1])
        report.append({"name": name, "sheets": len(deck.sheets), "cell": list(cell),
                       "text_height": deck.text_height})
    return tuple(report)


_PAUSES = 0
"""Builds of this process now running with the cyclic garbage collector paused (:func:`collector_paused`)."""


@contextmanager
def collector_paused():
    """Run the block with Python's cyclic garbage collector off (reference counting still frees everything
    else), and turn it back on after, if it was on before. A process forked meanwhile (a render worker) gets
    the collector back: it lives long and draws thousands of images."""
    global _PAUSES
    was_enabled = gc.isenabled() or _PAUSES > 0
    _PAUSES += 1
    gc.disable()
    try:
        yield
    finally:
        _PAUSES -= 1
        if was_enabled and _PAUSES == 0:
            gc.enable()


def _collector_back_in_child() -> None:
    global _PAUSES
    if _PAUSES:
        _PAUSES = 0
        gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_collector_back_in_child)


def output_stem(name: str) -> str:
    """``"Tea & Biscuits"`` → ``"TeaBiscuits"``: the file name of the save and thumbnail."""
    words = re.split(r"[^0-9A-Za-z]+", name)
    stem = "".join(w[:1].upper() + w[1:] for w in words if w)
    return stem or "Game"


def lua_search_path(game_dir: Path) -> list[Path]:
    """Where ``require`` looks for Lua modules: the game folder's own ``mod/`` (a game kept outside ttsmod
    carries its Lua with it), then ttsmod's ``mod/`` (``lib/`` and the built-in games)."""
    own = Path(game_dir) / "mod"
    return ([own] if own.is_dir() else []) + [mod_dir()]


def mod_game_dir(meta: GameMeta, game_dir: Path) -> Path:
    """``<mod>/`` of the first folder of :func:`lua_search_path` that has it: where a game's Lua (``global.lua``,
    ``ui.xml``) lives (ttsmod's ``mod/<[game] mod>/`` for a built-in game)."""
    for root in lua_search_path(game_dir):
        if (root / meta.mod).is_dir():
            return root / meta.mod
    return mod_dir() / meta.mod


def hosted_url(base_url: str, path: Path) -> str:
    from tools.publish import url_for

    return url_for(base_url, Path(path).name)


def ttsmod_module(meta: GameMeta, mode: str) -> str:
    """The Lua source of ``generated.ttsmod``, ttsmod's own facts for every game's mod: the package version (the
    mod's version: one source), the bridge's envelope version, the game id and the built mode."""
    # MOD_VERSION and MOD_GAME are globals on purpose: `ttsmod selftest` reads them through Execute Lua to know
    # which game runs (the bundle's modules are not reachable from there).
    return ("-- Generated by ttsmod build: ttsmod's own facts. Do not edit; rebuild instead.\n"
            f"MOD_VERSION = {lua_string(__version__)}\n"
            f"MOD_GAME = {lua_string(meta.id)}\n"
            f"return {{ version = {lua_string(__version__)}, protocol = {ENVELOPE_VERSION}, "
            f"game = {lua_string(meta.id)}, mode = {lua_string(mode)} }}\n")


TABLE_ONLY_SCRIPT = "table_only.lua"
"""The Global script (in ttsmod's ``mod/lib/``) of a game drawn from data that has no ``mod/<mod>/global.lua``."""


def global_bundle(game: LoadedGame, builder: GameBuilder, mode: str, *,
                  lex: LexMemo | None = None) -> tuple[Bundle, str]:
    """The Global script bundle (root ``<mod>/global.lua`` of :func:`mod_game_dir` + ``generated.game`` +
    ``generated.ttsmod``) and the Global XmlUI (``<mod>/ui.xml``, empty when absent). ``lex``: see
    :func:`bridge.luaproject.bundle.bundle`."""
    folder = mod_game_dir(game.meta, game.folder)
    root = folder / "global.lua"
    if not root.is_file() and game.meta.builder is None:
        # A game drawn from data alone, with no Lua of its own: ttsmod's Global script for a table without rules.
        root = mod_dir() / "lib" / TABLE_ONLY_SCRIPT
    if not root.is_file():
        raise InputError(f"{root}: the game's Global script is missing; the build never writes an empty "
                         "Global script")
    generated = {"generated.game": builder.mod_module(game.data, mode),
                 "generated.ttsmod": ttsmod_module(game.meta, mode)}
    result = bundle(root, lua_search_path(game.folder), generated, memo=lex)
    ui = folder / "ui.xml"
    xml = ui.read_text(encoding="utf-8").replace("\r\n", "\n") if ui.is_file() else ""
    if INCLUDE_TAG.search(xml):  # <Include src="…"/> as the editor plugins expand it: from <mod>/, then the Lua path
        from bridge.luaproject.scriptfolder import expand_includes

        xml = expand_includes(xml, [folder, *lua_search_path(game.folder)], str(ui)).replace("\r\n", "\n")
    return result, xml


def tag_scripts(game: LoadedGame, *, lex: LexMemo | None = None) -> dict[str, str]:
    """The ``[scripts]`` table of the game's ``game.toml``: tag → its Lua file (relative to the game's mod folder,
    :func:`mod_game_dir`) bundled with the modules it requires (as it is when it requires none). Every object of the save carrying the tag, at any
    depth (in bags and decks too: TTS runs the script when the object comes out), gets that script.
    :class:`InputError` for a table that is not tag = "file.lua" pairs; :class:`BundleError` for a file or
    module not found."""
    import tomllib

    path = game.folder / "game.toml"
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("scripts", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # the game's loader has read this file already; it reports a broken one
    where = f"{path}: [scripts]"
    if not isinstance(table, dict):
        raise InputError(f'{where} must be a table of tag = "file.lua" lines')
    folder = mod_game_dir(game.meta, game.folder)
    scripts: dict[str, str] = {}
    for tag, file in table.items():
        if not isinstance(file, str) or not file.endswith((".lua", ".ttslua")):
            raise InputError(f'{where}: {tag} must name a Lua file of {folder.name}/, like {tag} = "{tag}.lua"')
        parts = file.split("/")
        if any(part in ("", ".", "..") or "\\" in part for part in parts):
            raise InputError(f'{where}: {tag} = "{file}" is not a plain relative path inside {folder.name}/')
        result = bundle(folder.joinpath(*parts), lua_search_path(game.folder), memo=lex)
        # a script that requires nothing is given as it is, like push DIR sends it
        scripts[tag] = result.text if len(result.modules) > 1 else result.modules[0].source
    return scripts


def attach_tag_scripts(save: dict[str, Any], scripts: dict[str, str]) -> int:
    """Give every object of ``save`` (at any depth) that carries a tag of ``scripts`` that tag's script; returns
    how many objects got one. :class:`InputError` for an object that already has a script or carries two such
    tags (which script it should run is not for the build to guess)."""
    count = 0

    def visit(obj: dict[str, Any]) -> None:
        nonlocal count
        tags = [t for t in obj.get("Tags") or () if t in scripts]
        label = f"{obj.get('Nickname') or obj.get('Name')} ({obj.get('GUID')})"
        if len(tags) > 1:
            raise InputError(f"[scripts]: the object {label} has the tags {tags[0]} and {tags[1]}, each with a script")
        if tags:
            if obj.get("LuaScript"):
                raise InputError(f"[scripts]: the object {label} (tag {tags[0]}) already has a script from the "
                                 "game's builder")
            obj["LuaScript"] = scripts[tags[0]]
            count += 1
        for key in ("ContainedObjects", "ChildObjects"):
            for child in obj.get(key) or ():
                visit(child)
        for state in (obj.get("States") or {}).values():
            visit(state)

    if scripts:
        for obj in save.get("ObjectStates") or ():
            visit(obj)
    return count


def bundle_scripts(game, *, mode: str | None = None) -> dict[str, dict[str, str]]:
    """The Global scripts of an already-built game for ``ttsmod push``: ``{"-1": {"LuaScript": ..., "XmlUI":
    ...}}``. Keys are the GUIDs the External Editor API uses; ``"-1"`` is Global. ``mode`` defaults to the
    game's first mode. The scripts of tagged objects: :func:`push_scripts_of`."""
    return push_scripts_of(game, mode=mode)[0]


def push_scripts_of(game, *, mode: str | None = None) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """What ``ttsmod push GAME`` sends: the Global scripts (as :func:`bundle_scripts`) and the game's
    ``[scripts]`` table, tag → bundled script (:func:`tag_scripts`). The GUIDs of tagged objects are known only
    on the live table, so the caller looks them up there."""
    loaded = load(game)
    mode = check_mode(loaded.meta, mode)
    result, xml = global_bundle(loaded, builder_of(loaded.meta, loaded.folder), mode)
    return {"-1": {"LuaScript": result.text, "XmlUI": xml}}, tag_scripts(loaded)


def check_mode(meta: GameMeta, mode: str | None) -> str:
    """``mode``, or the game's default mode for ``None``; :class:`InputError` when the game has no such mode."""
    if mode is None:
        return meta.default_mode
    if mode not in meta.modes:
        raise InputError(f'--mode must be one of {", ".join(meta.modes)}, not "{mode}"')
    return mode


def check_lang(meta: GameMeta, lang: str) -> str:
    """``lang`` when the game has card texts in it; else :class:`InputError`."""
    if lang not in meta.languages:
        raise InputError(f'--lang must be one of {", ".join(meta.languages)}, not "{lang}"')
    return lang


def _write_if_changed(path: Path, raw: bytes) -> bool:
    try:
        # A file of another size has other bytes: no need to read a big game's save to know it changed.
        if path.stat().st_size == len(raw) and path.read_bytes() == raw:
            return False
    except OSError:
        pass
    atomic_write_bytes(path, raw)
    return True


def write_preview(save: dict[str, Any], images: dict[str, Path], out_dir: Path, *,
                  use_cache: bool = True) -> tuple[Path, bool]:
    """Draw ``save`` (``images``: each image URL of the save → its file) into ``out_dir/preview.png``; returns
    the path and whether its bytes changed. The drawing is skipped when :data:`PREVIEW_KEY` says the file holds
    the picture of the same visible part of the save (:func:`tools.preview.visible_part`: what a drawing reads) by
    the same ttsmod (its version and the drawing module's source) and the file is still as it was written: a
    rebuild that changed nothing the picture shows (an edited card inside a deck) draws nothing. Written atomically; the same save and images give the same bytes."""
    import json

    from tools import preview
    from tools.save.save import plain

    path = Path(out_dir) / PREVIEW
    key_path = Path(out_dir) / PREVIEW_KEY
    # what the drawing reads as plain values: an infinite bag's object, a deck it cannot place, if kept
    shown = plain(preview.visible_part(save))
    digest = hashlib.sha256(json.dumps(shown, ensure_ascii=False, separators=(",", ":")).encode())
    digest.update(b"\0" + __version__.encode() + b"\0" + Path(preview.__file__).read_bytes())
    digest.update(f"\0{preview.DEFAULT_SIZE}".encode())
    key = digest.hexdigest()
    if use_cache:
        try:
            kept = json.loads(key_path.read_text(encoding="utf-8"))
            if kept.get("key") == key and hashlib.sha256(path.read_bytes()).hexdigest() == kept.get("png"):
                return path, False
        except (OSError, ValueError, AttributeError):
            pass
    png = preview.draw(shown, preview.MappedImages(images)).png()
    written = _write_if_changed(path, png)
    try:   # a cache: one it cannot write only means drawing the preview again next time
        atomic_write_bytes(key_path, json.dumps({"key": key, "png": hashlib.sha256(png).hexdigest()}).encode(),
                           durable=False)
    except OSError:
        pass
    return path, written


def build(game, out: Path | None = None, *, lang: str = "en", asset_base_url: str | None = None,
          fmt: str = "jpg", use_cache: bool = True, jobs: int | None = None, mode: str | None = None,
          progress: Callable[[int, int], None] | None = None, render=None,
          max_pixels: int | None = None, stamp_checked: bool = False) -> BuildResult:
    """Build ``game`` (a built-in id or a game folder) into ``out``; see the module docstring.

    ``mode`` defaults to the game's first mode.  ``progress(done, total)`` reports rendering.  ``render``
    replaces the renderer (tests): called as ``render(data, out_dir, lang=, fmt=, quality=, use_cache=, jobs=,
    progress=, game_dir=)``, returning a :class:`tools.render.pipeline.Art`; by default it is the builder's
    ``render`` with ``prune=False``.  ``max_pixels`` caps the art's width × height (default
    :data:`tools.imageio.DEFAULT_MAX_PIXELS`).  One build at a time writes a folder: a second one raises
    :class:`tools.folderlock.FolderBusyError` ("another build is writing this folder") at once.
    ``stamp_checked``: the caller has just found the build stamp stale (``ttsmod build`` asks it before importing
    the builder), so it is not read again.  Errors:
    :class:`bridge.errors.DataError` (bad data, a builder module that cannot be imported), :class:`InputError`
    (bad option, a mode or language the game does not have, missing Global script),
    :class:`bridge.luaproject.bundle.BundleError`.
    """
    if fmt not in FORMATS:
        raise InputError(f'--format must be jpg or png, not "{fmt}"')
    if asset_base_url is not None and not re.match(r"^https?://[^/\s]+", asset_base_url):
        raise InputError(f'--asset-base-url must be an http(s) URL, not "{asset_base_url}"')
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be at least 1, not {jobs}")
    if max_pixels is not None and max_pixels < 1:
        raise InputError(f"--max-pixels must be at least 1, not {max_pixels}")
    options = buildstamp.build_options(lang=lang, mode=mode, fmt=fmt, asset_base_url=asset_base_url,
                                       max_pixels=max_pixels)
    stamped = (buildstamp.fresh_game_build(game, out, options)
               if use_cache and render is None and not stamp_checked else None)
    if stamped is not None:
        return _unchanged_result(stamped)
    # A big game's build holds millions of objects (records, the save's values) and makes few reference
    # cycles: the cyclic collector's full passes over them cost more than a third of a rebuild after one edit.
    with collector_paused():
        found = resolve_game(game)
        out_dir = Path(out) if out is not None else default_out_dir(found.meta.id, found.folder)
        # The inputs' sizes and times before anything is read: the caches keyed by entry are written only when
        # they are the same once the save is written (tools.entrykeys).
        stats = buildstamp.input_stats(found.folder, out_dir) if use_cache or render is None else None
        # The data files' parsed entries are kept beside the render cache: a rebuild after editing one card of a
        # long list parses that card's entry only (bridge.catalog.read_toml).
        data_cache = TomlCache(out_dir / ".cache") if use_cache else None
        loaded = load(game, cache=data_cache)
        check_lang(loaded.meta, lang)
        mode = check_mode(loaded.meta, mode)
        builder = builder_of(loaded.meta, loaded.folder)
        # (a game with no list long enough to be read entry by entry has nothing to key by entry)
        takes_entries = use_cache and getattr(builder, "takes_entries", False) and bool(loaded.entries)
        stamp_inputs = (buildstamp.fingerprint_inputs(loaded.folder, out_dir, stats)
                        if stats is not None and (render is None or takes_entries) else None)
        entries = (EntryKeys.of_build(loaded.folder, out_dir, options, loaded.entries, stamp_inputs, stats)
                   if takes_entries and stamp_inputs is not None else None)

        # What lexing the Lua found last time: the same sources are not lexed again (a cache, like the others).
        lex = load_lex_memo(out_dir / LUA_LEX) if use_cache else LexMemo()
        script, xml = global_bundle(loaded, builder, mode, lex=lex)
        object_scripts = tag_scripts(loaded, lex=lex)

        render_given = render
        if render is None:
            # Stale images are deleted only once the new save is written: a failure in between must leave the
            # previous build whole, images included.
            render = partial(builder.render, prune=False, max_pixels=max_pixels,
                             **({"entries": entries} if takes_entries else {}))
        with folder_lock(out_dir, what="build"):
            result = _render_and_write(loaded, builder, out_dir, script, xml, object_scripts, lex, lang=lang,
                                       asset_base_url=asset_base_url,
                                       fmt=fmt, use_cache=use_cache, jobs=jobs, mode=mode, progress=progress,
                                       render=render, entries=entries if takes_entries else False)
            if data_cache is not None:
                data_cache.save()   # only now: a build that fails leaves no new file
            if entries is not None:
                entries.save()
            if stamp_inputs is not None and render_given is None:
                buildstamp.record(out_dir, buildstamp.stamp_key(loaded.folder, out_dir, options), stamp_inputs, result)
            return result


def _unchanged_result(stamped: buildstamp.StampedBuild) -> BuildResult:
    """The result of a build the stamp found already done: nothing written, the save read back."""
    import json

    return BuildResult(stamped.save_path, stamped.thumbnail_path, stamped.sheets, (),
                       json.loads(stamped.save_path.read_text(encoding="utf-8")), local_urls=stamped.local_urls,
                       save_changed=False, decks=stamped.decks, preview_path=stamped.preview_path)


def _render_and_write(game: LoadedGame, builder: GameBuilder, out_dir: Path, script: Bundle, xml: str,
                      object_scripts: dict[str, str], lex: LexMemo, *,
                      lang: str, asset_base_url: str | None, fmt: str, use_cache: bool, jobs: int | None,
                      mode: str, progress, render, entries: EntryKeys | None | bool = False) -> BuildResult:
    """The part of :func:`build` that writes ``out_dir``: run only while holding its folder lock."""
    art = render(game.data, out_dir, lang=lang, fmt=fmt, quality=JPEG_QUALITY, use_cache=use_cache, jobs=jobs,
                 progress=progress, game_dir=game.folder)

    if asset_base_url is None:
        url_for = file_urls()
    else:
        def url_for(path: Path) -> str:
            return hosted_url(asset_base_url, path)

    # ``entries``: False for a builder that takes none (tools.games.builder.GameBuilder.takes_entries)
    given = {} if entries is False else {"entries": entries}
    save = builder.compose(game.data, art, mode=mode, lang=lang, url_for=url_for, game_dir=game.folder,
                           lua_script=script.text, xml_ui=xml, **given)
    # The texts of the objects of the previous save, by what each object is: a rebuild after an edit encodes only
    # the objects that changed (a cache: a missing or damaged file only means encoding them all), and an object
    # inside another whose text is kept is not even made again (tools.save.save.KeptObject). They come with the
    # URLs below each object, which the check would otherwise find by walking every value of the save.
    texts_path = out_dir / OBJECT_TEXTS
    known = ObjectTexts.load(texts_path) if use_cache else ObjectTexts()
    # an object's script from [scripts] is attached to its values once they are made: none are kept then
    save_data = save.to_json(known=None if object_scripts else known)
    attach_tag_scripts(save_data, object_scripts)
    raw = encode(save_data, known=known)
    probes_path = out_dir / IMAGE_PROBES
    probes = ImageProbes.load(probes_path) if use_cache else ImageProbes()
    clean_path = out_dir / CLEAN_OBJECTS
    clean = CleanObjects.load(clean_path) if use_cache else CleanObjects()
    report = check_data(save_data, source="build", memo=known, probes=probes, lex=lex, clean=clean)
    problems = [f for f in report.findings if f.severity in ("error", "warning")]
    if problems:
        raise BuildError(f"the built save does not check clean: {problems[0]}")

    stem = output_stem(game.meta.name.en)
    save_path = out_dir / f"{stem}.json"
    thumbnail_path = out_dir / f"{stem}.png"
    sheets_dir = out_dir / "sheets"
    used = {p for d in art.decks.values() for p in (d.back_path, *(s.path for s in d.sheets))}
    used |= {Path(p) for k, p in art.images.items() if k != THUMBNAIL}
    _write_if_changed(thumbnail_path, Path(art.images[THUMBNAIL]).read_bytes())
    # drawn from the files the save's URLs name, hosted or not: the sheets are at hand
    preview_path, preview_written = write_preview(save_data, {url_for(p): p for p in sorted(used)}, out_dir,
                                                  use_cache=use_cache)
    changed = _write_if_changed(save_path, raw)
    known.save(texts_path)   # a cache: one it cannot write only means encoding every object next time
    probes.save(probes_path)
    clean.save(clean_path)
    save_lex_memo(lex, out_dir / LUA_LEX)

    for name in art.stale:
        if sheets_dir / name not in used:
            (sheets_dir / name).unlink(missing_ok=True)
    # Only what the save uses: sheets/ also holds the renderer's copy of the thumbnail (the source of <Game>.png,
    # kept so an unchanged one is not drawn again), which no URL of the save names and publish never uploads.
    changed_sheets = tuple(sorted(path for path in (sheets_dir / name for name in art.repacked) if path in used))
    return BuildResult(save_path, thumbnail_path, tuple(sorted(used)), changed_sheets, save_data,
                       local_urls=asset_base_url is None, save_changed=changed, check=report,
                       decks=deck_report(art), preview_path=preview_path, preview_written=preview_written)
