"""The build: the table contract, GUIDs, scripts, determinism, atomic writes, the CLI.

Most tests use a fake renderer (small plain images packed with the real sheet packer) so they check the
table and the build's own logic quickly; one test runs the real renderer end to end.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.savejson import by_tag, memo, objects
from tests.shared import REPO_ROOT
from bridge.luaproject.scriptfolder import expand_includes
from click.testing import CliRunner
from PIL import Image

from bridge.rules.four_humours.records import HUMOURS
from tests.tools.games.buildtest import (assert_back_images_are_drawn_at_their_cells_size, assert_body_text_legible,
                                      assert_cells_agree_with_print_faces, build_copy)
from tools.build import build, bundle_scripts
from bridge.luaproject.bundle import unbundle
from tools.check import check_file
from tools.cli import cli
from bridge.catalog import load_game
from tools.render.pipeline import Art
from tools.save import is_guid
from tools.sheets import pack_faces
from tools.games.four_humours.table import ArtLike, compose_table


def fake_render(data, out_dir, *, lang="en", fmt="jpg", quality=90, use_cache=True, jobs=None, progress=None,
                game_dir=None):
    """Plain images with the real faces' aspect ratios, packed by the real sheet packer."""
    sheets = Path(out_dir) / "sheets"
    sheets.mkdir(parents=True, exist_ok=True)

    def faces(n, size):
        return [Image.new("RGB", size, ((37 * i) % 256, (91 * i) % 256, 120)) for i in range(n)]

    back = Image.new("RGB", (20, 20), (90, 90, 90))
    decks = {
        "scenes": pack_faces(faces(len(data.scenes), (105, 73)), sheets, "scenes", back=back, fmt=fmt),
        "goals": pack_faces(faces(len(data.goals), (63, 88)), sheets, "goals", back=back, fmt=fmt),
        "parties": pack_faces(faces(len(data.parties), (60, 60)), sheets, "parties", back=back, fmt=fmt),
    }
    images = {}

    def single(name, size, colour):
        path = sheets / f"{name.replace(':', '-').lower()}.png"
        if not path.exists():
            Image.new("RGB", size, colour).save(path)
        images[name] = path

    single("kingdom", (40, 60), (10, 120, 10))
    for f in data.fiefs:
        single(f"fief:{f.id}", (30, 30), (120, 10, 10))
    for h in HUMOURS:
        single(f"potion:{h}", (16, 16), (200, 200, 0))
    for p in data.parties:
        single(f"party:{p.id}", (60, 60), (0, 0, 200))
    for c in data.info.player_colours:
        single(f"potion-back:{c}", (16, 16), (1, 2, 3))
        single(f"goal-marker:{c}", (16, 16), (3, 2, 1))
    single("scene-marker", (16, 16), (9, 9, 9))
    single("thumbnail", (32, 32), (50, 50, 50))
    if progress is not None:
        progress(1, 1)
    return Art(decks, images, 1, ())


@pytest.fixture(scope="module")
def data():
    return load_game("four-humours")


@pytest.fixture(scope="module")
def kingdom_build(tmp_path_factory, data):
    out = tmp_path_factory.mktemp("kingdom")
    return build("four-humours", out, render=fake_render)


def test_every_object_is_tagged_and_has_a_role(kingdom_build):
    for o in objects(kingdom_build.save):
        assert "ttsmod" in o["Tags"], o["Name"]
        assert "role" in memo(o)


def test_kingdom_board_has_a_snap_point_per_cell(kingdom_build, data):
    (board,) = by_tag(kingdom_build.save, "fh-kingdom")
    assert board["Name"] in ("Custom_Board", "Custom_Tile") and memo(board) == {"role": "kingdom"}
    tags = [p["Tags"] for p in board["AttachedSnapPoints"]]
    assert tags == [["fh-cell", f"fh-cell:{c.id}", "fh-potion"] for c in data.kingdom.cells]
    assert not by_tag(kingdom_build.save, "fh-fief")


