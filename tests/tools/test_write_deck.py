"""``write_deck`` (all of ``ttsmod sheets``): all or nothing in --out, and re-runs remove their own stale sheets."""

from __future__ import annotations

import hashlib
import json
import os

import pytest
from PIL import Image

from bridge.errors import InputError, TtsmodError
from tools.sheets import MANIFEST_NAME, write_deck


def make_faces(folder, n, size=(40, 56), offset=0):
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"card{i:03d}.png"
        Image.new("RGB", size, ((i + offset) * 7 % 256, 90, 160)).save(path)
        paths.append(path)
    return paths


def listing(folder) -> dict[str, bytes | None]:
    """Every file under ``folder`` (hidden ones too) with its bytes, and every folder (as None)."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def test_a_first_run_writes_sheets_back_json_and_manifest_and_nothing_else(tmp_path):
    out = tmp_path / "new" / "out"
    written = write_deck(make_faces(tmp_path / "faces", 75), out, "deck", fmt="png")
    files = sorted(p.name for p in out.iterdir())
    expected = sorted([*(s.file for s in written.deck.sheets), written.deck.back_file, "deck.json", MANIFEST_NAME])
    assert files == expected and len(written.deck.sheets) == 2
    assert written.removed == () and written.warnings == ()
    manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert sorted(manifest["decks"]["deck"]) == [f for f in expected if f != MANIFEST_NAME]


def test_a_failed_run_into_a_new_folder_leaves_no_folder_behind(tmp_path):
    faces = make_faces(tmp_path / "faces", 80)
    (tmp_path / "faces" / "broken.png").write_text("not an image")
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(InputError, match="broken.png: not a readable image"):
        write_deck([*faces, tmp_path / "faces" / "broken.png"], out, "deck")
    assert not (tmp_path / "a").exists()


def test_a_failed_rerun_leaves_the_folder_exactly_as_it_was(tmp_path):
    out = tmp_path / "out"
    write_deck(make_faces(tmp_path / "v1", 10), out, "deck")
    (out / "notes.txt").write_text("mine")
    before = listing(out)
    faces = make_faces(tmp_path / "v2", 100, offset=3)  # the first sheet is written before the bad face
    (tmp_path / "v2" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(InputError, match="broken.png"):
        write_deck([*faces, tmp_path / "v2" / "broken.png"], out, "deck")
    assert listing(out) == before


def test_a_failure_while_moving_into_place_is_rolled_back_and_reported_as_a_failed_operation(tmp_path):
    out = tmp_path / "out"
    write_deck(make_faces(tmp_path / "v1", 5), out, "deck")
    before = listing(out)
    (out / "other.json").mkdir()  # the JSON cannot replace a folder: the very last step fails
    with pytest.raises(TtsmodError, match="cannot write the sheets") as caught:
        write_deck(make_faces(tmp_path / "v2", 5, offset=9), out, "other")
    assert caught.value.exit_code == 1 and not isinstance(caught.value, InputError)
    (out / "other.json").rmdir()
    assert listing(out) == before


def test_a_rerun_removes_the_sheets_its_previous_run_wrote_and_no_longer_needs(tmp_path):
    out = tmp_path / "out"
    first = write_deck(make_faces(tmp_path / "v1", 140), out, "deck", fmt="png")  # 3 sheets
    second = write_deck(make_faces(tmp_path / "v2", 10, offset=5), out, "deck", fmt="png")  # 1 sheet
    old = {s.file for s in first.deck.sheets} | {first.deck.back_file}
    new = {s.file for s in second.deck.sheets} | {second.deck.back_file}
    assert set(second.removed) == old - new and len(second.removed) >= 3
    assert {p.name for p in out.iterdir()} == new | {"deck.json", MANIFEST_NAME}


def test_files_ttsmod_did_not_write_are_never_removed(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "deck-9-000000000000.jpg").write_bytes(b"a file that only looks like a sheet")
    first = write_deck(make_faces(tmp_path / "v1", 3), out, "deck")
    edited = first.deck.sheets[0].path
    edited.write_bytes(b"the user replaced this sheet with their own file")  # no longer what ttsmod wrote
    second = write_deck(make_faces(tmp_path / "v2", 3, offset=50), out, "deck")
    assert second.deck.back_file == first.deck.back_file  # the same default back: not stale
    assert second.removed == ()  # the one stale sheet was changed by its user since: it is theirs now
    assert edited.read_bytes().startswith(b"the user")
    assert (out / "notes.txt").read_text() == "mine" and (out / "deck-9-000000000000.jpg").is_file()


def test_another_deck_in_the_same_folder_is_left_alone(tmp_path):
    out = tmp_path / "out"
    other = write_deck(make_faces(tmp_path / "o", 4, size=(50, 50)), out, "tokens")
    write_deck(make_faces(tmp_path / "v1", 4), out, "deck")
    write_deck(make_faces(tmp_path / "v2", 4, offset=40), out, "deck")
    for path in [other.saved_object, other.deck.back_path, *(s.path for s in other.deck.sheets)]:
        assert path.is_file(), path
    manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert set(manifest["decks"]) == {"tokens", "deck"}


def test_a_tampered_manifest_cannot_delete_outside_the_folder(tmp_path):
    out = tmp_path / "out"
    write_deck(make_faces(tmp_path / "v1", 3), out, "deck")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    digest = hashlib.sha256(victim.read_bytes()).hexdigest()
    manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    manifest["decks"]["deck"]["../victim.txt"] = digest
    manifest["decks"]["deck"][str(victim)] = digest
    (out / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    write_deck(make_faces(tmp_path / "v2", 3, offset=30), out, "deck")
    assert victim.read_text() == "keep me"


def test_a_damaged_manifest_is_a_clear_input_error_and_nothing_is_written(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST_NAME).write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"\.ttsmod-sheets\.json: not a ttsmod sheets manifest; delete it"):
        write_deck(make_faces(tmp_path / "v1", 3), out, "deck")
    assert [p.name for p in out.iterdir()] == [MANIFEST_NAME]


def test_out_being_a_file_is_an_input_error(tmp_path):
    (tmp_path / "out").write_text("x")
    with pytest.raises(InputError, match="is a file, not a folder"):
        write_deck(make_faces(tmp_path / "v1", 2), tmp_path / "out", "deck")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_a_read_only_folder_is_a_failed_operation_with_one_line(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    try:
        with pytest.raises(TtsmodError, match="cannot write the sheets"):
            write_deck(make_faces(tmp_path / "v1", 2), out, "deck")
    finally:
        out.chmod(0o755)
    assert list(out.iterdir()) == []


def test_mismatched_faces_and_back_are_warned_about_one_line_each_naming_the_file(tmp_path):
    faces = make_faces(tmp_path / "f", 3)
    wide = tmp_path / "f" / "wide.png"
    Image.new("RGB", (120, 60), (0, 0, 0)).save(wide)
    back = tmp_path / "back.png"
    Image.new("RGB", (64, 64), (0, 0, 0)).save(back)
    written = write_deck([*faces, wide], tmp_path / "out", "deck", back=back)
    assert len(written.warnings) == 2
    back_warning, face_warning = written.warnings
    assert back_warning.startswith(f"{back}: the back is 64x64") and "stretched over each card" in back_warning
    assert face_warning.startswith(f"{wide}: 120x60 is not the shape of the deck's cells (40x56")
    assert "letterboxed" in face_warning


def test_a_missing_last_face_fails_before_anything_is_packed(tmp_path):
    faces = make_faces(tmp_path / "f", 3)
    calls = []
    with pytest.raises(InputError, match="gone.png: no such file"):
        write_deck([*faces, tmp_path / "gone.png"], tmp_path / "out", "deck", progress=lambda *a: calls.append(a))
    with pytest.raises(InputError, match="f: is a folder, not an image"):
        write_deck([*faces, tmp_path / "f"], tmp_path / "out", "deck", progress=lambda *a: calls.append(a))
    assert calls == [] and not (tmp_path / "out").exists()


def test_the_default_back_has_the_cards_shape(tmp_path):
    written = write_deck(make_faces(tmp_path / "f", 2, size=(63, 88)), tmp_path / "out", "deck")
    with Image.open(written.deck.back_path) as back:
        assert abs(back.width / back.height - 63 / 88) < 0.01
    assert written.warnings == ()


def test_same_inputs_give_byte_identical_folders(tmp_path):
    faces = make_faces(tmp_path / "f", 30)
    write_deck(faces, tmp_path / "out", "deck")
    first = listing(tmp_path / "out")
    write_deck(faces, tmp_path / "out", "deck")
    assert listing(tmp_path / "out") == first


@pytest.mark.parametrize("name", ["", ".hidden", "a/b", "..", "a\\b", "c:d", "what?", " padded", "x" * 101, "tab\tname"])
def test_a_deck_name_that_is_not_a_plain_file_name_is_refused_before_anything_is_written(tmp_path, name):
    with pytest.raises(InputError, match="--name"):
        write_deck(make_faces(tmp_path / "f", 2), tmp_path / "out", name)
    assert not (tmp_path / "out").exists()


def test_a_cyrillic_deck_name_is_fine(tmp_path):
    written = write_deck(make_faces(tmp_path / "f", 2), tmp_path / "out", "Зілля")
    assert written.saved_object.name == "Зілля.json" and written.deck.sheets[0].file.startswith("Зілля-1-")
