"""The worked adjudication examples FH-E1 … FH-E22 of rules spec §2.9, one test each.

Players are 1-based in the rules text (P1 … P4) and 0-based seats in the engine (P1 = seat 0).
"""

from __future__ import annotations

import dataclasses

import pytest

from bridge.rules.errors import IllegalAction
from bridge.rules.four_humours import Pass, Place, Redraw, Target, Termination
from bridge.rules.four_humours.events import CardResolved, PotionPlaced, RoundEnded

from .conftest import MILL_FAIR, S0_CARD, WOLVES_T3, ask, end_round, on_slots, read, table

P1, P2, P3, P4 = 0, 1, 2, 3


def scene(ruling: dict, card: str) -> dict:
    return next(s for s in ruling["scenes"] if s["card"] == card)


def owners(potions: list[dict]) -> list[tuple[int, str]]:
    return [(p["owner"], p["humour"]) for p in potions]


def landed(ruling: dict) -> list[tuple[int, str, str]]:
    """(owner, humour, cell) of every potion that went onto a board, in order."""
    return [(m["owner"], m["humour"], m["cell"]) for m in ruling["moves"] if m["event"] == "potion_moved"]


def returned(ruling: dict) -> list[tuple[int, str]]:
    return [(m["owner"], m["humour"]) for m in ruling["moves"] if m["event"] == "potion_returned"]


def round_end(data, card, spec, **kw) -> dict:
    """Resolve a round in which everyone passed with ``spec`` on ``card``."""
    snap = table(data, scenes={card.id: on_slots(card, spec)}, passes=4, **kw)
    return end_round(data, snap)


def test_fh_e1_lone_choleric_wins_and_goes_to_the_scene_cell(data):
    ruling = round_end(data, MILL_FAIR, "P1:C P2:S P3:S P4:F")
    result = scene(ruling, "mill-fair")
    assert owners(result["winners"]) == [(P1, "choleric")]
    assert sorted(owners(result["discards"])) == [(P2, "sanguine"), (P3, "sanguine"), (P4, "phlegmatic")]
    assert [s["index"] for s in result["steps"]] == [0]  # resolution stopped at step 1
    assert landed(ruling) == [(P1, "choleric", "mill")]


def test_fh_e2_two_cholerics_discarded_two_sanguines_share_the_win(data):
    ruling = round_end(data, MILL_FAIR, "P1:C P2:C P3:S P1:S P4:M")
    result = scene(ruling, "mill-fair")
    assert sorted(owners(result["winners"])) == [(P1, "sanguine"), (P3, "sanguine")]
    assert sorted(owners(result["discards"])) == [(P1, "choleric"), (P2, "choleric"), (P4, "melancholic")]
    assert result["sneakers"] == []  # the lone melancholic does not sneak: resolution stopped at step 3
    assert landed(ruling) == [(P1, "sanguine", "mill"), (P3, "sanguine", "mill")]


def test_fh_e3_lone_melancholic_sneaks_then_phlegmatics_win(data):
    snap = table(data, scenes={"mill-fair": on_slots(MILL_FAIR, "P1:C P2:C P3:S P4:M P1:F P2:F")}, passes=4)
    first = end_round(data, snap)
    result = scene(first, "mill-fair")
    assert sorted(owners(result["discards"])) == [(P1, "choleric"), (P2, "choleric"), (P3, "sanguine")]
    assert owners(result["sneakers"]) == [(P4, "melancholic")]
    assert sorted(owners(result["winners"])) == [(P1, "phlegmatic"), (P2, "phlegmatic")]
    assert landed(first) == [(P1, "phlegmatic", "mill"), (P2, "phlegmatic", "mill")]
    awaiting = first["awaiting"]
    assert awaiting["owner"] == P4 and awaiting["reason"] == "sneak"
    assert set(awaiting["cells"]) == set(data.kingdom.neighbours["mill"])
    assert first["complete"] is False
    second = end_round(data, snap, [{"player": P4, "cell": "orchard"}])
    assert second["complete"] is True
    assert (P4, "melancholic", "orchard") in landed(second)


