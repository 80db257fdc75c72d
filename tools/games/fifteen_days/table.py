"""The 15 Days table: every object of ``docs/games/fifteen_days/table-contract.md``, laid out and wired to the art.

:func:`compose_table` turns the records (:class:`FifteenDaysData`), the renderer's :class:`Art` and the game's
layouts into a :class:`tools.save.Save`:

- the middle of the table: the season deck (face down, on draw pile 0, every card with its own back's sheet),
  the two draw pile zones, three market column zones, the discard zone, the wild deck (face up) in its supply
  zone with the offer spots beside it (a table snap point for each card a wild costs), the four animals and five
  feathers in theirs;
- per seat colour (``info.player_colours``, at most ``max_players``): the seat's player board (a locked tile with
  a snap point per corner and value, per animal and per feather), its overview card, a zone over the board and
  a hand zone.  Seats alternate between the south and north edges (seat 0 south, facing White's side).

Snap point positions come from the board's boxes in ``layouts.toml`` through
:mod:`tools.games.fifteen_days.geometry`, the same functions the renderer draws the card places with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from bridge.errors import DataError
from bridge.rules.fifteen_days.records import BACK_SEASONS, FifteenDaysData
from tools.games.fifteen_days import geometry
from tools.games.fifteen_days.payload import player_colours
from tools.render.layout import Layouts
from tools.render.pipeline import Art
from tools.save import (
    DeckSheet, GameObject, Save, SnapPoint, Vector, at, card, custom_tile, deck, hand_trigger, scripting_trigger,
)
from tools.save.geometry import image_point_to_local, tile_half_extents
from tools.sheets import PackedDeck

TAG = "ttsmod"
CARD_TAG = "fd-card"    # season and wild cards; every card snap point carries it (tagged points attract only it)
TOKEN_TAG = "fd-token"  # feathers and animals; every token snap point carries it

ZONE_Y, ZONE_HEIGHT = 2.0, 2.5  # scripting zones reach from just under the table top to above a stack of cards
CENTRE_Z = 2.5                  # the row of draw piles, market and discard
SUPPLY_Z = -6.5                 # the row of animals and feathers (clear of the market's last cards)
WILD_X = 12.0                   # the wild deck, east of the discard pile; the offer spots further east
BOARD_X, BOARD_Z = 10.2, 15.5   # player boards: two per edge
HAND_Z = 26.0
OVERVIEW_X = 24.5
OVERVIEW_SCALE = 1.4


def _sheets(packed: PackedDeck, first_key: int, url_for: Callable[[Path], str]) -> list[tuple[int, DeckSheet]]:
    back = url_for(packed.back_path)
    return [(first_key + i, DeckSheet(url_for(s.path), back, s.columns, s.rows, back_is_hidden=packed.back_is_hidden))
            for i, s in enumerate(packed.sheets)]


def _zone(key: str, tag: str, memo: dict, x: float, z: float, size: tuple[float, float], *,
          owner: str | None = None, rot_y: float = 180.0) -> GameObject:
    tags = (TAG, tag) + ((f"owner:{owner}",) if owner else ())
    return scripting_trigger(key, nickname=key, tags=tags, memo=memo,
                             transform=at(x, z, ZONE_Y, scale=(size[0], ZONE_HEIGHT, size[1]), rot_y=rot_y))


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


def compose_table(data: FifteenDaysData, art: Art, *, mode: str, lang: str, layouts: Layouts,
                  url_for: Callable[[Path], str], lua_script: str = "", xml_ui: str = "") -> Save:
    """The whole 15 Days save (see the module docstring).  Raises :class:`DataError` for data the table cannot
    hold (an unknown mode, fewer than two wilds, fewer boards or overviews than seats, a missing image)."""
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

    def image(name: str) -> Path:
        if name not in art.images:
            raise DataError("render", None, None, f'the renderer produced no "{name}" image')
        return art.images[name]

    objects: list[GameObject] = []
    card_w, card_d = geometry.card_size_units()
    card_scale = (geometry.CARD_SCALE, 1.0, geometry.CARD_SCALE)
    season_name = {s.id: s.name.get(lang) for s in data.seasons}

    # The season deck: one packed deck per back season, so each card's CustomDeck is its own back's sheet.
    next_key = 1
    placed: dict[str, tuple[int, int, DeckSheet]] = {}
    for back in BACK_SEASONS:
        packed = art.decks[f"seasons-{back}"]
        with_back = data.cards_with_back(back)
        if len(packed.placement) != len(with_back):
            raise DataError("render", f"seasons-{back}", None,
                            f"{len(packed.placement)} faces for {len(with_back)} cards with a {back} back")
        sheets = _sheets(packed, next_key, url_for)
        next_key += len(sheets)
        for c, (sheet_no, index) in zip(with_back, packed.placement):
            placed[c.id] = (sheets[sheet_no][0], index, sheets[sheet_no][1])
    pile_x = (-11.0, -8.0)
    deck_at = at(pile_x[0], CENTRE_Z, 1.2, scale=card_scale, face_down=True)
    back_name = layouts.string("card_back", lang)
    season_cards = []
    for c in data.cards:
        deck_key, index, sheet = placed[c.id]
        season_cards.append(card(
            f"season-deck/season:{c.id}", deck_key, index, sheet,
            nickname=back_name.replace("{season}", season_name[c.back]),
            tags=(TAG, CARD_TAG, "fd-season", f"fd-back:{c.back}"),
            memo={"role": "season", "card": c.id, "season": c.season, "value": c.value, "back": c.back},
            transform=deck_at))
    objects.append(deck("season-deck", season_cards, nickname=data.info.name.get(lang),
                        tags=(TAG, "fd-season-deck"), memo={"role": "season-deck"}, transform=deck_at))

    # Draw piles, market columns, discard.
    pile_size = (card_w + 0.6, card_d + 0.6)
    for i, x in enumerate(pile_x):
        objects.append(_zone(f"draw-pile:{i}", "fd-draw-pile", {"role": "draw-pile", "index": i}, x, CENTRE_Z,
                             pile_size))
    height = data.rules.market_column_height
    column_size = (card_w + 0.6, geometry.market_zone_depth(height))
    for i in range(data.rules.market_columns):
        x = (i - (data.rules.market_columns - 1) / 2) * (card_w + 1.0)
        objects.append(_zone(f"market-column:{i}", "fd-market-column", {"role": "market-column", "index": i},
                             x, CENTRE_Z, column_size))
    objects.append(_zone("discard", "fd-discard", {"role": "discard"}, 8.0, CENTRE_Z, pile_size))

    # Supplies: the wild deck (face up), animals, feathers.
    wilds = art.decks["wilds"]
    wild_sheets = _sheets(wilds, next_key, url_for)
    wild_at = at(WILD_X, CENTRE_Z, 1.2, scale=card_scale)
    wild_cards = [card(f"wild-deck/wild:{w.id}", wild_sheets[s][0], index, wild_sheets[s][1],
                       nickname=w.title.get(lang), tags=(TAG, CARD_TAG, "fd-wild"),
                       memo={"role": "wild", "card": w.id}, transform=wild_at)
                  for w, (s, index) in zip(data.wilds, wilds.placement)]
    objects.append(deck("wild-deck", wild_cards, nickname=data.wilds[0].title.get(lang), tags=(TAG, "fd-wild-deck"),
                        memo={"role": "wild-deck"}, transform=wild_at))
    objects.append(_zone("wild-supply", "fd-wild-supply", {"role": "wild-supply"}, WILD_X, CENTRE_Z, pile_size))
    # The cards offered for a wild lie beside the wild deck, one on each offer spot: dropped on the deck they would
    # join it, and on one another they would form a deck (TTS merges cards that land on cards).
    slots = data.rules.wild_discard_count
    pitch = pile_size[0]
    slot_x = [WILD_X + (k + 1) * pitch for k in range(slots)]
    world_snaps = [SnapPoint(Vector(x, 1.0, CENTRE_Z), (CARD_TAG, "fd-offer-slot", f"fd-offer-slot:{k}"))
                   for k, x in enumerate(slot_x)]
    if slots:
        objects.append(_zone("wild-offer", "fd-wild-offer", {"role": "wild-offer", "slots": slots},
                             (slot_x[0] + slot_x[-1]) / 2, CENTRE_Z, (slots * pitch, pile_size[1])))

    token = 2 * geometry.TOKEN_SCALE
    pitch = token + 0.3
    for i, animal in enumerate(data.animals):
        url = url_for(image(f"animal:{animal.id}"))
        objects.append(custom_tile(
            f"animal:{animal.id}", url, back_url=url, shape="circle", thickness=0.3,
            nickname=animal.name.get(lang), description=animal.power_text.get(lang),
            tags=(TAG, TOKEN_TAG, "fd-animal", f"fd-animal:{animal.id}"),
            memo={"role": "animal", "animal": animal.id, "season": animal.season, "power": animal.power},
            transform=at(-6.0 + i * pitch, SUPPLY_Z, 1.2, scale=geometry.TOKEN_SCALE)))
    objects.append(_zone("animal-supply", "fd-animal-supply", {"role": "animal-supply"},
                         -6.0 + (len(data.animals) - 1) * pitch / 2, SUPPLY_Z,
                         (len(data.animals) * pitch + 0.6, token + 0.8)))
    for i, feather in enumerate(data.feathers):
        url = url_for(image(f"feather:{feather.id}"))
        objects.append(custom_tile(
            f"feather:{feather.id}", url, back_url=url, shape="rounded", thickness=0.1,
            nickname=feather.title.get(lang), description=feather.text.get(lang),
            tags=(TAG, TOKEN_TAG, "fd-feather"), memo={"role": "feather", "index": i},
            transform=at(2.0 + i * pitch, SUPPLY_Z, 1.2, scale=geometry.TOKEN_SCALE)))
    objects.append(_zone("feather-supply", "fd-feather-supply", {"role": "feather-supply"},
                         2.0 + (len(data.feathers) - 1) * pitch / 2, SUPPLY_Z,
                         (len(data.feathers) * pitch + 0.6, token + 0.8)))

    # Per seat: board, overview card, seat zone, hand.
    board_layout = layouts.layouts["board"]
    board_scale = geometry.board_scale(board_layout)
    board_depth = geometry.BOARD_WIDTH * board_layout.height / board_layout.width
    snaps = board_snap_points(data, layouts)
    for seat, colour in enumerate(colours):
        spec = data.board_of_seat(seat)
        overview = data.overviews[seat]
        south = seat % 2 == 0
        side = -1.0 if seat // 2 == 0 else 1.0
        x, z = side * BOARD_X, -BOARD_Z if south else BOARD_Z
        facing = 180.0 if south else 0.0  # a tile lies upright for the seat whose edge it is near
        objects.append(custom_tile(
            f"board:{colour}", url_for(image(f"board:{spec.id}")), nickname=spec.name.get(lang), locked=True,
            tags=(TAG, "fd-board", f"owner:{colour}"),
            memo={"role": "board", "owner": colour, "board": spec.id, "corners": list(spec.corners)},
            snap_points=snaps, transform=at(x, z, 1.0, scale=(board_scale, 1.0, board_scale), rot_y=facing)))
        objects.append(custom_tile(
            f"overview:{colour}", url_for(image(f"overview:{overview.id}")), nickname=overview.title.get(lang),
            tags=(TAG, "fd-overview", f"owner:{colour}"),
            memo={"role": "overview", "owner": colour, "overview": overview.id},
            transform=at(side * OVERVIEW_X, z, 1.1, scale=(OVERVIEW_SCALE, 1.0, OVERVIEW_SCALE), rot_y=facing)))
        objects.append(_zone(f"seat:{colour}", "fd-seat", {"role": "seat", "owner": colour}, x, z,
                             (geometry.BOARD_WIDTH, board_depth), owner=colour, rot_y=facing))
        objects.append(hand_trigger(
            f"hand:{colour}", colour, tags=(TAG, "fd-hand", f"owner:{colour}"), memo={"role": "hand", "owner": colour},
            transform=at(x, -HAND_Z if south else HAND_Z, 4.0, scale=(16, 6, 4), rot_y=0.0 if south else 180.0)))

    sample = " (sample data)" if data.info.sample_data else ""
    note = (f"{data.info.name.get(lang)}{sample}. Built by ttsmod; run `ttsmod bridge` to adjudicate.")
    return Save(data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui, note=note,
                player_counts=(data.info.min_players, data.info.max_players), turn_order=colours,
                snap_points=world_snaps)
