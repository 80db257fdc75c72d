"""End to end: `ttsmod build four-humours` → the headless table → a real `ttsmod bridge` over sockets.

Scripted players seat, press Setup, drop potions on slots (legal and illegal), pass, choose cells for the
potions a ruling waits for, and play whole games. After every round the harness checks the snapshot the mod
sent against the table, and the table after the ruling against the engine's own resolution of that snapshot
(tests/games/four_humours/e2e/harness.py, ``Game.check_round``).
"""

from __future__ import annotations

import pytest

from bridge.rules.four_humours.actions import Place
from tests.games.four_humours.e2e.harness import Game
from tools.headless import Fidelity
from tests.games.four_humours.e2e.tableview import bag_of, flat, physical, scene_cards, snaps


def _start(games, save, data, repo_root, colours, seed, mode="kingdom", fidelity=None) -> Game:
    return Game.started(games, save, data, repo_root, colours, seed=seed, mode=mode, fidelity=fidelity)


def _slot_humours(data, kind, card, slot):
    record = data.scene_by_id[card] if kind == "scene" else data.party_by_id[card]
    return record.slots[slot].humours


def _free_slots(game, data):
    """(kind, card, slot, humours) of every empty slot on the table."""
    snap = game.read()
    out = []
    for kind, entries, key in (("scene", snap["scenes"], "card"), ("party", snap["parties"], "party")):
        for entry in entries:
            for i, p in enumerate(entry["slots"]):
                if p is None:
                    out.append((kind, entry[key], i, _slot_humours(data, kind, entry[key], i)))
    return out


def _refused(game, colour, potion, since, phrase):
    """The potion is back in its owner's hand and the player was told why."""
    assert potion in game.table.hand(colour) and not potion.face_down
    told = game.messages_to(colour, since)
    assert any(phrase in m for m in told), told


