"""The Kill the Unicorns build: the table of docs/games/kill_the_unicorns/table-contract.md, every card once with
its face and back, snap points that attract the cards meant for them, hands, generated.game, determinism,
incremental rendering and a save that `ttsmod check` passes with no warnings.

The build runs on a copy of the shipped game folder.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from bridge.catalog import load_game
from bridge.luaproject.bundle import unbundle
from tests.savejson import by_tag, memo, objects
from tests.shared import REPO_ROOT as ROOT
from tests.tools.games.buildtest import (assert_back_images_are_drawn_at_their_cells_size, assert_body_text_legible,
                                      assert_cells_agree_with_print_faces, assert_checks_clean,
                                      assert_only_these_moved, assert_rebuild_identical, build_cli, build_copy,
                                      game_copy, rebuild_with_table)
from tools.build import build
from tools.check import check_file

CONTRACT = ROOT / "docs" / "games" / "kill_the_unicorns" / "table-contract.md"
COLOURS = ["White", "Red", "Orange", "Yellow", "Green", "Blue", "Purple"]
SAVE_NAME = "KillTheUnicorns.json"


def game_folder(tmp: Path) -> Path:
    """A copy of assets/kill_the_unicorns/ (tests that edit the data work on it)."""
    return game_copy(tmp, "kill_the_unicorns")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_copy(tmp_path_factory, "kill_the_unicorns", jobs=2)


@pytest.fixture(scope="module")
def save(built):
    return built[0].save


@pytest.fixture(scope="module")
def data(built):
    return load_game(built[1])


def memos(save, tag):
    return [memo(o) for o in by_tag(save, tag)]


def sheet_file(obj: dict, key: str) -> str:
    (entry,) = obj["CustomDeck"].values()
    return entry[key].rsplit("/", 1)[-1]


# -- the objects of the contract ------------------------------------------------------------------------------

def test_every_object_is_tagged_ttsmod_and_has_a_json_memo_with_a_role(save):
    for o in objects(save):
        assert "ttsmod" in o["Tags"], o["Name"]
        assert any(t.startswith("ku-") for t in o["Tags"]), o["Tags"]
        assert isinstance(memo(o)["role"], str)


def test_every_ku_tag_of_the_contract_is_on_the_table(save):
    """Each tag the contract names (placeholders like `ku-line:<i>` aside) is carried by an object or snap point."""
    text = CONTRACT.read_text(encoding="utf-8")
    named = set(re.findall(r"`(ku-[a-z-]+)`", text))
    on_table = {t for o in objects(save) for t in o.get("Tags", [])}
    on_table |= {t for o in objects(save) for p in o.get("AttachedSnapPoints", []) for t in p["Tags"]}
    assert len(named) > 30 and named <= on_table, sorted(named - on_table)


def test_the_middle_of_the_table(save, data):
    (ground,) = by_tag(save, "ku-ground")
    assert ground["Name"] == "Custom_Tile" and ground["Locked"] and memo(ground) == {"role": "ground"}
    assert memos(save, "ku-line") == [{"role": "line", "index": i} for i in range(4)]
    assert memos(save, "ku-trick-slot") == [{"role": "trick-slot", "index": i, "slot": s}
                                           for i in range(4) for s in ("above", "below")]
    (deck,) = by_tag(save, "ku-unicorn-deck")
    assert deck["Name"] == "Deck" and deck["Transform"]["rotZ"] == 180.0 and memo(deck) == {"role": "unicorn-deck"}
    (start,) = by_tag(save, "ku-start-deck")
    assert start["Name"] == "Deck" and memo(start) == {"role": "start-deck"}
    for tag, role in (("ku-unicorn-deck-zone", "unicorn-deck"), ("ku-unicorn-discard", "unicorn-discard"),
                      ("ku-box", "box")):
        (zone,) = by_tag(save, tag)
        assert zone["Name"] == "ScriptingTrigger" and memo(zone) == {"role": role}
    for tag, role in (("ku-first-player", "first-player"), ("ku-scoring-card", "scoring-card")):
        (tile,) = by_tag(save, tag)
        assert tile["Name"] == "Custom_Tile" and memo(tile) == {"role": role}
    (market,) = by_tag(save, "ku-market")
    assert market["Locked"] and memo(market) == {"role": "market"}
    assert memos(save, "ku-market-stock") == [{"role": "market-stock", "item": m.id} for m in data.market]


def test_one_bag_per_character_holds_its_card_hunting_deck_and_trick_deck(save, data):
    bags = by_tag(save, "ku-character-bag")
    assert [memo(b) for b in bags] == [{"role": "character-bag", "character": c.id} for c in data.characters]
    assert len(bags) == 7
    for b, c in zip(bags, data.characters):
        assert b["Name"] == "Bag" and f"ku-character:{c.id}" in b["Tags"]
        card, hunting, tricks = b["ContainedObjects"]
        assert card["Name"] == "Custom_Tile" and memo(card) == {"role": "character", "character": c.id}
        assert "ku-character-card" in card["Tags"]
        assert [memo(h)["card"] for h in hunting["ContainedObjects"]] == [f"{c.id}-hunt-{i}" for i in range(1, 9)]
        assert [memo(t)["card"] for t in tricks["ContainedObjects"]] == [f"{c.id}-trick-{i}" for i in range(1, 9)]
        assert hunting["Transform"]["rotZ"] == 180.0 and tricks["Transform"]["rotZ"] == 180.0  # face down


def test_every_seat_colour_has_a_mat_its_zones_and_a_hand(save):
    assert memos(save, "ku-seat-mat") == [{"role": "seat-mat", "owner": c} for c in COLOURS]
    assert all(m["Locked"] for m in by_tag(save, "ku-seat-mat"))
    for tag, role in (("ku-hunt-area", "hunt-area"), ("ku-catch", "catch"), ("ku-trick-deck", "trick-deck"),
                      ("ku-trick-discard", "trick-discard"), ("ku-hunt-discard", "hunt-discard"),
                      ("ku-character-spot", "character-spot")):
        zones = by_tag(save, tag)
        assert [memo(z) for z in zones] == [{"role": role, "owner": c} for c in COLOURS], tag
        assert all(z["Name"] == "ScriptingTrigger" and f"owner:{memo(z)['owner']}" in z["Tags"] for z in zones)
    hands = by_tag(save, "ku-hand")
    assert [h["Name"] for h in hands] == ["HandTrigger"] * 7
    assert [h["FogColor"] for h in hands] == COLOURS
    assert [memo(h) for h in hands] == [{"role": "hand", "owner": c} for c in COLOURS]


def _rect(zone: dict) -> tuple[float, float, float, float]:
    z = zone["Transform"]
    return (z["posX"] - z["scaleX"] / 2, z["posX"] + z["scaleX"] / 2, z["posZ"] - z["scaleZ"] / 2,
            z["posZ"] + z["scaleZ"] / 2)


def _overlap(a, b) -> bool:
    return min(a[1], b[1]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[2], b[2])


def test_the_zones_of_the_line_hold_a_card_each_and_do_not_overlap(save):
    """A card lying on a unicorn spot or a trick slot is in exactly that place's zone."""
    (ground,) = by_tag(save, "ku-ground")
    zones = by_tag(save, "ku-line") + by_tag(save, "ku-trick-slot") + by_tag(save, "ku-unicorn-deck-zone") \
        + by_tag(save, "ku-unicorn-discard")
    rects = [_rect(z) for z in zones]
    assert all(r[1] - r[0] >= 2.0 and r[3] - r[2] >= 2.79 for r in rects)  # a card fits
    assert not any(_overlap(a, b) for i, a in enumerate(rects) for b in rects[i + 1:])


