"""End to end: `ttsmod build fifteen-days` → the headless table → a real `ttsmod bridge` over sockets.

Scripted players seat, press Setup and play whole games by buttons and drags, each decision one the engine
allows on the table as it lies; after every decision the harness checks the table against the engine's own
state after the same decision (tests/games/fifteen_days/e2e/harness.py, ``Game.check``). Then the cases a host meets:
a refused move put back and explained, the bridge stopped and restarted in the middle of a turn, a reload in the
middle of a turn. The whole game is played on the slow table (``Fidelity.slow()``), which costs no more than the
quick one: its moves take longer on the table's clock, not the test's.
"""

from __future__ import annotations

import pytest

from bridge.rules.errors import IllegalAction
from bridge.rules.fifteen_days.actions import Discard, Draw, Face, Feather, Play, PutWild, TakeWild
from tests.games.fifteen_days.e2e.tableview import physical
from tests.games.fifteen_days.e2e.conftest import start as _start
from tests.games.fifteen_days.e2e.harness import Game
from tools.headless import Fidelity


# The most seats, on the slow table (one-second moves, four-frame spawns, drops landing up to 0.45 units off the
# point aimed at, a 12-frame fall after every drop and smooth move); two in the bot and drag games, on the quick
# table: other sizes check nothing new (the engine's own tests play every size) and each costs half a minute.
@pytest.mark.parametrize("colours, seed", [
    (("White", "Red", "Yellow", "Blue"), 3),
], ids=["4-players-slow-table"])
def test_a_whole_game_ends_with_the_winners_the_engine_names(games, save, data, repo_root, colours, seed):
    game = Game(save, data, repo_root, list(colours), seed=seed, fidelity=Fidelity.slow())
    games.append(game)
    game.start()
    game.play_game()
    assert game.outcome is not None
    # every kind of decision a game needs went through the buttons and drags, each checked against the engine
    for kind in ("draw", "take", "refill", "play", "pay", "end"):
        assert game.kinds.get(kind, 0) > 0, (kind, game.kinds)
    assert game.actions_checked == sum(game.kinds.values())
    winners = " and ".join(game.colours[s] for s in game.outcome.winners)
    assert game.table.ui_value("scoreRound") == f"Final scores · {winners} won"
    assert game.table.errors == []


def test_wilds_feathers_and_hand_limit_discards_by_drag_and_button(games, save, data, repo_root):
    """Players who favour wilds, feathers and drawing: wilds taken by dropping two cards on the wild supply and
    placed by dropping the wild on a card point, feathers spent by button, cards discarded to the hand limit by
    dropping them on the discard pile — each checked against the engine."""
    game = _start(games, save, data, repo_root, ("White", "Red"), seed=9)
    wanted = {"wild", "put-wild", "feather", "discard"}
    weights = {TakeWild: 40.0, PutWild: 1.0, Feather: 3.0, Draw: 4.0, Play: 1.0, Discard: 1.0}
    for _ in range(400):
        if wanted <= set(game.kinds) or game.over:
            break
        game.play(game.pick(weights))
    assert wanted <= set(game.kinds), game.kinds
    told = [m for m, _ in game.table.broadcasts]
    assert any("spends a feather for the" in m for m in told)
    assert any(m.startswith("Drop the wild from your hand on a free card point") for m in told)


def _refused(game, colour, card, since, phrase):
    """The card is back in its owner's hand, the player was told why, and the table is as it was."""
    assert card in game.table.hand(colour)
    told = game.messages_to(colour, since)
    assert any(phrase in m for m in told), told


