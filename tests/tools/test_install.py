"""Installing into a TTS Saves folder: next free number, replacing our own save, never another."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from tools.cli import cli
from tools.install import default_tts_dir, install, known_documents_folder


def build_dir(tmp_path: Path, name: str = "Some Game", body: str = "v1") -> Path:
    out = tmp_path / f"build-{name.replace(' ', '')}"
    out.mkdir(exist_ok=True)
    (out / "SomeGame.json").write_text(json.dumps({"SaveName": name, "Note": body, "ObjectStates": []}),
                                          encoding="utf-8")
    (out / "SomeGame.png").write_bytes(b"\x89PNG thumb " + body.encode())
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
    assert saved(result.save_path)["SaveName"] == "Some Game"
    assert result.thumbnail_path.read_bytes().endswith(b"v1")
    assert not result.replaced


def test_reinstall_overwrites_our_own_save(tmp_path):
    tts = tmp_path / "tts"
    tts.mkdir()
    first = install(build_dir(tmp_path, body="v1"), tts)
    second = install(build_dir(tmp_path, body="v2"), tts)
    assert second.save_path == first.save_path and second.replaced
    assert saved(second.save_path)["Note"] == "v2"
    assert sorted(p.name for p in (tts / "Saves").iterdir()) == ["TS_Save_1.json", "TS_Save_1.png"]


def test_never_overwrites_another_save(tmp_path):
    tts = tmp_path / "tts"
    tts.mkdir()
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
    theirs.write_text('{"SaveName": "Some Game", "Note": "theirs", "ObjectStates": []}')
    result = install(build_dir(tmp_path), tts)
    assert result.save_path.name == "TS_Save_2.json"
    assert saved(theirs)["Note"] == "theirs"


def test_default_locations_per_os(tmp_path):
    home = tmp_path / "home"
    assert default_tts_dir("linux", home, {}) == home / ".local/share/Tabletop Simulator"
    assert default_tts_dir("darwin", home, {}) == home / "Library/Tabletop Simulator"
    # The shell could not say where Documents is: its usual place under the profile.
    assert default_tts_dir("win32", home, {"USERPROFILE": str(home)}, documents=lambda: None) == \
        home / "Documents/My Games/Tabletop Simulator"


def test_cli_install_and_bad_input(tmp_path):
    runner = CliRunner()
    tts = tmp_path / "tts"
    tts.mkdir()
    result = runner.invoke(cli, ["install", str(build_dir(tmp_path)), "--tts-dir", str(tts)])
    assert result.exit_code == 0, result.output
    assert "TS_Save_1.json" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(cli, ["install", str(empty), "--tts-dir", str(tts)])
    assert result.exit_code == 2 and "no save" in result.output
    result = runner.invoke(cli, ["install", str(tmp_path / "nothing-here"), "--tts-dir", str(tts)])
    assert result.exit_code == 2


# --- hardening: missing, odd and read-only folders; Saved Objects; --json; Windows Documents ---------------

def test_missing_tts_folder_is_not_created_and_says_what_was_looked_for(tmp_path):
    tts = tmp_path / "no-tts-here"
    result = CliRunner().invoke(cli, ["install", str(build_dir(tmp_path)), "--tts-dir", str(tts)])
    assert result.exit_code == 1
    assert result.output.startswith("error: Tabletop Simulator's data folder not found: looked for ")
    assert str(tts) in result.output and "--create" in result.output and len(result.output.splitlines()) == 1
    assert not tts.exists()


def test_missing_default_folder_names_the_default(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    result = CliRunner().invoke(cli, ["install", str(build_dir(tmp_path))])
    assert result.exit_code == 1
    assert str(tmp_path / "data" / "Tabletop Simulator") in result.output and "this system's default" in result.output
    assert not (tmp_path / "data").exists()


def test_create_makes_the_tts_folder(tmp_path):
    tts = tmp_path / "new" / "Tabletop Simulator"
    result = CliRunner().invoke(cli, ["install", str(build_dir(tmp_path)), "--tts-dir", str(tts), "--create"])
    assert result.exit_code == 0, result.output
    assert saved(tts / "Saves" / "TS_Save_1.json")["SaveName"] == "Some Game"


def test_saves_being_a_file_is_a_clear_error(tmp_path):
    tts = tmp_path / "tts"
    tts.mkdir()
    (tts / "Saves").write_text("not a folder")
    result = CliRunner().invoke(cli, ["install", str(build_dir(tmp_path)), "--tts-dir", str(tts)])
    assert result.exit_code == 1
    assert result.output == f"error: {tts / 'Saves'}: Saves is a file, not a folder; move the file away and install again\n"
    assert (tts / "Saves").read_text() == "not a folder"


def test_read_only_saves_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch):
    tts = tmp_path / "tts"
    (tts / "Saves").mkdir(parents=True)

    def refuse(*args, **kwargs):  # what a new file meets in a read-only folder (root ignores chmod, so emulate it)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("bridge.fsio._open_temp", refuse)
    result = CliRunner().invoke(cli, ["install", str(build_dir(tmp_path)), "--tts-dir", str(tts)])
    assert result.exit_code == 1
    assert result.output.startswith(f"error: cannot write {tts / 'Saves'}") and "Permission denied" in result.output
    assert "read-only?" in result.output and "Traceback" not in result.output
    assert list((tts / "Saves").iterdir()) == []


def saved_object(tmp_path: Path, name: str = "deck") -> Path:
    """What ``ttsmod sheets --name deck`` writes: a Saved Object with empty Date and VersionNumber."""
    out = tmp_path / "sheets-out"
    out.mkdir(exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps({"SaveName": name, "Date": "", "VersionNumber": "", "GameMode": "",
                                "ObjectStates": [{"Name": "Deck", "Nickname": name}]}), encoding="utf-8")
    return path


def test_saved_object_goes_to_saved_objects(tmp_path):
    tts = tmp_path / "tts"
    tts.mkdir()
    first = install(saved_object(tmp_path).parent, tts)
    assert first.kind == "object" and first.save_path == tts / "Saves" / "Saved Objects" / "deck.json"
    assert saved(first.save_path)["ObjectStates"][0]["Nickname"] == "deck"
    assert not list((tts / "Saves").glob("TS_Save_*.json"))
    again = install(saved_object(tmp_path), tts)
    assert again.save_path == first.save_path and again.replaced


def test_saved_object_of_someone_else_is_left_alone(tmp_path):
    tts = tmp_path / "tts"
    theirs = tts / "Saves" / "Saved Objects" / "deck.json"
    theirs.parent.mkdir(parents=True)
    theirs.write_text('{"theirs": true}')
    result = install(saved_object(tmp_path), tts)
    assert result.save_path.name == "deck (2).json" and not result.replaced
    assert saved(theirs) == {"theirs": True}


def test_records_of_earlier_versions_are_still_honoured(tmp_path):
    tts = tmp_path / "tts"
    (tts / "Saves").mkdir(parents=True)
    (tts / "Saves" / "TS_Save_5.json").write_text('{"SaveName": "Some Game", "ObjectStates": []}')
    (tts / "ttsmod-installs.json").write_text('{"Some Game": "TS_Save_5.json"}')
    result = install(build_dir(tmp_path), tts)
    assert result.save_path.name == "TS_Save_5.json" and result.replaced


def test_json_output_names_what_was_written(tmp_path):
    tts = tmp_path / "tts"
    tts.mkdir()
    result = CliRunner().invoke(cli, ["install", str(build_dir(tmp_path)), "--tts-dir", str(tts), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report == {"kind": "save", "name": "Some Game", "save": str(tts / "Saves" / "TS_Save_1.json"),
                      "thumbnail": str(tts / "Saves" / "TS_Save_1.png"), "replaced": False, "tts_dir": str(tts)}
    assert Path(report["save"]).is_file() and Path(report["thumbnail"]).is_file()


def test_windows_documents_come_from_the_shell(tmp_path):
    onedrive = tmp_path / "OneDrive" / "Документы"  # redirected and localised: no name guessing finds it
    assert default_tts_dir("win32", tmp_path, {"USERPROFILE": str(tmp_path)}, documents=lambda: onedrive) == \
        onedrive / "My Games" / "Tabletop Simulator"


class FakeShell:
    """SHGetKnownFolderPath / CoTaskMemFree as ctypes would call them, recording the folder id asked for."""

    def __init__(self, answer: str | None, status: int = 0):
        self.answer, self.status, self.asked, self.freed = answer, status, None, 0

    def SHGetKnownFolderPath(self, folder_id, flags, token, out):  # noqa: N802 (the Windows name)
        self.asked = uuid.UUID(bytes_le=bytes(folder_id._obj))
        if self.answer is not None:
            out._obj.value = self.answer
        return self.status

    def CoTaskMemFree(self, pointer):  # noqa: N802
        self.freed += 1


def test_known_folder_call_asks_for_documents_and_frees_the_string():
    shell = FakeShell(r"C:\Users\Оля\OneDrive\Документы")
    assert known_documents_folder(shell, shell) == Path(r"C:\Users\Оля\OneDrive\Документы")
    assert shell.asked == uuid.UUID("FDD39AD0-238F-46AF-ADB4-6C85480369C7") and shell.freed == 1
    failing = FakeShell(None, status=-2147024894)  # E_FILENOTFOUND-style HRESULT, no path
    assert known_documents_folder(failing, failing) is None and failing.freed == 0


def test_known_folder_is_none_off_windows():
    if sys.platform.startswith("win"):
        pytest.skip("Windows answers with the real folder")
    assert known_documents_folder() is None


def test_a_folder_ttsmod_sheets_wrote_installs_as_its_saved_object(tmp_path):
    """The folder holds the deck's JSON and the sheets' own record, ``.ttsmod-sheets.json``: only the first is
    a save (issue #28: the record counted as a second one and the install was refused)."""
    from PIL import Image

    faces = []
    for i in range(3):
        faces.append(tmp_path / f"face{i}.png")
        Image.new("RGB", (50, 70), (i * 40, 90, 160)).save(faces[-1])
    out = tmp_path / "out"
    made = CliRunner().invoke(cli, ["sheets", *map(str, faces), "--out", str(out), "--name", "Cards"])
    assert made.exit_code == 0, made.output
    assert (out / ".ttsmod-sheets.json").is_file()
    tts = tmp_path / "tts"
    tts.mkdir()
    result = CliRunner().invoke(cli, ["install", str(out), "--tts-dir", str(tts), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["kind"] == "object" and report["save"] == str(tts / "Saves" / "Saved Objects" / "Cards.json")
    assert saved(Path(report["save"])) == saved(out / "Cards.json")