def test_zones_of_a_mat_lie_on_it_and_do_not_overlap(save):
    """Each seat zone lies inside its mat and no two of a seat's zones overlap (a card is read in one place)."""
    tags = ("ku-hunt-area", "ku-catch", "ku-trick-deck", "ku-trick-discard", "ku-hunt-discard", "ku-character-spot")
    for mat in by_tag(save, "ku-seat-mat"):
        owner = memo(mat)["owner"]
        t = mat["Transform"]
        rects = []
        for tag in tags:
            (zone,) = [z for z in by_tag(save, tag) if memo(z)["owner"] == owner]
            z = zone["Transform"]
            assert z["rotY"] == t["rotY"]
            rect = (z["posX"] - z["scaleX"] / 2, z["posX"] + z["scaleX"] / 2,
                    z["posZ"] - z["scaleZ"] / 2, z["posZ"] + z["scaleZ"] / 2)
            half_w, half_d = t["scaleX"], t["scaleZ"] * 1340 / 1260  # a tile's local half extents × scale
            assert t["posX"] - half_w <= rect[0] and rect[1] <= t["posX"] + half_w, (owner, tag)
            assert t["posZ"] - half_d <= rect[2] and rect[3] <= t["posZ"] + half_d, (owner, tag)
            rects.append((tag, rect))
        for i, (a, ra) in enumerate(rects):
            for b, rb in rects[i + 1:]:
                overlap = min(ra[1], rb[1]) > max(ra[0], rb[0]) and min(ra[3], rb[3]) > max(ra[2], rb[2])
                assert not overlap, (owner, a, b)


