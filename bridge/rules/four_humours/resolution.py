"""Resolving one scene card or party tile (rules FH-5.3 … FH-5.7).

The card's potions are turned face up and its ordered step list is walked top to bottom. Each step counts
the potions of one humour (all owners together); if its count predicate holds, the step's outcome applies:

* ``win`` — those potions win, the walk stops, every potion left on the card is discarded;
* ``discard`` — those potions go back to their owners' bags, the walk goes on;
* ``sneak`` — those potions slip away to a neighbouring cell, the walk goes on (AMB-FH-14) unless the
  ``sneak_stops_resolution`` flag says otherwise.

A list that ends without a win discards whatever is left.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from bridge.rules.four_humours.records import Outcome, Step

Potion = tuple[int, str]
"""A potion is its owner's seat and its humour; potions of one owner and humour are interchangeable."""


@dataclass(frozen=True)
class SlotPotion:
    """A potion lying on slot ``slot`` of the card being resolved."""

    slot: int
    owner: int
    humour: str

    def to_json(self) -> dict:
        return {"slot": self.slot, "owner": self.owner, "humour": self.humour}


@dataclass(frozen=True)
class StepResult:
    """A step whose predicate held: its index in the list, the humour, how many matched, the outcome."""

    index: int
    humour: str
    count: int
    outcome: Outcome

    def to_json(self) -> dict:
        return {"index": self.index, "humour": self.humour, "count": self.count, "outcome": self.outcome.value}


@dataclass(frozen=True)
class CardResult:
    """Who won, who sneaked and who was discarded on one card, with the steps that fired."""

    revealed: tuple[SlotPotion, ...]
    steps: tuple[StepResult, ...]
    winners: tuple[SlotPotion, ...]
    sneakers: tuple[SlotPotion, ...]
    discards: tuple[SlotPotion, ...]

    def to_json(self) -> dict:
        return {
            "revealed": [p.to_json() for p in self.revealed],
            "steps": [s.to_json() for s in self.steps],
            "winners": [p.to_json() for p in self.winners],
            "sneakers": [p.to_json() for p in self.sneakers],
            "discards": [p.to_json() for p in self.discards],
        }


def resolve_card(
    potions: Sequence[SlotPotion], steps: Sequence[Step], *, sneak_stops: bool = False
) -> CardResult:
    """Walk ``steps`` over the face-up ``potions`` of one card and sort every potion into exactly one group.

    >>> from bridge.rules.four_humours.records import Count
    >>> lone_choleric = [Step("choleric", Count("eq", 1), Outcome.WIN)]
    >>> r = resolve_card([SlotPotion(0, 1, "choleric"), SlotPotion(1, 2, "sanguine")], lone_choleric)
    >>> [p.owner for p in r.winners], [p.owner for p in r.discards]
    ([1], [2])
    """
    remaining = list(potions)
    fired: list[StepResult] = []
    winners: list[SlotPotion] = []
    sneakers: list[SlotPotion] = []
    discards: list[SlotPotion] = []
    for index, step in enumerate(steps):
        group = [p for p in remaining if p.humour == step.humour]
        if not step.count.matches(len(group)):
            continue
        fired.append(StepResult(index, step.humour, len(group), step.outcome))
        remaining = [p for p in remaining if p.humour != step.humour]
        if step.outcome is Outcome.WIN:
            winners = group
            break
        if step.outcome is Outcome.DISCARD:
            discards.extend(group)
        else:
            sneakers.extend(group)
            if sneak_stops:
                break
    discards.extend(remaining)
    by_slot = lambda p: p.slot  # noqa: E731 - a sort key, named for readability
    return CardResult(
        revealed=tuple(sorted(potions, key=by_slot)),
        steps=tuple(fired),
        winners=tuple(sorted(winners, key=by_slot)),
        sneakers=tuple(sorted(sneakers, key=by_slot)),
        discards=tuple(sorted(discards, key=by_slot)),
    )
