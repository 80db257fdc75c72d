"""render_game: every deck and image, board coordinates, determinism, incremental rebuilds, glyph errors."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import Image

from bridge.errors import DataError, InputError
from tools.games.four_humours.render import cell_positions, render_game


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_render_game_produces_every_deck_and_image(game, game_dir, tmp_path):
    calls = []
    art = render_game(game, tmp_path / "out", game_dir=game_dir, jobs=1, progress=lambda d, t: calls.append((d, t)))
    assert set(art.decks) == {"scenes", "goals", "parties"}
    scenes = art.decks["scenes"]
    assert len(scenes.placement) == len(game.scenes) and scenes.sheets[0].count == len(game.scenes)
    assert len(art.decks["goals"].placement) == 2 and len(art.decks["parties"].placement) == 1
    expected = {"kingdom", "fief:fief-1", "scene-marker", "thumbnail", "party:ball"}
    expected |= {f"potion:{h.id}" for h in game.humours}
    expected |= {f"potion-back:{c}" for c in game.info.player_colours}
    expected |= {f"goal-marker:{c}" for c in game.info.player_colours}
    assert set(art.images) == expected
    for path in art.images.values():
        assert path.parent == tmp_path / "out" / "sheets" and path.is_file()
        with Image.open(path) as image:
            assert image.mode == "RGB"
    with Image.open(art.images["thumbnail"]) as thumb:
        assert thumb.format == "PNG" and thumb.size == (256, 256)
    assert calls[-1] == (art.rendered, art.rendered) and art.rendered > 0


def test_board_cells_are_drawn_at_their_data_position(game, game_dir, tmp_path):
    art = render_game(game, tmp_path / "out", game_dir=game_dir, jobs=1, fmt="png")
    with Image.open(art.images["kingdom"]) as board:
        assert board.size == (2 * 1024, 1024)  # two tiles side by side
        frame = (0x5b, 0x46, 0x36)  # the centre dot of a kingdom cell
        for cell_id, (x, y) in cell_positions(game.kingdom).items():
            pixel = board.getpixel((round(x * board.width), round(y * board.height)))
            assert pixel == frame, cell_id
    well = cell_positions(game.kingdom)["well"]
    assert 0.5 < well[0] < 1.0  # a cell without pos lies inside its own tile (T2, the right half)


def test_two_renders_are_byte_identical(game, game_dir, tmp_path):
    render_game(game, tmp_path / "a", game_dir=game_dir, jobs=1)
    render_game(game, tmp_path / "b", game_dir=game_dir, jobs=2)
    assert files(tmp_path / "a" / "sheets") == files(tmp_path / "b" / "sheets")


def test_rebuild_redraws_and_repacks_only_the_changed_card_s_sheet(game, game_dir, tmp_path):
    out = tmp_path / "out"
    first = render_game(game, out, game_dir=game_dir, jobs=1)
    again = render_game(game, out, game_dir=game_dir, jobs=1)
    assert (again.rendered, again.repacked) == (0, ())
    assert again.decks == first.decks and again.images == first.images

    scenes = list(game.scenes)
    scenes[2] = dataclasses.replace(scenes[2], title=dataclasses.replace(scenes[2].title, en="Renamed"))
    changed = dataclasses.replace(game, scenes=tuple(scenes))
    third = render_game(changed, out, game_dir=game_dir, jobs=1)
    # the faces of the changed card's sheet, each drawn again at its cell's size (cells are not cached)
    assert third.rendered == sum(1 for sheet, _ in third.decks["scenes"].placement if sheet == 0)
    assert third.repacked == (third.decks["scenes"].sheets[0].file,)
    assert third.decks["scenes"].sheets[0].file != first.decks["scenes"].sheets[0].file
    assert third.decks["goals"] == first.decks["goals"]
    assert not first.decks["scenes"].sheets[0].path.exists()  # the stale sheet is gone

    cold = render_game(changed, out, game_dir=game_dir, jobs=1, use_cache=False)
    assert cold.rendered == first.rendered


def test_art_file_is_used_and_only_its_card_s_sheet_redrawn(game, game_dir, tmp_path):
    out = tmp_path / "out"
    render_game(game, out, game_dir=game_dir, jobs=1, fmt="png")
    Image.new("RGB", (300, 900), (0, 200, 255)).save(game_dir / "art" / "scene-1.png")
    art = render_game(game, out, game_dir=game_dir, jobs=1, fmt="png")
    assert art.rendered == sum(1 for sheet, _ in art.decks["scenes"].placement if sheet == 0)   # its sheet's faces
    assert art.repacked == (art.decks["scenes"].sheets[0].file,)
    deck = art.decks["scenes"]
    sheet = deck.sheets[0]
    with Image.open(sheet.path) as image:
        columns = sheet.columns
        scale = sheet.cell_width / 1050
        x0, y0 = (1 % columns) * sheet.cell_width, (1 // columns) * sheet.cell_height
        # the middle of the art box [40, 146, 540, 320] of scene 1 shows the art colour
        pixel = image.getpixel((x0 + round(310 * scale), y0 + round(306 * scale)))
        assert abs(pixel[0] - 0) < 10 and abs(pixel[1] - 200) < 10 and abs(pixel[2] - 255) < 10


def test_a_missing_glyph_fails_before_rendering_with_file_entry_field(game, game_dir, tmp_path):
    scenes = list(game.scenes)
    scenes[0] = dataclasses.replace(scenes[0], title=dataclasses.replace(scenes[0].title, uk="Млин 中"))
    bad = dataclasses.replace(game, scenes=tuple(scenes))
    with pytest.raises(DataError) as caught:
        render_game(bad, tmp_path / "out", game_dir=game_dir, lang="uk", jobs=1)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("scenes.toml", 'scene "scene-0"', "title.uk")
    assert not (tmp_path / "out" / "sheets").exists()
    render_game(bad, tmp_path / "en", game_dir=game_dir, lang="en", jobs=1)  # the English text is fine


def test_a_rebuild_checks_only_new_images_texts_and_still_finds_a_missing_glyph(game, game_dir, tmp_path,
                                                                                 monkeypatch):
    import tools.games.four_humours.render as module
    from tools.render import richtext

    out = tmp_path / "out"
    render_game(game, out, game_dir=game_dir, lang="uk", jobs=1)
    places = []
    real = module.check_glyphs
    # the texts drawn in code, and those of the layers (a scene's title and zone), checked by the template drawer
    for checking in (module, richtext):
        monkeypatch.setattr(checking, "check_glyphs", lambda text, font, **where: (places.append(where),
                                                                                   real(text, font, **where)))
    render_game(game, out, game_dir=game_dir, lang="uk", jobs=1)
    # only the texts many images share (the layouts' strings, the citizens' names) are checked again
    assert places and all(p["file"] in ("layouts.toml", "game.toml") for p in places)

    scenes = list(game.scenes)
    scenes[3] = dataclasses.replace(scenes[3], title=dataclasses.replace(scenes[3].title, uk="Млин 中"))
    bad = dataclasses.replace(game, scenes=tuple(scenes))
    for use_cache in (True, False):
        places.clear()
        with pytest.raises(DataError) as caught:
            render_game(bad, out, game_dir=game_dir, lang="uk", jobs=1, use_cache=use_cache)
        assert (caught.value.file, caught.value.entry, caught.value.field) == ("scenes.toml", 'scene "scene-3"',
                                                                             "title.uk")
        assert any(p["entry"] == 'scene "scene-2"' for p in places) != use_cache   # the others: cold only


def test_text_too_long_for_its_box_is_a_data_error_from_a_worker(game, game_dir, tmp_path):
    goals = list(game.goals)
    goals[1] = dataclasses.replace(goals[1], text=dataclasses.replace(goals[1].text, en="word " * 400))
    bad = dataclasses.replace(game, goals=tuple(goals))
    with pytest.raises(DataError) as caught:
        render_game(bad, tmp_path / "out", game_dir=game_dir, jobs=2)
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("goals.toml", 'goal "line"', "text.en")


def test_language_changes_the_cards(game, game_dir, tmp_path):
    en = render_game(game, tmp_path / "en", game_dir=game_dir, jobs=1)
    ru = render_game(game, tmp_path / "ru", game_dir=game_dir, jobs=1, lang="ru")
    assert en.decks["scenes"].sheets[0].file != ru.decks["scenes"].sheets[0].file
    with pytest.raises(InputError, match="language"):
        render_game(game, tmp_path / "x", game_dir=game_dir, lang="de")


def test_the_shipped_sample_game_renders_in_all_languages(tmp_path):
    gamedata = pytest.importorskip("bridge.catalog")
    data = gamedata.load_game("four-humours")
    for lang in ("en", "uk", "ru"):
        art = render_game(data, tmp_path / lang, lang=lang, jobs=2)
        assert len(art.decks["scenes"].placement) == len(data.scenes)
        for sheet in art.decks["scenes"].sheets:
            assert sheet.columns <= 10 and sheet.rows <= 7
            assert sheet.columns * sheet.cell_width <= 4096 and sheet.rows * sheet.cell_height <= 4096


def keys_of(data, game_dir, lang="en"):
    from bridge.paths import assets_dir
    from tools.games.four_humours.render import Renderer, load_four_humours_layouts

    return Renderer(data, load_four_humours_layouts(game_dir), game_dir, assets_dir() / "fonts", lang).keys()


def changed(before, after):
    return {name for name in before if before[name] != after[name]}


def test_a_back_s_and_a_token_s_key_change_with_what_they_show_and_nothing_else(game, game_dir):
    before = keys_of(game, game_dir)
    backs = {"scene-back", "goal-back", "party-back"}
    renamed = dataclasses.replace(game, info=dataclasses.replace(game.info, name=dataclasses.replace(
        game.info.name, en="Five Humours")))
    assert backs <= changed(before, keys_of(renamed, game_dir))
    humours = list(game.humours)
    humours[2] = dataclasses.replace(humours[2], colour="#123456")
    recoloured = changed(before, keys_of(dataclasses.replace(game, humours=tuple(humours)), game_dir))
    assert backs <= recoloured
    assert "potion:melancholic" in recoloured and "potion:choleric" not in recoloured   # a token shows its own humour
    assert not {n for n in recoloured if n.startswith(("potion-back:", "goal-marker:", "scene-marker"))}
    assert backs <= changed(before, keys_of(game, game_dir, "uk"))   # another language's words
    scenes = list(game.scenes)
    scenes[0] = dataclasses.replace(scenes[0], title=dataclasses.replace(scenes[0].title, en="Renamed"))
    assert changed(before, keys_of(dataclasses.replace(game, scenes=tuple(scenes)), game_dir)) == {"scene:scene-0"}


def test_a_goal_s_art_is_drawn_in_its_box_and_its_key_follows_the_file(game, game_dir):
    from bridge.paths import assets_dir
    from tools.games.four_humours.render import Renderer, load_four_humours_layouts

    drawing = Renderer(game, load_four_humours_layouts(game_dir), game_dir, assets_dir() / "fonts", "en")
    without, other = drawing.key("goal:tour", "goal"), drawing.key("goal:line", "goal")
    placeholder = drawing.render("goal:tour").getpixel((315, 336))   # the middle of the art box [36, 176, 558, 320]
    Image.new("RGB", (90, 60), (0, 200, 255)).save(game_dir / "art" / "tour.jpg", quality=95)
    with_jpg = drawing.key("goal:tour", "goal")
    pixel = drawing.render("goal:tour").getpixel((315, 336))
    assert with_jpg != without and pixel != placeholder
    assert abs(pixel[0] - 0) < 10 and abs(pixel[1] - 200) < 10 and abs(pixel[2] - 255) < 10
    Image.new("RGB", (90, 60), (200, 0, 0)).save(game_dir / "art" / "tour.jpg", quality=95)
    assert drawing.key("goal:tour", "goal") not in (without, with_jpg)
    assert drawing.key("goal:line", "goal") == other   # the other goal shows no art of this one
    (game_dir / "art" / "tour.jpg").unlink()
    (game_dir / "art" / "tour.png").write_bytes(b"")
    with pytest.raises(DataError) as caught:
        drawing.render("goal:tour")
    assert (caught.value.file, caught.value.entry, caught.value.field) == ("goals.toml", 'goal "tour"', "art")
    assert "art/tour.png" in caught.value.message


def test_a_party_tile_s_key_changes_with_its_layers_fields_and_its_body(game, game_dir):
    before = keys_of(game, game_dir)
    citizens = list(game.citizens)
    citizens[0] = dataclasses.replace(citizens[0], name=dataclasses.replace(citizens[0].name, en="Lord"))
    # the ball's estate (its subtitle) and its slot's name are the noble's
    assert "party:ball" in changed(before, keys_of(dataclasses.replace(game, citizens=tuple(citizens)), game_dir))
    tile = game.parties[0]
    for edit in (dict(title=dataclasses.replace(tile.title, en="Masque")), dict(order=3), dict(estate=None),
                 dict(slots=tile.slots * 2), dict(resolution=game.rules.default_resolution[:2])):
        edited = dataclasses.replace(game, parties=(dataclasses.replace(tile, **edit),))
        assert changed(before, keys_of(edited, game_dir)) == {"party:ball"}, edit
    body = game_dir / "layouts.toml"   # its slots' humour icons, a group inside its slots group
    text = body.read_text(encoding="utf-8")
    assert text.count("cell = [52, 52]") == 1
    body.write_text(text.replace("cell = [52, 52]", "cell = [40, 40]"), encoding="utf-8")
    assert changed(before, keys_of(game, game_dir)) == {"party:ball"}


def test_a_missing_glyph_on_a_face_drawn_from_layers_fails_before_rendering(game, game_dir, tmp_path):
    goal = dataclasses.replace(game.goals[0], title=dataclasses.replace(game.goals[0].title, uk="Тур 中"))
    tile = dataclasses.replace(game.parties[0], title=dataclasses.replace(game.parties[0].title, uk="Бал 中"))
    for bad, where in ((dataclasses.replace(game, goals=(goal, *game.goals[1:])), ("goals.toml", 'goal "tour"')),
                       (dataclasses.replace(game, parties=(tile,)), ("parties.toml", 'party "ball"'))):
        with pytest.raises(DataError) as caught:
            render_game(bad, tmp_path / "out", game_dir=game_dir, lang="uk", jobs=1)
        assert (caught.value.file, caught.value.entry, caught.value.field) == (*where, "title.uk")
        assert "中" in caught.value.message and not (tmp_path / "out" / "sheets").exists()
