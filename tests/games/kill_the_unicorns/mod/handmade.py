"""A small Kill the Unicorns table made by hand in the shape of ku-design's table (tags, memo, zones), with the
sample cards of assets/kill_the_unicorns/cards.toml, so the mod can be tested on the headless table without the
builder; and a setup snapshot made by hand the way the design describes it (the engine's own `setup` answers in
the end-to-end tests). Positions are this file's own: the mod finds everything by tags and memo."""

from __future__ import annotations

import json
import random
import tomllib
from typing import Any

from tests.mod import handtable
from tests.mod.handtable import obj
from tests.mod.luasrc import REPO_ROOT
from tools.headless import Fidelity, Table

COLOURS = ["White", "Red", "Orange", "Yellow", "Green", "Blue", "Purple"]
HUNTING_VALUES = [0, 1, 1, 2, 2, 3, 3, 4]
FACE_DOWN = (0, 180, 180)
CATCH_COLUMNS = ["green", "blue", "pink", "yellow", "legendary"]
CARD = [2.0, 2.794]


def cards() -> dict[str, Any]:
    return tomllib.loads((REPO_ROOT / "assets" / "kill_the_unicorns" / "cards.toml").read_text(encoding="utf-8"))


def zone(guid: str, tag: str, memo: dict, pos, scale=(2.5, 2, 3.5), extra_tags=()) -> dict[str, Any]:
    return obj(guid, "ScriptingTrigger", [tag, *extra_tags], memo, pos=pos, scale=scale)


def _character_bag(i: int, c: dict[str, Any], pos) -> dict[str, Any]:
    cid = c["id"]
    hunting = [obj(f"{cid[:3]}h{k}", "Card", ["ku-card", "ku-hunting", f"ku-character:{cid}"],
                   {"role": "hunting", "card": f"{cid}-hunt-{k}", "character": cid, "value": HUNTING_VALUES[k - 1]},
                   Hands=True) for k in range(1, 9)]
    tricks = [obj(f"{cid[:3]}t{k}", "Card", ["ku-card", "ku-trick", f"ku-character:{cid}"],
                  {"role": "trick", "card": f"{cid}-trick-{k}", "character": cid, "kind": kind, "pinned": False},
                  rot=FACE_DOWN, Hands=True) for k, kind in enumerate(c["tricks"], start=1)]
    contents = [
        obj(f"{cid[:3]}cc", "Custom_Tile", ["ku-character-card", f"ku-character:{cid}"],
            {"role": "character", "character": cid}),
        obj(f"{cid[:3]}hd", "Deck", ["ku-character-hunting-deck", f"ku-character:{cid}"], None, ContainedObjects=hunting),
        obj(f"{cid[:3]}td", "Deck", ["ku-character-trick-deck", f"ku-character:{cid}"], None, rot=FACE_DOWN,
            ContainedObjects=tricks),
    ]
    return obj(f"bag{i}", "Bag", ["ku-character-bag", f"ku-character:{cid}"],
               {"role": "character-bag", "character": cid}, pos=pos, ContainedObjects=contents)


