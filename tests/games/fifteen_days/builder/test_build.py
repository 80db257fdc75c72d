"""The 15 Days build: the table of docs/games/fifteen_days/table-contract.md, the card backs, the board snap points,
hands, generated.game, determinism and a save that `ttsmod check` passes with no warnings.

The build runs the real renderer once per module on a copy of the shipped game folder (so the test also works
while game.toml is still kept under another name).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.savejson import by_tag, memo, objects
from tests.shared import REPO_ROOT as ROOT
from tests.tools.games.buildtest import (assert_back_images_are_drawn_at_their_cells_size, assert_body_text_legible,
                                      assert_cells_agree_with_print_faces, assert_checks_clean,
                                      assert_only_these_moved, assert_rebuild_identical, build_cli, build_copy,
                                      game_copy, rebuild_with_table)

from bridge.luaproject.bundle import unbundle
from tools.build import build
from tools.check import check_file
from tools.games.fifteen_days.geometry import card_size_units

CONTRACT = ROOT / "docs" / "games" / "fifteen_days" / "table-contract.md"


def game_folder(tmp: Path) -> Path:
    """A copy of assets/fifteen_days/ (tests that break the layouts work on it)."""
    return game_copy(tmp, "fifteen_days")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_copy(tmp_path_factory, "fifteen_days", jobs=1)


@pytest.fixture(scope="module")
def save(built):
    return built[0].save


@pytest.fixture(scope="module")
def data(built):
    from bridge.catalog import load_game

    return load_game(built[1])


COLOURS = ["White", "Red", "Yellow", "Blue"]


def test_every_object_is_tagged_ttsmod_and_has_a_json_memo_with_a_role(save):
    for o in objects(save):
        assert "ttsmod" in o["Tags"], o["Name"]
        assert any(t.startswith("fd-") for t in o["Tags"]), o["Tags"]
        assert isinstance(memo(o)["role"], str)


def test_every_fd_tag_of_the_contract_is_on_the_table(save):
    """Each tag the contract's object table names (placeholders aside) is carried by some object or snap point."""
    text = CONTRACT.read_text(encoding="utf-8")
    table = text[text.index("## Objects"):text.index("### Player board snap points")]
    named = {t for t in re.findall(r"`(fd-[a-z-]+)`", table)}
    on_table = {t for o in objects(save) for t in o.get("Tags", [])}
    on_table |= {t for o in objects(save) for p in o.get("AttachedSnapPoints", []) for t in p["Tags"]}
    on_table |= {t for p in save.get("SnapPoints", []) for t in p["Tags"]}
    assert named and named <= on_table, sorted(named - on_table)


def test_contract_objects_with_their_memos(save, data):
    def memos(tag):
        return [memo(o) for o in by_tag(save, tag)]

    (deck,) = by_tag(save, "fd-season-deck")
    assert deck["Name"] == "Deck" and deck["Transform"]["rotZ"] == 180.0  # face down
    assert memos("fd-season-deck") == [{"role": "season-deck"}]
    (wilds,) = by_tag(save, "fd-wild-deck")
    assert wilds["Name"] == "Deck" and wilds["Transform"]["rotZ"] == 0.0  # face up
    assert [memo(c) for c in wilds["ContainedObjects"]] == [{"role": "wild", "card": w.id} for w in data.wilds]
    assert memos("fd-market-column") == [{"role": "market-column", "index": i} for i in range(3)]
    assert memos("fd-draw-pile") == [{"role": "draw-pile", "index": i} for i in range(2)]
    for tag, role in (("fd-discard", "discard"), ("fd-wild-supply", "wild-supply"),
                      ("fd-feather-supply", "feather-supply"), ("fd-animal-supply", "animal-supply")):
        (zone,) = by_tag(save, tag)
        assert zone["Name"] == "ScriptingTrigger" and memo(zone) == {"role": role}
    assert memos("fd-feather") == [{"role": "feather", "index": i} for i in range(5)]
    assert memos("fd-animal") == [{"role": "animal", "animal": a.id, "season": a.season, "power": a.power}
                                  for a in data.animals]
    assert [m["season"] for m in memos("fd-animal")] == ["spring", "summer", "autumn", "winter"]
    boards = by_tag(save, "fd-board")
    assert [memo(b) for b in boards] == [
        {"role": "board", "owner": c, "board": data.boards[i].id, "corners": ["asc", "asc", "desc", "desc"]}
        for i, c in enumerate(COLOURS)]
    assert all(b["Locked"] and f"owner:{memo(b)['owner']}" in b["Tags"] for b in boards)
    assert memos("fd-overview") == [{"role": "overview", "owner": c, "overview": data.overviews[i].id}
                                    for i, c in enumerate(COLOURS)]
    assert memos("fd-seat") == [{"role": "seat", "owner": c} for c in COLOURS]


