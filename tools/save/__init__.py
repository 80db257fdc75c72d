"""The TTS object model ttsmod writes, and its serialisation to save JSON (tts-facts §2).

``objects`` — :class:`GameObject` and constructors for cards, decks, tiles, tokens, boards, bags, zones, text;
``save`` — :class:`Save` (top level) and :func:`save_bytes`; ``guids`` — stable, unique 6-hex GUIDs.
Pure values and JSON: nothing here touches files.
"""

from tools.save.guids import GuidAllocator, derive_guid, is_guid
from tools.save.objects import (
    CARD_GREY, WHITE, Colour, DeckSheet, GameObject, SnapPoint, Transform, Vector, at, bag, card, custom_board,
    custom_tile, custom_token, deck, hand_trigger, infinite_bag, notecard, scripting_trigger, seat_colour, text_3d,
)
from tools.save.save import DEFAULT_EPOCH, Save, dumps, save_bytes, tts_date

__all__ = [
    "CARD_GREY", "WHITE", "Colour", "DeckSheet", "GameObject", "SnapPoint", "Transform", "Vector", "at", "bag",
    "card", "custom_board", "custom_tile", "custom_token", "deck", "hand_trigger", "infinite_bag", "notecard",
    "seat_colour",
    "scripting_trigger", "text_3d", "GuidAllocator", "derive_guid", "is_guid", "DEFAULT_EPOCH", "Save", "dumps",
    "save_bytes", "tts_date",
]
