"""Every rule flag of game.toml [rules] changes what it should (docs/games/kill_the_unicorns/rules.md)."""

from __future__ import annotations

import dataclasses

from bridge.rules.kill_the_unicorns.actions import Buy, Join, Open, Pass, Skip, UsePower
from bridge.rules.kill_the_unicorns.scoring import ScoredUnicorn, Standing, decide, standing
from bridge.rules.kill_the_unicorns.state import GameState, new_game
from bridge.rules.playout import play_random_game
from bridge.rules.kill_the_unicorns.game import KILL_THE_UNICORNS
from tests.games.kill_the_unicorns.rules.tables import at_hunt, hunt, kinds, of, play, with_rules
from tests.games.kill_the_unicorns.rules.test_worked_examples import _market

COLOURS = ("green", "blue", "pink", "yellow")


def test_tie_rule_runs_away_makes_any_top_tie_end_the_hunt(ku_data):
    state = at_hunt(with_rules(ku_data, tie_rule="runs_away"), 3)
    events = play(state, Open(0, tuple(hunt(0, 4, 2))), Join(1, tuple(hunt(1, 4, 2))), Join(2, tuple(hunt(2, 2, 2))))
    assert "ran_away" in kinds(events)


def test_decline_to_open_passes_off_lets_a_decliner_join(ku_data):
    state = at_hunt(with_rules(ku_data, decline_to_open_passes=False), 3)
    play(state, Pass(0), Open(1, tuple(hunt(1, 4))), Pass(2))
    assert state.to_move() == 0 and state.pending_decision == "join"
    state = at_hunt(ku_data, 3)
    events = play(state, Pass(0), Open(1, tuple(hunt(1, 4))), Pass(2))
    assert "revealed" in kinds(events)


def test_price_rule_count_pays_by_number_of_cards(ku_data):
    # cotton candy costs 2: a 0 and a 1 are two cards (count) but only 1 in value (sum)
    for data, affordable in ((with_rules(ku_data, price_rule="count"), True), (ku_data, False)):
        state = _market(data, {0: hunt(0, 0, 1)})
        buy = Buy(0, "cotton_candy", tuple(hunt(0, 0, 1)), state.catch[0][0][0])
        assert (buy.item in {a.item for a in state.legal_actions() if isinstance(a, Buy)}) is affordable
        if affordable:
            state.apply(buy)
            assert state.tokens[0] == [] and state.catch[0][0][2] == ["cotton_candy-4"]


def test_token_target_any_unicorn_lets_a_token_go_on_a_rival(ku_data):
    rival = None
    for data, allowed in ((ku_data, False), (with_rules(ku_data, token_target="any_unicorn"), True)):
        state = _market(data, {0: hunt(0, 4, 3)})
        rival = state.catch[1][0][0]
        targets = {a.unicorn for a in state.legal_actions() if isinstance(a, Buy) and a.item == "fake_horn"}
        assert (rival in targets) is allowed


def test_sixth_scores_nothing_and_the_collection_table(ku_data):
    six = [ScoredUnicorn(2, "green")] * 6
    assert standing(0, six, 0, COLOURS, ku_data.rules).score == 24
    assert standing(0, six, 0, COLOURS, dataclasses.replace(ku_data.rules, sixth_scores_nothing=True)).score == 22
    cheap = dataclasses.replace(ku_data.rules, collection_bonus=(0, 1, 2, 3), collection_cap=3, rainbow_bonus=1)
    assert standing(0, six, 0, COLOURS, cheap).score == 12 + 3


def test_rainbow_bonus_decides_whether_a_rainbow_is_made(ku_data):
    four = [ScoredUnicorn(0, c) for c in COLOURS] + [ScoredUnicorn(0, "green")] * 3
    assert standing(0, four, 0, COLOURS, ku_data.rules).rainbow_sets == 1
    assert standing(0, four, 0, COLOURS, dataclasses.replace(ku_data.rules, rainbow_bonus=0)).rainbow_sets == 0


