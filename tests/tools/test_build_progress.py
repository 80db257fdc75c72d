"""The count a build reports while it renders (``progress(done, total)``, the length of ``ttsmod build``'s
"rendering" bar: docs/building.md, "Incremental") is the number of images it draws, known before it draws the
first: after one card of a designer's copy is edited, the faces of the sheet it lies on (each drawn at its cell's
size, not cached) — also when that card is the first face of its deck, whose body text sets the deck's cells."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from bridge.catalog import builtin_games, resolve_game
from tools.build import build
from tools.data_export import export, sheets_table
from tools.games.builder import builder_of
from tools.render.pipeline import Art

GAMES = sorted(builtin_games())


def sheeted_copy(game: str, folder: Path) -> Path:
    """A designer's copy of ``game``'s folder whose card lists are read from the CSV files ``ttsmod data export``
    writes into its ``sheets/`` (named in ``[sheets]``), so a card is edited as a row."""
    shutil.copytree(builtin_games()[game], folder)
    written = export(str(folder), "csv", folder / "sheets")
    with open(folder / "game.toml", "a", encoding="utf-8") as handle:
        handle.write("\n" + sheets_table(written, "sheets/"))
    return folder


def cards_of(folder: Path, faces: list[str]) -> list[tuple[Path, int, int]]:
    """(sheet, row, column) of each card whose id one of ``faces`` names, and its first English text of more
    than one character (shortened by one, it still fits its box)."""
    found = []
    for path in sorted((folder / "sheets").glob("*.csv")):
        header, *rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
        if "id" not in header:
            continue
        for number, row in enumerate(rows, start=1):
            ident = row[header.index("id")]
            column = next((i for i, name in enumerate(header) if name.endswith(".en") and len(row[i]) > 1), None)
            if ident and column is not None and any(ident in face for face in faces):
                found.append((path, number, column))
    return found


def shorten(path: Path, number: int, column: int) -> None:
    rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    rows[number][column] = rows[number][column][:-1]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")


@pytest.mark.parametrize("game", GAMES)
def test_editing_the_first_card_of_a_deck_announces_and_draws_the_faces_of_its_sheet(game, tmp_path):
    folder = sheeted_copy(game, tmp_path / "game")
    found = resolve_game(folder)
    builder = builder_of(found.meta, found.folder)
    arts: list[Art] = []

    def render(data, out_dir, **options) -> Art:
        arts.append(builder.render(data, out_dir, prune=False, **options))
        return arts[-1]

    out = tmp_path / "out"
    build(str(folder), out, jobs=2, render=render)
    firsts = {faces[0]: deck for deck, faces in arts[-1].faces.items() if len(faces) > 1}
    # Cards whose edit changes more than one image (a character on each of its cards) are tried too: every build
    # announces exactly what it draws; the edit of a deck's first face alone must announce and draw its sheet.
    # One row of a list is tried: its other rows are edits of the same kind (each a second of drawing).
    tried: set[Path] = set()
    for path, number, column in cards_of(folder, sorted(firsts)):
        if path in tried:
            continue
        tried.add(path)
        before = arts[-1].renderer
        shorten(path, number, column)
        calls: list[tuple[int, int]] = []
        build(str(folder), out, jobs=2, render=render, progress=lambda done, total: calls.append((done, total)))
        art = arts[-1]
        assert calls[0] == (0, art.rendered) and calls[-1] == (art.rendered, art.rendered), (path.name, number)
        changed = {name for name, kind in art.renderer.items()
                   if before.key(name, kind) != art.renderer.key(name, kind)}
        if len(changed) == 1 and changed <= set(firsts):
            deck = art.decks[firsts[changed.pop()]]
            faces = art.faces[deck.name]
            repacked = [number for number, sheet in enumerate(deck.sheets) if sheet.file in art.repacked]
            assert repacked == [0] and set(art.repacked) <= {sheet.file for sheet in deck.sheets}
            drawn = {art.renderer.key(faces[i], art.renderer.kind_of(faces[i]))
                     for i, (number, _) in enumerate(deck.placement) if number == 0}
            assert art.rendered == len(drawn) and {total for _, total in calls} == {len(drawn)}
            return
    pytest.fail(f"{game}: no card of its sheets is the first face of a deck and nothing else")
