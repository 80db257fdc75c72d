"""Every AMB-FD rule flag the engine reads, set to its other value, still gives games that end with every
component conserved; and each flag changes what its rule says."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from bridge.rules.fifteen_days import FIFTEEN_DAYS
from bridge.rules.fifteen_days import events as ev
from bridge.rules.fifteen_days.actions import Discard, Done, EndTurn, Feather, Pay, Play, PutWild, Take, TakeWild
from bridge.rules.fifteen_days.state import new_game
from bridge.rules.playout import play_random_game
from tests.games.fifteen_days.rules.tables import Table, face


def with_rules(data, **flags):
    return dataclasses.replace(data, rules=dataclasses.replace(data.rules, **flags))


OTHER_VALUES = [
    {"wilds_count_for_animals": True},
    {"play_many_cards": False},
    {"frog_discount": 2},
    {"wild_needs_real_card": False},
    {"two_player_removal": "by_face"},
    {"end_on_complete_sets": "end_of_turn"},
    {"steal_on_equal": False},
    {"feather_returns_to_supply": False},
    {"feather_otter_raises_limit": False},
    {"take_own_discard": False},
    {"bonus_wild_on_pile_end": False},
    {"first_player": "host"},
]


@pytest.mark.parametrize("flags", OTHER_VALUES, ids=lambda f: next(iter(f)))
def test_games_end_and_conserve_components_with_each_flag_flipped(fd_data, flags):
    data = with_rules(fd_data, **flags)
    for players in (2, 4):
        start = dict(FIFTEEN_DAYS.components(new_game(data, players, seed=players)))

        def check(state, action, _events):
            assert dict(FIFTEEN_DAYS.components(state)) == start, str(action)

        playout = play_random_game(FIFTEEN_DAYS, data, players, seed=players, on_step=check)
        assert playout.state.outcome().winners


def test_by_face_removal_takes_five_summer_autumn_and_winter_faces(fd_data):
    state = new_game(with_rules(fd_data, two_player_removal="by_face"), 2, seed=3)
    assert Counter(state.t.season[c] for c in state.removed) == {"summer": 5, "autumn": 5, "winter": 5}


def test_without_steal_on_equal_an_equal_count_keeps_the_animal(fd_data):
    data = with_rules(fd_data, steal_on_equal=False)
    state = (Table(data, active=1).corner(0, 1, ["autumn-1", "autumn-2", "autumn-3"]).owner("squirrel", 0)
             .corner(1, 1, ["autumn-1", "autumn-2"]).hand(1, ["autumn-3", "winter-6"]).state)
    events = state.apply(Play(1, face("autumn-3"), 1))
    assert not [e for e in events if isinstance(e, ev.AnimalTaken)] and state.owner["squirrel"] == 0


def test_one_card_per_play_action_when_play_many_cards_is_off(fd_data):
    state = Table(with_rules(fd_data, play_many_cards=False)).hand(0, ["summer-1", "autumn-1", "winter-1"]).state
    state.apply(Play(0, face("summer-1"), 0))
    assert not any(isinstance(a, Play) for a in state.legal_actions())


def test_the_card_just_discarded_is_not_taken_back_without_take_own_discard(fd_data):
    state = Table(with_rules(fd_data, take_own_discard=False)).hand(0, ["summer-1", "autumn-1"]).state
    state.apply(Play(0, face("summer-1"), 0))
    state.apply(Pay(0, face("autumn-1")))
    assert Take(0, None) not in state.legal_actions()
    allowed = Table(fd_data).hand(0, ["summer-1", "autumn-1"]).state
    allowed.apply(Play(0, face("summer-1"), 0))
    allowed.apply(Pay(0, face("autumn-1")))
    assert Take(0, None) in allowed.legal_actions()


def test_a_spent_feather_leaves_the_game_without_feather_returns_to_supply(fd_data):
    state = Table(with_rules(fd_data, feather_returns_to_supply=False)).state
    supply = state.feather_supply
    state.apply(Feather(0, "rabbit"))
    assert state.feather_supply == supply and state.feathers_out == 1


def test_a_wild_may_start_a_corner_when_it_needs_no_real_card(fd_data):
    data = with_rules(fd_data, wild_needs_real_card=False)
    state = Table(data).corner(0, 0, ["summer-2"]).hand(0, ["summer-2", "summer-2"]).state
    state.apply(TakeWild(0, (face("summer-2"), face("summer-2"))))
    assert PutWild(0, 3, 6) in state.legal_actions()
    strict = Table(fd_data).corner(0, 0, ["summer-2"]).hand(0, ["summer-2", "summer-2"]).state
    strict.apply(TakeWild(0, (face("summer-2"), face("summer-2"))))
    assert {a.corner for a in strict.legal_actions()} == {0}
    assert Done(0) not in strict.legal_actions()


def test_completing_every_set_ends_the_game_at_the_end_of_the_turn_with_end_of_turn(fd_data):
    table = Table(with_rules(fd_data, end_on_complete_sets="end_of_turn"), players=3, active=2)
    for k, season in enumerate(["summer", "autumn", "winter"]):
        table.corner(2, k, [f"{season}-{v}" for v in range(1, 7)])
    table.corner(2, 3, [f"spring-{v}" for v in range(2, 7)]).hand(2, ["spring-1", "winter-1"])
    state = table.state
    state.apply(Play(2, face("spring-1"), 3))
    state.apply(Pay(2, face("winter-1")))
    assert not state.is_over() and state.actions_left == 1
    state.apply(state.legal_actions()[0])
    while not state.is_over():
        action = next(a for a in state.legal_actions() if not isinstance(a, Feather))
        assert isinstance(action, (Discard, EndTurn)) or state.actions_left or state.pending
        state.apply(action)
    assert state.over == "complete_sets" and state.active == 2
