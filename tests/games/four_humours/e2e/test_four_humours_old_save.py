"""A table saved by the Four Humours mod before it ran on lib.play still loads: its ledger named the phases
``placement``, ``resolution`` and ``ended`` and had none of lib.play's fields (``next``, ``moves``, ``ruling``);
the mod reads them once and play goes on where it stopped."""

from __future__ import annotations

import json

from tests.games.four_humours.e2e.harness import Game
from tests.games.four_humours.e2e.tableview import physical
from tools.headless import Table

LIB_PLAY_FIELDS = ("next", "moves", "snapshot", "ruling", "stopped", "mover", "resolving", "end_round_ruled",
                   "seed")


def older(state: str) -> str:
    """``state`` (a LuaScriptState the mod saved in placement, or at a choice a ruling waits for) as the mod
    before lib.play wrote it."""
    saved = json.loads(state)
    ledger = saved["ledger"]
    assert ledger["phase"] == "play"
    ledger["phase"] = "resolution" if ledger.get("resolving") else "placement"
    for key in LIB_PLAY_FIELDS:
        ledger.pop(key, None)
    return json.dumps(saved)


def reload_older(game: Game) -> None:
    """What LiveGame.reload does, with the save's ledger as the older mod wrote it."""
    saved = game.table.save()
    saved["LuaScriptState"] = older(saved["LuaScriptState"])
    port = game.table.endpoint.port
    game.table.close()
    game.reloads += 1
    game.table = Table.load(saved, seed=game.seed + game.reloads, bridge_port=game.bridge.port, listen_port=port,
                            fidelity=game.fidelity)
    game.table.seat(*game.humans)
    game.table.boot()
    game._sent = []
    game.reloaded()
    game.wait_ready()


def test_a_table_saved_in_placement_by_the_mod_before_lib_play_loads_and_plays_on(games, kingdom_save, data,
                                                                                   repo_root):
    game = Game.started(games, kingdom_save, data, repo_root, ["White", "Red"], seed=4)
    for _ in range(3):
        game.play(game.pick_action(pass_rate=0))
    before, status, to_play = physical(game.read()), game.status, game.to_play
    reload_older(game)
    assert physical(game.read()) == before and game.status == status and game.connected()
    assert game.deciding() == to_play
    for _ in range(4):      # each move is the engine's pick from the table as it lies, checked against the engine
        game.step(pass_rate=0)


def test_a_table_saved_at_a_choice_by_the_mod_before_lib_play_shows_the_choice_again(games, kingdom_save, data,
                                                                                     repo_root):
    game = Game.started(games, kingdom_save, data, repo_root, ["White", "Red"], seed=7)
    for _ in range(200):
        if "chooses a cell" in game.status:
            break
        game.step(pass_rate=0)
    else:
        raise AssertionError("no ruling asked for a choice")
    potion, owner, board, cells = game.awaited()
    checked = game.rounds_checked
    reload_older(game)
    assert game.awaited() == (game.table.object(potion.guid), owner, game.table.object(board.guid), cells)
    for _ in range(20):     # the round goes on from there, checked against the engine's own ruling
        if game.rounds_checked > checked:
            break
        game.choose()
    assert game.rounds_checked == checked + 1