def test_double_rainbow_wins_and_tie_break(ku_data):
    rich = Standing(0, 40, 0, 0, 0, 0, 0, 5, {}, False)
    rainbow = Standing(1, 20, 0, 0, 0, 0, 2, 8, {}, True)
    assert decide([rich, rainbow], ku_data.rules) == ((1,), "double_rainbow")
    a, b = Standing(0, 30, 0, 0, 0, 0, 0, 7, {}, False), Standing(1, 30, 0, 0, 0, 0, 0, 6, {}, False)
    assert decide([a, b], ku_data.rules) == ((0,), "unicorns")
    assert decide([a, b], dataclasses.replace(ku_data.rules, tie_break="shared")) == ((0, 1), "shared")


def test_trick_choice_random_draws_the_trick_without_asking(ku_data):
    from tests.games.kill_the_unicorns.rules.tables import trick_of
    slots = {(0, "above"): trick_of(ku_data, "wizard", "rotten_horn"),
             (0, "below"): trick_of(ku_data, "princess", "golden_saddle")}
    state = at_hunt(with_rules(ku_data, trick_choice="random"), 3, slots=slots)
    events = play(state, Open(0, tuple(hunt(0, 4))), Pass(1), Pass(2))
    assert "trick_revealed" in kinds(events) and "trick_unplayed" in kinds(events)
    state = at_hunt(ku_data, 3, slots=slots)
    play(state, Open(0, tuple(hunt(0, 4))), Pass(1), Pass(2))
    assert state.pending_decision == "choose_trick"


def test_power_uses_per_day(ku_data):
    state = at_hunt(ku_data, 3)
    state.apply(Open(0, tuple(hunt(0, 4))))
    state.apply(Pass(1))
    state.apply(Pass(2))
    assert state.pending_decision == "power"        # the princess may add 1
    events = [e.to_json() for e in state.apply(UsePower(0))]
    assert of(events, "power_used")[0]["detail"]["sums"] == {"0": 5}
    state = at_hunt(with_rules(ku_data, power_uses_per_day=0), 3)
    play_events = [e.to_json() for a in (Open(0, tuple(hunt(0, 4))), Pass(1), Pass(2)) for e in state.apply(a)]
    assert "captured" in kinds(play_events)


def test_first_player_host_and_promo_characters(ku_data):
    host = with_rules(ku_data, first_player="host")
    assert all(new_game(host, 4, seed=s).first == 0 for s in range(5))
    assert len({new_game(ku_data, 4, seed=s).first for s in range(20)}) > 1
    assert all("black_mage" not in new_game(ku_data, 6, seed=s).chars for s in range(20))
    assert "black_mage" in new_game(ku_data, 7, seed=1).chars
    always = with_rules(ku_data, promo_characters="always")
    assert any("black_mage" in new_game(always, 3, seed=s).chars for s in range(30))


def test_mandatory_trick_off_lets_a_player_discard_both(ku_data):
    state = new_game(with_rules(ku_data, mandatory_trick=False), 3, seed=1)
    seat = state.to_move()
    assert Skip(seat) in state.legal_actions()
    events = [e.to_json() for e in state.apply(Skip(seat))]
    assert [e["event"] for e in events[:2]] == ["trick_discarded", "trick_discarded"]
    assert Skip(state.to_move()) not in new_game(ku_data, 3, seed=1).legal_actions()


def test_days_unicorns_per_day_tricks_drawn_max_hunt_cards_and_hunting_values(ku_data):
    data = with_rules(ku_data, days=2, unicorns_per_day=3, tricks_drawn=1, max_hunt_cards=2,
                      hunting_values=(1, 1, 1, 1, 1, 1, 1, 1))
    state = new_game(data, 3, seed=2)
    assert len(state.line) == 3 and all(len(h) == 1 for h in state.trick_hand)
    playout = play_random_game(KILL_THE_UNICORNS, data, 3, seed=2)
    assert playout.state.day == 2 and playout.state.is_over()
    state = at_hunt(data, 3)
    assert max(len(a.cards) for a in state.legal_actions() if isinstance(a, Open)) == 2
    assert len([a for a in state.legal_actions() if isinstance(a, Open)]) == 2   # all values equal: 1 per n
