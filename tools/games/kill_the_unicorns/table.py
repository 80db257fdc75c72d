"""The Kill the Unicorns table: the names ``assets/kill_the_unicorns/table.toml`` lays it out with, and the save.

Where every object of ``docs/games/kill_the_unicorns/table-contract.md`` lies, with its tags and memo, is said by
the game folder's ``table.toml`` (:mod:`tools.table`): the hunting ground and the zones over its line, the
unicorn deck face down at the start of the line with its zone, the unicorn discard zone at its end, the start
unicorns, the first-player token, the scoring card, one bag per character (its character card, hunting deck and
trick deck), the market board with a stock zone per item and every token on its place, the box zone, and per
seat colour a seat mat, a zone over each of its boxes and a hand zone. :func:`compose_table` gives it what that
format cannot compute itself, as names its expressions read (:func:`table_names`):

- where the boards lie (:func:`placements`: the ground and the market at :data:`geometry.GROUND_AT` and
  :data:`geometry.MARKET_AT`, the seat mats four along the south edge and three along the north, clockwise,
  :func:`tools.games.kill_the_unicorns.geometry.seat_places`), and every place on them: the snap points of the
  ground, the market and a mat, and the table positions of the ground's line cells, the market's stock and
  token places and a mat's boxes — from the boards' boxes in ``layouts.toml`` through
  :mod:`tools.games.kill_the_unicorns.geometry`, the same functions the renderer draws the places with. A snap
  point carries a tag of the objects meant to snap there (``ku-unicorn``, ``ku-trick``, ``ku-hunting``,
  ``ku-character-card``, ``ku-token:<item>``): a tagged point attracts only objects sharing one of its tags;
- the sizes shared with the renderer and the mod's payload (a card, a character card, a market token);
- and it checks that the renderer packed a face for every card.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable


from bridge.catalog import resolve_game_dir
from bridge.errors import DataError
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from tools.games.kill_the_unicorns import geometry
from tools.games.kill_the_unicorns.render import catch_columns, seat_colours
from tools.render.layout import Layouts
from tools.render.pipeline import Art
from tools.save import Save, SnapPoint
from tools.table import compose_rendered, load_table, table_names as common_names

MARGIN = 0.3                    # a ground zone is a card plus this margin (as table.toml's margin)


# -- the places on the boards ------------------------------------------------------------------------------

def ground_snap_points(data: KillTheUnicornsData, layouts: Layouts, placed: geometry.Placed) -> list[SnapPoint]:
    """The ground's snap points: per unicorn *i* of the line its spot and its two trick slots."""
    cells = geometry.line_cells(layouts.layouts["ground"], data.rules.unicorns_per_day)
    points = []
    for i in range(data.rules.unicorns_per_day):
        points.append(SnapPoint(placed.local(cells["unicorn"][i]), ("ku-unicorn", "ku-unicorn-spot", f"ku-line:{i}")))
        for slot in ("above", "below"):
            points.append(SnapPoint(placed.local(cells[slot][i]),
                                    ("ku-trick", "ku-trick-spot", f"ku-line:{i}", f"ku-slot:{slot}")))
    return points


def mat_snap_points(data: KillTheUnicornsData, layouts: Layouts, placed: geometry.Placed) -> list[SnapPoint]:
    """A seat mat's snap points: the first place of each catch column, the hunt area's places, the piles and
    the character card."""
    layout = layouts.layouts["seat_mat"]
    points = [SnapPoint(placed.local(p), ("ku-unicorn", "ku-catch-spot", f"ku-catch-column:{column}"))
              for column, p in geometry.catch_columns(layout, catch_columns(data)).items()]
    points += [SnapPoint(placed.local(p), ("ku-hunting", "ku-hunt-spot", f"ku-hunt-spot:{k}"))
               for k, p in enumerate(geometry.hunt_spots(layout))]
    spots = geometry.mat_spots(layout)
    points += [
        SnapPoint(placed.local(spots["hunt_discard"]), ("ku-hunting", "ku-hunt-discard-spot")),
        SnapPoint(placed.local(spots["trick_discard"]), ("ku-trick", "ku-trick-discard-spot")),
        SnapPoint(placed.local(spots["trick_deck"]), ("ku-trick", "ku-trick-deck-spot")),
        SnapPoint(placed.local(spots["character"]), ("ku-character-card", "ku-character-card-spot")),
    ]
    return points


