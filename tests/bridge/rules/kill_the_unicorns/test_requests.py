"""The bridge requests: setup, legal, apply and score, and what each refuses."""

from __future__ import annotations

import pytest

from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.kill_the_unicorns.service import handle_request


def test_setup_with_chosen_characters_and_at_random(ku_data):
    reply = handle_request(ku_data, "setup", {"players": 4, "seed": 3, "characters": ["bard", "knight", "wizard",
                                                                                      "shaman"]})
    assert [p["character"] for p in reply["snapshot"]["players"]] == ["bard", "knight", "wizard", "shaman"]
    assert reply["next"]["decision"] == "place_trick" and reply["next"]["legal"]
    assert [e["event"] for e in reply["events"]][:2] == ["first_player", "day_started"]
    dealt = handle_request(ku_data, "setup", {"players": 3, "seed": 3, "characters": False})
    assert len({p["character"] for p in dealt["snapshot"]["players"]}) == 3
    with pytest.raises(InvalidAction):
        handle_request(ku_data, "setup", {"players": 3, "seed": 3, "characters": ["bard", "bard", "knight"]})
    with pytest.raises(InvalidAction):
        handle_request(ku_data, "setup", {"players": 8, "seed": 3})


def test_legal_refuses_with_a_reason_and_rules_when_allowed(ku_data):
    setup = handle_request(ku_data, "setup", {"players": 3, "seed": 5})
    seat = setup["next"]["player"]
    wrong = {"action": "pass", "player": (seat + 1) % 3}
    assert handle_request(ku_data, "legal", {"snapshot": setup["snapshot"], "action": wrong})["reason"] == \
        "not_your_turn"
    ok = handle_request(ku_data, "legal", {"snapshot": setup["snapshot"], "action": setup["next"]["legal"][0]})
    assert ok["legal"] and ok["events"][0]["event"] == "trick_placed" and ok["game_over"] is None
    # placed tricks are never named in events
    assert "card" not in ok["events"][0]


def test_apply_runs_actions_in_order_and_names_a_refused_one(ku_data):
    setup = handle_request(ku_data, "setup", {"players": 3, "seed": 5})
    first = setup["next"]["legal"][0]
    ruling = handle_request(ku_data, "apply", {"snapshot": setup["snapshot"], "actions": [first]})
    second = ruling["next"]["legal"][0]
    both = handle_request(ku_data, "apply", {"snapshot": setup["snapshot"], "actions": [first, second]})
    assert both["snapshot"] == handle_request(ku_data, "apply", {"snapshot": ruling["snapshot"],
                                                                 "actions": [second]})["snapshot"]
    with pytest.raises(IllegalAction, match=r"actions\[1\]"):
        handle_request(ku_data, "apply", {"snapshot": setup["snapshot"], "actions": [first, first]})


def test_score_and_bad_requests(ku_data):
    setup = handle_request(ku_data, "setup", {"players": 3, "seed": 5})
    score = handle_request(ku_data, "score", {"snapshot": setup["snapshot"]})
    assert score["day"] == 1 and not score["over"] and len(score["standings"]) == 3
    assert all(s["unicorns"] == 1 for s in score["standings"])
    with pytest.raises(UnknownRequestType):
        handle_request(ku_data, "undo", {})
    with pytest.raises(SnapshotError, match="snapshot"):
        handle_request(ku_data, "score", {})
    broken = dict(setup["snapshot"], players=[dict(setup["snapshot"]["players"][0], hand=["princess-hunt-99"])]
                  + setup["snapshot"]["players"][1:])
    with pytest.raises(SnapshotError, match=r"players\[0\]\.hand\[0\]"):
        handle_request(ku_data, "score", {"snapshot": broken})
