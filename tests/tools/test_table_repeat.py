"""table.toml entries laid out from the data (tools/table.py): repeated per seat or per item of a list, with a step
or on a grid, only where a condition holds, in groups and in a given order, with keys, memos, tags and texts
from {…} expressions; decks of a renderer's packed faces, bags holding decks, hand zones, objects sized from
their image. Every mistake names the file, the entry and the field."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.errors import DataError
from tools.cli import cli
from tools.save import DeckSheet, SnapPoint, Vector
from tools.table import ArtDeck, PlacedDeck, compose_objects, parse_table

from tests.tools.tablescenes import SCENES as FOUR_SCENES

SEATS = ["White", "Red", "Blue"]


SCENES = list(FOUR_SCENES[:3])
SHEET = DeckSheet("file:///scenes.jpg", "file:///back.jpg", 3, 1)
ART = {"scenes": ArtDeck({f"scene:{s.id}": (4, i, SHEET) for i, s in enumerate(SCENES)})}
SIZES = {"board": (400, 200), "coin": (64, 64)}


def compose(toml: str, **names):
    table = parse_table(tomllib.loads(toml))
    return compose_objects(table, {}, lambda name: f"file:///{name}.png", seat_colours=SEATS, lang="uk",
                           game_id="g", mode="a", names={"scenes": SCENES, **names}, art=ART,
                           art_url=lambda name: f"file:///art/{name}.png", art_size=lambda name: SIZES[name])


def memo(obj):
    return json.loads(obj.memo_text())


def where(obj):
    t = obj.transform
    return t.pos_x, t.pos_z


def test_an_entry_is_placed_for_each_seat_with_its_key_tags_memo_and_a_step():
    objects, _ = compose('''
        hands = false
        [[objects]]
        name = "marker"
        for_each = "seats"
        as = "seat"
        count = 2
        type = "token"
        art = "coin"
        key = "marker:{seat}:{index}"
        nickname = "{seat} marker"
        position = [-10, 4]
        step = [0.5, -1]
        y = 1.1
        tags = ["m", "owner:{seat}"]
        memo = { role = "marker", owner = "{seat}", seat = "{seat_index}", n = "{index}" }
    ''')
    assert [o.key for o in objects] == [f"marker:{c}:{i}" for i, c in enumerate(s for s in SEATS for _ in "ab")]
    assert [where(o) for o in objects] == [(-10 + i * 0.5, 4 - i) for i in range(6)]
    assert objects[3].nickname == "Red marker" and objects[3].tags == ("m", "owner:Red")
    assert memo(objects[3]) == {"role": "marker", "owner": "Red", "seat": 1, "n": 3}
    assert objects[0].payload["CustomImage"]["ImageURL"] == "file:///art/coin.png"
    assert objects[0].transform.pos_y == 1.1


def test_a_grid_lays_rows_of_columns_and_when_keeps_the_items_it_holds():
    objects, _ = compose('''
        hands = false
        [[objects]]
        name = "tile"
        count = 5
        type = "tile"
        art = "coin"
        position = [0, 0]
        step = [2, 0]
        columns = 2
        row_step = [0, -3]
        [[zones]]
        name = "spot"
        for_each = "scenes"
        as = "scene"
        when = "scene.mode == mode"
        key = "spot:{scene.id}:{index}"
        position = ["{index * 4}", 9]
        size = [2, 2]
    ''')
    tiles, spots = objects[:5], objects[5:]
    assert [where(t) for t in tiles] == [(0, 0), (2, 0), (0, -3), (2, -3), (0, -6)]
    assert [o.key for o in spots] == ["spot:mill:0", "spot:well:1"]      # mode "a": the inn is left out
    assert [where(o) for o in spots] == [(0, 9), (4, 9)]
    assert memo(spots[0]) == {"zone": "spot"}


def test_groups_interleave_their_entries_and_order_says_what_comes_first():
    objects, _ = compose('''
        hands = false
        order = ["seat", "board"]
        [values]
        x0 = -12
        pitch = "{x0 / -2}"            # a value may use the values before it
        [[groups]]
        name = "seat"
        for_each = "seats"
        as = "seat"
        place = ["mat", "hand"]
        [[objects]]
        name = "board"
        type = "board"
        art = "board"
        key = "board"
        depth = 10
        [[objects]]
        name = "mat"
        type = "tile"
        art = "board"
        key = "mat:{seat}"
        position = ["{x0 + seat_index * pitch}", -15]
        rotation = "{-180 if seat_index == 1 else 0}"
        [[zones]]
        name = "hand"
        type = "hand"
        colour = "{seat}"
        key = "hand:{seat}"
        position = ["{x0 + seat_index * pitch}", -26]
        y = 4
        size = [14, 4]
        height = 6
        tags = ["hand", "owner:{seat}"]
        memo = { role = "hand", owner = "{seat}" }
    ''')
    assert [o.key for o in objects] == ["mat:White", "hand:White", "mat:Red", "hand:Red", "mat:Blue", "hand:Blue",
                                        "board"]
    mats, hands = objects[0:6:2], objects[1:6:2]
    assert [where(m) for m in mats] == [(-12, -15), (-6, -15), (0, -15)]
    assert [m.transform.rot_y for m in mats] == [180, 0, 180]
    assert [h.name for h in hands] == ["HandTrigger"] * 3 and hands[1].payload["FogColor"] == "Red"
    assert (hands[1].transform.scale_x, hands[1].transform.scale_y, hands[1].transform.pos_y) == (14, 6, 4)
    assert memo(hands[2]) == {"role": "hand", "owner": "Blue"} and hands[2].nickname == ""
    board = objects[6]
    # the board's image is 400 x 200: 10 units deep is a scale of 5, its height kept
    assert (board.transform.scale_x, board.transform.scale_y, board.transform.scale_z) == (5, 1, 5)


def test_a_deck_of_the_renderer_s_faces_carries_each_card_s_data():
    objects, _ = compose('''
        hands = false
        [[decks]]
        name = "scene-deck"
        cards = "scenes"
        sheet = "scenes"
        face = "scene:{card.id}"
        key = "scene-deck"
        top = "last"
        nickname = "Scenes"
        [decks.card]
        when = "card.mode == mode"
        key = "scene-deck/{card.id}"
        nickname = "{card.title}"
        tags = ["scene"]
        memo = { role = "scene", card = "{card.id}" }
        snap_points = "{slots}"
    ''', slots=(SnapPoint(Vector(0.5, 0.2, 0.0), ("slot",)),))
    (deck,) = objects
    assert deck.key == "scene-deck" and deck.nickname == "Scenes"
    assert [c.key for c in deck.contained] == ["scene-deck/mill", "scene-deck/well"]     # top = "last": as listed
    assert [c.payload["CardID"] for c in deck.contained] == [400, 402]
    assert [c.nickname for c in deck.contained] == ["Млин", "Криниця"]
    assert memo(deck.contained[1]) == {"role": "scene", "card": "well"}
    assert deck.contained[0].snap_points[0].tags == ("slot",)


def test_a_bag_holds_copies_per_item_numbered_through_the_bag_and_a_deck():
    objects, _ = compose('''
        hands = false
        [[bags]]
        name = "bag"
        for_each = "seats"
        as = "seat"
        key = "bag:{seat}"
        position = ["{seat_index * 3}", 5]
        colour = "{seat}"
        order = "lifo"
        contents = [{ object = "potion", for_each = "kinds", as = "kind", count = "{kind.n}" },
                    { deck = "scene-deck" }]
        [[objects]]
        name = "potion"
        count = 0
        type = "tile"
        art = "coin"
        back_art = "coin"
        shape = "circle"
        thickness = 0.15
        hands = true
        key = "bag:{seat}/potion:{index}"
        memo = { owner = "{seat}", kind = "{kind.id}" }
        [[decks]]
        name = "scene-deck"
        cards = "scenes"
        sheet = "scenes"
        face = "scene:{card.id}"
        key = "bag:{seat}/scenes"
        [decks.card]
        key = "bag:{seat}/scene:{card.id}"
    ''', kinds=[{"id": "a", "n": 2}, {"id": "b", "n": 0}, {"id": "c", "n": 1}])
    assert [o.key for o in objects] == ["bag:White", "bag:Red", "bag:Blue"]      # the deck is in the bags only
    red = objects[1]
    assert red.payload["Bag"]["Order"] == 0 and red.colour.r > 0.8 > red.colour.b
    potions, scenes = red.contained[:3], red.contained[3]
    assert [p.key for p in potions] == ["bag:Red/potion:0", "bag:Red/potion:1", "bag:Red/potion:2"]
    assert [memo(p)["kind"] for p in potions] == ["a", "a", "c"]
    assert where(potions[0]) == (3, 5) and potions[0].transform.pos_y == 2.0      # at the bag's place
    tile = potions[0].payload["CustomImage"]
    assert (tile["ImageSecondaryURL"], tile["CustomTile"]["Type"], tile["CustomTile"]["Thickness"]) == \
        ("file:///art/coin.png", 2, 0.15) and potions[0].hands
    assert scenes.name == "Deck" and scenes.key == "bag:Red/scenes" and len(scenes.contained) == 3


def test_a_repeated_deck_lies_a_step_further_each_time_and_a_computed_shuffle_shuffles():
    toml = '''
        hands = false
        seed = {seed}
        [[decks]]
        name = "scene-deck"
        for_each = "seats"
        as = "seat"
        cards = "scenes"
        sheet = "scenes"
        face = "scene:{{card.id}}"
        key = "scenes:{{seat}}"
        shuffle = "{{seat_index == 1}}"
        position = [-4, 2]
        step = [4, 0]
        [decks.card]
        key = "scenes:{{seat}}/{{card.id}}"
    '''
    listed = ["mill", "inn", "well"]
    orders = set()
    for seed in range(6):
        objects, _ = compose(toml.format(seed=seed))
        assert [where(d) for d in objects] == [(-4, 2), (0, 2), (4, 2)]
        # TTS keeps a deck's top card last: read from the top
        white, red, blue = ([c.key.split("/")[1] for c in reversed(d.contained)] for d in objects)
        assert white == blue == listed                                   # shuffle false: the list's order
        assert sorted(red) == sorted(listed)
        orders.add(tuple(red))
    assert len(orders) > 1                                               # shuffle true: the seed's order


def test_table_snap_points_and_labels_repeat_too():
    objects, snaps = compose('''
        hands = false
        [[snap_points]]
        count = 3
        position = ["{12 + (index + 1) * 2.5}", 2.5]
        tags = ["offer", "offer:{index}"]
        [[labels]]
        for_each = "seats"
        text = "{item}"
        position = ["{index * 10}", 20]
    ''')
    assert [(s.position.x, s.tags) for s in snaps] == [(14.5, ("offer", "offer:0")), (17.0, ("offer", "offer:1")),
                                                        (19.5, ("offer", "offer:2"))]
    assert [o.payload["Text"]["Text"] for o in objects] == SEATS


def test_an_object_sized_by_width_keeps_its_aspect_and_uniform_scales_its_height():
    objects, _ = compose('''
        hands = false
        [[objects]]
        name = "coin"
        type = "token"
        art = "coin"
        width = 1.4
        uniform = true
    ''')
    t = objects[0].transform
    assert (t.scale_x, t.scale_y, t.scale_z) == (0.7, 0.7, 0.7)


@pytest.mark.parametrize("raw, entry, field, words", [
    ({"objects": [{"name": "x", "type": "tile", "art": "coin", "key": "{nope"}]}, "objects[0]", "key",
     'no "}" after it'),
    ({"objects": [{"name": "x", "type": "tile", "art": "a", "as": "seat"}]}, "objects[0]", "as", "give for_each"),
    ({"objects": [{"name": "x", "type": "tile", "art": "a", "columns": 3}]}, "objects[0]", "columns", "give step"),
    ({"objects": [{"name": "x", "type": "tile", "art": "a", "for_each": "seats", "as": "index"}]}, "objects[0]",
     "as", "none of"),
    ({"objects": [{"name": "x", "type": "board", "art": "a", "shape": "circle"}]}, "objects[0]", "shape",
     "tiles and tokens"),
    ({"objects": [{"name": "x", "type": "tile", "art": "a", "width": 2, "scale": 2}]}, "objects[0]", "scale",
     "sets the scale"),
    ({"decks": [{"name": "d", "cards": "c", "back": "b", "sheet": "s"}]}, "decks[0]", "sheet", "not both"),
    ({"decks": [{"name": "d", "cards": "c", "sheet": "s", "card": {"colour": 1}}]}, "decks[0]", "card.colour",
     "unknown field"),
    ({"zones": [{"name": "z", "type": "hand", "position": [0, 0], "size": [1, 1]}]}, "zones[0]", "colour",
     "missing"),
    ({"bags": [{"name": "b", "contents": [{"deck": "ghost"}]}]}, "bags[0]", "contents[0].deck", "[[decks]]"),
    ({"groups": [{"name": "g", "place": ["ghost"]}]}, "groups[0]", "place[0]", "not the name"),
    ({"zones": [{"name": "z", "position": [0, 0], "size": [1, 1]}], "groups": [{"name": "g", "place": ["z"]}],
      "order": ["z"]}, None, "order[0]", "placed by groups[0]"),
    ({"order": ["ghost"]}, None, "order[0]", "not the name"),
    ({"values": {"_x": 1}}, "values", "_x", "letters, digits"),
    ({"objects": [{"name": "x", "type": "tile", "image": "art/{mode}.png"}]}, "objects[0]", "image", "as written"),
])
def test_a_bad_entry_names_its_table_index_and_field(raw, entry, field, words):
    with pytest.raises(DataError) as caught:
        parse_table(raw)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("table.toml", entry, field)
    assert words in caught.value.message


@pytest.mark.parametrize("toml, entry, field, words", [
    ('[[zones]]\nname = "z"\nposition = ["{nope}", 0]\nsize = [1, 1]', "zones[0]", "position",
     'no name "nope" here'),
    ('[[zones]]\nname = "z"\nposition = "{seats}"\nsize = [1, 1]', "zones[0]", "position", "must be [x, z]"),
    ('[[objects]]\nname = "x"\ntype = "tile"\nart = "coin"\ncount = 2\nkey = "same"', "objects[0]", "key",
     '"same" is the key of an object of objects[0] too'),
    ('[[objects]]\nname = "x"\ntype = "tile"\nart = "coin"\nfor_each = "mode"', "objects[0]", "for_each",
     "must give a list"),
    ('[[objects]]\nname = "x"\ntype = "tile"\nart = "coin"\ncount = "{len(seats) * 1000}"', "objects[0]", "count",
     "0..1000"),
    ('[[decks]]\nname = "d"\ncards = "scenes"\nsheet = "nope"', "decks[0]", "sheet", "not a deck the renderer"),
    ('[[decks]]\nname = "d"\ncards = "scenes"\nsheet = "scenes"\nface = "x:{card.id}"', "decks[0]", "face",
     '"x:mill" is not a face'),
    ('[[decks]]\nname = "d"\ncards = "scenes"\nsheet = "scenes"\nface = "scene:{card.id}"\n[decks.card]\n'
     'memo = "{card.title}"', "decks[0]", "card.memo", "must be a table"),
    ('[values]\nscenes = 1', "values", "scenes", "gives already"),
])
def test_a_value_computed_from_the_data_is_checked_as_a_written_one(toml, entry, field, words):
    with pytest.raises(DataError) as caught:
        compose("hands = false\n" + toml)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("table.toml", entry, field)
    assert words in caught.value.message


@pytest.mark.parametrize("entry, message", [
    ('[[zones]]\nname = "spot"\nfor_each = "seats"\nposition = ["{seat_index * 3}", 0]\nsize = [2, 2]\n',
     # a for_each without "as" names its item "item"
     'zones[1]: position: no name "seat_index" here (names: game, index, item, item_index, lang, layouts, mode, '
     'seats, strings)'),
    ('[[objects]]\nname = "gem"\ntype = "token"\nart = "gem"\n',
     "objects[0]: art: names an image of a game's renderer; a game drawn from data gives image (a file of its "
     "folder) or layout"),
])
def test_a_mistake_of_a_data_only_game_s_table_is_one_line_and_exit_status_2(tmp_path, monkeypatch, entry, message):
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(cli, ["new", "tiny"]).exit_code == 0
    table = Path("tiny") / "table.toml"
    table.write_text(table.read_text(encoding="utf-8") + "\n" + entry, encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", "tiny"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == f"error: table.toml: {message}"
    assert "Traceback" not in result.output


def documented_example() -> str:
    """The table.toml of docs/data-format.md, "Repetition, conditions and expressions"."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "data-format.md").read_text(encoding="utf-8")
    section = page.split("### Repetition, conditions and expressions", 1)[1]
    return section.split("```toml\n", 1)[1].split("```", 1)[0]


