"""The Kill the Unicorns table: every object of ``docs/games/kill_the_unicorns/table-contract.md``, laid out and
wired to the art.

:func:`compose_table` turns the records (:class:`KillTheUnicornsData`), the renderer's :class:`Art` and the game's
layouts into a :class:`tools.save.Save`:

- the middle of the table: the hunting ground (a locked tile with a unicorn spot and two trick slots per unicorn
  of the line, and a zone over each), the unicorn deck face down at the start of the line with its zone, the
  unicorn discard zone at its end, the start unicorns, the first-player token, the scoring card, one bag per
  character (its character card, hunting deck and trick deck), the market board with a stock zone per item and
  every token on its place, and the box zone;
- per seat colour (``info.player_colours``, at most ``max_players``): a seat mat (a locked tile with snap points
  for the catch area's columns, the hunt area, the trick deck, the trick discard, the hunting discard and the
  character card), a zone over each of those and a hand zone.  Seats 0-3 sit along the south edge and 4-6 along
  the north edge, clockwise (:func:`tools.games.kill_the_unicorns.geometry.seat_places`).

Snap point positions come from the boards' boxes in ``layouts.toml`` through
:mod:`tools.games.kill_the_unicorns.geometry`, the same functions the renderer draws the places with.  A snap
point carries a tag of the objects meant to snap there (``ku-unicorn``, ``ku-trick``, ``ku-hunting``,
``ku-character-card``, ``ku-token:<item>``): a tagged point attracts only objects sharing one of its tags.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from bridge.errors import DataError
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from tools.games.kill_the_unicorns import geometry
from tools.games.kill_the_unicorns.render import catch_columns, seat_colours
from tools.render.layout import Layouts
from tools.render.pipeline import Art
from tools.save import (
    DeckSheet, GameObject, Save, SnapPoint, at, bag, card, custom_tile, deck, hand_trigger, scripting_trigger,
)
from tools.sheets import PackedDeck

TAG = "ttsmod"
ZONE_Y, ZONE_HEIGHT = 2.0, 2.5  # scripting zones reach from just under the table top to above a stack of cards
CARD_Y = 1.2
MARGIN = 0.3                    # a zone reaches this far past the card lying in it
MAT_PAD = 0.1                   # a seat zone reaches this far past its box (boxes lie 0.3 apart and from the edge)


def _sheets(packed: PackedDeck, first_key: int, url_for: Callable[[Path], str]) -> list[tuple[int, DeckSheet]]:
    back = url_for(packed.back_path)
    return [(first_key + i, DeckSheet(url_for(s.path), back, s.columns, s.rows, back_is_hidden=packed.back_is_hidden))
            for i, s in enumerate(packed.sheets)]


def _zone(key: str, tag: str, memo: dict, x: float, z: float, size: tuple[float, float], *,
          owner: str | None = None, rot_y: float = 180.0) -> GameObject:
    tags = (TAG, tag) + ((f"owner:{owner}",) if owner else ())
    return scripting_trigger(key, nickname=key, tags=tags, memo=memo,
                             transform=at(x, z, ZONE_Y, scale=(size[0], ZONE_HEIGHT, size[1]), rot_y=rot_y))


class _Decks:
    """Hands out ``CustomDeck`` keys and the sheet of each face of the packed decks."""

    def __init__(self, art: Art, url_for: Callable[[Path], str]):
        self.art, self.url_for, self.next_key = art, url_for, 1

    def faces(self, name: str, count: int) -> list[tuple[int, int, DeckSheet]]:
        """``(deck key, index in sheet, sheet)`` of each of the ``count`` faces of packed deck ``name``."""
        if name not in self.art.decks:
            raise DataError("render", name, None, f'the renderer produced no "{name}" deck')
        packed = self.art.decks[name]
        if len(packed.placement) != count:
            raise DataError("render", name, None, f"{len(packed.placement)} faces for {count} cards")
        sheets = _sheets(packed, self.next_key, self.url_for)
        self.next_key += len(sheets)
        return [(sheets[s][0], index, sheets[s][1]) for s, index in packed.placement]


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


def _box_zone(placed: geometry.Placed, box, pad: float = MARGIN) -> tuple[tuple[float, float], tuple[float, float]]:
    """World ``(x, z)`` centre and ``(width, depth)`` of a zone over board box ``box`` (pixels)."""
    x, _, z = placed.world(geometry.box_centre(box))
    w, d = box.width / geometry.PX_PER_UNIT, box.height / geometry.PX_PER_UNIT
    return (x, z), (w + 2 * pad, d + 2 * pad)


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


def compose_table(data: KillTheUnicornsData, art: Art, *, mode: str, lang: str, layouts: Layouts,
                  url_for: Callable[[Path], str], lua_script: str = "", xml_ui: str = "") -> Save:
    """The whole Kill the Unicorns save (see the module docstring).  Raises :class:`DataError` for an unknown
    mode or an image the renderer did not produce."""
    if mode not in data.info.modes:
        raise DataError("game.toml", "[game]", "modes", f'"{mode}" is not a mode of this game')

    def image(name: str) -> Path:
        if name not in art.images:
            raise DataError("render", None, None, f'the renderer produced no "{name}" image')
        return art.images[name]

    def string(key: str, **values) -> str:
        text = layouts.string(key, lang)
        for k, v in values.items():
            text = text.replace("{" + k + "}", str(v))
        return text

    objects: list[GameObject] = []
    decks = _Decks(art, url_for)
    card_w, card_d = geometry.card_size_units()
    places = placements(data, layouts)
    pile = (card_w + 2 * MARGIN, card_d + 2 * MARGIN)

    # The hunting ground, its line zones and trick-slot zones.
    ground = places["ground"]
    g_layout = layouts.layouts["ground"]
    objects.append(custom_tile(
        "ground", url_for(image("ground")), nickname=data.info.name.get(lang), locked=True,
        tags=(TAG, "ku-ground"), memo={"role": "ground"}, thickness=0.2,
        snap_points=ground_snap_points(data, layouts, ground),
        transform=at(ground.x, ground.z, geometry.BOARD_Y, scale=(ground.scale, 1.0, ground.scale))))
    cells = geometry.line_cells(g_layout, data.rules.unicorns_per_day)
    line = g_layout.box("line")
    # A ground zone is a card plus a margin, but never reaches into its neighbours' cells.
    cell = (min(pile[0], line.width / data.rules.unicorns_per_day / geometry.PX_PER_UNIT),
            min(pile[1], line.height / len(geometry.LINE_ROWS) / geometry.PX_PER_UNIT))
    for i in range(data.rules.unicorns_per_day):
        x, _, z = ground.world(cells["unicorn"][i])
        objects.append(_zone(f"line:{i}", "ku-line", {"role": "line", "index": i}, x, z, cell))
        for slot in ("above", "below"):
            x, _, z = ground.world(cells[slot][i])
            objects.append(_zone(f"trick-slot:{i}:{slot}", "ku-trick-slot",
                                 {"role": "trick-slot", "index": i, "slot": slot}, x, z, cell))

    # The unicorns: the deck face down at the start of the line, the start unicorns beside it.
    unicorn_name = string("unicorn")

    def unicorn_cards(prefix: str, unicorns, where) -> list[GameObject]:
        faces = decks.faces(prefix, len(unicorns))
        return [card(f"{prefix}/unicorn:{u.id}", key, index, sheet, nickname=u.name.get(lang),
                     tags=(TAG, "ku-card", "ku-unicorn"),
                     memo={"role": "unicorn", "card": u.id, "colour": u.colour, "stars": u.stars, "start": u.start},
                     transform=where)
                for u, (key, index, sheet) in zip(unicorns, faces)]

    deck_at = at(*geometry.UNICORN_DECK_AT, CARD_Y, face_down=True)
    objects.append(deck("unicorns", unicorn_cards("unicorns", data.deck_unicorns, deck_at), nickname=unicorn_name,
                        tags=(TAG, "ku-unicorn-deck"), memo={"role": "unicorn-deck"}, transform=deck_at))
    objects.append(_zone("unicorn-deck", "ku-unicorn-deck-zone", {"role": "unicorn-deck"},
                         *geometry.UNICORN_DECK_AT, pile))
    objects.append(_zone("unicorn-discard", "ku-unicorn-discard", {"role": "unicorn-discard"},
                         *geometry.UNICORN_DISCARD_AT, pile))
    start_at = at(*geometry.START_DECK_AT, CARD_Y)
    objects.append(deck("start-unicorns", unicorn_cards("start-unicorns", data.start_unicorns, start_at),
                        nickname=string("start"), tags=(TAG, "ku-start-deck"), memo={"role": "start-deck"},
                        transform=start_at))

    # The first-player token and the scoring card.
    fp = layouts.layouts["first_player"]
    objects.append(custom_tile(
        "first-player", url_for(image("first-player")), back_url=url_for(image("first-player")), shape="circle",
        thickness=0.3, nickname=string("first_player"), tags=(TAG, "ku-first-player"), memo={"role": "first-player"},
        transform=at(*geometry.FIRST_PLAYER_AT, 1.2,
                     scale=geometry.tile_scale(fp, geometry.FIRST_PLAYER_SIZE))))
    scoring = layouts.layouts["scoring"]
    objects.append(custom_tile(
        "scoring-card", url_for(image("scoring")), nickname=string("scoring"), thickness=0.1,
        tags=(TAG, "ku-scoring-card"), memo={"role": "scoring-card"},
        transform=at(*geometry.SCORING_AT, 1.1, scale=geometry.tile_scale(scoring, geometry.SCORING_WIDTH))))

    # One bag per character: its character card, hunting deck and trick deck.
    character_layout = layouts.layouts["character"]
    character_scale = geometry.tile_scale(character_layout, geometry.CHARACTER_WIDTH)
    for n, c in enumerate(data.characters):
        where = at(geometry.BAGS_X, geometry.BAGS_Z0 + n * geometry.BAGS_STEP, 1.5)
        name = c.name.get(lang)
        char_tag = f"ku-character:{c.id}"
        character_card = custom_tile(
            f"bag:{c.id}/character:{c.id}", url_for(image(f"character:{c.id}")), thickness=0.1,
            nickname=name, description=f"{c.power.name.get(lang)}: {c.power.text.get(lang)}",
            tags=(TAG, "ku-character-card", char_tag), memo={"role": "character", "character": c.id},
            transform=at(0, 0, 1.2, scale=character_scale))
        hunting = [h for h in data.hunting_cards.values() if h.character == c.id]
        hunting_cards = [card(f"bag:{c.id}/hunting/{h.id}", key, index, sheet,
                              nickname=string("card_back", character=name),
                              tags=(TAG, "ku-card", "ku-hunting", char_tag),
                              memo={"role": "hunting", "card": h.id, "character": c.id, "value": h.value},
                              transform=at(0, 0, 1.2, face_down=True))
                         for h, (key, index, sheet) in zip(hunting, decks.faces(f"hunting-{c.id}", len(hunting)))]
        tricks = [t for t in data.trick_cards.values() if t.character == c.id]
        trick_cards = [card(f"bag:{c.id}/tricks/{t.id}", key, index, sheet,
                            nickname=string("trick_back", character=name),
                            tags=(TAG, "ku-card", "ku-trick", char_tag),
                            memo={"role": "trick", "card": t.id, "character": c.id, "kind": t.kind,
                                  "pinned": data.trick_by_id[t.kind].pinned},
                            transform=at(0, 0, 1.2, face_down=True))
                       for t, (key, index, sheet) in zip(tricks, decks.faces(f"tricks-{c.id}", len(tricks)))]
        contents = [
            character_card,
            deck(f"bag:{c.id}/hunting", hunting_cards, nickname=string("card_back", character=name),
                 tags=(TAG, "ku-character-hunting-deck", char_tag), memo={"role": "hunting-deck", "character": c.id},
                 transform=at(0, 0, 1.2, face_down=True)),
            deck(f"bag:{c.id}/tricks", trick_cards, nickname=string("trick_back", character=name),
                 tags=(TAG, "ku-character-trick-deck", char_tag), memo={"role": "trick-deck", "character": c.id},
                 transform=at(0, 0, 1.2, face_down=True)),
        ]
        objects.append(bag(f"bag:{c.id}", contents, order="lifo", nickname=string("bag", character=name),
                           tags=(TAG, "ku-character-bag", char_tag),
                           memo={"role": "character-bag", "character": c.id}, transform=where))

    # The black market: the board, a stock zone over each item's card, every token on its place.
    market = places["market"]
    mb, mc = layouts.layouts["market_board"], layouts.layouts["market_card"]
    objects.append(custom_tile(
        "market", url_for(image("market")), nickname=string("black_market"), locked=True, thickness=0.2,
        tags=(TAG, "ku-market"), memo={"role": "market"}, snap_points=market_snap_points(data, layouts, market),
        transform=at(market.x, market.z, geometry.BOARD_Y, scale=(market.scale, 1.0, market.scale))))
    px_per_unit = mb.width / geometry.MARKET_WIDTH
    spots = geometry.market_token_spots(mb, mc, [m.token_count for m in data.market])
    token_layout = layouts.layouts["token"]
    token_scale = geometry.tile_scale(token_layout, geometry.TOKEN_SIZE)
    for m, (left, top, scale), places_of in zip(data.market, geometry.market_card_rects(mb, mc, len(data.market)),
                                                spots):
        w, h = mc.width * scale, mc.height * scale
        x, _, z = market.world((left + w / 2, top + h / 2))
        objects.append(_zone(f"market-stock:{m.id}", "ku-market-stock", {"role": "market-stock", "item": m.id},
                             x, z, (w / px_per_unit, h / px_per_unit)))
        url = url_for(image(f"token:{m.id}"))
        for token_id, spot in zip(data.tokens(m.id), places_of):
            tx, _, tz = market.world(spot)
            objects.append(custom_tile(
                f"token:{token_id}", url, back_url=url, shape="circle", thickness=0.2, nickname=m.name.get(lang),
                description=m.text.get(lang), tags=(TAG, "ku-token", f"ku-token:{m.id}"),
                memo={"role": "token", "item": m.id, "token": token_id},
                transform=at(tx, tz, 1.3, scale=token_scale)))

    objects.append(_zone("box", "ku-box", {"role": "box"}, *geometry.BOX_AT, geometry.BOX_SIZE))

    # Per seat: the mat, its zones, the hand.
    mat_layout = layouts.layouts["seat_mat"]
    snaps_of: dict[float, list[SnapPoint]] = {}
    for colour in seat_colours(data):
        mat = places[f"mat:{colour}"]
        snaps = snaps_of.setdefault(mat.rot_y, mat_snap_points(data, layouts, mat))
        objects.append(custom_tile(
            f"seat-mat:{colour}", url_for(image(f"seat-mat:{colour}")), nickname=string("seat", colour=colour),
            locked=True, thickness=0.2, tags=(TAG, "ku-seat-mat", f"owner:{colour}"),
            memo={"role": "seat-mat", "owner": colour}, snap_points=snaps,
            transform=at(mat.x, mat.z, geometry.BOARD_Y, scale=(mat.scale, 1.0, mat.scale), rot_y=mat.rot_y)))
        for tag, role, box in (("ku-hunt-area", "hunt-area", "hunt"), ("ku-catch", "catch", "catch"),
                               ("ku-trick-deck", "trick-deck", "trick_deck"),
                               ("ku-trick-discard", "trick-discard", "trick_discard"),
                               ("ku-hunt-discard", "hunt-discard", "hunt_discard"),
                               ("ku-character-spot", "character-spot", "character")):
            (x, z), size = _box_zone(mat, mat_layout.box(box), pad=0.0 if box == "catch" else MAT_PAD)
            objects.append(_zone(f"{role}:{colour}", tag, {"role": role, "owner": colour}, x, z, size,
                                 owner=colour, rot_y=mat.rot_y))
        south = mat.rot_y == 180.0
        objects.append(hand_trigger(
            f"hand:{colour}", colour, tags=(TAG, "ku-hand", f"owner:{colour}"), memo={"role": "hand", "owner": colour},
            transform=at(mat.x, -geometry.HAND_Z if south else geometry.HAND_Z, 4.0, scale=(12, 6, 4),
                         rot_y=0.0 if south else 180.0)))

    sample = " (sample data)" if data.info.sample_data else ""
    note = f"{data.info.name.get(lang)}{sample}. Built by ttsmod; run `ttsmod bridge` to adjudicate."
    colours = seat_colours(data)
    return Save(data.info.name.get(lang), objects, lua_script=lua_script, xml_ui=xml_ui, note=note,
                player_counts=(data.info.min_players, data.info.max_players), turn_order=colours)