def test_fh_e4_three_melancholics_all_discarded_no_winner(data):
    ruling = round_end(data, MILL_FAIR, "P1:M P2:M P3:M")
    result = scene(ruling, "mill-fair")
    assert result["winners"] == [] and result["sneakers"] == []
    assert sorted(owners(result["discards"])) == [(P1, "melancholic"), (P2, "melancholic"), (P3, "melancholic")]
    assert landed(ruling) == []


def test_fh_e5_exactly_two_melancholics_of_one_player_both_win(data):
    ruling = round_end(data, MILL_FAIR, "P1:M P1:M P2:F")
    assert landed(ruling) == [(P1, "melancholic", "mill"), (P1, "melancholic", "mill")]
    assert owners(scene(ruling, "mill-fair")["discards"]) == [(P2, "phlegmatic")]


def test_fh_e6_per_card_list_lone_sanguine_sneaks_lone_phlegmatic_wins(data):
    snap = table(data, scenes={"mill-s0": on_slots(S0_CARD, "P1:S P2:F")}, passes=4)
    ruling = end_round(data, snap)
    result = scene(ruling, "mill-s0")
    assert [(s["index"], s["outcome"]) for s in result["steps"]] == [(2, "sneak"), (3, "win")]
    assert landed(ruling) == [(P2, "phlegmatic", "mill")]
    assert ruling["awaiting"]["owner"] == P1
    assert set(ruling["awaiting"]["cells"]) == set(data.kingdom.neighbours["mill"])


def test_fh_e7_per_card_list_lone_choleric_wins(data):
    ruling = round_end(data, S0_CARD, "P1:C P2:S P3:S")
    assert landed(ruling) == [(P1, "choleric", "mill")]
    assert sorted(returned(ruling)) == [(P2, "sanguine"), (P3, "sanguine")]


def test_fh_e8_animal_scene_winners_choose_a_cell_of_its_zone(data):
    snap = table(data, scenes={"wolves-t3": on_slots(WOLVES_T3, "P2:F P3:F")}, passes=4)
    ruling = end_round(data, snap)
    assert ruling["awaiting"]["owner"] == P2
    assert ruling["awaiting"]["cells"] == list(data.kingdom.cells_of_tile["T3"])
    done = end_round(data, snap, [{"player": P2, "cell": "market"}, {"player": P3, "cell": "castle"}])
    assert landed(done) == [(P2, "phlegmatic", "market"), (P3, "phlegmatic", "castle")]

    anywhere = dataclasses.replace(data, rules=dataclasses.replace(data.rules, animal_scope="any"))
    ruling = end_round(anywhere, snap)
    assert ruling["awaiting"]["cells"] == list(data.kingdom.cell_ids)


def test_fh_e9_two_full_scenes_end_the_round_at_once_and_all_four_resolve(data):
    # A full; B one nun short; C partly filled; D empty. P2 fills B.
    scenes = {
        "bridgeford": [(P1, "choleric"), (P3, "sanguine"), (P4, "melancholic")],
        "orchard": [(P1, "sanguine"), (P3, "melancholic"), None],
        "granary": [(P4, "phlegmatic"), None, None, None],
        "crossroads": [],
    }
    snap = table(
        data,
        scenes=scenes,
        hands={P2: ["phlegmatic"], P3: ["choleric", "sanguine"], P4: ["choleric", "sanguine"]},
        active=P2,
    )
    state = read(data, snap)
    events = state.apply(Place(P2, "phlegmatic", Target("scene", "orchard", 2)))
    assert [e.reason for e in events if isinstance(e, RoundEnded)] == ["two_scenes_full"]
    resolved = [e.card for e in events if isinstance(e, CardResolved) and e.card_kind == "scene"]
    assert resolved == ["bridgeford", "orchard", "granary", "crossroads"]
    assert [e.player for e in events if isinstance(e, PotionPlaced)] == [P2]  # P3 and P4 did not play


