"""The tools side of each game: its builder (decks and their renderer, the table, the mod's payload).

Each game has a package ``tools/games/<game>/`` named by the ``builder`` key of its ``game.toml``; the interface
it implements and the registry are in :mod:`tools.games.builder`.
"""
