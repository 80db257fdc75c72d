"""``ttsmod build``: game data + Lua mod → a TTS save, its thumbnail and its image sheets.

``build(game)`` writes, in ``out`` (default ``build/<game id>/`` under the current folder):

- ``sheets/`` — card sheets, boards and tokens from :func:`tools.render.four_humours.render_game` (content-hashed
  names; the render cache lives in ``.cache/``);
- ``<Game>.png`` — the thumbnail TTS shows in its load menu;
- ``<Game>.json`` — the save (:mod:`tools.tables.four_humours` lays the table).  Its image URLs are
  ``file:///`` paths (this computer only) or ``<asset_base_url>/<file name>`` for hosted play
  (``ttsmod publish`` uploads the files to the same place).

Order and atomicity: the Lua bundle is made first (a missing ``mod/<game>/global.lua``, a missing module or a
computed require fails before anything is written), then the art, then the table in memory.  The save is
linted with :mod:`tools.check` before it is written — an error or warning is a bug and fails the
build.  The thumbnail and then the save are written last, each atomically, so an error at any earlier step
leaves the previous save and thumbnail as they were (the renderer only adds new, content-hashed sheet files
until it finishes).  Unchanged outputs are not rewritten.  The same inputs give byte-identical files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from bridge.luabundle import Bundle, bundle
from tools.check import CheckReport, check_data
from bridge.errors import InputError, TtsmodError
from tools.folderlock import folder_lock
from bridge.fsio import atomic_write_bytes
from bridge.paths import mod_dir
from tools.save import dumps
from tools.sheets import file_url

LANGS = ("en", "uk", "ru")
FORMATS = ("jpg", "png")
MODES = ("kingdom", "fief")
JPEG_QUALITY = 90


class BuildError(TtsmodError):
    """The build produced a save that does not check clean (a ttsmod bug): exit status 1."""

    exit_code = 1


@dataclass(frozen=True)
class BuildResult:
    save_path: Path
    thumbnail_path: Path
    sheets: tuple[Path, ...]  # every image file the save references
    changed_sheets: tuple[Path, ...]  # the image files (re)written by this build
    save: dict[str, Any]  # the save as JSON data
    local_urls: bool = True  # image URLs are file:/// (no --asset-base-url)
    save_changed: bool = True  # the save file's bytes differ from the previous build's
    check: CheckReport | None = None


def output_stem(name: str) -> str:
    """``"Four Humours"`` → ``"FourHumours"``: the file name of the save and thumbnail."""
    words = re.split(r"[^0-9A-Za-z]+", name)
    stem = "".join(w[:1].upper() + w[1:] for w in words if w)
    return stem or "Game"


def default_out_dir(game_id: str) -> Path:
    return Path("build") / game_id


def mod_game_dir(game_id: str) -> Path:
    """``mod/<game id with _>/``: where a game's Lua (``global.lua``, ``ui.xml``) lives."""
    return mod_dir() / game_id.replace("-", "_")


def hosted_url(base_url: str, path: Path) -> str:
    from tools.publish import url_for

    return url_for(base_url, Path(path).name)


def _load(game):
    from bridge.catalog import load_game, resolve_game_dir

    return load_game(game), resolve_game_dir(game)


def global_bundle(data, mode: str) -> tuple[Bundle, str]:
    """The Global script bundle (root ``mod/<game>/global.lua`` + ``generated.game``) and the Global XmlUI."""
    from tools.tables.four_humours import generated_game_module

    folder = mod_game_dir(data.info.id)
    root = folder / "global.lua"
    if not root.is_file():
        raise InputError(f"{root}: the game's Global script is missing; the build never writes an empty "
                         "Global script")
    result = bundle(root, [mod_dir()], {"generated.game": generated_game_module(data, mode)})
    ui = folder / "ui.xml"
    xml = ui.read_text(encoding="utf-8").replace("\r\n", "\n") if ui.is_file() else ""
    return result, xml


def bundle_scripts(game, *, mode: str = "kingdom") -> dict[str, dict[str, str]]:
    """The scripts of an already-built game for ``ttsmod push``: ``{"-1": {"LuaScript": ..., "XmlUI": ...}}``.

    Keys are the GUIDs the External Editor API uses; ``"-1"`` is Global (the only scripted object today).
    """
    data, _ = _load(game)
    _check_mode(data, mode)
    result, xml = global_bundle(data, mode)
    return {"-1": {"LuaScript": result.text, "XmlUI": xml}}


def _check_mode(data, mode: str) -> None:
    if mode not in MODES or mode not in data.info.modes:
        raise InputError(f'mode must be one of {", ".join(data.info.modes)}, not "{mode}"')


