"""Rules-spec §4.7, KU-E1 … KU-E19, each played on the engine (seats are 0-based: P1 is seat 0).

Hunting values are the sample's [0, 1, 1, 2, 2, 3, 3, 4]; powers that would be offered after a reveal are
declined unless the example is about them."""

from __future__ import annotations

import dataclasses

from bridge.rules.errors import IllegalAction
from bridge.rules.kill_the_unicorns.actions import Buy, ChooseTrick, Join, Open, Pass, PlaceTrick, Skip
from bridge.rules.kill_the_unicorns.scoring import ScoredUnicorn, Standing, decide, standing
from bridge.rules.kill_the_unicorns.state import GameState, new_game
from bridge.rules.playout import chooser_for
from tests.games.kill_the_unicorns.rules.tables import (
    CHARACTERS, at_hunt, hunt, kinds, of, play, trick_of, with_rules)

import pytest

COLOURS = ("green", "blue", "pink", "yellow")


def winner_event(events):
    return of(events, "winner")[0]


def test_KU_E1_the_unique_highest_sum_wins(ku_data):
    state = at_hunt(ku_data, 3)
    events = play(state, Open(0, tuple(hunt(0, 4, 2))), Join(1, tuple(hunt(1, 0, 3))), Join(2, tuple(hunt(2, 2, 3))))
    assert of(events, "revealed")[0]["sums"] == {"0": 6, "1": 3, "2": 5}
    assert winner_event(events) == {"event": "winner", "player": 0, "dropped": []}
    assert of(events, "captured")[0]["player"] == 0


def test_KU_E2_top_tie_drops_out_and_the_next_sum_wins(ku_data):
    state = at_hunt(ku_data, 3)
    events = play(state, Open(0, tuple(hunt(0, 4, 2))), Join(1, tuple(hunt(1, 4, 2))), Join(2, tuple(hunt(2, 2, 2))))
    assert winner_event(events) == {"event": "winner", "player": 2, "dropped": [[0, 1]]}
    assert of(events, "captured")[0]["player"] == 2


def test_KU_E3_top_and_second_ties_drop_out_and_the_lowest_unique_sum_wins(ku_data):
    state = at_hunt(ku_data, 5)
    events = play(state, Open(0, tuple(hunt(0, 4, 2))), Join(1, tuple(hunt(1, 4, 2))),
                  Join(2, tuple(hunt(2, 2, 2))), Join(3, tuple(hunt(3, 2, 2))), Join(4, tuple(hunt(4, 1, 1))))
    assert winner_event(events) == {"event": "winner", "player": 4, "dropped": [[0, 1], [2, 3]]}


def test_KU_E4_two_equal_sums_and_the_unicorn_runs_away_with_its_tricks(ku_data):
    trick = trick_of(ku_data, "wizard", "stink_bomb")
    state = at_hunt(ku_data, 3, slots={(0, "above"): trick})
    unicorn = state.line[0]
    events = play(state, Open(0, tuple(hunt(0, 3, 2))), Join(1, tuple(hunt(1, 3, 2))), Pass(2))
    assert winner_event(events)["player"] is None
    assert of(events, "ran_away") == [{"event": "ran_away", "unicorn": unicorn, "tricks": [trick]}]
    assert "trick_revealed" not in kinds(events) and "trick_applied" not in kinds(events)
    snap = state.to_snapshot()
    assert unicorn in snap["unicorn_discard"] and trick in snap["players"][2]["trick_discard"]
    assert snap["first"] == 0 and "first_player" not in kinds(events)


def test_KU_E5_a_lone_hunter_with_a_zero_wins(ku_data):
    state = at_hunt(ku_data, 3)
    events = play(state, Pass(0), Pass(1), Open(2, tuple(hunt(2, 0))))
    assert of(events, "revealed")[0]["sums"] == {"2": 0}
    assert of(events, "captured")[0]["player"] == 2


def test_KU_E6_token_moves_a_short_player_must_pass_a_decliner_cannot_join(ku_data):
    state = at_hunt(ku_data, 4, hands={3: hunt(3, 4)})
    events = play(state, Pass(0))
    assert of(events, "token_passed") == [{"event": "token_passed", "from": 0, "to": 1}]
    assert state.first == 1 and state.to_move() == 1
    events = play(state, Open(1, tuple(hunt(1, 4, 3))), Join(2, tuple(hunt(2, 1, 1))))
    assert {"event": "passed", "player": 3, "forced": True} in events
    assert not any(e["event"] in ("joined", "passed") and e["player"] == 0 for e in events)
    assert set(of(events, "revealed")[0]["sums"]) == {"1", "2"}


