"""End to end: `ttsmod build kill-the-unicorns` → the headless table → a real `ttsmod bridge` over sockets.

Scripted players seat, press Setup and play whole games by drags and buttons, each decision one the engine allows
on the table as it lies; after every decision (every trick placed, every hunt decision, every purchase) the
harness checks the table against the engine's own state after the same decision
(tests/games/kill_the_unicorns/e2e/harness.py, ``Game.check``). Then the cases a host meets: a refused move put back and
explained, the bridge stopped and restarted in the middle of a game, a reload in the middle of a hunt and one in
the middle of a ruling (a capture, a purchase). The whole game is played on the slow table (``Fidelity.slow()``),
which costs no more than the quick one: its moves take longer on the table's clock, not the test's.
"""

from __future__ import annotations

import pytest

from tests.games.kill_the_unicorns.e2e.conftest import start as _start
from tests.games.kill_the_unicorns.e2e.harness import Game
from tests.games.kill_the_unicorns.e2e.tableview import physical, zone
from tools.headless import Fidelity


# The most seats, on the slow table (one-second moves, four-frame spawns, drops landing up to 0.45 units off the
# point aimed at; the table read only once the mod's moves have ended); three in the reload and bot games, on the
# quick table: other sizes check nothing new (the engine's own tests play every size) and each costs half a minute.
@pytest.mark.parametrize("colours, seed", [
    (("White", "Red", "Orange", "Yellow", "Green", "Blue"), 3),
], ids=["6-players-slow-table"])
def test_a_whole_game_ends_with_the_winners_the_engine_names(games, save, data, repo_root, colours, seed):
    game = Game(save, data, repo_root, list(colours), seed=seed, fidelity=Fidelity.slow())
    games.append(game)
    game.start()
    game.play_game()
    assert game.over_checked
    # KU-2: every phase of a day went through the table, each decision checked against the engine
    for kind in ("place-trick", "open", "pass", "buy"):
        assert game.kinds.get(kind, 0) > 0, (kind, game.kinds)
    assert game.kinds["place-trick"] == 4 * len(colours)
    assert game.actions_checked == sum(game.kinds.values())
    assert game.table.ui_value("scoreRound").startswith("Final scores")
    assert game.table.errors == []


def _first_trick_turn(game):
    state = game.state()
    snap = game.snapshot()
    seat = snap["pending"]["player"]
    return seat, game.colours[seat], snap


