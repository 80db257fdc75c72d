"""The Four Humours table: every object of ``docs/games/four_humours/table-contract.md``, laid out and wired to the rendered art.

:func:`compose_table` turns the game records (:class:`FourHumoursData`) and the renderer's
:class:`tools.render.pipeline.Art` into a :class:`tools.save.Save`.  What it lays (tags, ``Memo`` and snap points exactly as the contract says):

- ``--mode kingdom``: the kingdom map (``Custom_Tile``) with a snap point per cell.
  ``--mode fief``: the fief boards instead (they are the backs of the map tiles, so a table shows one or the
  other), each with a snap point per cell.  ``generated.game`` tells the mod which mode was built.
- the scene deck (face down) and ``rules.scenes_face_up`` scene spots; every scene card carries a snap point
  per slot (``fh-slot``, ``fh-slot:<i>``);
- the party strip: one ``Custom_Tile`` per party tile in resolution order, a snap point per slot;
- the goal row: a deck of the mode's goal cards and ``rules.goals_per_game`` goal spots;
- per player colour (``info.player_colours``, at most ``max_players``): a bag of potions with the humours of
  ``rules.bag_composition`` (canonical humour order; the bag hands them out at random), and goal markers
  (``rules.goals_per_game`` of them, 4 by default);
- five scene markers.

Potions are ``Custom_Tile`` circles, not ``Custom_Token``: a token shows one image on both sides, so a potion
laid face down would still show its humour; a tile shows the humour on top and the owner colour underneath
(``ImageSecondaryURL``), which is what the contract asks of the two sides.  Their ``Nickname`` is neutral
(``"White potion"``) because TTS shows it in the tooltip even face down; only ``Memo`` holds the humour.

Geometry: :mod:`tools.save.geometry` maps image points to local snap positions (inferred, see there).
Card slot centres come from the ``slots`` box of ``layouts.toml`` split into equal columns, the split the
renderer draws (:func:`tools.save.geometry.slot_centres`); cell centres are the renderer's
(:func:`tools.games.four_humours.render.cell_positions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from PIL import Image

from bridge.rules.four_humours.records import HUMOURS, Board, FourHumoursData
from bridge.errors import DataError
from tools.games.four_humours.payload import player_colours
from tools.games.four_humours.render import cell_positions, load_four_humours_layouts
from tools.save import (
    DeckSheet, GameObject, Save, SnapPoint, at, bag, card, custom_tile, custom_token, deck, hand_trigger,
    scripting_trigger, seat_colour,
)
from tools.save.geometry import card_half_extents, image_point_to_local, slot_centres, tile_half_extents
from tools.sheets import PackedDeck

TAG = "ttsmod"
SCENE_MARKERS = 5
# Tags of the slot and cell snap points. A tagged snap point attracts only objects sharing one of its tags
# (Knowledge Base, Object Tags), so each carries the potions' own tag besides the tags the mod reads.
POTION_TAG = "fh-potion"


@dataclass(frozen=True)
class ArtLike:
    """What the table needs of :class:`tools.render.pipeline.Art` (decks and single images)."""

    decks: Mapping[str, PackedDeck]
    images: Mapping[str, Path]


# ----------------------------------------------------------------------------------------------- geometry


def image_size(path: Path) -> tuple[int, int]:
    with Image.open(path) as image:
        return image.size


def _layout_box(layouts, kind: str) -> tuple[tuple[int, int, int, int], tuple[int, int]]:
    layout = layouts.layouts[kind]
    box = layout.box("slots")
    return (box.x, box.y, box.width, box.height), (layout.width, layout.height)


def load_slot_layouts(game_dir: Path) -> dict[str, tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """``{"scene": (box, size), "party": (box, size)}`` from the game's ``layouts.toml``."""
    layouts = load_four_humours_layouts(game_dir)
    return {kind: _layout_box(layouts, kind) for kind in ("scene", "party")}


# ----------------------------------------------------------------------------------------------- helpers


def _memo(role: str, **fields) -> dict:
    return {"role": role, **fields}


