"""What Kill the Unicorns actions cause, in order (docs/games/kill_the_unicorns/protocol.md, "Events").

No event names a face still hidden from anybody: placed tricks appear by slot and owner until revealed, drawn
tricks by count, played hunting cards by count until ``revealed``. Seat keys of JSON objects are strings.
"""

from __future__ import annotations

from typing import Any

from bridge.rules.events import Event, event


@event
class DayStarted(Event):
    kind = "day_started"
    day: int
    line: tuple[str, ...]


@event
class TricksDrawn(Event):
    kind = "tricks_drawn"
    player: int
    count: int


@event
class TrickPlaced(Event):
    kind = "trick_placed"
    player: int
    unicorn: int
    slot: str


@event
class TrickDiscarded(Event):
    kind = "trick_discarded"
    player: int
    card: str


@event
class HuntStarted(Event):
    kind = "hunt_started"
    index: int
    unicorn: str
    holder: int


@event
class Opened(Event):
    kind = "opened"
    player: int
    n: int


@event
class Passed(Event):
    kind = "passed"
    player: int
    forced: bool


@event
class TokenPassed(Event):
    kind = "token_passed"
    source: int
    to: int


@event
class Joined(Event):
    kind = "joined"
    player: int
    n: int


@event
class Revealed(Event):
    kind = "revealed"
    cards: dict[str, list[str]]
    sums: dict[str, int]


@event
class PowerUsed(Event):
    kind = "power_used"
    player: int
    character: str
    effect: dict[str, Any]
    detail: dict[str, Any]


@event
class Winner(Event):
    """The provisional winner (KU-4.4) and the tied groups that dropped out, highest first."""

    kind = "winner"
    player: int | None
    dropped: tuple[tuple[int, ...], ...]


@event
class TrickRevealed(Event):
    kind = "trick_revealed"
    card: str
    owner: int
    unicorn: int
    slot: str


@event
class TrickApplied(Event):
    kind = "trick_applied"
    card: str
    effect: dict[str, Any]
    winner_before: int | None
    winner_after: int | None
    ignored: bool


@event
class TrickUnplayed(Event):
    kind = "trick_unplayed"
    card: str
    owner: int


@event
class RanAway(Event):
    kind = "ran_away"
    unicorn: str
    tricks: tuple[str, ...]


@event
class Captured(Event):
    kind = "captured"
    player: int
    unicorn: str
    pinned: tuple[str, ...]


@event
class HuntingDiscarded(Event):
    kind = "hunting_discarded"
    player: int
    cards: tuple[str, ...]


@event
class FirstPlayer(Event):
    kind = "first_player"
    player: int


@event
class MarketOpened(Event):
    kind = "market_opened"


@event
class Bought(Event):
    kind = "bought"
    player: int
    item: str
    token: str
    paid: tuple[str, ...]
    unicorn: str | None


@event
class Skipped(Event):
    kind = "skipped"
    player: int
    forced: bool


@event
class UnicornTurnedIn(Event):
    kind = "unicorn_turned_in"
    player: int
    unicorn: str


@event
class DayEnded(Event):
    kind = "day_ended"
    day: int


@event
class HandsReturned(Event):
    kind = "hands_returned"


@event
class GameOver(Event):
    kind = "game_over"
    winners: tuple[int, ...]
    decided_by: str
    standings: tuple[Any, ...]
