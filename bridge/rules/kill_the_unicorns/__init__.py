"""The Kill the Unicorns rules engine (rules spec §4, docs/games/kill_the_unicorns/rules.md), pure Python.

Modules: ``records`` and ``data`` (the game data), ``effects`` (the effect registry), ``actions`` (decisions),
``events``, ``scoring`` (KU-7 and its exact optimiser), ``state`` (the game), ``bot`` (the heuristic and the
determinization), ``game`` (the shared interface and its request hooks; importing this package registers it).
"""

from bridge.rules.kill_the_unicorns.actions import (
    Action, Buy, ChooseTrick, Decline, Join, Open, Pass, PlaceTrick, Skip, UsePower)
from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData
from bridge.rules.kill_the_unicorns.state import GAME_ID, GameState, new_game, start_game
from bridge.rules.kill_the_unicorns.game import KILL_THE_UNICORNS  # registers the game (bridge.rules.game)

__all__ = [
    "Action", "Buy", "ChooseTrick", "Decline", "GAME_ID", "GameState", "Join", "KILL_THE_UNICORNS",
    "KillTheUnicornsData", "Open", "Pass", "PlaceTrick", "Skip", "UsePower", "new_game", "start_game",
]