def test_scene_deck_cards_and_spots(kingdom_build, data):
    (deck,) = by_tag(kingdom_build.save, "fh-scene-deck")
    assert deck["Name"] == "Deck" and memo(deck) == {"role": "scene-deck"}
    cards = deck["ContainedObjects"]
    assert [memo(c) for c in cards] == [{"role": "scene", "card": s.id} for s in data.scenes]
    for c, scene in zip(cards, data.scenes):
        assert c["Tags"] == ["ttsmod", "fh-scene"]
        assert [p["Tags"] for p in c["AttachedSnapPoints"]] == \
            [["fh-slot", f"fh-slot:{i}", "fh-potion"] for i in range(len(scene.slots))]
        xs = [p["Position"]["x"] for p in c["AttachedSnapPoints"]]
        assert len(set(xs)) == len(xs)  # slots are distinct positions
    assert deck["DeckIDs"] == [c["CardID"] for c in cards]
    spots = by_tag(kingdom_build.save, "fh-scene-spot")
    assert [memo(s) for s in spots] == [{"role": "scene-spot", "index": i} for i in range(4)]
    assert all(s["Name"] == "ScriptingTrigger" for s in spots)
    markers = by_tag(kingdom_build.save, "fh-scene-marker")
    assert len(markers) == 5 and all(m["Name"] == "Custom_Token" for m in markers)


def test_party_strip(kingdom_build, data):
    parties = by_tag(kingdom_build.save, "fh-party")
    expected = sorted(data.parties, key=lambda p: p.order)
    assert [memo(p) for p in parties] == [{"role": "party", "party": p.id, "order": p.order} for p in expected]
    for tile, party in zip(parties, expected):
        assert tile["Name"] == "Custom_Tile"
        assert [p["Tags"] for p in tile["AttachedSnapPoints"]] == \
            [["fh-slot", f"fh-slot:{i}", "fh-potion"] for i in range(len(party.slots))]


def test_goal_row(kingdom_build, data):
    (deck,) = by_tag(kingdom_build.save, "fh-goal-deck")
    assert memo(deck) == {"role": "goal-deck"}
    assert [memo(c) for c in deck["ContainedObjects"]] == \
        [{"role": "goal", "goal": g.id} for g in data.goals_of_mode("kingdom")]
    spots = by_tag(kingdom_build.save, "fh-goal-spot")
    assert [memo(s) for s in spots] == [{"role": "goal-spot", "index": i} for i in range(4)]


def test_bags_of_potions_per_colour(kingdom_build, data):
    colours = data.info.player_colours[:data.info.max_players]
    bags = by_tag(kingdom_build.save, "fh-bag")
    assert [memo(b) for b in bags] == [{"role": "bag", "owner": c} for c in colours]
    for bag_obj, colour in zip(bags, colours):
        assert bag_obj["Name"] == "Bag" and f"owner:{colour}" in bag_obj["Tags"]
        potions = bag_obj["ContainedObjects"]
        assert len(potions) == 20
        for p in potions:
            assert p["Tags"] == ["ttsmod", "fh-potion", f"owner:{colour}"]
            assert memo(p)["owner"] == colour and memo(p)["role"] == "potion"
            assert p["Nickname"] == f"{colour} potion"  # the tooltip does not reveal the humour
            assert p["CustomImage"]["ImageSecondaryURL"]  # the back shows the owner colour
        assert Counter(memo(p)["humour"] for p in potions) == Counter(data.rules.bag_composition)
        markers = [m for m in by_tag(kingdom_build.save, "fh-goal-marker") if f"owner:{colour}" in m["Tags"]]
        assert len(markers) == 4 and all(memo(m) == {"role": "goal-marker", "owner": colour} for m in markers)


