"""The bridge requests as Kill the Unicorns answers them through the one contract (bridge/rules/contract.py):
setup with its characters, legal and apply (JSON and text forms), score, what each refuses and why."""

from __future__ import annotations

import pytest

from bridge.rules.errors import IllegalAction, InvalidAction, SnapshotError, UnknownRequestType
from bridge.rules.kill_the_unicorns import KILL_THE_UNICORNS
from bridge.rules.kill_the_unicorns.state import GameState
from tests.games.kill_the_unicorns.rules.tables import at_hunt, hunt, with_rules


def request(data, request_type: str, body) -> dict:
    return KILL_THE_UNICORNS.handle(data, request_type, body)


def test_setup_is_the_first_request_type_then_the_shared_ones():
    assert KILL_THE_UNICORNS.request_types == ("setup", "legal", "apply", "score", "bot_move")


def test_setup_with_chosen_characters_and_at_random(ku_data):
    reply = request(ku_data, "setup", {"players": 4, "seed": 3, "characters": ["bard", "knight", "wizard",
                                                                             "shaman"]})
    assert [p["character"] for p in reply["snapshot"]["players"]] == ["bard", "knight", "wizard", "shaman"]
    assert reply["next"]["decision"] == "place_trick" and reply["next"]["legal"]
    assert [e["event"] for e in reply["events"]][:2] == ["first_player", "day_started"]
    # null, false (Lua's nil in a table) and absent all deal the characters at random, the same for one seed
    dealt = [request(ku_data, "setup", body)["snapshot"] for body in (
        {"players": 3, "seed": 3, "characters": None}, {"players": 3, "seed": 3, "characters": False},
        {"players": 3, "seed": 3})]
    assert dealt[0] == dealt[1] == dealt[2]
    assert len({p["character"] for p in dealt[0]["players"]}) == 3


def test_setup_refuses_a_bad_character_list_or_player_count(ku_data):
    for characters in (["bard", "bard", "knight"], ["bard", "knight"], ["bard", "knight", "unicorn"], "bard",
                       [1, 2, 3]):
        with pytest.raises(InvalidAction):
            request(ku_data, "setup", {"players": 3, "seed": 3, "characters": characters})
    with pytest.raises(InvalidAction, match="players must be an integer from 3 to 7, not 8"):
        request(ku_data, "setup", {"players": 8, "seed": 3})
    with pytest.raises(InvalidAction, match="mode"):
        request(ku_data, "setup", {"players": 3, "seed": 3, "mode": "fief"})


def test_every_snapshot_starts_with_the_envelope_and_reads_back_exactly(ku_data):
    snapshot = request(ku_data, "setup", {"players": 3, "seed": 7})["snapshot"]
    assert list(snapshot)[:3] == ["ttsmod_snapshot", "game", "mode"]
    assert (snapshot["ttsmod_snapshot"], snapshot["game"], snapshot["mode"]) == (1, "kill-the-unicorns", "standard")
    assert GameState.from_snapshot(ku_data, snapshot).to_snapshot() == snapshot


def test_another_games_snapshot_or_a_snapshot_without_the_envelope_is_refused(ku_data):
    snapshot = request(ku_data, "setup", {"players": 3, "seed": 7})["snapshot"]
    with pytest.raises(SnapshotError, match="^game: \"another-game\" is another game's"):
        request(ku_data, "score", {"snapshot": dict(snapshot, game="another-game")})
    for key in ("ttsmod_snapshot", "game", "mode"):
        with pytest.raises(SnapshotError, match=f"^{key}: is missing"):
            request(ku_data, "score", {"snapshot": {k: v for k, v in snapshot.items() if k != key}})


def test_the_table_as_lua_writes_it_gets_the_same_answer(ku_data):
    """Whole floats, no random state, ``hunt`` and ``pending`` left out where they are null: the same ruling."""
    setup = request(ku_data, "setup", {"players": 3, "seed": 7})
    snapshot, action = setup["snapshot"], setup["next"]["legal"][0]
    ruling = request(ku_data, "apply", {"snapshot": snapshot, "actions": [action]})
    lua = {k: (float(v) if isinstance(v, int) and k in ("day", "first") else v)
           for k, v in snapshot.items() if k != "hunt"}
    lua["players"] = [dict(p, power_uses=float(p["power_uses"])) for p in snapshot["players"]]
    as_float = dict(action, player=float(action["player"]))
    assert request(ku_data, "apply", {"snapshot": lua, "actions": [as_float]}) == ruling
    # without rng the table gets the random state seeded from its content: the same every time
    unseeded = {k: v for k, v in snapshot.items() if k != "rng"}
    first = request(ku_data, "apply", {"snapshot": unseeded, "actions": [action]})
    assert first == request(ku_data, "apply", {"snapshot": unseeded, "actions": [action]})


