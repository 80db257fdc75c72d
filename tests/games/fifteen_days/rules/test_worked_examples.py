"""The worked examples FD-E1 … FD-E19 of rules spec §3.7, one test each, on tables built as they describe.

Seats are 0-based: the spec's P1 is seat 0. Corners 0-1 are ascending, 2-3 descending (the sample boards).
"""

from __future__ import annotations

import pytest

from bridge.rules.errors import IllegalAction
from bridge.rules.fifteen_days import events as ev
from bridge.rules.fifteen_days.actions import (
    Discard, Done, Draw, EndTurn, Feather, Pay, Play, PutWild, Refill, Take, TakeWild)
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from tests.games.fifteen_days.rules.tables import Table, face


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def play(state, seat, *placements):
    """Apply ``play`` decisions; return every event."""
    out = []
    for text, corner in placements:
        out += state.apply(Play(seat, face(text), corner))
    return out


def pay_all(state, seat):
    """Pay what the Play action owes with the first cards of the hand; the events."""
    out = []
    while state.pending == "play" and state.owed() > 0:
        first = state.t.face[state.seats[seat].hand[0]]
        out += state.apply(Pay(seat, first))
    return out


def test_FD_E1_first_card_into_an_empty_corner_costs_one_and_fixes_its_season(fd_data):
    state = Table(fd_data).hand(0, ["summer-3", "winter-6"]).state
    events = play(state, 0, ("summer-3", 0))
    assert of(events, ev.CardPlayed)[0].cost == 1
    assert state.seats[0].corners[0].season == "summer"
    events = state.apply(Pay(0, face("winter-6")))
    assert of(events, ev.PlayCost) == [ev.PlayCost(0, 1, 0, 1)]
    assert [e.card for e in of(events, ev.CardDiscarded)] == [state.t.ids[state.discard[-1]]]
    assert state.seats[0].hand == [] and state.actions_left == 1 and state.pending is None


def _e2(fd_data, frog: bool):
    table = Table(fd_data).corner(0, 0, ["summer-3"]).hand(0, ["summer-5", "summer-4", "autumn-1", "autumn-2",
                                                               "autumn-3"])
    if frog:
        table.owner("frog", 0)
    state = table.state
    events = play(state, 0, ("summer-5", 0), ("summer-4", 0))
    events += pay_all(state, 0)
    return state, events


def test_FD_E2_highest_then_inserted_costs_three_and_the_frog_takes_one_off(fd_data):
    state, events = _e2(fd_data, frog=False)
    assert [e.cost for e in of(events, ev.CardPlayed)] == [1, 2]
    assert of(events, ev.PlayCost) == [ev.PlayCost(0, 3, 0, 3)]
    assert len(of(events, ev.CardDiscarded)) == 3 and state.seats[0].hand == []
    state, events = _e2(fd_data, frog=True)
    assert of(events, ev.PlayCost) == [ev.PlayCost(0, 3, 1, 2)]
    assert len(state.seats[0].hand) == 1


def test_FD_E3_the_same_cards_in_the_other_order_cost_two(fd_data):
    state = Table(fd_data).corner(0, 0, ["summer-3"]).hand(0, ["summer-5", "summer-4", "autumn-1", "autumn-2"]).state
    events = play(state, 0, ("summer-4", 0), ("summer-5", 0))
    assert [e.cost for e in of(events, ev.CardPlayed)] == [1, 1]
    events = pay_all(state, 0)
    assert of(events, ev.PlayCost)[0].owed == 2
    assert sorted(state.seats[0].corners[0].cards) == [3, 4, 5]


def test_FD_E4_descending_corner_lowest_costs_one_higher_costs_two(fd_data):
    state = Table(fd_data).corner(0, 2, ["winter-5", "winter-4"]).hand(
        0, ["winter-2", "winter-6", "autumn-1", "autumn-2", "autumn-3"]).state
    events = play(state, 0, ("winter-2", 2), ("winter-6", 2))
    assert [e.cost for e in of(events, ev.CardPlayed)] == [1, 2]


def test_FD_E5_a_value_already_in_the_corner_is_refused(fd_data):
    state = Table(fd_data).corner(0, 0, ["summer-3", "summer-4", "summer-5"]).hand(0, ["summer-4", "autumn-1"]).state
    assert Play(0, face("summer-4"), 0) not in state.legal_actions()
    with pytest.raises(IllegalAction) as refused:
        state.apply(Play(0, face("summer-4"), 0))
    assert refused.value.reason == "duplicate_value"
    assert sorted(state.seats[0].corners[0].cards) == [3, 4, 5] and len(state.seats[0].hand) == 2


