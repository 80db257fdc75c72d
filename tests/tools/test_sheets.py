"""Sheet packing: faces land exactly in their cells, grids, limits, the 4096 px cap, formats, determinism."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from tools.errors import InputError
from tools.sheets import SheetCache, choose_grid, deck_saved_object, pack_faces

HIDDEN = (250, 0, 250)
BACK = (10, 10, 10)


def colour(i: int) -> tuple[int, int, int]:
    """A distinct, JPEG-robust colour per face index (channels far apart)."""
    return (i % 7 * 36, (i // 7) % 6 * 45, (i // 42) * 80 + 10)


def faces(n: int, size=(40, 56)) -> list[Image.Image]:
    return [Image.new("RGB", size, colour(i)) for i in range(n)]


def close(a, b, tolerance=12) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def probe_cell(sheet: Image.Image, columns: int, cw: int, ch: int, slot: int, expected) -> None:
    """Pixels just inside each corner of cell ``slot`` have the face's colour."""
    x0, y0 = (slot % columns) * cw, (slot // columns) * ch
    for x, y in ((x0 + 2, y0 + 2), (x0 + cw - 3, y0 + 2), (x0 + 2, y0 + ch - 3), (x0 + cw - 3, y0 + ch - 3)):
        assert close(sheet.getpixel((x, y)), expected), (slot, (x, y), sheet.getpixel((x, y)), expected)


@pytest.mark.parametrize("fmt", ["png", "jpg"])
def test_every_face_lands_exactly_in_its_cell_and_slot_70_holds_the_hidden_face(tmp_path, fmt):
    deck = pack_faces(faces(69), tmp_path, "deck", back=Image.new("RGB", (40, 56), BACK),
                      hidden=Image.new("RGB", (40, 56), HIDDEN), fmt=fmt)
    (sheet,) = deck.sheets
    assert (sheet.columns, sheet.rows, sheet.count) == (10, 7, 69)
    assert sheet.file.endswith(f".{fmt}") and sheet.path.is_file()
    with Image.open(sheet.path) as image:
        assert image.mode == "RGB" and image.size == (400, 392)
        for i in range(69):
            probe_cell(image, 10, 40, 56, i, colour(i))
        probe_cell(image, 10, 40, 56, 69, HIDDEN)
    assert deck.placement == tuple((0, i) for i in range(69))


def test_138_faces_make_two_full_sheets_and_placement_follows_input_order(tmp_path):
    deck = pack_faces(faces(138), tmp_path, "big", back=Image.new("RGB", (8, 8), BACK), fmt="png")
    assert [(s.columns, s.rows, s.count) for s in deck.sheets] == [(10, 7, 69), (10, 7, 69)]
    assert deck.placement[68] == (0, 68) and deck.placement[69] == (1, 0) and deck.placement[137] == (1, 68)
    with Image.open(deck.sheets[1].path) as image:
        probe_cell(image, 10, 40, 56, 0, colour(69))
        probe_cell(image, 10, 40, 56, 68, colour(137))
        probe_cell(image, 10, 40, 56, 69, BACK)  # no hidden given: the back is the hidden face


def test_back_is_hidden_puts_70_faces_on_a_sheet(tmp_path):
    deck = pack_faces(faces(70), tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), back_is_hidden=True, fmt="png")
    assert [(s.columns, s.rows, s.count) for s in deck.sheets] == [(10, 7, 70)]
    with Image.open(deck.sheets[0].path) as image:
        probe_cell(image, 10, 40, 56, 69, colour(69))


@pytest.mark.parametrize("cells, grid", [(1, (1, 1)), (2, (2, 1)), (10, (10, 1)), (13, (7, 2)),
                                          (37, (10, 4)), (63, (9, 7)), (70, (10, 7))])
def test_the_smallest_grid_is_chosen(cells, grid):
    columns, rows = choose_grid(cells, (10, 10))
    assert columns <= 10 and rows <= 7 and columns * rows >= cells
    assert columns * rows == grid[0] * grid[1]


def test_small_deck_uses_a_small_grid_with_the_hidden_face_in_its_last_cell(tmp_path):
    deck = pack_faces(faces(12), tmp_path, "d", back=Image.new("RGB", (8, 8), BACK),
                      hidden=Image.new("RGB", (40, 56), HIDDEN), fmt="png")
    (sheet,) = deck.sheets
    assert sheet.columns * sheet.rows == min(c * r for c in range(1, 11) for r in range(1, 8) if c * r >= 13)
    with Image.open(sheet.path) as image:
        probe_cell(image, sheet.columns, 40, 56, sheet.columns * sheet.rows - 1, HIDDEN)


def test_sheets_are_capped_at_4096_px_by_scaling_cells_uniformly(tmp_path):
    deck = pack_faces(faces(69, size=(500, 700)), tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fmt="png")
    (sheet,) = deck.sheets
    assert sheet.cell_width * 10 <= 4096 and sheet.cell_height * 7 <= 4096
    assert abs(sheet.cell_width / sheet.cell_height - 500 / 700) < 0.01  # the same scale on both axes
    with Image.open(sheet.path) as image:
        assert image.size == (sheet.cell_width * 10, sheet.cell_height * 7)
        assert max(image.size) <= 4096
        probe_cell(image, 10, sheet.cell_width, sheet.cell_height, 68, colour(68))


