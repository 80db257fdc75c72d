"""What is on the headless 15 Days table, read in Python from the objects as a player sees them.

:func:`read_table` reads the physical part of a snapshot (docs/games/fifteen_days/protocol.md) without the
mod's help: hands from the hand zones, piles, market columns and the discard pile from their zones (bottom card
first, by height; a deck lying in a zone below its loose cards, its index 0 on top), corners from the cards
lying on a board's card points, animals and feathers from the seat areas, the supplies from their zones.
:func:`physical` keeps the keys of a snapshot (the engine's or this module's) that the table shows, in a form
that compares: hands as sets, "nothing" as None.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.harness import flat, inside
from tools.headless import HObject, Table

NEAR = 0.6
REMOVED = "fd-removed"
ANIMALS = ("otter", "frog", "squirrel", "rabbit")


def zone(table: Table, tag: str, index: int | None = None) -> HObject:
    found = [z for z in table.with_tag(tag) if index is None or z.memo_json().get("index") == index]
    assert len(found) == 1, (tag, index, found)
    return found[0]


def board_of(table: Table, colour: str) -> HObject:
    return next(b for b in table.with_tag("fd-board") if b.memo_json().get("owner") == colour)


def seat_zone(table: Table, colour: str) -> HObject:
    return next(z for z in table.with_tag("fd-seat") if z.memo_json().get("owner") == colour)


def card_points(board: HObject) -> dict[tuple[int, int], tuple[int, Any]]:
    """(corner, value) → (snap index, world position) of a board's card points."""
    out = {}
    for i, sp in enumerate(board.snap_points):
        tags = dict(t.split(":", 1) for t in sp.tags if ":" in t)
        if "fd-corner" in tags and "fd-value" in tags:
            out[(int(tags["fd-corner"]), int(tags["fd-value"]))] = (i, board.snap_world(i))
    return out


def _card(obj: HObject) -> str:
    return obj.memo_json()["card"]


def decks(table: Table) -> list[HObject]:
    """Every deck on the table, tagged or not: cards laid or dropped onto a card merge into a deck (TTS), and a
    deck formed on the table carries none of its cards' tags."""
    return [o for o in table.objects if o.type == "Deck" and o.held_by is None]


def stack(table: Table, z: HObject) -> list[str]:
    """Season card ids lying in zone ``z``, bottom first: the decks lying there (lowest first) with their
    contents, then the loose cards by height."""
    out: list[str] = []
    for deck in sorted((d for d in decks(table) if inside(z, d)), key=lambda d: (round(d.position.y, 3), d.guid)):
        out += [_card(c) for c in reversed(deck.contents) if c.has_tag("fd-season") and not c.has_tag(REMOVED)]
    loose = [o for o in table.with_tag("fd-season") if o.held_by is None and not o.has_tag(REMOVED)
             and inside(z, o)]
    loose.sort(key=lambda o: (round(o.position.y, 3), o.guid))
    return out + [_card(o) for o in loose]


def corners_of(table: Table, colour: str, values: tuple[int, ...]) -> list[dict[str, Any]]:
    board = board_of(table, colour)
    points = card_points(board)
    corners: list[dict[str, Any]] = [{"cards": {}, "wild": None} for _ in range(4)]
    for obj in table.with_tag("fd-card"):
        if obj.held_by is not None or obj.container is not None or obj.has_tag(REMOVED):
            continue
        best = min(points, key=lambda key: flat(points[key][1], obj.position))
        if flat(points[best][1], obj.position) >= NEAR:
            continue
        corner, value = best
        if obj.has_tag("fd-wild"):
            assert corners[corner]["wild"] is None, f"two wilds in {colour}'s corner {corner}"
            corners[corner]["wild"] = value
        else:
            assert value not in corners[corner]["cards"], f"two cards on {colour}'s point {best}"
            corners[corner]["cards"][value] = _card(obj)
    return [{"cards": [c["cards"][v] for v in values if v in c["cards"]], "wild": c["wild"]} for c in corners]


def read_table(table: Table, colours: list[str], values: tuple[int, ...] = (1, 2, 3, 4, 5, 6)) -> dict[str, Any]:
    """The physical part of a snapshot, read off the table."""
    seats = {c: seat_zone(table, c) for c in colours}
    snap: dict[str, Any] = {"players": [], "animals": {}}
    for colour in colours:
        hand = sorted(_card(o) for o in table.hand(colour) if o.has_tag("fd-season"))
        feathers = sum(1 for o in table.with_tag("fd-feather") if o.held_by is None and inside(seats[colour], o))
        snap["players"].append({"hand": hand, "feathers": feathers, "corners": corners_of(table, colour, values)})
    snap["draw_piles"] = [stack(table, zone(table, "fd-draw-pile", i)) for i in range(2)]
    snap["market"] = [stack(table, zone(table, "fd-market-column", i)) for i in range(3)]
    snap["discard"] = stack(table, zone(table, "fd-discard"))
    removed = [o for o in table.with_tag("fd-season") if o.has_tag(REMOVED)]
    removed += [c for d in decks(table) for c in d.contents if c.has_tag("fd-season") and c.has_tag(REMOVED)]
    snap["removed"] = sorted(_card(o) for o in removed)
    for animal in ANIMALS:
        token = table.with_tag(f"fd-animal:{animal}")[0]
        owners = [i for i, c in enumerate(colours) if inside(seats[c], token)]
        snap["animals"][animal] = owners[0] if owners else None
    wild_zone = zone(table, "fd-wild-supply")
    wilds = sum(1 for d in decks(table) if inside(wild_zone, d) for c in d.contents
                if c.has_tag("fd-wild") and not c.has_tag(REMOVED))
    wilds += sum(1 for o in table.with_tag("fd-wild") if o.held_by is None and not o.has_tag(REMOVED)
                 and inside(wild_zone, o))
    snap["wild_supply"] = wilds
    feather_zone = zone(table, "fd-feather-supply")
    snap["feather_supply"] = sum(1 for o in table.with_tag("fd-feather") if inside(feather_zone, o))
    return snap


PHYSICAL = ("players", "draw_piles", "market", "discard", "removed", "animals", "wild_supply", "feather_supply")


def physical(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The keys of a snapshot the table shows; hands as sorted lists, false/absent as None."""
    out = {key: snapshot.get(key) for key in PHYSICAL}
    out["players"] = [{"hand": sorted(p["hand"]), "feathers": p["feathers"],
                       "corners": [{"cards": list(c["cards"]), "wild": c["wild"] or None} for c in p["corners"]]}
                      for p in snapshot["players"]]
    out["removed"] = sorted(snapshot.get("removed") or [])
    out["animals"] = {a: (None if o is False else o) for a, o in (snapshot.get("animals") or {}).items()}
    return out
