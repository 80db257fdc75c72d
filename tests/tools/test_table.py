"""table.toml (tools/table.py): what a game drawn from data places on the table, and clear errors for bad entries."""

from __future__ import annotations

import pytest

from bridge.errors import DataError
from tools.save import DeckSheet
from tools.table import HandsSpec, PlacedDeck, compose_objects, hand_positions, parse_table

DECK = {"name": "cards", "cards": "cards", "back": "back"}


def test_entries_are_read_with_their_defaults():
    table = parse_table({
        "decks": [{**DECK, "count": "count", "shuffle": True, "position": [1, 2]}],
        "objects": [{"name": "board", "type": "board", "image": "art/board.png"},
                    {"name": "coin", "type": "token", "layout": "coin", "values": {"value": 1}, "count": 0}],
        "bags": [{"name": "coins", "contents": [{"object": "coin", "count": 10}]}],
        "zones": [{"name": "discard", "position": [0, 8], "size": [4, 6]}],
        "snap_points": [{"position": [3, 3], "tags": ["slot"]}],
        "labels": [{"text": "Discard", "position": [0, 12]}],
    })
    (deck,) = table.decks
    assert (deck.layout, deck.count, deck.shuffle, deck.position, deck.face_up) == ("cards", "count", True,
                                                                                     (1.0, 2.0), False)
    board, coin = table.objects
    assert board.locked and not coin.locked and coin.count == 0 and coin.values == {"value": 1}
    assert table.bags[0].contents == (("coin", 10),)
    assert table.labels[0].text == {"en": "Discard", "uk": "Discard", "ru": "Discard"}
    assert table.hands == HandsSpec()


@pytest.mark.parametrize("raw, entry, field, words", [
    ({"deck": []}, None, "deck", "unknown table"),
    ({"decks": [{"name": "cards", "cards": "cards"}]}, "decks[0]", "back", "missing"),
    ({"decks": [{**DECK, "colour": "red"}]}, "decks[0]", "colour", "unknown field"),
    ({"decks": [{**DECK, "position": [0, 900]}]}, "decks[0]", "position", "within"),
    ({"decks": [DECK, DECK]}, "decks[1]", "name", "decks[0] too"),
    ({"objects": [{"name": "x", "type": "meeple", "image": "a.png"}]}, "objects[0]", "type", "board, tile, token"),
    ({"objects": [{"name": "x", "type": "token"}]}, "objects[0]", "image", "exactly one"),
    ({"bags": [{"name": "b", "contents": [{"object": "ghost"}]}]}, "bags[0]", "contents[0].object", "not the name"),
    ({"zones": [{"name": "z", "position": [0, 0], "size": [0, 2]}]}, "zones[0]", "size", "above 0"),
    ({"labels": [{"text": {"fr": "Défausse"}, "position": [0, 0]}]}, "labels[0]", "text", "en = "),
    ({"hands": {"colours": ["Mauve"]}}, "hands", "colours", "seat colours"),
    ({"decks": [{**DECK, "memo": "role=draw"}]}, "decks[0]", "memo", "must be a table"),
    ({"zones": [{"name": "z", "position": [0, 0], "size": [2, 2], "memo": {"a": "x" * 5000}}]}, "zones[0]", "memo",
     "longer than 4096"),
    ({"bags": [{"name": "b", "contents": [{"object": "x"}], "description": 3}]}, "bags[0]", "description", "en = "),
])
def test_a_bad_entry_names_its_table_index_and_field(raw, entry, field, words):
    with pytest.raises(DataError) as caught:
        parse_table(raw)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("table.toml", entry, field)
    assert words in caught.value.message


def sheet() -> DeckSheet:
    return DeckSheet("file:///f.jpg", "file:///b.jpg", 3, 1)


def placed() -> dict[str, PlacedDeck]:
    return {"cards": PlacedDeck([("cards:a", 0, 0), ("cards:a", 0, 0), ("cards:b", 0, 1)], [sheet()])}


def compose(raw: dict, **options):
    return compose_objects(parse_table(raw), placed(), lambda name: f"file:///{name}.jpg",
                           seat_colours=options.get("colours", ["White", "Red"]), lang=options.get("lang", "en"),
                           game_id="g")


def test_a_deck_holds_every_copy_face_down_first_card_on_top_and_a_shuffle_is_seeded():
    objects, _ = compose({"decks": [DECK], "hands": False})
    (deck,) = objects
    assert deck.name == "Deck" and deck.transform.rot_z == 180
    # TTS keeps a deck's top card last: the list's first card is on top
    assert [c.payload["CardID"] for c in reversed(deck.contained)] == [100, 100, 101]
    shuffled = [compose({"decks": [{**DECK, "shuffle": True}], "hands": False, "seed": seed})[0][0]
                for seed in range(8)]
    orders = {tuple(c.key for c in d.contained) for d in shuffled}
    assert len(orders) > 1                                                  # the seed changes the order …
    again = compose({"decks": [{**DECK, "shuffle": True}], "hands": False, "seed": 3})[0][0]
    assert [c.key for c in again.contained] == [c.key for c in shuffled[3].contained]   # … and fixes it