def test_ninety_season_cards_each_with_its_own_back(save, data):
    (deck,) = by_tag(save, "fd-season-deck")
    cards = deck["ContainedObjects"]
    assert len(cards) == 90 and deck["DeckIDs"] == [c["CardID"] for c in cards]
    assert [memo(c) for c in cards] == [{"role": "season", "card": c.id, "season": c.season, "value": c.value,
                                         "back": c.back} for c in data.cards]
    assert Counter(memo(c)["back"] for c in cards) == {"summer": 30, "autumn": 30, "winter": 30}
    assert Counter(memo(c)["season"] for c in cards) == {"spring": 18, "summer": 24, "autumn": 24, "winter": 24}
    backs_of = {}
    for c in cards:
        (entry,) = c["CustomDeck"].values()
        back_file = entry["BackURL"].rsplit("/", 1)[-1]
        back = memo(c)["back"]
        assert back_file.startswith(f"seasons-{back}-back"), (memo(c), back_file)
        assert f"fd-back:{back}" in c["Tags"] and "fd-card" in c["Tags"]
        backs_of.setdefault(back, set()).add(entry["BackURL"])
        # The tooltip names only the back: the face is secret while the card lies face down.
        assert c["Nickname"] == f"{back.capitalize()} back"
    assert all(len(urls) == 1 for urls in backs_of.values()) and len(set().union(*backs_of.values())) == 3


def test_cards_may_be_held_in_hands(save):
    cards = [o for o in objects(save) if o["Name"] == "Card"]
    assert len(cards) == 98 and all(c["Hands"] for c in cards)


def test_a_hand_zone_for_every_seat_colour(save):
    hands = by_tag(save, "fd-hand")
    assert [h["Name"] for h in hands] == ["HandTrigger"] * 4
    assert [h["FogColor"] for h in hands] == COLOURS
    assert [memo(h) for h in hands] == [{"role": "hand", "owner": c} for c in COLOURS]


def test_board_snap_points_keep_each_corner_in_value_order(save):
    for board in by_tag(save, "fd-board"):
        points = board["AttachedSnapPoints"]
        cards = [p for p in points if "fd-slot" in p["Tags"]]
        assert len(cards) == 24
        for corner in range(4):
            row = [p for p in cards if f"fd-corner:{corner}" in p["Tags"]]
            assert [p["Tags"] for p in row] == [["fd-card", "fd-slot", f"fd-corner:{corner}", f"fd-value:{v}"]
                                               for v in range(1, 7)]
            # Image right is local -x on a tile (tools/save/geometry.py): values rise left to right for the owner.
            xs = [p["Position"]["x"] for p in row]
            assert xs == sorted(xs, reverse=True) and len(set(xs)) == 6
            assert len({p["Position"]["z"] for p in row}) == 1
        upper = {p["Position"]["z"] for p in cards if "fd-corner:0" in p["Tags"] or "fd-corner:1" in p["Tags"]}
        lower = {p["Position"]["z"] for p in cards if "fd-corner:2" in p["Tags"] or "fd-corner:3" in p["Tags"]}
        assert max(upper) < min(lower)  # image top is local -z: corners 0-1 above 2-3
        animals = [p["Tags"] for p in points if "fd-animal-spot" in p["Tags"]]
        assert animals == [["fd-token", "fd-animal-spot", f"fd-animal-spot:{a}"]
                           for a in ("otter", "frog", "squirrel", "rabbit")]
        feathers = [p["Tags"] for p in points if "fd-feather-spot" in p["Tags"]]
        assert feathers == [["fd-token", "fd-feather-spot", f"fd-feather-spot:{i}"] for i in range(5)]