# -- cards --------------------------------------------------------------------------------------------------------

def test_every_card_of_the_data_is_on_the_table_exactly_once(save, data):
    cards = [memo(o) for o in objects(save) if o["Name"] == "Card"]
    ids = Counter(m["card"] for m in cards)
    expected = [*data.hunting_cards, *data.trick_cards, *(u.id for u in data.unicorns)]
    assert len(expected) == 7 * 16 + len(data.unicorns)
    assert ids == Counter(expected)
    tokens = Counter(memo(t)["token"] for t in by_tag(save, "ku-token"))
    assert tokens == Counter(t for m in data.market for t in data.tokens(m.id))
    assert sum(tokens.values()) == 7 + 7 + 4 + 4


def test_card_memos_carry_the_facts_of_the_data(save, data):
    for o in by_tag(save, "ku-hunting"):
        if o["Name"] != "Card":
            continue
        h = data.hunting_card(memo(o)["card"])
        assert memo(o) == {"role": "hunting", "card": h.id, "character": h.character, "value": h.value}
    for o in by_tag(save, "ku-trick"):
        t = data.trick_card(memo(o)["card"])
        assert memo(o) == {"role": "trick", "card": t.id, "character": t.character, "kind": t.kind,
                           "pinned": data.trick_by_id[t.kind].pinned}
    unicorns = by_tag(save, "ku-unicorn")
    assert [memo(u) for u in unicorns] == [
        {"role": "unicorn", "card": u.id, "colour": u.colour, "stars": u.stars, "start": u.start}
        for u in (*data.deck_unicorns, *data.start_unicorns)]
    (deck,) = by_tag(save, "ku-unicorn-deck")
    assert [memo(c)["card"] for c in deck["ContainedObjects"]] == [u.id for u in data.deck_unicorns]
    (start,) = by_tag(save, "ku-start-deck")
    assert [memo(c)["start"] for c in start["ContainedObjects"]] == [True] * 6


def test_each_characters_cards_carry_its_own_backs(save, data):
    """Hunting and trick cards of a character are packed with that character's backs: two backs per character,
    fourteen in all, never shared; all unicorns share one back."""
    backs: dict[tuple[str, str], set[str]] = {}
    for o in objects(save):
        if o["Name"] != "Card" or memo(o)["role"] == "unicorn":
            continue
        m = memo(o)
        backs.setdefault((m["character"], m["role"]), set()).add(sheet_file(o, "BackURL"))
        deck_name = "hunting" if m["role"] == "hunting" else "tricks"
        assert sheet_file(o, "FaceURL").startswith(f"{deck_name}-{m['character']}-"), m
    assert set(backs) == {(c.id, role) for c in data.characters for role in ("hunting", "trick")}
    assert all(len(files) == 1 for files in backs.values())
    assert len({f for files in backs.values() for f in files}) == 14
    # the unicorn deck and the start unicorns are packed apart, each with the one back drawn at its own cells' size
    unicorn_backs = {(sheet_file(o, "FaceURL").split("-")[0], sheet_file(o, "BackURL"))
                     for o in by_tag(save, "ku-unicorn")}
    assert len({deck for deck, _ in unicorn_backs}) == len(unicorn_backs)   # one back image per deck


def test_hidden_cards_name_only_their_back(save, data):
    """TTS shows Nickname and Description in tooltips even for face-down cards: a hunting or trick card names only
    its character, never its value or trick."""
    for o in by_tag(save, "ku-hunting") + by_tag(save, "ku-trick"):
        if o["Name"] != "Card":
            continue
        character = data.character_by_id[memo(o)["character"]].name.en
        assert o["Nickname"] in (f"{character}: hunting card", f"{character}: trick") and o["Description"] == ""


