"""A small 15 Days table made by hand in the shape of docs/games/fifteen_days/table-contract.md (tags, memo,
zones, board snap points), with the 90 sample season cards of assets/fifteen_days/cards.toml, so the mod can be
tested on the headless table without the builder. Positions are this file's own: the mod finds everything by
tags and memo."""

from __future__ import annotations

import json
import tomllib
from typing import Any

from tests.mod import handtable
from tests.mod.handtable import obj
from tests.mod.luasrc import REPO_ROOT
from tools.headless import Fidelity, Table

COLOURS = ["White", "Red", "Yellow", "Blue"]
ANIMALS = [("otter", "spring", "#f28c28", "hand_limit_8"), ("frog", "summer", "#3a9a3a", "discount_1"),
           ("squirrel", "autumn", "#8b5a2b", "draw_down_3"), ("rabbit", "winter", "#7e57c2", "take_up_2")]
RULES = {"two_player_removal": "by_back", "two_player_removed_each": 5, "starting_hand": 2,
         "feathers_per_player": 1, "market_columns": 3, "market_column_height": 3, "draw_piles": 2,
         "wild_supply_per_player": 2}
MARKET_STEP = -0.8
LIFT = 0.02


def sample_cards() -> list[dict[str, Any]]:
    doc = tomllib.loads((REPO_ROOT / "assets" / "fifteen_days" / "cards.toml").read_text(encoding="utf-8"))
    return [{"id": c["id"], "season": c["season"], "value": c["value"], "back": c["back"]} for c in doc["cards"]]


def zone(guid: str, tag: str, memo: dict, pos, scale=(3, 2, 4)) -> dict[str, Any]:
    return obj(guid, "ScriptingTrigger", [tag, "fd-card", "fd-token"], memo, pos=pos, scale=scale)


def board_points() -> list[dict[str, Any]]:
    """Card points: corner k in row k // 2, column k % 2, values 1..6 left to right, 0.5 apart; tokens between."""
    points = []
    for k in range(4):
        for v in range(1, 7):
            x = -3.2 + 3.4 * (k % 2) + 0.5 * (v - 1)
            z = 1.2 - 2.4 * (k // 2)
            points.append({"Position": {"x": x, "y": 0.1, "z": z},
                           "Tags": ["fd-card", "fd-slot", f"fd-corner:{k}", f"fd-value:{v}"]})
    for i, (animal, *_rest) in enumerate(ANIMALS):
        points.append({"Position": {"x": -3 + 0.8 * i, "y": 0.1, "z": 0}, "Tags": [
            "fd-token", "fd-animal-spot", f"fd-animal-spot:{animal}"]})
    for i in range(5):
        points.append({"Position": {"x": 0.6 + 0.6 * i, "y": 0.1, "z": 0}, "Tags": [
            "fd-token", "fd-feather-spot", f"fd-feather-spot:{i}"]})
    return points


def objects() -> list[dict[str, Any]]:
    season_cards = [obj(f"c{i:02d}", "Card", ["fd-card", "fd-season", f"fd-back:{c['back']}"],
                        {"role": "season", "card": c["id"], "season": c["season"], "value": c["value"],
                         "back": c["back"]}, rot=(0, 180, 180), Hands=True)
                    for i, c in enumerate(sample_cards())]
    wilds = [obj(f"w{i}", "Card", ["fd-card", "fd-wild"], {"role": "wild", "card": f"wild-{i + 1}"}, Hands=True)
             for i in range(8)]
    out = [
        zone("pile0", "fd-draw-pile", {"role": "draw-pile", "index": 0}, (8, 1, 0)),
        zone("pile1", "fd-draw-pile", {"role": "draw-pile", "index": 1}, (12, 1, 0)),
        zone("disc", "fd-discard", {"role": "discard"}, (16, 1, 0)),
        obj("deck", "Deck", ["fd-season-deck"], {"role": "season-deck"}, pos=(8, 1, 0), rot=(0, 180, 180),
            ContainedObjects=season_cards),
        zone("wsup", "fd-wild-supply", {"role": "wild-supply"}, (-8, 1, 0)),
        obj("wdeck", "Deck", ["fd-wild-deck"], {"role": "wild-deck"}, pos=(-8, 1, 0), ContainedObjects=wilds),
        zone("fsup", "fd-feather-supply", {"role": "feather-supply"}, (-12, 1, 0), scale=(3, 2, 6)),
        zone("asup", "fd-animal-supply", {"role": "animal-supply"}, (-16, 1, 0), scale=(3, 2, 6)),
    ]
    for i in range(3):
        out.append(zone(f"col{i}", "fd-market-column", {"role": "market-column", "index": i}, (-3 + 3 * i, 1, 0.8)))
    for i in range(5):
        out.append(obj(f"f{i}", "Custom_Tile", ["fd-token", "fd-feather"], {"role": "feather", "index": i},
                       pos=(-12, 1.1, -2 + i)))
    for i, (animal, season, colour, power) in enumerate(ANIMALS):
        out.append(obj(f"a{i}", "Custom_Tile", ["fd-token", "fd-animal", f"fd-animal:{animal}"],
                       {"role": "animal", "animal": animal, "season": season, "power": power},
                       pos=(-16, 1.1, -1.5 + i)))
    for i, colour in enumerate(COLOURS):
        z = -12 if i % 2 == 0 else 12
        x = -10 + 20 * (i // 2)
        out.append(obj(f"b{i}", "Custom_Tile", ["fd-board", f"owner:{colour}"],
                       {"role": "board", "owner": colour, "board": f"board-{i + 1}",
                        "corners": ["asc", "asc", "desc", "desc"]}, pos=(x, 1, z), Locked=True,
                       AttachedSnapPoints=board_points()))
        out.append(obj(f"s{i}", "ScriptingTrigger", ["fd-seat", f"owner:{colour}", "fd-card", "fd-token"],
                       {"role": "seat", "owner": colour}, pos=(x, 1, z), scale=(9, 2, 5)))
        out.append({"GUID": f"h{i}", "Name": "HandTrigger", "FogColor": colour,
                    "Tags": ["ttsmod", "fd-hand", "fd-card", f"owner:{colour}"],
                    "Memo": json.dumps({"role": "hand", "owner": colour}),
                    "Transform": {"posX": x, "posY": 3, "posZ": z * 2, "rotX": 0, "rotY": 0 if z < 0 else 180,
                                  "rotZ": 0, "scaleX": 10, "scaleY": 5, "scaleZ": 3}})
    return out


def game_data() -> dict[str, Any]:
    """What the builder's generated.game would carry for this table."""
    data = {"game": "fifteen-days", "mode": "standard", "protocol": 1, "player_colours": COLOURS,
            "min_players": 2, "max_players": 4,
            "seasons": ["spring", "summer", "autumn", "winter"], "values": [1, 2, 3, 4, 5, 6],
            "cards": {c["id"]: {k: c[k] for k in ("season", "value", "back")} for c in sample_cards()},
            "wilds": [f"wild-{i + 1}" for i in range(8)],
            "animals": [{"id": a, "season": s, "colour": c, "power": p} for a, s, c, p in ANIMALS],
            "feathers": 5, "rules": RULES, "layout": {"market_step": MARKET_STEP, "lift": LIFT}}
    return data


def save(script_state: str = "") -> dict[str, Any]:
    return handtable.save("fifteen_days", "fifteen-days", game_data(), objects(), script_state)


def table(colours: list[str], *, seed: int = 1, fidelity: Fidelity | None = None, **kwargs: Any) -> Table:
    return handtable.table(save(), colours, seed=seed, fidelity=fidelity, **kwargs)
