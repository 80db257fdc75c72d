"""tools/preview.py: a save drawn from above, to scale, checked as a picture.

Every game the tests play, as its build wrote it, and each real save in ``../shared/reference-saves/`` (skipped
without it) is drawn and held against its save by tests/tools/previewpixels.py: the pixels at points of each
object, found from its ``Transform``, must show its image (or its outline's fill), and the empty table its
colour; the same check fails on the picture of a copy of the save with one object moved, or one gone. Small
saves made here pin each rule: rotation about y, decks face up and down, states, unknown types, where images may
come from (the save's folder, an image cache for http(s), never the network), sizes, and identical bytes.
"""

from __future__ import annotations

import copy
import json
import os
import socket
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bridge.catalog import builtin_games, load
from bridge.errors import InputError, WriteError
from bridge.luaproject.savetree import read_save
from tests.everygame import GAMES
from tests.sharedbuild import shared_build_folder
from tests.tools.previewpixels import Checker, blend
from tools.preview import (FLOOR_COLOUR, visible_part, SNAP_COLOUR, TABLE_COLOUR, FolderImages, Preview, cache_name, draw,
                           preview_file)

RED, GREEN, BLUE, YELLOW = (220, 30, 30), (30, 200, 40), (30, 60, 220), (240, 220, 20)


# ------------------------------------------------------------------------------------------------ the checks

def _points_per_object(checker: Checker) -> list[tuple[int, str]]:
    """(points checked, GUID) of each object drawn with its image or outline, most points first."""
    counts = []
    for index, entry in enumerate(checker.preview.objects):
        if entry.drawn in ("image", "outline") and entry.guid in checker.by_guid:
            counts.append((checker.check_object(index, entry, []), entry.guid))
    return sorted(counts, reverse=True)


def _assert_drawn_where_the_save_says(save: dict, preview: Preview, *, share: float) -> set[str]:
    """The picture matches the save at every clear point, on at least ``share`` of the objects it shows with an
    image or outline, and its empty table is the table's colour; returns the GUIDs checked."""
    checker = Checker(save, preview)
    points, checked, failures = checker.check_objects()
    assert not failures, "\n".join(failures[:12])
    shown = [o for o in preview.objects if o.drawn in ("image", "outline")]
    unchecked = [f"{o.name} {o.nickname!r} ({o.guid})" for o in shown if o.guid not in checked]
    assert shown and len(checked) >= share * len({o.guid for o in shown}), f"no clear point on: {unchecked}"
    table_points, table_failures = checker.check_table()
    assert table_points >= 100 and not table_failures, "\n".join(table_failures[:12])
    return checked


def _assert_every_object_is_reported(save: dict, preview: Preview) -> None:
    """Each top-level object of the save is in the report once: drawn, or not drawn with its reason."""
    report = preview.report()
    drawn = [o["guid"] for o in report["objects"] if o["name"] != "HandTransform"]
    not_drawn = [o["guid"] for o in report["not_drawn"] if o["what"] == "object"]
    assert all(o["reason"] for o in report["not_drawn"])
    assert Counter(drawn + not_drawn) == Counter(o.get("GUID", "") for o in save["ObjectStates"])


def _view_kept(save: dict, changed: dict, images) -> Preview | None:
    """``changed`` drawn, if its picture has the same view as ``save``'s (else None)."""
    picture = draw(changed, images)
    return picture if picture.view == draw(save, images).view else None


