"""``ttsmod sheets``: faces on disk → sheets plus a TTS Saved Object JSON of the deck."""

from __future__ import annotations

import json
from urllib.parse import urlparse
from urllib.request import url2pathname

from click.testing import CliRunner
from PIL import Image

from tools.cli import cli


def make_faces(folder, n):
    paths = []
    for i in range(n):
        path = folder / f"card{i:03d}.png"
        Image.new("RGB", (50, 70), (i * 3 % 256, 90, 160)).save(path)
        paths.append(str(path))
    return paths


def test_sheets_writes_sheets_and_a_valid_saved_object(tmp_path):
    faces = make_faces(tmp_path, 72)
    back = tmp_path / "back.png"
    Image.new("RGB", (50, 70), (0, 0, 0)).save(back)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["sheets", *faces, "--out", str(out), "--back", str(back), "--name", "Deck"])
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "Deck.json").read_text(encoding="utf-8"))
    (deck,) = saved["ObjectStates"]
    assert saved["SaveName"] == "Deck" and deck["Name"] == "Deck"
    cards = deck["ContainedObjects"]
    assert [c["CardID"] for c in cards] == deck["DeckIDs"] == [100 + i for i in range(69)] + [200, 201, 202]
    assert [c["Nickname"] for c in cards][:2] == ["card000", "card001"]
    for key, entry in deck["CustomDeck"].items():
        assert entry["UniqueBack"] is False and entry["BackIsHidden"] is False and entry["Type"] == 0
        for url in (entry["FaceURL"], entry["BackURL"]):
            assert url.startswith("file:///")
            assert (out / url2pathname(urlparse(url).path).rsplit("/", 1)[-1]).is_file()
    assert (deck["CustomDeck"]["1"]["NumWidth"], deck["CustomDeck"]["1"]["NumHeight"]) == (10, 7)


def test_sheets_png_and_back_is_hidden(tmp_path):
    faces = make_faces(tmp_path, 70)
    result = CliRunner().invoke(cli, ["sheets", *faces, "--out", str(tmp_path / "o"), "--format", "png",
                                      "--back-is-hidden"])
    assert result.exit_code == 0, result.output
    saved = json.loads((tmp_path / "o" / "deck.json").read_text(encoding="utf-8"))
    (deck,) = saved["ObjectStates"]
    assert list(deck["CustomDeck"]) == ["1"] and deck["CustomDeck"]["1"]["BackIsHidden"] is True
    assert deck["CustomDeck"]["1"]["FaceURL"].endswith(".png")


def test_missing_face_file_is_a_one_line_error_with_exit_2(tmp_path):
    faces = make_faces(tmp_path, 2)
    result = CliRunner().invoke(cli, ["sheets", faces[0], str(tmp_path / "nope.png"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "nope.png: no such file" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "o" / "deck.json").exists()


def test_not_an_image_and_too_many_for_one_sheet_exit_2(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_text("hello")
    result = CliRunner().invoke(cli, ["sheets", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "not a readable image" in result.output
    faces = make_faces(tmp_path, 70)
    result = CliRunner().invoke(cli, ["sheets", *faces, "--out", str(tmp_path / "o"), "--one-sheet"])
    assert result.exit_code == 2 and "do not fit one sheet" in result.output