def test_hunting_and_trick_cards_may_be_held_in_hands(save):
    held = [o for o in objects(save) if o["Name"] == "Card" and memo(o)["role"] in ("hunting", "trick")]
    assert len(held) == 7 * 16 and all(c["Hands"] for c in held)


# -- snap points --------------------------------------------------------------------------------------------------

def _points(obj, tag):
    return [p for p in obj.get("AttachedSnapPoints", []) if tag in p["Tags"]]


def test_the_ground_has_a_unicorn_spot_and_two_trick_slots_per_unicorn_of_the_line(save):
    (ground,) = by_tag(save, "ku-ground")
    spots = _points(ground, "ku-unicorn-spot")
    assert [p["Tags"] for p in spots] == [["ku-unicorn", "ku-unicorn-spot", f"ku-line:{i}"] for i in range(4)]
    # Unicorn 0 is hunted first: the line runs west to east (image left is local +x on a tile at rotY 180).
    xs = [p["Position"]["x"] for p in spots]
    assert xs == sorted(xs, reverse=True)
    for i, spot in enumerate(spots):
        above, below = (_points(ground, f"ku-slot:{s}") for s in ("above", "below"))
        a = [p for p in above if f"ku-line:{i}" in p["Tags"]]
        b = [p for p in below if f"ku-line:{i}" in p["Tags"]]
        assert [p["Tags"] for p in a] == [["ku-trick", "ku-trick-spot", f"ku-line:{i}", "ku-slot:above"]]
        assert [p["Tags"] for p in b] == [["ku-trick", "ku-trick-spot", f"ku-line:{i}", "ku-slot:below"]]
        # image top is local -z: "above" lies towards the north edge for the White seat
        assert a[0]["Position"]["z"] < spot["Position"]["z"] < b[0]["Position"]["z"]
        assert a[0]["Position"]["x"] == spot["Position"]["x"] == b[0]["Position"]["x"]


def test_seat_mat_snap_points(save, data):
    for mat in by_tag(save, "ku-seat-mat"):
        columns = [p["Tags"] for p in _points(mat, "ku-catch-spot")]
        assert columns == [["ku-unicorn", "ku-catch-spot", f"ku-catch-column:{c}"]
                           for c in [*data.colour_ids, "legendary"]]
        assert [p["Tags"] for p in _points(mat, "ku-hunt-spot")] == [
            ["ku-hunting", "ku-hunt-spot", f"ku-hunt-spot:{k}"] for k in range(3)]
        for tags in (["ku-hunting", "ku-hunt-discard-spot"], ["ku-trick", "ku-trick-discard-spot"],
                     ["ku-trick", "ku-trick-deck-spot"], ["ku-character-card", "ku-character-card-spot"]):
            assert [p["Tags"] for p in _points(mat, tags[1])] == [tags]


def test_the_market_has_a_place_for_every_token(save, data):
    (market,) = by_tag(save, "ku-market")
    for m in data.market:
        places = _points(market, f"ku-token-spot:{m.id}")
        assert len(places) == len(data.tokens(m.id))
        assert all(p["Tags"] == [f"ku-token:{m.id}", "ku-token-spot", f"ku-token-spot:{m.id}"] for p in places)


def test_snapping_objects_share_a_tag_with_their_snap_points(save):
    """A tagged snap point attracts only objects sharing a tag (Knowledge Base, Object Tags): every snap point
    carries a tag of the objects meant for it, and those objects exist and carry it."""
    meant_for = {"ku-unicorn-spot": "ku-unicorn", "ku-trick-spot": "ku-trick", "ku-catch-spot": "ku-unicorn",
                 "ku-hunt-spot": "ku-hunting", "ku-hunt-discard-spot": "ku-hunting",
                 "ku-trick-discard-spot": "ku-trick", "ku-trick-deck-spot": "ku-trick",
                 "ku-character-card-spot": "ku-character-card", "ku-token-spot": None}
    everything = objects(save)
    points = [p for o in everything for p in o.get("AttachedSnapPoints", [])]
    assert points
    for p in points:
        (kind,) = [t for t in p["Tags"] if t in meant_for]
        tag = meant_for[kind] or next(t for t in p["Tags"] if t.startswith("ku-token:"))
        assert tag in p["Tags"]
        attracted = [o for o in everything if set(o.get("Tags", [])) & set(p["Tags"])
                     and o["Name"] not in ("ScriptingTrigger", "HandTrigger")]
        assert attracted and all(tag in o["Tags"] for o in attracted), p["Tags"]