def market_snap_points(data: KillTheUnicornsData, layouts: Layouts, placed: geometry.Placed) -> list[SnapPoint]:
    """The market board's token places: per item as many as its tokens, each attracting only that item's."""
    spots = geometry.market_token_spots(layouts.layouts["market_board"], layouts.layouts["market_card"],
                                        [m.token_count for m in data.market])
    return [SnapPoint(placed.local(p), (f"ku-token:{m.id}", "ku-token-spot", f"ku-token-spot:{m.id}"))
            for m, places in zip(data.market, spots) for p in places]


# -- the table ------------------------------------------------------------------------------------------------

def placements(data: KillTheUnicornsData, layouts: Layouts) -> dict[str, geometry.Placed]:
    """Where each board lies: ``ground``, ``market`` and ``mat:<Colour>`` for every seat colour."""
    ground = layouts.layouts["ground"]
    market = layouts.layouts["market_board"]
    mat = layouts.layouts["seat_mat"]
    out = {
        "ground": geometry.Placed((ground.width, ground.height), *geometry.GROUND_AT,
                                  geometry.tile_scale(ground, geometry.board_width(ground)), 180.0),
        "market": geometry.Placed((market.width, market.height), *geometry.MARKET_AT,
                                  geometry.tile_scale(market, geometry.MARKET_WIDTH), 180.0),
    }
    colours = seat_colours(data)
    for colour, (x, z, rot) in zip(colours, geometry.seat_places(len(colours))):
        out[f"mat:{colour}"] = geometry.Placed((mat.width, mat.height), x, z,
                                               geometry.tile_scale(mat, geometry.board_width(mat)), rot)
    return out


def _spot(placed: geometry.Placed, point: tuple[float, float]) -> dict[str, float]:
    x, _, z = placed.world(point)
    return {"x": x, "z": z}


def _box_place(placed: geometry.Placed, box) -> dict[str, float]:
    """A board box's centre on the table and its size in table units."""
    x, _, z = placed.world(geometry.box_centre(box))
    return {"x": x, "z": z, "width": box.width / geometry.PX_PER_UNIT, "depth": box.height / geometry.PX_PER_UNIT}


