"""``ttsmod sheets``: faces on disk → sheets plus a TTS Saved Object JSON of the deck."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import click
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


def test_landscape_faces_make_a_sideways_deck_and_a_misshapen_face_is_warned_about_by_name(tmp_path):
    faces = []
    for i in range(3):
        faces.append(tmp_path / f"land{i}.png")
        Image.new("RGB", (88, 63), (200, 20 * i, 0)).save(faces[-1])
    tall = tmp_path / "tall.png"
    Image.new("RGB", (63, 88), (0, 0, 200)).save(tall)
    out = tmp_path / "o"
    result = CliRunner().invoke(cli, ["sheets", *map(str, faces), str(tall), "--out", str(out), "--fit", "cover"])
    assert result.exit_code == 0, result.output
    (deck,) = json.loads((out / "deck.json").read_text(encoding="utf-8"))["ObjectStates"]
    assert deck["SidewaysCard"] is True and all(c["SidewaysCard"] for c in deck["ContainedObjects"])
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: {tall}: 63x88 is not the shape of the deck's cells (88x63, the first face); "
                        f"cropped to fill its cell"]
    assert "warning" not in result.stdout


def test_a_failed_run_leaves_nothing_in_out_and_says_so_in_one_line(tmp_path):
    faces = make_faces(tmp_path, 75)
    (tmp_path / "zz.png").write_text("not a png")
    out = tmp_path / "o"
    result = CliRunner().invoke(cli, ["sheets", *faces, str(tmp_path / "zz.png"), "--out", str(out)])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "zz.png: not a readable image" in result.stderr
    assert not out.exists()


def test_a_rerun_removes_its_own_stale_sheets_and_lists_them(tmp_path):
    out = tmp_path / "o"
    first = CliRunner().invoke(cli, ["sheets", *make_faces(tmp_path, 80), "--out", str(out), "--json"])
    assert first.exit_code == 0, first.output
    old_sheets = {s["file"] for s in json.loads(first.stdout)["sheets"]}
    (out / "readme.txt").write_text("mine")
    second = CliRunner().invoke(cli, ["sheets", *make_faces(tmp_path, 5), "--out", str(out)])
    assert second.exit_code == 0, second.output
    assert sum("removed (stale" in line for line in second.stdout.splitlines()) == len(old_sheets) == 2
    left = {p.name for p in out.iterdir()}
    assert not left & old_sheets and "readme.txt" in left and len([f for f in left if f.startswith("deck-")]) == 2


def test_json_prints_what_was_written_and_where(tmp_path):
    faces = make_faces(tmp_path, 72)
    out = tmp_path / "o"
    result = CliRunner().invoke(cli, ["sheets", *faces, "--out", str(out), "--name", "Deck", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["name"] == "Deck" and report["out"] == str(out) and report["fit"] == "contain"
    assert report["saved_object"] == str(out / "Deck.json") and report["sideways"] is False
    assert [(s["columns"], s["rows"], s["faces"], s["cell"]) for s in report["sheets"]] == [
        (10, 7, 69, [50, 70]), (2, 2, 3, [50, 70])]
    for path in [report["saved_object"], report["back"], *(s["path"] for s in report["sheets"])]:
        assert Path(path).is_file(), path
    assert all(Path(s["path"]).name == s["file"] for s in report["sheets"])
    assert report["fitted"] == [] and report["removed"] == [] and report["warnings"] == []


def docs_sheets_json_example() -> dict:
    """The ``--json`` example in docs/building.md's sheets section."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "building.md").read_text(encoding="utf-8")
    section = text.split("## `ttsmod sheets", 1)[1]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    return json.loads(block)


def test_the_documented_json_example_is_valid_and_has_the_real_shape(tmp_path):
    example = docs_sheets_json_example()
    wide = tmp_path / "wide.png"
    Image.new("RGB", (100, 50)).save(wide)
    out = tmp_path / "o"
    CliRunner().invoke(cli, ["sheets", *make_faces(tmp_path, 3), "--out", str(out)])
    result = CliRunner().invoke(cli, ["sheets", *make_faces(tmp_path, 2), str(wide), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    real = json.loads(result.stdout)

    def shape(value):
        if isinstance(value, dict):
            return {key: shape(item) for key, item in value.items()}
        if isinstance(value, list):
            return [shape(value[0])] if value else []
        return type(value).__name__

    assert shape(example) == shape(real)


def test_progress_only_on_request_when_stderr_is_not_a_terminal(tmp_path):
    faces = make_faces(tmp_path, 30)
    quiet = CliRunner().invoke(cli, ["sheets", *faces, "--out", str(tmp_path / "a"), "--json"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    asked = CliRunner().invoke(cli, ["sheets", *faces, "--out", str(tmp_path / "b"), "--json", "--progress"])
    assert asked.exit_code == 0, asked.output
    lines = asked.stderr.splitlines()
    assert lines[0] == "packing faces: 1/30" and lines[-1] == "packing faces: 30/30"
    assert len(lines) == 11  # the first face, then a line per tenth: not one per face
    assert json.loads(asked.stdout)["sheets"][0]["faces"] == 30  # stdout stays pure JSON


def test_every_option_has_help_text():
    command = cli.load_all()["sheets"]
    options = [p for p in command.params if isinstance(p, click.Option)]
    assert {o.name for o in options} >= {"fmt", "fit", "progress", "as_json", "max_pixels"}
    assert [o.name for o in options if not o.help] == []
    result = CliRunner().invoke(cli, ["sheets", "--help"])
    assert "--format [jpg|png]" in result.output and "Sheet image format" in result.output


def test_a_decompression_bomb_is_one_line_with_its_size_and_the_limit_is_an_option(tmp_path):
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
    result = CliRunner().invoke(cli, ["sheets", str(bomb), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.strip().startswith("error:") and "bomb.png: image is 30000x30000" in result.stderr
    small = make_faces(tmp_path, 1)
    limited = CliRunner().invoke(cli, ["sheets", *small, "--out", str(tmp_path / "o"), "--max-pixels", "1000"])
    assert limited.exit_code == 2 and "50x70 = 3,500 pixels, over the limit of 1,000" in limited.stderr
    assert not (tmp_path / "o").exists()


def test_asset_base_url_writes_hosted_urls_and_says_where_to_publish(tmp_path):
    out = tmp_path / "o"
    base = "https://files.example.org/decks"
    result = CliRunner().invoke(cli, ["sheets", *make_faces(tmp_path, 3), "--out", str(out),
                                      "--asset-base-url", base])
    assert result.exit_code == 0, result.output
    assert f"ttsmod publish {out} --to {base}" in result.stdout and "file:///" not in result.stdout
    (deck,) = json.loads((out / "deck.json").read_text(encoding="utf-8"))["ObjectStates"]
    entry = deck["CustomDeck"]["1"]
    for url in (entry["FaceURL"], entry["BackURL"]):
        assert url.startswith(base + "/deck-") and (out / url[len(base) + 1:]).is_file()
    report = json.loads(CliRunner().invoke(cli, ["sheets", *make_faces(tmp_path, 3), "--out", str(out),
                                                 "--asset-base-url", base, "--json"]).stdout)
    assert report["local_urls"] is False


def test_asset_base_url_must_be_http_and_nothing_is_written(tmp_path):
    out = tmp_path / "o"
    result = CliRunner().invoke(cli, ["sheets", *make_faces(tmp_path, 2), "--out", str(out),
                                      "--asset-base-url", "ftp://files.example.org"])
    assert result.exit_code == 2
    assert 'error: --asset-base-url must be an http(s) URL, not "ftp://files.example.org"' in result.output
    assert not out.exists()