def test_setup_placement_legal_and_illegal_and_rounds_against_the_engine(games, kingdom_save, data, repo_root):
    game = _start(games, kingdom_save, data, repo_root, ["White", "Red", "Yellow"], seed=3)
    table = game.table
    # setup: four goals and four scenes on their spots, four potions in every hand, the first player announced
    assert len(game.read()["goals"]) == 4 and len(scene_cards(table)) == 4
    for colour in game.colours:
        assert len(table.hand(colour)) == 4 and game.bag_size(colour) == 16
    assert not table.ui_visible("setupButton")
    first = game.to_play
    assert f"Round 1: {first} begins." in game.messages_to(None)
    assert game.status == f"Round 1 · {first} to play"
    assert table.ui_visible(f"pass_{first}", first)
    assert all(not table.ui_visible(f"pass_{c}", c) for c in game.colours if c != first)
    game.check_scene_markers()

    # not your turn: a waiting player drops a potion that the slot would take
    other = next(c for c in game.colours if c != first)
    kind, card, slot, humour = next((k, c, s, h) for k, c, s, hs in _free_slots(game, data)
                                    for h in game.hand_humours(other) if h in hs)
    before = physical(game.read())
    since = len(table.broadcasts)
    potion = game.drop_potion(other, humour, kind, card, slot)
    _refused(game, other, potion, since, f"Not your turn: {first} is playing.")
    assert physical(game.read()) == before and game.to_play == first

    # wrong humour for that citizen
    kind, card, slot, humour = next((k, c, s, h) for k, c, s, hs in _free_slots(game, data)
                                    for h in game.hand_humours(first) if h not in hs)
    since = len(table.broadcasts)
    potion = game.drop_potion(first, humour, kind, card, slot)
    _refused(game, first, potion, since, "Wrong humour for that citizen: this ")
    assert physical(game.read()) == before and game.to_play == first

    # a legal placement on a party tile: face down on its slot, a replacement drawn, the turn passes on
    state = game.state()
    nxt = game.colours[(game.seat_of(first) + 1) % 3]
    place = next(a for a in state.legal_actions() if isinstance(a, Place) and a.target.kind == "party"
                 and any(h in game.hand_humours(nxt) for h in _slot_humours(data, "party", a.target.card,
                                                                             a.target.slot)))
    held = table.hand(nxt)[0]
    table.pick_up(held, nxt)         # the next player is holding a potion meanwhile: it is still theirs
    potion = game.place(place)
    table.drop(held, nxt, position=table.hand_slot(nxt))
    assert held in table.hand(nxt)
    host, index = game.host_and_slot("party", place.target.card, place.target.slot)
    assert potion.face_down and flat(potion.position, host.snap_world(index)) < 0.1
    assert len(table.hand(first)) == 4 and game.bag_size(first) == 15
    assert game.to_play == nxt and game.status == f"Round 1 · {nxt} to play"
    party = place.target.card

    # the slot is taken now
    humour = next(h for h in game.hand_humours(nxt) if h in _slot_humours(data, "party", party, place.target.slot))
    since = len(table.broadcasts)
    potion = game.drop_potion(nxt, humour, "party", party, place.target.slot)
    _refused(game, nxt, potion, since, "That slot is taken")
    assert game.to_play == nxt

    # the others play until the first player's turn comes again; then a second potion on the same party is
    # over the 3-player limit of one per player (if their hand fits another of its slots)
    for _ in range(2):
        game.play(game.pick_action(pass_rate=0, prefer=lambda a: a.target.kind == "scene"))
    if game.to_play == first:
        free = [(s, h) for k, c, s, hs in _free_slots(game, data) if k == "party" and c == party
                for h in game.hand_humours(first) if h in hs]
        assert free, "pick another seed: the first player cannot try the party limit"
        since = len(table.broadcasts)
        potion = game.drop_potion(first, free[0][1], "party", party, free[0][0])
        _refused(game, first, potion, since, "Party limit: at most 1 potion(s) per player on a party.")

    # a potion dropped on a cell of the map goes back: only the rules put potions there
    mover = game.to_play
    potion = table.hand(mover)[0]
    kingdom = table.with_tag("fh-kingdom")[0]
    since = len(table.broadcasts)
    table.pick_up(potion, mover)
    table.drop(potion, mover, snap=(kingdom, 0))
    game.wait_ready()
    _refused(game, mover, potion, since, "Potions reach the boards only by winning a scene or a party")
    assert game.read()["boards"] == {} and game.to_play == mover

    # the Pass button
    passer = game.to_play
    game.pass_turn(passer)
    assert f"{passer} passes." in game.messages_to(None) and game.to_play != passer

    # the scoreboard follows the table during the round
    game.check_scoreboard(game.state())

    # rounds until a goal is marked and a party resolved: every round is checked against the engine, the
    # decisions are made by dropping the glowing potion (once first on a cell that is not allowed)
    for _ in range(400):
        snap = game.read()
        if game.over or (snap["resolved_parties"] and any(g["marked_by"] for g in snap["goals"])):
            break
        game.step(pass_rate=0.05, try_wrong_cell=True, prefer=lambda a: a.humour == "melancholic")
    assert game.rounds_checked >= 2
    assert game.decisions >= 1 and game.refused_choices == 1
    snap = game.read()
    assert snap["resolved_parties"] and any(g["marked_by"] for g in snap["goals"])
    # each goal marker lies on the card of the goal it marks; each resolved party lies out of the strip
    for goal in snap["goals"]:
        for seat in goal["marked_by"]:
            assert any(f"{game.colours[seat]} achieves the goal" in m for m in game.messages_to(None))


def _full_game(games, save, data, repo_root, mode, seed, colours=("White", "Red"), fidelity=None):
    game = _start(games, save, data, repo_root, list(colours), seed=seed, mode=mode, fidelity=fidelity)
    return _played_to_the_end(game)


def _played_to_the_end(game):
    """``game`` played to its end (a few passes, a wrong cell tried before each choice); the final broadcast and
    the table checked against the engine's outcome."""
    game.play_game(pass_rate=0.08, try_wrong_cell=True)
    assert game.outcome is not None and game.rounds_checked >= 2
    winners = [game.colours[s] for s in game.outcome.winners]
    final = [m for m in game.messages_to(None) if m.startswith("Game over")][-1]
    for s in game.outcome.standings:
        goals = f"{s.goals} goal" + ("" if s.goals == 1 else "s")
        assert f"{game.colours[s.player]} {goals} · {s.placed} placed" in final
    assert " and ".join(winners) + (" wins" if len(winners) == 1 else " share the win") in final
    # nothing left to play: no Pass button, no potion on a slot, the last scenes discarded
    assert not any(game.table.ui_visible(f"pass_{c}", c) for c in game.colours)
    assert game.read()["scenes"] == []
    return game


