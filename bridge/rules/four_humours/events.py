"""What happened when an action was applied, as values.

Events are public: they never carry a humour that is still hidden from some player.  A potion's humour
appears only once it has been revealed (a card or party being resolved), so an event list can be shown to
every player, journalled or sent to the table as it is.
"""

from __future__ import annotations

from typing import Any, ClassVar

from bridge.rules.events import Event, event

from bridge.rules.four_humours.actions import Target
from bridge.rules.four_humours.resolution import CardResult


@event
class PotionPlaced(Event):
    """A potion went face down on a slot; only its owner knows its humour."""

    kind: ClassVar[str] = "potion_placed"
    player: int
    target: Target


@event
class PotionsDrawn(Event):
    """A player drew ``count`` potions from their bag (humours hidden)."""

    kind: ClassVar[str] = "potions_drawn"
    player: int
    count: int


@event
class Passed(Event):
    kind: ClassVar[str] = "passed"
    player: int


@event
class Redrew(Event):
    """Four identical potions went back to the bag and four were drawn (FH-2.7)."""

    kind: ClassVar[str] = "redrew"
    player: int


@event
class RoundEnded(Event):
    """The placement phase of ``round`` is over; ``reason`` is ``two_scenes_full``, ``all_passed`` or ``stuck``."""

    kind: ClassVar[str] = "round_ended"
    round: int
    reason: str


@event
class CardResolved(Event):
    """A scene card (``card_kind`` ``scene``) or party tile (``party``) was revealed and resolved."""

    kind: ClassVar[str] = "card_resolved"
    card_kind: str
    card: str
    result: CardResult

    def _fields(self) -> dict[str, Any]:
        return {"card_kind": self.card_kind, "card": self.card, **self.result.to_json()}


@event
class PotionMoved(Event):
    """A revealed potion (winner or sneaker) was put on ``cell`` of ``board``; ``chosen`` if its owner chose."""

    kind: ClassVar[str] = "potion_moved"
    owner: int
    humour: str
    source: Target
    reason: str  # "win" | "sneak"
    board: str
    cell: str
    chosen: bool


@event
class PotionReturned(Event):
    """A potion went back to its owner's bag.

    ``reason``: ``discard`` (lost on a card), ``no_cell`` (a sneaker or winner with nowhere to go) or
    ``cleanup`` (left on a scene card that did not resolve; its humour stays hidden, so ``humour`` is None).
    """

    kind: ClassVar[str] = "potion_returned"
    owner: int
    humour: str | None
    source: Target
    reason: str


@event
class DecisionRequired(Event):
    """``player`` must choose one of ``cells`` of ``board`` for a revealed potion (answer: ``choose``)."""

    kind: ClassVar[str] = "decision_required"
    player: int
    humour: str
    source: Target
    reason: str
    board: str
    cells: tuple[str, ...]


@event
class GoalMarked(Event):
    kind: ClassVar[str] = "goal_marked"
    player: int
    goal: str


@event
class RoundStarted(Event):
    """A new round: four scenes dealt, ``starter`` to play first."""

    kind: ClassVar[str] = "round_started"
    round: int
    scenes: tuple[str, ...]
    starter: int


@event
class GameEnded(Event):
    """The game is over; ``outcome`` is the JSON of :class:`~bridge.rules.four_humours.state.GameOutcome`."""

    kind: ClassVar[str] = "game_ended"
    outcome: Any

    def _fields(self) -> dict[str, Any]:
        return {"outcome": self.outcome.to_json()}
