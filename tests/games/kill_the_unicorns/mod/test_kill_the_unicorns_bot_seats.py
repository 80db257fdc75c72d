"""Bots in empty seats on the hand-made Kill the Unicorns table (tests/games/kill_the_unicorns/mod/handmade.py), the
bridge played by the test: White sits, Red and Orange get a bot with their seat buttons, Setup counts them. When
the engine's pending decision is Red's the mod asks `bot_move`; whatever move the answer names, the mod makes it
on the table as a player would and then sends the very `legal` request a player's same move sends (the table
read back: cards from the hand on a slot, in the hunt area or on a stock, a token on a unicorn). A refused move
puts the cards back where they came from and the bot is asked once more (another seed); refused again, the seat's
bot is switched off and everyone is told."""

from __future__ import annotations

import json

import pytest

from tests.mod.handtable import answer, connect
from tests.mod.handtable import table as load_table
from tests.games.kill_the_unicorns.mod.handmade import save, setup_snapshot
from tests.mod.luasrc import MOD
from tools.headless.geometry import inside_box
from bridge.luaproject.scriptfolder import expand_includes

CHARACTERS = ["princess", "knight", "wizard"]
RED = 1


def _table(colours):
    """The hand-made save with its XmlUI's includes expanded as the build expands them (the seat buttons)."""
    data = save()
    data["XmlUI"] = expand_includes(data["XmlUI"], [MOD / "kill_the_unicorns", MOD], "ui.xml")
    return load_table(data, colours)


def _requests(t, kind):
    return [m for m in t.sent_custom if m["type"] == kind]


def _run(t, until, seconds=20.0):
    """Run the clock until ``until()``, answering the score panel's requests as the bridge would."""
    answered = set()

    def check():
        for m in _requests(t, "score"):
            if m["id"] not in answered:
                answered.add(m["id"])
                t.fire("onExternalMessage", {"ttsmod": 1, "re": m["id"], "type": "score", "ok": True, "body": {
                    "day": 1, "over": False, "standings": [], "leaders": [], "decided_by": "score"}})
        return until()

    assert t.run_until(check, max_seconds=seconds), t.ui_value("turnStatus")


def _still(t):
    return not any(o.in_motion for o in t.objects)


def _set_up_with_bots():
    """White seated, Red and Orange bots (easy); Setup answered with Red to decide first."""
    t = _table(["White"])
    connect(t)
    for colour in ("Red", "Orange"):
        assert t.ui_visible(f"bot_{colour}") and not t.ui_visible("bot_White")
        t.click(f"bot_{colour}", "White")
        assert t.ui_value(f"bot_{colour}") == f"{colour}: bot (easy)"
    t.click("setupButton", "White")
    snap = setup_snapshot(CHARACTERS)
    snap["pending"] = {"player": RED, "decision": "place_trick"}
    request = answer(t, "setup", {"snapshot": snap, "events": [], "next": snap["pending"]})
    assert request["body"]["players"] == 3
    _run(t, lambda: _requests(t, "bot_move"), seconds=30)
    return t, snap, request["body"]["seed"]


def _objects(t, ids):
    return [next(o for o in t.objects if o.memo_json().get("card", o.memo_json().get("token")) == i) for i in ids]


def _moves(snap):
    red = snap["players"][RED]
    unicorn = red["catch"][0]["unicorn"]
    return {
        "place-trick": ({"action": "place-trick", "player": RED, "card": red["trick_hand"][1], "unicorn": 2,
                         "slot": "below"}, [red["trick_hand"][1]]),
        "open": ({"action": "open", "player": RED, "cards": ["knight-hunt-2", "knight-hunt-7"]},
                 ["knight-hunt-2", "knight-hunt-7"]),
        "buy": ({"action": "buy", "player": RED, "item": "fairy_dust", "cards": ["knight-hunt-4", "knight-hunt-8"],
                 "unicorn": unicorn}, ["knight-hunt-4", "knight-hunt-8"]),
        "pass": ({"action": "pass", "player": RED}, []),
        "choose-trick": ({"action": "choose-trick", "player": RED, "slot": "below"}, []),
        "power": ({"action": "power", "player": RED}, []),
        "decline": ({"action": "decline", "player": RED}, []),
        "skip": ({"action": "skip", "player": RED}, []),
    }


