"""mod/four_humours/tablemap.lua on a small hand-made table: the snapshot it reads and the slots it finds."""

from __future__ import annotations

import json

from tests.mod.handtable import obj
from tests.mod.luasrc import bundle
from tools.headless import Table

ROOT = """
local map = require("four_humours.tablemap")
ledger = { game = "four-humours", mode = "kingdom", colours = { "White", "Red" }, round = 2, turn = 3,
    first_player = 0, active_player = 1, round_starter = 0, last_actor = 0, passes = 0, passed = {},
    scene_discard = { "bog" }, resolved_parties = {}, marks = { ["six-tiles"] = { 1 } } }
function snap(exclude_guid)
    local exclude = nil
    if exclude_guid ~= nil then exclude = getObjectFromGUID(exclude_guid) end
    return JSON.encode(map.snapshot(ledger, exclude))
end
function slot_at(x, z)
    local s = map.slot_at({ x = x, y = 1, z = z })
    if s == nil then return "none" end
    return s.kind .. ":" .. s.card .. "/" .. s.slot
end
"""


def _obj(*args, **kwargs):
    return obj(*args, ttsmod=False, **kwargs)


def _snaps(prefix, points):
    return [{"Position": {"x": x, "y": 0.1, "z": z}, "Tags": [prefix.rstrip(":"), f"{prefix}{i}"]}
            for i, (x, z) in enumerate(points)]


def _potion(guid, owner, humour, pos, face_down=False):
    return _obj(guid, "Custom_Tile", ["ttsmod", "fh-potion", f"owner:{owner}"],
                {"role": "potion", "owner": owner, "humour": humour}, pos=pos, rot=(0, 180, 180 if face_down else 0))


def _table():
    objects = [
        _obj("spot0", "ScriptingTrigger", ["fh-scene-spot"], {"index": 0}, pos=(0, 1, 10), scale=(6, 2, 4)),
        _obj("mill", "Card", ["fh-scene"], {"role": "scene", "card": "mill"}, pos=(0, 1, 10),
             AttachedSnapPoints=_snaps("fh-slot:", [(-1.5, 0), (-0.5, 0), (0.5, 0), (1.5, 0)])),
        _obj("party", "Custom_Tile", ["fh-party"], {"role": "party", "party": "harvest-festival", "order": 1},
             pos=(10, 1, 0), AttachedSnapPoints=_snaps("fh-slot:", [(-1, 0), (0, 0), (1, 0)])),
        _obj("map", "Custom_Tile", ["fh-kingdom"], {"role": "kingdom"}, pos=(0, 1, 0), scale=(2, 1, 2),
             AttachedSnapPoints=[{"Position": {"x": 1, "y": 0.1, "z": 1}, "Tags": ["fh-cell", "fh-cell:abbey"]}]),
        _obj("gspot", "ScriptingTrigger", ["fh-goal-spot"], {"index": 0}, pos=(0, 1, -10), scale=(4, 2, 5)),
        _obj("goal", "Card", ["fh-goal"], {"role": "goal", "goal": "six-tiles"}, pos=(0, 1, -10)),
        _obj("deck", "Deck", ["fh-scene-deck"], pos=(-10, 1, 10), ContainedObjects=[
            _obj(f"s{i}", "Card", ["fh-scene"], {"role": "scene", "card": c}) for i, c in enumerate(["ferry", "camp"])]),
        _obj("bagW", "Bag", ["fh-bag", "owner:White"], pos=(-20, 1, 0), ContainedObjects=[
            _potion("bw1", "White", "choleric", (0, 0, 0)), _potion("bw2", "White", "choleric", (0, 0, 0))]),
        _obj("bagR", "Bag", ["fh-bag", "owner:Red"], pos=(-20, 1, 5), ContainedObjects=[]),
        # on the mill's slot 1 (world x -0.5) face down; on the party's slot 2; two on the abbey cell (world 2, 2)
        _potion("p1", "White", "sanguine", (-0.5, 1.2, 10), face_down=True),
        _potion("p2", "Red", "phlegmatic", (11, 1.2, 0), face_down=True),
        _potion("p3", "White", "melancholic", (2, 1.2, 2)),
        _potion("p4", "Red", "choleric", (2.1, 1.4, 2)),
        # hands, one potion beside the hand zone, one held
        _potion("h1", "White", "phlegmatic", (0, 3, -20)),
        _potion("h2", "Red", "sanguine", (0, 3, 20)),
        _potion("h3", "Red", "melancholic", (30, 1, 30)),
        _potion("h4", "White", "sanguine", (0, 3, -20)),
    ]
    for i, colour in enumerate(("White", "Red")):
        objects.append({"GUID": f"hand{i}", "Name": "HandTrigger", "FogColor": colour, "Tags": ["fh-hand"],
                        "Transform": {"posX": 0, "posY": 3, "posZ": -20 + 40 * i, "rotX": 0, "rotY": 180 * i,
                                      "rotZ": 0, "scaleX": 12, "scaleY": 5, "scaleZ": 3}})
    table = Table.load({"LuaScript": bundle(ROOT, {"generated.game": "return {}"}), "ObjectStates": objects})
    table.seat("White", "Red")
    table.boot()
    return table


