"""Pure rules engines, one package per game.

Nothing under ``bridge.rules`` may import sockets, files, images or the CLI: engines take records and
JSON-shaped values and return values, so the bridge, the simulator and the tests can all drive them.
"""