def test_snapping_objects_share_a_tag_with_their_snap_points(save):
    """A tagged snap point attracts only objects sharing a tag (Knowledge Base, Object Tags)."""
    assert all("fd-card" in c["Tags"] for c in objects(save) if c["Name"] == "Card")
    assert all("fd-token" in t["Tags"] for t in by_tag(save, "fd-feather") + by_tag(save, "fd-animal"))


def test_generated_game_module_gives_the_mod_cards_animals_rules_and_seats(built, data):
    result, _ = built
    modules = unbundle(result.save["LuaScript"])
    source = modules["generated.game"]
    match = re.search(r'data = "(.*)" }', source)
    payload = json.loads(match.group(1).encode().decode("unicode_escape"))
    assert payload["game"] == "fifteen-days" and payload["mode"] == "standard"
    assert payload["player_colours"] == COLOURS
    assert payload["cards"] == {c.id: {"season": c.season, "value": c.value, "back": c.back} for c in data.cards}
    assert payload["wilds"] == [w.id for w in data.wilds]
    assert [a["id"] for a in payload["animals"]] == ["otter", "frog", "squirrel", "rabbit"]
    assert payload["boards"][0] == {"owner": "White", "board": data.boards[0].id, "corners": ["asc", "asc", "desc", "desc"]}
    assert payload["rules"]["hand_limit"] == 5 and payload["rules"]["steal_on_equal"] is True
    assert payload["values"] == [1, 2, 3, 4, 5, 6]
    step = payload["layout"]["market_step"]
    assert payload["layout"]["market_offsets"] == [[0.0, k * payload["layout"]["lift"], k * step] for k in range(3)]


def test_cards_offered_for_a_wild_have_spots_clear_of_the_wild_deck_and_of_one_another(save, data):
    # a card dropped on the wild deck would join it, and one dropped on another offered card would form a deck
    (wilds,) = by_tag(save, "fd-wild-deck")
    (offer,) = by_tag(save, "fd-wild-offer")
    assert offer["Name"] == "ScriptingTrigger"
    assert memo(offer) == {"role": "wild-offer", "slots": data.rules.wild_discard_count}
    spots = [p for p in save["SnapPoints"] if "fd-offer-slot" in p["Tags"]]
    assert [p["Tags"] for p in spots] == [["fd-card", "fd-offer-slot", f"fd-offer-slot:{k}"]
                                          for k in range(data.rules.wild_discard_count)]
    card_w, card_d = card_size_units()
    centres = [wilds["Transform"]["posX"]] + [p["Position"]["x"] for p in spots]
    assert all(b - a > card_w for a, b in zip(centres, centres[1:])), centres    # side by side, none overlapping
    assert all(p["Position"]["z"] == wilds["Transform"]["posZ"] for p in spots)
    t = offer["Transform"]
    for p in spots:   # every spot inside the offer zone, which holds a whole card there
        assert abs(p["Position"]["x"] - t["posX"]) + card_w / 2 <= t["scaleX"] / 2
        assert abs(p["Position"]["z"] - t["posZ"]) + card_d / 2 <= t["scaleZ"] / 2
    # and nothing else lies there: no card, deck or token within a card's width of a spot
    for o in objects(save):
        if o["Name"] in ("Card", "Deck", "Custom_Tile", "Bag"):
            for p in spots:
                assert abs(o["Transform"]["posX"] - p["Position"]["x"]) >= card_w \
                    or abs(o["Transform"]["posZ"] - p["Position"]["z"]) >= card_d, o["Nickname"]