def _write_if_changed(path: Path, raw: bytes) -> bool:
    try:
        if path.read_bytes() == raw:
            return False
    except OSError:
        pass
    atomic_write_bytes(path, raw)
    return True


def build(game, out: Path | None = None, *, lang: str = "en", asset_base_url: str | None = None,
          fmt: str = "jpg", use_cache: bool = True, jobs: int | None = None, mode: str = "kingdom",
          progress: Callable[[int, int], None] | None = None, render=None,
          max_pixels: int | None = None) -> BuildResult:
    """Build ``game`` (a built-in id or a game folder) into ``out``; see the module docstring.

    ``progress(done, total)`` reports rendering.  ``render`` replaces the renderer (tests); by default it is
    :func:`tools.render.four_humours.render_game`.  ``max_pixels`` caps the art's width × height (default
    :data:`tools.imageio.DEFAULT_MAX_PIXELS`).  One build at a time writes a folder: a second one raises
    :class:`tools.folderlock.FolderBusyError` ("another build is writing this folder") at once.  Errors: :class:`bridge.errors.DataError` (bad data),
    :class:`InputError` (bad option, missing Global script), :class:`bridge.luabundle.BundleError`.
    """
    if lang not in LANGS:
        raise InputError(f'--lang must be one of {", ".join(LANGS)}, not "{lang}"')
    if fmt not in FORMATS:
        raise InputError(f'--format must be jpg or png, not "{fmt}"')
    if asset_base_url is not None and not re.match(r"^https?://[^/\s]+", asset_base_url):
        raise InputError(f'--asset-base-url must be an http(s) URL, not "{asset_base_url}"')
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be at least 1, not {jobs}")
    if max_pixels is not None and max_pixels < 1:
        raise InputError(f"--max-pixels must be at least 1, not {max_pixels}")
    data, game_dir = _load(game)
    _check_mode(data, mode)
    out_dir = Path(out) if out is not None else default_out_dir(data.info.id)

    script, xml = global_bundle(data, mode)

    with folder_lock(out_dir, what="build"):
        return _render_and_write(data, game_dir, out_dir, script, xml, lang=lang, asset_base_url=asset_base_url,
                                 fmt=fmt, use_cache=use_cache, jobs=jobs, mode=mode, progress=progress,
                                 render=render, max_pixels=max_pixels)


def _render_and_write(data, game_dir: Path, out_dir: Path, script: Bundle, xml: str, *, lang: str,
                      asset_base_url: str | None, fmt: str, use_cache: bool, jobs: int | None, mode: str,
                      progress, render, max_pixels: int | None) -> BuildResult:
    """The part of :func:`build` that writes ``out_dir``: run only while holding its folder lock."""
    if render is None:
        from functools import partial

        from tools.render.four_humours import render_game

        # Stale images are deleted only once the new save is written: a failure in between must leave the
        # previous build whole, images included.
        render = partial(render_game, prune=False, max_pixels=max_pixels)
    art = render(data, out_dir, lang=lang, fmt=fmt, quality=JPEG_QUALITY, use_cache=use_cache, jobs=jobs,
                 progress=progress, game_dir=game_dir)

    from tools.tables.four_humours import compose_table, load_slot_layouts

    if asset_base_url is None:
        url_for = file_url
    else:
        def url_for(path: Path) -> str:
            return hosted_url(asset_base_url, path)

    save = compose_table(data, art, mode=mode, url_for=url_for, lang=lang,
                         slot_layouts=load_slot_layouts(game_dir), lua_script=script.text, xml_ui=xml)
    save_data = save.to_json()
    report = check_data(save_data, source="build")
    problems = [f for f in report.findings if f.severity in ("error", "warning")]
    if problems:
        raise BuildError(f"the built save does not check clean: {problems[0]}")
    raw = dumps(save_data).encode("utf-8")

    stem = output_stem(data.info.name.en)
    save_path = out_dir / f"{stem}.json"
    thumbnail_path = out_dir / f"{stem}.png"
    _write_if_changed(thumbnail_path, Path(art.images["thumbnail"]).read_bytes())
    changed = _write_if_changed(save_path, raw)

    sheets_dir = out_dir / "sheets"
    used = {p for d in art.decks.values() for p in (d.back_path, *(s.path for s in d.sheets))}
    used |= {Path(p) for k, p in art.images.items() if k != "thumbnail"}
    for name in getattr(art, "stale", ()):
        if sheets_dir / name not in used:
            (sheets_dir / name).unlink(missing_ok=True)
    changed_sheets = tuple(sorted(sheets_dir / name for name in art.repacked))
    return BuildResult(save_path, thumbnail_path, tuple(sorted(used)), changed_sheets, save_data,
                       local_urls=asset_base_url is None, save_changed=changed, check=report)