def _assert_moved_or_gone_fails(save: dict, preview: Preview, images) -> None:
    """In a copy of the save, the object with the most clear points is moved (off its place where there is room), and
    the next one is taken off the table: held against the original's expectation, the new pictures fail, naming
    each; the original's own picture passes."""
    checker = Checker(save, preview)
    assert not checker.check_objects()[2]
    guids = Counter(o.get("GUID") for o in save["ObjectStates"])
    ranked = [guid for count, guid in _points_per_object(checker) if count >= 3 and guids[guid] == 1]
    assert ranked, "no object with clear points to move"
    entry = next(o for o in preview.objects if o.guid == ranked[0])
    moved = None
    # clear off its place if the frame allows, else by half its smaller side (a board as long as the table)
    for shift in (max(entry.width, entry.depth) + 0.5, min(entry.width, entry.depth) / 2 + 0.5):
        for axis, sign in (("posX", 1), ("posX", -1), ("posZ", 1), ("posZ", -1)):
            changed = copy.deepcopy(save)
            obj = next(o for o in changed["ObjectStates"] if o.get("GUID") == ranked[0])
            obj["Transform"][axis] += sign * shift
            moved = _view_kept(save, changed, images)
            if moved is not None:
                break
        if moved is not None:
            break
    assert moved is not None, "moving the object changed the picture's frame every way"
    failures = Checker(save, preview, image=moved.image).check_objects()[2]
    assert any(f"({ranked[0]})" in f for f in failures), f"moving {ranked[0]} went unnoticed"
    if len(ranked) > 1:
        changed = copy.deepcopy(save)
        changed["ObjectStates"] = [o for o in changed["ObjectStates"] if o.get("GUID") != ranked[1]]
        gone = _view_kept(save, changed, images)
        if gone is not None:       # (taking an object at the frame's edge away reframes the picture)
            failures = Checker(save, preview, image=gone.image).check_objects()[2]
            assert any(f"({ranked[1]})" in f for f in failures), f"taking {ranked[1]} away went unnoticed"


# ------------------------------------------------------------------------------------------------ built games

@pytest.fixture(scope="module", params=GAMES)
def built(request, tmp_path_factory, repo_root):
    """This run's build of each game (shared, read only), its save and the save drawn from the build's folder."""
    folder = shared_build_folder(tmp_path_factory, repo_root, request.param)
    (save_path,) = sorted(folder.glob("*.json"))
    save = json.loads(save_path.read_text(encoding="utf-8"))
    return folder, save, draw(save, FolderImages(folder))


def test_a_built_game_is_drawn_with_every_object_where_its_save_puts_it(built):
    folder, save, preview = built
    _assert_drawn_where_the_save_says(save, preview, share=0.9)
    _assert_every_object_is_reported(save, preview)
    assert [o for o in preview.not_drawn if o["what"] == "image"] == []    # a build's images are all at hand
    # the build's own preview.png, beside its save, is this picture to the byte (drawn in another process)
    assert (folder / "preview.png").read_bytes() == preview.png()
    # and so is the drawing of only what shows (the build keys its preview by it)
    assert draw(visible_part(save), FolderImages(folder)).png() == preview.png()


def test_a_built_game_with_an_object_moved_or_gone_fails_the_check(built):
    folder, save, preview = built
    _assert_moved_or_gone_fails(save, preview, FolderImages(folder))


# ------------------------------------------------------------------------------------------------ real saves

@pytest.mark.parametrize("name", ["coinchesim", "canterbury", "arknova"])
def test_a_real_save_is_drawn_where_its_objects_lie_and_says_what_it_could_not_draw(reference_saves, name):
    path = reference_saves[name]
    save = read_save(path)
    images = FolderImages(path.parent)
    preview = draw(save, images)
    _assert_drawn_where_the_save_says(save, preview, share=0.02)
    _assert_every_object_is_reported(save, preview)
    # their images are on the web: without an image cache each is listed, with the objects that name it
    urls = [o["url"] for o in preview.not_drawn if o["what"] == "image"]
    assert len(urls) == len(set(urls)) and all(u.startswith("http") for u in urls)
    assert {o["reason"] for o in preview.not_drawn if o["what"] == "image"} <= {
        "an http(s) image: no --image-cache folder named"}
    assert all(o.drawn != "image" for o in preview.objects)
    assert draw(visible_part(save), images).png() == preview.png()
    _assert_moved_or_gone_fails(save, preview, images)