def _reloaded_in_placement_during_a_ruling_and_at_its_decisions(game) -> int:
    """The host reloads the save mid-placement, then while a round's ruling is being applied, then at each
    decision that ruling waits for (rounds are played until one waits for a decision): each time the same table,
    the same player or potion awaited, and the game goes on. Returns the decisions reloaded at."""
    for _ in range(3):
        game.play(game.pick_action(pass_rate=0))
    # placement: the same table, the same player to play, the game goes on
    before, status = physical(game.read()), game.status
    game.reload()
    game.wait_ready()
    assert physical(game.read()) == before and game.status == status and game.connected()

    decisions = 0
    while not decisions:
        rounds = game.rounds_checked
        # the round ends; the host reloads while its ruling is being applied
        for _ in range(100):
            action = game.pick_action(pass_rate=0)
            if not game.ends_round(action):
                game.play(action)
                continue
            game.begin(action)
            assert game.run(lambda: game.round_start is not None, max_seconds=10)
            game.table.advance(1.0)
            assert "is being resolved" in game.status
            break
        else:
            raise AssertionError("no round end came")
        game.reload()
        game.wait_ready()
        # a decision: reloaded, the potion glows again and its cells are outlined; the owner chooses
        for _ in range(20):
            if game.rounds_checked > rounds:
                break
            potion, owner, board, cells = game.awaited()
            game.reload()
            game.wait_ready()
            assert game.awaited() == (game.table.object(potion.guid), owner, game.table.object(board.guid), cells)
            game.choose()
            decisions += 1
        assert game.rounds_checked == rounds + 1
        assert game.outcome is None, "the game ended before a ruling waited for a decision"
    return decisions


# The faithful table (every game's default) is TTS as documented (tools/headless/fidelity.py); the slow one has
# one-second moves and drops landing up to 0.45 units off the point aimed at, so the mod's waits and position
# tolerance are exercised.
FAITHFUL, SLOW = Fidelity.faithful(), Fidelity.slow()


# A kingdom game with the most seats on the faithful table, and a fief game on the slow one (the mod's waits and
# tolerances are the same in both modes; a kingdom game of four on the slow table takes two and a half times as
# long). Games of other sizes on either table check nothing these do not (the engine's own tests play every size),
# and each costs half a minute.
@pytest.mark.parametrize("colours, seed, fidelity", [
    (("White", "Red", "Yellow", "Green"), 11, FAITHFUL),
], ids=["4-players"])
def test_a_full_kingdom_game_ends_with_the_winner_the_engine_names(games, kingdom_save, data, repo_root, colours,
                                                                   seed, fidelity):
    # on the way the host reloads the save three ways: the story rides on this game instead of one of its own
    game = _start(games, kingdom_save, data, repo_root, list(colours), seed=seed, fidelity=fidelity)
    assert _reloaded_in_placement_during_a_ruling_and_at_its_decisions(game) >= 1
    _played_to_the_end(game)
    assert game.decisions >= 2


@pytest.mark.parametrize("colours, seed, fidelity", [
    (("White", "Red", "Yellow"), 3, SLOW),
], ids=["3-players-slow-table"])
def test_a_full_fief_game_ends_with_the_winner_the_engine_names(games, fief_save, data, repo_root, colours, seed,
                                                                fidelity):
    game = _full_game(games, fief_save, data, repo_root, "fief", seed=seed, colours=colours, fidelity=fidelity)
    # winners landed on their owners' own fief boards, on cells the engine chose or allowed
    boards = game.read()["boards"]
    assert boards and set(boards) <= set(game.fiefs)
    for fief, cells in boards.items():
        owner = game.fiefs.index(fief)
        assert all(p["owner"] == owner for potions in cells.values() for p in potions)


