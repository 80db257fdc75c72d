"""15 Days engine beyond the worked examples: setup (FD-1), actions as text and JSON, hidden information
(FD-7), snapshots read back or refused with their path, and the bridge requests."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.fifteen_days import FIFTEEN_DAYS
from bridge.rules.fifteen_days.actions import Action, Draw, EndTurn, Face, Feather, Play, Take, TakeWild
from bridge.rules.fifteen_days.state import GameState, new_game
from tests.games.fifteen_days.rules.tables import Table, face


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_deals_hands_market_discard_piles_and_supplies(fd_data, players):
    state = new_game(fd_data, players, seed=5)
    assert [len(s.hand) for s in state.seats] == [2] * players
    assert [s.feathers for s in state.seats] == [1] * players
    assert [len(c) for c in state.market] == [3, 3, 3] and len(state.discard) == 1
    assert state.wild_supply == 2 * players and state.feather_supply == 5 - players
    assert set(state.owner.values()) == {None}
    in_play = 90 - len(state.removed)
    sizes = [len(p) for p in state.piles]
    assert sum(sizes) == in_play - 2 * players - 10 and sizes[0] - sizes[1] in (0, 1)
    if players == 2:
        assert Counter(state.t.back[c] for c in state.removed) == {"summer": 5, "autumn": 5, "winter": 5}
    else:
        assert state.removed == []
    assert state.actions_left == 2 and state.to_move() in range(players)


def test_the_seed_decides_the_deal_and_the_first_player(fd_data):
    firsts = {new_game(fd_data, 4, seed=seed).active for seed in range(20)}
    assert firsts == {0, 1, 2, 3}
    assert new_game(fd_data, 3, seed=8).to_snapshot() == new_game(fd_data, 3, seed=8).to_snapshot()
    assert new_game(fd_data, 3, seed=8).to_snapshot() != new_game(fd_data, 3, seed=9).to_snapshot()


def test_setup_refuses_a_player_count_outside_two_to_four(fd_data):
    with pytest.raises(InvalidAction, match="2-4 players"):
        new_game(fd_data, 5)


@pytest.mark.parametrize("text", [
    "draw 0 1", "take 2 column:1", "take 1 discard", "refill 3 0", "wild 0 autumn-5 summer-2", "put-wild 1 3 4",
    "play 0 summer-3 0", "pay 2 spring-6", "done 1", "feather 0 squirrel", "discard 3 winter-6", "end 0", "pass 1",
])
def test_every_action_kind_reads_back_from_text_and_json(text):
    action = Action.from_text(text)
    assert str(action) == text
    assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action


@pytest.mark.parametrize("text, message", [
    ("", "cannot read"), ("fly 0", "unknown action"), ("draw x 1", "player must be an integer"),
    ("play 0 summer 0", "expected <season>-<value>"), ("play 0 autumn-3", "takes 2 argument"),
    ("take 0 pile:1", "column:<n> or discard"), ("feather 0 bear", "animal must be one of"), ("wild 0", "cards"),
])
def test_bad_action_text_is_refused_with_the_reason(text, message):
    with pytest.raises(InvalidAction, match=message):
        Action.from_text(text)


@pytest.mark.parametrize("value, message", [
    ([], "JSON object"), ({"action": "play", "player": 0, "card": {"season": "summer"}, "corner": 0}, "card.value"),
    ({"action": "take", "player": 0}, "take needs a column"), ({"action": "draw", "player": True, "pile": 0}, "player"),
])
def test_bad_action_json_is_refused_with_the_reason(value, message):
    with pytest.raises(InvalidAction, match=message):
        Action.from_json(value)


def test_a_wild_names_its_cards_in_one_order():
    assert TakeWild(0, (Face("summer", 2), Face("autumn", 5))) == Action.from_text("wild 0 summer-2 autumn-5")


def test_views_hide_hand_and_pile_faces_but_show_the_top_backs(fd_data):
    state = new_game(fd_data, 3, seed=2)
    view = state.view(1)
    ids = set(state.t.ids)
    assert view["players"][1]["hand"] == [state.t.ids[c] for c in state.seats[1].hand]
    assert view["players"][0]["hand"] == 2 and view["players"][2]["hand"] == 2
    assert view["draw_piles"] == [{"size": len(p), "top_back": state.t.back[p[-1]]} for p in state.piles]
    hidden = {state.t.ids[c] for p in state.piles for c in p} | {state.t.ids[c] for c in state.seats[0].hand}
    assert not hidden & _strings(view) and "rng" not in view
    assert ids & _strings(view)


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def test_a_draw_event_names_the_pile_not_the_card(fd_data):
    state = new_game(fd_data, 2, seed=3)
    top = state.t.ids[state.piles[0][-1]]
    events = state.apply(Draw(state.active, 0))
    assert top not in json.dumps([e.to_json() for e in events])
    assert events[-1].to_json() == {"event": "card_drawn", "player": state.active, "pile": 0,
                                    "pile_left": len(state.piles[0])}


def test_redeal_keeps_the_viewers_view_and_every_back(fd_data):
    state = new_game(fd_data, 4, seed=4)
    other = FIFTEEN_DAYS.redeal_hidden(state, 2, seed=9)
    assert other.to_snapshot() != state.to_snapshot()
    assert other.view(2) == state.view(2)
    assert [[state.t.back[c] for c in p] for p in other.piles] == [[state.t.back[c] for c in p] for p in state.piles]


def test_only_the_active_player_acts(fd_data):
    state = new_game(fd_data, 3, seed=1)
    waiting = (state.active + 1) % 3
    with pytest.raises(IllegalAction) as refused:
        state.apply(Draw(waiting, 0))
    assert refused.value.reason == "not_your_turn"


def test_a_decision_in_progress_must_be_finished_first(fd_data):
    state = Table(fd_data).hand(0, ["summer-1", "summer-2"]).state
    state.apply(Draw(0, 0))
    with pytest.raises(IllegalAction) as refused:
        state.apply(Take(0, 0))
    assert refused.value.reason == "decision_pending" and "face-down draw" in str(refused.value)


def test_a_feather_lends_a_power_only_for_the_next_action(fd_data):
    state = Table(fd_data, active=1).hand(1, []).state
    state.apply(Feather(1, "rabbit"))
    assert Feather(1, "frog") not in state.legal_actions()          # one lent power at a time
    state.apply(Draw(1, 0))
    state.apply(Draw(1, 0))
    assert state.pending is None and state.power is None and state.boost is None
    state.apply(Take(1, 0))
    assert state.pending is None and state.actions_left == 0        # the rabbit's power was not kept


# ------------------------------------------------------------------------------------------------ snapshots

def test_a_snapshot_reads_back_through_json_text(fd_data):
    state = Table(fd_data).hand(0, ["summer-1", "autumn-2", "winter-3"]).state
    state.apply(Play(0, face("summer-1"), 0))
    snapshot = json.loads(json.dumps(state.to_snapshot()))
    again = GameState.from_snapshot(fd_data, snapshot)
    assert again.to_snapshot() == state.to_snapshot() and again.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("change, path", [
    # a card in two places is refused where the snapshot's order (discard before players) meets it again:
    (lambda s: s["players"][0]["hand"].append(s["discard"][0]), "players[0].hand[2]"),   # "... is also at discard[0]"
    (lambda s: s["players"][1].update(feathers="one"), "players[1].feathers"),
    (lambda s: s["market"].pop(), "market"),
    (lambda s: s["players"][0]["corners"][0].update(cards=["no-such-card"]), "players[0].corners[0].cards[0]"),
    (lambda s: s["animals"].update(frog=7), "animals.frog"),
    (lambda s: s.update(wild_supply=s["wild_supply"] + 1), "wild_supply"),
    (lambda s: s.update(pending={"kind": "dance"}), "pending.kind"),
    (lambda s: s["draw_piles"][0].pop(), ""),
])
def test_a_bad_snapshot_is_refused_naming_where(fd_data, change, path):
    snapshot = new_game(fd_data, 2, seed=1).to_snapshot()
    change(snapshot)
    with pytest.raises(SnapshotError) as refused:
        GameState.from_snapshot(fd_data, snapshot)
    assert refused.value.path == path


# ------------------------------------------------------------------------------------------------ requests

def test_legal_refuses_with_reason_and_message_and_changes_nothing(fd_data):
    state = Table(fd_data).corner(0, 0, ["summer-3", "summer-4"]).hand(0, ["summer-4", "autumn-1"]).state
    snapshot = state.to_snapshot()
    answer = FIFTEEN_DAYS.handle(fd_data, "legal", {"snapshot": snapshot,
                                                    "action": Play(0, face("summer-4"), 0).to_json()})
    assert answer == {"legal": False, "reason": "duplicate_value",
                      "message": "corner 0 already holds a 4 (FD-3.3)"}


def test_legal_answers_the_ruling_and_the_next_decision(fd_data):
    state = Table(fd_data).corner(0, 0, ["summer-3"]).hand(0, ["summer-5", "autumn-1"]).state
    answer = FIFTEEN_DAYS.handle(fd_data, "legal", {"snapshot": state.to_snapshot(),
                                                    "action": {"action": "play", "player": 0,
                                                               "card": {"season": "summer", "value": 5}, "corner": 0}})
    assert answer["legal"] is True
    assert [e["event"] for e in answer["events"]] == ["action_started", "card_played"]
    assert answer["next"]["player"] == 0 and answer["next"]["pending"] == "play"
    assert {"action": "pay", "player": 0, "card": {"season": "autumn", "value": 1}} in answer["next"]["legal"]
    after = GameState.from_snapshot(fd_data, answer["snapshot"])
    assert sorted(after.seats[0].corners[0].cards) == [3, 5] and answer["game_over"] is None


def test_apply_runs_actions_in_order_and_names_a_refused_one(fd_data):
    state = Table(fd_data).hand(0, ["summer-5", "autumn-1"]).state
    snapshot = state.to_snapshot()
    actions = [{"action": "play", "player": 0, "card": {"season": "summer", "value": 5}, "corner": 0},
               {"action": "pay", "player": 0, "card": {"season": "autumn", "value": 1}}]
    ruling = FIFTEEN_DAYS.handle(fd_data, "apply", {"snapshot": snapshot, "actions": actions})
    assert ruling["next"] == {"player": 0, "pending": None, "actions_left": 1,
                              "legal": ruling["next"]["legal"]} and ruling["next"]["legal"]
    with pytest.raises(IllegalAction, match=r"actions\[1\]") as refused:
        FIFTEEN_DAYS.handle(fd_data, "apply", {"snapshot": snapshot, "actions": [actions[0], actions[0]]})
    assert refused.value.reason == "decision_pending" or refused.value.reason == "not_in_hand"


def test_score_gives_standings_with_tie_break_figures_and_leaders(fd_data):
    table = Table(fd_data).corner(1, 0, ["summer-1", "summer-2"]).owner("rabbit", 1)
    answer = FIFTEEN_DAYS.handle(fd_data, "score", {"snapshot": table.state.to_snapshot()})
    assert answer["standings"][1] == {"player": 1, "score": 2 + 2 - 6, "runs": [2, 0, 0, 0], "animals": ["rabbit"],
                                      "empty_corners": 3, "hand": 0, "wilds": 0}
    assert answer["leaders"] == [1] and answer["decided_by"] == "score" and answer["over"] is None


def test_setup_request_deals_a_table_the_other_requests_accept(fd_data):
    answer = FIFTEEN_DAYS.handle(fd_data, "setup", {"players": 3, "seed": 12})
    assert GameState.from_snapshot(fd_data, answer["snapshot"]).to_snapshot() == answer["snapshot"]
    assert answer["next"]["player"] == answer["snapshot"]["active"]
    first = answer["next"]["legal"][0]
    assert FIFTEEN_DAYS.handle(fd_data, "legal", {"snapshot": answer["snapshot"], "action": first})["legal"]


@pytest.mark.parametrize("kind, body, error", [
    ("ruling", {}, UnknownRequestType), ("score", ["a list"], InvalidAction),
    ("score", [], SnapshotError),            # Lua's empty body: {} without a snapshot
    ("score", {}, SnapshotError), ("setup", {"players": "4"}, InvalidAction),
    ("setup", {"players": 5}, InvalidAction), ("apply", {"snapshot": "S", "actions": []}, InvalidAction),
    ("apply", {"snapshot": {}, "actions": []}, SnapshotError),      # no envelope
])
def test_bad_requests_are_refused(fd_data, kind, body, error):
    if isinstance(body, dict) and body.get("snapshot") == "S":
        body = {**body, "snapshot": new_game(fd_data, 2, seed=1).to_snapshot()}
    with pytest.raises(error):
        FIFTEEN_DAYS.handle(fd_data, kind, body)


def test_choice_json_is_refused_every_choice_is_an_action(fd_data):
    with pytest.raises(InvalidAction, match="as an action"):
        FIFTEEN_DAYS.choice_json(fd_data, 0, "anything")


def test_end_turn_passes_to_the_next_seat_clockwise(fd_data):
    state = Table(fd_data, players=3, active=2).state
    state.actions_left = 0
    events = state.apply(EndTurn(2))
    assert state.active == 0 and state.actions_left == 2 and state.turn == 2
    assert [e.to_json()["event"] for e in events] == ["turn_ended", "turn_started"]