def test_every_player_colour_has_a_hand_zone(kingdom_build, data):
    colours = data.info.player_colours[:data.info.max_players]
    hands = by_tag(kingdom_build.save, "fh-hand")
    assert [h["Name"] for h in hands] == ["HandTrigger"] * len(colours)
    assert [h["FogColor"] for h in hands] == list(colours)
    assert [memo(h) for h in hands] == [{"role": "hand", "owner": c} for c in colours]
    spots = {(h["Transform"]["posX"], h["Transform"]["posZ"]) for h in hands}
    assert len(spots) == len(colours)  # no two hands on top of each other


def test_bag_composition_comes_from_the_data(tmp_path, data):
    rules = dataclasses.replace(data.rules, bag_composition={"choleric": 8, "sanguine": 2, "melancholic": 6,
                                                             "phlegmatic": 4})
    custom = dataclasses.replace(data, rules=rules)
    art = fake_render(custom, tmp_path)
    save = compose_table(custom, ArtLike(art.decks, art.images), mode="kingdom",
                         url_for=lambda p: p.resolve().as_uri()).to_json()
    for b in by_tag(save, "fh-bag"):
        assert Counter(memo(p)["humour"] for p in b["ContainedObjects"]) == \
            {"choleric": 8, "sanguine": 2, "melancholic": 6, "phlegmatic": 4}


def test_fief_mode_lays_the_fief_boards(tmp_path, data):
    result = build("four-humours", tmp_path, mode="fief", render=fake_render)
    fiefs = by_tag(result.save, "fh-fief")
    assert [memo(f) for f in fiefs] == [{"role": "fief", "fief": b.id} for b in data.fiefs]
    for tile, board in zip(fiefs, data.fiefs):
        assert [p["Tags"] for p in tile["AttachedSnapPoints"]] == [["fh-cell", f"fh-cell:{c.id}", "fh-potion"]
                                                                       for c in board.cells]
    assert not by_tag(result.save, "fh-kingdom")
    goals = by_tag(result.save, "fh-goal-deck")[0]["ContainedObjects"]
    assert {memo(g)["goal"] for g in goals} == {g.id for g in data.goals_of_mode("fief")}
    generated = unbundle(result.save["LuaScript"])["generated.game"]
    assert 'mode = "fief"' in generated


def _shares_a_tag(feature: list[str], obj: dict) -> bool:
    """The Knowledge Base's rule: a tagged zone, hand or snap point interacts only with objects sharing a tag."""
    return not feature or bool(set(feature) & set(obj.get("Tags", [])))


def test_what_real_tts_needs_of_the_table(kingdom_build):
    save = kingdom_build.save
    potions = by_tag(save, "fh-potion")
    # only an object with use_hands can be held in a hand zone (API docs, Object use_hands)
    assert potions and all(p["Hands"] is True for p in potions)
    # tagged snap points attract only objects sharing a tag: every slot and cell takes every potion
    hosts = by_tag(save, "fh-scene") + by_tag(save, "fh-party") + by_tag(save, "fh-kingdom")
    points = [sp for host in hosts for sp in host["AttachedSnapPoints"]]
    assert points and all(_shares_a_tag(sp["Tags"], p) for sp in points for p in potions)
    # tagged zones take in only objects sharing a tag: spots their cards, hands every potion
    for spot_tag, card_tag in (("fh-scene-spot", "fh-scene"), ("fh-goal-spot", "fh-goal")):
        for spot in by_tag(save, spot_tag):
            assert all(_shares_a_tag(spot["Tags"], card) for card in by_tag(save, card_tag))
    hands = [o for o in objects(save) if o["Name"] == "HandTrigger"]
    assert hands and all(_shares_a_tag(h["Tags"], p) for h in hands for p in potions)


def test_guids_are_unique_across_the_whole_save(kingdom_build):
    guids = [o["GUID"] for o in objects(kingdom_build.save)]
    assert all(is_guid(g) for g in guids)
    assert len(guids) == len(set(guids))


