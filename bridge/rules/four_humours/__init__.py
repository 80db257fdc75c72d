"""The Four Humours rules engine (kingdom and fief modes), pure Python.

>>> from bridge.rules.four_humours import new_game           # doctest: +SKIP
>>> state = new_game(data, players=4, seed=7)                 # doctest: +SKIP
>>> events = state.apply(state.legal_actions()[0])            # doctest: +SKIP

Modules: ``records`` (game data), ``actions`` (decisions), ``resolution`` (one card), ``goals`` (goal DSL),
``events``, ``state`` (the game), ``game`` (the engine object: its requests on the shared contract).
"""

from bridge.rules.four_humours.actions import Action, Choose, Pass, Place, Redraw, Target
from bridge.rules.four_humours.records import FourHumoursData
from bridge.rules.four_humours.state import GameOutcome, GameState, Phase, Standing, Termination, new_game
from bridge.rules.four_humours.game import FOUR_HUMOURS  # registers the game (bridge.rules.game)

__all__ = [
    "Action",
    "Choose",
    "FOUR_HUMOURS",
    "FourHumoursData",
    "GameOutcome",
    "GameState",
    "Pass",
    "Phase",
    "Place",
    "Redraw",
    "Standing",
    "Target",
    "Termination",
    "new_game",
]
