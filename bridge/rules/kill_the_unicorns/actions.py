"""Kill the Unicorns decisions as values (python-chess style): frozen, comparable, with a JSON form and a text form
that read back as the same action.

JSON (docs/games/kill_the_unicorns/protocol.md; ``player`` is always the seat that decides)::

    {"action": "place-trick", "player": 0, "card": "princess-trick-7", "unicorn": 2, "slot": "above"}
    {"action": "open", "player": 1, "cards": ["knight-hunt-4", "knight-hunt-8"]}
    {"action": "join", "player": 2, "cards": ["wizard-hunt-1", "wizard-hunt-5"]}
    {"action": "pass", "player": 3}
    {"action": "choose-trick", "player": 2, "slot": "below"}
    {"action": "power", "player": 1}
    {"action": "decline", "player": 1}
    {"action": "buy", "player": 0, "item": "fairy_dust", "cards": ["princess-hunt-5"], "unicorn": "green-3"}
    {"action": "skip", "player": 0}

Text: the same fields in that order, separated by spaces; card lists joined by ``,``; no unicorn is ``-``
(``buy 0 pate princess-hunt-8 start-2``, ``open 1 knight-hunt-4,knight-hunt-8``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from bridge.rules.errors import InvalidAction
from bridge.rules.values import frozen_value

# frozen_value: @dataclass(frozen=True) whose __init__ fills the instance's __dict__ directly, about half the cost of
# the dataclass one; the tables make every distinct action once, but hands and catches vary, so a playout still makes
# some.

SLOTS: tuple[str, ...] = ("above", "below")


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidAction(f"{what} must be a non-negative integer")
    return value


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 64 or " " in value or "," in value:
        raise InvalidAction(f"{what} must be an id")
    return value


def _cards(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or len(value) > 8:
        raise InvalidAction("cards must be a list of 1 to 8 card ids")
    return tuple(_str(card, "each card") for card in value)


def _slot(value: Any) -> str:
    if value not in SLOTS:
        raise InvalidAction('slot must be "above" or "below"')
    return value


class Action:
    """Base of every action: ``player`` decides; ``name`` is the JSON ``action`` and the text's first word."""

    name: ClassVar[str]
    player: int

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @staticmethod
    def from_json(value: Any) -> "Action":
        """The action of a JSON object; :class:`InvalidAction` when it is malformed."""
        if not isinstance(value, dict):
            raise InvalidAction("an action must be an object")
        name = value.get("action")
        kind = ACTION_TYPES.get(name) if isinstance(name, str) else None   # a list or an object is no name
        if kind is None:
            raise InvalidAction(f"unknown action {value.get('action')!r} (expected {', '.join(ACTION_TYPES)})")
        allowed = set(kind.json_keys) | {"action", "player"}
        for key in value:
            if key not in allowed:
                raise InvalidAction(f"{kind.name}: unknown field {key!r}")
        return kind.read(value, _int(value.get("player"), "player"))

    @staticmethod
    def from_text(text: str) -> "Action":
        """The action of its text form (``str(action)``)."""
        if not isinstance(text, str):
            raise InvalidAction("an action text must be a string")
        words = text.split()
        if len(words) < 2 or words[0] not in ACTION_TYPES:
            raise InvalidAction(f"unknown action text {text!r}")
        kind = ACTION_TYPES[words[0]]
        if len(words) != 2 + len(kind.json_keys):
            raise InvalidAction(f"{kind.name} takes {len(kind.json_keys)} fields after the player: {text!r}")
        try:
            player = int(words[1])
        except ValueError:
            raise InvalidAction(f"the player must be a seat number: {text!r}") from None
        body: dict[str, Any] = {}
        for key, word in zip(kind.json_keys, words[2:]):
            if key == "cards":
                body[key] = [] if word == "-" else word.split(",")
            elif key == "unicorn" and kind is PlaceTrick:
                try:
                    body[key] = int(word)
                except ValueError:
                    raise InvalidAction(f"the unicorn must be a line position: {text!r}") from None
            elif key == "unicorn":
                body[key] = None if word == "-" else word
            else:
                body[key] = word
        return kind.read(body, _int(player, "player"))


