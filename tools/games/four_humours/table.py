"""The Four Humours table: the names ``assets/four_humours/table.toml`` lays it out with, and the save.

Where every object of ``docs/games/four_humours/table-contract.md`` lies, with its tags and memo, is said by the
game folder's ``table.toml`` (:mod:`tools.table`): the kingdom map or the fief boards, the scene deck and spots,
the scene markers, the party strip, the goal deck and spots, and per seat colour a bag of potions, goal markers
and a hand zone. :func:`compose_table` gives it what that format cannot compute itself, as names its
expressions read (:func:`table_names`):

- the snap points of the boards (one per cell, at the centre the renderer draws it:
  :func:`tools.games.four_humours.render.cell_positions`) and of each scene card and party tile (one per slot,
  the box of the layout's repeat group ``slots`` split into equal columns, the split its panels are drawn in:
  :func:`tools.games.four_humours.render.slots_box`, :func:`tools.save.geometry.slot_centres`; geometry in :mod:`tools.save.geometry`, inferred, see there);
- the size of a scene and a goal card on the table (``scene_card``, ``goal_card``: from the packed faces' shape);
- the parties in resolution order, and each humour's count in a bag (``rules.bag_composition`` in the canonical
  humour order);
- and it checks what the table cannot hold (a mode without two goals, a packed deck that lost a face).

Potions are ``Custom_Tile`` circles, not ``Custom_Token``: a token shows one image on both sides, so a potion
laid face down would still show its humour; a tile shows the humour on top and the owner colour underneath
(``ImageSecondaryURL``), which is what the contract asks of the two sides.  Their ``Nickname`` is neutral
(``"White potion"``) because TTS shows it in the tooltip even face down; only ``Memo`` holds the humour.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from PIL import Image

from bridge.catalog import resolve_game_dir
from bridge.rules.four_humours.records import HUMOURS, Board, FourHumoursData
from bridge.errors import DataError
from tools.entrykeys import EntryKeys
from tools.games.four_humours.payload import player_colours
from tools.games.four_humours.render import Renderer, cell_positions, load_four_humours_layouts, slots_box
from tools.render.layout import Layouts
from tools.save import Save, SnapPoint
from tools.save.geometry import card_half_extents, image_point_to_local, slot_centres, tile_half_extents
from tools.sheets import PackedDeck
from tools.table import compose_rendered, load_table
from tools.tablememo import CardMemo

# Tags of the slot and cell snap points. A tagged snap point attracts only objects sharing one of its tags
# (Knowledge Base, Object Tags), so each carries the potions' own tag besides the tags the mod reads.
POTION_TAG = "fh-potion"

CARD_VALUES = "card-values.json"
"""The file of ``out_dir/.cache/`` keeping what the scene cards got from table.toml's expressions
(:class:`tools.tablememo.CardMemo`), by their entries."""


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
    return slots_box(layouts.layouts[kind])


def load_slot_layouts(game_dir: Path) -> dict[str, tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """``{"scene": (box, size), "party": (box, size)}`` from the game's ``layouts.toml``."""
    layouts = load_four_humours_layouts(game_dir)
    return {kind: _layout_box(layouts, kind) for kind in ("scene", "party")}


