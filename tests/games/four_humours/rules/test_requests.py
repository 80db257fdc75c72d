"""The requests of Four Humours through the one contract (bridge/rules/contract.py): end_round rulings, legal
checks and what the mod reads of them, setup and apply, scores, and the errors a bad request gets."""

from __future__ import annotations

import json

import pytest

from bridge.rules.contract import SHARED_REQUEST_TYPES
from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.four_humours import new_game
from bridge.rules.four_humours.game import FOUR_HUMOURS

from .conftest import MILL_FAIR, ask, on_slots, read, table


def test_end_round_comes_first_then_the_shared_requests():
    assert FOUR_HUMOURS.request_types == ("end_round", *SHARED_REQUEST_TYPES)


def test_end_round_ruling_is_plain_json_with_every_section(data):
    snap = table(data, scenes={"mill-fair": on_slots(MILL_FAIR, "P1:C P2:S")}, passes=4)
    ruling = ask(data, "end_round", {"snapshot": snap})
    assert json.loads(json.dumps(ruling)) == ruling
    assert set(ruling) >= {"round", "round_end_reason", "scenes", "moves", "goals_marked", "parties", "awaiting",
                           "complete", "next_round", "game_over", "events"}
    assert ruling["round_end_reason"] == "all_passed" and ruling["complete"] is True
    assert ruling["next_round"]["round"] == 2 and len(ruling["next_round"]["scenes"]) == 4


def test_end_round_refuses_a_round_that_is_not_over_unless_forced(data):
    snap = table(data, scenes={"mill": []}, hands={0: ["sanguine"]})
    with pytest.raises(IllegalAction) as excinfo:
        ask(data, "end_round", {"snapshot": snap})
    assert excinfo.value.reason == "round_not_over"
    assert ask(data, "end_round", {"snapshot": snap, "force": True})["round_end_reason"] == "forced"


def test_legal_says_why_not_and_what_follows(data):
    snap = table(data, scenes={"mill": [], "orchard": []}, hands={0: ["melancholic", "sanguine"]})
    wrong = {"action": "place", "player": 0, "humour": "melancholic", "target": {"kind": "scene", "card": "mill", "slot": 0}}
    answer = ask(data, "legal", {"snapshot": snap, "action": wrong})
    assert answer["legal"] is False and answer["reason"] == "wrong_humour"
    right = dict(wrong, humour="sanguine")
    answer = ask(data, "legal", {"snapshot": snap, "action": right})
    assert answer["legal"] is True
    assert (answer["round_over"], answer["round_end_reason"], answer["next_player"]) == (False, None, 1)
    assert answer["next"]["player"] == 1 and answer["game_over"] is None
    assert [e["event"] for e in answer["events"]] == ["potion_placed", "potions_drawn"]   # FH-3.7
    assert answer["snapshot"] == ask(data, "apply", {"snapshot": snap, "actions": [right]})["snapshot"]
    turn = ask(data, "legal", {"snapshot": snap, "action": {"action": "pass", "player": 2}})
    assert turn["legal"] is False and turn["reason"] == "not_your_turn"


def test_legal_announces_the_round_end_a_placement_causes(data):
    snap = table(
        data,
        scenes={
            "bridgeford": [(1, "choleric"), (2, "sanguine"), (3, "sanguine")],
            "orchard": [(1, "sanguine"), (2, "melancholic"), None],  # the nun is free
        },
        hands={0: ["phlegmatic"]},
    )
    action = {"action": "place", "player": 0, "humour": "phlegmatic", "target": {"kind": "scene", "card": "orchard", "slot": 2}}
    answer = ask(data, "legal", {"snapshot": snap, "action": action})
    assert answer["round_over"] is True and answer["round_end_reason"] == "two_scenes_full"
    assert answer["next_player"] is None


def test_score_reports_standings_and_leaders(sample):
    state = new_game(sample, 3, seed=5)
    answer = ask(sample, "score", {"snapshot": state.to_snapshot()})
    assert [s["player"] for s in answer["standings"]] == [0, 1, 2]
    assert answer["leaders"] == [0, 1, 2]  # nobody has anything yet: all share the lead


@pytest.mark.parametrize(
    "kind, body, error, text",
    [
        ("dance", {}, UnknownRequestType, "not 'dance'"),
        ("score", "snapshot", InvalidAction, "body must be an object"),
        ("score", [], SnapshotError, "snapshot: is missing"),   # Lua's empty table is an empty body
        ("score", {}, SnapshotError, "snapshot: is missing"),
        ("score", {"snapshot": {"players": []}}, SnapshotError, "ttsmod_snapshot: is missing"),
        ("score", {"snapshot": {"ttsmod_snapshot": 1, "game": "four-humours", "mode": "kingdom", "players": "x"}},
         SnapshotError, "players: must be a list"),
        ("end_round", {"snapshot": {"ttsmod_snapshot": 1, "game": "another-game", "mode": "kingdom"}},
         SnapshotError, "another game's snapshot"),
    ],
)
def test_bad_requests_get_narrow_errors(data, kind, body, error, text):
    with pytest.raises(error) as excinfo:
        ask(data, kind, body)
    assert text in str(excinfo.value)