def test_market_tokens_start_on_their_places_in_their_stock_zone(save):
    (market,) = by_tag(save, "ku-market")
    zones = {memo(z)["item"]: z["Transform"] for z in by_tag(save, "ku-market-stock")}
    for token in by_tag(save, "ku-token"):
        t, z = token["Transform"], zones[memo(token)["item"]]
        assert abs(t["posX"] - z["posX"]) <= z["scaleX"] / 2 and abs(t["posZ"] - z["posZ"]) <= z["scaleZ"] / 2


# -- generated.game -----------------------------------------------------------------------------------------------

def generated(result) -> dict:
    source = unbundle(result.save["LuaScript"])["generated.game"]
    match = re.search(r'data = "(.*)" }', source)
    return json.loads(match.group(1).encode().decode("unicode_escape"))


def test_generated_game_gives_the_mod_characters_cards_market_rules_and_layout(built, data):
    payload = generated(built[0])
    assert payload["game"] == "kill-the-unicorns" and payload["mode"] == "standard"
    assert payload["player_colours"] == COLOURS
    assert [c["id"] for c in payload["colours"]] == ["green", "blue", "pink", "yellow"]
    assert [c["id"] for c in payload["characters"]] == [c.id for c in data.characters]
    princess = payload["characters"][0]
    assert princess["hunting"] == [f"princess-hunt-{i}" for i in range(1, 9)]
    assert princess["power"]["timing"] == data.character_by_id["princess"].power.timing
    cards = payload["cards"]
    assert len(cards) == 7 * 16 + len(data.unicorns)
    assert cards["knight-hunt-8"] == {"kind": "hunting", "character": "knight", "value": 4}
    trick = data.trick_card("princess-trick-4")
    assert cards["princess-trick-4"] == {"kind": "trick", "character": "princess", "trick": trick.kind,
                                         "pinned": data.trick_by_id[trick.kind].pinned}
    legend = next(u for u in data.unicorns if u.colour is None)
    assert cards[legend.id]["colour"] is None and cards[legend.id]["stars"] == legend.stars
    assert {m["id"]: m["tokens"] for m in payload["market"]} == {m.id: list(data.tokens(m.id)) for m in data.market}
    assert payload["tokens"]["pate-7"] == "pate"
    rules = payload["rules"]
    assert rules["collection_bonus"] == [0, 0, 2, 5, 8, 12] and rules["rainbow_bonus"] == 8
    assert rules["hunting_values"] == [0, 1, 1, 2, 2, 3, 3, 4] and rules["days"] == 4
    layout = payload["layout"]
    assert layout["catch_columns"] == ["green", "blue", "pink", "yellow", "legendary"]
    assert layout["hunt_spots"] == 3 and layout["catch_step"] > 0
    # Setup accepts the game's player counts (the mod would otherwise fall back to numbers of its own)
    assert (payload["min_players"], payload["max_players"]) == (data.info.min_players, data.info.max_players)
    # a pinned trick or token put at its offset lies on its unicorn's card and on no later unicorn of the column
    # (which lies catch_step nearer the owner): it is read as that unicorn's and no other's
    _, depth = layout["card"]
    for offset in (layout["pinned_offset"], layout["token_offset"]):
        right, _, towards = offset
        assert abs(right) <= layout["card"][0] / 2 and abs(towards) <= depth / 2
        assert towards < layout["catch_step"] - depth / 2


# -- the whole save ---------------------------------------------------------------------------------------------

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


