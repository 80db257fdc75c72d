"""The effect registry, one test per effect type: what each does to a hunt, a price or a score."""

from __future__ import annotations

from bridge.rules.kill_the_unicorns import effects as fx
from bridge.rules.kill_the_unicorns.records import Effect


def ctx(sums, owner=0, winner=None, passed=()):
    return fx.HuntContext(dict(sums), frozenset(passed), owner, winner)


def test_hunt_sum_delta_changes_the_targets_sums_and_the_winner_follows_the_cascade():
    bomb = Effect("hunt_sum_delta", "on_reveal", target="winner", delta=-2)
    c = ctx({0: 6, 1: 5, 2: 3}, owner=2, winner=0)
    result = fx.apply_hunt_effect(bomb, c)
    assert c.sums == {0: 4, 1: 5, 2: 3} and result.winner == 1 and not result.ignored
    # self: only when the owner hunts; others: everyone but the owner; highest: the holders of the top sum
    assert fx.apply_hunt_effect(Effect("hunt_sum_delta", "on_reveal", target="self", delta=3),
                                ctx({0: 6, 1: 5}, owner=2, winner=0)).ignored
    c = ctx({0: 6, 1: 5, 2: 5}, owner=1)
    fx.apply_hunt_effect(Effect("hunt_sum_delta", "after_reveal", target="others", delta=-1), c)
    assert c.sums == {0: 5, 1: 5, 2: 4}
    c = ctx({0: 6, 1: 6, 2: 5}, owner=2)
    fx.apply_hunt_effect(Effect("hunt_sum_delta", "after_reveal", target="highest", delta=-2), c)
    assert c.sums == {0: 4, 1: 4, 2: 5}
    c = ctx({0: 6, 1: 5}, winner=0)
    assert fx.apply_hunt_effect(Effect("hunt_sum_delta", "on_reveal", target="each_participant", delta=1),
                                c).winner == 0 and c.sums == {0: 7, 1: 6}


def test_hunt_sum_delta_unexplained_decides_the_same_and_leaves_the_detail_empty():
    bomb = Effect("hunt_sum_delta", "on_reveal", target="winner", delta=-2)
    told = fx.apply_hunt_effect(bomb, ctx({0: 6, 1: 5, 2: 3}, owner=2, winner=0))
    quiet_ctx = fx.HuntContext({0: 6, 1: 5, 2: 3}, frozenset(), 2, 0, explain=False)
    quiet = fx.apply_hunt_effect(bomb, quiet_ctx)
    assert told.detail == {"changed": {"0": 4}} and quiet.detail == {}
    decided = (told.winner, told.runs_away, told.ignored)
    assert (quiet.winner, quiet.runs_away, quiet.ignored) == decided == (1, False, False)
    assert quiet_ctx.sums == {0: 4, 1: 5, 2: 3}


def test_hunt_sum_delta_that_leaves_no_unique_sum_makes_the_unicorn_run_away():
    result = fx.apply_hunt_effect(Effect("hunt_sum_delta", "on_reveal", target="winner", delta=-1),
                                  ctx({0: 6, 1: 5}, winner=0))
    assert result.winner is None and result.runs_away


def test_change_winner_second_lowest_and_self_never_to_one_who_passed():
    second = Effect("change_winner", "on_reveal", rule="second")
    assert fx.apply_hunt_effect(second, ctx({0: 6, 1: 5, 2: 5, 3: 2}, winner=0)).winner == 3
    lowest = Effect("change_winner", "on_reveal", rule="lowest")
    assert fx.apply_hunt_effect(lowest, ctx({0: 6, 1: 1, 2: 3}, winner=0)).winner == 1
    me = Effect("change_winner", "on_reveal", rule="self")
    assert fx.apply_hunt_effect(me, ctx({0: 6, 1: 1}, owner=1, winner=0)).winner == 1
    passed = fx.apply_hunt_effect(me, ctx({0: 6, 1: 1}, owner=2, winner=0, passed=(2,)))
    assert passed.ignored and passed.winner == 0
    nobody = fx.apply_hunt_effect(second, ctx({0: 6, 1: 5, 2: 5}, winner=0))
    assert nobody.ignored and nobody.winner == 0


def test_runs_away_leaves_no_winner():
    result = fx.apply_hunt_effect(Effect("runs_away", "on_reveal"), ctx({0: 6}, winner=0))
    assert result.runs_away and result.winner is None


def test_stars_delta_points_and_set_colour_act_on_the_unicorn_at_scoring_the_last_colour_winning():
    on = fx.unicorn_effects([Effect("stars_delta", "at_scoring", delta=2), Effect("points", "at_scoring", delta=-3),
                             Effect("set_colour", "at_scoring", colour="green"),
                             Effect("set_colour", "at_scoring", colour="owner_choice")])
    assert on == fx.UnicornScore(2, -3, "owner_choice")


def test_remove_own_unicorn_respects_max_stars_and_scores_its_points():
    pate = Effect("remove_own_unicorn", "when_bought", points=3, max_stars=1)
    assert fx.may_turn_in(pate, 1) and fx.may_turn_in(pate, -1) and not fx.may_turn_in(pate, 2)
    assert fx.player_points([pate, Effect("points", "at_scoring", delta=2)]) == 5


def test_price_delta_lowers_a_price_never_below_zero():
    assert fx.price_with([Effect("price_delta", "at_market", delta=-2)], 5) == 3
    assert fx.price_with([Effect("price_delta", "at_market", delta=-2)], 1) == 0
    assert fx.price_with([], 4) == 4


def test_the_tie_cascade_of_KU_4_4_and_its_runs_away_variant():
    assert fx.cascade({0: 6, 1: 6, 2: 4, 3: 4, 4: 2}) == 4
    assert fx.cascade({0: 5, 1: 5}) is None
    assert fx.cascade({0: 6, 1: 6, 2: 4}, "runs_away") is None