def test_fh_e10_partly_filled_card_with_a_lone_choleric(data):
    snap = table(data, scenes={"granary": [None, None, (P4, "choleric"), None]}, passes=4)
    ruling = end_round(data, snap)
    assert landed(ruling) == [(P4, "choleric", "granary")]


def test_fh_e11_a_noble_takes_no_melancholic(data):
    snap = table(data, scenes={"mill": []}, hands={P1: ["melancholic", "choleric"]})
    state = read(data, snap)
    with pytest.raises(IllegalAction) as excinfo:
        state.apply(Place(P1, "melancholic", Target("scene", "mill", 2)))  # slot 2 of Mill is a noble
    assert excinfo.value.reason == "wrong_humour"
    state.apply(Place(P1, "choleric", Target("scene", "mill", 2)))  # a choleric is fine


@pytest.mark.parametrize("players, allowed", [(3, False), (2, True)])
def test_fh_e12_party_limit_one_each_with_three_or_more_two_with_two(data, players, allowed):
    party = "knights-feast"  # the second tile of the row
    snap = table(
        data,
        players=players,
        scenes={"mill": []},
        parties={party: [(P1, "choleric"), None, None]},
        hands={P1: ["phlegmatic"]},
    )
    state = read(data, snap)
    second = Place(P1, "phlegmatic", Target("party", party, 1))
    if allowed:
        state.apply(second)
    else:
        with pytest.raises(IllegalAction) as excinfo:
            state.apply(second)
        assert excinfo.value.reason == "party_limit"


def test_fh_e13_four_consecutive_passes_end_the_round_a_placement_restarts_the_count(data):
    hands = {seat: ["sanguine", "phlegmatic"] for seat in range(4)}
    snap = table(data, scenes={"mill": [], "orchard": []}, hands=hands, active=P2)
    state = read(data, snap)
    for seat in (P2, P3, P4):
        assert not any(isinstance(e, RoundEnded) for e in state.apply(Pass(seat)))
    assert [e.reason for e in state.apply(Pass(P1)) if isinstance(e, RoundEnded)] == ["all_passed"]

    state = read(data, snap)
    state.apply(Pass(P2))
    state.apply(Place(P3, "sanguine", Target("scene", "mill", 0)))
    for seat in (P4, P1, P2):
        assert not any(isinstance(e, RoundEnded) for e in state.apply(Pass(seat)))
    assert [e.reason for e in state.apply(Pass(P3)) if isinstance(e, RoundEnded)] == ["all_passed"]


def test_fh_e14_each_goal_marker_resolves_the_next_party_and_completions_chain(data):
    goals = ["any-potion", "two-stack", "six-tiles", "bridge-pairs"]
    snap = table(
        data,
        scenes={"mill": []},
        parties={"knights-feast": [(P2, "choleric"), None, None]},
        boards={"kingdom": {"abbey": [(P1, "sanguine")], "castle": [(P3, "choleric"), (P3, "sanguine")]}},
        goals=goals,
        passes=4,
    )
    first = end_round(data, snap)
    assert first["goals_marked"] == [
        {"player": P1, "goal": "any-potion"},
        {"player": P3, "goal": "any-potion"},
    ]
    assert [p["card"] for p in first["parties"]] == ["harvest-festival", "knights-feast"]
    # The lone choleric of P2 wins the Knights' Feast and lands where P2 chooses: any kingdom cell.
    assert first["awaiting"]["owner"] == P2 and first["awaiting"]["cells"] == list(data.kingdom.cell_ids)

    second = end_round(data, snap, [{"player": P2, "cell": "orchard"}])
    assert second["goals_marked"] == [
        {"player": P1, "goal": "any-potion"},
        {"player": P3, "goal": "any-potion"},
        {"player": P3, "goal": "two-stack"},
        {"player": P2, "goal": "any-potion"},  # completed by the party win, so it queues a fourth party
    ]
    assert [p["card"] for p in second["parties"]] == [
        "harvest-festival",
        "knights-feast",
        "convent-fair",
        "minstrels-contest",
    ]
    kinds = [e["event"] for e in second["events"] if e["event"] in ("goal_marked", "card_resolved")]
    assert kinds[-8:] == ["goal_marked", "card_resolved"] * 4  # one party per marker, in turn


