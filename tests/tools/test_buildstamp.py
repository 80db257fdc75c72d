"""A rebuild with nothing changed is answered from the build stamp, writing and rendering nothing; any change of
an input, an option or an output builds again (tools/buildstamp.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import build as build_module
from tools.build import build
from tools.buildstamp import STAMP_NAME

TOY = Path(__file__).resolve().parents[1] / "games" / "pebble_race"


@pytest.fixture
def game(tmp_path) -> Path:
    folder = tmp_path / "pebble-race"
    shutil.copytree(TOY, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _outputs(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in sorted(out.rglob("*"))
            if p.is_file() and ".cache" not in p.parts and p.name not in (STAMP_NAME, ".ttsmod-build.lock")}


def _no_loading(monkeypatch):
    def refuse(game):
        raise AssertionError("the build loaded the game although nothing changed")
    monkeypatch.setattr(build_module, "load", refuse)


def test_a_rebuild_with_nothing_changed_reads_and_writes_nothing(game, tmp_path, monkeypatch):
    out = tmp_path / "out"
    first = build(game, out, jobs=1)
    before = _outputs(out)
    _no_loading(monkeypatch)
    again = build(game, out, jobs=1)
    assert not again.save_changed and again.changed_sheets == ()
    assert again.save_path == first.save_path and again.sheets == first.sheets
    assert again.save == first.save                    # the save is read back for callers that use it
    assert _outputs(out) == before                     # not one file rewritten


def test_touching_an_input_without_changing_it_still_counts_as_unchanged(game, tmp_path, monkeypatch):
    out = tmp_path / "out"
    build(game, out, jobs=1)
    data = game / "pebbles.toml"
    os.utime(data, ns=(data.stat().st_atime_ns, data.stat().st_mtime_ns + 5_000_000_000))
    _no_loading(monkeypatch)
    assert not build(game, out, jobs=1).save_changed


def test_an_edited_data_file_builds_again_even_at_the_same_size_and_time(game, tmp_path):
    # The designer saves the file, builds, and saves again within the file system's time granularity: size and
    # time are the same, only the content differs (git's "racily clean" case).
    out = tmp_path / "out"
    data = game / "game.toml"
    text = data.read_text(encoding="utf-8")
    data.write_text(text, encoding="utf-8")
    stat = data.stat()
    build(game, out, jobs=1)
    edited = text.replace('en = "Pebble Race"', 'en = "Pobble Race"')
    assert edited != text and len(edited.encode()) == len(text.encode())
    data.write_text(edited, encoding="utf-8")
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns))   # the same tick
    result = build(game, out, jobs=1)
    assert result.save_changed and "Pobble Race" in json.dumps(result.save, ensure_ascii=False)


def test_a_new_or_removed_input_file_builds_again(game, tmp_path):
    out = tmp_path / "out"
    build(game, out, jobs=1)
    (game / "mod" / "notes.lua").write_text("return {}\n", encoding="utf-8")
    assert build_module.buildstamp.fresh_game_build(game, out, _options()) is None


@pytest.mark.parametrize("name", ["~$cards.xlsx", "#cards.toml#", ".~lock.cards.xlsx#"])
def test_the_lock_file_of_an_open_workbook_or_editor_is_no_input(game, tmp_path, name):
    out = tmp_path / "out"
    build(game, out, jobs=1)
    (game / name).write_bytes(b"owner")     # Office, Emacs and LibreOffice keep these beside an open file
    assert build_module.buildstamp.fresh_game_build(game, out, _options()) is not None


def test_a_changed_option_builds_again(game, tmp_path):
    out = tmp_path / "out"
    build(game, out, jobs=1)
    assert build_module.buildstamp.fresh_game_build(game, out, _options(lang="uk")) is None
    assert build_module.buildstamp.fresh_game_build(game, out, _options()) is not None


def test_a_deleted_or_hand_edited_output_is_built_again(game, tmp_path):
    out = tmp_path / "out"
    first = build(game, out, jobs=1)
    first.sheets[0].unlink()
    build(game, out, jobs=1)
    assert first.sheets[0].is_file()
    first.save_path.write_text("{}", encoding="utf-8")
    result = build(game, out, jobs=1)
    assert json.loads(first.save_path.read_text(encoding="utf-8")) == first.save
    assert result.save_changed


def test_an_unreadable_stamp_only_costs_a_full_build(game, tmp_path):
    out = tmp_path / "out"
    first = build(game, out, jobs=1)
    (out / STAMP_NAME).write_text("not json", encoding="utf-8")
    result = build(game, out, jobs=1)
    assert result.save == first.save and not result.save_changed


def _options(**changes):
    options = {"lang": "en", "mode": None, "format": "jpg", "asset_base_url": None, "max_pixels": None}
    options.update(changes)
    return options


def test_the_command_answers_a_no_op_without_loading_the_builder(game, tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-c", "import sys; from tools.cli import main; main()", "build", str(game),
               "--out", str(out), "--jobs", "1"]
    subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    probe = ("import sys; from tools.cli import main; sys.argv = ['ttsmod', 'build', sys.argv[1], '--out', "
             "sys.argv[2]]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('LOADED', sorted(m for m in sys.modules if m == 'tools.build' or m.startswith(('PIL', 'tools.render'))))")
    result = subprocess.run([sys.executable, "-c", probe, str(game), str(out)], capture_output=True, text=True,
                            timeout=120)
    assert "save (unchanged)" in result.stdout and "0 written this build" in result.stdout, result.stdout
    assert "LOADED []" in result.stdout, result.stdout + result.stderr
