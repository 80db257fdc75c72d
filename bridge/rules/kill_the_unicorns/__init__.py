"""The Kill the Unicorns rules engine (rules-spec §4, docs/games/kill-the-unicorns/rules.md), pure Python.

Modules: ``records`` and ``data`` (the game data), ``effects`` (the effect registry), ``actions`` (decisions),
``events``, ``scoring`` (KU-7 and its exact optimiser), ``state`` (the game), ``service`` (bridge requests),
``game`` (the shared interface; importing this package registers it).
"""

from bridge.rules.kill_the_unicorns.records import KillTheUnicornsData

__all__ = ["KillTheUnicornsData"]
