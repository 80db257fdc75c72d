"""The Kill the Unicorns mod's Setup on a hand-made headless table (tests/games/kill_the_unicorns/mod/handmade.py): the
mod asks the bridge for `setup` with the seated players (and the characters they chose by dropping a bag on
their mat), lays the table the answer describes (KU-1: hunting cards and two drawn tricks in hand, the trick deck
face down, a start unicorn caught, the line of four face up, the market stocked, the rest in the box), and reads
the same table back as the snapshot it sends the engine."""

from __future__ import annotations

import json

import pytest

from tests.mod.handtable import answer, connect
from tests.games.kill_the_unicorns.mod.handmade import COLOURS, save, setup_snapshot, table
from tests.mod import handtable

PHYSICAL = ("line", "unicorn_deck", "unicorn_discard", "box", "market")
ENVELOPE = {"ttsmod_snapshot": 1, "game": "kill-the-unicorns", "mode": "standard"}


def envelope(snapshot):
    return {key: snapshot.get(key) for key in ENVELOPE}


def _ready(t) -> bool:
    return " to place a trick" in t.ui_value("turnStatus") and not any(o.in_motion for o in t.objects)


def _set_up(colours, characters, seed=1):
    t = table(colours, seed=seed)
    connect(t)
    t.click("setupButton", colours[0])
    snap = setup_snapshot(characters, seed)
    request = answer(t, "setup", {"snapshot": snap, "events": [], "next": snap["pending"]})
    assert t.run_until(lambda: _ready(t), max_seconds=60), t.ui_value("turnStatus")
    return t, snap, request


def _comparable(snap):
    out = {key: snap[key] for key in PHYSICAL}
    out["box"] = sorted(out["box"])
    out["market"] = {k: sorted(v) for k, v in out["market"].items()}
    out["unicorn_deck"] = sorted(out["unicorn_deck"])
    out["slots"] = [[s or None for s in pair] for pair in snap["slots"]]
    out["players"] = [{"hand": sorted(p["hand"]), "trick_hand": sorted(p["trick_hand"]),
                       "trick_deck": sorted(p["trick_deck"]), "played": p["played"], "tokens": p["tokens"],
                       "hunt_discard": p["hunt_discard"], "trick_discard": p["trick_discard"], "catch": p["catch"],
                       "character": p["character"]} for p in snap["players"]]
    return out


@pytest.mark.parametrize("players", [3, 4, 6])
def test_setup_lays_the_table_the_engine_describes_and_reads_it_back(players):
    colours = COLOURS[:players]
    characters = ["princess", "knight", "wizard", "shaman", "huntress", "bard", "black_mage"][:players]
    t, snap, request = _set_up(colours, characters)
    with t:
        assert request["body"]["players"] == players and request["body"]["characters"] is False
        assert request["body"]["mode"] == "standard"
        read = json.loads(t.call_global("test_snapshot"))
        assert _comparable(read) == _comparable(snap)
        assert envelope(read) == ENVELOPE
        for colour, p in zip(colours, snap["players"]):
            hand = {o.memo_json()["card"] for o in t.hand(colour)}
            # S3-4, KU-3.1: the eight hunting cards and the two tricks drawn are in the hand
            assert hand == set(p["hand"]) | set(p["trick_hand"])
        # S3-5: trick decks face down; S3-7: the line face up, the deck face down
        for o in t.objects:
            m = o.memo_json()
            if m.get("role") == "trick" and m["card"] in {c for p in snap["players"] for c in p["trick_deck"]}:
                assert o.face_down
            if m.get("role") == "unicorn" and m["card"] in snap["line"]:
                assert not o.face_down
        assert t.ui_attribute("setupButton", "active") == "false"
        assert t.ui_attribute("actionPanel", "active") == "true"
        assert t.ui_value("turnStatus").startswith("White to place a trick")
        assert t.errors == []


def test_a_bag_dropped_on_a_mat_chooses_that_character():
    colours = COLOURS[:3]
    t = table(colours)
    with t:
        connect(t)
        bag = next(o for o in t.with_tag("ku-character-bag") if o.memo_json()["character"] == "bard")
        spot = next(z for z in t.with_tag("ku-character-spot") if z.memo_json()["owner"] == "Red")
        t.pick_up(bag, "Red")
        t.drop(bag, "Red", position=spot.position)
        t.run_until(lambda: not any(o.in_motion for o in t.objects), max_seconds=5)
        t.click("setupButton", "White")
        characters = [m for m in t.sent_custom if m["type"] == "setup"][-1]["body"]["characters"]
        assert characters[1] == "bard" and len(set(characters)) == 3
        assert "black_mage" not in characters   # the promo character only when seven play


