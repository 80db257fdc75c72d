"""The build's ``preview.png`` (tools/build.py, :func:`tools.build.write_preview`): beside the save, in the
``--json`` report, the picture ``ttsmod preview`` draws of that save; not drawn again by a build that leaves the
save as it was, drawn again by one that changes it or finds the picture changed. On the tests' toy game (its own
folder, tests/games/pebble_race/), whose builds take a fraction of a second."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import tools.preview
from tools.build import build
from tools.cli import cli
from tools.preview import FolderImages, draw

TOY = Path(__file__).resolve().parents[1] / "games" / "pebble_race"


@pytest.fixture
def game(tmp_path) -> Path:
    folder = tmp_path / "pebble-race"
    shutil.copytree(TOY, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _no_drawing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the build drew the preview again")
    monkeypatch.setattr(tools.preview, "draw", refuse)


def test_the_build_draws_preview_png_beside_its_save_and_only_again_when_the_save_changes(game, tmp_path,
                                                                                          monkeypatch):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["build", str(game), "--out", str(out), "--jobs", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    preview = out / "preview.png"
    assert Path(report["preview"]) == preview.absolute() and Path(report["save"]).parent == preview.parent
    save = json.loads(Path(report["save"]).read_text(encoding="utf-8"))
    assert preview.read_bytes() == draw(save, FolderImages(out)).png()
    before = preview.read_bytes(), preview.stat().st_mtime_ns

    # the whole build runs again (the stamp not consulted) and leaves the save as it was: nothing is drawn
    with monkeypatch.context() as patched:
        _no_drawing(patched)
        again = build(game, out, jobs=1, stamp_checked=True)
    assert not again.save_changed and not again.preview_written and again.preview_path == preview
    assert (preview.read_bytes(), preview.stat().st_mtime_ns) == before

    # a picture that is not the one the build wrote (deleted, or edited) is drawn again
    preview.unlink()
    redrawn = build(game, out, jobs=1, stamp_checked=True)
    assert redrawn.preview_written and preview.read_bytes() == before[0]

    # an edit that changes the table changes the picture: one pebble card fewer, one fewer on the deck's count
    data = game / "pebbles.toml"
    text = data.read_text(encoding="utf-8")
    data.write_text(text.replace("copies = 4", "copies = 3", 1), encoding="utf-8")
    edited = build(game, out, jobs=1)
    assert edited.save_changed and edited.preview_written
    assert preview.read_bytes() != before[0] and preview.read_bytes() == draw(edited.save, FolderImages(out)).png()
    assert [o.count for o in draw(edited.save, FolderImages(out)).objects if o.name == "Deck"] == [9]


def test_only_what_the_preview_shows_draws_it_again(game, tmp_path, monkeypatch):
    """A deck shows its top card and its count: a card inside it edited draws nothing again; a card fewer, or the
    top card's sheet edited, draws the picture again."""
    from tools.build import file_urls, write_preview

    out = tmp_path / "out"
    result = build(game, out, jobs=1)
    save = result.save
    url_for = file_urls()
    images = {url_for(p): p for p in result.sheets}
    deck = next(o for o in save["ObjectStates"] if o["Name"] == "Deck")
    assert len(deck["ContainedObjects"]) >= 3

    def edited(change) -> dict:
        copy = json.loads(json.dumps(save))
        change(next(o for o in copy["ObjectStates"] if o["Name"] == "Deck"))
        return copy

    def middle_card(d):
        d["ContainedObjects"][1]["Nickname"] = "Renamed"
        d["ContainedObjects"][1]["Memo"] = "{}"

    with monkeypatch.context() as patched:
        _no_drawing(patched)
        assert write_preview(edited(middle_card), images, out) == (out / "preview.png", False)

    def one_card_fewer(d):
        d["ContainedObjects"].pop(1)
        d["DeckIDs"].pop(1)

    def top_sheet(d):
        shown = str(d["DeckIDs"][0] // 100)
        d["CustomDeck"][shown]["BackURL"] += "?edited"

    for change in (one_card_fewer, top_sheet):
        drawn = []
        monkeypatch.setattr(tools.preview, "draw", lambda *a, real=tools.preview.draw, **k: drawn.append(1) or
                            real(*a, **k))
        write_preview(edited(change), images, out)
        assert drawn == [1], change.__name__
        monkeypatch.undo()