def objects() -> list[dict[str, Any]]:
    doc = cards()
    unicorns = [u for u in doc["unicorns"] if not u["start"]]
    starts = [u for u in doc["unicorns"] if u["start"]]

    def unicorn(u: dict[str, Any], guid: str) -> dict[str, Any]:
        return obj(guid, "Card", ["ku-card", "ku-unicorn"],
                   {"role": "unicorn", "card": u["id"], "colour": u.get("colour"), "stars": u["stars"],
                    "start": u["start"]}, rot=FACE_DOWN)

    out = [
        zone("deckz", "ku-unicorn-deck-zone", {"role": "unicorn-deck"}, (-8, 1, 0), extra_tags=["ku-card"]),
        obj("udeck", "Deck", ["ku-unicorn-deck"], {"role": "unicorn-deck"}, pos=(-8, 1, 0), rot=FACE_DOWN,
            ContainedObjects=[unicorn(u, f"u{i:02d}") for i, u in enumerate(unicorns)]),
        obj("sdeck", "Deck", ["ku-start-deck"], {"role": "start-deck"}, pos=(-12, 1, 4), rot=FACE_DOWN,
            ContainedObjects=[unicorn(u, f"s{i}") for i, u in enumerate(starts)]),
        zone("udisc", "ku-unicorn-discard", {"role": "unicorn-discard"}, (8, 1, 0)),
        zone("box", "ku-box", {"role": "box"}, (28, 1, 0), scale=(5, 2, 18)),
        obj("first", "Custom_Tile", ["ku-first-player"], {"role": "first-player"}, pos=(-12, 1, -4)),
    ]
    for i in range(4):
        x = -4.5 + 3 * i
        out.append(zone(f"line{i}", "ku-line", {"role": "line", "index": i}, (x, 1, 0)))
        for slot, dz in (("above", 3.8), ("below", -3.8)):
            out.append(zone(f"slot{i}{slot[0]}", "ku-trick-slot", {"role": "trick-slot", "index": i, "slot": slot},
                            (x, 1, dz)))
    for k, item in enumerate(doc["market"]):
        x = 14 + 2.5 * k
        out.append(zone(f"stock{k}", "ku-market-stock", {"role": "market-stock", "item": item["id"]}, (x, 1, 0),
                        scale=(2, 2, 2)))
        count = 7 if item["stock"] == "per_player" else item["stock"]
        for n in range(1, count + 1):
            out.append(obj(f"tok{k}{n}", "Custom_Tile", ["ku-token", f"ku-token:{item['id']}"],
                           {"role": "token", "item": item["id"], "token": f"{item['id']}-{n}"},
                           pos=(x, 1.1 + 0.05 * n, 6)))
    for i, c in enumerate(doc["characters"]):
        out.append(_character_bag(i, c, (-22, 1, -7.5 + 2.5 * i)))
    for i, colour in enumerate(COLOURS):
        south = i < 4
        x = (20.4, 6.8, -6.8, -20.4)[i] if south else (-13.6, 0.0, 13.6)[i - 4]
        z = -16.6 if south else 16.6
        yaw = 0 if south else 180
        sign = 1 if south else -1
        # a catch column per colour, then legendary: its first unicorn's place near the catch zone's far edge
        columns = [{"Position": {"x": -4.8 + 2.4 * k, "y": 0.1, "z": -2.5},
                    "Tags": ["ku-unicorn", "ku-catch-spot", f"ku-catch-column:{column}"]}
                   for k, column in enumerate(CATCH_COLUMNS)]
        out.append(obj(f"mat{i}", "Custom_Tile", ["ku-seat-mat", f"owner:{colour}"],
                       {"role": "seat-mat", "owner": colour}, pos=(x, 1, z), rot=(0, yaw, 0), Locked=True,
                       AttachedSnapPoints=columns))
        for j, (tag, role, dx, dz, scale) in enumerate((
                ("ku-hunt-area", "hunt-area", -3.5, 2.5 * sign, (7, 2, 3.5)),
                ("ku-catch", "catch", 0, -1.5 * sign, (12, 2, 5)),
                ("ku-trick-deck", "trick-deck", 4, 2.5 * sign, (2.5, 2, 3.5)),
                ("ku-trick-discard", "trick-discard", 1.2 * sign, 2.5 * sign, (2.5, 2, 3.5)),
                ("ku-hunt-discard", "hunt-discard", -5.5 * sign, -1.5 * sign, (2.5, 2, 3.5)),
                ("ku-character-spot", "character-spot", 6 * sign, -1.5 * sign, (4, 2, 3.5)))):
            out.append(obj(f"z{i}{j}", "ScriptingTrigger", [tag, f"owner:{colour}"], {"role": role, "owner": colour},
                           pos=(x + dx, 1, z + dz), rot=(0, yaw, 0), scale=scale))
        out.append({"GUID": f"h{i}", "Name": "HandTrigger", "FogColor": colour,
                    "Tags": ["ttsmod", "ku-hand", f"owner:{colour}"],
                    "Memo": json.dumps({"role": "hand", "owner": colour}),
                    "Transform": {"posX": x, "posY": 3, "posZ": z * 1.6, "rotX": 0, "rotY": yaw,
                                  "rotZ": 0, "scaleX": 11, "scaleY": 5, "scaleZ": 3}})
    return out


