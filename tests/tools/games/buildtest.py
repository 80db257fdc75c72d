"""What the tests of every game's build share: a copy of a shipped game folder to build (tests that edit or break
its data work on it), the one build of it a test module makes, and what every built save must pass alike."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from click.testing import CliRunner

from bridge.paths import assets_dir
from tools.build import BuildResult, build
from tools.check import check_file
from tools.cli import cli


def game_copy(tmp: Path, folder_name: str) -> Path:
    """A copy of ``assets/<folder_name>/`` under ``tmp``."""
    folder = tmp / folder_name
    shutil.copytree(assets_dir() / folder_name, folder)
    return folder


def build_copy(tmp_path_factory, folder_name: str, jobs: int = 2) -> tuple[BuildResult, Path]:
    """A copy of the game folder, built: (the build's result, the folder). Its own, to edit or break; built
    from a copy of the run's one cold build of such a copy (each test process of the run would draw every image
    again otherwise), so the build it makes draws nothing and lays, encodes and checks the table anew — the bytes
    of a cold build, as every build's (``assert_rebuild_identical`` checks it against one with nothing cached)."""
    from tests.sharedbuild import _made_once, _run_lock

    tmp = tmp_path_factory.mktemp(folder_name)
    folder = game_copy(tmp, folder_name)
    out = tmp / "out"
    with _run_lock(tmp_path_factory, f"build-copy-{folder_name}") as seed:
        _made_once(seed, lambda into: build(game_copy(into, folder_name), into / "out", jobs=jobs))
        shutil.copytree(seed / "out", out, ignore=shutil.ignore_patterns("*.lock"))
    return build(folder, out, jobs=jobs), folder


def build_cli(folder: Path, out: Path):
    """``ttsmod build FOLDER --out OUT`` through the CLI (its exit code and output)."""
    return CliRunner().invoke(cli, ["build", str(folder), "--out", str(out), "--jobs", "1"])


def assert_checks_clean(result: BuildResult) -> None:
    """``ttsmod check`` finds no error and no warning in the built save, as a library call and as a command."""
    report = check_file(result.save_path)
    assert [str(f) for f in report.findings if f.severity in ("error", "warning")] == []
    cli_result = CliRunner().invoke(cli, ["check", str(result.save_path)])
    assert cli_result.exit_code == 0, cli_result.output


def assert_rebuild_identical(result: BuildResult, folder: Path) -> None:
    """Building the folder again (nothing cached) writes the same bytes, says nothing changed, keeps the sheets."""
    again = build(folder, result.save_path.parent, jobs=1, use_cache=False)
    assert again.save_path.read_bytes() == result.save_path.read_bytes()
    assert not again.save_changed
    assert all(sheet.exists() for sheet in result.sheets)


def assert_body_text_legible(result: BuildResult) -> None:
    """Every deck's body text stands at least 24 px high (cap to baseline) on its sheets, as the build measured it
    on each face it drew at its cell's size, and the build's report says so."""
    from tools.render.pipeline import BODY_TEXT_TARGET

    assert result.decks
    for deck in result.decks:
        assert deck["text_height"] is not None and deck["text_height"] >= BODY_TEXT_TARGET, deck


def built_art(result: BuildResult, folder: Path):
    """What the build ``result`` of ``folder`` drew, read back from its caches (nothing is drawn again)."""
    from bridge.catalog import load
    from tools.build import JPEG_QUALITY
    from tools.games.builder import builder_of

    loaded = load(str(folder))
    art = builder_of(loaded.meta, loaded.folder).render(
        loaded.data, result.save_path.parent, lang="en", fmt="jpg", quality=JPEG_QUALITY, use_cache=True, jobs=1,
        progress=None, game_dir=loaded.folder, prune=False)
    assert art.rendered == 0   # the build's own sheets
    return loaded, art