def test_faces_of_another_size_are_stretched_to_the_exact_cell(tmp_path):
    odd = [Image.new("RGB", (40, 56), (200, 0, 0)), Image.new("RGB", (100, 30), (0, 200, 0))]
    deck = pack_faces(odd, tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fmt="png")
    with Image.open(deck.sheets[0].path) as image:
        probe_cell(image, deck.sheets[0].columns, 40, 56, 1, (0, 200, 0))  # no letterbox bars


def test_rgba_and_16_bit_faces_become_8_bit_rgb(tmp_path):
    rgba = Image.new("RGBA", (40, 56), (255, 0, 0, 0))
    grey16 = Image.new("I;16", (40, 56), 65535)
    deck = pack_faces([rgba, grey16], tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fmt="png")
    with Image.open(deck.sheets[0].path) as image:
        assert image.mode == "RGB"
        probe_cell(image, deck.sheets[0].columns, 40, 56, 0, (255, 255, 255))
        probe_cell(image, deck.sheets[0].columns, 40, 56, 1, (255, 255, 255))


@pytest.mark.parametrize("fmt", ["png", "jpg"])
def test_same_inputs_give_byte_identical_files_with_content_hashed_names(tmp_path, fmt):
    a = pack_faces(faces(20), tmp_path / "a", "deck", back=Image.new("RGB", (8, 8), BACK), fmt=fmt)
    b = pack_faces(faces(20), tmp_path / "b", "deck", back=Image.new("RGB", (8, 8), BACK), fmt=fmt)
    assert a.sheets[0].file == b.sheets[0].file
    assert a.sheets[0].path.read_bytes() == b.sheets[0].path.read_bytes()
    changed = faces(20)
    changed[3] = Image.new("RGB", (40, 56), (1, 2, 3))
    c = pack_faces(changed, tmp_path / "c", "deck", back=Image.new("RGB", (8, 8), BACK), fmt=fmt)
    assert c.sheets[0].file != a.sheets[0].file  # a changed sheet gets a new URL
    assert a.sheets[0].file.startswith("deck-1-")


def test_jpeg_quality_changes_the_bytes_and_no_metadata_is_written(tmp_path):
    low = pack_faces(faces(5), tmp_path / "l", "d", back=Image.new("RGB", (8, 8), BACK), quality=20)
    high = pack_faces(faces(5), tmp_path / "h", "d", back=Image.new("RGB", (8, 8), BACK), quality=95)
    assert low.sheets[0].path.read_bytes() != high.sheets[0].path.read_bytes()
    with Image.open(high.sheets[0].path) as image:
        assert image.format == "JPEG" and "exif" not in image.info and "icc_profile" not in image.info


def test_faces_given_as_files_and_bad_inputs(tmp_path):
    paths = []
    for i, face in enumerate(faces(3)):
        paths.append(tmp_path / f"f{i}.png")
        face.save(paths[-1])
    deck = pack_faces(paths, tmp_path / "out", "d", back=paths[0], fmt="png")
    assert deck.sheets[0].count == 3
    with pytest.raises(InputError, match="no such file"):
        pack_faces([tmp_path / "missing.png"], tmp_path / "out", "d", back=paths[0])
    (tmp_path / "text.png").write_text("not an image")
    with pytest.raises(InputError, match="not a readable image"):
        pack_faces([paths[0], tmp_path / "text.png"], tmp_path / "out", "d", back=paths[0])
    with pytest.raises(InputError, match="no faces"):
        pack_faces([], tmp_path / "out", "d", back=paths[0])
    with pytest.raises(InputError, match="format"):
        pack_faces(paths, tmp_path / "out", "d", back=paths[0], fmt="gif")


def test_sheet_cache_skips_unchanged_sheets(tmp_path):
    known: dict[str, str] = {}
    keys = [f"k{i}" for i in range(100)]
    first = SheetCache(keys, "back", known)
    deck = pack_faces(faces(100), tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fmt="png", cache=first)
    assert len(first.written) == 3  # back + 2 sheets
    keys2 = list(keys)
    keys2[80] = "changed"
    changed = faces(100)
    changed[80] = Image.new("RGB", (40, 56), (1, 2, 3))
    second = SheetCache(keys2, "back", known)
    again = pack_faces(changed, tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fmt="png", cache=second)
    assert second.written == [again.sheets[1].file]
    assert again.sheets[0] == deck.sheets[0] and again.sheets[1].file != deck.sheets[1].file


def test_saved_object_of_a_deck(tmp_path):
    deck = pack_faces(faces(75), tmp_path, "cards", back=Image.new("RGB", (8, 8), BACK), fmt="png")
    saved = json.loads(json.dumps(deck_saved_object(deck, first_key=3)))
    (obj,) = saved["ObjectStates"]
    assert obj["Name"] == "Deck" and saved["SaveName"] == "cards"
    assert set(obj["CustomDeck"]) == {"3", "4"}
    assert obj["CustomDeck"]["4"]["NumWidth"] * obj["CustomDeck"]["4"]["NumHeight"] >= 7
    ids = [c["CardID"] for c in obj["ContainedObjects"]]
    assert ids == obj["DeckIDs"] and ids[:2] == [300, 301] and ids[69] == 400 and ids[-1] == 405
    assert obj["CustomDeck"]["3"]["FaceURL"].startswith("file:///")
    guids = [obj["GUID"]] + [c["GUID"] for c in obj["ContainedObjects"]]
    assert len(set(guids)) == len(guids) and all(len(g) == 6 for g in guids)
