"""End to end with bots in empty seats: `ttsmod build fifteen-days` → the headless table → a real `ttsmod bridge`.

One scripted player (White) sits down, gives the free Red seat a bot with its seat button and presses Setup; the
mod asks the bridge for the bot's moves and performs them on the table (cards moved from its hand, its buttons
pressed) until the game is over. The bridge is stopped and started again while it is the bot's turn, and the host
reloads the table mid-game: the bot seat plays on. Every decision of the game, the bot's and the player's, is
checked against the engine (tests/games/fifteen_days/e2e/botgame.py): the table each was made on is the engine's state
after the one before, each bot decision is the one the engine's bot chooses for the mod's request, and the
winners and scores are the engine's.
"""

from __future__ import annotations

from collections import Counter

from bridge.rules.fifteen_days.actions import Action, Draw, EndTurn
from tests.games.fifteen_days.e2e.botgame import BotGame
from tests.games.fifteen_days.e2e.tableview import physical


def _white(game: BotGame):
    """White's decision: a draw while one is allowed (it brings the game's end nearer: the fewest decisions
    for a whole game), else one the harness picks at random by kind."""
    legal = game.state().legal_actions()
    draws = sorted((a for a in legal if isinstance(a, Draw)), key=lambda a: a.pile)
    return draws[0] if draws else game.pick()


def _announced(action: Action) -> str:
    """What the table tells everyone a bot does (docs/games/fifteen_days/playing.md, Bots in empty seats)."""
    a = action.to_json()
    face = a.get("card") and f"{a['card']['season']} {a['card']['value']}"
    said = {
        "draw": lambda: f"draws a card from pile {a.get('pile', 0) + 1}",
        "refill": lambda: f"refills the market column from pile {a.get('pile', 0) + 1}",
        "take": lambda: ("takes the top card of the discard pile" if a["column"] is None
                         else f"takes the top card of market column {a['column'] + 1}"),
        "wild": lambda: "discards " + " and ".join(f"the {c['season']} {c['value']}" for c in a["cards"])
                        + " for a wild",
        "put-wild": lambda: f"puts the wild into corner {a.get('corner', 0) + 1} as a {a.get('value')}",
        "play": lambda: f"plays the {face} into corner {a.get('corner', 0) + 1}",
        "pay": lambda: f"pays with the {face}",
        "discard": lambda: f"discards the {face} down to the hand limit",
        "feather": lambda: f"spends a feather for the {a.get('animal')}'s power",
        "done": lambda: "is done", "end": lambda: "ends the turn", "pass": lambda: "passes",
    }
    return said[action.name]()


def _restart_on_the_bots_turn(game: BotGame) -> None:
    """White ends the turn; the moment the bot's turn begins the bridge stops. The bot's request gets no answer,
    everyone is told, nothing moves; once the bridge is back the bot asks again for the same decision with the
    same seed and plays on."""
    game.begin(EndTurn(game.colours.index("White")))
    assert game.run(lambda: game.status == "Red to play", 30)
    game.bridge.stop()
    before, asked, since = physical(game.read()), len(game.requests("bot_move")), len(game.table.broadcasts)
    assert game.run(lambda: any("not answering" in m for m in game.messages_to(None, since)), 60)
    assert game.run(game.still, 10)
    lost = game.requests("bot_move")[asked:]
    assert lost, "the bot did not ask for its move"
    assert physical(game.read()) == before and game.status == "Red to play"
    game.bridge.start()
    assert game.run(game.connected, 30)
    game.wait_mine()
    again = game.requests("bot_move")[asked + len(lost)]
    assert (again["seed"], again["snapshot"]) == (lost[0]["seed"], lost[0]["snapshot"])


def test_a_player_and_a_bot_play_a_whole_game_through_a_bridge_restart_and_a_reload(games, save, data, repo_root):
    game = BotGame(save, data, repo_root, ["White"], {"Red": "easy"}, seed=7)
    games.append(game)
    game.start()
    assert not game.table.ui_visible("bot_White") and game.table.ui_value("bot_Red") == "Red: bot (easy)"
    white_turns = 0
    restarted = reloaded = False
    while not game.over:
        action = _white(game)
        if isinstance(action, EndTurn):
            white_turns += 1
            if white_turns == 2 and not restarted:
                _restart_on_the_bots_turn(game)
                restarted = True
                continue
            if white_turns == 3 and not reloaded:
                before = game.snapshot()
                game.reload()
                assert game.run(game.connected, 30)
                game.wait_mine()
                assert game.snapshot() == before
                assert game.table.ui_value("bot_Red") == "Red: bot (easy)"
                reloaded = True
        game.decide(action)
    assert restarted and reloaded

    state = game.chain()
    assert state.is_over()
    game.check_table(state)
    moves = game.bot_moves()
    reds = [body for body in game.all_requests("legal") if body["action"]["player"] == 1]
    assert len(moves) == len(reds), "every Red decision was its bot's"
    kinds = Counter(action.name for _, action in moves)
    # this deal (table seed 7) has the bot move cards of every kind: played, paid, discarded to the hand limit,
    # two offered for a wild and the wild placed; and press buttons: draw, take, end
    assert {"play", "pay", "discard", "wild", "put-wild", "draw", "take", "end"} <= set(kinds), kinds
    # the announcements on the table since the reload: one per bot decision made there, saying what it did
    told = [m for m in game.messages_to(None) if m.startswith("Red (bot")]
    made = game.bot_moves_in(game.sent)
    assert made and told == [f"Red (bot, easy) {_announced(action)}." for _, action in made]

    outcome = state.outcome()
    winners = " and ".join(game.colours[s] for s in outcome.winners)
    assert game.status == f"Game over · {winners} won"
    assert game.messages_to(None)[-1] == f"Game over: {winners} won (decided by {outcome.decided_by})."
    for row in state.standings():
        assert game.table.ui_value(f"scoreRow{row.player + 1}").startswith(f"{game.colours[row.player]}: {row.score} ")
    assert not game.table.ui_visible("botPanel")
    assert game.table.errors == []
