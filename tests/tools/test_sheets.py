"""Sheet packing: faces land exactly in their cells, grids, limits, the 4096 px cap, formats, determinism."""

from __future__ import annotations

import json
import struct
import zlib

import pytest
from PIL import Image

from bridge.errors import InputError
from tools.sheets import FittedFace, SheetCache, choose_grid, deck_saved_object, deck_sheets, pack_faces

HIDDEN = (250, 0, 250)
BACK = (10, 10, 10)


def colour(i: int) -> tuple[int, int, int]:
    """A distinct, JPEG-robust colour per face index (channels far apart)."""
    return (i % 7 * 36, (i // 7) % 6 * 45, (i // 42) * 80 + 10)


def faces(n: int, size=(40, 56)) -> list[Image.Image]:
    return [Image.new("RGB", size, colour(i)) for i in range(n)]


def close(a, b, tolerance=12) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def probe_cell(sheet: Image.Image, columns: int, cw: int, ch: int, slot: int, expected, tolerance=12) -> None:
    """Pixels just inside each corner of cell ``slot`` have the face's colour."""
    x0, y0 = (slot % columns) * cw, (slot // columns) * ch
    for x, y in ((x0 + 2, y0 + 2), (x0 + cw - 3, y0 + 2), (x0 + 2, y0 + ch - 3), (x0 + cw - 3, y0 + ch - 3)):
        assert close(sheet.getpixel((x, y)), expected, tolerance), (slot, (x, y), sheet.getpixel((x, y)), expected)


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


def test_a_face_of_the_same_shape_but_another_size_fills_its_cell_without_a_warning(tmp_path):
    same_shape = [Image.new("RGB", (40, 56), (200, 0, 0)), Image.new("RGB", (80, 112), (0, 200, 0))]
    deck = pack_faces(same_shape, tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fmt="png")
    assert deck.fitted == ()
    with Image.open(deck.sheets[0].path) as image:
        probe_cell(image, deck.sheets[0].columns, 40, 56, 1, (0, 200, 0))


GREEN, BLUE, WHITE = (0, 200, 0), (0, 0, 220), (255, 255, 255)


def wide_face() -> Image.Image:
    """112 × 56 (2:1): a green middle 40 px wider than the 40 px a cover crop keeps, blue ends."""
    face = Image.new("RGB", (112, 56), BLUE)
    face.paste(GREEN, (30, 0, 82, 56))
    return face


def test_a_face_of_another_shape_is_letterboxed_whole_not_stretched(tmp_path):
    deck = pack_faces([Image.new("RGB", (40, 56), (200, 0, 0)), wide_face()], tmp_path, "d",
                      back=Image.new("RGB", (8, 8), BACK), fmt="png")
    assert deck.fit == "contain" and deck.fitted == (FittedFace(1, (112, 56)),)
    sheet = deck.sheets[0]
    x0 = (1 % sheet.columns) * 40
    with Image.open(sheet.path) as image:
        # Contained: 40 × 20 in the middle of the 40 × 56 cell, white above and below, both blue ends kept.
        assert close(image.getpixel((x0 + 20, 28)), GREEN)
        assert close(image.getpixel((x0 + 2, 28)), BLUE) and close(image.getpixel((x0 + 37, 28)), BLUE)
        for y in (2, 15, 41, 53):
            assert image.getpixel((x0 + 20, y)) == WHITE, y


def test_cover_fills_the_cell_and_crops_the_overhang(tmp_path):
    deck = pack_faces([Image.new("RGB", (40, 56), (200, 0, 0)), wide_face()], tmp_path, "d",
                      back=Image.new("RGB", (8, 8), BACK), fmt="png", fit="cover")
    assert deck.fit == "cover" and deck.fitted == (FittedFace(1, (112, 56)),)
    with Image.open(deck.sheets[0].path) as image:
        probe_cell(image, deck.sheets[0].columns, 40, 56, 1, GREEN)  # the centre, full height; blue ends cut


def test_an_unknown_fit_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="fit must be one of contain, cover"):
        pack_faces(faces(2), tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fit="stretch")


def test_a_deck_of_landscape_faces_is_sideways_in_the_saved_object(tmp_path):
    landscape = pack_faces(faces(3, size=(88, 63)), tmp_path, "l", back=Image.new("RGB", (88, 63), BACK))
    portrait = pack_faces(faces(3), tmp_path, "p", back=Image.new("RGB", (40, 56), BACK))
    assert landscape.sideways and not portrait.sideways
    (deck,) = deck_saved_object(landscape)["ObjectStates"]
    assert deck["SidewaysCard"] is True and all(c["SidewaysCard"] is True for c in deck["ContainedObjects"])
    (deck,) = deck_saved_object(portrait)["ObjectStates"]
    assert deck["SidewaysCard"] is False and all(c["SidewaysCard"] is False for c in deck["ContainedObjects"])


def test_a_lone_landscape_card_is_sideways_too(tmp_path):
    deck = pack_faces(faces(1, size=(88, 63)), tmp_path, "one", back=Image.new("RGB", (88, 63), BACK))
    (card,) = deck_saved_object(deck)["ObjectStates"]
    assert card["Name"] == "Card" and card["SidewaysCard"] is True


RED = (220, 0, 0)


def exif_rotated_jpeg(path) -> None:
    """Stored 56 wide × 40 high, left half red, right half blue, EXIF orientation 6 ("turn 90° clockwise"):
    a viewer shows it 40 wide × 56 high, red on top."""
    stored = Image.new("RGB", (56, 40), BLUE)
    stored.paste(RED, (0, 0, 28, 40))
    exif = Image.Exif()
    exif[0x0112] = 6
    stored.save(path, quality=95, exif=exif.tobytes())


def test_exif_orientation_is_honoured_for_face_files(tmp_path):
    exif_rotated_jpeg(tmp_path / "phone.jpg")
    upright = tmp_path / "upright.png"
    Image.new("RGB", (40, 56), (0, 200, 0)).save(upright)
    deck = pack_faces([tmp_path / "phone.jpg", upright], tmp_path / "out", "d",
                      back=Image.new("RGB", (40, 56), BACK), fmt="png")
    sheet = deck.sheets[0]
    assert (sheet.cell_width, sheet.cell_height) == (40, 56) and deck.fitted == () and not deck.sideways
    with Image.open(sheet.path) as image:
        assert close(image.getpixel((20, 5)), RED) and close(image.getpixel((20, 50)), BLUE)
        assert close(image.getpixel((5, 14)), RED) and close(image.getpixel((35, 41)), BLUE)


def test_16_bit_grey_face_files_keep_their_greys(tmp_path):
    # Pillow reads a 16-bit PNG as I;16 and a big-endian 16-bit TIFF as I;16B: both are mid-grey here.
    Image.new("I;16", (40, 56), 32768).save(tmp_path / "grey.png")
    Image.new("I;16B", (40, 56), 16384).save(tmp_path / "grey.tif")
    deck = pack_faces([tmp_path / "grey.png", tmp_path / "grey.tif"], tmp_path / "out", "d",
                      back=Image.new("RGB", (40, 56), BACK), fmt="png")
    with Image.open(deck.sheets[0].path) as image:
        probe_cell(image, deck.sheets[0].columns, 40, 56, 0, (128, 128, 128), tolerance=1)
        probe_cell(image, deck.sheets[0].columns, 40, 56, 1, (64, 64, 64), tolerance=1)


def test_16_bit_big_endian_grey_given_as_an_image_keeps_its_grey(tmp_path):
    deck = pack_faces([Image.new("I;16B", (40, 56), 32768)], tmp_path, "d",
                      back=Image.new("RGB", (8, 8), BACK), fmt="png")
    with Image.open(deck.sheets[0].path) as image:
        probe_cell(image, deck.sheets[0].columns, 40, 56, 0, (128, 128, 128), tolerance=1)


def bomb_png(path):
    """A tiny PNG whose header claims 30000 × 30000 pixels."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


def test_a_decompression_bomb_is_refused_naming_file_and_size(tmp_path):
    good = tmp_path / "good.png"
    Image.new("RGB", (40, 56)).save(good)
    for faces_given in ([bomb_png(tmp_path / "bomb.png")], [good, tmp_path / "bomb.png"]):
        with pytest.raises(InputError, match=r"bomb\.png: image is 30000x30000"):
            pack_faces(faces_given, tmp_path / "out", "d", back=Image.new("RGB", (8, 8), BACK))
    with pytest.raises(InputError, match="40x56 = 2,240 pixels, over the limit of 2,000"):
        pack_faces([good], tmp_path / "out", "d", back=Image.new("RGB", (8, 8), BACK), max_pixels=2000)


def test_progress_is_reported_per_face(tmp_path):
    calls = []
    pack_faces(faces(75), tmp_path, "d", back=Image.new("RGB", (8, 8), BACK), fmt="png",
               progress=lambda done, total: calls.append((done, total)))
    assert calls == [(i, 75) for i in range(1, 76)]


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


def _within_tts_limits(sheets, count):
    assert [start for start, *_ in sheets] == [sum(s[1] for s in sheets[:i]) for i in range(len(sheets))]
    assert sum(faces for _, faces, *_ in sheets) == count
    for _, faces, columns, rows, (w, h) in sheets:
        assert columns <= 10 and rows <= 7 and faces + 1 <= columns * rows   # the hidden face's cell kept
        assert columns * w <= 4096 and rows * h <= 4096


def test_a_deck_s_cells_are_as_large_as_its_body_text_needs_and_its_sheets_hold_as_many_as_fit():
    sheets = deck_sheets(40, (1050, 730), 1.36)
    _within_tts_limits(sheets, 40)
    assert all(w >= 1050 * 1.36 - 1 and h >= 730 * 1.36 - 1 for *_, (w, h) in sheets)
    # no grid of cells that large holds more than the first sheet's faces
    assert sheets[0][1] == 7 and len(sheets) == 6
    # asked for smaller cells, a sheet holds more faces
    smaller = deck_sheets(40, (1050, 730), 0.9)
    _within_tts_limits(smaller, 40)
    assert smaller[0][1] > sheets[0][1] and len(smaller) < len(sheets)


def test_a_small_deck_s_cells_grow_to_its_design_size_and_no_further():
    (only,) = deck_sheets(4, (630, 880), 0.8)
    assert only[:4] == (0, 4, 5, 1) and only[4] == (630, 880)   # the fewest cells holding its faces and the hidden one
    (legible,) = deck_sheets(4, (630, 880), 1.3)
    assert legible[4] == (819, 1144)   # the legible size, larger than the design


def test_a_face_too_large_for_any_legible_grid_goes_one_to_a_sheet_at_the_largest_cell():
    sheets = deck_sheets(3, (3000, 3000), 2.0)
    _within_tts_limits(sheets, 3)
    assert [faces for _, faces, *_ in sheets] == [1, 1, 1] and all(max(cell) == 2048 for *_, cell in sheets)
    with pytest.raises(ValueError):
        deck_sheets(0, (630, 880), 1.0)


def test_file_urls_are_file_url_of_each_file_with_links_followed_alike(tmp_path):
    from tools.sheets import file_url, file_urls

    real = tmp_path / "real"
    real.mkdir()
    (real / "a b.jpg").write_bytes(b"x")
    (tmp_path / "elsewhere.jpg").write_bytes(b"y")
    (real / "link.jpg").symlink_to(tmp_path / "elsewhere.jpg")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    url_for = file_urls()
    for path in (real / "a b.jpg", real / "link.jpg", tmp_path / "linked" / "a b.jpg",
                 tmp_path / "linked" / "link.jpg", real / "missing.jpg", tmp_path / "linked" / ".." / "real"):
        assert url_for(path) == file_url(path), path
    assert url_for(tmp_path / "linked" / "a b.jpg") == (real / "a b.jpg").as_uri()
