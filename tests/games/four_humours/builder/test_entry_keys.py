"""The Four Humours renderer keeps each scene's image key by its entry (Renderer.keys with a build's
tools.entrykeys.EntryKeys): the keys are always those worked out afresh, and an edit works out again exactly the
keys it can change — one edited scene's, or every scene's after a layout, the language or the art changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from bridge import catalog
from bridge.catalog import TomlCache, load
from bridge.paths import assets_dir
from tools import buildstamp
from tools.entrykeys import EntryKeys
from tools.render import draw
from tools.games.four_humours.render import IMAGE_KEYS, Renderer, load_four_humours_layouts


URL = "https://files.example.org/game"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setattr(catalog, "TOML_CACHE_MIN_ENTRIES", 8)   # the sample's 36 scenes are read entry by entry
    folder = tmp_path / "game"
    shutil.copytree(assets_dir() / "four_humours", folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.fixture
def worked_out(monkeypatch) -> list[str]:
    """The names of the scenes whose key was worked out (not taken from the kept keys)."""
    names: list[str] = []
    key = Renderer.key

    def counted(self, name, kind):
        if kind == "scene":
            names.append(name)
        return key(self, name, kind)
    monkeypatch.setattr(Renderer, "key", counted)
    return names


def keys(folder: Path, out: Path, lang: str = "en") -> tuple[dict[str, str], dict[str, str]]:
    """The keys a build into ``out`` gives (its kept keys saved as a build saves them), and those worked out
    with nothing kept."""
    options = buildstamp.build_options(lang=lang, mode=None, fmt="jpg", asset_base_url=None, max_pixels=None)
    stats = buildstamp.input_stats(folder, out)
    loaded = load(folder, cache=TomlCache(out / ".cache"))
    entries = EntryKeys.of_build(folder, out, options, loaded.entries,
                                 buildstamp.fingerprint_inputs(folder, out, stats), stats)
    renderer = Renderer(loaded.data, load_four_humours_layouts(folder), folder, assets_dir() / "fonts", lang)
    kept = renderer.keys(entries)
    entries.save()
    fresh = Renderer(loaded.data, load_four_humours_layouts(folder), folder, assets_dir() / "fonts", lang).keys()
    return kept, fresh


def edit_title(folder: Path, scene: str) -> None:
    scenes = folder / "scenes.toml"
    text = scenes.read_text(encoding="utf-8")
    at = text.index(f'id = "{scene}"')
    scenes.write_text(text[:at] + text[at:].replace('en = "', 'en = "Edited ', 1), encoding="utf-8")


def test_an_edited_scene_alone_gets_its_key_worked_out_again(folder: Path, tmp_path: Path, worked_out):
    out = tmp_path / "out"
    first, fresh = keys(folder, out)
    assert first == fresh and (out / ".cache" / IMAGE_KEYS).is_file()
    worked_out.clear()
    again, fresh = keys(folder, out)
    assert again == first == fresh
    assert worked_out == [name for name in fresh if name.startswith("scene:")]   # the fresh keys' only
    worked_out.clear()
    edit_title(folder, "mill")
    edited, fresh = keys(folder, out)
    assert edited == fresh
    assert worked_out[0] == "scene:mill" and worked_out.count("scene:mill") == 2   # kept keys, then fresh
    assert {name for name in edited if edited[name] != first[name]} == {"scene:mill"}


@pytest.mark.parametrize("change", ["layout", "language", "art", "damaged"])
def test_a_change_of_the_layout_language_or_art_or_a_damaged_file_works_every_key_out(
        folder: Path, tmp_path: Path, worked_out, change: str):
    out = tmp_path / "out"
    first, _ = keys(folder, out)
    lang = "en"
    if change == "layout":
        layouts = folder / "layouts.toml"
        layouts.write_text(layouts.read_text(encoding="utf-8").replace('ink = "#2b2118"', 'ink = "#2b2119"', 1),
                           encoding="utf-8")
    elif change == "language":
        lang = "uk"
    elif change == "art":
        (folder / "art").mkdir(exist_ok=True)
        Image.new("RGB", (40, 30), (200, 40, 40)).save(folder / "art" / "mill.png")
        draw._art_listings.clear()   # the folder's listing as it is now, not as looked at a moment ago
    else:
        (out / ".cache" / IMAGE_KEYS).write_bytes(b'{"context": "x", "keys": [')
    worked_out.clear()
    kept, fresh = keys(folder, out, lang)
    assert kept == fresh
    scenes = [name for name in fresh if name.startswith("scene:")]
    assert worked_out == scenes + scenes   # every scene's key worked out, then again with nothing kept
    if change != "damaged":
        assert kept != first


def test_a_rebuild_takes_the_scene_cards_values_kept_by_entry_and_writes_the_save_a_fresh_build_writes(
        folder: Path, tmp_path: Path, monkeypatch):
    from tests.games.four_humours.builder.test_build import fake_render
    from tools.build import build
    from tools.games.four_humours.table import CARD_VALUES
    from tools.tablememo import CardMemo

    out = tmp_path / "out"
    build(folder, out, render=fake_render, asset_base_url=URL)   # (hosted URLs: the same in every output folder)
    kept = out / ".cache" / CARD_VALUES
    assert kept.is_file()
    taken: list[str] = []
    get = CardMemo.get

    def counted(self, context, key, count):
        found = get(self, context, key, count)
        if found is not None:
            taken.append(key)
        return found
    monkeypatch.setattr(CardMemo, "get", counted)
    edit_title(folder, "mill")
    again = build(folder, out, render=fake_render, asset_base_url=URL)
    scenes = len(again.save["ObjectStates"][next(i for i, o in enumerate(again.save["ObjectStates"])
                                                  if o.get("Nickname") == "Scenes")]["ContainedObjects"])
    assert len(taken) == 2 * (scenes - 1)   # every card's face and fields but the edited one's
    fresh = build(folder, tmp_path / "fresh", render=fake_render, asset_base_url=URL)   # nothing kept there
    assert again.save_path.read_bytes() == fresh.save_path.read_bytes()
    assert "Edited Mill" in again.save_path.read_text(encoding="utf-8")
    assert again.save == json.loads(again.save_path.read_text(encoding="utf-8"))   # plain values, kept or not
    kept.write_bytes(kept.read_bytes()[:-40])   # damaged: every card is worked out again, to the same save
    taken.clear()
    edit_title(folder, "mill")
    damaged = build(folder, out, render=fake_render, asset_base_url=URL)
    assert taken == []
    fresh = build(folder, tmp_path / "fresh-again", render=fake_render, asset_base_url=URL)
    assert damaged.save_path.read_bytes() == fresh.save_path.read_bytes()
