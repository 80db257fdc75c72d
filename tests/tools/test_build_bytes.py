"""What makes a build fast must not change a byte of it: the save's JSON text is exactly what the standard
encoder writes, and an incremental rebuild writes exactly what a cold build of the same data writes."""

from __future__ import annotations

import json
import math
from enum import IntEnum

import pytest

from tools.save import dumps


def standard(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


class Level(IntEnum):
    LOW = 1


TRICKY = [
    {},
    [],
    {"a": {}, "b": [], "c": [{}], "d": [[]]},
    {"Nickname": "Ёлка \"quoted\" \\ back\tslash\n\u2028 \x00 \x1f é 🦄", "Description": ""},
    {"posX": 0.0, "posY": -1.5, "big": 1e300, "small": 5e-324, "third": 1 / 3, "neg": -0.0, "int": -12,
     "huge": 10 ** 40},
    {"flags": [True, False, None], "nested": {"deeper": {"deepest": [1, [2, [3, {"x": "y"}]]]}}},
    ("a", "tuple", ("inside",)),
    "just a string",
    3.25,
    7,
    None,
    True,
    {"LuaScript": "local t = {}\r\nreturn t -- ünïcödé", "ObjectStates": [{"GUID": "abc123"}] * 3},
    # the fast path leaves these to the standard encoder, whose text is the answer
    {1: "int key", 2.5: "float key", None: "null key", True: "bool key"},
    {"level": Level.LOW, "levels": [Level.LOW]},
]


@pytest.mark.parametrize("data", TRICKY, ids=range(len(TRICKY)))
def test_the_save_encoder_writes_what_the_standard_encoder_writes(data):
    from tools.save.save import ObjectTexts, encode

    assert dumps(data) == standard(data)
    assert encode(data) == encode(data, known=ObjectTexts()) == standard(data).encode("utf-8")


@pytest.mark.parametrize("data", [{"x": math.nan}, {"x": [math.inf]}, {"x": -math.inf}, {"x": object()},
                                  {(1, 2): "tuple key"}, [{1, 2}]], ids=range(6))
def test_what_the_standard_encoder_refuses_the_save_encoder_refuses_alike(data):
    with pytest.raises((ValueError, TypeError)) as expected:
        standard(data)
    with pytest.raises(expected.type) as got:
        dumps(data)
    assert str(got.value) == str(expected.value)


def test_a_lua_string_literal_reads_back_as_its_text_and_escapes_as_before():
    import random

    from bridge.luaproject.bundle import _LUA_ESCAPES, lua_string, tokenize

    alphabet = [chr(c) for c in range(130)] + ["é", "Ё", "🦄", "\u2028", "\\n", '\\"']
    rnd = random.Random(13)
    for _ in range(2000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        literal = lua_string(text)
        # every byte that is not plain text escaped with a decimal or one-letter escape, nothing else touched
        assert literal == '"' + text.translate(_LUA_ESCAPES) + '"'
        (token,) = tokenize(literal)
        assert token.kind == "string" and token.value == text
        (token,) = tokenize("'" + literal[1:-1].replace("'", "\\'") + "'")   # the other quote reads alike
        assert token.value == text


def _table(cards: int, edited: int | None = None) -> dict:
    def card(i: int) -> dict:
        name = f"Card {i}" + (" (edited)" if i == edited else "")
        return {"GUID": f"{i:06x}", "Name": "Card", "Nickname": name, "Transform": {"posX": 1.5, "rotY": 180.0},
                "Tags": ["scene"], "CardID": 100 + i, "SidewaysCard": False, "ContainedObjects": []}
    deck = {"GUID": "d0d0d0", "Name": "Deck", "DeckIDs": [100 + i for i in range(cards)],
            "ContainedObjects": [card(i) for i in range(cards)]}
    return {"SaveName": "Test", "ObjectStates": [deck, {"GUID": "b0b0b0", "Name": "Custom_Board", "Nickname": "Ё"}]}


def test_object_texts_of_a_previous_save_give_the_standard_text_of_the_next_one():
    from tools.save.save import ObjectTexts

    first = ObjectTexts()
    assert dumps(_table(30), known=first) == standard(_table(30))
    assert first.changed
    kept = first.to_bytes()
    again = ObjectTexts.from_bytes(kept)
    assert dumps(_table(30), known=again) == standard(_table(30)) and not again.changed
    edited = ObjectTexts.from_bytes(kept)
    assert dumps(_table(30, edited=7), known=edited) == standard(_table(30, edited=7)) and edited.changed
    # one object's text made again, the others taken as they were
    assert len(edited.used.keys() - edited.previous.keys()) == 1
    grown = ObjectTexts.from_bytes(edited.to_bytes())
    assert dumps(_table(31), known=grown) == standard(_table(31))


def test_object_texts_keep_the_urls_found_below_each_object_for_the_next_build():
    from tools.save.save import ObjectTexts

    first = ObjectTexts()
    data = _table(3)
    dumps(data, known=first)
    cards = data["ObjectStates"][0]["ContainedObjects"]
    board = data["ObjectStates"][1]
    first.remember(cards[0], [("FaceURL", "file:///a/ü.png"), ("BackURL", "https://x/b.jpg?q=1&r=2")])
    first.remember(cards[1], [])
    first.remember(cards[2], [("FaceURL", "file:///nul\0.png")])   # not kept: found again next time
    first.remember(board, [])
    later = ObjectTexts.from_bytes(first.to_bytes())
    again = _table(3)
    dumps(again, known=later)
    cards = again["ObjectStates"][0]["ContainedObjects"]
    assert later.urls(cards[0]) == [("FaceURL", "file:///a/ü.png"), ("BackURL", "https://x/b.jpg?q=1&r=2")]
    assert later.urls(cards[1]) == []
    assert later.urls(cards[2]) is None
    assert later.urls(again["ObjectStates"][1]) == []
    assert later.urls(again["ObjectStates"][0]) is None   # a deck's text is not kept whole, nor its URLs
    assert not later.changed


def _flip(at: int):
    def flip(raw: bytes) -> bytes:
        return raw[:at] + bytes([raw[at] ^ 0x20]) + raw[at + 1:]
    return flip


@pytest.mark.parametrize("damage", [lambda raw: b"", lambda raw: b"junk", lambda raw: raw[:-3],
                                    _flip(30), _flip(60), _flip(-10)],
                         ids=["empty", "junk", "cut", "flip-key", "flip-text", "flip-last"])
def test_damaged_object_texts_are_no_texts_and_the_save_is_the_standard_text(damage):
    from tools.save.save import ObjectTexts

    first = ObjectTexts()
    dumps(_table(5), known=first)
    known = ObjectTexts.from_bytes(damage(first.to_bytes()))
    assert known.previous == {}
    assert dumps(_table(5), known=known) == standard(_table(5))


def test_a_build_appends_the_texts_of_the_objects_it_changed_and_a_damaged_tail_costs_only_that_tail(tmp_path):
    from tools.save.save import ObjectTexts, encode

    path = tmp_path / "save-objects.bin"
    first = ObjectTexts.load(path)
    assert encode(_table(30), known=first) == standard(_table(30)).encode("utf-8")
    first.save(path)
    written = path.read_bytes()
    edited = ObjectTexts.load(path)
    assert encode(_table(30, edited=7), known=edited) == standard(_table(30, edited=7)).encode("utf-8")
    edited.save(path)
    grown = path.read_bytes()
    # the file read, then one segment holding the edited card (the other 30 objects' texts are not written again)
    assert grown.startswith(written) and 0 < len(grown) - len(written) < len(written) / 20
    again = ObjectTexts.load(path)
    assert encode(_table(30, edited=7), known=again) == standard(_table(30, edited=7)).encode("utf-8")
    assert not again.changed and len(again.previous.keys() - again.used.keys()) == 1   # card 7 as it was
    # a segment cut short (a build killed while appending) loses that segment only, and the next save rewrites
    path.write_bytes(grown[:-5])
    cut = ObjectTexts.load(path)
    assert cut.previous.keys() == ObjectTexts.from_bytes(written).previous.keys()
    assert encode(_table(30, edited=7), known=cut) == standard(_table(30, edited=7)).encode("utf-8")
    cut.save(path)   # written anew: just the texts this build used
    assert ObjectTexts.load(path).previous == again.used and len(path.read_bytes()) < len(grown)


def test_texts_no_longer_used_are_dropped_once_they_would_be_a_fifth_of_the_file(tmp_path):
    from tools.save.save import ObjectTexts, encode

    path = tmp_path / "save-objects.bin"
    known = ObjectTexts.load(path)
    encode(_table(20), known=known)
    known.save(path)
    for edited in range(6):   # each build edits another card: one more text no longer used
        known = ObjectTexts.load(path)
        assert encode(_table(20, edited=edited), known=known) == standard(_table(20, edited=edited)).encode("utf-8")
        known.save(path)
        kept = ObjectTexts.load(path).previous
        assert kept.keys() >= known.used.keys()
        assert len(kept) - len(known.used) <= len(known.used) // 4   # dead entries bounded: the file is rewritten


def test_objects_the_texts_cannot_name_or_the_standard_encoder_refuses_go_the_standard_way():
    from tools.save.save import ObjectTexts

    for data in ({"ObjectStates": [{"GUID": "a", "Value": Level.LOW, "Gen": (x for x in [])}]},
                 {"ObjectStates": [{"GUID": "a", "Value": math.nan}]}):
        with pytest.raises((TypeError, ValueError)) as expected:
            standard(data)
        with pytest.raises(expected.type):
            dumps(data, known=ObjectTexts())
    data = {"ObjectStates": [{"GUID": "a", "Level": Level.LOW, 3: "int key"}]}
    assert dumps(data, known=ObjectTexts()) == standard(data)


def _largegame():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "largegame.py"
    spec = importlib.util.spec_from_file_location("largegame", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_rebuild_after_editing_one_card_is_byte_for_byte_the_cold_build_of_the_edited_game(tmp_path, monkeypatch):
    from bridge import catalog
    from tools.build import build

    # the game's list read entry by entry, as a big game's is: what a builder keeps by entry (tools.entrykeys) is
    # used by the rebuild
    monkeypatch.setattr(catalog, "TOML_CACHE_MIN_ENTRIES", 8)
    largegame = _largegame()
    game = largegame.growable_games()[0]
    recipe = largegame.grow_recipe(game)
    folder = largegame.make_large_game(game, tmp_path / "game", 0)   # the game as it is, in a folder to edit
    url = "https://files.example.org/game"                           # the same URLs whatever the output folder
    first = build(folder, tmp_path / "incremental", asset_base_url=url)
    first_save = first.save_path.read_bytes()
    data = folder / recipe["file"]
    head, marker, last = data.read_text(encoding="utf-8").rpartition(f"[[{recipe['table']}]]\n")
    data.write_text(head + marker + last.replace('en = "', 'en = "Edited ', 1), encoding="utf-8")
    caches = tmp_path / "incremental" / ".cache"
    kept = {name: (caches / name).read_bytes() for name in ("check-clean.bin", "texts-checked.txt")}
    again = build(folder, tmp_path / "incremental", asset_base_url=url)
    cold = build(folder, tmp_path / "cold", asset_base_url=url, use_cache=False)
    # the first build kept its verdicts (glyphs, objects checked clean); the second took in the edited card
    for name, before in kept.items():
        assert (caches / name).read_bytes() != before
    assert again.save_path.read_bytes() == cold.save_path.read_bytes() != first_save
    assert again.thumbnail_path.read_bytes() == cold.thumbnail_path.read_bytes()
    assert [p.name for p in again.sheets] == [p.name for p in cold.sheets]
    for mine, theirs in zip(again.sheets, cold.sheets):
        assert mine.read_bytes() == theirs.read_bytes()
    # only the edited card's sheet was written again
    assert len(again.changed_sheets) == 1 and again.changed_sheets[0] not in first.sheets
    assert set(again.sheets) - set(first.sheets) == set(again.changed_sheets)
