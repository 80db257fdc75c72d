"""Random playouts at every player count: the game lasts exactly the days of the rules, the trick decks run out
exactly (8 tricks = 4 days × 2 draws), hunting cards all come back, and the figures of ttsmod simulate add up."""

from __future__ import annotations

from bridge.rules.kill_the_unicorns.game import KILL_THE_UNICORNS
from bridge.rules.playout import play_random_game


def test_every_player_count_plays_four_days_and_uses_every_trick(ku_data):
    for players in range(3, 8):
        for seed in (1, 2):
            days = []
            playout = play_random_game(KILL_THE_UNICORNS, ku_data, players, seed=seed,
                                       on_step=lambda s, a, events: days.extend(
                                           e.day for e in events if e.kind == "day_ended"))
            state = playout.state
            assert days == [1, 2, 3, 4]
            assert all(not deck and not hand for deck, hand in zip(state.trick_deck, state.trick_hand))
            assert all(len(hand) == 8 for hand in state.hand)
            # 4 days of 4 unicorns left the deck, and one more for a seventh player (6 start unicorns)
            assert len(state.unicorn_deck) == len(ku_data.deck_unicorns) - 16 - max(0, players - 6)


def test_simulate_figures(ku_data):
    summaries = [KILL_THE_UNICORNS.summary(p.state, p.actions)
                 for p in (play_random_game(KILL_THE_UNICORNS, ku_data, 4, seed=s) for s in range(20))]
    figures = KILL_THE_UNICORNS.aggregate(summaries, 4)
    assert sum(figures["win_rate_by_seat"]) >= 1 - 1e-9       # every game has a winner (shared wins count twice)
    assert set(figures["win_rate_by_character"]) <= {c.id for c in ku_data.characters}
    assert 0 <= figures["ran_away_per_game"] <= 16
    parts = figures["mean_stars"] + figures["mean_modifiers"] + figures["mean_collections"] + figures["mean_rainbows"]
    assert abs(figures["mean_score"] - parts) < 1e-3
