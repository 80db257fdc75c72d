"""``ttsmod preview SAVE``: the PNG it writes, its ``--json`` report as docs/modding.md documents it, its warnings,
and bad input as one line with exit status 2 and no file written. What the picture shows is
tests/tools/test_preview.py's."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from tests.shared import REPO_ROOT
from tests.test_docs_json import named_examples
from tools.cli import cli

MODDING = REPO_ROOT / "docs" / "modding.md"
EXAMPLE_SAVE = REPO_ROOT / "docs" / "examples" / "modding-table.json"


def _tile(guid: str, url: str, x: float, nickname: str = "") -> dict:
    return {"GUID": guid, "Name": "Custom_Tile", "Nickname": nickname,
            "Transform": {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 0.0,
                          "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0},
            "CustomImage": {"ImageURL": url, "ImageSecondaryURL": "", "CustomTile": {"Type": 0}}}


def _mixed_save(tmp_path: Path) -> Path:
    """A save with one tile drawn from its folder, one whose image lies out of it, one whose web image is not
    cached, one that cannot be placed, and an object of a type ttsmod does not know."""
    folder = tmp_path / "table"
    folder.mkdir()
    Image.new("RGB", (64, 64), (200, 40, 40)).save(folder / "red.png")
    Image.new("RGB", (64, 64), (40, 40, 200)).save(tmp_path / "blue.png")
    lost = _tile("f00d01", "red.png", 0.0, "Lost tile")
    lost["Transform"]["posX"] = "left"
    save = {"SaveName": "mixed", "Table": "Table_Square", "ObjectStates": [
        _tile("a1b2c1", "red.png", -6.0, "Home"), _tile("a1b2c2", (tmp_path / "blue.png").as_uri(), -2.0),
        _tile("a1b2c3", "https://example.com/board.jpg", 2.0), lost,
        {"GUID": "e0e0e0", "Name": "Mystery_Gizmo", "Transform": {"posX": 6.0, "posZ": 0.0}}]}
    path = folder / "mixed.json"
    path.write_text(json.dumps(save), encoding="utf-8")
    return path


def test_the_json_report_lists_what_was_drawn_and_what_was_not_as_documented(tmp_path):
    save = _mixed_save(tmp_path)
    out = tmp_path / "out.png"
    result = CliRunner().invoke(cli, ["preview", str(save), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    documented = named_examples(MODDING)
    assert set(report) == set(documented["preview-report"])
    assert report["save"] == str(save) and report["image"] == str(out)
    with Image.open(out) as picture:
        assert picture.format == "PNG" and list(picture.size) == report["size"] == [800, 800]
    drawn = {o["guid"]: (o["drawn"], o.get("why")) for o in report["objects"]}
    assert drawn == {"a1b2c1": ("image", None), "a1b2c2": ("outline", "outside the save's folder"),
                     "a1b2c3": ("outline", "an http(s) image: no --image-cache folder named"),
                     "e0e0e0": ("outline", "a type ttsmod does not know")}
    example = documented["preview-not-drawn"]
    assert report["not_drawn"] == [
        {"what": "image", "url": (tmp_path / "blue.png").as_uri(), "reason": "outside the save's folder",
         "guids": ["a1b2c2"]},
        {"what": "image", "url": "https://example.com/board.jpg",
         "reason": "an http(s) image: no --image-cache folder named", "guids": ["a1b2c3"]},
        {"what": "object", "guid": "f00d01", "name": "Custom_Tile", "nickname": "Lost tile",
         "reason": "Transform.posX is not a number"}]
    # each kind of entry has the documented keys, and the documented reasons are the ones given
    for entry in example["not_drawn"]:
        (same,) = {json.dumps(sorted(e)) for e in report["not_drawn"] if e["what"] == entry["what"]}
        assert json.loads(same) == sorted(entry)
    assert {e["reason"] for e in example["not_drawn"]} <= {e["reason"] for e in report["not_drawn"]}
    assert report["warnings"] == [example["warnings"][0]]
    # the objects carry the documented keys (those that apply to each)
    keys = set().union(*(set(o) for o in documented["preview-report"]["objects"]))
    assert all({"guid", "name", "drawn", "pixel", "width", "depth"} <= set(o) <= keys | {"face", "state", "label"}
               for o in report["objects"])


def test_the_documented_example_is_the_report_of_the_example_save(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["preview", str(EXAMPLE_SAVE), "-o", "my-table.png", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    documented = named_examples(MODDING)["preview-report"]
    assert Path(report.pop("save")) == EXAMPLE_SAVE and Path(report.pop("image")) == tmp_path / "my-table.png"
    assert documented.pop("save").endswith("docs/examples/modding-table.json")
    assert documented.pop("image").endswith("/my-table.png")
    assert report == documented
    # and the line printed without --json, as the page quotes it
    plain = CliRunner().invoke(cli, ["preview", str(EXAMPLE_SAVE), "-o", "my-table.png"])
    assert plain.stdout == ("wrote my-table.png (800 x 800): 2 object(s), 0 with their images, 2 as outlines, "
                            "0 zone(s), 0 snap point(s)\n") and plain.stderr == ""


def test_warnings_say_once_per_kind_what_was_not_drawn(tmp_path):
    save = _mixed_save(tmp_path)
    result = CliRunner().invoke(cli, ["preview", str(save), "-o", str(tmp_path / "out.png")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {tmp_path / 'out.png'} (800 x 800): 4 object(s), 1 with their images, "
                                    "3 as outlines, 0 zone(s), 0 snap point(s)")
    assert result.stderr.splitlines() == [
        "warning: Mystery_Gizmo: 1 object(s) of a type ttsmod does not know, drawn as 2 x 2 outlines",
        "warning: 1 image(s) not drawn: an http(s) image: no --image-cache folder named (--json lists them)",
        "warning: 1 image(s) not drawn: outside the save's folder (--json lists them)",
        "warning: Lost tile (f00d01) not drawn: Transform.posX is not a number"]


def test_size_state_image_cache_and_the_default_name(tmp_path, monkeypatch):
    save = _mixed_save(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    Image.new("RGB", (128, 64), (30, 160, 30)).save(cache / "httpsexamplecomboardjpg.jpg")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["preview", str(save), "--size", "300", "--state", "2", "--json",
                                      "--image-cache", str(cache)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert Path(report["image"]) == tmp_path / "mixed-preview.png" and report["size"] == [300, 300]
    assert {o["guid"]: o["drawn"] for o in report["objects"]}["a1b2c3"] == "image"
    assert [o["what"] for o in report["not_drawn"]] == ["image", "object"]   # the web image came from the cache
    with Image.open(tmp_path / "mixed-preview.png") as picture:
        assert picture.size == (300, 300)
    # the same save gives the same bytes, run after run
    first = (tmp_path / "mixed-preview.png").read_bytes()
    again = CliRunner().invoke(cli, ["preview", str(save), "--size", "300", "--image-cache", str(cache)])
    assert again.exit_code == 0 and (tmp_path / "mixed-preview.png").read_bytes() == first


def test_bad_input_is_one_line_exit_2_and_no_file(tmp_path):
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    (tmp_path / "broken.json").write_text('{"ObjectStates": [', encoding="utf-8")
    (tmp_path / "folder").mkdir()
    good = _mixed_save(tmp_path)
    out = tmp_path / "out.png"
    cases = [
        ([str(tmp_path / "none.json")], "none.json: no such file"),
        ([str(tmp_path / "list.json")], "list.json: not a TTS save (no ObjectStates list)"),
        ([str(tmp_path / "broken.json")], "broken.json: not valid JSON"),
        ([str(tmp_path / "folder")], "is a directory"),
        ([str(good), "--size", "10"], "--size must be 64 to 8192 pixels, not 10"),
        ([str(good), "--state", "0"], "--state"),
        ([str(good), "--image-cache", str(good)], "'--image-cache'"),
        ([str(good), "--image-cache", str(tmp_path / "nowhere")], "nowhere: the image cache is not a folder"),
    ]
    for args, words in cases:
        result = CliRunner().invoke(cli, ["preview", *args, "-o", str(out)])
        assert result.exit_code == 2, (args, result.output)
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: ") and words in line, (args, line)
        assert "Traceback" not in result.output and not out.exists()


def test_a_picture_that_cannot_be_written_is_one_line_exit_1(tmp_path):
    save = _mixed_save(tmp_path)
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    result = CliRunner().invoke(cli, ["preview", str(save), "-o", str(tmp_path / "file" / "out.png")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "out.png" in line