def slot_layouts_of(art: Any, game_dir: Path) -> dict[str, tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """:func:`load_slot_layouts`, from the layouts the renderer of ``art`` drew with when it drew this game
    folder's (read once per build, not again for the table), else read from ``game_dir``."""
    renderer = getattr(art, "renderer", None)
    layouts = getattr(renderer, "layouts", None)
    if isinstance(renderer, Renderer) and isinstance(layouts, Layouts) and Path(renderer.game_dir) == Path(game_dir):
        return {kind: _layout_box(layouts, kind) for kind in ("scene", "party")}
    return load_slot_layouts(game_dir)


def _face_size(packed: PackedDeck) -> tuple[int, int]:
    sheet = packed.sheets[0]
    return sheet.cell_width, sheet.cell_height


def _board_snaps(board: Board, size: tuple[int, int], positions: Mapping[str, tuple[float, float]]) -> list[SnapPoint]:
    hx, hz = tile_half_extents(*size)
    return [SnapPoint(image_point_to_local(*positions[c.id], hx, hz), ("fh-cell", f"fh-cell:{c.id}", POTION_TAG))
            for c in board.cells]


def _slot_snaps(box, size, count: int, half_x: float, half_z: float) -> tuple[SnapPoint, ...]:
    return tuple(SnapPoint(image_point_to_local(u, v, half_x, half_z), ("fh-slot", f"fh-slot:{i}", POTION_TAG))
                 for i, (u, v) in enumerate(slot_centres(box, count, size)))


# ----------------------------------------------------------------------------------------------- the table


def table_names(data: FourHumoursData, art: ArtLike, *, mode: str,
                slot_layouts: Mapping[str, tuple[tuple[int, int, int, int], tuple[int, int]]] | None = None
                ) -> dict[str, Any]:
    """What ``table.toml``'s expressions read of this game beside the seats, mode and ``[values]`` (see the
    module docstring): ``rules``, ``goals`` (the records), ``kingdom``, ``fiefs``, ``scenes``, ``parties`` (each
    with its ``snap_points``), ``humours`` (``id``, ``count``), ``scene_card`` and ``goal_card``."""
    images = art.images

    def image(name: str) -> Path:
        if name not in images:
            raise DataError("render", None, None, f'the renderer produced no "{name}" image')
        return images[name]

    names: dict[str, Any] = {"rules": data.rules, "goals": list(data.goals)}
    if mode == "kingdom":
        names["kingdom"] = {"name": data.kingdom.name, "snap_points": _board_snaps(
            data.kingdom, image_size(image("kingdom")), cell_positions(data.kingdom))}
    names["fiefs"] = [{"id": b.id, "name": b.name, "snap_points": _board_snaps(
        b, image_size(image(f"fief:{b.id}")), cell_positions(b))} for b in data.fiefs] if mode == "fief" else []

    scenes = art.decks["scenes"]
    if len(scenes.placement) != len(data.scenes):
        raise DataError("render", "scenes", None, f"{len(scenes.placement)} faces for {len(data.scenes)} scenes")
    face_w, face_h = _face_size(scenes)
    chx, chz = card_half_extents(face_w, face_h)
    box, box_size = (slot_layouts or {}).get("scene") or ((0, face_h * 2 // 3, face_w, face_h // 3),
                                                          (face_w, face_h))
    # A card's slots depend only on how many it has: made once (snap points are frozen values) for a deck of
    # thousands.
    snaps_by_count: dict[int, tuple[SnapPoint, ...]] = {}

    def slot_snaps(count: int) -> tuple[SnapPoint, ...]:
        if count not in snaps_by_count:   # (setdefault would make them for every card before looking)
            snaps_by_count[count] = _slot_snaps(box, box_size, count, chx, chz)
        return snaps_by_count[count]

    names["scenes"] = [{"id": scene.id, "title": scene.title, "snap_points": slot_snaps(len(scene.slots))}
                       for scene in data.scenes]
    names["scene_card"] = {"width": 2 * chx, "depth": 2 * chz}

    party_box = (slot_layouts or {}).get("party")
    parties = []
    for party in sorted(data.parties, key=lambda p: p.order):
        size = image_size(image(f"party:{party.id}"))
        hx, hz = tile_half_extents(*size)
        box, box_size = party_box or ((0, size[1] // 4, size[0], size[1] // 2), size)
        parties.append({"id": party.id, "title": party.title, "order": party.order,
                        "snap_points": _slot_snaps(box, box_size, len(party.slots), hx, hz)})
    names["parties"] = parties

    goals = art.decks["goals"]
    if len(goals.placement) != len(data.goals):
        raise DataError("render", "goals", None, f"{len(goals.placement)} faces for {len(data.goals)} goals")
    if sum(g.mode == mode for g in data.goals) < 2:
        raise DataError("goals.toml", None, "mode", f'mode "{mode}" needs at least two goals to form a deck')
    ghx, ghz = card_half_extents(*_face_size(goals))
    names["goal_card"] = {"width": 2 * ghx, "depth": 2 * ghz}
    names["humours"] = [{"id": h, "count": data.rules.bag_composition.get(h, 0)} for h in HUMOURS]
    return names


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
    game_dir: Path | None = None,
    entries: EntryKeys | None = None,
) -> Save:
    """The whole Four Humours save, laid out by ``game_dir/table.toml`` (default: the game's own folder) with
    :func:`table_names`.  ``url_for`` turns an image path into the URL written in the save; ``slot_layouts``
    (default: derived from the face size, slots across the lower third) gives the ``slots`` box of scene and
    party faces.  Raises :class:`DataError` for data the table cannot hold (a mode without two goals, a missing
    image, a mistake of ``table.toml``). ``entries`` (a build's): what the scene cards get from their expressions
    is kept by their entries (``.cache/`` :data:`CARD_VALUES`, :func:`scene_fingerprints`)."""
    if mode not in data.info.modes:
        raise DataError("game.toml", "[game]", "modes", f'"{mode}" is not a mode of this game')
    folder = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)
    table = load_table(folder, required=True)
    names = table_names(data, art, mode=mode, slot_layouts=slot_layouts)
    names["game"] = data.info
    # The renderer packs the scenes and goals in the data's order (render.render_game): each face is named so.
    faces = dict(getattr(art, "faces", None) or {})
    faces.setdefault("scenes", tuple(f"scene:{s.id}" for s in data.scenes))
    faces.setdefault("goals", tuple(f"goal:{g.id}" for g in data.goals))
    colours = player_colours(data)
    fingerprints = scene_fingerprints(data, names["scenes"], entries)
    memo = CardMemo.from_bytes(entries.read(CARD_VALUES)) if fingerprints else None
    objects, snaps = compose_rendered(table, art, faces, url_for, seat_colours=colours, lang=lang,
                                      game_id=data.info.id, mode=mode, names=names, fingerprints=fingerprints,
                                      memo=memo)
    if memo is not None and memo.worth_keeping:
        entries.keep(CARD_VALUES, memo.to_bytes())   # type: ignore[union-attr]
    save = Save(
        data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui, snap_points=snaps,
        note=_note(data, mode, lang), player_counts=(data.info.min_players, data.info.max_players),
        turn_order=colours,
    )
    if epoch_time is not None:
        save.epoch_time = epoch_time
    return save


def scene_fingerprints(data: FourHumoursData, items: list[dict[str, Any]],
                       entries: EntryKeys | None) -> dict[int, str]:
    """``id(item)`` → a fingerprint of each scene's item of :func:`table_names` (``items``), for the card values
    kept by :func:`tools.table.compose_objects`; empty without a build's ``entries``. A scene's item is its id and
    title (its record's, which is made from its entry and the rest of the data only: bridge.rules.four_humours.data
    ``_parse_scenes``) and its slots' snap points (from the slot count and the face's size on its sheet): so its
    entry's fingerprint (every input and option besides) and its snap points' text."""
    fingerprints = entries.fingerprints("scenes.toml", "scenes") if entries is not None else None
    if fingerprints is None or not len(fingerprints) == len(items) == len(data.scenes):
        return {}
    found: dict[int, str] = {}
    snaps: dict[int, tuple[Any, bytes]] = {}   # id(snap points) → (them, their text's digest): a few lists
    for fingerprint, item, scene in zip(fingerprints, items, data.scenes):
        if item["id"] != scene.id or item["title"] is not scene.title:
            return {}
        points = item["snap_points"]
        known = snaps.get(id(points))
        if known is None or known[0] is not points:
            known = snaps[id(points)] = (points, hashlib.blake2b(repr(points).encode("utf-8"),
                                                                 digest_size=16).digest())
        if set(item) != {"id", "title", "snap_points"}:
            return {}
        found[id(item)] = hashlib.blake2b(fingerprint + known[1], digest_size=16).hexdigest()
    return found


def _note(data: FourHumoursData, mode: str, lang: str) -> str:
    sample = " (sample data)" if data.info.sample_data else ""
    return f"{data.info.name.get(lang)}{sample}, {mode} mode. Built by ttsmod; run `ttsmod bridge` to adjudicate."
