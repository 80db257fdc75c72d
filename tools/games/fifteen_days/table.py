"""The 15 Days table: the names ``assets/fifteen_days/table.toml`` lays it out with, and the save.

Where every object of ``docs/games/fifteen_days/table-contract.md`` lies, with its tags and memo, is said by the
game folder's ``table.toml`` (:mod:`tools.table`): the season deck (face down, on draw pile 0, every card with its
own back's sheet), the draw pile, market column and discard zones, the wild deck (face up) in its supply zone with
the offer spots beside it, the animals and feathers in theirs, and per seat colour its player board, overview
card, a zone over the board and a hand zone. :func:`compose_table` gives it what that format cannot compute
itself, as names its expressions read (:func:`table_names`):

- the snap points of a player board (per corner and value, per animal, per feather): from the board's boxes in
  ``layouts.toml`` through :mod:`tools.games.fifteen_days.geometry`, the same functions the renderer draws the
  card places with;
- the board's scale and size on the table (from its layout's size), a card's and a token's size (the faces'
  shape, shared with the renderer) and the depth of a market column's zone (the column height and the step the
  mod lays cards at, shared with the mod's payload);
- and it checks what the table cannot hold (fewer boards or overviews than seats, fewer than two wilds).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from bridge.catalog import resolve_game_dir
from bridge.errors import DataError
from bridge.rules.fifteen_days.records import BACK_SEASONS, FifteenDaysData
from tools.games.fifteen_days import geometry
from tools.games.fifteen_days.payload import player_colours
from tools.render.layout import Layouts
from tools.render.pipeline import Art
from tools.save import Save, SnapPoint
from tools.save.geometry import image_point_to_local, tile_half_extents
from tools.table import compose_rendered, load_table, table_names as common_names

CARD_TAG = "fd-card"    # season and wild cards; every card snap point carries it (tagged points attract only it)
TOKEN_TAG = "fd-token"  # feathers and animals; every token snap point carries it


def board_snap_points(data: FifteenDaysData, layouts: Layouts) -> list[SnapPoint]:
    """The snap points of a player board (local coordinates): per corner and value, per animal, per feather."""
    layout = layouts.layouts["board"]
    hx, hz = tile_half_extents(layout.width, layout.height)
    values = sorted(data.rules.values)
    points: list[SnapPoint] = []
    for corner in range(4):
        centres = geometry.fractions(geometry.corner_card_centres(layout, corner, len(values)), layout)
        points += [SnapPoint(image_point_to_local(u, v, hx, hz),
                             (CARD_TAG, "fd-slot", f"fd-corner:{corner}", f"fd-value:{value}"))
                   for value, (u, v) in zip(values, centres)]
    animal_spots = geometry.fractions(geometry.token_centres(layout.box("animals"), len(data.animals)), layout)
    points += [SnapPoint(image_point_to_local(u, v, hx, hz), (TOKEN_TAG, "fd-animal-spot", f"fd-animal-spot:{a.id}"))
               for a, (u, v) in zip(data.animals, animal_spots)]
    feather_spots = geometry.fractions(geometry.token_centres(layout.box("feathers"), len(data.feathers)), layout)
    points += [SnapPoint(image_point_to_local(u, v, hx, hz), (TOKEN_TAG, "fd-feather-spot", f"fd-feather-spot:{i}"))
               for i, (u, v) in enumerate(feather_spots)]
    return points


def table_names(data: FifteenDaysData, layouts: Layouts) -> dict[str, Any]:
    """What ``table.toml``'s expressions read of this game beside the seats, mode, ``game``, ``strings`` and
    ``[values]`` (see the module docstring)."""
    board_layout = layouts.layouts["board"]
    card_w, card_d = geometry.card_size_units()
    return {
        "rules": data.rules, "cards": list(data.cards), "wilds": list(data.wilds), "animals": list(data.animals),
        "feathers": list(data.feathers), "boards": list(data.boards), "overviews": list(data.overviews),
        "season_names": {s.id: s.name for s in data.seasons},
        "card_size": {"width": card_w, "depth": card_d}, "card_scale": geometry.CARD_SCALE,
        "token_scale": geometry.TOKEN_SCALE,
        "market_zone_depth": geometry.market_zone_depth(data.rules.market_column_height),
        "board": {"scale": geometry.board_scale(board_layout), "width": geometry.BOARD_WIDTH,
                  "depth": geometry.BOARD_WIDTH * board_layout.height / board_layout.width,
                  "snap_points": board_snap_points(data, layouts)},
    }


def compose_table(data: FifteenDaysData, art: Art, *, mode: str, lang: str, layouts: Layouts,
                  url_for: Callable[[Path], str], lua_script: str = "", xml_ui: str = "",
                  game_dir: Path | None = None) -> Save:
    """The whole 15 Days save, laid out by ``game_dir/table.toml`` (default: the game's own folder) with
    :func:`table_names`.  Raises :class:`DataError` for data the table cannot hold (an unknown mode, fewer than
    two wilds, fewer boards or overviews than seats, a missing image, a mistake of ``table.toml``)."""
    if mode not in data.info.modes:
        raise DataError("game.toml", "[game]", "modes", f'"{mode}" is not a mode of this game')
    colours = player_colours(data)
    if len(data.boards) < len(colours):
        raise DataError("components.toml", "boards", None, f"{len(data.boards)} boards for {len(colours)} seats")
    if len(data.overviews) < len(colours):
        raise DataError("components.toml", "overviews", None,
                        f"{len(data.overviews)} overview cards for {len(colours)} seats")
    if len(data.wilds) < 2:
        raise DataError("components.toml", "wild", "copies", "a wild deck needs at least two wild cards")
    for back in BACK_SEASONS:
        packed, with_back = art.decks[f"seasons-{back}"], data.cards_with_back(back)
        if len(packed.placement) != len(with_back):
            raise DataError("render", f"seasons-{back}", None,
                            f"{len(packed.placement)} faces for {len(with_back)} cards with a {back} back")
    folder = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)
    table = load_table(folder, required=True)

    # The renderer packs each deck's faces in the data's order (render.render_game), each face named so.
    faces = dict(art.faces)
    for back in BACK_SEASONS:
        faces.setdefault(f"seasons-{back}", tuple(f"season:{c.id}" for c in data.cards_with_back(back)))
    faces.setdefault("wilds", tuple(f"wild:{w.id}" for w in data.wilds))
    objects, snaps = compose_rendered(
        table, art, faces, url_for, seat_colours=colours, lang=lang, game_id=data.info.id, mode=mode,
        names={**common_names(data.info, layouts), **table_names(data, layouts)})
    sample = " (sample data)" if data.info.sample_data else ""
    note = (f"{data.info.name.get(lang)}{sample}. Built by ttsmod; run `ttsmod bridge` to adjudicate.")
    return Save(data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui, note=note,
                player_counts=(data.info.min_players, data.info.max_players), turn_order=colours,
                snap_points=snaps)