def test_FD_E6_each_season_in_its_own_corner(fd_data):
    state = Table(fd_data).corner(0, 0, ["summer-3"]).hand(0, ["summer-1", "autumn-1", "winter-6"]).state
    with pytest.raises(IllegalAction) as refused:
        state.apply(Play(0, face("summer-1"), 1))
    assert refused.value.reason == "season_elsewhere"
    events = state.apply(Play(0, face("autumn-1"), 1))
    assert of(events, ev.CardPlayed)[0].cost == 1
    assert state.seats[0].corners[1].season == "autumn"


def test_FD_E7_frog_owner_pays_nothing_for_a_single_card_into_an_empty_corner(fd_data):
    state = Table(fd_data).owner("frog", 0).hand(0, ["spring-2", "winter-6"]).state
    play(state, 0, ("spring-2", 0))
    assert state.owed() == 0
    assert not any(isinstance(a, Pay) for a in state.legal_actions())
    events = state.apply(Done(0))
    assert of(events, ev.PlayCost) == [ev.PlayCost(0, 1, 1, 0)]
    assert [state.t.face[c] for c in state.seats[0].hand] == [face("winter-6")]


def test_FD_E8_first_to_three_autumn_cards_takes_the_squirrel(fd_data):
    state = Table(fd_data).corner(0, 1, ["autumn-1", "autumn-2"]).hand(0, ["autumn-3", "winter-6"]).state
    events = play(state, 0, ("autumn-3", 1))
    assert of(events, ev.AnimalTaken) == [ev.AnimalTaken(0, "squirrel", None, 3)]
    assert state.owner["squirrel"] == 0


def test_FD_E9_equal_count_steals_and_the_loser_takes_a_feather(fd_data):
    table = (Table(fd_data, active=1).corner(0, 1, ["autumn-1", "autumn-2", "autumn-3"]).owner("squirrel", 0)
             .corner(1, 1, ["autumn-1", "autumn-2"]).hand(1, ["autumn-3", "winter-6"]))
    state = table.state
    supply, feathers = state.feather_supply, state.seats[0].feathers
    events = play(state, 1, ("autumn-3", 1))
    assert of(events, ev.AnimalTaken) == [ev.AnimalTaken(1, "squirrel", 0, 3)]
    assert state.seats[0].feathers == feathers + 1 and state.feather_supply == supply - 1
    # Seat 0, with an unrelated card, does not take it back at 3 against 3; at 4 autumn it does.
    table.state = state
    table.state.pending, table.state.actions_left = None, 2
    table.state.active = 0
    table._settle()
    table.hand(0, ["winter-2", "autumn-4", "spring-1", "spring-2", "spring-3"])
    state = table.state
    assert not of(play(state, 0, ("winter-2", 2)), ev.AnimalTaken)
    events = play(state, 0, ("autumn-4", 1))
    assert of(events, ev.AnimalTaken) == [ev.AnimalTaken(0, "squirrel", 1, 4)]
    assert of(events, ev.FeatherGained)[0].player == 1


def test_FD_E10_longest_run_and_a_wild_filling_the_gap(fd_data):
    table = Table(fd_data).corner(0, 0, ["summer-1", "summer-2", "summer-3", "summer-5", "summer-6"])
    assert table.state.standing(0).runs[0] == 3
    table.corner(0, 0, ["summer-1", "summer-2", "summer-3", "summer-5", "summer-6"], wild=4)
    assert table.state.standing(0).runs[0] == 6


def test_FD_E11_score_adds_runs_animals_and_empty_corner_penalty(fd_data):
    table = (Table(fd_data).corner(0, 0, [f"summer-{v}" for v in range(1, 7)])
             .corner(0, 1, [f"autumn-{v}" for v in range(1, 5)])
             .corner(0, 2, ["winter-3", "winter-2", "winter-1"]).owner("frog", 0).owner("squirrel", 0))
    standing = table.state.standing(0)
    assert standing.runs == (6, 4, 3, 0) and standing.empty_corners == 1
    assert standing.score == 6 + 4 + 3 - 2 + 2 * 2 == 15