def test_editing_one_unicorns_name_redraws_only_its_sheet(tmp_path):
    folder = game_folder(tmp_path)
    out = tmp_path / "out"
    first = build(folder, out, jobs=2)
    assert build(folder, out, jobs=1).save_changed is False
    cards = folder / "cards.toml"
    text = cards.read_text(encoding="utf-8")
    assert text.count('en = "Fern Unicorn"') == 1
    cards.write_text(text.replace('en = "Fern Unicorn"', 'en = "Fernest Unicorn"'), encoding="utf-8")
    rendered = []
    again = build(folder, out, jobs=1, render=None, progress=lambda done, total: rendered.append(total))
    assert again.save_changed
    changed = {p.name for p in again.changed_sheets}
    assert len(changed) == 1 and all(name.startswith("unicorns-") for name in changed), changed
    (deck,) = by_tag(again.save, "ku-unicorn-deck")
    edited = next(c for c in deck["ContainedObjects"] if c["Nickname"] == "Fernest Unicorn")
    # the images to draw: the faces of the edited unicorn's sheet (drawn at their cells' size, not cached)
    same_sheet = [c for c in deck["ContainedObjects"] if c["CardID"] // 100 == edited["CardID"] // 100]
    assert rendered and rendered[0] == len(same_sheet)
    assert first.save_path == again.save_path


@pytest.mark.parametrize("lang", ["uk", "ru"])
def test_a_build_in_another_language_names_cards_in_it(tmp_path, lang):
    folder = game_folder(tmp_path)
    result = build(folder, tmp_path / lang, lang=lang, jobs=2)
    (bag,) = [b for b in by_tag(result.save, "ku-character-bag") if memo(b)["character"] == "princess"]
    expected = {"uk": "Принцеса: карта полювання", "ru": "Принцесса: карта охоты"}[lang]
    assert {c["Nickname"] for c in bag["ContainedObjects"][1]["ContainedObjects"]} == {expected}
    assert check_file(result.save_path).exit_status == 0


def test_a_seat_mat_box_too_small_for_a_card_is_one_line_naming_the_layout(tmp_path):
    folder = game_folder(tmp_path)
    layouts = folder / "layouts.toml"
    text = layouts.read_text(encoding="utf-8")
    assert "trick_deck = { box = [1010, 1030, 220, 290] }" in text
    layouts.write_text(text.replace("trick_deck = { box = [1010, 1030, 220, 290] }",
                                    "trick_deck = { box = [1010, 1030, 120, 290] }"), encoding="utf-8")
    result = build_cli(folder, tmp_path / "out")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        'error: layouts.toml: layout "seat_mat": boxes.trick_deck.box: 120x290 px cannot hold 200x279 px']
    assert not (tmp_path / "out" / SAVE_NAME).exists()


def test_a_trick_text_the_font_cannot_draw_names_the_trick(tmp_path):
    folder = game_folder(tmp_path)
    cards = folder / "cards.toml"
    text = cards.read_text(encoding="utf-8")
    needle = 'text = { en = "The winner\'s sum is 2 lower."'
    assert needle in text
    cards.write_text(text.replace(needle, 'text = { en = "The winner\'s sum is 2 lower 穀."'), encoding="utf-8")
    result = build_cli(folder, tmp_path / "out")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith('error: cards.toml: trick "stink_bomb": text.en: font DejaVuSans.ttf has no glyph')
    assert not (tmp_path / "out" / SAVE_NAME).exists()


def test_the_character_card_is_drawn_from_its_layers_with_the_documented_fields(tmp_path):
    """The layout drawn from data: a layer moved in a copy of layouts.toml moves on the card, no code changed."""
    import shutil

    from bridge.catalog import load
    from bridge.paths import assets_dir
    from tools.games.kill_the_unicorns.render import Renderer, load_unicorn_layouts
    from tools.render.sizing import measure_text

    copy = tmp_path / "ku"
    shutil.copytree(load("kill-the-unicorns").folder, copy)
    data = load(copy).data
    layouts = load_unicorn_layouts(copy, data)
    assert [layer.name for layer in layouts.layouts["character"].template.layers] == \
        ["card", "band", "name", "power", "timing", "text"]
    character = data.characters[0]
    with measure_text() as record:
        Renderer(data, layouts, assets_dir() / "fonts", "en", copy).character(character.id)
    assert {name for name, *_ in record} == {"name", "power", "timing", "text"}
    text = (copy / "layouts.toml").read_text(encoding="utf-8")
    (copy / "layouts.toml").write_text(text.replace("box = [60, 320, 760, 260]", "box = [60, 420, 760, 160]"),
                                       encoding="utf-8")
    moved = load_unicorn_layouts(copy, data)
    with measure_text() as record:
        Renderer(data, moved, assets_dir() / "fonts", "en", copy).character(character.id)
    (box,) = [entry[3] for entry in record if entry[0] == "text"]
    assert box == (60, 420, 820, 580)