@frozen_value
class PlaceTrick(Action):
    """Put ``card`` (one of the two drawn) face down in ``slot`` of line unicorn ``unicorn``; discard the other."""

    player: int
    card: str
    unicorn: int
    slot: str
    name: ClassVar[str] = "place-trick"
    json_keys: ClassVar[tuple[str, ...]] = ("card", "unicorn", "slot")

    @classmethod
    def read(cls, v: dict[str, Any], player: int) -> "PlaceTrick":
        return cls(player, _str(v.get("card"), "card"), _int(v.get("unicorn"), "unicorn"), _slot(v.get("slot")))

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "card": self.card, "unicorn": self.unicorn,
                "slot": self.slot}

    def __str__(self) -> str:
        return f"{self.name} {self.player} {self.card} {self.unicorn} {self.slot}"


@frozen_value
class _WithCards(Action):
    player: int
    cards: tuple[str, ...]
    json_keys: ClassVar[tuple[str, ...]] = ("cards",)

    @classmethod
    def read(cls, v: dict[str, Any], player: int):
        return cls(player, _cards(v.get("cards")))

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "cards": list(self.cards)}

    def __str__(self) -> str:
        return f"{self.name} {self.player} {','.join(self.cards)}"


@frozen_value
class Open(_WithCards):
    """Open the hunt with N = len(cards) hunting cards face down (KU-4.1)."""

    name: ClassVar[str] = "open"


@frozen_value
class Join(_WithCards):
    """Join the hunt with exactly N hunting cards face down (KU-4.2)."""

    name: ClassVar[str] = "join"


@frozen_value
class _Bare(Action):
    player: int
    json_keys: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def read(cls, v: dict[str, Any], player: int):
        return cls(player)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player}

    def __str__(self) -> str:
        return f"{self.name} {self.player}"


@frozen_value
class Pass(_Bare):
    """Decline to open (the token moves left) or to join: either way, this hunt is lost to the player."""

    name: ClassVar[str] = "pass"


@frozen_value
class UsePower(_Bare):
    """Use the character's power now (its timing has come)."""

    name: ClassVar[str] = "power"


@frozen_value
class Decline(_Bare):
    """Do not use the character's power now."""

    name: ClassVar[str] = "decline"


@frozen_value
class Skip(_Bare):
    """Buy nothing at the black market."""

    name: ClassVar[str] = "skip"


@frozen_value
class ChooseTrick(Action):
    """The provisional winner picks one of the two tricks of the unicorn by its slot, blind (AMB-KU-12)."""

    player: int
    slot: str
    name: ClassVar[str] = "choose-trick"
    json_keys: ClassVar[tuple[str, ...]] = ("slot",)

    @classmethod
    def read(cls, v: dict[str, Any], player: int) -> "ChooseTrick":
        return cls(player, _slot(v.get("slot")))

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "slot": self.slot}

    def __str__(self) -> str:
        return f"{self.name} {self.player} {self.slot}"


@frozen_value
class Buy(Action):
    """Buy one token of ``item`` paying with ``cards`` from the hand; ``unicorn`` is the captured unicorn the token
    goes on (an ``own_unicorn`` item) or the one it turns in (pâté), else ``None``."""

    player: int
    item: str
    cards: tuple[str, ...]
    unicorn: str | None
    name: ClassVar[str] = "buy"
    json_keys: ClassVar[tuple[str, ...]] = ("item", "cards", "unicorn")

    @classmethod
    def read(cls, v: dict[str, Any], player: int) -> "Buy":
        unicorn = v.get("unicorn")
        unicorn = None if unicorn is None or unicorn is False else _str(unicorn, "unicorn")
        cards = v.get("cards")
        paid = () if cards == [] or cards is None or cards == {} else _cards(cards)
        return cls(player, _str(v.get("item"), "item"), paid, unicorn)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "player": self.player, "item": self.item, "cards": list(self.cards),
                "unicorn": self.unicorn}

    def __str__(self) -> str:
        return f"{self.name} {self.player} {self.item} {','.join(self.cards) or '-'} {self.unicorn or '-'}"


ACTION_TYPES: dict[str, Any] = {kind.name: kind for kind in (
    PlaceTrick, Open, Join, Pass, ChooseTrick, UsePower, Decline, Buy, Skip)}
