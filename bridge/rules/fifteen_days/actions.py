"""15 Days decisions as small frozen values with round-tripping text and JSON forms (FD-2 … FD-9).

Every choice a rule hands a player is one of these, taken by one seat (0-based). A turn's two actions are
made of several decisions (python-chess style: the state keeps a *pending* decision between them): the first
``draw`` starts a Draw action and draws one card, the next ``draw`` decisions draw the others; the first
``play`` starts a Play action; a ``take`` that empties a market column is followed by ``refill`` decisions.
Hand cards are named by their face (``summer-3``): copies of a face are interchangeable, and the engine
takes the first such card of the hand.

==================================  ==========================================================================
text form                           meaning
==================================  ==========================================================================
``draw 0 1``                        draw one card face down from draw pile 1 (FD-2.A)
``take 0 column:2``                 take the top card of market column 2 (FD-2.B)
``take 0 discard``                  take the top card of the discard pile (FD-2.B)
``refill 0 1``                      put the top card of draw pile 1 face up on the emptied column (FD-2.B)
``wild 0 summer-2 autumn-5``        discard these hand cards (each identical to a real card on the board) and
                                    take a wild (FD-2.C)
``put-wild 0 1 4``                  put the wild awaiting a place in corner 1 as value 4 (FD-5)
``play 0 summer-3 0``               put a summer 3 from hand into corner 0 (FD-2.D; the cost is added up)
``pay 0 autumn-1``                  pay one card of the Play action's cost (to the discard pile)
``done 0``                          end the Play action when nothing is owed, or stop optional draws/takes
``feather 0 squirrel``              spend a feather for the squirrel's power on the next action (FD-2.E)
``discard 0 winter-6``              discard one card down to the hand limit at the end of the turn (FD-8)
``end 0``                           end the turn
``pass 0``                          give up an action: only when no other action is possible
==================================  ==========================================================================

>>> str(Action.from_text("play 0 summer-3 0"))
'play 0 summer-3 0'
>>> Action.from_json({"action": "take", "player": 1, "column": None}) == Take(1, None)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from bridge.rules.errors import InvalidAction
from bridge.rules.fifteen_days.records import SEASONS

ANIMAL_IDS = ("otter", "frog", "squirrel", "rabbit")


@dataclass(frozen=True, order=True)
class Face:
    """A season card's face: its season and value (``summer-3``)."""

    season: str
    value: int

    def __str__(self) -> str:
        return f"{self.season}-{self.value}"

    def to_json(self) -> dict[str, Any]:
        return {"season": self.season, "value": self.value}

    @classmethod
    def from_text(cls, text: str) -> "Face":
        season, sep, value = text.partition("-")
        if not sep or season not in SEASONS:
            raise InvalidAction(f"bad card {text!r}: expected <season>-<value>, e.g. summer-3")
        return cls(season, _int(value, "card value"))

    @classmethod
    def from_json(cls, value: Any, what: str = "card") -> "Face":
        if not isinstance(value, dict):
            raise InvalidAction(f"{what} must be an object with season and value")
        season = value.get("season")
        if season not in SEASONS:
            raise InvalidAction(f"{what}.season must be one of {', '.join(SEASONS)}")
        return cls(season, _int(value.get("value"), f"{what}.value"))