def test_trick_cards_and_market_tokens_are_drawn_from_their_layers_and_the_pin_is_art_of_the_folder(tmp_path):
    """The trick's bands and the pin come from layouts.toml and icons/pin.png: edited there, the card changes."""
    import shutil

    from bridge.catalog import load
    from bridge.errors import DataError
    from bridge.paths import assets_dir
    from tools.games.kill_the_unicorns.render import Renderer, load_unicorn_layouts

    copy = tmp_path / "ku"
    shutil.copytree(load("kill-the-unicorns").folder, copy)
    data = load(copy).data
    pinned = next(i for i, c in data.trick_cards.items() if data.trick_by_id[c.kind].pinned)
    plain = next(i for i, c in data.trick_cards.items() if not data.trick_by_id[c.kind].pinned)

    def draw(name: str):
        return Renderer(data, load_unicorn_layouts(copy, data), assets_dir() / "fonts", "en", copy).draw(name)

    colour = data.character_by_id[data.trick_cards[pinned].character].colour
    card = draw(f"trick:{pinned}")
    assert card.getpixel((300, 24)) == tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))   # the name band
    assert card.getpixel((548, 100))[0] > 150 > card.getpixel((548, 100))[1]                 # the red pin head
    assert draw(f"trick:{plain}").getpixel((548, 100)) == card.getpixel((300, 24))          # no pin: the band
    text = (copy / "layouts.toml").read_text(encoding="utf-8")
    band = 'name = "name_band"\nshape = "rect"\nbox = [18, 18, 594, 195]\nfill = "{colour}"'
    assert band in text
    (copy / "layouts.toml").write_text(text.replace(band, band.replace('"{colour}"', '"#00ff00"')), encoding="utf-8")
    assert draw(f"trick:{pinned}").getpixel((300, 24)) == (0, 255, 0)
    token = draw(f"token:{data.market[0].id}")
    assert token.size == (256, 256) and token.getpixel((128, 14)) != token.getpixel((128, 40))   # the ring
    (copy / "icons" / "pin.png").unlink()
    with pytest.raises(DataError, match=r'icons/pin.png: no such file in the game folder \(layer "pin"\)'):
        draw(f"trick:{pinned}")


def test_a_card_drawn_from_layers_is_keyed_by_the_files_it_draws_and_copies_share_a_key(tmp_path):
    """Editing the pin's picture makes every pinned trick drawn again; two copies of a card are one image."""
    import shutil

    from bridge.catalog import load
    from bridge.paths import assets_dir
    from tools.games.kill_the_unicorns.render import Renderer, load_unicorn_layouts
    from PIL import Image

    copy = tmp_path / "ku"
    shutil.copytree(load("kill-the-unicorns").folder, copy)
    data = load(copy).data

    def keys() -> dict[str, str]:
        renderer = Renderer(data, load_unicorn_layouts(copy, data), assets_dir() / "fonts", "en", copy)
        return {name: renderer.key(name, kind) for name, kind in renderer.items()}

    before = keys()
    pinned = {f"trick:{i}" for i, c in data.trick_cards.items() if data.trick_by_id[c.kind].pinned}
    twins = [(a, b) for a, ca in data.trick_cards.items() for b, cb in data.trick_cards.items()
             if a < b and (ca.kind, ca.character) == (cb.kind, cb.character)]
    assert twins and all(before[f"trick:{a}"] == before[f"trick:{b}"] for a, b in twins)
    Image.new("RGBA", (64, 64), (0, 0, 255, 255)).save(copy / "icons" / "pin.png")
    after = keys()
    assert pinned and {n for n in before if before[n] != after[n]} == pinned


def test_the_table_is_laid_out_by_the_game_folder_s_table_toml(built, tmp_path):
    """An entry of assets/kill_the_unicorns/table.toml moved moves its objects, and nothing else: the box zone
    and the scoring card lie where its values say."""
    def edit(text: str) -> str:
        return text.replace("box = [27.5, 0.0]", "box = [26.0, 1.5]").replace("scoring = [-16.5, 0.0]",
                                                                               "scoring = [-18.0, 1.5]")

    after = rebuild_with_table(built, tmp_path, edit)
    moved = assert_only_these_moved(built[0].save, after,
                                    lambda o: bool({"ku-box", "ku-scoring-card"} & set(o.get("Tags", []))),
                                    by=(-1.5, 1.5))
    assert len(moved) == 2