def test_KU_E7_everyone_declines_and_the_token_comes_back(ku_data):
    state = at_hunt(ku_data, 4)
    unicorn = state.line[0]
    events = play(state, Pass(0), Pass(1), Pass(2), Pass(3))
    assert [(e["from"], e["to"]) for e in of(events, "token_passed")] == [(0, 1), (1, 2), (2, 3), (3, 0)]
    assert of(events, "ran_away")[0]["unicorn"] == unicorn
    assert state.first == 0


def test_KU_E8_the_winner_picks_below_and_the_other_trick_is_discarded_unplayed(ku_data):
    above = trick_of(ku_data, "wizard", "rotten_horn")
    below = trick_of(ku_data, "huntress", "rotten_horn")
    state = at_hunt(ku_data, 4, slots={(0, "above"): above, (0, "below"): below})
    play(state, Open(0, tuple(hunt(0, 1))), Join(1, tuple(hunt(1, 4))), Join(2, tuple(hunt(2, 2))),
         Join(3, tuple(hunt(3, 0))))
    assert state.pending_decision == "choose_trick" and state.to_move() == 1
    events = play(state, ChooseTrick(1, "below"))
    assert of(events, "trick_revealed") == [{"event": "trick_revealed", "card": below, "owner": 3, "unicorn": 0,
                                             "slot": "below"}]
    assert of(events, "trick_applied")[0]["card"] == below
    assert of(events, "trick_unplayed") == [{"event": "trick_unplayed", "card": above, "owner": 2}]
    assert above in state.to_snapshot()["players"][2]["trick_discard"]


def test_KU_E9_a_trick_never_hands_the_unicorn_to_a_player_who_passed(ku_data):
    # P1 (seat 0) placed a "you win it" trick, then passed: applied with P2 (seat 1) winning, its change of
    # winner is ignored and the unicorn goes to the provisional winner.
    decree = trick_of(ku_data, "princess", "royal_decree")
    state = at_hunt(ku_data, 3, slots={(0, "below"): decree})
    events = play(state, Pass(0), Open(1, tuple(hunt(1, 4))), Join(2, tuple(hunt(2, 1))))
    applied = of(events, "trick_applied")[0]
    assert applied["card"] == decree and applied["ignored"] is True
    assert applied["winner_before"] == 1 and applied["winner_after"] == 1
    assert of(events, "captured")[0]["player"] == 1


def test_KU_E10_a_pinned_trick_travels_with_the_unicorn_and_scores(ku_data):
    saddle = trick_of(ku_data, "princess", "golden_saddle")
    state = at_hunt(ku_data, 3, slots={(0, "above"): saddle})
    before = state.standings()[1]
    unicorn = state.line[0]
    events = play(state, Open(0, tuple(hunt(0, 1))), Join(1, tuple(hunt(1, 4))), Pass(2))
    assert of(events, "captured") == [{"event": "captured", "player": 1, "unicorn": unicorn, "pinned": [saddle]}]
    assert {"unicorn": unicorn, "pinned": [saddle], "tokens": []} in state.to_snapshot()["players"][1]["catch"]
    assert state.standings()[1].modifiers == before.modifiers + 2


def test_KU_E11_the_catcher_of_hunt_2_opens_hunt_3(ku_data):
    state = at_hunt(ku_data, 3, index=1)
    events = play(state, Open(0, tuple(hunt(0, 1))), Join(1, tuple(hunt(1, 0))), Join(2, tuple(hunt(2, 4))))
    assert of(events, "first_player") == [{"event": "first_player", "player": 2}]
    assert of(events, "hunt_started")[0] == {"event": "hunt_started", "index": 2, "unicorn": state.line[2],
                                             "holder": 2}
    assert state.to_move() == 2 and state.pending_decision == "open"


def test_KU_E12_a_unicorn_with_both_tricks_takes_no_third(ku_data):
    state = new_game(ku_data, 4, seed=3, characters=list(CHARACTERS[:4]))
    order = [(state.first + i) % 4 for i in range(4)]
    a, b, c = order[0], order[1], order[2]
    state.apply(PlaceTrick(a, state.trick_hand[a][0], 2, "above"))
    state.apply(PlaceTrick(b, state.trick_hand[b][0], 2, "below"))
    assert all(action.unicorn != 2 for action in state.legal_actions())
    with pytest.raises(IllegalAction) as refused:
        state.apply(PlaceTrick(c, state.trick_hand[c][0], 2, "above"))
    assert refused.value.reason == "slot_taken"


def _market(data, hands):
    state = at_hunt(data, 3, hands=hands)
    snap = state.to_snapshot()
    snap.update(phase="market", hunt=None, line=[None] * 4, pending={"player": 0, "decision": "market"})
    for u in state.line:
        snap["unicorn_discard"].append(u)
    return GameState.from_snapshot(data, snap)


