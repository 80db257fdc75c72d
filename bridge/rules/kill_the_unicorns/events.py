"""What Kill the Unicorns actions cause, in order (docs/games/kill-the-unicorns/protocol.md, "Events").

No event names a face still hidden from anybody: placed tricks appear by slot and owner until revealed, drawn
tricks by count, played hunting cards by count until ``revealed``. Seat keys of JSON objects are strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.rules.events import Event


@dataclass(frozen=True)
class DayStarted(Event):
    kind = "day_started"
    day: int
    line: tuple[str, ...]


@dataclass(frozen=True)
class TricksDrawn(Event):
    kind = "tricks_drawn"
    player: int
    count: int


@dataclass(frozen=True)
class TrickPlaced(Event):
    kind = "trick_placed"
    player: int
    unicorn: int
    slot: str


@dataclass(frozen=True)
class TrickDiscarded(Event):
    kind = "trick_discarded"
    player: int
    card: str


@dataclass(frozen=True)
class HuntStarted(Event):
    kind = "hunt_started"
    index: int
    unicorn: str
    holder: int


@dataclass(frozen=True)
class Opened(Event):
    kind = "opened"
    player: int
    n: int


@dataclass(frozen=True)
class Passed(Event):
    kind = "passed"
    player: int
    forced: bool


@dataclass(frozen=True)
class TokenPassed(Event):
    kind = "token_passed"
    source: int
    to: int


@dataclass(frozen=True)
class Joined(Event):
    kind = "joined"
    player: int
    n: int


@dataclass(frozen=True)
class Revealed(Event):
    kind = "revealed"
    cards: dict[str, list[str]]
    sums: dict[str, int]


@dataclass(frozen=True)
class PowerUsed(Event):
    kind = "power_used"
    player: int
    character: str
    effect: dict[str, Any]
    detail: dict[str, Any]


@dataclass(frozen=True)
class Winner(Event):
    """The provisional winner (KU-4.4) and the tied groups that dropped out, highest first."""

    kind = "winner"
    player: int | None
    dropped: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class TrickRevealed(Event):
    kind = "trick_revealed"
    card: str
    owner: int
    unicorn: int
    slot: str


@dataclass(frozen=True)
class TrickApplied(Event):
    kind = "trick_applied"
    card: str
    effect: dict[str, Any]
    winner_before: int | None
    winner_after: int | None
    ignored: bool


@dataclass(frozen=True)
class TrickUnplayed(Event):
    kind = "trick_unplayed"
    card: str
    owner: int


@dataclass(frozen=True)
class RanAway(Event):
    kind = "ran_away"
    unicorn: str
    tricks: tuple[str, ...]


@dataclass(frozen=True)
class Captured(Event):
    kind = "captured"
    player: int
    unicorn: str
    pinned: tuple[str, ...]


@dataclass(frozen=True)
class HuntingDiscarded(Event):
    kind = "hunting_discarded"
    player: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class FirstPlayer(Event):
    kind = "first_player"
    player: int


@dataclass(frozen=True)
class MarketOpened(Event):
    kind = "market_opened"


@dataclass(frozen=True)
class Bought(Event):
    kind = "bought"
    player: int
    item: str
    token: str
    paid: tuple[str, ...]
    unicorn: str | None


@dataclass(frozen=True)
class Skipped(Event):
    kind = "skipped"
    player: int
    forced: bool


@dataclass(frozen=True)
class UnicornTurnedIn(Event):
    kind = "unicorn_turned_in"
    player: int
    unicorn: str


@dataclass(frozen=True)
class DayEnded(Event):
    kind = "day_ended"
    day: int


@dataclass(frozen=True)
class HandsReturned(Event):
    kind = "hands_returned"


@dataclass(frozen=True)
class GameOver(Event):
    kind = "game_over"
    winners: tuple[int, ...]
    decided_by: str
    standings: tuple[Any, ...]