def test_a_snapshot_error_names_the_path(data):
    snap = table(data, scenes={"mill": []})
    snap["players"][1]["hand"] = ["bile"]
    with pytest.raises(SnapshotError) as excinfo:
        ask(data, "score", {"snapshot": snap})
    assert str(excinfo.value) == 'players[1].hand[0]: "bile" is not a humour'


def test_a_snapshot_missing_potions_is_refused(data):
    snap = table(data, scenes={"mill": []})
    snap["players"][2]["bag"]["choleric"] -= 1
    with pytest.raises(SnapshotError) as excinfo:
        ask(data, "score", {"snapshot": snap})
    assert excinfo.value.path == "players[2]"


def test_the_same_snapshot_always_gets_the_same_ruling(data):
    snap = table(data, scenes={"mill-fair": on_slots(MILL_FAIR, "P1:S P2:S P3:M")}, passes=4)
    assert ask(data, "end_round", {"snapshot": snap}) == ask(data, "end_round", {"snapshot": snap})


def test_a_snapshot_written_by_lua_reads_like_the_json_one(data):
    snap = table(data, scenes={"mill": [None, (1, "sanguine"), None, None]}, hands={0: ["sanguine"]})
    from_lua = json.loads(json.dumps(snap).replace("null", "false"))  # Lua writes empty slots as false
    from_lua["boards"] = []  # and an empty object as an empty list
    assert ask(data, "score", {"snapshot": from_lua}) == ask(data, "score", {"snapshot": snap})
    action = {"action": "place", "player": 0, "humour": "sanguine", "target": {"kind": "scene", "card": "mill", "slot": 0}}
    assert ask(data, "legal", {"snapshot": from_lua, "action": action})["legal"] is True


def test_setup_deals_the_first_round_and_says_who_places_first(sample):
    answer = ask(sample, "setup", {"players": 3, "seed": 5, "mode": "fief"})
    assert answer["snapshot"] == new_game(sample, 3, mode="fief", seed=5).to_snapshot()
    assert answer["events"] == []
    first = answer["snapshot"]["active_player"]
    assert answer["next"]["player"] == first
    assert {"action": "pass", "player": first} in answer["next"]["legal"]


def test_apply_plays_actions_in_order_and_names_the_one_refused(data):
    snap = table(data, scenes={"mill": [], "orchard": []}, hands={0: ["sanguine"], 1: ["sanguine"]})
    place = {"action": "place", "player": 0, "humour": "sanguine", "target": {"kind": "scene", "card": "mill", "slot": 0}}
    ruling = ask(data, "apply", {"snapshot": snap, "actions": [place, "pass 1"]})
    assert [e["event"] for e in ruling["events"]] == ["potion_placed", "potions_drawn", "passed"]
    assert ruling["next_player"] == ruling["next"]["player"] == 2
    with pytest.raises(IllegalAction) as excinfo:
        ask(data, "apply", {"snapshot": snap, "actions": [place, dict(place, player=1)]})
    assert excinfo.value.reason == "slot_taken" and str(excinfo.value).startswith("actions[1]: ")


def test_the_bookkeeping_left_out_is_derived_from_the_table(data):
    """The mod may leave out what the engine keeps for itself: the turn count and the seats that passed follow
    from the passes in a row, the round's starter from the turns taken, the resolved parties from the row."""
    snap = table(data, scenes={"mill": []}, hands={0: ["sanguine"]}, active=3, passes=2, last_actor=2,
                 resolved=["harvest-festival"])
    snap["turn"] = 3
    state = read(data, snap)
    assert state.passed_this_round == {1, 2} and state.round_starter == 0
    assert state.resolved_parties == ["harvest-festival"]
    del snap["resolved_parties"], snap["last_actor"]
    state = read(data, snap)
    assert state.last_actor == 2 and state.passed_this_round == {1, 2}
    assert state.resolved_parties == [p.id for p in sorted(data.parties, key=lambda p: p.order)
                                      if p.id not in {entry["party"] for entry in snap["parties"]}]


def test_a_redraw_or_a_choice_out_of_place_is_refused_for_its_own_cause(data):
    snap = table(data, scenes={"mill": []}, hands={0: ["choleric"] * 4, 1: ["sanguine"]}, active=1)
    assert ask(data, "legal", {"snapshot": snap, "action": "redraw 0"})["legal"] is True   # at any moment
    redraw = ask(data, "legal", {"snapshot": snap, "action": "redraw 1"})
    assert redraw["legal"] is False and redraw["reason"] == "no_redraw"
    choose = ask(data, "legal", {"snapshot": snap, "action": "choose 1 mill"})
    assert choose["legal"] is False and choose["reason"] == "nothing_to_choose"


def test_a_redraw_that_could_only_draw_the_same_four_is_refused_for_that(data):
    snap = table(data, scenes={"mill": []}, hands={0: ["choleric"] * 4}, bag_limit={0: 0})
    answer = ask(data, "legal", {"snapshot": snap, "action": "redraw 0"})
    assert answer["reason"] == "nothing_to_redraw"
