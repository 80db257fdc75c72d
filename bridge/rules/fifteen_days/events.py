"""What a 15 Days action caused, as values with a JSON form (``{"event": <kind>, ...}``).

Events are public: they never carry a face that some player cannot see. A face-down draw names the pile
and the drawer, never the card; a market refill names the pile and the column (the card lands face up, so
the table shows it, but the event does not need to). Cards that become public (taken face up, played,
paid, discarded) are named by id and face. Hidden hand cards never appear in an event.
"""

from __future__ import annotations

from typing import ClassVar

from bridge.rules.events import Event, event


@event
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    player: int
    turn: int
    final: bool                 # one of the last turns after a draw pile emptied (FD-9.2)


@event
class ActionStarted(Event):
    """One of the turn's actions began (``draw``, ``take``, ``wild``, ``play``, ``pass``); ``power`` is a
    feather-lent animal in force for it, if any."""

    kind: ClassVar[str] = "action_started"
    player: int
    action: str
    actions_left: int
    power: str | None


@event
class FeatherSpent(Event):
    kind: ClassVar[str] = "feather_spent"
    player: int
    animal: str
    to_supply: bool


@event
class CardDrawn(Event):
    """One card went face down from draw pile ``pile`` into ``player``'s hand (face not told)."""

    kind: ClassVar[str] = "card_drawn"
    player: int
    pile: int
    pile_left: int


@event
class CardTaken(Event):
    """The face-up top card of a market column (``column``) or of the discard pile (``column`` null) went to
    ``player``'s hand."""

    kind: ClassVar[str] = "card_taken"
    player: int
    column: int | None
    card: str
    season: str
    value: int


@event
class ColumnRefilled(Event):
    """The top card of draw pile ``pile`` went face up onto market column ``column``."""

    kind: ClassVar[str] = "column_refilled"
    player: int
    column: int
    pile: int
    pile_left: int


@event
class CardPlayed(Event):
    """``player`` put ``card`` into ``corner``; ``cost`` is what this card added to the action's total;
    ``replaced_wild`` when it took the place of the corner's wild."""

    kind: ClassVar[str] = "card_played"
    player: int
    card: str
    season: str
    value: int
    corner: int
    cost: int
    replaced_wild: bool


@event
class PlayCost(Event):
    """The Play action's placements are over: ``total`` before the frog, ``discount``, and ``owed`` cards."""

    kind: ClassVar[str] = "play_cost"
    player: int
    total: int
    discount: int
    owed: int


@event
class CardDiscarded(Event):
    """A hand card went face up onto the discard pile: ``why`` is ``payment``, ``wild`` (paid for a wild) or
    ``hand_limit``."""

    kind: ClassVar[str] = "card_discarded"
    player: int
    card: str
    season: str
    value: int
    why: str


@event
class WildTaken(Event):
    """A wild left the supply for ``player`` (``why``: ``action`` or ``bonus``); a place for it is chosen next."""

    kind: ClassVar[str] = "wild_taken"
    player: int
    why: str
    supply_left: int


@event
class WildPlaced(Event):
    """The wild awaiting a place went into ``corner`` as ``value``; ``moved_from`` names the corner it left when
    a real card replaced it."""

    kind: ClassVar[str] = "wild_placed"
    player: int
    corner: int
    value: int
    moved_from: int | None


@event
class WildReturned(Event):
    """A wild found no legal place and went back to the supply (FD-5.3, FD-9.2); ``corner`` it left, if any."""

    kind: ClassVar[str] = "wild_returned"
    player: int
    corner: int | None


@event
class AnimalTaken(Event):
    """``player`` took ``animal`` from the supply (``source`` null) or from seat ``source`` (FD-6.2)."""

    kind: ClassVar[str] = "animal_taken"
    player: int
    animal: str
    source: int | None
    count: int


@event
class FeatherGained(Event):
    kind: ClassVar[str] = "feather_gained"
    player: int
    supply_left: int


@event
class DrawPileEmptied(Event):
    """Draw pile ``pile`` is empty: the end of the game is triggered by ``player`` (FD-9.2)."""

    kind: ClassVar[str] = "draw_pile_emptied"
    player: int
    pile: int
    triggers_end: bool


@event
class TurnEnded(Event):
    kind: ClassVar[str] = "turn_ended"
    player: int
    hand: int


@event
class GameOver(Event):
    """The game ended (``reason``: ``complete_sets`` or ``draw_pile``); ``winners`` after the tie-breaks."""

    kind: ClassVar[str] = "game_over"
    reason: str
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    decided_by: str
