"""The 15 Days mod's Setup on a hand-made headless table (tests/games/fifteen_days/mod/handmade.py): what a host sees
after pressing Setup for 2, 3 and 4 seated players (FD-1), and the snapshot the mod reads off that table."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from tests.games.fifteen_days.mod.handmade import COLOURS, game_data, table
from tests.mod import handtable
from tests.mod.handtable import answer
from bridge.catalog import load_game

def _data():
    return load_game("fifteen-days")


def _setup(colours: list[str], seed: int = 1):
    t = table(colours, seed=seed)
    t.click("setupButton", colours[0])
    assert t.run_until(lambda: t.ui_value("turnStatus").endswith(" to play") and
                       not any(o.in_motion for o in t.objects), max_seconds=20)
    return t


def _in(t, zone_guid: str, tag: str = "fd-season") -> list:
    zone = t.object(zone_guid)
    return [o for o in t.in_zone(zone) if tag in o.tags]


def _removed(t) -> list:
    """The season cards set aside (fd-removed), each with what lies on the table for it: the card itself, or the
    deck it formed with the others laid on it (TTS: a card laid on a card forms a deck; each keeps its tags)."""
    out = [(o, o) for o in t.objects if "fd-removed" in o.tags and "fd-season" in o.tags]
    out += [(c, d) for d in t.objects if d.type == "Deck" for c in d.contents
            if "fd-removed" in c.tags and "fd-season" in c.tags]
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_lays_hands_market_discard_piles_and_supplies_for_the_seated_players(players):
    colours = COLOURS[:players]
    with _setup(colours) as t:
        snap = json.loads(t.call_global("test_snapshot"))
        lying = _removed(t)
        removed = [card for card, _ in lying]
        # FD-1.2: with two players, five cards of every back leave the game unseen
        if players == 2:
            assert Counter(o.memo_json()["back"] for o in removed) == {"summer": 5, "autumn": 5, "winter": 5}
            assert all(where.face_down for _, where in lying)
        else:
            assert removed == []
        # FD-1.3: two cards in every hand, one feather on every board
        for colour, player in zip(colours, snap["players"]):
            assert len(t.hand(colour)) == 2 and len(player["hand"]) == 2
            assert player["feathers"] == 1
            assert all(c["cards"] == [] and c["wild"] is False for c in player["corners"])
        assert snap["animals"] == {"otter": False, "frog": False, "squirrel": False, "rabbit": False}
        # FD-1.4: three columns of three face-up cards; FD-1.5: one face-up card on the discard pile
        assert [len(column) for column in snap["market"]] == [3, 3, 3]
        for i in range(3):
            assert all(not o.face_down for o in _in(t, f"col{i}"))
        assert len(snap["discard"]) == 1 and not _in(t, "disc")[0].face_down
        # FD-1.6: the rest in two face-down piles, the larger half on pile 0
        rest = 90 - (15 if players == 2 else 0) - 2 * players - 10
        assert [len(p) for p in snap["draw_piles"]] == [(rest + 1) // 2, rest // 2]
        assert all(o.face_down for o in _in(t, "pile1"))
        assert snap["removed"] == sorted(o.memo_json()["card"] for o in removed)
        # FD-1.7: 2 wilds per player, 5 - players feathers, the four animals in the supply
        assert snap["wild_supply"] == 2 * players and snap["feather_supply"] == 5 - players
        # every season card is somewhere once
        seen = sum(len(p["hand"]) for p in snap["players"]) + sum(len(c) for c in snap["market"]) + \
            len(snap["discard"]) + sum(len(p) for p in snap["draw_piles"]) + len(snap["removed"])
        assert seen == 90
        # the envelope, and the engine reads the table the mod laid as Lua writes it (false for "no value", the
        # bookkeeping the mod cannot know yet left out)
        assert [snap["ttsmod_snapshot"], snap["game"], snap["mode"]] == [1, "fifteen-days", "standard"]
        assert "feathers_out" not in snap
        score = FIFTEEN_DAYS.handle(_data(), "score", {"snapshot": snap})
        assert len(score["standings"]) == players and score["active"] == snap["active"] and score["turn"] == 1
        # FD-1.8: a seated player begins, and the turn bookkeeping says who
        ledger = json.loads(t.call_global("test_ledger"))
        first = ledger["snapshot"]["active"]
        assert t.ui_value("turnStatus") == f"{colours[first]} to play"
        assert t.ui_attribute("actionPanel", "active") == "true"
        assert t.ui_attribute("setupButton", "active") == "false"


def test_setup_shuffles_the_deck_differently_for_different_tables():
    markets = []
    for seed in (1, 2):
        with _setup(COLOURS[:2], seed=seed) as t:
            markets.append(json.loads(t.call_global("test_snapshot"))["market"])
    assert markets[0] != markets[1]


def test_setup_refuses_one_player_and_changes_nothing():
    with table(["White"]) as t:
        t.click("setupButton", "White")
        t.advance(1)
        assert any("Seat 2 to 4 players" in m for m, _ in t.broadcasts)
        assert t.ui_value("turnStatus") == "Seat 2 to 4 players, then press Setup."
        assert len(t.object("deck").contents) == 90


def test_the_score_panel_shows_the_bridges_score_after_setup():
    with _setup(COLOURS[:2]) as t:
        t.fire("onExternalMessage", {"ttsmod": 1, "re": t.sent_custom[0]["id"], "type": "hello", "ok": True,
                                     "body": {"bridge": "1.0"}})
        assert t.ui_value("bridgeStatus") == "bridge connected (ttsmod 1.0)"
        request = answer(t, "score", {"standings": [
            {"player": 0, "score": -8, "runs": 0, "animals": 0, "empty_corners": 4},
            {"player": 1, "score": -8, "runs": 0, "animals": 0, "empty_corners": 4}]})
        assert request["game"] == "fifteen-days"
        assert [len(p["hand"]) for p in request["body"]["snapshot"]["players"]] == [2, 2]
        assert t.ui_value("scoreRound") == "Scores now"
        assert t.ui_value("scoreRow1") == "White: -8 (runs 0, animals 0, empty corners 4)"
        assert t.ui_value("scoreRow2") == "Red: -8 (runs 0, animals 0, empty corners 4)"
        assert t.ui_attribute("scoreRow3", "active") == "false"


def test_a_table_saved_by_the_mod_before_lib_play_loads_and_plays_on():
    """A ledger of the older mod (its engine bookkeeping in `turn` and `wilds_played`, `rulings`, phase `ended`
    at the end) is read once: the same turn, whose it is, and the same bookkeeping sent with the snapshot."""
    with _setup(COLOURS[:3]) as t:
        saved = t.save()
        now = json.loads(t.call_global("test_snapshot"))
    state = json.loads(saved["LuaScriptState"])
    new = state["ledger"]
    kept = new.pop("snapshot")
    old = {**{k: v for k, v in new.items() if k not in ("next", "moves")},
           "turn": {k: v for k, v in kept.items() if k != "players"},
           "wilds_played": [None, None, None], "rulings": 0, "ruling": None}
    first = old["turn"]["active"]
    with _reload(json.dumps({"ledger": old}), saved["ObjectStates"]) as again:
        again.advance(1)
        assert again.ui_value("turnStatus") == f"{COLOURS[first]} to play"
        assert again.ui_attribute("actionPanel", "active") == "true"
        ledger = json.loads(again.call_global("test_ledger"))
        assert ledger["phase"] == "play" and ledger["next"]["player"] == first and "turn" not in ledger
        assert json.loads(again.call_global("test_snapshot")) == now


def _reload(script_state: str, objects: list):
    """The mod loaded with ``script_state`` over ``objects`` (a saved table), three players seated."""
    save = handtable.save("fifteen_days", "fifteen-days", game_data(), objects, script_state)
    return handtable.table(save, COLOURS[:3])