def _sheet_entries(packed: PackedDeck, first_key: int, url_for: Callable[[Path], str],
                   card_type: int = 0) -> list[tuple[int, DeckSheet]]:
    back = url_for(packed.back_path)
    return [(first_key + i, DeckSheet(url_for(s.path), back, s.columns, s.rows,
                                      back_is_hidden=packed.back_is_hidden, card_type=card_type))
            for i, s in enumerate(packed.sheets)]


def _face_size(packed: PackedDeck) -> tuple[int, int]:
    sheet = packed.sheets[0]
    return sheet.cell_width, sheet.cell_height


def _board_snaps(board: Board, size: tuple[int, int], positions: Mapping[str, tuple[float, float]]) -> list[SnapPoint]:
    hx, hz = tile_half_extents(*size)
    return [SnapPoint(image_point_to_local(*positions[c.id], hx, hz), ("fh-cell", f"fh-cell:{c.id}", POTION_TAG))
            for c in board.cells]


# ----------------------------------------------------------------------------------------------- the table


def compose_table(
    data: FourHumoursData,
    art: ArtLike,
    *,
    mode: str,
    url_for: Callable[[Path], str],
    lang: str = "en",
    slot_layouts: Mapping[str, tuple[tuple[int, int, int, int], tuple[int, int]]] | None = None,
    lua_script: str = "",
    xml_ui: str = "",
    epoch_time: int | None = None,
) -> Save:
    """The whole Four Humours save (see the module docstring).  ``url_for`` turns an image path into the URL
    written in the save; ``slot_layouts`` (default: derived from the face size, slots across the lower third)
    gives the ``slots`` box of scene and party faces.  Raises :class:`DataError` for data the table cannot
    hold (a mode without two goals, a missing image)."""
    if mode not in data.info.modes:
        raise DataError("game.toml", "[game]", "modes", f'"{mode}" is not a mode of this game')
    images = art.images

    def image(name: str) -> Path:
        if name not in images:
            raise DataError("render", None, None, f'the renderer produced no "{name}" image')
        return images[name]

    objects: list[GameObject] = []
    colours = player_colours(data)
    rules = data.rules
    title = lambda names: names.get(lang)  # noqa: E731

    # Boards.
    if mode == "kingdom":
        path = image("kingdom")
        size = image_size(path)
        hx, hz = tile_half_extents(*size)
        scale = 10.0 / hz  # 20 units from top to bottom edge
        objects.append(custom_tile(
            "kingdom", url_for(path), transform=at(0, 0, 1.0, scale=(scale, 1.0, scale)), locked=True,
            nickname=title(data.kingdom.name), tags=(TAG, "fh-kingdom"), memo=_memo("kingdom"),
            snap_points=_board_snaps(data.kingdom, size, cell_positions(data.kingdom))))
    else:
        for i, board in enumerate(data.fiefs):
            path = image(f"fief:{board.id}")
            size = image_size(path)
            hx, hz = tile_half_extents(*size)
            scale = 3.2 / hz
            x, z = -7.5 + (i % 3) * 7.5, 4.0 - (i // 3) * 8.0
            objects.append(custom_tile(
                f"fief:{board.id}", url_for(path), transform=at(x, z, 1.0, scale=(scale, 1.0, scale)),
                locked=True, nickname=title(board.name), tags=(TAG, "fh-fief"),
                memo=_memo("fief", fief=board.id),
                snap_points=_board_snaps(board, size, cell_positions(board))))

    # Scene deck and spots.
    scenes = art.decks["scenes"]
    if len(scenes.placement) != len(data.scenes):
        raise DataError("render", "scenes", None, f"{len(scenes.placement)} faces for {len(data.scenes)} scenes")
    face_w, face_h = _face_size(scenes)
    sideways = face_w > face_h
    card_scale = 1.7
    chx, chz = card_half_extents(face_w, face_h)
    keys = _sheet_entries(scenes, 1, url_for)
    scene_box = (slot_layouts or {}).get("scene")
    scene_cards = []
    box, box_size = scene_box or ((0, face_h * 2 // 3, face_w, face_h // 3), (face_w, face_h))
    # A card's slots depend only on how many it has, and every card lies where the deck is: both made once
    # (snap points and transforms are frozen values) for a deck of thousands.
    snaps_by_count: dict[int, tuple[SnapPoint, ...]] = {}
    in_deck = at(-19, 15, 1.2, scale=(card_scale, 1, card_scale), face_down=True)
    for n, (scene, (sheet_no, index)) in enumerate(zip(data.scenes, scenes.placement)):
        deck_key, sheet = keys[sheet_no]
        snaps = snaps_by_count.get(len(scene.slots))
        if snaps is None:
            snaps = snaps_by_count[len(scene.slots)] = tuple(
                SnapPoint(image_point_to_local(u, v, chx, chz), ("fh-slot", f"fh-slot:{i}", POTION_TAG))
                for i, (u, v) in enumerate(slot_centres(box, len(scene.slots), box_size)))
        scene_cards.append(card(f"scene-deck/scene:{scene.id}", deck_key, index, sheet, sideways=sideways,
                                nickname=title(scene.title), tags=(TAG, "fh-scene"),
                                memo=_memo("scene", card=scene.id), snap_points=snaps, transform=in_deck))
    row_z = 15.0
    spot_w, spot_d = 2 * chx * card_scale + 0.6, 2 * chz * card_scale + 0.6
    objects.append(deck("scene-deck", scene_cards, nickname="Scenes", tags=(TAG, "fh-scene-deck"),
                        memo=_memo("scene-deck"),
                        transform=at(-19, row_z, 1.2, scale=(card_scale, 1, card_scale), face_down=True)))
    pitch = spot_w + 0.8
    for i in range(rules.scenes_face_up):
        objects.append(scripting_trigger(
            f"scene-spot:{i}", nickname=f"Scene spot {i + 1}", tags=(TAG, "fh-scene-spot"),
            memo=_memo("scene-spot", index=i),
            transform=at(-19 + pitch * (i + 1), row_z, 1.6, scale=(spot_w, 1.5, spot_d), rot_y=0)))
    for i in range(SCENE_MARKERS):
        objects.append(custom_token(
            f"scene-marker:{i}", url_for(image("scene-marker")), nickname="Scene marker",
            tags=(TAG, "fh-scene-marker"), memo=_memo("scene-marker"),
            transform=at(-19 + 1.2 * i, row_z + spot_d / 2 + 1.5, 1.1, scale=(0.35, 1, 0.35))))

    # Party strip, in resolution order.
    party_box = (slot_layouts or {}).get("party")
    for n, party in enumerate(sorted(data.parties, key=lambda p: p.order)):
        path = image(f"party:{party.id}")
        size = image_size(path)
        hx, hz = tile_half_extents(*size)
        scale = 1.5 / hz
        box, box_size = party_box or ((0, size[1] // 4, size[0], size[1] // 2), size)
        snaps = [SnapPoint(image_point_to_local(u, v, hx, hz), ("fh-slot", f"fh-slot:{i}", POTION_TAG))
                 for i, (u, v) in enumerate(slot_centres(box, len(party.slots), box_size))]
        objects.append(custom_tile(
            f"party:{party.id}", url_for(path), nickname=title(party.title), tags=(TAG, "fh-party"),
            memo=_memo("party", party=party.id, order=party.order), snap_points=snaps, locked=True,
            transform=at(20, 9 - n * 3.4, 1.0, scale=(scale, 1.0, scale))))

    # Goal row.
    goals_deck = art.decks["goals"]
    if len(goals_deck.placement) != len(data.goals):
        raise DataError("render", "goals", None, f"{len(goals_deck.placement)} faces for {len(data.goals)} goals")
    gw, gh = _face_size(goals_deck)
    ghx, ghz = card_half_extents(gw, gh)
    gkeys = _sheet_entries(goals_deck, len(keys) + 1, url_for)
    goal_cards = [
        card(f"goal-deck/goal:{g.id}", gkeys[s][0], index, gkeys[s][1], sideways=gw > gh, nickname=title(g.title),
             description=title(g.text), tags=(TAG, "fh-goal"), memo=_memo("goal", goal=g.id),
             transform=at(-19, -15, 1.2, scale=(card_scale, 1, card_scale), face_down=True))
        for g, (s, index) in zip(data.goals, goals_deck.placement) if g.mode == mode]
    if len(goal_cards) < 2:
        raise DataError("goals.toml", None, "mode", f'mode "{mode}" needs at least two goals to form a deck')
    objects.append(deck("goal-deck", goal_cards, nickname="Goals", tags=(TAG, "fh-goal-deck"),
                        memo=_memo("goal-deck"),
                        transform=at(-19, -15, 1.2, scale=(card_scale, 1, card_scale), face_down=True)))
    gspot_w, gspot_d = 2 * ghx * card_scale + 0.6, 2 * ghz * card_scale + 0.6
    for i in range(rules.goals_per_game):
        objects.append(scripting_trigger(
            f"goal-spot:{i}", nickname=f"Goal spot {i + 1}", tags=(TAG, "fh-goal-spot"),
            memo=_memo("goal-spot", index=i),
            transform=at(-19 + (gspot_w + 0.8) * (i + 1), -15, 1.6, scale=(gspot_w, 1.5, gspot_d), rot_y=0)))

    # Per player: potion bag and goal markers.
    composition = [(h, rules.bag_composition.get(h, 0)) for h in HUMOURS]
    for p, colour in enumerate(colours):
        z = 10 - p * 4.0
        front_back = image(f"potion-back:{colour}")
        potions = []
        n = 0
        for humour, count in composition:
            for _ in range(count):
                potions.append(custom_tile(
                    f"bag:{colour}/potion:{n}", url_for(image(f"potion:{humour}")), back_url=url_for(front_back),
                    shape="circle", thickness=0.15, nickname=f"{colour} potion", hands=True,
                    tags=(TAG, POTION_TAG, f"owner:{colour}"),
                    memo=_memo("potion", owner=colour, humour=humour),
                    transform=at(-27, z, 2.0, scale=(0.45, 1.0, 0.45))))
                n += 1
        objects.append(bag(f"bag:{colour}", potions, nickname=f"{colour} potions",
                           tags=(TAG, "fh-bag", f"owner:{colour}"), memo=_memo("bag", owner=colour),
                           colour=seat_colour(colour), transform=at(-27, z, 1.5, scale=1.0)))
        for i in range(rules.goals_per_game):
            objects.append(custom_token(
                f"goal-marker:{colour}:{i}", url_for(image(f"goal-marker:{colour}")),
                nickname=f"{colour} goal marker", tags=(TAG, "fh-goal-marker", f"owner:{colour}"),
                memo=_memo("goal-marker", owner=colour),
                transform=at(-24.5 + 0.9 * i, z, 1.1, scale=(0.35, 1, 0.35))))
        # The player's hand: seats alternate between the near and the far edge of the table.
        south = p % 2 == 0
        objects.append(hand_trigger(
            f"hand:{colour}", colour, tags=(TAG, "fh-hand", f"owner:{colour}"), memo=_memo("hand", owner=colour),
            transform=at(-16 + 16 * (p // 2), -26 if south else 26, 4.0, scale=(14, 6, 4),
                         rot_y=0.0 if south else 180.0)))

    save = Save(
        data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui,
        note=_note(data, mode, lang), player_counts=(data.info.min_players, data.info.max_players),
        turn_order=colours,
    )
    if epoch_time is not None:
        save.epoch_time = epoch_time
    return save




def _note(data: FourHumoursData, mode: str, lang: str) -> str:
    sample = " (sample data)" if data.info.sample_data else ""
    return f"{data.info.name.get(lang)}{sample}, {mode} mode. Built by ttsmod; run `ttsmod bridge` to adjudicate."
