"""Table layouts: from a game's records and rendered art to the objects of a TTS save (one module per game)."""