def test_objects_bags_zones_labels_hands_and_snap_points_are_placed():
    objects, snaps = compose({
        "objects": [{"name": "board", "type": "board", "image": "b.png", "position": [0, 5],
                     "snap_points": [{"position": [1, -1], "tags": ["cell"]}]},
                    {"name": "coin", "type": "token", "image": "c.png", "count": 0}],
        "bags": [{"name": "coins", "contents": [{"object": "coin", "count": 4}]}],
        "zones": [{"name": "discard", "position": [0, 8], "size": [4, 6], "tags": ["pile"]}],
        "labels": [{"text": {"en": "Discard", "uk": "Скид"}, "position": [0, 12]}],
        "snap_points": [{"position": [3, 3], "rotation": 90}],
    }, lang="uk")
    kinds = [o.name for o in objects]
    assert kinds == ["Custom_Board", "Bag", "ScriptingTrigger", "3DText", "HandTrigger", "HandTrigger"]
    board, coins, zone, label, *hands = objects
    assert board.locked and board.payload["CustomImage"]["ImageURL"] == "file:///board.jpg"
    assert [(s.position.x, s.position.z, s.tags) for s in board.snap_points] == [(1.0, -1.0, ("cell",))]
    assert len(coins.contained) == 4 and all(c.name == "Custom_Token" for c in coins.contained)
    assert (zone.transform.scale_x, zone.transform.scale_z, zone.tags) == (4.0, 6.0, ("pile",))
    assert label.payload["Text"]["Text"] == "Скид"
    assert [h.payload["FogColor"] for h in hands] == ["White", "Red"]
    assert [(s.position.x, s.position.z, s.rotation.y) for s in snaps] == [(3.0, 3.0, 90.0)]


def test_hands_lie_in_a_row_unless_placed():
    spec = HandsSpec(positions={"Red": (0.0, 20.0)})
    positions = hand_positions(spec, ["White", "Red", "Blue"])
    assert positions["Red"] == (0.0, 20.0)
    assert positions["White"][1] == positions["Blue"][1] < 0 and positions["White"][0] < positions["Blue"][0]


def test_the_documented_table_reads_with_every_kind_of_entry():
    from pathlib import Path
    import tomllib

    page = (Path(__file__).resolve().parents[2] / "docs" / "data-format.md").read_text(encoding="utf-8")
    example = page.split("## Table layouts (table.toml)", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    table = parse_table(tomllib.loads(example))
    assert [d.name for d in table.decks] == ["cards"] and table.decks[0].shuffle
    assert [(o.name, o.type, o.count) for o in table.objects] == [("board", "board", 1), ("coin", "token", 0)]
    assert table.bags[0].contents == (("coin", 20),) and table.zones[0].size == (4.0, 6.0)
    assert table.snap_points[0].tags == ("draw",) and table.labels[0].text["uk"] == "Скид"
    assert table.hands.positions == {"White": (0.0, -22.0)}


def test_a_memo_and_a_description_go_on_the_object_for_a_global_script_and_the_players():
    """A data-only game with a Global script of its own finds its objects by the memos table.toml gives them."""
    import json

    objects, _ = compose({
        "decks": [{**DECK, "memo": {"role": "draw"}, "description": {"en": "Draw here", "uk": "Тягніть тут"}}],
        "objects": [{"name": "coin", "type": "token", "image": "c.png", "count": 1, "memo": {"role": "coin", "value": 1},
                     "description": "Worth one"}],
        "bags": [{"name": "coins", "contents": [{"object": "coin", "count": 2}], "memo": {"role": "bank"}}],
        "zones": [{"name": "discard", "position": [0, 8], "size": [4, 6], "memo": {"role": "pile"}}],
        "hands": False,
    }, lang="uk")
    deck, coin, bank, zone = objects
    assert json.loads(deck.memo_text()) == {"role": "draw"} and deck.description == "Тягніть тут"
    assert json.loads(coin.memo_text()) == {"role": "coin", "value": 1} and coin.description == "Worth one"
    assert json.loads(bank.memo_text()) == {"role": "bank"}
    assert [json.loads(c.memo_text()) for c in bank.contained] == [{"role": "coin", "value": 1}] * 2
    assert json.loads(zone.memo_text()) == {"zone": "discard", "role": "pile"}
