"""What is on the headless Four Humours table, read in Python from the objects as a player sees them.

:func:`read_table` reads the physical part of a snapshot (docs/games/four_humours/protocol.md) without the mod's help: hands from
the hand zones, bags from their contents, potions on slots and cells by where they lie, goal marks from the
goal markers lying on goal cards, resolved parties from the ``fh-resolved`` tag, scenes from the scene spots.
:func:`physical` normalises a snapshot (the mod's, this module's or the engine's) into comparable values.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bridge.rules.four_humours.records import HUMOURS
from tests.e2e.harness import flat
from tools.headless import HObject, Table

NEAR = 0.6


def snaps(obj: HObject, prefix: str) -> dict[str, tuple[int, Any]]:
    """Suffix of each snap point tag with ``prefix`` → (snap index, world position)."""
    out = {}
    for i, sp in enumerate(obj.snap_points):
        for tag in sp.tags:
            if tag.startswith(prefix):
                out[tag[len(prefix):]] = (i, obj.snap_world(i))
    return out


def potions_at(table: Table, p) -> list[HObject]:
    return [o for o in table.with_tag("fh-potion") if o.held_by is None and flat(o.position, p) < NEAR]


def spots(table: Table, tag: str) -> list[HObject]:
    return sorted(table.with_tag(tag), key=lambda s: s.memo_json().get("index", 0))


def cards_on(table: Table, spot_tag: str, card_tag: str) -> list[HObject]:
    out = []
    for spot in spots(table, spot_tag):
        out += [o for o in table.in_zone(spot) if o.has_tag(card_tag)]
    return out


def scene_cards(table: Table) -> list[HObject]:
    return cards_on(table, "fh-scene-spot", "fh-scene")


def goal_cards(table: Table) -> list[HObject]:
    return cards_on(table, "fh-goal-spot", "fh-goal")


def party_tiles(table: Table) -> list[HObject]:
    return sorted(table.with_tag("fh-party"), key=lambda t: t.memo_json().get("order", 0))


def boards(table: Table) -> dict[str, HObject]:
    out = {"kingdom": b for b in table.with_tag("fh-kingdom")}
    out.update({b.memo_json()["fief"]: b for b in table.with_tag("fh-fief")})
    return out


def bag_of(table: Table, colour: str) -> HObject:
    return table.find("fh-bag", owner=colour)[0]


def slot_values(table: Table, host: HObject, seat_of: dict[str, int]) -> list[dict | None]:
    found = snaps(host, "fh-slot:")
    out: list[dict | None] = [None] * len(found)
    for index, (_, p) in found.items():
        here = potions_at(table, p)
        assert len(here) <= 1, f"{len(here)} potions on one slot of {host.nickname}"
        if here:
            m = here[0].memo_json()
            out[int(index)] = {"owner": seat_of[m["owner"]], "humour": m["humour"]}
    return out


def read_table(table: Table, colours: list[str], *, mode: str = "kingdom", fiefs: list[str] | None = None,
               ) -> dict[str, Any]:
    """The physical part of a snapshot, read off the table."""
    seat_of = {c: i for i, c in enumerate(colours)}
    players = []
    for i, colour in enumerate(colours):
        hand = [o for o in table.hand(colour) if o.has_tag("fh-potion")]
        assert all(o.memo_json()["owner"] == colour for o in hand), f"another colour's potion in {colour}'s hand"
        bag = Counter(o.memo_json()["humour"] for o in bag_of(table, colour).contents)
        players.append({"seat": i, "colour": colour, "fief": fiefs[i] if fiefs else None,
                        "hand": sorted(o.memo_json()["humour"] for o in hand),
                        "bag": {h: bag.get(h, 0) for h in HUMOURS}})
    scenes = [{"card": c.memo_json()["card"], "slots": slot_values(table, c, seat_of)} for c in scene_cards(table)]
    parties, resolved = [], []
    for tile in party_tiles(table):
        if tile.has_tag("fh-resolved"):
            resolved.append(tile.memo_json()["party"])
        else:
            parties.append({"party": tile.memo_json()["party"], "slots": slot_values(table, tile, seat_of)})
    goals = []
    for card in goal_cards(table):
        spot = next(s for s in table.with_tag("fh-goal-spot") if card in table.in_zone(s))
        markers = [o for o in table.in_zone(spot) if o.has_tag("fh-goal-marker")]
        goals.append({"goal": card.memo_json()["goal"],
                      "marked_by": sorted(seat_of[m.memo_json()["owner"]] for m in markers)})
    board_json: dict[str, dict] = {}
    for board_id, board in boards(table).items():
        cells = {}
        for cell, (_, p) in snaps(board, "fh-cell:").items():
            here = [o.memo_json() for o in potions_at(table, p)]
            if here:
                cells[cell] = [{"owner": seat_of[m["owner"]], "humour": m["humour"]} for m in here]
        if cells:
            board_json[board_id] = cells
    decks = table.with_tag("fh-scene-deck")
    deck = [c.memo_json()["card"] for c in decks[0].contents] if decks else []
    turn = table.turns.get("turn_color")
    return {
        "ttsmod_snapshot": 1, "game": "four-humours", "mode": mode, "players": players, "scenes": scenes, "parties": parties,
        "resolved_parties": resolved, "goals": goals, "boards": board_json, "scene_deck": deck,
        "active_player": seat_of.get(turn, 0),
    }


def _potion(p: Any) -> tuple[int, str] | None:
    if p is None or p is False:
        return None
    return (p["owner"], p["humour"])


def physical(snapshot: dict[str, Any], *, hands: bool = True) -> dict[str, Any]:
    """The parts of a snapshot that lie on the table, normalised for comparison (Lua's false/[] as null/{}).

    ``hands=False`` compares each player's bag + hand together (what a ruling's refill cannot tell apart) and
    the hand's size."""
    players = []
    for p in snapshot["players"]:
        bag = p["bag"] if isinstance(p["bag"], dict) else {}
        hand = Counter(p.get("hand") or [])
        if hands:
            players.append((p["colour"], sorted(hand.elements()), {h: bag.get(h, 0) for h in HUMOURS}))
        else:
            players.append((p["colour"], sum(hand.values()), {h: bag.get(h, 0) + hand.get(h, 0) for h in HUMOURS}))
    boards_json = snapshot.get("boards") or {}
    if boards_json == []:
        boards_json = {}
    norm_boards = {}
    for board, cells in boards_json.items():
        cells = {} if cells == [] else cells
        kept = {cell: sorted(_potion(p) for p in potions) for cell, potions in cells.items() if potions}
        if kept:
            norm_boards[board] = kept
    return {
        "players": players,
        "scenes": [(s["card"], [_potion(p) for p in s["slots"]]) for s in snapshot.get("scenes") or []],
        "parties": [(s["party"], [_potion(p) for p in s["slots"]]) for s in snapshot.get("parties") or []],
        "resolved_parties": list(snapshot.get("resolved_parties") or []),
        "goals": [(g["goal"], sorted(g.get("marked_by") or [])) for g in snapshot.get("goals") or []],
        "boards": norm_boards,
        "scene_deck": list(snapshot.get("scene_deck") or []),
    }