def test_FD_E12_take_a_wild_by_discarding_cards_on_the_board(fd_data):
    table = (Table(fd_data).corner(0, 0, ["summer-2", "summer-3", "summer-5", "summer-6"])
             .corner(0, 1, ["autumn-5"]).hand(0, ["summer-2", "autumn-5"]))
    state = table.state
    take = TakeWild(0, (face("summer-2"), face("autumn-5")))
    assert take in state.legal_actions()
    events = state.apply(take)
    assert sorted((e.season, e.value, e.why) for e in of(events, ev.CardDiscarded)) == [
        ("autumn", 5, "wild"), ("summer", 2, "wild")]
    assert state.pending == "wild" and state.seats[0].hand == []
    state.apply(PutWild(0, 0, 4))
    assert state.seats[0].corners[0].wild == 4 and state.pending is None
    # A second wild: never into the summer corner, which already has one.
    table.state = state
    table.hand(0, ["summer-2", "autumn-5"])
    state = table.state
    state.apply(TakeWild(0, (face("summer-2"), face("autumn-5"))))
    spots = {(a.corner, a.value) for a in state.legal_actions()}
    assert spots and all(corner != 0 for corner, _ in spots)
    with pytest.raises(IllegalAction):
        state.apply(PutWild(0, 0, 1))


def test_FD_E13_the_real_card_replaces_the_wild_which_moves_or_returns(fd_data):
    table = (Table(fd_data).corner(0, 0, ["summer-2", "summer-3", "summer-5", "summer-6"], wild=4)
             .corner(0, 3, ["winter-3"]).hand(0, ["summer-4", "autumn-1", "autumn-2"]))
    state = table.state
    events = play(state, 0, ("summer-4", 0))
    assert of(events, ev.CardPlayed)[0].cost == 2 and of(events, ev.CardPlayed)[0].replaced_wild
    assert state.pending == "wild"
    # Any legal missing value, the corner it left included (AMB-FD-11): Summer 1, or a winter value.
    spots = {(a.corner, a.value) for a in state.legal_actions()}
    assert spots == {(0, 1)} | {(3, v) for v in (1, 2, 4, 5, 6)}
    state.apply(PutWild(0, 3, 1))
    assert state.seats[0].corners[3].wild == 1 and state.pending == "play"
    # With no missing value left anywhere (the summer set now complete), the wild returns to the supply.
    state = (Table(fd_data).corner(0, 0, ["summer-1", "summer-2", "summer-3", "summer-5", "summer-6"], wild=4)
             .hand(0, ["summer-4", "autumn-1", "autumn-2"]).state)
    supply = state.wild_supply
    events = play(state, 0, ("summer-4", 0))
    assert of(events, ev.WildReturned) == [ev.WildReturned(0, 0)]
    assert state.wild_supply == supply + 1 and state.pending == "play"


def test_FD_E14_an_emptied_draw_pile_gives_a_bonus_wild_and_one_last_turn_each(fd_data):
    table = Table(fd_data, players=4, active=1).corner(1, 0, ["summer-3"]).pile(1, 1)
    state = table.state
    events = state.apply(Draw(1, 1)) + state.apply(Draw(1, 0))
    assert of(events, ev.DrawPileEmptied) == [ev.DrawPileEmptied(1, 1, True)]
    events = state.apply(Draw(1, 0)) + state.apply(Draw(1, 0))
    while state.legal_actions()[0] != EndTurn(1):
        events += state.apply(state.legal_actions()[0])         # hand limit
    supply = state.wild_supply
    events = state.apply(EndTurn(1))
    assert of(events, ev.WildTaken) == [ev.WildTaken(1, "bonus", supply - 1)]
    assert state.pending == "wild"
    events = state.apply(PutWild(1, 0, 4))
    turns = [(e.player, e.final) for e in of(events, ev.TurnStarted)]
    assert turns == [(2, True)]
    seen = []
    while not state.is_over():
        action = next(a for a in state.legal_actions() if isinstance(a, (Draw, Discard, EndTurn)))
        for event in state.apply(action):
            if isinstance(event, ev.TurnStarted):
                seen.append(event.player)
    assert seen == [3, 0]
    assert state.outcome().reason == "draw_pile" and state.to_move() is None