def test_fh_e15_a_party_resolves_even_when_not_full(data):
    first_five = [p.id for p in sorted(data.parties, key=lambda p: p.order)][:5]
    snap = table(
        data,
        scenes={"mill": []},
        parties={"royal-ball": [(P2, "sanguine"), (P3, "choleric"), (P1, "sanguine")]},
        resolved=first_five,
        boards={"kingdom": {"abbey": [(P4, "phlegmatic")]}},
        goals=["any-potion", "two-stack", "six-tiles", "bridge-pairs"],
        passes=4,
    )
    ruling = end_round(data, snap)
    party = ruling["parties"][0]
    assert party["card"] == "royal-ball"
    assert owners(party["winners"]) == [(P3, "choleric")]
    assert sorted(owners(party["discards"])) == [(P1, "sanguine"), (P2, "sanguine")]
    assert ruling["awaiting"]["owner"] == P3 and len(ruling["awaiting"]["cells"]) == len(data.kingdom.cells)
    done = end_round(data, snap, [{"player": P3, "cell": "tower"}])
    assert (P3, "choleric", "tower") in landed(done)
    # The tile is gone: it was the last one, so the game is over.
    assert done["game_over"]["termination"] == "parties_resolved"


def test_fh_e16_ties_on_goals_broken_by_potions_placed_then_cholerics(data):
    p1 = [(P1, h) for h in ["choleric"] * 2 + ["sanguine"] * 3 + ["melancholic"] * 2 + ["phlegmatic"] * 2]
    p2 = [(P2, h) for h in ["choleric"] * 3 + ["sanguine"] * 2 + ["melancholic"] * 2 + ["phlegmatic"] * 2]
    goals = [g.id for g in data.goals_of_mode("kingdom")][:4]
    snap = table(
        data,
        boards={"kingdom": {"mill": p1, "abbey": p2}},
        goals=goals,
        marked={goals[0]: [P1, P2], goals[1]: [P1, P2], goals[2]: [P2, P1]},
        phase="ended",
        termination="scene_deck_exhausted",
    )
    outcome = read(data, snap).outcome()
    assert outcome.winners == (P2,)
    p1_line, p2_line = outcome.standings[P1], outcome.standings[P2]
    assert (p1_line.goals, p1_line.placed, p1_line.by_humour[0]) == (3, 9, 2)
    assert (p2_line.goals, p2_line.placed, p2_line.by_humour[0]) == (3, 9, 3)
    assert ask(data, "score", {"snapshot": snap})["leaders"] == [P2]


def test_fh_e17_four_identical_potions_may_be_redrawn(data):
    snap = table(data, scenes={"mill": []}, hands={P1: ["choleric"] * 4, P2: ["choleric", "sanguine"]}, active=P2)
    state = read(data, snap)
    assert Redraw(P1) in state.legal_actions()  # at any moment, not only on P1's turn
    assert Redraw(P2) not in state.legal_actions()
    state.apply(Redraw(P1))
    assert sum(state.hand(P1).values()) == 4
    assert sum(state.bag(P1).values()) == 16
    with pytest.raises(IllegalAction):
        state.apply(Redraw(P2))


def test_fh_e18_a_player_who_cannot_refill_to_four_ends_the_game(data):
    goals = ["six-tiles", "bridge-pairs", "road-network", "local-lord"]
    snap = table(data, scenes={"mill": []}, goals=goals, bag_limit={P3: 3}, passes=4, round_no=5)
    ruling = end_round(data, snap)
    assert ruling["next_round"] is None
    assert ruling["game_over"]["termination"] == Termination.POTIONS_EXHAUSTED.value


