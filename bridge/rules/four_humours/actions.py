"""Player decisions as small values with round-tripping text and JSON forms.

Every decision of the game is one of these, taken by one seat (0-based):

====================================  ==============================================
text form                             meaning
====================================  ==============================================
``place 0 choleric scene:mill/2``     put a choleric potion on slot 2 of scene *mill*
``place 1 sanguine party:feast/0``    put a sanguine potion on slot 0 of party *feast*
``pass 2``                            pass the turn (FH-3.1)
``redraw 3``                          four identical potions back to the bag, draw 4 (FH-2.7)
``choose 0 abbey``                    put the potion awaiting its owner's choice on cell *abbey*
====================================  ==============================================

>>> Action.from_text("place 0 choleric scene:mill/2")
Place(player=0, humour='choleric', target=Target(kind='scene', card='mill', slot=2))
>>> str(Action.from_json({"action": "pass", "player": 2}))
'pass 2'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from bridge.rules.errors import InvalidAction
from bridge.rules.four_humours.records import HUMOURS

TARGET_KINDS = ("scene", "party")


@dataclass(frozen=True)
class Target:
    """A citizen slot: ``kind`` is ``scene`` or ``party``, ``card`` the card or tile id, ``slot`` 0-based."""

    kind: str
    card: str
    slot: int

    def __str__(self) -> str:
        return f"{self.kind}:{self.card}/{self.slot}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "card": self.card, "slot": self.slot}

    @classmethod
    def from_text(cls, text: str) -> "Target":
        kind, sep, rest = text.partition(":")
        card, sep2, slot = rest.rpartition("/")
        if not sep or not sep2 or kind not in TARGET_KINDS or not card:
            raise InvalidAction(f"bad target {text!r}: expected scene:<card>/<slot> or party:<tile>/<slot>")
        return cls(kind, card, _int(slot, "slot"))

    @classmethod
    def from_json(cls, value: Any) -> "Target":
        if not isinstance(value, dict):
            raise InvalidAction("target must be an object with kind, card and slot")
        kind = value.get("kind")
        card = value.get("card")
        if kind not in TARGET_KINDS:
            raise InvalidAction(f"target.kind must be one of {', '.join(TARGET_KINDS)}")
        if not isinstance(card, str) or not card:
            raise InvalidAction("target.card must be a non-empty string")
        return cls(kind, card, _int(value.get("slot"), "target.slot"))


class Action:
    """Base of the four action kinds; ``player`` is the seat that takes the decision."""

    name: ClassVar[str]
    player: int

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @staticmethod
    def from_text(text: str) -> "Action":
        """Parse the text form; raises :class:`InvalidAction` with the reason."""
        words = text.split()
        if not words:
            raise InvalidAction("empty action")
        kind = words[0]
        if kind == "place" and len(words) == 4:
            return Place(_int(words[1], "player"), _humour(words[2]), Target.from_text(words[3]))
        if kind == "pass" and len(words) == 2:
            return Pass(_int(words[1], "player"))
        if kind == "redraw" and len(words) == 2:
            return Redraw(_int(words[1], "player"))
        if kind == "choose" and len(words) == 3:
            return Choose(_int(words[1], "player"), words[2])
        raise InvalidAction(f"cannot read action {text!r}")

    @staticmethod
    def from_json(value: Any) -> "Action":
        """Parse the JSON form (``{"action": "place", "player": 0, ...}``)."""
        if not isinstance(value, dict):
            raise InvalidAction("an action must be a JSON object")
        kind = value.get("action")
        player = _int(value.get("player"), "player")
        if kind == "place":
            return Place(player, _humour(value.get("humour")), Target.from_json(value.get("target")))
        if kind == "pass":
            return Pass(player)
        if kind == "redraw":
            return Redraw(player)
        if kind == "choose":
            cell = value.get("cell")
            if not isinstance(cell, str) or not cell:
                raise InvalidAction("choose needs a cell id")
            return Choose(player, cell)
        raise InvalidAction(f"unknown action {kind!r}: expected place, pass, redraw or choose")


@dataclass(frozen=True)
class Place(Action):
    """Put one potion of ``humour`` from the player's hand face down on ``target``."""

    name: ClassVar[str] = "place"
    player: int
    humour: str
    target: Target

    def __str__(self) -> str:
        return f"place {self.player} {self.humour} {self.target}"

    def to_json(self) -> dict[str, Any]:
        return {"action": "place", "player": self.player, "humour": self.humour, "target": self.target.to_json()}


@dataclass(frozen=True)
class Pass(Action):
    """Pass this turn; the player may still place on a later turn (FH-3.8)."""

    name: ClassVar[str] = "pass"
    player: int

    def __str__(self) -> str:
        return f"pass {self.player}"

    def to_json(self) -> dict[str, Any]:
        return {"action": "pass", "player": self.player}


@dataclass(frozen=True)
class Redraw(Action):
    """Return four identical potions to the bag and draw four again (FH-2.7); not a turn."""

    name: ClassVar[str] = "redraw"
    player: int

    def __str__(self) -> str:
        return f"redraw {self.player}"

    def to_json(self) -> dict[str, Any]:
        return {"action": "redraw", "player": self.player}


@dataclass(frozen=True)
class Choose(Action):
    """Put the potion that awaits this player's decision on ``cell`` (sneak target, joker winner)."""

    name: ClassVar[str] = "choose"
    player: int
    cell: str

    def __str__(self) -> str:
        return f"choose {self.player} {self.cell}"

    def to_json(self) -> dict[str, Any]:
        return {"action": "choose", "player": self.player, "cell": self.cell}


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise InvalidAction(f"{what} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    raise InvalidAction(f"{what} must be an integer")


def _humour(value: Any) -> str:
    if value not in HUMOURS:
        raise InvalidAction(f"humour must be one of {', '.join(HUMOURS)}")
    return value
