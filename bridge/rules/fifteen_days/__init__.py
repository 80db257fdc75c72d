"""The 15 Days rules engine (rules spec §3, docs/games/fifteen_days/rules.md), pure Python.

>>> from bridge.rules.fifteen_days import new_game                # doctest: +SKIP
>>> state = new_game(data, players=4, seed=7)                     # doctest: +SKIP
>>> events = state.apply(state.legal_actions()[0])                # doctest: +SKIP

Modules: ``records`` and ``data`` (the game data), ``actions`` (decisions), ``events``, ``state`` (the game),
``game`` (the shared interface and its hooks of the requests' contract; importing this package registers it).
"""

from bridge.rules.fifteen_days.actions import (
    Action, Discard, Done, Draw, EndTurn, Face, Feather, Pass, Pay, Play, PutWild, Refill, Take, TakeWild)
from bridge.rules.fifteen_days.records import FifteenDaysData
from bridge.rules.fifteen_days.state import GAME_ID, GameOutcome, GameState, Standing, new_game
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS  # registers the game (bridge.rules.game)

__all__ = [
    "Action", "Discard", "Done", "Draw", "EndTurn", "FIFTEEN_DAYS", "Face", "Feather", "FifteenDaysData",
    "GAME_ID", "GameOutcome", "GameState", "Pass", "Pay", "Play", "PutWild", "Refill", "Standing", "Take",
    "TakeWild", "new_game",
]
