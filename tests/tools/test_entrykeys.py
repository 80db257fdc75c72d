"""The fingerprints of a build's long data lists (tools.entrykeys): an entry keeps its fingerprint exactly while
its text, its place and every other input and option stay the same, and the caches keyed by them are written
only when no input changed while the build ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import catalog
from bridge.catalog import TomlCache, read_toml
from tools import buildstamp
from tools.entrykeys import EntryKeys

OPTIONS = buildstamp.build_options(lang="en", mode=None, fmt="jpg", asset_base_url=None, max_pixels=None)


def cards_text(count: int, edit: dict[int, str] | None = None) -> str:
    edit = edit or {}
    return "# cards\n" + "".join(f'[[cards]]\nid = "c{n}"\ntitle = "{edit.get(n, f"Card {n}")}"\n\n'
                                 for n in range(count))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setattr(catalog, "TOML_CACHE_MIN_ENTRIES", 4)
    game = tmp_path / "game"
    game.mkdir()
    (game / "cards.toml").write_text(cards_text(6), encoding="utf-8")
    (game / "other.toml").write_text("x = 1\n", encoding="utf-8")
    return game


def keys_of(folder: Path, out: Path, options=OPTIONS) -> EntryKeys:
    stats = buildstamp.input_stats(folder, out)
    cache = TomlCache(out / ".cache")
    read_toml(folder, "cards.toml", cache=cache)
    entry_list, _ = cache.entries["cards.toml"]
    return EntryKeys.of_build(folder, out, options, {("cards.toml", "cards"): entry_list},
                              buildstamp.fingerprint_inputs(folder, out, stats), stats)


def test_an_edited_entry_alone_gets_another_fingerprint(folder: Path, tmp_path: Path):
    out = tmp_path / "out"
    before = keys_of(folder, out).fingerprints("cards.toml", "cards")
    assert keys_of(folder, out).fingerprints("cards.toml", "cards") == before and len(set(before)) == 6
    (folder / "cards.toml").write_text(cards_text(6, {4: "Edited"}), encoding="utf-8")
    after = keys_of(folder, out).fingerprints("cards.toml", "cards")
    assert [a == b for a, b in zip(before, after)] == [True, True, True, True, False, True]
    assert keys_of(folder, out).fingerprints("other.toml", "x") is None   # not a list read entry by entry


@pytest.mark.parametrize("change", ["another input", "the list's head", "an option", "a place"])
def test_anything_but_the_entry_changes_every_fingerprint(folder: Path, tmp_path: Path, change: str):
    out = tmp_path / "out"
    before = keys_of(folder, out).fingerprints("cards.toml", "cards")
    options = OPTIONS
    if change == "another input":
        (folder / "other.toml").write_text("x = 2\n", encoding="utf-8")
    elif change == "the list's head":
        (folder / "cards.toml").write_text(cards_text(6).replace("# cards", "# the cards"), encoding="utf-8")
    elif change == "an option":
        options = {**OPTIONS, "lang": "uk"}
    else:   # an entry inserted before the others: each of them has another place
        text = cards_text(6)
        (folder / "cards.toml").write_text(text.replace("[[cards]]", '[[cards]]\nid = "new"\n\n[[cards]]', 1),
                                           encoding="utf-8")
    after = keys_of(folder, out, options).fingerprints("cards.toml", "cards")
    assert not set(before) & set(after)


def test_kept_caches_are_written_only_when_no_input_changed_meanwhile(folder: Path, tmp_path: Path):
    out = tmp_path / "out"
    keys = keys_of(folder, out)
    keys.keep("memo.bin", b"one")
    keys.save()
    assert keys.read("memo.bin") == b"one"
    keys = keys_of(folder, out)
    keys.keep("memo.bin", b"two")
    (folder / "other.toml").write_text("x = 3\n", encoding="utf-8")   # an edit while the build runs
    keys.save()
    assert keys.read("memo.bin") == b"one"
    assert keys.read("missing.bin") is None
