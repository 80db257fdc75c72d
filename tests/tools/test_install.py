"""Installing into a TTS Saves folder: next free number, replacing our own save, never another."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tools.cli import cli
from tools.install import default_tts_dir, install


def build_dir(tmp_path: Path, name: str = "Four Humours", body: str = "v1") -> Path:
    out = tmp_path / f"build-{name.replace(' ', '')}"
    out.mkdir(exist_ok=True)
    (out / "FourHumours.json").write_text(json.dumps({"SaveName": name, "Note": body, "ObjectStates": []}),
                                          encoding="utf-8")
    (out / "FourHumours.png").write_bytes(b"\x89PNG thumb " + body.encode())
    return out


def saved(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_first_install_takes_the_next_free_number(tmp_path):
    tts = tmp_path / "tts"
    (tts / "Saves").mkdir(parents=True)
    (tts / "Saves" / "TS_Save_3.json").write_text('{"SaveName": "Other", "ObjectStates": []}')
    result = install(build_dir(tmp_path), tts)
    assert result.save_path == tts / "Saves" / "TS_Save_4.json"
    assert result.thumbnail_path == tts / "Saves" / "TS_Save_4.png"
    assert saved(result.save_path)["SaveName"] == "Four Humours"
    assert result.thumbnail_path.read_bytes().endswith(b"v1")
    assert not result.replaced


def test_reinstall_overwrites_our_own_save(tmp_path):
    tts = tmp_path / "tts"
    first = install(build_dir(tmp_path, body="v1"), tts)
    second = install(build_dir(tmp_path, body="v2"), tts)
    assert second.save_path == first.save_path and second.replaced
    assert saved(second.save_path)["Note"] == "v2"
    assert sorted(p.name for p in (tts / "Saves").iterdir()) == ["TS_Save_1.json", "TS_Save_1.png"]


def test_never_overwrites_another_save(tmp_path):
    tts = tmp_path / "tts"
    first = install(build_dir(tmp_path), tts)
    # The player saved another game into that slot in TTS: its SaveName changed.
    first.save_path.write_text('{"SaveName": "My campaign", "ObjectStates": []}')
    again = install(build_dir(tmp_path, body="v2"), tts)
    assert again.save_path != first.save_path and not again.replaced
    assert saved(first.save_path)["SaveName"] == "My campaign"


def test_same_save_name_not_installed_by_us_is_left_alone(tmp_path):
    tts = tmp_path / "tts"
    (tts / "Saves").mkdir(parents=True)
    theirs = tts / "Saves" / "TS_Save_1.json"
    theirs.write_text('{"SaveName": "Four Humours", "Note": "theirs", "ObjectStates": []}')
    result = install(build_dir(tmp_path), tts)
    assert result.save_path.name == "TS_Save_2.json"
    assert saved(theirs)["Note"] == "theirs"


def test_default_locations_per_os(tmp_path):
    home = tmp_path / "home"
    assert default_tts_dir("linux", home, {}) == home / ".local/share/Tabletop Simulator"
    assert default_tts_dir("darwin", home, {}) == home / "Library/Tabletop Simulator"
    assert default_tts_dir("win32", home, {"USERPROFILE": str(home)}) == \
        home / "Documents/My Games/Tabletop Simulator"


def test_cli_install_and_bad_input(tmp_path):
    runner = CliRunner()
    tts = tmp_path / "tts"
    result = runner.invoke(cli, ["install", str(build_dir(tmp_path)), "--tts-dir", str(tts)])
    assert result.exit_code == 0, result.output
    assert "TS_Save_1.json" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(cli, ["install", str(empty), "--tts-dir", str(tts)])
    assert result.exit_code == 2 and "no save" in result.output
    result = runner.invoke(cli, ["install", str(tmp_path / "nothing-here"), "--tts-dir", str(tts)])
    assert result.exit_code == 2