def assert_back_images_are_drawn_at_their_cells_size(result: BuildResult, folder: Path) -> None:
    """Each deck's back image (the ``BackURL`` TTS shows on every card's back) is as large as the deck's largest
    cell and is the picture that lies in its sheets' last cell: drawn at that size, not at its design size."""
    from PIL import Image

    _, art = built_art(result, folder)
    for name, deck in art.decks.items():
        sheet = max(deck.sheets, key=lambda s: s.cell_width * s.cell_height)
        with Image.open(deck.back_path) as back, Image.open(sheet.path) as image:
            assert back.size == (sheet.cell_width, sheet.cell_height), name
            last = sheet.columns * sheet.rows - 1
            x, y = (last % sheet.columns) * sheet.cell_width, (last // sheet.columns) * sheet.cell_height
            in_sheet = image.convert("RGB").crop((x, y, x + sheet.cell_width, y + sheet.cell_height))
            assert mean_difference(back.convert("RGB"), in_sheet) < 3, name


def cells_and_print_faces(result: BuildResult, folder: Path):
    """Per deck of the build ``result`` of ``folder``, its first face as its sheet shows it (the cell cropped from
    the sheet) and as ``ttsmod pnp`` prints it (drawn at 300 dpi at the deck's printed size), brought to the
    cell's size: ``(deck name, cell, print face)``."""
    from PIL import Image

    from tools.pnp import deck_sizes, print_pixels
    from tools.render.layout import load_layouts
    from tools.render.pipeline import print_faces

    loaded, art = built_art(result, folder)
    out = result.save_path.parent
    layouts = load_layouts(loaded.folder / "layouts.toml", fonts_dir=assets_dir() / "fonts")
    for name, deck in art.decks.items():
        face = art.faces[name][0]
        sheet = deck.sheets[0]
        with Image.open(sheet.path) as image:
            cell = image.convert("RGB").crop((0, 0, sheet.cell_width, sheet.cell_height))
        size = print_pixels(deck_sizes(layouts, deck.face_size, name))
        path = print_faces(art.renderer, out, [face], sizes={face: size}, jobs=1)[face]
        with Image.open(path) as printed:
            yield name, cell, printed.convert("RGB").resize(cell.size, Image.Resampling.LANCZOS)


def assert_cells_agree_with_print_faces(result: BuildResult, folder: Path) -> None:
    """Each deck's first face as its sheet shows it and as ``pnp`` prints it are the same picture: the same layout
    drawn at two sizes differs only where an edge's pixels fall (a little blur takes that away)."""
    from PIL import ImageFilter

    for name, cell, printed in cells_and_print_faces(result, folder):
        soft = [image.filter(ImageFilter.GaussianBlur(2)) for image in (cell, printed)]
        assert mean_difference(*soft) < 5 and mean_difference(cell, printed) < 10, name


def mean_difference(a, b) -> float:
    """The mean absolute difference of two RGB images' pixels, over the three channels (0..255)."""
    from PIL import ImageChops, ImageStat

    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def rebuild_with_table(built: tuple[BuildResult, Path], tmp: Path, edit: Callable[[str], str], **options) -> dict:
    """The save of a copy of a built game folder whose ``table.toml`` is ``edit(text)``, built into a copy of
    the first build's folder (its cache and sheets: only the table is laid again). ``options`` go to the build
    (a test's ``render``)."""
    result, folder = built
    copy = tmp / folder.name
    shutil.copytree(folder, copy)
    table = copy / "table.toml"
    edited = edit(table.read_text(encoding="utf-8"))
    table.write_text(edited, encoding="utf-8")
    out = tmp / "out"
    shutil.copytree(result.save_path.parent, out, ignore=shutil.ignore_patterns("*.lock"))
    return build(copy, out, jobs=1, **options).save


def placements(save: dict) -> dict[str, tuple[float, float, float]]:
    """GUID → (posX, posZ, rotY) of every object of ``save``, contained ones too."""
    found: dict[str, tuple[float, float, float]] = {}

    def walk(objects: list[dict]) -> None:
        for obj in objects:
            t = obj["Transform"]
            found[obj["GUID"]] = (t["posX"], t["posZ"], t["rotY"])
            walk(obj.get("ContainedObjects", []))

    walk(save["ObjectStates"])
    return found


def assert_only_these_moved(before: dict, after: dict, moved: Callable[[dict], bool],
                            by: tuple[float, float]) -> list[dict]:
    """Every top-level object of ``after`` for which ``moved(obj)`` holds lies ``by`` (x, z) from where it lay
    in ``before`` (the cards of a deck with it), and no other object moved; gives the moved objects."""
    old, new = placements(before), placements(after)
    assert old.keys() == new.keys()
    shifted = [o for o in after["ObjectStates"] if moved(o)]
    assert shifted
    for obj in shifted:
        for guid in placements({"ObjectStates": [obj]}):
            x, z, rot = old.pop(guid)
            now = new.pop(guid)
            assert now == (round(x + by[0], 4), round(z + by[1], 4), rot), (obj["Nickname"], (x, z, rot), now)
    assert old == new
    return shifted