def test_KU_E13_pay_with_cards_whose_values_cover_the_price_one_item_each(ku_data):
    data = dataclasses.replace(ku_data, market=tuple(dataclasses.replace(m, price=4) for m in ku_data.market))
    state = _market(data, {0: hunt(0, 0, 1, 3), 1: hunt(1, 0, 2), 2: hunt(2, 0, 2)})
    assert any(isinstance(a, Buy) for a in state.legal_actions())
    events = play(state, Buy(0, "fake_horn", tuple(hunt(0, 1, 3)), state.catch[0][0][0]))
    # seats 1 and 2 hold 0 + 2 < 4: they skip by force; the day ends
    assert of(events, "skipped") == [{"event": "skipped", "player": 1, "forced": True},
                                     {"event": "skipped", "player": 2, "forced": True}]
    assert "day_ended" in kinds(events)
    state = _market(data, {0: hunt(0, 0, 1, 3), 1: hunt(1, 0, 2), 2: hunt(2, 0, 2)})
    with pytest.raises(IllegalAction) as refused:
        state.apply(Buy(0, "fake_horn", tuple(hunt(0, 0, 3)), state.catch[0][0][0]))
    assert refused.value.reason == "cannot_afford"


def _score(counts: dict, stars: int = 0, **flags) -> Standing:
    from tests.games.kill_the_unicorns.rules.tables import sample_data
    rules = dataclasses.replace(sample_data().rules, **flags)
    unicorns = [ScoredUnicorn(stars, colour) for colour, n in counts.items() for _ in range(n)]
    return standing(0, unicorns, 0, COLOURS, rules)


def test_KU_E14_one_rainbow_beats_five_of_a_colour_alone():
    s = _score({"green": 5, "blue": 1, "pink": 1, "yellow": 1})
    assert (s.collections + s.rainbows, s.rainbow_sets) == (16, 1)


def test_KU_E15_two_rainbows_are_best_and_win_only_with_the_flag():
    s = _score({"green": 6, "blue": 2, "pink": 2, "yellow": 2})
    assert (s.collections + s.rainbows, s.rainbow_sets, s.double_rainbow) == (24, 2, False)
    assert _score({"green": 6, "blue": 2, "pink": 2, "yellow": 2}, double_rainbow_wins=True).double_rainbow


def test_KU_E16_the_sixth_green_scores_stars_but_no_more_collection():
    assert _score({"green": 6}, stars=2).score == 24
    assert _score({"green": 6}, stars=2, sixth_scores_nothing=True).score == 22


def test_KU_E17_a_legendary_unicorn_scores_its_stars_only(ku_data):
    s = standing(0, [ScoredUnicorn(4, None)], 0, COLOURS, ku_data.rules)
    assert (s.score, s.stars, s.collections, s.rainbows, s.colours) == (4, 4, 0, 0, dict.fromkeys(COLOURS, 0))


def test_KU_E18_equal_totals_go_to_the_player_with_more_unicorns(ku_data):
    def st(player, unicorns):
        return Standing(player, 31, 31, 0, 0, 0, 0, unicorns, {}, False)
    assert decide([st(0, 7), st(1, 5), st(2, 2), st(3, 6)], ku_data.rules) == ((0,), "unicorns")
    assert decide([st(0, 6), st(3, 6)], ku_data.rules) == ((0, 3), "shared")


def test_KU_E19_day_2_ends_hands_back_new_line_token_with_the_last_catcher(ku_data):
    for seed in (11, 12, 13, 14):
        state = new_game(ku_data, 4, seed=seed)
        chooser = chooser_for(seed)
        hunt_4_caught_by = token_after_hunt_4 = None
        in_hunt_4 = False
        while True:
            legal = state.legal_actions()
            events = [e.to_json() for e in state.apply(legal[chooser.randbelow(len(legal))])]
            for e in events:
                if e["event"] == "hunt_started" and state.day == 2:
                    in_hunt_4 = e["index"] == 3
                if in_hunt_4 and e["event"] in ("captured", "ran_away"):
                    hunt_4_caught_by = e.get("player")
                    token_after_hunt_4 = state.first      # the market never moves the token
                    in_hunt_4 = False
            if any(e["event"] == "day_ended" and e["day"] == 2 for e in events):
                break
        assert all(len(hand) == 8 for hand in state.hand)
        assert state.day == 3 and len(state.line) == 4 and None not in state.line
        assert not set(state.line) & {u for mine in state.catch for u, _, _ in mine}
        assert state.first == token_after_hunt_4
        if hunt_4_caught_by is not None:
            assert state.first == hunt_4_caught_by
