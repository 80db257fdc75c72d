"""Random 15 Days playouts: every game ends well within the cap, and the simulate figures add up."""

from __future__ import annotations

from bridge.rules.fifteen_days import FIFTEEN_DAYS
from bridge.rules.fifteen_days import events as ev
from bridge.rules.playout import game_seeds, play_random_game

CAP = 2000   # a random 4-player game takes about 250 decisions


def test_random_four_player_games_end_within_the_cap(fd_data):
    for seed in game_seeds(7, 20):
        playout = play_random_game(FIFTEEN_DAYS, fd_data, 4, seed=seed, max_actions=CAP)
        outcome = playout.state.outcome()
        assert outcome.reason in ("complete_sets", "draw_pile") and outcome.winners


def test_summary_counts_the_turns_played_and_the_end(fd_data):
    turns = [1]
    playout = play_random_game(FIFTEEN_DAYS, fd_data, 3, seed=11, on_step=lambda _s, _a, events: turns.extend(
        1 for e in events if isinstance(e, ev.TurnStarted)))
    summary = FIFTEEN_DAYS.summary(playout.state, playout.actions)
    assert summary["turns"] == len(turns) and summary["actions"] == len(playout.actions)
    assert summary["termination"] == playout.state.over
    assert summary["scores"] == [s.score for s in playout.state.standings()]
    assert set(summary["animals"]) == {"otter", "frog", "squirrel", "rabbit"}


def test_aggregate_figures_add_up(fd_data):
    summaries = []
    for seed in game_seeds(3, 30):
        playout = play_random_game(FIFTEEN_DAYS, fd_data, 4, seed=seed)
        summaries.append(FIFTEEN_DAYS.summary(playout.state, playout.actions))
    figures = FIFTEEN_DAYS.aggregate(summaries, 4)
    assert sum(figures["terminations"].values()) == 30 and sum(figures["decided_by"].values()) == 30
    assert figures["mean_turns"] == round(sum(s["turns"] for s in summaries) / 30, 4)
    wins = sum(len(s["winners"]) for s in summaries)
    assert round(sum(figures["win_rate_by_seat"]) * 30) == wins
    for animal, rate in figures["animal_owned_rate"].items():
        assert abs(sum(figures["animal_owner_by_seat"][animal]) - rate) < 1e-3