def test_the_documented_repeated_table_lays_what_its_comments_say():
    def names(en, uk):
        return {"en": en, "uk": uk, "ru": en}

    # a data-only game's card list: each card's data as the builder gives it ([decks.card] reads it as card)
    cards = {"cards:ant": {"id": "ant", "title": names("Ant", "Мураха"), "modes": ["standard"]},
             "cards:bee": {"id": "bee", "title": names("Bee", "Бджола"), "modes": ["expert"]},
             "cards:cat": {"id": "cat", "title": names("Cat", "Кіт"), "modes": ["standard", "expert"]}}
    sheet = DeckSheet("file:///cards.jpg", "file:///back.jpg", 3, 1)
    placed = {"cards": PlacedDeck([("cards:ant", 0, 0), ("cards:bee", 0, 1), ("cards:cat", 0, 2),
                                   ("cards:cat", 0, 2)], [sheet], items=cards)}
    objects, snaps = compose_objects(parse_table(tomllib.loads(documented_example())), placed,
                                     lambda name: f"file:///{name}.png", seat_colours=SEATS, lang="uk",
                                     game_id="g", mode="standard")
    # order: the board, the seat group (mat, hand per seat), then the deck, the bag, the zones; hands = false
    # adds no hand zone of its own; no stock zone for gold (when), no cube on the table (count = 0)
    assert [o.key for o in objects] == ["object/board/0", "mat:White", "hand:White", "mat:Red", "hand:Red",
                                        "mat:Blue", "hand:Blue", "deck/cards", "bag/supply", "stock:wood",
                                        "stock:ore"]
    board, *seats, deck, bag, wood, ore = objects
    assert board.name == "Custom_Board" and where(board) == (0, 4)
    mats, hands = seats[0::2], seats[1::2]
    assert [where(m) for m in mats] == [(-12, -14), (0, -14), (12, -14)]          # a row centred on the table
    assert [where(h) for h in hands] == [(-12, -24), (0, -24), (12, -24)]         # 10 nearer White's side
    assert [h.payload["FogColor"] for h in hands] == SEATS
    assert [m.nickname for m in mats] == ["White's mat", "Red's mat", "Blue's mat"]
    assert mats[1].tags == ("mat", "owner:Red")
    assert memo(mats[2]) == {"role": "mat", "owner": "Blue", "seat": 2}        # "{seat_index}" stays a number
    # the cards of mode "standard", in the build language, the list's first on top
    top_first = list(reversed(deck.contained))
    assert [c.nickname for c in top_first] == ["Мураха", "Кіт", "Кіт"]
    assert [memo(c) for c in top_first] == [{"card": "ant"}, {"card": "cat"}, {"card": "cat"}]
    # 6 wood and 4 ore cubes, keyed by their place in the bag; gold's count of 0 adds none
    assert [c.key for c in bag.contained] == [f"cube:wood:{i}" for i in range(6)] + \
        [f"cube:ore:{i}" for i in range(6, 10)]
    assert [memo(c)["resource"] for c in bag.contained] == ["wood"] * 6 + ["ore"] * 4
    assert all(where(c) == (14, 14) for c in bag.contained)
    # the stock zones: a step of 6 from [-6, 14], the index counting only the zones placed
    assert [where(z) for z in (wood, ore)] == [(-6, 14), (0, 14)]
    assert [z.nickname for z in (wood, ore)] == ["Wood stock", "Ore stock"]
    assert ore.tags == ("stock", "stock:ore")
    # the grid: rows of 3, 2 apart, each row 2 nearer White's side
    assert [(s.position.x, s.position.z) for s in snaps] == [(-2, 0), (0, 0), (2, 0), (-2, -2), (0, -2), (2, -2)]
    assert [s.tags for s in snaps] == [("slot", f"slot:{i}") for i in range(6)]