class Action:
    """Base of every decision; ``player`` is the seat that takes it."""

    name: ClassVar[str]
    player: int

    def __str__(self) -> str:
        return " ".join([self.name, str(self.player), *self._words()])

    def _words(self) -> list[str]:
        return []

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player}

    @staticmethod
    def from_text(text: str) -> "Action":
        """Parse the text form; raises :class:`InvalidAction` with the reason."""
        if not isinstance(text, str):
            raise InvalidAction("an action text must be a string")
        words = text.split()
        if len(words) < 2:
            raise InvalidAction(f"cannot read action {text!r}: expected <kind> <player> ...")
        kind, player, rest = words[0], _int(words[1], "player"), words[2:]
        cls = _KINDS.get(kind)
        if cls is None:
            raise InvalidAction(f"unknown action {kind!r}: expected one of {', '.join(_KINDS)}")
        try:
            return cls._from_words(player, rest)
        except (IndexError, ValueError) as exc:
            if isinstance(exc, InvalidAction):
                raise
            raise InvalidAction(f"cannot read action {text!r}") from None

    @staticmethod
    def from_json(value: Any) -> "Action":
        """Parse the JSON form (``{"action": "play", "player": 0, ...}``)."""
        if not isinstance(value, dict):
            raise InvalidAction("an action must be a JSON object")
        kind = value.get("action")
        cls = _KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise InvalidAction(f"unknown action {kind!r}: expected one of {', '.join(_KINDS)}")
        return cls._from_json(_int(value.get("player"), "player"), value)

    @classmethod
    def _from_words(cls, player: int, words: list[str]) -> "Action":
        _arity(words, 0, cls.name)
        return cls(player)  # type: ignore[call-arg]

    @classmethod
    def _from_json(cls, player: int, value: dict[str, Any]) -> "Action":
        return cls(player)  # type: ignore[call-arg]


@dataclass(frozen=True)
class _PileChoice(Action):
    """An action whose one choice is a draw pile (``pile``, 0-based): its text is ``<name> <player> <pile>``."""

    player: int
    pile: int

    def _words(self) -> list[str]:
        return [str(self.pile)]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "pile": self.pile}

    @classmethod
    def _from_words(cls, player, words):
        _arity(words, 1, cls.name)
        return cls(player, _int(words[0], "pile"))

    @classmethod
    def _from_json(cls, player, value):
        return cls(player, _int(value.get("pile"), "pile"))


@dataclass(frozen=True)
class Draw(_PileChoice):
    """Draw one card face down from draw pile ``pile`` (the first one starts a Draw action)."""

    name: ClassVar[str] = "draw"


@dataclass(frozen=True)
class Refill(_PileChoice):
    """Put the top card of draw pile ``pile`` face up on the market column being refilled."""

    name: ClassVar[str] = "refill"


@dataclass(frozen=True)
class Take(Action):
    """Take the top card of market column ``column`` (0-based), or of the discard pile when ``column`` is None."""

    name: ClassVar[str] = "take"
    player: int
    column: int | None

    def _words(self) -> list[str]:
        return ["discard" if self.column is None else f"column:{self.column}"]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "column": self.column}

    @classmethod
    def _from_words(cls, player, words):
        _arity(words, 1, cls.name)
        if words[0] == "discard":
            return cls(player, None)
        kind, sep, column = words[0].partition(":")
        if kind != "column" or not sep:
            raise InvalidAction(f"bad source {words[0]!r}: expected column:<n> or discard")
        return cls(player, _int(column, "column"))

    @classmethod
    def _from_json(cls, player, value):
        if "column" not in value:
            raise InvalidAction("take needs a column (an integer, or null for the discard pile)")
        column = value["column"]
        # Lua cannot hold null: the mod writes false for "no column" (docs/protocol.md, empty slots)
        return cls(player, None if column is None or column is False else _int(column, "column"))


@dataclass(frozen=True)
class TakeWild(Action):
    """Discard ``cards`` (faces, sorted) from hand and take a wild from the supply."""

    name: ClassVar[str] = "wild"
    player: int
    cards: tuple[Face, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    def _words(self) -> list[str]:
        return [str(face) for face in self.cards]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "cards": [f.to_json() for f in self.cards]}

    @classmethod
    def _from_words(cls, player, words):
        if not words:
            raise InvalidAction("wild needs the cards to discard")
        return cls(player, tuple(Face.from_text(word) for word in words))

    @classmethod
    def _from_json(cls, player, value):
        cards = value.get("cards")
        if not isinstance(cards, list) or not cards:
            raise InvalidAction("wild needs cards: a non-empty list of {season, value}")
        return cls(player, tuple(Face.from_json(c, f"cards[{i}]") for i, c in enumerate(cards)))