# ------------------------------------------------------------------------------------------------ small saves

def _transform(x=0.0, z=0.0, rot_y=180.0, rot_z=0.0, scale=1.0, y=1.0) -> dict:
    return {"posX": x, "posY": y, "posZ": z, "rotX": 0.0, "rotY": rot_y, "rotZ": rot_z,
            "scaleX": scale, "scaleY": 1.0, "scaleZ": scale}


def _tile(guid: str, url: str, **where) -> dict:
    return {"GUID": guid, "Name": "Custom_Tile", "Nickname": "", "Transform": _transform(**where),
            "ColorDiffuse": {"r": 1.0, "g": 1.0, "b": 1.0},
            "CustomImage": {"ImageURL": url, "ImageSecondaryURL": "", "ImageScalar": 1.0, "WidthScale": 0.0,
                            "CustomTile": {"Type": 0, "Thickness": 0.2, "Stackable": False, "Stretch": True}}}


def _piece(guid: str, name: str, colour=(0.2, 0.4, 0.9), nickname: str = "", **where) -> dict:
    return {"GUID": guid, "Name": name, "Nickname": nickname, "Transform": _transform(**where),
            "ColorDiffuse": {"r": colour[0], "g": colour[1], "b": colour[2]}}


def _save(*objects, table: str = "Table_None", **extra) -> dict:
    return {"SaveName": "preview test", "Table": table, "ObjectStates": list(objects), **extra}


