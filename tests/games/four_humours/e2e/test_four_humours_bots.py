"""End to end with a bot in a free seat: `ttsmod build four-humours` → the headless table → a real `ttsmod bridge`.

White sits at the table; Red's seat is given an easy bot with its seat button before Setup. White plays what the
engine picks, the bot plays Red's placements, passes, redraws and cell choices on the table through `bot_move`;
the bridge is stopped while the bot is to play and started again, and the bot plays on. Every round is checked
against the engine as in the players' games (the snapshot the mod sent, the table after the ruling — goals,
boards, scores — and at the end the winners the engine names; tests/games/four_humours/e2e/harness.py).
"""

from __future__ import annotations

from tests.games.four_humours.e2e.harness import Game
from tests.games.four_humours.e2e.tableview import physical


def test_a_player_and_an_easy_bot_play_a_whole_game_and_the_bot_plays_on_after_a_bridge_restart(
        games, kingdom_save, data, repo_root):
    game = Game.started(games, kingdom_save, data, repo_root, ["White", "Red"], seed=3, bots={"Red": "easy"})
    table = game.table
    assert game.ledger()["colours"] == ["White", "Red"]          # Setup counted the bot seat
    assert game.bot_label("Red") == "Red: bot (easy)" and table.ui_visible("bot_Red", "White")
    assert not table.ui_visible("bot_White")                     # a seated player's seat has no button

    # play until the bot is to play right after White's move, then stop the bridge
    for _ in range(200):
        game.wait_for_humans()
        game.step(pass_rate=0)
        if game.deciding() == "Red" and "to play" in game.status:
            break
    else:
        raise AssertionError("Red's turn never followed White's")
    decided = game.ledger()["bots"]["decisions"]
    game.bridge.stop()
    before = physical(game.read())
    assert table.run_until(lambda: "ttsmod bridge" in table.ui_value("bridgeStatus"), max_seconds=60)
    asked = game.requests("bot_move")
    assert asked and len({m["seed"] for m in asked[-2:]}) == 1   # the lost request, sent once more
    assert physical(game.read()) == before and game.deciding() == "Red"
    assert game.ledger()["bots"]["decisions"] == decided

    # the bridge is back: the mod's hello finds it and the bot asks again for the same decision, same seed
    game.bridge.start()
    assert table.run_until(game.connected, max_seconds=30)
    game.wait_for_humans()
    after = game.requests("bot_move")[len(asked)]
    assert after["seed"] == asked[-1]["seed"] and after["level"] == "easy"
    assert game.ledger()["bots"]["decisions"] > decided

    game.play_with_bots(pass_rate=0.05)
    assert game.outcome is not None and game.rounds_checked >= 2
    winners = [game.colours[s] for s in game.outcome.winners]
    final = [m for m in game.messages_to(None) if m.startswith("Game over")][-1]
    assert " and ".join(winners) + (" wins" if len(winners) == 1 else " share the win") in final
    # every bot decision was announced once, none was refused, and the seat buttons are gone
    said = game.bot_announcements()
    assert said and all(m.startswith("Red (bot, easy) ") for m in said)
    assert len(said) == game.ledger()["bots"]["decisions"]
    assert not any("bot is off" in m for m in game.messages_to(None))
    assert not table.ui_visible("botPanel")
