"""The save object model: key order, card/deck invariants, GUIDs, byte-identical output."""

from __future__ import annotations

import json

import pytest

from tools.save import (
    DeckSheet, GuidAllocator, Save, SnapPoint, Vector, at, bag, card, custom_tile, custom_token, deck,
    derive_guid, is_guid, save_bytes, scripting_trigger, tts_date,
)

SHEET = DeckSheet("file:///x/faces.jpg", "file:///x/back.jpg", 3, 2)


def small_save() -> Save:
    cards = [card(f"deck/card:{i}", 1, i, SHEET, nickname=f"C{i}", tags=("c",)) for i in range(5)]
    tokens = [custom_token(f"bag/t:{i}", "file:///x/t.png", memo={"role": "potion", "i": i}) for i in range(3)]
    objects = [
        deck("deck", cards, transform=at(0, 0, face_down=True), tags=("d",)),
        bag("bag", tokens),
        custom_tile("tile", "file:///x/tile.png", snap_points=[SnapPoint(Vector(0.5, 0.1, 0), ("cell",))]),
        scripting_trigger("zone", transform=at(3, 3, scale=(2, 1, 3))),
    ]
    return Save("Test", objects, lua_script="print('hi')")


def test_same_save_gives_identical_bytes():
    assert save_bytes(small_save()) == save_bytes(small_save())


def test_output_looks_like_tts_json():
    text = save_bytes(small_save()).decode("utf-8")
    assert text.startswith('{\n  "SaveName": "Test",\n  "EpochTime": ')
    assert "\r" not in text and not text.endswith("\n")
    data = json.loads(text)
    assert list(data)[:4] == ["SaveName", "EpochTime", "Date", "VersionNumber"]
    assert list(data)[-1] == "ObjectStates"
    first = data["ObjectStates"][0]
    keys = list(first)
    assert keys[:3] == ["GUID", "Name", "Transform"]
    assert keys.index("Hands") < keys.index("DeckIDs") < keys.index("LuaScript") < keys.index("ContainedObjects")


def test_non_ascii_is_written_as_utf8():
    save = Save("Чотири", [custom_tile("t", "file:///x.png", nickname="Млин")])
    raw = save_bytes(save)
    assert "Млин".encode("utf-8") in raw and b"\\u" not in raw


def test_card_ids_and_deck_ids_follow_contained_order():
    data = small_save().to_json()
    d = data["ObjectStates"][0]
    assert d["DeckIDs"] == [c["CardID"] for c in d["ContainedObjects"]] == [100, 101, 102, 103, 104]
    assert set(d["CustomDeck"]) == {"1"}
    for c in d["ContainedObjects"]:
        assert list(c["CustomDeck"]) == [str(c["CardID"] // 100)]
    assert d["CustomDeck"]["1"]["NumWidth"] == 3 and d["CustomDeck"]["1"]["NumHeight"] == 2
    assert d["Transform"]["rotZ"] == 180.0


def test_guids_are_six_hex_unique_and_stable():
    data = small_save().to_json()
    guids = []

    def walk(objs):
        for o in objs:
            guids.append(o["GUID"])
            walk(o.get("ContainedObjects", []))

    walk(data["ObjectStates"])
    assert len(guids) == 4 + 5 + 3
    assert all(is_guid(g) for g in guids)
    assert len(set(guids)) == len(guids)
    assert data["ObjectStates"][0]["GUID"] == derive_guid("deck")


def test_guid_collision_is_resolved_deterministically():
    allocator = GuidAllocator()
    allocator.reserve(derive_guid("a"))
    assert allocator.allocate("a") == derive_guid("a", 1)
    with pytest.raises(ValueError):
        allocator.allocate("a")


def test_duplicate_object_keys_are_rejected():
    save = Save("X", [custom_tile("same", "u"), custom_tile("same", "u")])
    with pytest.raises(ValueError, match="same"):
        save.to_json()


def test_memo_is_compact_json_and_tags_are_registered():
    data = small_save().to_json()
    token = data["ObjectStates"][1]["ContainedObjects"][2]
    assert json.loads(token["Memo"]) == {"role": "potion", "i": 2}
    assert " " not in token["Memo"]
    labels = [t["displayed"] for t in data["ComponentTags"]["labels"]]
    assert labels == ["d", "c", "cell"]


def test_invalid_decks_are_refused():
    with pytest.raises(ValueError):
        deck("d", [card("c", 1, 0, SHEET)])
    with pytest.raises(ValueError):
        card("c", 1, 6, SHEET)  # a 3 x 2 sheet has indexes 0..5
    with pytest.raises(ValueError):
        DeckSheet("f", "b", 11, 2)


def test_tts_date_format():
    assert tts_date(1669149152) == "11/22/2022 8:32:32 PM"


def test_object_keys_follow_the_order_tts_writes(reference_saves):
    """Our Deck/Card/Custom_Tile keys appear in the same relative order as in a TTS v13.2 save."""
    reference = json.loads(reference_saves["arknova"].read_text(encoding="utf-8"))
    order = {}

    def walk(objs):
        for o in objs:
            order.setdefault(o["Name"], list(o))
            walk(o.get("ContainedObjects", []))

    walk(reference["ObjectStates"])
    ours = small_save().to_json()["ObjectStates"]
    for obj in [ours[0], ours[0]["ContainedObjects"][0], ours[2]]:
        theirs = order[obj["Name"]]
        shared = [k for k in obj if k in theirs]
        assert shared == [k for k in theirs if k in obj], obj["Name"]
    top = [k for k in small_save().to_json() if k in reference]
    assert top == [k for k in reference if k in top]
