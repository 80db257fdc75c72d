"""What is on the headless Kill the Unicorns table, read in Python from the objects as a player sees them.

:func:`read_table` reads the physical part of a snapshot (docs/games/kill_the_unicorns/protocol.md) without the
mod's help: hands from the hand zones, every pile, area, slot and stock from the zone it lies in (a deck lying in
a zone counts with its cards, below the loose ones), a captured unicorn's pinned tricks and tokens from what lies
on its card in the catch area (docs/games/kill_the_unicorns/table-contract.md, "Catch area"). :func:`physical` keeps the keys of a snapshot (the engine's or this module's)
that the table shows, in a form that compares: piles and hands as sorted lists, "nothing" as None.
"""

from __future__ import annotations

from typing import Any

from tools.games.kill_the_unicorns.geometry import card_size_units
from tests.e2e.harness import flat, inside
from tools.headless import HObject, Table
from tools.headless.geometry import Vec, position_to_local


def zone(table: Table, tag: str, **memo: Any) -> HObject:
    """The one zone with ``tag`` and that memo (zones do not move or change: each is looked up once a table)."""
    cache = table.__dict__.setdefault("_ku_zones", {})
    key = (tag, tuple(sorted(memo.items())))
    if key not in cache:
        found = table.find(tag, **memo)
        assert len(found) == 1, (tag, memo, found)
        cache[key] = found[0]
    return cache[key]


def seat_zone(table: Table, tag: str, colour: str) -> HObject:
    return zone(table, tag, owner=colour)


def _id(memo: dict[str, Any]) -> str | None:
    return memo.get("card") or memo.get("token")


def everything(table: Table) -> list[tuple[str, dict[str, Any], HObject]]:
    """(id, memo, the object lying on the table that is or holds it) for every card and token not held."""
    out = []
    for obj in table.objects:
        if obj.held_by is not None:
            continue
        if obj.has_tag("ku-character-bag"):
            m = obj.memo_json()
            out.append((m["character"], {"role": "character-bag"}, obj))
        if obj.is_container:
            for inner in obj.contents:
                m = inner.memo_json()
                if _id(m):
                    out.append((_id(m), m, obj))
        else:
            m = obj.memo_json()
            if _id(m) and (obj.has_tag("ku-card") or obj.has_tag("ku-token")):
                out.append((_id(m), m, obj))
    return out


def ids_in(found, z: HObject, role: str) -> list[str]:
    return sorted(i for i, m, o in found if m.get("role") == role and inside(z, o))


ZONE_TAGS = ("ku-hunt-area", "ku-hunt-discard", "ku-trick-deck", "ku-trick-discard", "ku-catch",
             "ku-character-spot", "ku-line", "ku-trick-slot", "ku-unicorn-deck-zone", "ku-unicorn-discard", "ku-box",
             "ku-market-stock")


def zones_of(table: Table) -> list[HObject]:
    cache = table.__dict__.setdefault("_ku_zones", {})
    if "all" not in cache:
        cache["all"] = [z for tag in ZONE_TAGS for z in table.with_tag(tag)]
    return cache["all"]


def where(table: Table, found) -> dict[int, list[tuple[str, dict, HObject]]]:
    """The entries of ``found`` by the zone (its id()) they lie in."""
    out: dict[int, list] = {}
    zones = zones_of(table)
    # A point farther from a zone's centre than half its box's diagonal, along any axis, lies outside it however
    # the box is turned: only the zones near an object are asked; each object (a deck holds many) once.
    reach = [(z, z.position, (0.5 + 1e-6) * (z.scale.x ** 2 + z.scale.y ** 2 + z.scale.z ** 2) ** 0.5)
             for z in zones]
    held: dict[int, list[HObject]] = {}
    for entry in found:
        obj = entry[2]
        if id(obj) not in held:
            p = obj.position
            held[id(obj)] = [z for z, c, r in reach if abs(p.x - c.x) <= r and abs(p.z - c.z) <= r
                             and abs(p.y - c.y) <= r and inside(z, obj)]
        for z in held[id(obj)]:
            out.setdefault(id(z), []).append(entry)
    return out


CARD = card_size_units()   # (width, depth) of a card lying on the table


def _on_card(card: HObject, point) -> bool:
    """Whether ``point`` lies on ``card`` seen from above (its rectangle, turned as the card lies)."""
    local = position_to_local(point, card.position, card.rotation, Vec(1.0, 1.0, 1.0))
    return abs(local.x) <= CARD[0] / 2 + 1e-3 and abs(local.z) <= CARD[1] / 2 + 1e-3


def catch_owner(area: HObject, unicorns: list[tuple[str, HObject]], point) -> str:
    """Which of ``unicorns`` (lying in catch area ``area``) a pinned trick or token at ``point`` belongs to: the
    one whose card it lies on and, where the cards of a column overlap, the one nearer the owner (laid later,
    lying on top: the one a player sees there); on no card, the nearest one."""
    under = [u for u in unicorns if _on_card(u[1], point)]
    if under:
        return max(under, key=lambda u: position_to_local(u[1].position, area.position, area.rotation,
                                                          area.scale).z)[0]
    return min(unicorns, key=lambda u: (flat(u[1].position, point), u[0]))[0]


