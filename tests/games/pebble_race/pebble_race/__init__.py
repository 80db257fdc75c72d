"""Pebble Race, the tests' toy game: its engine (``engine``) and its builder (``builder``)."""