def table_names(data: KillTheUnicornsData, layouts: Layouts) -> dict[str, Any]:
    """What ``table.toml``'s expressions read of this game beside the seats, mode, ``game``, ``strings`` and
    ``[values]`` (see the module docstring)."""
    card_w, card_d = geometry.card_size_units()
    places = placements(data, layouts)
    ground, market = places["ground"], places["market"]
    g_layout = layouts.layouts["ground"]
    per_line = data.rules.unicorns_per_day
    cells = geometry.line_cells(g_layout, per_line)
    line = g_layout.box("line")
    # A ground zone is a card plus a margin, but never reaches into its neighbours' cells.
    cell = [min(card_w + 2 * MARGIN, line.width / per_line / geometry.PX_PER_UNIT),
            min(card_d + 2 * MARGIN, line.height / len(geometry.LINE_ROWS) / geometry.PX_PER_UNIT)]
    mb, mc = layouts.layouts["market_board"], layouts.layouts["market_card"]
    px_per_unit = mb.width / geometry.MARKET_WIDTH
    spots = geometry.market_token_spots(mb, mc, [m.token_count for m in data.market])
    items = []
    for m, (left, top, scale), places_of in zip(data.market, geometry.market_card_rects(mb, mc, len(data.market)),
                                                spots):
        w, h = mc.width * scale, mc.height * scale
        x, _, z = market.world((left + w / 2, top + h / 2))
        items.append({"id": m.id, "name": m.name, "text": m.text,
                      "stock": {"x": x, "z": z, "width": w / px_per_unit, "depth": h / px_per_unit},
                      "tokens": [{"id": token, **_spot(market, spot)} for token, spot in zip(data.tokens(m.id),
                                                                                            places_of)]})
    mat_layout = layouts.layouts["seat_mat"]
    snaps_of: dict[float, list[SnapPoint]] = {}
    mats = []
    for colour in seat_colours(data):
        mat = places[f"mat:{colour}"]
        mats.append({"x": mat.x, "z": mat.z, "scale": mat.scale, "rotation": mat.rot_y - 180,
                     "snap_points": snaps_of.setdefault(mat.rot_y, mat_snap_points(data, layouts, mat)),
                     "boxes": {name: _box_place(mat, box) for name, box in mat_layout.boxes.items()}})
    return {
        "rules": data.rules, "deck_unicorns": list(data.deck_unicorns), "start_unicorns": list(data.start_unicorns),
        "characters": list(data.characters), "hunting_cards": list(data.hunting_cards.values()),
        "trick_cards": list(data.trick_cards.values()), "trick_by_id": data.trick_by_id,
        "card_size": {"width": card_w, "depth": card_d}, "character_width": geometry.CHARACTER_WIDTH,
        "token_size": geometry.TOKEN_SIZE,
        "ground": {"x": ground.x, "z": ground.z, "scale": ground.scale, "cell": cell,
                   "snap_points": ground_snap_points(data, layouts, ground),
                   "line": [{row: _spot(ground, cells[row][i]) for row in geometry.LINE_ROWS}
                            for i in range(per_line)]},
        "market": {"x": market.x, "z": market.z, "scale": market.scale,
                   "snap_points": market_snap_points(data, layouts, market)},
        "market_items": items, "mats": mats,
    }


def compose_table(data: KillTheUnicornsData, art: Art, *, mode: str, lang: str, layouts: Layouts,
                  url_for: Callable[[Path], str], lua_script: str = "", xml_ui: str = "",
                  game_dir: Path | None = None) -> Save:
    """The whole Kill the Unicorns save, laid out by ``game_dir/table.toml`` (default: the game's own folder)
    with :func:`table_names`.  Raises :class:`DataError` for an unknown mode, an image or deck the renderer did
    not produce, or a mistake of ``table.toml``."""
    if mode not in data.info.modes:
        raise DataError("game.toml", "[game]", "modes", f'"{mode}" is not a mode of this game')
    counts = {"unicorns": len(data.deck_unicorns), "start-unicorns": len(data.start_unicorns)}
    for c in data.characters:
        counts[f"hunting-{c.id}"] = sum(h.character == c.id for h in data.hunting_cards.values())
        counts[f"tricks-{c.id}"] = sum(t.character == c.id for t in data.trick_cards.values())
    for name, count in counts.items():
        if name not in art.decks:
            raise DataError("render", name, None, f'the renderer produced no "{name}" deck')
        if len(art.decks[name].placement) != count:
            raise DataError("render", name, None, f"{len(art.decks[name].placement)} faces for {count} cards")
    folder = Path(game_dir) if game_dir is not None else resolve_game_dir(data.info.id)
    table = load_table(folder, required=True)

    colours = seat_colours(data)
    objects, snaps = compose_rendered(
        table, art, art.faces, url_for, seat_colours=colours, lang=lang, game_id=data.info.id, mode=mode,
        names={**common_names(data.info, layouts), **table_names(data, layouts)})
    sample = " (sample data)" if data.info.sample_data else ""
    note = f"{data.info.name.get(lang)}{sample}. Built by ttsmod; run `ttsmod bridge` to adjudicate."
    return Save(data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui, note=note,
                player_counts=(data.info.min_players, data.info.max_players), turn_order=colours,
                snap_points=snaps)
