"""``ttsmod check`` on saves built to hurt it: no traceback, no network path opened, one clear report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

import tools.check as check_module
from tools.check import MAX_NESTING, UnsafeURL, check_data, local_path
from tools.cli import cli

from tests.tools.test_imageio import bomb_png


def save_with(objects: list, **outer) -> dict:
    return {"SaveName": "x", "Date": "1/1/2024", "Table": "Table_Square", "VersionNumber": "v13.2.2",
            "LuaScript": "print(1)", "ObjectStates": objects, **outer}


def token(url: str, guid: str = "a1b2c3") -> dict:
    return {"Name": "Custom_Token", "GUID": guid, "CustomImage": {"ImageURL": url}}


def run_check(tmp_path: Path, data_or_text, *args: str):
    path = tmp_path / "save.json"
    text = data_or_text if isinstance(data_or_text, str) else json.dumps(data_or_text)
    path.write_text(text, encoding="utf-8")
    return CliRunner().invoke(cli, ["check", *args, str(path)])


def one_line_error(result) -> str:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


@pytest.mark.parametrize("url", [
    "file://fileserver/share/face.png",  # UNC: \\fileserver\share\face.png on Windows
    "file:////fileserver/share/face.png",
    "file:///%5C%5Cfileserver%5Cshare%5Cface.png",
    "//fileserver/share/face.png",
    "\\\\fileserver\\share\\face.png",
    "\\\\?\\UNC\\fileserver\\share\\face.png",
])
def test_network_paths_are_never_opened(url, monkeypatch):
    opened: list[str] = []
    real_probe = check_module.probe_image
    monkeypatch.setattr(Path, "is_file", lambda self: opened.append(str(self)) or False)
    monkeypatch.setattr(check_module, "probe_image", lambda p, **kw: opened.append(str(p)) or real_probe(p, **kw))
    report = check_data(save_with([token(url)]))
    assert opened == []
    unsafe = [f for f in report.findings if f.code == "url-unsafe"]
    assert len(unsafe) == 1 and unsafe[0].severity == "warning" and "only local files are read" in unsafe[0].message
    with pytest.raises(UnsafeURL):
        local_path(url)


def test_local_forms_are_read(tmp_path):
    face = tmp_path / "face.png"
    Image.new("RGB", (8, 8)).save(face)
    for url in (face.as_uri(), f"file://localhost{face}", str(face)):
        assert local_path(url) == face
        report = check_data(save_with([token(url)]))
        assert [f.code for f in report.findings] == ["local-url"], url
    assert local_path("https://example.org/face.png") is None
    assert local_path("file:///C:/Users/me/face.png").as_posix().endswith("C:/Users/me/face.png")


@pytest.mark.parametrize("url", ["file://[::1/face.png", "http://[oops/face.png", "file:///tmp/a%00b.png"])
def test_malformed_urls_are_findings_not_tracebacks(url):
    report = check_data(save_with([token(url)]))
    assert [(f.severity, f.code) for f in report.findings] == [("warning", "url-unsafe")]


def test_a_5000_character_path_is_a_finding(tmp_path):
    long = "/" + "/".join(["a" * 250] * 20) + "/face.png"
    result = run_check(tmp_path, save_with([token("file://" + long)]))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    line = next(line for line in result.output.splitlines() if "[image-missing]" in line)
    assert "characters)" in line and len(line) < 600  # the path is shortened, not printed whole


def test_ten_thousand_deep_json_is_a_one_line_input_error(tmp_path):
    deep = '{"ObjectStates": [' + '{"ContainedObjects": [' * 10_000 + "]}" * 10_000 + "]}"
    result = run_check(tmp_path, deep)
    assert result.exit_code == 2
    assert "nested too deeply" in one_line_error(result)


def test_containers_nested_as_deep_as_json_allows_are_walked_without_recursion(tmp_path):
    obj: dict = {"Name": "Bag", "GUID": "000000"}
    top = obj
    for i in range(1, 400):  # 800 levels of JSON: readable by the parser, too deep for a recursive walk
        child = {"Name": "Bag", "GUID": f"{i:06x}"}
        obj["ContainedObjects"] = [child]
        obj = child
    result = run_check(tmp_path, save_with([top]), "--json")
    assert result.exit_code == 1, result.output
    findings = json.loads(result.output)["findings"]
    deep = [f for f in findings if f["code"] == "nesting-depth"]
    assert len(deep) == 1 and str(MAX_NESTING) in deep[0]["message"]


@pytest.mark.parametrize("guid", [[1, 2], {"a": 1}, 7, None])
def test_a_guid_that_is_not_a_string(tmp_path, guid):
    objects = [token("https://example.org/a.png", guid=guid), token("https://example.org/b.png", guid=guid)]
    result = run_check(tmp_path, save_with(objects), "--json")
    assert result.exit_code == 1, result.output
    codes = {f["code"] for f in json.loads(result.output)["findings"]}
    assert codes & {"guid-shape", "guid-missing"}


def test_type_confused_fields_do_not_crash(tmp_path):
    weird = {"Name": ["Card"], "GUID": "a1b2c3", "Nickname": {"x": 1}, "CardID": "100",
             "CustomDeck": {"1": [1]}, "States": {"2": "no"}, "ContainedObjects": {"not": "a list"},
             "LuaScript": 5}
    deck = {"Name": "Deck", "GUID": "b1b2c3", "DeckIDs": [[1], None], "ContainedObjects": [1, "x"],
            "CustomDeck": {"1": {"NumWidth": "10", "NumHeight": None, "FaceURL": 3}}}
    result = run_check(tmp_path, save_with([weird, deck], LuaScript=["x"]), "--json")
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    codes = {f["code"] for f in json.loads(result.output)["findings"]}
    assert {"custom-deck", "sheet-grid", "deck-ids", "global-script-empty"} <= codes


def test_a_megabyte_nickname_is_shortened(tmp_path):
    result = run_check(tmp_path, save_with([{"Name": "Bag", "GUID": 7, "Nickname": "N" * 1_000_000}]))
    assert result.exit_code == 1 and "guid-shape" in result.output
    assert max(len(line) for line in result.output.splitlines()) < 1000


@pytest.mark.parametrize("as_json", [False, True])
def test_a_lone_surrogate_in_a_name_or_url_is_shown_escaped(tmp_path, as_json):
    # JSON may spell "\\ud800", which no UTF-8 encoder can write: the finding shows its escape instead
    card = {"Name": "Card", "Nickname": "bad\ud800", "GUID": "a1b2c3", "CardID": 500,
            "CustomDeck": {"1": {"FaceURL": f"file://{tmp_path}/gone\udfff.png", "BackURL": "",
                                 "NumWidth": 10, "NumHeight": 7}}}
    text = json.dumps(save_with([card]))
    assert "\\ud800" in text and "\\udfff" in text   # written by json.dumps as JSON escapes, as a hostile save has
    result = run_check(tmp_path, text, *(["--json"] if as_json else []))
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    if as_json:
        findings = json.loads(result.stdout)["findings"]
        # every finding about the card names it escaped (the local-url count names it in its message)
        assert findings and all(f["where"] == 'ObjectStates[0] Card "bad\\ud800" (a1b2c3)' or
                                (f["code"] == "local-url" and 'Card "bad\\ud800"' in f["message"]) for f in findings)
        assert any("gone\\udfff.png" in f["message"] for f in findings)
    else:
        assert 'error: ObjectStates[0] Card "bad\\ud800" (a1b2c3): CardID 500 names CustomDeck 5' in result.stdout
        assert "gone\\udfff.png" in result.stdout


def test_a_decompression_bomb_is_an_error_naming_file_and_size(tmp_path):
    bomb = bomb_png(tmp_path / "bomb.png")
    result = run_check(tmp_path, save_with([token(bomb.as_uri())]))
    assert result.exit_code == 1
    line = next(line for line in result.output.splitlines() if "[image-too-large]" in line)
    assert line.startswith("error: ") and "bomb.png" in line and "30000x30000" in line
    # The limit is the user's: raised above the bomb's size, the file is read (then too big a side for TTS).
    result = run_check(tmp_path, save_with([token(bomb.as_uri())]), "--max-pixels", str(10**9))
    assert "[image-too-large]" not in result.output and "[image-size]" in result.output


def test_saved_object_is_not_flagged_for_its_empty_global(tmp_path):
    face = tmp_path / "face.png"
    Image.new("RGB", (8, 8)).save(face)
    card = {"Name": "Card", "GUID": "a1b2c3", "CardID": 100,
            "CustomDeck": {"1": {"FaceURL": face.as_uri(), "BackURL": face.as_uri(), "NumWidth": 1,
                                 "NumHeight": 1}}}
    saved_object = {"SaveName": "Faces", "Date": "", "VersionNumber": "", "GameMode": "", "Table": "",
                    "Sky": "", "LuaScript": "", "ObjectStates": [card], "TabStates": {}}
    assert run_check(tmp_path, saved_object).exit_code == 0
    whole_save = dict(saved_object, Date="1/1/2024", Table="Table_Square", VersionNumber="v13.2.2")
    result = run_check(tmp_path, whole_save)
    assert result.exit_code == 1 and "[global-script-empty]" in result.output


def test_errors_only_hides_warnings_and_ignores_them_for_the_exit_status(tmp_path):
    data = save_with([{"Name": "Bag", "GUID": 7}])  # a warning only: a GUID that is not a text
    assert run_check(tmp_path, data).exit_code == 1
    result = run_check(tmp_path, data, "--errors-only")
    assert result.exit_code == 0 and "guid-shape" not in result.output
    data["ObjectStates"].append({"Name": "Card", "GUID": "a1b2c3", "CardID": 900, "CustomDeck": {}})
    result = run_check(tmp_path, data, "--errors-only", "--json")
    payload = json.loads(result.output)
    assert result.exit_code == 1 and {f["severity"] for f in payload["findings"]} == {"error"}