def test_a_refused_trick_goes_back_to_the_hand_with_the_reason(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red", "Orange"), seed=5)
    table = game.table
    seat, colour, snap = _first_trick_turn(game)
    before = physical(game.read())
    # a player whose turn it is not drops a trick on a slot: refused, back in the hand, told why
    waiting = next(c for c in game.colours if c != colour)
    card = game.obj(snap["players"][game.colours.index(waiting)]["trick_hand"][0])
    since = len(table.broadcasts)
    game.drag(card, waiting, zone(table, "ku-trick-slot", index=0, slot="above").position)
    game.wait_ready()
    assert card in table.hand(waiting)
    told = game.messages_to(waiting, since)
    assert any(m.startswith("Not allowed: ") for m in told), told
    assert physical(game.read()) == before
    # the player to place does it; then the next one tries the same slot: refused, the first trick stays
    action = next(a for a in game.state().legal_actions()
                  if a.to_json()["unicorn"] == 0 and a.to_json()["slot"] == "above")
    game.play(action)
    seat2, colour2, snap2 = _first_trick_turn(game)
    card2 = game.obj(snap2["players"][seat2]["trick_hand"][0])
    before = physical(game.read())
    since = len(table.broadcasts)
    game.drag(card2, colour2, zone(table, "ku-trick-slot", index=0, slot="above").position)
    game.wait_ready()
    assert card2 in table.hand(colour2)
    assert any(m.startswith("Not allowed: ") for m in game.messages_to(colour2, since))
    assert physical(game.read()) == before
    # and play goes on from the same table
    for _ in range(4):
        game.play(game.pick())


def _play_until(game, decision, max_actions=300):
    for _ in range(max_actions):
        pending = game.snapshot().get("pending") or {}
        if pending.get("decision") == decision:
            return pending
        game.play(game.pick())
    raise AssertionError(f"no {decision} decision came up")


def test_bridge_stopped_mid_game_then_restarted(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red", "Orange", "Yellow"), seed=6)
    table = game.table
    pending = _play_until(game, "open")
    colour = game.colours[pending["player"]]
    # the bridge goes away: a click gets no answer, nothing moves, everyone is told
    game.bridge.stop()
    before = physical(game.read())
    since = len(table.broadcasts)
    table.click("passButton", colour)
    assert table.run_until(lambda: "ttsmod bridge" in table.ui_value("bridgeStatus"), max_seconds=30)
    assert table.run_until(game.ready, max_seconds=10)
    assert physical(game.read()) == before
    assert any("not answering" in m for m in game.messages_to(None, since))
    # while it is away, a hunt is refused at once and the laid cards go back to the hand
    card = game.obj(game.snapshot()["players"][pending["player"]]["hand"][0])
    area = zone(table, "ku-hunt-area", owner=colour)
    game.drag(card, colour, area.position)
    since = len(table.broadcasts)
    table.click("huntButton", colour)
    table.run_until(game.ready, max_seconds=5)
    assert card in table.hand(colour)
    assert any("The rules bridge is not running" in m for m in game.messages_to(colour, since))
    assert physical(game.read()) == before
    # back: the mod says hello again and the same hunt goes on, every decision checked against the engine
    game.bridge.start()
    assert table.run_until(game.connected, max_seconds=30)
    assert game.snapshot()["pending"] == pending
    for _ in range(12):
        game.play(game.pick())
    assert game.actions_checked >= 12


def test_reload_mid_hunt(games, save, data, repo_root):
    game = _start(games, save, data, repo_root, ("White", "Red", "Orange"), seed=7)
    _play_until(game, "join")
    before, ledger = game.snapshot(), game.ledger()
    # a host reloads in the middle of a hunt (a hunt opened, cards lying face down): same table, same decision
    game.reload()
    assert game.table.run_until(game.connected, max_seconds=30)
    game.wait_ready()
    assert game.snapshot() == before and game.ledger()["snapshot"] == ledger["snapshot"]
    assert game.table.run_until(lambda: game.table.ui_value("scoreRow1").startswith("White: "), max_seconds=5)
    for _ in range(15):
        if game.over:
            break
        game.play(game.pick())
    assert game.reloads == 1 and game.actions_checked >= 15


def _ruling_events(game, action) -> list[str]:
    """The events the engine rules for ``action`` on the table as it lies."""
    ruling = game.engine.handle(game.data, "legal", {"snapshot": game.snapshot(), "action": action.to_json()})
    return [e["event"] for e in ruling.get("events") or []]


@pytest.mark.parametrize("event, seed", [("captured", 12), ("bought", 13)], ids=["capture", "purchase"])
def test_reload_while_a_ruling_is_being_applied(games, save, data, repo_root, event, seed):
    game = _start(games, save, data, repo_root, ("White", "Red", "Orange"), seed=seed)
    for _ in range(300):
        action = game.pick({"buy": 20.0, "skip": 0.05, "pass": 0.2})
        if event in _ruling_events(game, action):
            break
        game.play(action)
    else:
        raise AssertionError(f"no decision led to {event}")
    asked = len(game.table.sent_custom)
    game.begin(action)

    def mid_ruling() -> bool:
        ledger = game.ledger()
        return bool(ledger.get("ruling")) and ledger.get("applied", 0) >= 1 \
            and any(o.in_motion for o in game.table.objects)

    # the mod has the ruling, has told some of its events and is moving cards, when the host reloads
    assert game.table.run_until(mid_ruling, max_seconds=30)
    sent = game.requests("legal", asked)
    assert len(sent) == 1 and sent[0]["action"] == action.to_json()
    game.reload()
    assert game.table.run_until(game.connected, max_seconds=30)
    game.wait_ready()
    # the rest of the ruling is applied: the table is the engine's state after that decision
    state = game.engine.from_snapshot(game.data, sent[0]["snapshot"])
    state.apply(action)
    game.check(state)
    for _ in range(6):
        if game.over:
            break
        game.play(game.pick())
    assert game.table.errors == []