def test_market_column_zones_hold_a_whole_column(save):
    (deck,) = by_tag(save, "fd-season-deck")
    for zone in by_tag(save, "fd-market-column"):
        depth = zone["Transform"]["scaleZ"]
        # centred on the first card, the zone reaches past the third: 2.79 (a card) + 2 × 2 × 0.8
        assert depth >= 2.79 + 3.2


def test_the_built_save_checks_clean(built):
    assert_checks_clean(built[0])


def test_two_builds_are_byte_identical(built):
    assert_rebuild_identical(*built)


def test_every_deck_s_body_text_stands_24_px_high_on_its_sheets(built):
    assert_body_text_legible(built[0])


def test_a_sheet_cell_agrees_with_its_face_drawn_at_print_size(built):
    assert_cells_agree_with_print_faces(*built)


def test_each_deck_s_back_image_is_drawn_at_its_cell_s_size(built):
    assert_back_images_are_drawn_at_their_cells_size(*built)


def test_a_build_in_ukrainian_names_backs_in_ukrainian(tmp_path):
    folder = game_folder(tmp_path)
    result = build(folder, tmp_path / "uk", lang="uk", jobs=1)
    (deck,) = by_tag(result.save, "fd-season-deck")
    assert {c["Nickname"] for c in deck["ContainedObjects"]} == {"Сорочка: Літо", "Сорочка: Осінь", "Сорочка: Зима"}
    assert check_file(result.save_path).exit_status == 0


def test_a_corner_box_too_small_for_a_card_is_one_line_naming_the_layout(tmp_path):
    folder = game_folder(tmp_path)
    layouts = folder / "layouts.toml"
    layouts.write_text(layouts.read_text(encoding="utf-8").replace(
        "corner_2 = { box = [150, 864, 1100, 380] }", "corner_2 = { box = [150, 864, 200, 380] }"), encoding="utf-8")
    result = build_cli(folder, tmp_path / "out")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        'error: layouts.toml: layout "board": boxes.corner_2.box: 200x380 px cannot hold a card of 267x372 px']
    assert not (tmp_path / "out" / "15Days.json").exists()


def test_a_card_title_the_font_cannot_draw_names_the_card(tmp_path):
    folder = game_folder(tmp_path)
    cards = folder / "cards.toml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace('en = "Grain Rain"', 'en = "Grain Rain 穀雨"', 1), encoding="utf-8")
    result = build_cli(folder, tmp_path / "out")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith('error: cards.toml: card "spring-6-1": title.en: font DejaVuSerif-Bold.ttf has no glyph')
    assert not (tmp_path / "out" / "15Days.json").exists()


def test_the_overview_has_a_row_per_animal_drawn_from_its_layers(tmp_path):
    """The overview's rows are a repeat group over the animals: a row each, with its power, whatever their number."""
    from bridge.catalog import load
    from bridge.paths import assets_dir
    from tools.games.fifteen_days.render import TEMPLATE_KINDS, Renderer, load_fifteen_days_layouts
    from tools.render.sizing import measure_text

    data = load("fifteen-days").data
    folder = load("fifteen-days").folder
    drawer = Renderer(data, load_fifteen_days_layouts(folder), assets_dir() / "fonts", "en", folder)
    assert "overview" in TEMPLATE_KINDS
    with measure_text() as record:
        image = drawer.draw(f"overview:{data.overviews[0].id}")
    rows = sorted(name for name, *_ in record if name.startswith("powers-"))
    assert rows == [f"powers-{n}-power" for n in range(1, len(data.animals) + 1)]
    for n, animal in enumerate(data.animals):   # each row's disc in its animal's colour
        colour = tuple(int(animal.colour[i:i + 2], 16) for i in (1, 3, 5))
        assert image.getpixel((40 + 6, round(262 + (n + 0.5) * 340 / len(data.animals)))) == colour