def test_fh_e19_fewer_than_four_scene_cards_left_ends_the_game(data):
    snap = table(data, scenes={"mill": []}, deck=["abbey", "castle", "tower"], passes=4)
    ruling = end_round(data, snap)
    assert ruling["game_over"]["termination"] == "scene_deck_exhausted"
    assert ruling["next_round"] is None


def test_fh_e20_a_sneaker_goes_along_a_path_or_over_a_bridge(data):
    snap = table(data, scenes={"bridgeford": [None, None, (P4, "melancholic")]}, passes=4)
    ruling = end_round(data, snap)
    assert ruling["awaiting"]["owner"] == P4
    assert sorted(ruling["awaiting"]["cells"]) == ["abbey", "mill"]
    with pytest.raises(IllegalAction):
        end_round(data, snap, [{"player": P4, "cell": "castle"}])
    assert landed(end_round(data, snap, [{"player": P4, "cell": "abbey"}])) == [(P4, "melancholic", "abbey")]


def test_fh_e21_the_sixth_tile_completes_the_goal_at_the_next_check(data):
    spread = {cell: [(P2, "sanguine")] for cell in ("mill", "abbey", "castle", "tower", "lodge")}
    snap = table(
        data,
        scenes={"harbour": [None, (P2, "phlegmatic"), None, None]},
        boards={"kingdom": spread},
        goals=["six-tiles", "bridge-pairs", "road-network", "local-lord"],
        passes=4,
    )
    before = read(data, snap)
    assert before.marks["six-tiles"] == []
    ruling = end_round(data, snap)
    assert landed(ruling) == [(P2, "phlegmatic", "harbour")]
    assert {"player": P2, "goal": "six-tiles"} in ruling["goals_marked"]


def test_fh_e22_fief_winner_goes_to_a_cell_of_its_citizen_type(data):
    fief = data.fiefs[P1]
    minstrel_cells = [c.id for c in fief.cells if c.citizen == "minstrel"]
    slots = [(P2, "sanguine"), None, (P1, "sanguine"), None, None, None, None]  # P1 on the minstrel
    snap = table(data, mode="fief", scenes={"mill-fair": slots}, passes=4)
    ruling = end_round(data, snap)
    if len(minstrel_cells) > 1:
        assert ruling["awaiting"]["owner"] == P1 and ruling["awaiting"]["cells"] == minstrel_cells
        ruling = end_round(data, snap, [{"player": P1, "cell": minstrel_cells[-1]}])
    p1_moves = [m for m in ruling["moves"] if m["event"] == "potion_moved" and m["owner"] == P1]
    assert len(p1_moves) == 1
    assert p1_moves[0]["board"] == fief.id and p1_moves[0]["cell"] in minstrel_cells


def test_amb_fh_09_alternative_each_player_passing_once_ends_the_round(data):
    each_once = dataclasses.replace(data, rules=dataclasses.replace(data.rules, passes_to_end_round="each_once"))
    hands = {seat: ["sanguine", "phlegmatic"] for seat in range(4)}
    snap = table(each_once, scenes={"mill": [], "orchard": []}, hands=hands)
    for rules, ends_on_last_pass in ((each_once, True), (data, False)):
        state = read(rules, snap)
        for seat in (P1, P2, P3):
            state.apply(Pass(seat))
        state.apply(Place(P4, "sanguine", Target("scene", "mill", 0)))
        state.apply(Place(P1, "sanguine", Target("scene", "mill", 1)))
        state.apply(Pass(P2))
        state.apply(Pass(P3))
        ended = [e.reason for e in state.apply(Pass(P4)) if isinstance(e, RoundEnded)]
        assert ended == (["all_passed"] if ends_on_last_pass else [])