def test_global_script_is_the_bundled_mod_with_generated_game(kingdom_build, data):
    save = kingdom_build.save
    assert save["LuaScript"].startswith("-- Bundled by luabundle")
    modules = unbundle(save["LuaScript"])
    assert modules["__root"] == Path("mod/four_humours/global.lua").read_text(encoding="utf-8")
    lupa = pytest.importorskip("lupa")
    lua = lupa.LuaRuntime()
    game = lua.execute(modules["generated.game"])
    assert game.game == "four-humours" and game.mode == "kingdom"
    payload = json.loads(game.data)
    assert payload["player_colours"] == list(data.info.player_colours[:data.info.max_players])
    assert [s["id"] for s in payload["scenes"]] == [s.id for s in data.scenes]
    # the rule flags the mod itself acts on (draws after a placement, who starts, the redraw button)
    assert payload["min_players"] == data.info.min_players
    assert payload["rules"]["draw_after_place"] is data.rules.draw_after_place
    assert payload["rules"]["first_player"] == data.rules.first_player
    assert payload["rules"]["four_identical_redraw"] is data.rules.four_identical_redraw
    # the Global UI is the mod's ui.xml with its <Include src> (the shared bot seat buttons) expanded
    mod = REPO_ROOT / "mod"
    xml = (mod / "four_humours" / "ui.xml").read_text(encoding="utf-8")
    assert '<Include src="lib/bots.xml"/>' in xml
    assert save["XmlUI"] == expand_includes(xml, [mod / "four_humours", mod], "ui.xml")
    assert 'id="bot_Red"' in save["XmlUI"] and "<Include" not in save["XmlUI"]


def test_bundle_scripts_for_push(kingdom_build):
    scripts = bundle_scripts("four-humours")
    assert scripts["-1"]["LuaScript"] == kingdom_build.save["LuaScript"]
    assert scripts["-1"]["XmlUI"] == kingdom_build.save["XmlUI"]


def test_built_save_checks_clean_and_files_exist(kingdom_build):
    report = check_file(kingdom_build.save_path)
    assert report.exit_status == 0, [str(f) for f in report.findings]
    assert kingdom_build.thumbnail_path.is_file()
    assert all(p.is_file() for p in kingdom_build.sheets)


def test_asset_base_url(tmp_path):
    result = build("four-humours", tmp_path, asset_base_url="https://example.org/fh/", render=fake_render)
    text = result.save_path.read_text(encoding="utf-8")
    assert "file:///" not in text
    deck = by_tag(result.save, "fh-scene-deck")[0]
    assert deck["CustomDeck"]["1"]["FaceURL"].startswith("https://example.org/fh/scenes-")


def test_no_op_rebuild_is_byte_identical_and_does_not_rewrite(tmp_path):
    first = build("four-humours", tmp_path, render=fake_render)
    raw = first.save_path.read_bytes()
    mtime = first.save_path.stat().st_mtime_ns
    second = build("four-humours", tmp_path, render=fake_render)
    assert second.save_path.read_bytes() == raw
    assert not second.save_changed and second.save_path.stat().st_mtime_ns == mtime


def test_two_cold_builds_with_the_real_renderer_are_byte_identical(tmp_path):
    a = build("four-humours", tmp_path / "a", asset_base_url="https://example.org/fh")
    b = build("four-humours", tmp_path / "b", asset_base_url="https://example.org/fh", use_cache=False)
    assert a.save_path.read_bytes() == b.save_path.read_bytes()
    assert a.thumbnail_path.read_bytes() == b.thumbnail_path.read_bytes()
    for sheet in a.sheets:
        assert sheet.read_bytes() == (tmp_path / "b" / "sheets" / sheet.name).read_bytes()
    assert check_file(a.save_path).exit_status == 0


