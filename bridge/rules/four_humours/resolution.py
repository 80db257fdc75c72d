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



def card_result(revealed: tuple[SlotPotion, ...], steps: tuple[StepResult, ...], winners: tuple[SlotPotion, ...],
                sneakers: tuple[SlotPotion, ...], discards: tuple[SlotPotion, ...]) -> CardResult:
    """``CardResult(revealed, steps, winners, sneakers, discards)``, made without the frozen dataclass's per-field
    ``object.__setattr__`` (the engine makes one for every card it resolves)."""
    made = object.__new__(CardResult)
    fields = made.__dict__
    fields["revealed"] = revealed
    fields["steps"] = steps
    fields["winners"] = winners
    fields["sneakers"] = sneakers
    fields["discards"] = discards
    return made


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
    ordered = sorted(potions, key=_by_slot)
    counts: dict[str, int] = {}
    for p in ordered:
        counts[p.humour] = counts.get(p.humour, 0) + 1
    fate: dict[str, Outcome] = {}  # humour -> what the step that fired for it did (a fired humour counts 0 after)
    fired: list[StepResult] = []
    for index, step in enumerate(steps):
        humour = step.humour
        count = 0 if humour in fate else counts.get(humour, 0)
        if not step.count.matches(count):
            continue
        fired.append(StepResult(index, humour, count, step.outcome))
        fate[humour] = step.outcome
        if step.outcome is Outcome.WIN or (step.outcome is Outcome.SNEAK and sneak_stops):
            break
    winners: list[SlotPotion] = []
    sneakers: list[SlotPotion] = []
    discards: list[SlotPotion] = []  # discarded by a step, or left when the walk stopped or ran out
    for p in ordered:
        outcome = fate.get(p.humour)
        if outcome is Outcome.WIN:
            winners.append(p)
        elif outcome is Outcome.SNEAK:
            sneakers.append(p)
        else:
            discards.append(p)
    return CardResult(
        revealed=tuple(ordered),
        steps=tuple(fired),
        winners=tuple(winners),
        sneakers=tuple(sneakers),
        discards=tuple(discards),
    )


def _by_slot(potion: SlotPotion) -> int:
    return potion.slot