def _png(path: Path, colour=None, size=(64, 64)) -> str:
    """A PNG of one colour (or, without one, of four quadrants: red, green / blue, yellow); its file:// URL."""
    image = Image.new("RGB", size, colour or RED)
    if colour is None:
        w, h = size
        image.paste(GREEN, (w // 2, 0, w, h // 2))
        image.paste(BLUE, (0, h // 2, w // 2, h))
        image.paste(YELLOW, (w // 2, h // 2, w, h))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return path.absolute().as_uri()


def _at(preview: Preview, x: float, z: float) -> tuple[int, int, int]:
    return preview.image.getpixel(preview.view.pixel(x, z))


def _near(got, want, tolerance: int = 6) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(got, want))


@pytest.mark.parametrize("rot_y, where", [
    # TTS turns an object clockwise, seen from above, as rotY grows; an image lies upright at rotY 180
    (180.0, {RED: (-0.5, 0.5), GREEN: (0.5, 0.5), BLUE: (-0.5, -0.5), YELLOW: (0.5, -0.5)}),
    (90.0, {RED: (-0.5, -0.5), GREEN: (-0.5, 0.5), BLUE: (0.5, -0.5), YELLOW: (0.5, 0.5)}),
    (0.0, {RED: (0.5, -0.5), GREEN: (-0.5, -0.5), BLUE: (0.5, 0.5), YELLOW: (-0.5, 0.5)}),
    (135.0, {RED: (-0.7, 0.0), GREEN: (0.0, 0.7), BLUE: (0.0, -0.7), YELLOW: (0.7, 0.0)}),
], ids=["upright", "90", "0", "135"])
def test_an_image_is_turned_as_its_object_is_about_y(tmp_path, rot_y, where):
    save = _save(_tile("a00001", _png(tmp_path / "quadrants.png"), rot_y=rot_y))
    preview = draw(save, FolderImages(tmp_path), size=400)
    for colour, (x, z) in where.items():
        assert _near(_at(preview, x, z), colour), (colour, x, z)
    (entry,) = preview.report()["objects"]
    assert entry["rot_y"] == rot_y and entry["drawn"] == "image" and (entry["width"], entry["depth"]) == (2, 2)
    # its footprint is turned too: at 135 degrees the 2 x 2 square no longer covers (0.9, 0.9)
    if rot_y == 135.0:
        assert _at(preview, 0.9, 0.9) == FLOOR_COLOUR
    else:
        (corner,) = [colour for colour, at in where.items() if at == (0.5, 0.5)]
        assert _near(_at(preview, 0.9, 0.9), corner)


@pytest.mark.parametrize("rot_y", [0.0, 90.0])
def test_an_outline_is_its_footprint_turned_about_y(rot_y):
    block = _piece("b00001", "BlockRectangle", colour=(1.0, 0.0, 0.0), rot_y=rot_y)   # 2 along its x, 1 along z
    preview = draw(_save(block), FolderImages("."), size=400)
    fill = blend((255, 0, 0), FLOOR_COLOUR)
    along_x, along_z = _at(preview, 0.8, 0.0), _at(preview, 0.0, 0.8)
    if rot_y == 0.0:
        assert _near(along_x, fill, 2) and along_z == FLOOR_COLOUR
    else:
        assert along_x == FLOOR_COLOUR and _near(along_z, fill, 2)
    (entry,) = preview.objects
    assert (entry.drawn, entry.why, entry.rot_y, entry.width, entry.depth) == ("outline", "no image", rot_y, 2, 1)


def test_a_deck_shows_the_card_on_top_face_up_or_its_back_face_down_with_its_count(tmp_path):
    sheet = Image.new("RGB", (200, 140), RED)
    sheet.paste(GREEN, (100, 0, 200, 140))                   # a 2 x 1 sheet: card 100 red, card 101 green
    sheet.save(tmp_path / "faces.png")
    back = _png(tmp_path / "back.png", BLUE, (100, 140))
    decks = {"1": {"FaceURL": (tmp_path / "faces.png").as_uri(), "BackURL": back, "NumWidth": 2, "NumHeight": 1,
                   "BackIsHidden": True, "UniqueBack": False, "Type": 0}}

    def deck(guid, x, rot_z):
        return {"GUID": guid, "Name": "Deck", "Nickname": "", "Transform": _transform(x=x, rot_z=rot_z),
                "DeckIDs": [100, 101], "CustomDeck": decks,
                "ContainedObjects": [{"Name": "Card", "CardID": 100}, {"Name": "Card", "CardID": 101}]}

    preview = draw(_save(deck("d00001", -2.0, 0.0), deck("d00002", 2.0, 180.0)), FolderImages(tmp_path), size=400)
    up, down = preview.objects
    assert (up.face, down.face, up.count, down.count) == ("up", "down", 2, 2)
    assert _near(_at(preview, -2.0, 0.0), GREEN)     # face up, the last card of DeckIDs lies on top
    assert _near(_at(preview, 2.0, 0.0), BLUE)       # face down, its back
    assert up.badge is not None and down.badge is not None
    points, checked, failures = Checker(_save(deck("d00001", -2.0, 0.0), deck("d00002", 2.0, 180.0)),
                                        preview).check_objects()
    assert checked == {"d00001", "d00002"} and not failures


def test_states_snap_points_and_zones(tmp_path):
    two = _tile("s00002", _png(tmp_path / "green.png", GREEN))
    one = dict(_tile("s00001", _png(tmp_path / "red.png", RED)), States={"2": two})
    zone = dict(_piece("z00001", "ScriptingTrigger", x=4.0, nickname="discard"),
                Transform=dict(_transform(x=4.0), scaleX=3.0, scaleZ=3.0))
    save = _save(one, zone, SnapPoints=[{"Position": {"x": -4.0, "y": 1.0, "z": 0.0}}])
    images = FolderImages(tmp_path)
    plain, second, first, missing = (draw(save, images, size=400, state=s) for s in (None, 2, 1, 3))
    assert _near(_at(plain, 0, 0), RED) and _near(_at(second, 0, 0), GREEN) and _near(_at(first, 0, 0), RED)
    assert [o.state for o in (plain.objects[0], second.objects[0], first.objects[0])] == [None, 2, 1]
    assert plain.warnings == second.warnings == first.warnings == []
    assert _near(_at(missing, 0, 0), RED)
    assert missing.warnings == ["--state 3: 1 object(s) with States have no state 3; drawn in the state they are in"]
    # the snap point is a dot where it lies, the zone an outline with its label, drawn last
    assert plain.snap_points == 1 and _at(plain, -4.0, 0.0) == SNAP_COLOUR
    (zone_entry,) = [o for o in plain.objects if o.drawn == "zone"]
    assert zone_entry.nickname == "discard" and zone_entry.label is not None and (zone_entry.width == 3.0)


def test_an_unknown_object_type_is_an_outline_and_one_warning(tmp_path):
    save = _save(_piece("u00001", "Mystery_Gizmo", x=-3.0), _piece("u00002", "Mystery_Gizmo", x=3.0),
                 _piece("k00001", "BlockSquare", z=4.0), table="Table_Square")
    preview = draw(save, FolderImages(tmp_path), size=400)
    assert preview.warnings == ["Mystery_Gizmo: 2 object(s) of a type ttsmod does not know, drawn as 2 x 2 outlines"]
    gizmos = [o for o in preview.objects if o.name == "Mystery_Gizmo"]
    assert [(o.drawn, o.why, o.width, o.depth) for o in gizmos] == \
        [("outline", "a type ttsmod does not know", 2, 2)] * 2
    fill = blend((51, 102, 230), TABLE_COLOUR)
    assert _near(_at(preview, -3.0, 0.3), fill, 2) and _near(_at(preview, 3.0, 0.3), fill, 2)
    _assert_drawn_where_the_save_says(save, preview, share=1.0)


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a network connection fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the preview tried to use the network")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_an_http_image_is_read_only_from_the_image_cache_folder_never_the_network(tmp_path, no_network):
    url = "https://example.com/art/red.png?v=2"
    save = _save(_tile("h00001", url))
    alone = draw(save, FolderImages(tmp_path), size=400)
    assert alone.objects[0].drawn == "outline" and not _near(_at(alone, 0, 0), RED)
    assert alone.not_drawn == [{"what": "image", "url": url, "guids": ["h00001"],
                                "reason": "an http(s) image: no --image-cache folder named"}]
    cache = tmp_path / "cache"
    cache.mkdir()
    empty = draw(save, FolderImages(tmp_path, cache), size=400)
    assert [o["reason"] for o in empty.not_drawn] == ["not in the image cache folder"]
    # TTS's Mods/Images names a file after its URL's letters and digits
    assert cache_name(url) == "httpsexamplecomartredpngv2"
    _png(cache / "httpsexamplecomartredpngv2.png", RED)
    cached = draw(save, FolderImages(tmp_path, cache), size=400)
    assert cached.objects[0].drawn == "image" and cached.not_drawn == [] and _near(_at(cached, 0, 0), RED)


def test_a_file_url_or_path_out_of_the_save_s_folder_is_refused_and_reported(tmp_path):
    table, elsewhere = tmp_path / "table", tmp_path / "elsewhere"
    outside = _png(elsewhere / "blue.png", BLUE)
    inside = _png(table / "art" / "red.png", RED)
    (table / "art" / "link.png").symlink_to(elsewhere / "blue.png")
    link = (table / "art" / "link.png").as_uri()
    save = _save(_tile("f00001", inside, x=-6.0), _tile("f00002", outside, x=-2.0), _tile("f00003", link, x=2.0),
                 _tile("f00004", "../elsewhere/blue.png", x=6.0), _tile("f00005", "art/red.png", z=4.0))
    preview = draw(save, FolderImages(table), size=400)
    drawn = {o.guid: o.drawn for o in preview.objects}
    assert drawn == {"f00001": "image", "f00002": "outline", "f00003": "outline", "f00004": "outline",
                     "f00005": "image"}
    assert _near(_at(preview, -6.0, 0), RED) and _near(_at(preview, 0, 4.0), RED)
    assert not any(_near(_at(preview, x, 0), BLUE, 40) for x in (-2.0, 2.0, 6.0))
    refused = {o["url"]: (o["reason"], o["guids"]) for o in preview.not_drawn}
    assert refused == {outside: ("outside the save's folder", ["f00002"]),
                       link: ("outside the save's folder", ["f00003"]),
                       "../elsewhere/blue.png": ("outside the save's folder", ["f00004"])}


def test_the_size_is_the_picture_s_longer_side_and_the_same_save_gives_the_same_bytes(tmp_path):
    save = _save(_tile("z00001", _png(tmp_path / "q.png"), x=-4.0), _piece("z00002", "Bag", x=4.0, z=2.0))
    images = FolderImages(tmp_path)
    for size in (64, 200, 1000):
        preview = draw(save, images, size=size)
        assert max(preview.image.size) == size and list(preview.image.size) == preview.report()["size"]
    assert draw(save, images, size=300).png() == draw(copy.deepcopy(save), FolderImages(tmp_path), size=300).png()
    with pytest.raises(ValueError, match="64 to 8192"):
        draw(save, images, size=63)


def test_preview_file_writes_atomically_and_refuses_what_is_not_a_save(tmp_path, monkeypatch):
    save_path = tmp_path / "table.json"
    save_path.write_text(json.dumps(_save(_tile("w00001", _png(tmp_path / "q.png")))), encoding="utf-8")
    out = tmp_path / "out" / "table.png"
    result = preview_file(save_path, out, size=200)
    assert out.read_bytes() == result.png() == draw(read_save(save_path), FolderImages(tmp_path), size=200).png()
    before = out.read_bytes()

    import bridge.fsio

    def full_disk(fd, data):
        os.write(fd, data[:10])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bridge.fsio, "_write_all", full_disk)
    with pytest.raises(WriteError):
        preview_file(save_path, out, size=300)
    monkeypatch.undo()
    assert out.read_bytes() == before and sorted(p.name for p in out.parent.iterdir()) == ["table.png"]
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    for bad, words in ((tmp_path / "list.json", "not a TTS save"), (tmp_path / "none.json", "no such file")):
        with pytest.raises(InputError, match=words):
            preview_file(bad, tmp_path / "bad.png")
        assert not (tmp_path / "bad.png").exists()
    with pytest.raises(InputError, match="--size"):
        preview_file(save_path, tmp_path / "bad.png", size=9000)
    with pytest.raises(InputError, match="not a folder"):
        preview_file(save_path, tmp_path / "bad.png", image_cache=save_path)
    assert not (tmp_path / "bad.png").exists()


# ------------------------------------------------------------------------------------------------ the docs' pictures

@pytest.mark.parametrize("game", list(builtin_games()))
def test_each_built_in_game_s_table_contract_shows_the_table_its_build_lays(game, tmp_path_factory, repo_root):
    """docs/building.md promises that each game's table-contract page shows its table: the page embeds
    images/preview.png, and that picture is the preview of this run's build, but for small drawing changes
    (refresh it with ``ttsmod build GAME --out DIR`` and a copy of DIR/preview.png when the table changes)."""
    mod = load(game).meta.mod
    page = repo_root / "docs" / "games" / mod / "table-contract.md"
    assert "](images/preview.png)" in page.read_text(encoding="utf-8")
    folder = shared_build_folder(tmp_path_factory, repo_root, game)
    with Image.open(page.parent / "images" / "preview.png") as shown, Image.open(folder / "preview.png") as built:
        assert shown.size == built.size
        difference = ImageChops.difference(shown.convert("RGB"), built.convert("RGB")).convert("L")
    # another Pillow may shade a glyph's edge otherwise; a moved deck changes thousands of pixels
    changed = sum(difference.point(lambda v: 255 if v > 24 else 0).histogram()[255:])
    assert changed <= 500, f"docs/games/{mod}/images/preview.png is not this build's table ({changed} pixels differ)"
