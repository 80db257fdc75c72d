"""The shared render pipeline on a tiny game of its own: cache, manifest, parallel render, packing, clean-up."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from bridge.errors import DataError, InputError
from tools.render import text as text_module
from tools.render.pipeline import (BODY_TEXT_TARGET, DeckPlan, ThumbnailPlan, _read_cell, print_bytes, print_faces,
                                   render_art)
from tools.render.sizing import body_text_height, measure_text
from tools.sheets import pack_faces


@dataclass
class Tiles:
    """Plain coloured faces: ``colours`` maps image name → RGB; ``broken`` names images that raise."""

    colours: dict[str, tuple[int, int, int]]
    broken: tuple[str, ...] = ()
    drawn: list[str] = field(default_factory=list)  # in-process renders only

    def items(self) -> list[tuple[str, str]]:
        return [(name, "tile") for name in self.colours]

    def key(self, name: str, kind: str) -> str:
        return hashlib.sha256(repr((name, kind, self.colours[name])).encode()).hexdigest()

    def render(self, name: str) -> Image.Image:
        if name in self.broken:
            raise DataError("cards.toml", f'card "{name}"', "colour", "cannot be drawn")
        self.drawn.append(name)
        return Image.new("RGB", (40, 56), self.colours[name])


def tiles(**changed) -> Tiles:
    colours = {f"card:{i}": (20 * i, 100, 200 - 20 * i) for i in range(5)}
    colours |= {"back": (0, 0, 0), "board": (0, 120, 0)}
    colours |= changed
    return Tiles(colours)


def run(renderer: Tiles, out: Path, **options):
    names = [n for n, _ in renderer.items()]
    return render_art(renderer, out, decks=[DeckPlan("cards", tuple(n for n in names if n.startswith("card:")),
                                                     "back")],
                      singles=["board"], thumbnail=ThumbnailPlan("board", lambda im: im.resize((16, 16))),
                      **options)


def test_decks_singles_and_thumbnail_are_written(tmp_path):
    art = run(tiles(), tmp_path, jobs=1, fmt="png")
    deck = art.decks["cards"]
    assert len(deck.placement) == 5 and deck.back_path.is_file()
    assert set(art.images) == {"board", "thumbnail"}
    with Image.open(art.images["board"]) as board, Image.open(art.images["thumbnail"]) as thumb:
        assert board.getpixel((5, 5)) == (0, 120, 0) and thumb.size == (16, 16)
    assert art.rendered == 7 and set(art.repacked) == {p.name for p in (tmp_path / "sheets").iterdir()}


def test_an_unchanged_rerun_draws_and_writes_nothing_and_a_change_redraws_only_its_image(tmp_path):
    run(tiles(), tmp_path, jobs=1)
    again = tiles()
    art = run(again, tmp_path, jobs=1)
    assert (art.rendered, art.repacked, again.drawn) == (0, (), [])
    changed = tiles(**{"card:3": (255, 0, 0)})
    art = run(changed, tmp_path, jobs=1)
    assert changed.drawn == ["card:3"] and art.rendered == 1
    assert [name.split("-")[0] for name in art.repacked] == ["cards"]  # the sheet, not the back or the board
    assert art.stale and not any((tmp_path / "sheets" / name).exists() for name in art.stale)  # pruned


def test_without_pruning_old_files_stay_and_are_listed(tmp_path):
    first = run(tiles(), tmp_path, jobs=1)
    art = run(tiles(board=(9, 9, 9)), tmp_path, jobs=1, prune=False)
    old_board = first.images["board"]
    assert old_board.name in art.stale and old_board.is_file()
    assert run(tiles(board=(9, 9, 9)), tmp_path, jobs=1).stale == art.stale  # still known, now deleted
    assert not old_board.exists()


def test_parallel_and_serial_runs_write_the_same_bytes(tmp_path):
    serial = run(tiles(), tmp_path / "a", jobs=1)
    parallel = run(tiles(), tmp_path / "b", jobs=2)
    for a, b in [(serial.images["board"], parallel.images["board"]),
                 *zip([s.path for s in serial.decks["cards"].sheets], [s.path for s in parallel.decks["cards"].sheets])]:
        assert a.name == b.name and a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_first_broken_image_in_item_order_is_reported(tmp_path, jobs):
    renderer = tiles()
    renderer.broken = ("card:4", "card:1")
    with pytest.raises(DataError) as error:
        run(renderer, tmp_path, jobs=jobs)
    assert str(error.value) == 'cards.toml: card "card:1": colour: cannot be drawn'


def test_bad_format_and_quality_are_input_errors(tmp_path):
    with pytest.raises(InputError, match='image format must be jpg or png, not "gif"'):
        run(tiles(), tmp_path, fmt="gif")
    with pytest.raises(InputError, match="JPEG quality must be 1..100, not 0"):
        run(tiles(), tmp_path, quality=0)
    assert not (tmp_path / "sheets").exists()


def test_sheets_are_the_bytes_pack_faces_writes_for_the_same_faces(tmp_path):
    # The pipeline draws faces straight into their cells instead of through pack_faces, so the two must agree to
    # the byte: a face of the deck's shape is scaled to the cell, one of another shape is fitted, the back fills
    # the last cell.
    @dataclass
    class Mixed(Tiles):
        def render(self, name: str) -> Image.Image:
            size = (900, 600) if name == "card:2" else (1200, 1700) if name.startswith("card:") else (300, 420)
            return Image.new("RGB", size, self.colours[name])

    renderer = Mixed(tiles().colours)
    names = [f"card:{i}" for i in range(5)]
    for fmt in ("png", "jpg"):
        art = render_art(renderer, tmp_path / fmt, decks=[DeckPlan("cards", tuple(names), "back")], singles=["board"],
                         thumbnail=ThumbnailPlan("board", lambda im: im), fmt=fmt, jobs=1)
        packed = pack_faces([renderer.render(n) for n in names], tmp_path / f"direct-{fmt}", "cards",
                            back=renderer.render("back"), fmt=fmt)
        deck = art.decks["cards"]
        assert [s.path.read_bytes() for s in deck.sheets] == [s.path.read_bytes() for s in packed.sheets]
        assert deck.back_path.read_bytes() == packed.back_path.read_bytes()
        assert deck.fitted == packed.fitted and [f.index for f in deck.fitted] == [2]
        assert (deck.face_size, deck.placement) == (packed.face_size, packed.placement)


def test_a_big_deck_is_packed_sheet_by_sheet_and_one_change_repacks_one_sheet(tmp_path):
    colours = {f"card:{i}": (i % 256, (7 * i) % 256, 90) for i in range(150)} | {"back": (0, 0, 0), "board": (1, 2, 3)}
    renderer = Tiles(colours)
    first = run(renderer, tmp_path, jobs=2)
    assert len(first.decks["cards"].sheets) == 3 and first.rendered == 152
    changed = Tiles(colours | {"card:100": (255, 255, 255)})
    again = run(changed, tmp_path, jobs=1)
    assert changed.drawn == ["card:100"]
    assert again.repacked == (again.decks["cards"].sheets[1].file,)
    assert [s.file for i, s in enumerate(again.decks["cards"].sheets) if i != 1] == \
        [s.file for i, s in enumerate(first.decks["cards"].sheets) if i != 1]


def _snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``folder``: its modification time and bytes (only the bytes of the manifest, which every
    run rewrites)."""
    return {str(p.relative_to(folder)): (0 if p.name == "manifest.json" else p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


FACES = [f"card:{i}" for i in range(5)]


def _print_copies(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / ".cache" / "print").iterdir())}


