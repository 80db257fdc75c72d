"""Option defaults that commands show in their ``--help``, kept free of heavy imports (no Pillow) so that a
command's module loads at once: the sheet image formats and the art size cap."""

IMAGE_FORMATS = ("jpg", "png")
"""The image formats sheets are written in (``--format``)."""

DEFAULT_MAX_PIXELS = 100_000_000
"""Largest width × height accepted by default: 10000×10000, the biggest sheet TTS is known to load.

A decoded RGBA image of that size takes 400 MB; anything larger in a card's art or a save's image is
far more likely an attack or a mistake than a picture.
"""