@dataclass(frozen=True)
class PutWild(Action):
    """Put the wild awaiting a place into ``corner`` as ``value`` (FD-5)."""

    name: ClassVar[str] = "put-wild"
    player: int
    corner: int
    value: int

    def _words(self) -> list[str]:
        return [str(self.corner), str(self.value)]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "corner": self.corner, "value": self.value}

    @classmethod
    def _from_words(cls, player, words):
        _arity(words, 2, cls.name)
        return cls(player, _int(words[0], "corner"), _int(words[1], "value"))

    @classmethod
    def _from_json(cls, player, value):
        return cls(player, _int(value.get("corner"), "corner"), _int(value.get("value"), "value"))


@dataclass(frozen=True)
class Play(Action):
    """Put a card of face ``card`` from hand into ``corner`` (the first one starts a Play action)."""

    name: ClassVar[str] = "play"
    player: int
    card: Face
    corner: int

    def _words(self) -> list[str]:
        return [str(self.card), str(self.corner)]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "card": self.card.to_json(), "corner": self.corner}

    @classmethod
    def _from_words(cls, player, words):
        _arity(words, 2, cls.name)
        return cls(player, Face.from_text(words[0]), _int(words[1], "corner"))

    @classmethod
    def _from_json(cls, player, value):
        return cls(player, Face.from_json(value.get("card")), _int(value.get("corner"), "corner"))


@dataclass(frozen=True)
class Pay(Action):
    """Pay one card of face ``card`` towards the Play action's cost (it goes to the discard pile)."""

    name: ClassVar[str] = "pay"
    player: int
    card: Face

    def _words(self) -> list[str]:
        return [str(self.card)]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "card": self.card.to_json()}

    @classmethod
    def _from_words(cls, player, words):
        _arity(words, 1, cls.name)
        return cls(player, Face.from_text(words[0]))

    @classmethod
    def _from_json(cls, player, value):
        return cls(player, Face.from_json(value.get("card")))


@dataclass(frozen=True)
class Discard(Pay):
    """Discard one card of face ``card`` at the end of the turn, down to the hand limit (FD-8)."""

    name: ClassVar[str] = "discard"


@dataclass(frozen=True)
class Feather(Action):
    """Spend a feather for ``animal``'s power on the next action of this turn (FD-2.E)."""

    name: ClassVar[str] = "feather"
    player: int
    animal: str

    def _words(self) -> list[str]:
        return [self.animal]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "animal": self.animal}

    @classmethod
    def _from_words(cls, player, words):
        _arity(words, 1, cls.name)
        return cls(player, _animal(words[0]))

    @classmethod
    def _from_json(cls, player, value):
        return cls(player, _animal(value.get("animal")))


@dataclass(frozen=True)
class Done(Action):
    """End the Play action when nothing is owed, or stop the optional extra draw or take of an animal power."""

    name: ClassVar[str] = "done"
    player: int


@dataclass(frozen=True)
class EndTurn(Action):
    """End the turn once both actions are made and the hand is within the limit."""

    name: ClassVar[str] = "end"
    player: int


@dataclass(frozen=True)
class Pass(Action):
    """Give up an action: legal only when no other action of the turn is possible."""

    name: ClassVar[str] = "pass"
    player: int


_KINDS: dict[str, type[Action]] = {cls.name: cls for cls in (
    Draw, Take, Refill, TakeWild, PutWild, Play, Pay, Done, Feather, Discard, EndTurn, Pass)}


def _arity(words: list[str], count: int, kind: str) -> None:
    if len(words) != count:
        raise InvalidAction(f"{kind} takes {count} argument(s) after the player, got {len(words)}")


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise InvalidAction(f"{what} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit() and len(value) < 10:
        return int(value)
    raise InvalidAction(f"{what} must be an integer")


def _animal(value: Any) -> str:
    if value not in ANIMAL_IDS:
        raise InvalidAction(f"animal must be one of {', '.join(ANIMAL_IDS)}")
    return value