@pytest.mark.parametrize("kind", ["place-trick", "open", "buy", "pass", "choose-trick", "power", "decline",
                                  "skip"])
def test_a_bot_move_is_made_on_the_table_and_asked_as_the_players_move(kind):
    t, snap, setup_seed = _set_up_with_bots()
    with t:
        asked = _requests(t, "bot_move")
        assert len(asked) == 1 and asked[0]["body"]["level"] == "easy"
        body = asked[0]["body"]
        # the table as it lies, with the engine's bookkeeping: Red's decision
        assert body["snapshot"]["pending"] == {"player": RED, "decision": "place_trick"}
        assert sorted(body["snapshot"]["players"][RED]["hand"]) == sorted(snap["players"][RED]["hand"])
        action, moved = _moves(snap)[kind]
        objs = _objects(t, moved)
        stock = [o for o in t.with_tag("ku-token") if o.memo_json()["item"] == "fairy_dust"]
        assert [_in_stock(t, o) for o in stock] == [o.memo_json()["token"] in snap["market"]["fairy_dust"]
                                                   for o in stock]
        answer(t, "bot_move", {"player": RED, "level": "easy", "action": action})
        _run(t, lambda: _requests(t, "legal") and t.settled and _still(t))
        legal = _requests(t, "legal")
        assert len(legal) == 1
        sent = legal[0]["body"]
        assert {**sent["action"], "cards": sorted(sent["action"].get("cards", []))} == \
            {**action, "cards": sorted(action.get("cards", []))}, sent["action"]
        # what the bot moved for it still counts where the engine last had it (as for a player's move)
        assert sorted(sent["snapshot"]["players"][RED]["hand"]) == sorted(snap["players"][RED]["hand"])
        assert sorted(sent["snapshot"]["players"][RED]["trick_hand"]) == sorted(snap["players"][RED]["trick_hand"])
        assert sorted(sent["snapshot"]["market"]["fairy_dust"]) == sorted(snap["market"]["fairy_dust"])
        said = [m for m, c in t.broadcasts if c is None and m.startswith("Red (bot, easy) ")]
        assert len(said) == 1 and "-hunt-" not in said[0] and "-trick-" not in said[0]
        # refused: what it moved goes back (cards to Red's hand, the token to its stock); asked once more
        answer(t, "legal", {"legal": False, "reason": "wrong_decision", "message": "not now"})
        _run(t, lambda: len(_requests(t, "bot_move")) == 2 and _still(t), seconds=30)
        for o in objs:
            assert o in t.hand("Red"), o.memo_json()
        for o in stock:
            assert _in_stock(t, o) == (o.memo_json()["token"] in snap["market"]["fairy_dust"])
        second = _requests(t, "bot_move")[1]["body"]
        assert second["seed"] != body["seed"] and second["snapshot"]["pending"] == body["snapshot"]["pending"]
        # refused twice: Red's bot is off, everyone told, nothing more asked for it
        answer(t, "bot_move", {"player": RED, "level": "easy", "action": action})
        _run(t, lambda: len(_requests(t, "legal")) == 2 and t.settled and _still(t))
        answer(t, "legal", {"legal": False, "reason": "wrong_decision", "message": "not now"})
        _run(t, lambda: any("Red's bot is off" in m for m, _ in t.broadcasts) and _still(t))
        assert t.ui_value("bot_Red") == "Red: no bot"
        t.advance(3)
        assert len(_requests(t, "bot_move")) == 2
        for o in objs:
            assert o in t.hand("Red")
        assert json.loads(t.call_global("test_ledger"))["seed"] == setup_seed
        assert t.errors == []


def _in_stock(t, token) -> bool:
    zone = next(z for z in t.with_tag("ku-market-stock") if z.memo_json()["item"] == token.memo_json()["item"])
    return inside_box(token.position, zone.position, zone.rotation, zone.scale)