def test_an_error_mid_build_leaves_the_previous_build_intact(tmp_path, monkeypatch):
    first = build("four-humours", tmp_path, render=fake_render)
    before = {p: p.read_bytes() for p in (first.save_path, first.thumbnail_path)}

    def failing_render(data, out_dir, **kwargs):
        fake_render(data, out_dir, **kwargs)       # the art is drawn, then the renderer dies
        (Path(out_dir) / "sheets" / "half-written-new-sheet.jpg").write_bytes(b"new")
        raise RuntimeError("renderer crashed")

    with pytest.raises(RuntimeError):
        build("four-humours", tmp_path, lang="uk", render=failing_render)

    import tools.games.four_humours.table as table

    def broken_compose(*args, **kwargs):
        raise ValueError("table bug")

    monkeypatch.setattr(table, "compose_table", broken_compose)
    with pytest.raises(ValueError):
        build("four-humours", tmp_path, lang="ru", render=fake_render)
    assert {p: p.read_bytes() for p in before} == before
    assert check_file(first.save_path).exit_status == 0
    assert not list(tmp_path.glob(".*.tmp"))


def test_missing_global_script_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "mod" / "lib").mkdir(parents=True)
    monkeypatch.setenv("TTSMOD_MOD", str(tmp_path / "mod"))
    result = CliRunner().invoke(cli, ["build", "four-humours", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "global.lua" in result.output and "missing" in result.output
    assert not (tmp_path / "out").exists()


def test_missing_module_is_a_build_error_with_file_and_line(tmp_path, monkeypatch):
    game = tmp_path / "mod" / "four_humours"
    game.mkdir(parents=True)
    (game / "global.lua").write_text('\nlocal x = require("lib.absent")\n', encoding="utf-8")
    monkeypatch.setenv("TTSMOD_MOD", str(tmp_path / "mod"))
    result = CliRunner().invoke(cli, ["build", "four-humours", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{game / 'global.lua'}:2: module \"lib.absent\" not found" in result.output


def test_cli_bad_game_and_options(tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["build", str(tmp_path / "no-such-game")])
    assert result.exit_code == 2 and result.output.startswith("error:")
    result = runner.invoke(cli, ["build", "four-humours", "--asset-base-url", "ftp://x", "--out", str(tmp_path)])
    assert result.exit_code == 2


def test_images_of_the_previous_save_survive_a_failure_after_rendering(tmp_path, monkeypatch):
    """The real renderer leaves stale sheets in place until the new save is written."""
    out = tmp_path / "out"
    first = build("four-humours", out)
    referenced = {p.name for p in first.sheets}

    import tools.games.four_humours.table as table

    real_compose = table.compose_table
    monkeypatch.setattr(table, "compose_table", lambda *a, **k: (_ for _ in ()).throw(ValueError("table bug")))
    with pytest.raises(ValueError):
        build("four-humours", out, lang="uk")  # every card re-rendered in Ukrainian, then the table step fails
    assert all((out / "sheets" / name).is_file() for name in referenced)
    assert check_file(first.save_path).exit_status == 0

    monkeypatch.setattr(table, "compose_table", real_compose)
    second = build("four-humours", out, lang="uk")
    now = {p.name for p in second.sheets}
    left = {p.name for p in (out / "sheets").iterdir() if not p.name.startswith("thumbnail")}
    assert left == now  # the English sheets are gone once the Ukrainian save is written


# ---------------------------------------------------------------------------------- options from the metadata


def game_copy(tmp_path: Path, **meta: str) -> Path:
    """A copy of the Four Humours folder with raw TOML values replacing keys of its [game] table."""
    import re
    import shutil

    from bridge.paths import assets_dir

    folder = tmp_path / "game"
    shutil.copytree(assets_dir() / "four_humours", folder)
    path = folder / "game.toml"
    text = path.read_text(encoding="utf-8")
    for key, value in meta.items():
        text, n = re.subn(rf"^{key} = .*$", lambda _m: f"{key} = {value}", text, count=1, flags=re.M)
        assert n == 1, key
    path.write_text(text, encoding="utf-8")
    return folder


def test_generated_ttsmod_carries_the_package_version_protocol_game_and_mode(kingdom_build):
    from bridge import __version__
    from bridge.session import ENVELOPE_VERSION

    lupa = pytest.importorskip("lupa")
    modules = unbundle(kingdom_build.save["LuaScript"])
    facts = lupa.LuaRuntime().execute(modules["generated.ttsmod"])
    assert (facts.version, facts.protocol, facts.game, facts.mode) == \
        (__version__, ENVELOPE_VERSION, "four-humours", "kingdom")
    # generated.game's protocol is the bridge's envelope version too, not a fallback
    assert json.loads(lupa.LuaRuntime().execute(modules["generated.game"]).data)["protocol"] == ENVELOPE_VERSION


def test_the_default_mode_is_the_games_first(tmp_path):
    folder = game_copy(tmp_path, modes='["fief", "kingdom"]')
    result = build(str(folder), tmp_path / "out", render=fake_render)
    assert by_tag(result.save, "fh-fief") and not by_tag(result.save, "fh-kingdom")
    assert 'mode = "fief"' in unbundle(result.save["LuaScript"])["generated.ttsmod"]
    assert unbundle(bundle_scripts(str(folder))["-1"]["LuaScript"])["generated.game"] == \
        unbundle(result.save["LuaScript"])["generated.game"]


def test_modes_and_languages_are_the_games_own(tmp_path):
    folder = game_copy(tmp_path, modes='["fief", "kingdom"]', languages='["en", "uk"]')
    runner = CliRunner()
    result = runner.invoke(cli, ["build", str(folder), "--mode", "desert", "--out", str(tmp_path / "a")])
    assert result.exit_code == 2
    assert result.output == 'error: --mode must be one of fief, kingdom, not "desert"\n'
    result = runner.invoke(cli, ["build", str(folder), "--lang", "ru", "--out", str(tmp_path / "b")])
    assert result.exit_code == 2
    assert result.output == 'error: --lang must be one of en, uk, not "ru"\n'
    result = runner.invoke(cli, ["build", "four-humours", "--mode", "desert", "--out", str(tmp_path / "c")])
    assert result.exit_code == 2
    assert result.output == 'error: --mode must be one of kingdom, fief, not "desert"\n'
    assert not any((tmp_path / name).exists() for name in ("a", "b", "c"))


@pytest.mark.parametrize("module, message", [
    ("no_such_package.builder", '"no_such_package.builder" cannot be imported'),
    ("tools.save", '"tools.save" registers no builder for "four-humours"'),
])
def test_a_builder_module_that_does_not_give_a_builder_is_one_error_line(tmp_path, module, message):
    folder = game_copy(tmp_path, builder=f'"{module}"')
    result = CliRunner().invoke(cli, ["build", str(folder), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: game.toml: [game]: builder: {message}")
    assert len(result.output.splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A build of a copy of the shipped game folder with the real renderer."""
    return build_copy(tmp_path_factory, "four_humours", jobs=2)


def test_every_deck_s_body_text_stands_24_px_high_on_its_sheets(built):
    # scene text stood about 12 px high when every face was drawn at 1050 x 730 and scaled into an 8 x 5 sheet
    assert_body_text_legible(built[0])
    scenes = next(deck for deck in built[0].decks if deck["name"] == "scenes")
    # The sample scenes' body text stands 26 px at their 1050 x 730 design: their cells are at least the 24/26 of it
    # at which it stands 24 px, and no larger than the design (larger cells would only cost pixels).
    assert 1050 * 24 / 26 <= scenes["cell"][0] <= 1050 and 24 <= scenes["text_height"] <= 26


def test_a_sheet_cell_agrees_with_its_face_drawn_at_print_size(built):
    assert_cells_agree_with_print_faces(*built)


def test_each_deck_s_back_image_is_drawn_at_its_cell_s_size(built):
    assert_back_images_are_drawn_at_their_cells_size(*built)
