"""The parsed-entry cache of long data files (bridge.catalog.parse_toml_cached, read_toml(cache_dir=...)): the
document is always tomllib's, and every error stays the whole file's error."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from bridge.catalog import TOML_CACHE, TomlCache, load, parse_toml_cached, read_toml
from bridge.errors import DataError
from bridge.paths import assets_dir

HEAD = '''# a comment
version = 3
[meta]
name = "deck"
'''


def entry(n: int, title: str | None = None) -> str:
    title = title if title is not None else f"Card {n}"
    return (f'[[cards]]\nid = "c{n}"\ntitle = {{ en = "{title}", uk = "Карта {n}" }}\nweight = {n / 3!r}\n'
            f'text = """\nline one\n  line two {n}\n"""\nslots = [\n  {{ citizen = "a" }},\n  {{ citizen = "b" }},\n]\n'
            f'[cards.art]\nfile = "c{n}.png"\n[[cards.steps]]\ncount = {n}\n[[cards.steps]]\ncount = -{n}\n\n')


def text_of(count: int, edit: dict[int, str] | None = None) -> str:
    edit = edit or {}
    return HEAD + "".join(entry(n, edit.get(n)) for n in range(count))


def cache_pieces(cache_file: Path) -> dict:
    return json.loads(cache_file.read_text(encoding="utf-8"))["pieces"]


def test_cold_warm_and_edited_loads_give_the_whole_parse(tmp_path: Path):
    cache = tmp_path / "cache.json"
    text = text_of(100)
    assert parse_toml_cached(text, cache) == tomllib.loads(text)
    assert len(cache_pieces(cache)) == 101   # the head and each entry
    assert parse_toml_cached(text, cache) == tomllib.loads(text)
    edited = text_of(100, {57: "Edited"})
    document = parse_toml_cached(edited, cache)
    assert document == tomllib.loads(edited) and document["cards"][57]["title"]["en"] == "Edited"
    assert parse_toml_cached(edited, cache) == tomllib.loads(edited)


def test_the_cache_is_written_again_only_once_edits_add_up(tmp_path: Path):
    cache = tmp_path / "cache.json"
    parse_toml_cached(text_of(100), cache)
    written = cache.read_bytes()
    # A few edited entries are parsed again at each load rather than the whole cache written again ...
    for edits in (1, 8):
        text = text_of(100, {n: f"Edited {n}" for n in range(edits)})
        assert parse_toml_cached(text, cache) == tomllib.loads(text)
        assert cache.read_bytes() == written
    # ... until there are more of them: then it holds exactly the file's pieces, old texts forgotten.
    text = text_of(100, {n: f"Edited {n}" for n in range(9)})
    assert parse_toml_cached(text, cache) == tomllib.loads(text)
    pieces = cache_pieces(cache)
    assert len(pieces) == 101 and sum("Edited" in json.dumps(v) for v in pieces.values()) == 9


def test_entries_of_two_lists_keep_the_whole_parse_order(tmp_path: Path):
    text = HEAD + "".join(entry(n) + ("[[other]]\nx = 1\n" if n % 10 == 0 else "") for n in range(80))
    document = parse_toml_cached(text, tmp_path / "cache.json")
    assert document == tomllib.loads(text) and list(document) == list(tomllib.loads(text))


@pytest.mark.parametrize("text", [
    # an entry header inside a multi-line string: the cut leaves a piece unterminated
    text_of(70).replace('line one\n', 'line one\n[[cards]]\n', 1),
    # the head defines the list: a whole parse refuses it
    "cards = []\n" + text_of(70)[len(HEAD):],
    # a table after the last entry does not belong to an entry
    text_of(70) + "[footer]\nx = 1\n",
    # too few entries to be worth it
    text_of(10),
])
def test_a_text_in_doubt_is_left_to_the_whole_parse(tmp_path: Path, text: str):
    assert parse_toml_cached(text, tmp_path / "cache.json") is None


def test_dates_are_parsed_but_not_cached(tmp_path: Path):
    cache = tmp_path / "cache.json"
    text = text_of(70) + "[[cards]]\nid = \"dated\"\nwhen = 2024-01-02\n"
    assert parse_toml_cached(text, cache) == tomllib.loads(text)
    assert not cache.exists()


def test_a_damaged_cache_is_ignored(tmp_path: Path):
    cache = tmp_path / "cache.json"
    text = text_of(70)
    parse_toml_cached(text, cache)
    pieces = cache_pieces(cache)
    damaged = {digest: ["not", "a", "table"] for digest in pieces}
    cache.write_text(json.dumps({"format": json.loads(cache.read_text())["format"], "pieces": damaged}))
    assert parse_toml_cached(text, cache) is None   # a piece of the wrong shape: the whole parse answers
    cache.write_bytes(b"\xff not json")
    assert parse_toml_cached(text, cache) == tomllib.loads(text)


def test_an_error_after_a_warm_cache_is_the_whole_files_error(tmp_path: Path):
    folder, cache = tmp_path / "game", TomlCache(tmp_path / "cache")
    folder.mkdir()
    (folder / "cards.toml").write_text(text_of(100), encoding="utf-8")
    read_toml(folder, "cards.toml", cache=cache)
    assert not (tmp_path / "cache").exists()   # written only when asked
    cache.save()
    assert any((tmp_path / "cache" / TOML_CACHE).iterdir())
    (folder / "cards.toml").write_text(text_of(100, {80: 'Bad" quote'}), encoding="utf-8")
    with pytest.raises(DataError) as cached:
        read_toml(folder, "cards.toml", cache=cache)
    with pytest.raises(DataError) as whole:
        read_toml(folder, "cards.toml")
    assert str(cached.value) == str(whole.value) and "cards.toml" in str(whole.value)
    assert "line" in str(whole.value)


def test_a_grown_game_loads_the_same_records_with_and_without_the_cache(tmp_path: Path):
    folder = tmp_path / "game"
    shutil.copytree(assets_dir() / "four_humours", folder, ignore=shutil.ignore_patterns("__pycache__", "art"))
    scenes = folder / "scenes.toml"
    head, *blocks = scenes.read_text(encoding="utf-8").split("[[scenes]]\n")
    grown = [block.replace('id = "', f'id = "x{n}-', 1) for n in range(2) for block in blocks]
    scenes.write_text(head + "".join("[[scenes]]\n" + block for block in blocks + grown), encoding="utf-8")
    whole = load(folder).data
    cache = TomlCache(tmp_path / "cache")
    assert load(folder, cache=cache).data == whole   # cold
    cache.save()
    assert any((tmp_path / "cache" / TOML_CACHE).iterdir())
    assert load(folder, cache=TomlCache(tmp_path / "cache")).data == whole   # warm: read from it