def test_FD_E15_hand_limit_five_or_eight_with_the_otter(fd_data):
    cards = ["summer-1", "summer-2", "autumn-1", "autumn-2", "winter-1", "winter-2", "spring-1"]
    state = Table(fd_data).hand(0, cards).state
    state.actions_left = 0
    assert EndTurn(0) not in state.legal_actions()
    with pytest.raises(IllegalAction) as refused:
        state.apply(EndTurn(0))
    assert refused.value.reason == "hand_limit"
    state.apply(Discard(0, face("summer-1")))
    state.apply(Discard(0, face("winter-2")))
    assert state.legal_actions() == [EndTurn(0)]
    state = Table(fd_data).hand(0, cards).owner("otter", 0).state
    state.actions_left = 0
    assert state.legal_actions() == [EndTurn(0)]


def test_FD_E16_a_feather_for_the_squirrel_draws_three(fd_data):
    state = Table(fd_data, active=1).hand(1, []).state
    supply = state.feather_supply
    events = state.apply(Feather(1, "squirrel"))
    assert of(events, ev.FeatherSpent) == [ev.FeatherSpent(1, "squirrel", True)]
    assert state.feather_supply == supply + 1 and state.seats[1].feathers == 0
    for _ in range(3):
        state.apply(Draw(1, 0))
    assert len(state.seats[1].hand) == 3 and state.pending is None and state.actions_left == 1


def test_FD_E17_taking_the_last_card_of_a_column_refills_it_from_chosen_piles(fd_data):
    state = Table(fd_data, players=3, active=2).column(1, 1).state
    piles = [len(p) for p in state.piles]
    events = state.apply(Take(2, 1))
    assert of(events, ev.CardTaken)[0].column == 1 and state.pending == "refill"
    assert set(state.legal_actions()) == {Refill(2, 0), Refill(2, 1)}
    events = state.apply(Refill(2, 0)) + state.apply(Refill(2, 1)) + state.apply(Refill(2, 1))
    assert [(e.column, e.pile) for e in of(events, ev.ColumnRefilled)] == [(1, 0), (1, 1), (1, 1)]
    assert len(state.market[1]) == 3 and [len(p) for p in state.piles] == [piles[0] - 1, piles[1] - 2]
    assert state.pending is None and state.actions_left == 1


def test_FD_E18_a_tie_goes_to_more_cards_in_hand_then_more_wilds(fd_data):
    def tied(hands, wild_for_seat_0=False):
        table = Table(fd_data)
        if wild_for_seat_0:
            table.corner(0, 0, ["summer-1", "summer-2"], wild=3)
        else:
            table.corner(0, 0, ["summer-1", "summer-2", "summer-3"])
        table.corner(1, 0, ["summer-4", "summer-5", "summer-6"])
        table.hand(0, hands[0]).hand(1, hands[1])
        return FIFTEEN_DAYS.score(fd_data, table.state)

    result = tied((["spring-1", "spring-2", "spring-3"], ["spring-4", "spring-5"]))
    assert [s["score"] for s in result["standings"]] == [3 - 6, 3 - 6]
    assert [s["hand"] for s in result["standings"]] == [3, 2]
    assert result["leaders"] == [0] and result["decided_by"] == "hand"
    result = tied((["spring-1", "spring-2"], ["spring-4", "spring-5"]), wild_for_seat_0=True)
    assert [s["wilds"] for s in result["standings"]] == [1, 0]
    assert result["leaders"] == [0] and result["decided_by"] == "wilds"
    result = tied((["spring-1", "spring-2"], ["spring-4", "spring-5"]))
    assert result["leaders"] == [0, 1] and result["decided_by"] == "shared"


def test_FD_E19_completing_the_fourth_set_ends_the_game_at_once(fd_data):
    table = Table(fd_data, players=4, active=3)
    for k, season in enumerate(["summer", "autumn", "winter"]):
        table.corner(3, k, [f"{season}-{v}" for v in range(1, 7)])
    table.corner(3, 3, [f"spring-{v}" for v in range(2, 7)]).hand(3, ["spring-1", "winter-1"])
    state = table.state
    state.apply(Play(3, face("spring-1"), 3))          # the lowest of a descending corner: cost 1
    events = state.apply(Pay(3, face("winter-1")))
    over = of(events, ev.GameOver)
    assert over and over[0].reason == "complete_sets"
    assert state.is_over() and state.legal_actions() == [] and state.actions_left == 1
    assert state.outcome().standings[3].runs == (6, 6, 6, 6)