def game_data() -> dict[str, Any]:
    """What the builder's generated.game would carry for this table."""
    doc = cards()
    names: dict[str, Any] = {}
    for section in ("characters", "tricks", "unicorns", "market"):
        for entry in doc[section]:
            names[entry["id"]] = entry["name"]
    data = {"game": "kill-the-unicorns", "mode": "standard", "protocol": 1, "player_colours": COLOURS,
            "min_players": 3, "max_players": 7,
            "characters": [{"id": c["id"], "promo": c.get("promo", False)} for c in doc["characters"]],
            "tricks": {t["id"]: {"name": t["name"], "text": t["text"]} for t in doc["tricks"]},
            "names": names, "rules": {"max_hunt_cards": 3},
            "cards": {u["id"]: {"kind": "unicorn", "colour": u.get("colour"), "stars": u["stars"]}
                      for u in doc["unicorns"]},
            "layout": {"card": CARD, "catch_columns": CATCH_COLUMNS, "catch_step": 0.6, "catch_lift": 0.05}}
    return data


def save(script_state: str = "") -> dict[str, Any]:
    return handtable.save("kill_the_unicorns", "kill-the-unicorns", game_data(), objects(), script_state)


def table(colours: list[str], *, seed: int = 1, fidelity: Fidelity | None = None, **kwargs: Any) -> Table:
    return handtable.table(save(), colours, seed=seed, fidelity=fidelity, **kwargs)


def setup_snapshot(characters: list[str], seed: int = 1) -> dict[str, Any]:
    """A day-1 snapshot as ku-design describes the engine's `setup` answer: each player's 8 hunting cards in
    hand, two tricks drawn, six in the trick deck, one start unicorn caught; four unicorns in the line; the
    market stocked for the player count, the rest of the tokens and start unicorns in the box."""
    rng = random.Random(seed)
    doc = cards()
    k = len(characters)
    starts = [u["id"] for u in doc["unicorns"] if u["start"]]
    deck = [u["id"] for u in doc["unicorns"] if not u["start"]]
    rng.shuffle(starts)
    rng.shuffle(deck)
    players = []
    for i, cid in enumerate(characters):
        tricks = [f"{cid}-trick-{n}" for n in range(1, 9)]
        rng.shuffle(tricks)
        players.append({"character": cid, "hand": [f"{cid}-hunt-{n}" for n in range(1, 9)], "played": [],
                        "hunt_discard": [], "trick_deck": tricks[:6], "trick_hand": sorted(tricks[6:]),
                        "trick_discard": [], "catch": [{"unicorn": starts[i], "pinned": [], "tokens": []}],
                        "tokens": [], "power_used": False})
    market, box = {}, starts[k:]
    for item in doc["market"]:
        count = 7 if item["stock"] == "per_player" else item["stock"]
        stock = k if item["stock"] == "per_player" else item["stock"]
        ids = [f"{item['id']}-{n}" for n in range(1, count + 1)]
        market[item["id"]] = ids[:stock]
        box += ids[stock:]
    box += [c["id"] for c in doc["characters"] if c["id"] not in characters]
    return {"ttsmod_snapshot": 1, "game": "kill-the-unicorns", "mode": "standard",
            "day": 1, "phase": "tricks", "first": 0, "players": players, "line": deck[-4:],
            "slots": [[None, None] for _ in range(4)], "unicorn_deck": deck[:-4], "unicorn_discard": [],
            "box": box, "market": market, "hunt": None, "pending": {"player": 0, "decision": "place_trick"},
            "rng": "test"}