@dataclass
class Drawn(Tiles):
    """Tiles drawn at any size asked (as the games' renderers are): designed 40 × 56 (the board 64 × 64), a border
    one twentieth of the width wide; ``sizes`` records each drawing's name and size (in-process renders only)."""

    sizes: list[tuple[str, tuple[int, int]]] = field(default_factory=list)

    def design_size(self, name: str) -> tuple[int, int]:
        return (64, 64) if name == "board" else (40, 56)

    def body_boxes(self, name: str) -> tuple[str, ...]:
        return ()

    def render(self, name: str, size: tuple[int, int] | None = None) -> Image.Image:
        size = tuple(size or self.design_size(name))
        self.drawn.append(name)
        self.sizes.append((name, size))
        image = Image.new("RGB", size, self.colours[name])
        ImageDraw.Draw(image).rectangle((0, 0, size[0] - 1, size[1] - 1), outline=(0, 0, 0),
                                        width=max(1, round(size[0] / 20)))
        return image


def drawn(**changed) -> Drawn:
    return Drawn(tiles(**changed).colours)


def test_a_build_writes_no_print_copy_and_print_faces_draws_each_face_once_then_nothing(tmp_path):
    run(tiles(), tmp_path, jobs=1)
    assert not (tmp_path / ".cache" / "print").exists()
    renderer = tiles()
    calls = []
    paths = print_faces(renderer, tmp_path, FACES + FACES[:2], jobs=1,
                        progress=lambda done, total: calls.append((done, total)))
    # the first face is cached whole (its size set the deck's cells): encoded from that, the other four drawn
    assert calls[0] == (0, 4) and calls[-1] == (4, 4) and sorted(renderer.drawn) == FACES[1:]
    assert list(paths) == FACES                          # each name once, in order
    for name, path in paths.items():
        assert path.parent == tmp_path / ".cache" / "print"
        assert path.read_bytes() == print_bytes(tiles().render(name))   # the face as drawn, not its sheet cell
    again, calls = tiles(), []
    assert print_faces(again, tmp_path, FACES, jobs=1, progress=lambda d, t: calls.append((d, t))) == paths
    assert again.drawn == [] and calls == [(0, 0)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_deck_faces_are_drawn_at_their_cell_size_and_print_faces_at_print_size_once(tmp_path, jobs):
    renderer = drawn()
    art = run(renderer, tmp_path, jobs=1)
    deck = art.decks["cards"]
    cell = (deck.sheets[0].cell_width, deck.sheets[0].cell_height)
    # each face drawn once, straight at its cell's size; the back at its cell's size and whole (the back image)
    assert sorted(n for n, size in renderer.sizes if size == cell and n.startswith("card:")) == FACES
    assert not (tmp_path / ".cache" / "print").exists()
    print_size = (400, 560)
    calls = []
    paths = print_faces(drawn(), tmp_path, FACES, sizes={n: print_size for n in FACES}, jobs=jobs,
                        progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 5) and calls[-1] == (5, 5)
    for name, path in paths.items():
        assert path.read_bytes() == print_bytes(drawn().render(name, print_size))   # drawn at print size
    # a second PDF draws nothing; another print size draws again, into files of their own
    again, calls = drawn(), []
    assert print_faces(again, tmp_path, FACES, sizes={n: print_size for n in FACES}, jobs=jobs,
                       progress=lambda d, t: calls.append((d, t))) == paths
    assert again.drawn == [] and calls == [(0, 0)]
    other = print_faces(drawn(), tmp_path, FACES[:1], sizes={FACES[0]: (200, 280)}, jobs=1)
    assert other[FACES[0]] != paths[FACES[0]] and paths[FACES[0]].is_file()


def test_an_edit_redraws_only_its_sheet_when_faces_are_drawn_at_their_cell_size(tmp_path):
    colours = {f"card:{i}": (i % 256, (7 * i) % 256, 90) for i in range(150)} | {"back": (0, 0, 0), "board": (1, 2, 3)}
    first = run(Drawn(colours), tmp_path, jobs=2)
    sheets = first.decks["cards"].sheets
    # the faces, then the board whole; the back is drawn in its sheet cells only (its BackURL image is the largest)
    assert len(sheets) == 3 and first.rendered == 150 + 1
    changed = Drawn(colours | {"card:100": (255, 255, 255)})
    again = run(changed, tmp_path, jobs=1)
    assert sorted(set(changed.drawn)) == sorted(f"card:{i}" for i in range(69, 138))   # the second sheet's faces
    assert again.repacked == (again.decks["cards"].sheets[1].file,)
    assert [s.file for i, s in enumerate(again.decks["cards"].sheets) if i != 1] == \
        [s.file for i, s in enumerate(sheets) if i != 1]


def test_a_build_deletes_the_print_copies_of_an_edited_face_and_no_others(tmp_path):
    run(drawn(), tmp_path, jobs=1)
    sizes = {n: (80, 112) for n in FACES}
    paths = print_faces(drawn(), tmp_path, FACES, sizes=sizes, jobs=1)
    edited = drawn(**{"card:2": (255, 0, 0)})
    art = run(edited, tmp_path, jobs=1)
    # its sheet is drawn again (a face drawn at its cell's size is not cached), the other sheets are not touched
    assert sorted(edited.drawn) == FACES and art.rendered == 5 and len(art.repacked) == 1
    assert not paths["card:2"].exists() and all(paths[n].is_file() for n in FACES if n != "card:2")
    again = drawn(**{"card:2": (255, 0, 0)})
    new = print_faces(again, tmp_path, FACES, sizes=sizes, jobs=1)
    assert again.drawn == ["card:2"] and new["card:2"] != paths["card:2"]


def test_a_damaged_or_missing_cell_is_made_again_and_the_repacked_sheet_is_the_same_bytes(tmp_path):
    colours = {f"card:{i}": (i * 9 % 256, (7 * i) % 256, 90) for i in range(12)} | {"back": (0, 0, 0),
                                                                                    "board": (1, 2, 3)}
    first = run(Tiles(colours), tmp_path, jobs=1)
    (sheet,) = first.decks["cards"].sheets
    built = sheet.path.read_bytes()
    every = sorted((tmp_path / ".cache" / "cells").iterdir())
    # each face as it lies in its cell, and the back as it lies in the last one (black: no face is)
    backs = [c for c in every if _read_cell(str(c), (40, 56)).getcolors() == [(40 * 56, (0, 0, 0))]]
    cells = [c for c in every if c not in backs]
    assert len(cells) == 12 and len(backs) == 1
    backs[0].write_bytes(b"not a cell")                              # the back is scaled again, the same
    cells[0].write_bytes(cells[0].read_bytes()[:-9])                 # cut short
    cells[1].write_bytes(b"not a cell")                              # another file
    raw = bytearray(cells[2].read_bytes())
    raw[-5] ^= 0xFF                                                  # a flipped byte in the compressed pixels
    cells[2].write_bytes(bytes(raw))
    cells[3].unlink()
    sheet.path.unlink()                                              # so the sheet is packed again
    renderer = Tiles(colours)
    again = run(renderer, tmp_path, jobs=1)
    assert again.decks["cards"].sheets[0].path.read_bytes() == built
    # the four faces whose cells were unusable are made again: drawn, or read from the whole image the first
    # face keeps (it sets the deck's cell size), and no other face is drawn
    assert 3 <= len(renderer.drawn) <= 4 and again.rendered == len(renderer.drawn)
    assert len(list((tmp_path / ".cache" / "cells").iterdir())) == 13


# -- the progress count: exactly the images drawn, announced before the first is drawn -----------------------

def _counted(renderer: Tiles, out: Path, **options) -> tuple[object, list[tuple[int, int]]]:
    calls: list[tuple[int, int]] = []
    art = run(renderer, out, progress=lambda done, total: calls.append((done, total)), **options)
    return art, calls


def test_the_count_moves_on_as_each_sheet_is_done_not_all_at_the_end(tmp_path):
    colours = {f"card:{i}": (i % 256, (7 * i) % 256, 90) for i in range(150)} | {"back": (0, 0, 0), "board": (1, 2, 3)}
    renderer = Drawn(colours)
    seen: list[tuple[int, int]] = []   # (the count reported, faces drawn by then)
    art = run(renderer, tmp_path, jobs=1,
              progress=lambda done, total: seen.append((done, sum(n.startswith("card:") for n in renderer.drawn))))
    assert len(art.decks["cards"].sheets) == 3
    # the board first, then the three sheets (69, 69 and 12 faces): each counted once it is done, before the
    # next one is drawn
    assert [(done, drawn) for done, drawn in seen if drawn] == [(1 + 69, 69), (1 + 138, 138), (151, 150)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_changed_first_face_is_announced_and_drawn_alone(tmp_path, jobs):
    # The first face sets the deck's cells, so it is drawn whole before the sheets: the other faces, unchanged,
    # come from their cells and are neither drawn nor counted (they were all announced, one drawn).
    run(tiles(), tmp_path, jobs=jobs)
    renderer = tiles(**{"card:0": (255, 0, 0)})
    art, calls = _counted(renderer, tmp_path, jobs=jobs)
    assert (art.rendered, calls[0], calls[-1]) == (1, (0, 1), (1, 1))
    assert renderer.drawn in ([], ["card:0"])   # in-process draws only (jobs 1 draws here)
    assert [name.split("-")[0] for name in art.repacked] == ["cards"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_cold_run_announces_each_image_it_draws_once(tmp_path, jobs):
    art, calls = _counted(tiles(), tmp_path, jobs=jobs)
    assert art.rendered == 7 and calls[0] == (0, 7) and calls[-1] == (7, 7)


@dataclass
class Resized(Tiles):
    """Tiles whose images have the sizes of ``sizes`` (name → size), else 40 × 56."""

    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)

    def key(self, name: str, kind: str) -> str:
        own = super().key(name, kind)
        return hashlib.sha256(repr((own, self.sizes[name])).encode()).hexdigest() if name in self.sizes else own

    def render(self, name: str) -> Image.Image:
        return super().render(name).resize(self.sizes.get(name, (40, 56)))


def test_a_first_face_drawn_at_another_size_counts_the_faces_its_new_cells_need(tmp_path):
    run(tiles(), tmp_path, jobs=1)
    # expected to keep the deck's size (one image to draw), it changes every cell: the count grows to the four
    # other faces once that is known, before any of them is drawn
    renderer = Resized(tiles().colours, sizes={"card:0": (80, 112)})
    art, calls = _counted(renderer, tmp_path, jobs=1)
    assert calls == [(0, 1), (1, 1), (1, 5), (5, 5)] and art.rendered == 5
    assert sorted(renderer.drawn) == FACES


@dataclass
class Shared(Tiles):
    """Tiles whose key is their colour alone: images of one colour are one image (drawn once)."""

    def key(self, name: str, kind: str) -> str:
        return hashlib.sha256(repr(self.colours[name]).encode()).hexdigest()


@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_face_in_several_decks_is_drawn_and_counted_once_whatever_the_jobs(tmp_path, jobs, use_cache):
    colours = {f"{deck}:{i}": (30 * i, 60, 90) for deck in ("red", "blue") for i in range(4)}
    renderer = Shared(colours | {"back": (0, 0, 0), "board": (1, 2, 3), "odd": (9, 9, 9)})
    calls: list[tuple[int, int]] = []
    art = render_art(renderer, tmp_path, decks=[DeckPlan("red", ("red:0", "red:1", "red:2", "red:3"), "back"),
                                                DeckPlan("blue", ("blue:1", "blue:2", "blue:3", "odd"), "back")],
                     singles=["board"], thumbnail=ThumbnailPlan("board", lambda im: im), jobs=jobs,
                     use_cache=use_cache, progress=lambda done, total: calls.append((done, total)))
    # four faces of one colour each, the odd one, the back and the board: seven images
    assert art.rendered == 7 and calls[0] == (0, 7) and calls[-1] == (7, 7)
    assert len(art.decks["blue"].placement) == 4


@dataclass
class SharedDrawn(Drawn):
    """Tiles drawn at any size whose key is their colour alone."""

    def key(self, name: str, kind: str) -> str:
        return hashlib.sha256(repr(self.colours[name]).encode()).hexdigest()


def test_faces_of_one_key_on_a_sheet_drawn_at_cell_size_are_one_drawing_in_each_of_their_cells(tmp_path):
    # cards 0 and 3 look the same (one key): drawn once, and both cells show that drawing
    colours = {f"card:{i}": (40 * i, 100, 90) for i in range(5)} | {"card:3": (0, 100, 90)}
    renderer = SharedDrawn(colours | {"back": (0, 0, 0), "board": (1, 2, 3)})
    art = run(renderer, tmp_path, jobs=1, fmt="png")
    assert sorted(n for n in renderer.drawn if n.startswith("card:")) == ["card:0", "card:1", "card:2", "card:4"]
    deck = art.decks["cards"]
    sheet = deck.sheets[0]
    cells = {}
    with Image.open(sheet.path) as image:
        for n, (number, index) in enumerate(deck.placement):
            assert number == 0
            column, row = index % sheet.columns, index // sheet.columns
            box = (column * sheet.cell_width, row * sheet.cell_height,
                   (column + 1) * sheet.cell_width, (row + 1) * sheet.cell_height)
            cells[n] = image.crop(box).tobytes()
    cell = (sheet.cell_width, sheet.cell_height)
    assert cells[0] == cells[3] == SharedDrawn(colours).render("card:0", cell).tobytes()
    assert cells[1] != cells[0]


BODY_FONT = str(Path(__file__).resolve().parents[3] / "assets" / "fonts" / "DejaVuSans.ttf")


@dataclass
class Lettered(Drawn):
    """Drawn tiles whose cards each carry a line of body text: ``body`` maps a card to its font size at the design
    size (default 40 px, a cap height of 29 px), scaled with the drawing as a layout's text is (a face whose text
    fits smaller has a smaller ``body``). The text is only recorded, as the games' text drawing records it."""

    body: dict[str, int] = field(default_factory=dict)

    def key(self, name: str, kind: str) -> str:
        return hashlib.sha256(repr((super().key(name, kind), self.body.get(name))).encode()).hexdigest()

    def body_boxes(self, name: str) -> tuple[str, ...]:
        return ("body",) if name.startswith("card:") else ()

    def render(self, name: str, size: tuple[int, int] | None = None) -> Image.Image:
        image = super().render(name, size)
        if name.startswith("card:") and text_module.recorder is not None:
            points = max(1, round(self.body.get(name, 40) * image.width / self.design_size(name)[0]))
            text_module.recorder.append(("body", BODY_FONT, points, (0, 0, 0, 0), (0, 0, 0, 0)))
        return image


def _heights(renderer: Lettered, art) -> list[int]:
    """The body text height of each card face as it lies on its sheet, measured by drawing it at its cell's size."""
    deck = art.decks["cards"]
    found = []
    for index, (number, _) in enumerate(deck.placement):
        sheet = deck.sheets[number]
        with measure_text() as record:
            renderer.render(FACES[index], (sheet.cell_width, sheet.cell_height))
        found.append(body_text_height(record, ("body",)))
    return found


def test_a_deck_is_laid_out_for_the_face_whose_body_text_is_smallest_and_stays_so_exactly(tmp_path):
    # the first face's text stands 29 px at the design size: the cells need no more than the design size
    plain = run(Lettered(tiles().colours), tmp_path / "plain", jobs=1)
    assert (plain.decks["cards"].sheets[0].cell_width, plain.decks["cards"].text_height) == (40, 29)
    # the fourth face fits its text at 30 px (22 px high): every cell grows until it too stands 24 px high
    small = Lettered(tiles().colours, body={"card:3": 30})
    art = run(small, tmp_path / "small", jobs=1)
    deck = art.decks["cards"]
    assert deck.sheets[0].cell_width > 40
    assert deck.text_height == min(_heights(small, art)) >= BODY_TEXT_TARGET
    assert len(list((tmp_path / "small" / "sheets").glob("cards-*"))) == 1 + 1   # the first try's sheet is gone
    # the raised cells are remembered for these very faces: a rebuild draws nothing
    again = Lettered(tiles().colours, body={"card:3": 30})
    assert run(again, tmp_path / "small", jobs=1).rendered == 0 and again.drawn == []
    # an edit of another face gives what a cold build of the same faces gives, byte for byte
    edited = {"card:1": (9, 9, 9)}
    warm = run(Lettered(tiles(**edited).colours, body={"card:3": 30}), tmp_path / "small", jobs=1)
    cold = run(Lettered(tiles(**edited).colours, body={"card:3": 30}), tmp_path / "cold", jobs=1)
    assert [s.path.read_bytes() for s in warm.decks["cards"].sheets] == \
        [s.path.read_bytes() for s in cold.decks["cards"].sheets]
    # the small text fixed, the cells shrink back to what the first face asks for
    fixed = run(Lettered(tiles(**edited).colours), tmp_path / "small", jobs=1)
    assert (fixed.decks["cards"].sheets[0].cell_width, fixed.decks["cards"].text_height) == (40, 29)