def test_a_null_hunt_or_pending_is_refused_where_the_table_has_one(ku_data):
    snapshot = at_hunt(ku_data, 3).to_snapshot()
    with pytest.raises(SnapshotError, match="^hunt: must be an object during the hunt phase"):
        request(ku_data, "score", {"snapshot": {k: v for k, v in snapshot.items() if k != "hunt"}})
    with pytest.raises(SnapshotError, match="^pending: must be null exactly when the game is over"):
        request(ku_data, "score", {"snapshot": dict(snapshot, pending=False)})


def _moved(snapshot, take, put):
    """The snapshot with the first id of list ``take`` put also at the front of list ``put`` (paths as tuples)."""
    def at(path):
        node = snapshot
        for key in path:
            node = node[key]
        return node
    at(put).insert(0, at(take)[0])
    return snapshot


@pytest.mark.parametrize("change, path, message", [
    # an id met a second time is refused there, in the snapshot's key order (a catch before the player's tokens)
    (lambda s: _moved(s, ("players", 0, "hand"), ("players", 1, "hand")),
     "players[1].hand[0]", '"princess-hunt-1" is also at players[0].hand[0]'),
    (lambda s: _moved(s, ("market", "pate"), ("players", 0, "catch", 0, "tokens")) and
     _moved(s, ("market", "pate"), ("players", 0, "tokens")),
     "players[0].tokens[0]", '"pate-1" is also at players[0].catch[0].tokens[0]'),
    (lambda s: _moved(s, ("line",), ("box",)), "box[0]", '"green-4" is also at line[0]'),
    (lambda s: s["players"][1].update(character="princess"), "players[1].character",
     '"princess" is also at players[0].character'),
    (lambda s: s["players"][0]["catch"][0].update(unicorn="no-such-unicorn"), "players[0].catch[0].unicorn",
     '"no-such-unicorn" is not a unicorn id'),
    (lambda s: s["players"][0].update(power_uses="1"), "players[0].power_uses", "must be an integer"),
    (lambda s: s.update(players="three"), "players", "must be a list"),
    (lambda s: s["players"].pop(), "players", "must list 3 to 7 players"),
    (lambda s: s["line"].__setitem__(1, "no-such-unicorn"), "line[1]", '"no-such-unicorn" is not a unicorn id'),
    (lambda s: s["slots"].pop(), "slots", "must list 4 pairs (one per line unicorn)"),
    (lambda s: s["slots"][0].pop(), "slots[0]", "must list 2 slots (above, below)"),
    (lambda s: s["slots"][0].__setitem__(1, "princess-hunt-1"), "slots[0][1]",
     '"princess-hunt-1" is not a trick card id'),
    (lambda s: s["market"].update(gold=[]), "market.gold",
     "is not a field here (expected pate, fake_horn, cotton_candy, fairy_dust)"),
    (lambda s: s.update(rng="not hex"), "rng", "must be 16 hex digits"),
])
def test_a_bad_snapshot_is_refused_naming_its_path(ku_data, change, path, message):
    snapshot = request(ku_data, "setup", {"players": 3, "seed": 7, "characters": ["princess", "knight", "wizard"]})
    bad = snapshot["snapshot"]
    change(bad)
    with pytest.raises(SnapshotError) as refused:
        GameState.from_snapshot(ku_data, bad)
    assert (refused.value.path, refused.value.message) == (path, message)


@pytest.mark.parametrize("change, path, message", [
    (lambda h: h.update(index=4), "hunt.index", "must be between 0 and 3"),
    (lambda h: h.pop("step"), "hunt.step", "is missing"),
    (lambda h: h.update(passed=[3]), "hunt.passed[0]", "must be between 0 and 2"),
    (lambda h: h.update(sums={"0": 1, "3": 2}), "hunt.sums.3", "must be between 0 and 2"),
    (lambda h: h.update(sums={"x": 1}), "hunt.sums.x", "is not a number"),
])
def test_a_bad_hunt_is_refused_naming_its_path(ku_data, change, path, message):
    snapshot = at_hunt(ku_data, 3).to_snapshot()
    change(snapshot["hunt"])
    with pytest.raises(SnapshotError) as refused:
        GameState.from_snapshot(ku_data, snapshot)
    assert (refused.value.path, refused.value.message) == (path, message)