def test_snapshot_reads_slots_cells_hands_bags_and_the_ledger():
    table = _table()
    table.pick_up(table.object("h4"), "White")       # held by its owner: still in White's hand
    snap = json.loads(table.call_global("snap"))
    assert snap["scenes"] == [{"card": "mill", "slots": [False, {"owner": 0, "humour": "sanguine"}, False, False]}]
    assert snap["parties"] == [{"party": "harvest-festival",
                                "slots": [False, False, {"owner": 1, "humour": "phlegmatic"}]}]
    assert snap["boards"] == {"kingdom": {"abbey": [{"owner": 0, "humour": "melancholic"},
                                                    {"owner": 1, "humour": "choleric"}]}}
    white, red = snap["players"]
    assert sorted(white["hand"]) == ["phlegmatic", "sanguine"] and white["bag"]["choleric"] == 2
    assert sorted(red["hand"]) == ["melancholic", "sanguine"]      # the one beside the hand zone counts
    assert red["bag"] == {"choleric": 0, "melancholic": 0, "phlegmatic": 0, "sanguine": 0}
    assert snap["goals"] == [{"goal": "six-tiles", "marked_by": [1]}]
    assert snap["scene_deck"] == ["ferry", "camp"] and snap["scene_discard"] == ["bog"]
    assert snap["passed_this_round"] == [] and snap["resolved_parties"] == []      # empty tables as []
    assert (snap["round"], snap["active_player"], snap["last_actor"], snap["phase"]) == (2, 1, 0, "placement")


def test_a_potion_being_checked_counts_in_its_owners_hand_not_on_its_slot():
    table = _table()
    snap = json.loads(table.call_global("snap", "p1"))
    assert snap["scenes"][0]["slots"][1] is False
    assert sorted(snap["players"][0]["hand"]) == ["phlegmatic", "sanguine", "sanguine"]


def test_resolved_party_tiles_leave_the_snapshot_and_the_slots():
    table = _table()
    assert table.call_global("slot_at", 11, 0) == "party:harvest-festival/2"
    assert table.call_global("slot_at", 0.5, 10) == "scene:mill/2"
    assert table.call_global("slot_at", 5, 5) == "none"
    table.object("party").data["Tags"].append("fh-resolved")
    table.object("p2").position.x = 40      # its potion has gone (to a cell or a bag) by then
    assert table.call_global("slot_at", 11, 0) == "none"
    snap = json.loads(table.call_global("snap"))
    assert snap["parties"] == [] and snap["resolved_parties"] == ["harvest-festival"]
