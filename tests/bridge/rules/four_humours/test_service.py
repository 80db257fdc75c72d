"""The bridge requests: end_round rulings, legal checks, scores, and the errors a bad request gets."""

from __future__ import annotations

import json

import pytest

from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.four_humours import new_game
from bridge.rules.four_humours.service import handle_request

from .conftest import MILL_FAIR, on_slots, table


def test_end_round_ruling_is_plain_json_with_every_section(data):
    snap = table(data, scenes={"mill-fair": on_slots(MILL_FAIR, "P1:C P2:S")}, passes=4)
    ruling = handle_request(data, "end_round", {"snapshot": snap})
    assert json.loads(json.dumps(ruling)) == ruling
    assert set(ruling) >= {"round", "round_end_reason", "scenes", "moves", "goals_marked", "parties", "awaiting",
                           "complete", "next_round", "game_over", "events"}
    assert ruling["round_end_reason"] == "all_passed" and ruling["complete"] is True
    assert ruling["next_round"]["round"] == 2 and len(ruling["next_round"]["scenes"]) == 4


def test_end_round_refuses_a_round_that_is_not_over_unless_forced(data):
    snap = table(data, scenes={"mill": []}, hands={0: ["sanguine"]})
    with pytest.raises(IllegalAction) as excinfo:
        handle_request(data, "end_round", {"snapshot": snap})
    assert excinfo.value.reason == "round_not_over"
    assert handle_request(data, "end_round", {"snapshot": snap, "force": True})["round_end_reason"] == "forced"


def test_legal_says_why_not_and_what_follows(data):
    snap = table(data, scenes={"mill": [], "orchard": []}, hands={0: ["melancholic", "sanguine"]})
    wrong = {"action": "place", "player": 0, "humour": "melancholic", "target": {"kind": "scene", "card": "mill", "slot": 0}}
    answer = handle_request(data, "legal", {"snapshot": snap, "action": wrong})
    assert answer["legal"] is False and answer["reason"] == "wrong_humour"
    right = dict(wrong, humour="sanguine")
    answer = handle_request(data, "legal", {"snapshot": snap, "action": right})
    assert answer == {"legal": True, "round_over": False, "round_end_reason": None, "next_player": 1}
    turn = handle_request(data, "legal", {"snapshot": snap, "action": {"action": "pass", "player": 2}})
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
    answer = handle_request(data, "legal", {"snapshot": snap, "action": action})
    assert answer["round_over"] is True and answer["round_end_reason"] == "two_scenes_full"
    assert answer["next_player"] is None


def test_score_reports_standings_and_leaders(sample):
    state = new_game(sample, 3, seed=5)
    answer = handle_request(sample, "score", {"snapshot": state.to_snapshot()})
    assert [s["player"] for s in answer["standings"]] == [0, 1, 2]
    assert answer["leaders"] == [0, 1, 2]  # nobody has anything yet: all share the lead


@pytest.mark.parametrize(
    "kind, body, error, text",
    [
        ("dance", {}, UnknownRequestType, "not 'dance'"),
        ("score", [], InvalidAction, "body must be an object"),
        ("score", {}, SnapshotError, "snapshot: is missing"),
        ("score", {"snapshot": {"players": "x"}}, SnapshotError, "players: must be a list"),
    ],
)
def test_bad_requests_get_narrow_errors(data, kind, body, error, text):
    with pytest.raises(error) as excinfo:
        handle_request(data, kind, body)
    assert text in str(excinfo.value)


def test_a_snapshot_error_names_the_path(data):
    snap = table(data, scenes={"mill": []})
    snap["players"][1]["hand"] = ["bile"]
    with pytest.raises(SnapshotError) as excinfo:
        handle_request(data, "score", {"snapshot": snap})
    assert str(excinfo.value) == 'players[1].hand[0]: "bile" is not a humour'


def test_a_snapshot_missing_potions_is_refused(data):
    snap = table(data, scenes={"mill": []})
    snap["players"][2]["bag"]["choleric"] -= 1
    with pytest.raises(SnapshotError) as excinfo:
        handle_request(data, "score", {"snapshot": snap})
    assert excinfo.value.path == "players[2]"


def test_the_same_snapshot_always_gets_the_same_ruling(data):
    snap = table(data, scenes={"mill-fair": on_slots(MILL_FAIR, "P1:S P2:S P3:M")}, passes=4)
    assert handle_request(data, "end_round", {"snapshot": snap}) == handle_request(data, "end_round", {"snapshot": snap})


def test_a_snapshot_written_by_lua_reads_like_the_json_one(data):
    snap = table(data, scenes={"mill": [None, (1, "sanguine"), None, None]}, hands={0: ["sanguine"]})
    from_lua = json.loads(json.dumps(snap).replace("null", "false"))  # Lua writes empty slots as false
    from_lua["boards"] = []  # and an empty object as an empty list
    assert handle_request(data, "score", {"snapshot": from_lua}) == handle_request(data, "score", {"snapshot": snap})
    action = {"action": "place", "player": 0, "humour": "sanguine", "target": {"kind": "scene", "card": "mill", "slot": 0}}
    assert handle_request(data, "legal", {"snapshot": from_lua, "action": action})["legal"] is True