def test_an_animal_power_too_long_for_the_overview_names_the_animal(tmp_path):
    folder = game_folder(tmp_path)
    components = folder / "components.toml"
    text = components.read_text(encoding="utf-8")
    head, sep, rest = text.partition("power_text = { en = \"")
    components.write_text(head + sep + "very long words " * 40 + rest, encoding="utf-8")
    animal = re.findall(r'id = "([^"]+)"', head)[-1]
    result = build_cli(folder, tmp_path / "out")
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors == [f'error: components.toml: animal "{animal}": power_text.en: text does not fit layer '
                      f'"powers-1-power" (714x85 px) even at 12 px: shorten it or enlarge the layer in layouts.toml']
    assert not (tmp_path / "out" / "15Days.json").exists()


def test_the_season_emblems_are_pictures_of_the_game_folder_drawn_in_each_colour(tmp_path):
    """icons/<season>.png is the emblem everywhere it is printed: replaced, every image showing it is drawn
    again; a season without a picture of its own gets icons/season.png; with neither, the season is named."""
    import shutil

    from PIL import Image

    from bridge.catalog import load
    from bridge.errors import DataError
    from bridge.paths import assets_dir
    from tools.games.fifteen_days.render import Renderer, load_fifteen_days_layouts

    copy = tmp_path / "fd"
    shutil.copytree(load("fifteen-days").folder, copy)
    data = load(copy).data

    def renderer() -> Renderer:
        return Renderer(data, load_fifteen_days_layouts(copy), assets_dir() / "fonts", "en", copy)

    def keys() -> dict[str, str]:
        drawer = renderer()
        return {name: drawer.key(name, kind) for name, kind in drawer.items()}

    before = keys()
    winter_card = next(c for c in data.cards if c.season == "winter")
    card = renderer().draw(f"season:{winter_card.id}")
    colour = tuple(int(data.season_by_id["winter"].colour[i:i + 2], 16) for i in (1, 3, 5))
    assert card.getpixel((315, 400)) == colour            # the snowflake's centre, in winter's colour
    square = Image.new("RGBA", (64, 64), (255, 255, 255, 255))
    square.save(copy / "icons" / "winter.png")
    changed = {n for n, k in keys().items() if before[n] != k}
    winter = {f"season:{c.id}" for c in data.cards if c.season == "winter"}
    winter |= {f"animal:{a.id}" for a in data.animals if a.season == "winter"}
    assert changed == winter | {"season-back:winter"} | {f"overview:{o.id}" for o in data.overviews}
    assert renderer().draw(f"season:{winter_card.id}").getpixel((130, 220)) == colour   # a square's corner now
    (copy / "icons" / "winter.png").unlink()
    assert renderer()._card(f"season:{winter_card.id}").values["emblem"] == "icons/season.png"
    (copy / "icons" / "season.png").unlink()
    with pytest.raises(DataError, match=r"game.toml: seasons.winter: has no emblem: neither icons/winter.png nor "
                                        r"icons/season.png is in the game folder"):
        renderer().draw(f"season:{winter_card.id}")


def test_the_table_is_laid_out_by_the_game_folder_s_table_toml(built, tmp_path):
    """A value of assets/fifteen_days/table.toml moved moves what is placed by it, and nothing else: the wild deck,
    its supply and offer zones and the offer spots lie east of the discard by its wild_x."""
    after = rebuild_with_table(built, tmp_path, lambda text: text.replace("wild_x = 12.0 ", "wild_x = 14.5 "))
    wild = ("fd-wild-deck", "fd-wild-supply", "fd-wild-offer")
    moved = assert_only_these_moved(built[0].save, after, lambda o: bool(set(wild) & set(o.get("Tags", []))),
                                    by=(2.5, 0))
    assert sorted(t for o in moved for t in o["Tags"] if t in wild) == sorted(wild)
    assert [p["Position"]["x"] for p in after["SnapPoints"]] == \
        [round(p["Position"]["x"] + 2.5, 4) for p in built[0].save["SnapPoints"]]