def test_illegal_moves_are_refused_put_back_and_explained(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red", "Yellow"), seed=5)
    table = game.table
    before = physical(game.read())
    active = game.colours[game.state().active]
    waiting = next(c for c in game.colours if c != active)

    # a waiting player drags a card onto their own board
    card = next(o for o in table.hand(waiting) if o.has_tag("fd-season"))
    since = len(table.broadcasts)
    game.drag_to_point(card, waiting, 0, card.memo_json()["value"])
    game.wait_ready()
    _refused(game, waiting, card, since, f"Not allowed: it is player {game.colours.index(active)}'s turn")
    assert physical(game.read()) == before and table.turns["turn_color"] == active

    # the active player ends the turn before making an action
    since = len(table.broadcasts)
    table.click("endTurn", active)
    game.wait_ready()
    assert "Not allowed: 2 action(s) left this turn." in game.messages_to(active, since)
    assert physical(game.read()) == before

    # the active player plays until a card dropped on a card point is one the engine refuses (a corner of
    # another season, a value already there, a cost the hand cannot pay): back to the hand, the reason told
    for _ in range(60):
        state = game.state()
        seat = state.active
        colour = game.colours[seat]
        legal = set(state.legal_actions())
        tried = None
        if (state.pending is None and state.actions_left > 0) or state.pending == "play":
            for obj in table.hand(colour):
                if not obj.has_tag("fd-season"):
                    continue
                m = obj.memo_json()
                for corner in range(4):
                    action = Play(seat, Face(m["season"], m["value"]), corner)
                    if action not in legal:
                        tried = (obj, corner, action)
                        break
                if tried:
                    break
        if tried is not None:
            break
        game.play(game.pick())
    assert tried is not None, "no refusable play came up"
    obj, corner, action = tried
    before = physical(game.read())
    reason = str(_why(game, action))
    since = len(table.broadcasts)
    game.drag_to_point(obj, colour, corner, action.card.value)
    game.wait_ready()
    _refused(game, colour, obj, since, f"Not allowed: {reason}.")
    assert physical(game.read()) == before
    # and play goes on from the same table
    for _ in range(5):
        game.play(game.pick())


def _why(game, action):
    """The engine's refusal of ``action`` on the table as it lies."""
    try:
        game.state().check(action)
    except IllegalAction as exc:
        return exc
    raise AssertionError(f"{action} is legal")


def _play_until_mid_turn(game):
    """Play until the active player has made one action of two and nothing is pending."""
    for _ in range(200):
        state = game.state()
        if state.actions_left == 1 and state.pending is None and state.turn > 1:
            return state
        game.play(game.pick())
    raise AssertionError("never in the middle of a turn")


def test_bridge_stopped_mid_turn_then_restarted(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red"), seed=6)
    table = game.table
    state = _play_until_mid_turn(game)
    colour = game.colours[state.active]

    # the bridge goes away: a click gets no answer, nothing moves, everyone is told
    game.bridge.stop()
    before = physical(game.read())
    since = len(table.broadcasts)
    table.click("drawPile1", colour)
    assert table.run_until(lambda: "ttsmod bridge" in table.ui_value("bridgeStatus"), max_seconds=30)
    assert table.run_until(game.ready, max_seconds=10)
    assert physical(game.read()) == before
    assert any("not answering" in m for m in game.messages_to(None, since))
    # while it is away a drag is refused at once and goes back to the hand
    card = next(o for o in table.hand(colour) if o.has_tag("fd-season"))
    since = len(table.broadcasts)
    game.drag_to_point(card, colour, 0, card.memo_json()["value"])
    table.run_until(game.ready, max_seconds=5)
    _refused(game, colour, card, since, "The rules bridge is not running")
    assert physical(game.read()) == before

    # back: the mod says hello again and the same turn goes on, every decision checked against the engine
    game.bridge.start()
    assert table.run_until(game.connected, max_seconds=30)
    game.last = None
    assert game.state().actions_left == 1 and table.turns["turn_color"] == colour
    for _ in range(12):
        game.play(game.pick())
    assert game.actions_checked >= 12


def test_reload_mid_turn_and_mid_decision(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red", "Yellow"), seed=7)
    state = _play_until_mid_turn(game)
    before, ledger = game.snapshot(), game.ledger()

    # a host reloads in the middle of a turn: the same table, the same turn, the same bookkeeping
    game.reload()
    assert game.table.run_until(game.connected, max_seconds=30)
    game.wait_ready()
    assert game.snapshot() == before and game.ledger()["snapshot"] == ledger["snapshot"]
    assert game.table.turns["turn_color"] == game.colours[state.active]
    # the score panel is filled again from the bridge's score of the reloaded table
    assert game.table.run_until(lambda: game.table.ui_value("scoreRow1").startswith("White: "), max_seconds=5)
    game.check_scores(state)

    # and again while a decision is open (a Play action waiting for its payment, or a wild for its place)
    for _ in range(200):
        state = game.state()
        if state.pending in ("play", "wild") and state.active is not None:
            break
        game.play(game.pick({Play: 20.0, TakeWild: 20.0}))
    assert state.pending in ("play", "wild")
    before = game.snapshot()
    game.reload()
    assert game.table.run_until(game.connected, max_seconds=30)
    game.wait_ready()
    assert game.snapshot() == before
    for _ in range(15):
        if game.over:
            break
        game.play(game.pick())
    assert game.reloads == 2 and game.actions_checked > 15


def test_reload_while_a_ruling_is_being_applied_finishes_it(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red"), seed=8)
    state = game.state()
    before = game.snapshot()
    action = Draw(state.active, 0)
    game.begin(action)
    # the ruling (action started, a card drawn) is on its way: the host reloads before it is done
    assert game.table.run_until(lambda: game.ledger().get("ruling") is not None and game.ledger()["applied"] >= 1,
                                max_seconds=10)
    game.reload()
    assert game.table.run_until(game.connected, max_seconds=30)
    game.wait_ready()
    game.check(game.expected(before, action, None))
    assert len(game.table.hand(game.colours[state.active])) == 3