def test_bridge_stopped_during_a_round_then_restarted(games, kingdom_save, data, repo_root):
    game = _start(games, kingdom_save, data, repo_root, ["White", "Red"], seed=5)
    table = game.table
    for _ in range(2):
        game.play(game.pick_action(pass_rate=0))

    # the bridge goes away: the next drop gets no answer, the potion comes back, nothing else changes
    game.bridge.stop()
    before = physical(game.read())
    colour = game.to_play
    action = game.pick_action(pass_rate=0)
    since = len(table.broadcasts)
    potion = next(p for p in table.hand(colour) if p.memo_json()["humour"] == action.humour)
    host, index = game.host_and_slot(action.target.kind, action.target.card, action.target.slot)
    table.pick_up(potion, colour)
    table.drop(potion, colour, snap=(host, index))
    assert table.run_until(lambda: "ttsmod bridge" in table.ui_value("bridgeStatus"), max_seconds=30)
    assert table.run_until(lambda: not any(o.in_motion for o in table.objects), max_seconds=1)
    assert potion in table.hand(colour) and physical(game.read()) == before
    assert any("not answering" in m for m in game.messages_to(None, since))
    assert game.to_play == colour
    # while it is away a drop is refused at once
    since = len(table.broadcasts)
    table.pick_up(potion, colour)
    table.drop(potion, colour, snap=(host, index))
    table.run_until(lambda: False, max_seconds=0.5)
    assert potion in table.hand(colour) and physical(game.read()) == before
    assert any("not running" in m for m in game.messages_to(colour, since))

    # it comes back: the mod's periodic hello finds it and play goes on
    game.bridge.start()
    assert table.run_until(game.connected, max_seconds=30)
    game.play(action)
    assert potion.face_down

    # play up to the placement that ends the round; the bridge stops between its check and the round's end
    for _ in range(100):
        action = game.pick_action(pass_rate=0)
        trial = game.state()
        trial.apply(action)
        if not isinstance(action, Place) or trial.phase.value == "placement":
            game.play(action)
            continue
        colour = game.colours[action.player]
        potion = next(p for p in table.hand(colour) if p.memo_json()["humour"] == action.humour)
        host, index = game.host_and_slot(action.target.kind, action.target.card, action.target.slot)
        table.pick_up(potion, colour)
        table.drop(potion, colour, snap=(host, index))
        assert table.endpoint.wait_for_input(10)     # the bridge has answered `legal`; the mod reads it next frame
        game.bridge.stop()
        break
    else:
        raise AssertionError("no round end came")
    assert game.run(lambda: "ttsmod bridge" in table.ui_value("bridgeStatus"), max_seconds=60)
    assert potion.face_down and game.round_start is not None     # the mod asked for the ruling …
    assert "is being resolved" in game.status         # … and waits for it, the table untouched
    assert physical(game.read()) == physical(game.round_start["snapshot"])
    game.bridge.start()
    game.wait_ready()                                  # the same end_round again: the round completes
    for _ in range(20):
        if game.rounds_checked:
            break
        game.choose()
    assert game.rounds_checked == 1
    assert "bridge connected" in table.ui_value("bridgeStatus")


def test_four_identical_potions_can_be_redrawn(games, kingdom_save, data, repo_root):
    game = _start(games, kingdom_save, data, repo_root, ["White", "Red"], seed=2)   # Red draws four cholerics
    table = game.table
    assert game.hand_humours("Red") == {"choleric": 4}
    assert table.ui_visible("redraw_Red", "Red") and not table.ui_visible("redraw_White", "White")
    old = {p.guid for p in table.hand("Red")}
    table.click("redraw_Red", "Red")
    game.wait_ready()
    assert "Red showed four identical potions and draws four new ones." in game.messages_to(None)
    assert len(table.hand("Red")) == 4 and game.bag_size("Red") == 16
    assert {p.guid for p in table.hand("Red")} != old
    assert table.ui_visible("redraw_Red", "Red") == (len(game.hand_humours("Red")) == 1)
    for _ in range(4):      # play goes on: each move is picked by the engine from the table as it lies
        game.step(pass_rate=0)
    assert len(table.hand("Red")) == 4 and game.bag_size("Red") >= 14


def test_a_potion_on_a_slot_before_setup_goes_back(games, kingdom_save, data, repo_root):
    game = Game(kingdom_save, data, repo_root, ["White", "Red"], seed=1)
    games.append(game)
    game.bridge.start()
    table = game.table
    table.seat("White", "Red")
    table.boot()
    assert table.run_until(game.connected, max_seconds=30)
    assert game.status == "Seat the players, then press Setup."
    # a scene card laid by hand and a potion taken from the bag: the mod sends the potion back
    card = table.take(table.with_tag("fh-scene-deck")[0], "White")
    spot = table.with_tag("fh-scene-spot")[0]
    table.drop(card, "White", position=spot.position)
    potion = table.take(bag_of(table, "White"), "White")
    table.drop(potion, "White", snap=(card, snaps(card, "fh-slot:")["0"][0]))
    table.run_until(lambda: False, max_seconds=0.5)
    assert potion in table.hand("White")
    assert any("press Setup" in m for m in game.messages_to("White"))