def test_legal_takes_the_json_or_the_text_form_and_rules_when_allowed(ku_data):
    setup = request(ku_data, "setup", {"players": 3, "seed": 5})
    seat = setup["next"]["player"]
    wrong = {"action": "pass", "player": (seat + 1) % 3}
    assert request(ku_data, "legal", {"snapshot": setup["snapshot"], "action": wrong})["reason"] == "not_your_turn"
    first = setup["next"]["legal"][0]
    ok = request(ku_data, "legal", {"snapshot": setup["snapshot"], "action": first})
    assert ok["legal"] and ok["events"][0]["event"] == "trick_placed" and ok["game_over"] is None
    assert "card" not in ok["events"][0]   # a placed trick is never named in events
    text = f"place-trick {first['player']} {first['card']} {first['unicorn']} {first['slot']}"
    assert request(ku_data, "legal", {"snapshot": setup["snapshot"], "action": text}) == ok
    with pytest.raises(InvalidAction, match="unknown action text"):
        request(ku_data, "legal", {"snapshot": setup["snapshot"], "action": "dance 0"})


def test_apply_runs_actions_in_order_and_names_a_refused_one(ku_data):
    setup = request(ku_data, "setup", {"players": 3, "seed": 5})
    first = setup["next"]["legal"][0]
    ruling = request(ku_data, "apply", {"snapshot": setup["snapshot"], "actions": [first]})
    second = ruling["next"]["legal"][0]
    both = request(ku_data, "apply", {"snapshot": setup["snapshot"], "actions": [first, second]})
    assert both["snapshot"] == request(ku_data, "apply", {"snapshot": ruling["snapshot"],
                                                          "actions": [second]})["snapshot"]
    with pytest.raises(IllegalAction, match=r"actions\[1\]") as refused:
        request(ku_data, "apply", {"snapshot": setup["snapshot"], "actions": [first, first]})
    assert refused.value.reason == "not_your_turn"


def _reason(data, state: GameState, action: str) -> str:
    reply = request(data, "legal", {"snapshot": state.to_snapshot(), "action": action})
    assert reply["legal"] is False, action
    return reply["reason"]


def test_each_cause_of_a_refused_hunt_action_has_its_own_reason(ku_data):
    state = at_hunt(ku_data, 3, hands={0: hunt(0, 0, 1, 2, 3)})
    cards = ",".join(hunt(0, 0, 1, 2, 3))
    assert _reason(ku_data, state, f"open 0 {cards}") == "too_many_cards"
    assert _reason(ku_data, state, "open 0 princess-hunt-8") == "not_in_hand"
    assert _reason(ku_data, state, "open 0 princess-hunt-1,princess-hunt-1") == "duplicate_card"
    assert _reason(ku_data, state, "skip 0") == "wrong_decision"
    assert _reason(ku_data, state, "open 1 knight-hunt-1") == "not_your_turn"
    state.apply(state.legal_actions()[1])   # seat 0 opens with one card
    assert _reason(ku_data, state, "join 1 knight-hunt-1,knight-hunt-2") == "wrong_count"


def test_each_cause_of_a_refused_trick_has_its_own_reason(ku_data):
    setup = GameState.from_snapshot(ku_data, request(ku_data, "setup", {"players": 3, "seed": 5, "characters": [
        "princess", "knight", "wizard"]})["snapshot"])
    seat = setup.pending_player
    drawn = setup.trick_hand[seat][0]
    other_seat = setup.chars[(seat + 1) % 3]
    assert _reason(ku_data, setup, f"skip {seat}") == "trick_mandatory"
    assert _reason(ku_data, setup, f"place-trick {seat} {other_seat}-trick-1 0 above") == "trick_not_drawn"
    assert _reason(ku_data, setup, f"place-trick {seat} {drawn} 9 above") == "no_unicorn"
    setup.apply(setup.legal_actions()[0])   # the first placement: line unicorn 0, above
    seat = setup.pending_player
    assert _reason(ku_data, setup, f"place-trick {seat} {setup.trick_hand[seat][0]} 0 above") == "slot_taken"
    optional = GameState.from_snapshot(with_rules(ku_data, mandatory_trick=False), setup.to_snapshot())
    assert optional.legal_actions()[-1].name == "skip"


def test_each_cause_of_a_refused_purchase_has_its_own_reason(ku_data):
    state = request(ku_data, "setup", {"players": 3, "seed": 7, "characters": ["princess", "knight", "wizard"]})
    snapshot = dict(state["snapshot"], phase="market", hunt=None, line=[None] * 4,
                    pending={"player": 0, "decision": "market"})
    market = GameState.from_snapshot(ku_data, snapshot)
    start = market.catch[0][0][0]
    others = market.catch[1][0][0]
    assert _reason(ku_data, market, "buy 0 caviar princess-hunt-8 -") == "unknown_item"
    assert _reason(ku_data, market, f"buy 0 fairy_dust princess-hunt-1 {start}") == "cannot_afford"
    assert _reason(ku_data, market, "buy 0 fairy_dust princess-hunt-5,princess-hunt-8 -") == "unicorn_missing"
    assert _reason(ku_data, market, f"buy 0 fairy_dust princess-hunt-5,princess-hunt-8 {others}") == "wrong_unicorn"
    assert _reason(ku_data, market, f"buy 0 pate princess-hunt-2,princess-hunt-6 {others}") == "cannot_turn_in"
    assert _reason(ku_data, market, "open 0 princess-hunt-1") == "wrong_decision"
    sold_out = GameState.from_snapshot(ku_data, dict(snapshot, market=dict(snapshot["market"], fairy_dust=[]),
                                                     box=snapshot["box"] + snapshot["market"]["fairy_dust"]))
    assert _reason(ku_data, sold_out, f"buy 0 fairy_dust princess-hunt-5,princess-hunt-8 {start}") == \
        "out_of_stock"