def _catch(found, area: HObject) -> list[dict[str, Any]]:
    """A catch area's unicorns (``found``: what lies in ``area``), each with the pinned tricks and tokens lying on
    it (:func:`catch_owner`)."""
    unicorns = [(i, o) for i, m, o in found if m.get("role") == "unicorn"]
    out = {i: {"unicorn": i, "pinned": [], "tokens": []} for i, _ in unicorns}
    for i, m, o in found:
        if m.get("role") in ("trick", "token") and unicorns:
            owner = catch_owner(area, unicorns, o.position)
            out[owner]["pinned" if m["role"] == "trick" else "tokens"].append(i)
    return [{"unicorn": u, "pinned": sorted(c["pinned"]), "tokens": sorted(c["tokens"])}
            for u, c in sorted(out.items())]


def read_table(table: Table, colours: list[str], items: list[str]) -> dict[str, Any]:
    """The physical part of a snapshot, read off the table (every list sorted)."""
    by_zone = where(table, everything(table))

    def ids_in(_found, z: HObject, role: str) -> list[str]:
        return sorted(i for i, m, o in by_zone.get(id(z), []) if m.get("role") == role)

    def catch_of(_found, z: HObject) -> list[dict[str, Any]]:
        return _catch(by_zone.get(id(z), []), z)

    found = None
    snap: dict[str, Any] = {"players": []}
    for colour in colours:
        hand = [o.memo_json() for o in table.hand(colour)]
        snap["players"].append({
            "hand": sorted(m["card"] for m in hand if m.get("role") == "hunting"),
            "trick_hand": sorted(m["card"] for m in hand if m.get("role") == "trick"),
            "played": ids_in(found, seat_zone(table, "ku-hunt-area", colour), "hunting"),
            "hunt_discard": ids_in(found, seat_zone(table, "ku-hunt-discard", colour), "hunting"),
            "trick_deck": ids_in(found, seat_zone(table, "ku-trick-deck", colour), "trick"),
            "trick_discard": ids_in(found, seat_zone(table, "ku-trick-discard", colour), "trick"),
            "catch": catch_of(found, seat_zone(table, "ku-catch", colour)),
            "tokens": ids_in(found, seat_zone(table, "ku-character-spot", colour), "token"),
        })
    snap["line"] = []
    snap["slots"] = []
    for i in range(4):
        on = ids_in(found, zone(table, "ku-line", index=i), "unicorn")
        assert len(on) <= 1, f"two unicorns on line spot {i}: {on}"
        snap["line"].append(on[0] if on else None)
        pair = []
        for slot in ("above", "below"):
            here = ids_in(found, zone(table, "ku-trick-slot", index=i, slot=slot), "trick")
            assert len(here) <= 1, f"two tricks in slot {i} {slot}: {here}"
            pair.append(here[0] if here else None)
        snap["slots"].append(pair)
    snap["unicorn_deck"] = ids_in(found, zone(table, "ku-unicorn-deck-zone"), "unicorn")
    snap["unicorn_discard"] = ids_in(found, zone(table, "ku-unicorn-discard"), "unicorn")
    box = zone(table, "ku-box")
    snap["box"] = sorted(ids_in(found, box, "unicorn") + ids_in(found, box, "token")
                         + ids_in(found, box, "character-bag"))
    snap["market"] = {item: ids_in(found, zone(table, "ku-market-stock", item=item), "token") for item in items}
    return snap


PLAYER = ("hand", "trick_hand", "played", "hunt_discard", "trick_deck", "trick_discard", "catch", "tokens")
TOP = ("line", "slots", "unicorn_deck", "unicorn_discard", "box", "market")


def _none(v: Any) -> Any:
    return None if v is False else v


def physical(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The keys of a snapshot the table shows, every pile sorted, false/absent as None."""
    out: dict[str, Any] = {"players": []}
    for p in snapshot["players"]:
        q = {key: sorted(p.get(key) or []) for key in PLAYER if key != "catch"}
        q["catch"] = sorted(({"unicorn": c["unicorn"], "pinned": sorted(c.get("pinned") or []),
                              "tokens": sorted(c.get("tokens") or [])} for c in p.get("catch") or []),
                            key=lambda c: c["unicorn"])
        out["players"].append(q)
    line = list(snapshot.get("line") or [])
    out["line"] = [_none(u) for u in line] + [None] * (4 - len(line))
    out["slots"] = [[_none(s) for s in pair] for pair in snapshot.get("slots") or []]
    for key in ("unicorn_deck", "unicorn_discard", "box"):
        out[key] = sorted(snapshot.get(key) or [])
    out["market"] = {k: sorted(v) for k, v in (snapshot.get("market") or {}).items()}
    return out