def test_a_fresh_table_reads_with_the_envelope_before_any_engine_snapshot():
    with table(COLOURS[:3]) as t:
        assert envelope(json.loads(t.call_global("test_snapshot"))) == ENVELOPE
        assert t.errors == []


def test_setup_refuses_two_players_and_asks_nothing():
    with table(COLOURS[:2]) as t:
        connect(t)
        t.click("setupButton", "White")
        t.advance(1)
        assert any("Seat 3 to 7 players" in m for m, _ in t.broadcasts)
        assert not [m for m in t.sent_custom if m["type"] == "setup"]


def _slot_zone(t, index, slot):
    return next(z for z in t.with_tag("ku-trick-slot") if z.memo_json() == {"role": "trick-slot", "index": index,
                                                                             "slot": slot})


def _drop_trick(t, colour, card, index, slot):
    obj = next(o for o in t.hand(colour) if o.memo_json().get("card") == card)
    t.pick_up(obj, colour)
    t.drop(obj, colour, position=_slot_zone(t, index, slot).position)
    assert t.run_until(lambda: [m for m in t.sent_custom if m["type"] == "legal"] and t.settled, max_seconds=10)
    return obj


def test_a_trick_dropped_on_a_slot_is_asked_of_the_bridge_and_put_back_when_refused():
    t, snap, _ = _set_up(COLOURS[:3], ["princess", "knight", "wizard"])
    with t:
        card = snap["players"][0]["trick_hand"][0]
        obj = _drop_trick(t, "White", card, 2, "below")
        request = [m for m in t.sent_custom if m["type"] == "legal"][-1]["body"]
        assert request["action"] == {"action": "place-trick", "player": 0, "card": card, "unicorn": 2,
                                     "slot": "below"}
        assert envelope(request["snapshot"]) == ENVELOPE
        # the card lying on the slot still counts in White's trick hand until the engine rules
        assert sorted(request["snapshot"]["players"][0]["trick_hand"]) == snap["players"][0]["trick_hand"]
        assert request["snapshot"]["slots"][2] == [False, False]
        answer(t, "legal", {"legal": False, "reason": "slot_taken", "message": "that slot is taken"})
        assert t.run_until(lambda: obj in t.hand("White") and not obj.in_motion, max_seconds=5)
        assert ("Not allowed: that slot is taken.", "White") in t.broadcasts


def test_an_allowed_trick_is_laid_face_down_and_the_other_discarded_face_up():
    t, snap, _ = _set_up(COLOURS[:3], ["princess", "knight", "wizard"])
    with t:
        placed, other = snap["players"][0]["trick_hand"]
        _drop_trick(t, "White", placed, 1, "above")
        after = json.loads(json.dumps(snap))
        after["players"][0]["trick_hand"] = []
        after["players"][0]["trick_discard"] = [other]
        after["slots"][1] = [placed, None]
        after["pending"] = {"player": 1, "decision": "place_trick"}
        answer(t, "legal", {"legal": True, "snapshot": after, "game_over": False, "complete": True,
                            "events": [{"event": "trick_placed", "player": 0, "unicorn": 1, "slot": "above"},
                                       {"event": "trick_discarded", "player": 0, "card": other}],
                            "next": {"player": 1, "decision": "place_trick", "legal": []}})
        assert t.run_until(lambda: t.ui_value("turnStatus").startswith("Red to place a trick")
                           and not any(o.in_motion for o in t.objects), max_seconds=20)
        cards = {o.memo_json().get("card"): o for o in t.objects if o.memo_json().get("role") == "trick"}
        assert cards[placed].face_down and not cards[other].face_down
        read = json.loads(t.call_global("test_snapshot"))
        assert read["slots"][1] == [placed, False]
        assert read["players"][0]["trick_discard"] == [other] and read["players"][0]["trick_hand"] == []
        assert "White slides a trick above unicorn 2." in [m for m, _ in t.broadcasts]


def test_a_table_saved_by_the_mod_before_lib_play_loads_with_its_ledger():
    snap = setup_snapshot(["princess", "knight", "wizard"])
    old = {"ledger": {"game": "kill-the-unicorns", "mode": "standard", "colours": COLOURS[:3], "phase": "play",
                      "last": snap, "applied": 0, "moves": 3, "seed": 5}}
    with handtable.table(save(json.dumps(old)), COLOURS[:3]) as t:
        # the old `last` is the engine's snapshot the library keeps, its pending decision what the table waits for
        assert t.ui_value("turnStatus").startswith("White to place a trick")
        ledger = json.loads(t.call_global("test_ledger"))
        assert ledger["snapshot"]["pending"] == snap["pending"] and "last" not in ledger
        assert json.loads(t.call_global("test_snapshot"))["day"] == 1
        assert t.errors == []