def test_a_finished_game_refuses_every_action(ku_data):
    state = GameState.from_snapshot(ku_data, request(ku_data, "setup", {"players": 3, "seed": 2})["snapshot"])
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    assert _reason(ku_data, state, "skip 0") == "game_over"


def test_every_reason_of_the_engine_is_listed_with_its_cause():
    reasons = KILL_THE_UNICORNS.refusal_reasons
    assert "illegal" not in reasons and all(cause for cause in reasons.values())
    assert {"not_your_turn", "wrong_decision", "not_in_hand", "trick_not_drawn", "slot_taken", "out_of_stock",
            "cannot_afford", "game_over"} <= set(reasons)


def test_score_and_bad_requests(ku_data):
    setup = request(ku_data, "setup", {"players": 3, "seed": 5})
    score = request(ku_data, "score", {"snapshot": setup["snapshot"]})
    assert score["day"] == 1 and not score["over"] and len(score["standings"]) == 3
    assert all(s["unicorns"] == 1 for s in score["standings"])
    with pytest.raises(UnknownRequestType):
        request(ku_data, "undo", {})
    with pytest.raises(SnapshotError, match="snapshot"):
        request(ku_data, "score", {})
    broken = dict(setup["snapshot"], players=[dict(setup["snapshot"]["players"][0], hand=["princess-hunt-99"])]
                  + setup["snapshot"]["players"][1:])
    with pytest.raises(SnapshotError, match=r"players\[0\]\.hand\[0\]"):
        request(ku_data, "score", {"snapshot": broken})


def _hunt_steps(data) -> dict[str, tuple[dict, dict]]:
    """The first snapshot (and a legal action) of each hunt step met playing the first legal action from a hunt."""
    state = at_hunt(data, 3)
    found: dict[str, tuple[dict, dict]] = {}
    for _ in range(40):
        snap = state.to_snapshot()
        if snap["hunt"] is None or not state.legal_actions():
            break
        found.setdefault(snap["hunt"]["step"], (snap, state.legal_actions()[0].to_json()))
        state.apply(state.legal_actions()[-1])
    return found


@pytest.mark.parametrize("step, key, value, message", [
    ("join", "n", None, "hunt.n: must be null in the open step and set after it"),
    ("join", "opener", None, "hunt.opener: must be null in the open step and set after it"),
    ("power", "sums", None, "hunt.sums: must be null before the reveal"),
    ("power", "sums", False, "hunt.sums: must be null before the reveal"),
    ("power", "joined", [1, 0], "hunt.sums: must hold the sums of the opener and the players who joined"),
])
def test_a_hunt_whose_keys_disagree_with_its_step_is_refused_by_name_not_an_engine_failure(ku_data, step, key,
                                                                                           value, message):
    # these reached the engine and failed inside it (TypeError, "1 is not in list": an internal error)
    steps = _hunt_steps(ku_data)
    assert step in steps, sorted(steps)
    snap, action = steps[step]
    snap["hunt"][key] = value
    for request_type in ("legal", "apply", "score"):
        with pytest.raises(SnapshotError, match=f"^{message.replace('.', '[.]')}"):
            request(ku_data, request_type, {"snapshot": snap, "action": action, "actions": [action]})


def test_a_pending_decision_of_another_phase_and_an_action_named_by_a_list_are_refused(ku_data):
    snap = request(ku_data, "setup", {"players": 3, "seed": 3})["snapshot"]
    snap["pending"]["decision"] = "power"
    with pytest.raises(SnapshotError, match='pending.decision: "power" is not a decision of the tricks phase'):
        request(ku_data, "score", {"snapshot": snap})
    reply = request(ku_data, "setup", {"players": 3, "seed": 3})
    action = dict(reply["next"]["legal"][0], action=[])
    with pytest.raises(InvalidAction, match="unknown action"):
        request(ku_data, "legal", {"snapshot": reply["snapshot"], "action": action})