def test_pictures_are_drawn_again_when_the_colours_they_are_painted_in_change(tmp_path):
    """The unicorn emblem and the back's bands are pictures the renderer paints from the data's colours: a colour
    edited in game.toml draws again its unicorns, the unicorns' back and the seat mats (their catch columns' chips),
    and nothing else."""
    import shutil

    from bridge.catalog import load
    from bridge.paths import assets_dir
    from tools.games.kill_the_unicorns.render import Renderer, load_unicorn_layouts

    copy = tmp_path / "ku"
    shutil.copytree(load("kill-the-unicorns").folder, copy)

    def renderer() -> Renderer:
        data = load(copy).data
        return Renderer(data, load_unicorn_layouts(copy, data), assets_dir() / "fonts", "en", copy)

    def keys() -> dict[str, str]:
        drawer = renderer()
        return {name: drawer.key(name, kind) for name, kind in drawer.items()}

    before = keys()
    game = copy / "game.toml"
    text = game.read_text(encoding="utf-8")
    assert text.count('hex = "#3f7fd9"') == 1
    game.write_text(text.replace('hex = "#3f7fd9"', 'hex = "#30c0c0"'), encoding="utf-8")
    after = keys()
    blue = {f"unicorn:{u.id}" for u in load(copy).data.unicorns if u.colour == "blue"}
    mats = {n for n in before if n.startswith("seat-mat:")}
    assert blue and {n for n in before if before[n] != after[n]} == blue | {"unicorn-back"} | mats
    face = renderer().draw(sorted(blue)[0])
    assert face.getpixel((338, 24)) == (0x30, 0xc0, 0xc0)        # the strip in the new colour …
    head = tuple(round(c + (255 - c) * 0.35) for c in (0x30, 0xc0, 0xc0))
    assert head in {colour for _, colour in face.getcolors(maxcolors=1 << 20)}   # … and the emblem's head


def _scoring_drawer(folder: Path):
    from bridge.catalog import load
    from bridge.paths import assets_dir
    from tools.games.kill_the_unicorns.render import Renderer, load_unicorn_layouts

    data = load(folder).data
    return Renderer(data, load_unicorn_layouts(folder, data), assets_dir() / "fonts", "en", folder)


def test_the_scoring_card_has_a_column_per_collection_size_of_the_rules(tmp_path):
    """The collection table is a repeat group: a column per size up to collection_cap, its numbers and its labels
    each at one size; the tie line only when ties go to the most unicorns."""
    from tools.games.kill_the_unicorns.render import TEMPLATE_KINDS
    from tools.render.sizing import measure_text

    assert "scoring" in TEMPLATE_KINDS
    folder = game_folder(tmp_path)
    game = folder / "game.toml"
    text = game.read_text(encoding="utf-8")
    for cap, tie in ((5, "most_unicorns"), (4, "shared")):
        bonus = "[0, 0, 2, 5, 8, 12]" if cap == 5 else "[0, 0, 2, 5, 9]"
        game.write_text(text.replace("collection_cap = 5", f"collection_cap = {cap}")
                        .replace("collection_bonus = [0, 0, 2, 5, 8, 12]", f"collection_bonus = {bonus}")
                        .replace('tie_break = "most_unicorns"', f'tie_break = "{tie}"'), encoding="utf-8")
        with measure_text() as record:
            _scoring_drawer(folder).scoring()
        sizes = {name: size for name, _, size, *_ in record}
        assert sorted(n for n in sizes if n.endswith("-count")) == [f"columns-{k}-count" for k in range(1, cap + 1)]
        numbers = {size for name, size in sizes.items() if name.startswith("columns-")}
        assert len(numbers) == 1                                   # "+12" and "1" read at one size
        assert sizes["count-label"] == sizes["points-label"]
        assert ("tie" in sizes) == (tie == "most_unicorns")


def test_a_scoring_string_too_long_for_its_layer_names_the_string(tmp_path):
    folder = game_folder(tmp_path)
    layouts = folder / "layouts.toml"
    text = layouts.read_text(encoding="utf-8")
    long = "1. Stars: " + "every caught unicorn scores its stars " * 12
    layouts.write_text(text.replace('en = "1. Stars: every caught unicorn scores its stars."', f'en = "{long}"'),
                       encoding="utf-8")
    result = build_cli(folder, tmp_path / "out")
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors == ['error: layouts.toml: string "score_stars": en: text does not fit layer "stars" (780x120 px) '
                      'even at 18 px: shorten it or enlarge the layer in layouts.toml']
