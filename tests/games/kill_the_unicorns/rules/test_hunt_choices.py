"""The hunt choices a seat is offered (Open / Join and Pass): one per distinct multiset of values, the first such
combination of the hand. A hand in index order is listed by its mask (the game's own hands); any other hand (a
snapshot's, a search world's) by its cards; both must offer exactly the same actions."""

from __future__ import annotations

from itertools import combinations

from bridge.rules.kill_the_unicorns.actions import Join, Open, Pass
from bridge.rules.kill_the_unicorns.state import Tables


def _by_rule(seat: int, hand: tuple[str, ...], n: int | None, value: dict[str, int], most: int) -> list[object]:
    """The choices worked out from the rule itself, over the cards (no masks, no caches)."""
    kind = Open if n is None else Join
    found: list[object] = [Pass(seat)]
    for count in (range(1, min(most, len(hand)) + 1) if n is None else (n,)):
        seen = set()
        for combo in combinations(hand, count):
            values = tuple(sorted(value[c] for c in combo))
            if values not in seen:
                seen.add(values)
                found.append(kind(seat, combo))
    return found


def test_every_hand_of_a_character_in_index_order_is_offered_the_rules_choices(ku_data):
    tables = Tables(ku_data)
    character = ku_data.characters[0].id
    cards = [f"{character}-hunt-{i}" for i in range(1, len(ku_data.rules.hunting_values) + 1)]
    most = ku_data.rules.max_hunt_cards
    for mask in range(1, 1 << len(cards)):
        hand = tuple(card for i, card in enumerate(cards) if mask >> i & 1)
        assert tables.hand_mask(hand) == mask
        for n in (None, *range(1, min(most, len(hand)) + 1)):
            assert tables.hunt_choices(2, hand, n) == _by_rule(2, hand, n, tables.value, most), (hand, n)


def test_a_hand_out_of_index_order_or_of_two_characters_is_offered_the_rules_choices(ku_data):
    tables = Tables(ku_data)
    first, second = (c.id for c in ku_data.characters[:2])
    most = ku_data.rules.max_hunt_cards
    hands = [
        (f"{first}-hunt-8", f"{first}-hunt-2", f"{first}-hunt-3", f"{first}-hunt-1"),   # a search world's order
        (f"{first}-hunt-5", f"{first}-hunt-4", f"{first}-hunt-7"),
        (f"{first}-hunt-1", f"{second}-hunt-2", f"{first}-hunt-6"),                     # a snapshot may hold this
    ]
    for hand in hands:
        assert tables.hand_mask(hand) is None
        for n in (None, 1, 2, 3):
            assert tables.hunt_choices(0, hand, n) == _by_rule(0, hand, n, tables.value, most), (hand, n)
