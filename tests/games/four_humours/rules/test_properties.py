"""Properties that hold in every game: potions are never lost, games end, seeds replay, views keep secrets."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.rules.four_humours import FOUR_HUMOURS, GameState, new_game
from bridge.rules.four_humours.records import HUMOURS
from bridge.rules.four_humours.state import Phase
from bridge.rules.playout import chooser_for, play_random_game

games = st.tuples(st.integers(0, 2**32), st.integers(2, 6), st.sampled_from(["kingdom", "fief"]))
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
MAX_ACTIONS = 3000


def playout(data, seed, players, mode, *, on_step=None):
    """A random legal playout (the shared loop); returns the final state and each action's text and event JSON."""
    log = []

    def record(state, action, events):
        log.append((str(action), [e.to_json() for e in events]))
        if on_step:
            on_step(state, events)

    result = play_random_game(FOUR_HUMOURS, data, players, mode=mode, seed=seed, max_actions=MAX_ACTIONS,
                              on_step=record)
    return result.state, log


def potions_per_player(snapshot):
    counts = [dict.fromkeys(HUMOURS, 0) for _ in snapshot["players"]]
    for seat, player in enumerate(snapshot["players"]):
        for h in player["hand"]:
            counts[seat][h] += 1
        for h, n in player["bag"].items():
            counts[seat][h] += n
    slots = [s for card in snapshot["scenes"] + snapshot["parties"] for s in card["slots"] if s]
    on_boards = [p for cells in snapshot["boards"].values() for ps in cells.values() for p in ps]
    for p in slots + on_boards + snapshot["pending"]:
        counts[p["owner"]][p["humour"]] += 1
    return counts


@SETTINGS
@given(games)
def test_every_potion_is_always_somewhere(sample, game):
    seed, players, mode = game
    expected = dict(sample.rules.bag_composition)

    def check(state, _events):
        assert potions_per_player(state.to_snapshot()) == [expected] * players

    playout(sample, seed, players, mode, on_step=check)


@SETTINGS
@given(games)
def test_every_game_terminates_with_an_outcome(sample, game):
    state, _ = playout(sample, *game)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners
    best = max(s.key for s in outcome.standings)
    assert all(outcome.standings[w].key == best for w in outcome.winners)


@SETTINGS
@given(games)
def test_the_same_seed_gives_the_same_game(sample, game):
    assert playout(sample, *game)[1] == playout(sample, *game)[1]


@SETTINGS
@given(games)
def test_snapshot_state_snapshot_is_identity(sample, game):
    def check(state, _events):
        snapshot = state.to_snapshot()
        assert GameState.from_snapshot(sample, snapshot).to_snapshot() == snapshot

    playout(sample, *game, on_step=check)


def disguise(snapshot, viewer):
    """The same table with every secret the viewer cannot see changed: other hands and face-down humours."""
    snap = json.loads(json.dumps(snapshot))
    for seat, player in enumerate(snap["players"]):
        if seat == viewer:
            continue
        pool = list(player["hand"]) + [h for h, n in player["bag"].items() for _ in range(n)]
        pool.sort(key=lambda h: -HUMOURS.index(h))  # a different pick than any drawn hand
        player["hand"], rest = pool[: len(player["hand"])], pool[len(player["hand"]):]
        player["bag"] = {h: rest.count(h) for h in HUMOURS}
    return snap


@SETTINGS
@given(games, st.integers(0, 5))
def test_a_view_does_not_change_when_hidden_information_does(sample, game, who):
    seed, players, mode = game
    viewer = who % players

    def check(state, _events):
        if state.phase is not Phase.PLACEMENT:
            return
        view = state.view(viewer)
        other = GameState.from_snapshot(sample, disguise(state.to_snapshot(), viewer))
        assert other.view(viewer) == view
        text = json.dumps(view)
        for seat, player in enumerate(view["players"]):
            if seat != viewer:
                assert player["hand"] is None and player["bag"] is None
        for card in view["scenes"] + view["parties"]:
            for s in card["slots"]:
                if s and s["owner"] != viewer:
                    assert s["humour"] is None, text

    playout(sample, seed, players, mode, on_step=check)


PUBLIC_HUMOUR_EVENTS = {"card_resolved", "potion_moved", "potion_returned", "decision_required", "game_ended"}


@SETTINGS
@given(games)
def test_events_name_a_humour_only_once_it_is_revealed(sample, game):
    def check(_state, events):
        for event in events:
            body = event.to_json()
            if body["event"] not in PUBLIC_HUMOUR_EVENTS:
                assert "humour" not in json.dumps(body), body

    playout(sample, *game, on_step=check)


@SETTINGS
@given(games, st.integers(1, 60))
def test_undo_takes_back_actions_one_by_one(sample, game, steps):
    seed, players, mode = game
    state = new_game(sample, players, mode=mode, seed=seed)
    state.enable_undo()
    chooser = chooser_for(seed)
    history = []
    for _ in range(steps):
        if state.is_over():
            break
        history.append(state.to_snapshot())
        state.apply(chooser.choice(state.legal_actions()))
    while history:
        state.undo()
        assert state.to_snapshot() == history.pop()
