"""Typed, frozen records of the Kill the Unicorns game data.

``bridge.rules.kill_the_unicorns.data`` builds these from ``assets/kill_the_unicorns/*.toml`` after validating
them; the engine, the card renderer and the table builder read these records, never the files. Field names are
the TOML keys (docs/games/kill_the_unicorns/data-format.md).

Card ids: hunting card ``<character>-hunt-<i>`` (value ``rules.hunting_values[i-1]``), trick card
``<character>-trick-<i>`` (kind ``character.tricks[i-1]``), unicorn: its ``id``, market token ``<item>-<k>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Mapping

from bridge.rules.game import GameMeta, Names

MODES: tuple[str, ...] = ("standard",)

MAX_TOKENS_PER_ITEM = 7
"""Tokens built of a ``per_player`` market item: as many as the largest player count."""

# Allowed values of the text flags of :class:`Rules` (data.py checks them, rules.md lists them).
RULE_CHOICES: Mapping[str, tuple[str, ...]] = {
    "tie_rule": ("drop_tied_groups", "runs_away"),           # AMB-KU-04
    "price_rule": ("sum", "count"),                          # AMB-KU-06
    "token_target": ("own_unicorn", "any_unicorn"),          # AMB-KU-07
    "tie_break": ("most_unicorns", "shared"),                # AMB-KU-11
    "trick_choice": ("winner", "random"),                    # AMB-KU-12
    "first_player": ("random", "host"),                      # KU-1.2
    "promo_characters": ("when_needed", "always"),           # KU-1.1
}

STOCK_PER_PLAYER = "per_player"
TARGETS: tuple[str, ...] = ("own_unicorn", "player_area")


@dataclass(frozen=True)
class Rules:
    """Every ``[rules]`` flag of game.toml (all required there), documented in docs/games/kill_the_unicorns/rules.md.
    The defaults are those of rules spec §4.4."""

    days: int = 4
    unicorns_per_day: int = 4
    tricks_drawn: int = 2
    max_hunt_cards: int = 3
    hunting_values: tuple[int, ...] = (0, 1, 1, 2, 2, 3, 3, 4)
    mandatory_trick: bool = True
    tie_rule: str = "drop_tied_groups"
    decline_to_open_passes: bool = True
    price_rule: str = "sum"
    token_target: str = "own_unicorn"
    sixth_scores_nothing: bool = False
    double_rainbow_wins: bool = False
    tie_break: str = "most_unicorns"
    trick_choice: str = "winner"
    power_uses_per_day: int = 1
    collection_bonus: tuple[int, ...] = (0, 0, 2, 5, 8, 12)
    collection_cap: int = 5
    rainbow_bonus: int = 8
    first_player: str = "random"
    promo_characters: str = "when_needed"

    def bonus(self, count: int) -> int:
        """The collection bonus of ``count`` unicorns of one colour (capped at ``collection_cap``)."""
        table = self.collection_bonus
        return table[min(count, self.collection_cap, len(table) - 1)]


@dataclass(frozen=True)
class Colour:
    """A unicorn colour: its names and ``#rrggbb``."""

    id: str
    name: Names
    hex: str


@dataclass(frozen=True)
class Effect:
    """One effect of the registry (:mod:`bridge.rules.kill_the_unicorns.effects`): its ``type``, when it acts
    (``timing``) and its parameters (only those of its type are set)."""

    type: str
    timing: str
    target: str | None = None      # hunt_sum_delta: self | winner | each_participant | others | highest
    delta: int = 0                 # hunt_sum_delta, stars_delta, points, price_delta
    rule: str | None = None        # change_winner: second | lowest | self
    colour: str | None = None      # set_colour: a colour id or "owner_choice"
    points: int = 0                # remove_own_unicorn: points of the turned-in unicorn
    max_stars: int | None = None   # remove_own_unicorn: only unicorns with at most this many stars

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"type": self.type, "timing": self.timing}
        for key in ("target", "rule", "colour", "max_stars"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.type in ("hunt_sum_delta", "stars_delta", "points", "price_delta"):
            out["delta"] = self.delta
        if self.type == "remove_own_unicorn":
            out["points"] = self.points
        return out


@dataclass(frozen=True)
class Power:
    """A character's power: usable ``Rules.power_uses_per_day`` times a day at its ``timing`` (AMB-KU-13)."""

    name: Names
    text: Names
    timing: str
    effect: Effect


@dataclass(frozen=True)
class Character:
    """A character: its colour (frame, backs of its cards), whether it is a promo, the kinds of its 8 trick
    cards (in card order) and its power."""

    id: str
    name: Names
    colour: str
    promo: bool
    tricks: tuple[str, ...]
    power: Power


@dataclass(frozen=True)
class TrickKind:
    """A kind of trick card; ``common`` when more than one character has it (derived)."""

    id: str
    name: Names
    text: Names
    pinned: bool
    effect: Effect
    common: bool = False


@dataclass(frozen=True)
class Unicorn:
    """A unicorn card; ``colour`` None = legendary (colourless)."""

    id: str
    name: Names
    colour: str | None
    stars: int
    start: bool
    tags: tuple[str, ...]


@dataclass(frozen=True)
class MarketItem:
    """A black-market item: ``stock`` is ``"per_player"`` or a number of tokens; ``target`` where its token goes."""

    id: str
    name: Names
    text: Names
    price: int
    stock: str | int
    target: str
    effect: Effect

    def stock_for(self, players: int) -> int:
        """Tokens put on the market at setup for ``players`` players."""
        return players if self.stock == STOCK_PER_PLAYER else int(self.stock)

    @property
    def token_count(self) -> int:
        """Tokens in the box: the largest stock any player count needs."""
        return MAX_TOKENS_PER_ITEM if self.stock == STOCK_PER_PLAYER else int(self.stock)


@dataclass(frozen=True)
class HuntingCard:
    id: str
    character: str
    index: int          # 1 … 8
    value: int


@dataclass(frozen=True)
class TrickCard:
    id: str
    character: str
    index: int          # 1 … 8
    kind: str


@dataclass(frozen=True)
class KillTheUnicornsData:
    """Everything the engine and the builder need of one game folder, validated (see ``data.py``)."""

    info: GameMeta
    rules: Rules
    colours: Mapping[str, Colour]                 # in data order: green first
    characters: tuple[Character, ...]
    tricks: tuple[TrickKind, ...]
    unicorns: tuple[Unicorn, ...]
    market: tuple[MarketItem, ...]

    # ---- look-ups ----------------------------------------------------------------------------------------------

    @cached_property
    def colour_ids(self) -> tuple[str, ...]:
        return tuple(self.colours)

    @cached_property
    def character_by_id(self) -> Mapping[str, Character]:
        return {c.id: c for c in self.characters}

    @cached_property
    def trick_by_id(self) -> Mapping[str, TrickKind]:
        return {t.id: t for t in self.tricks}

    @cached_property
    def unicorn_by_id(self) -> Mapping[str, Unicorn]:
        return {u.id: u for u in self.unicorns}

    @cached_property
    def market_by_id(self) -> Mapping[str, MarketItem]:
        return {m.id: m for m in self.market}

    @cached_property
    def start_unicorns(self) -> tuple[Unicorn, ...]:
        return tuple(u for u in self.unicorns if u.start)

    @cached_property
    def deck_unicorns(self) -> tuple[Unicorn, ...]:
        return tuple(u for u in self.unicorns if not u.start)

    @cached_property
    def hunting_cards(self) -> Mapping[str, HuntingCard]:
        """Every hunting card by id (all characters)."""
        out = {}
        for character in self.characters:
            for i, value in enumerate(self.rules.hunting_values, 1):
                card = HuntingCard(f"{character.id}-hunt-{i}", character.id, i, value)
                out[card.id] = card
        return out

    @cached_property
    def trick_cards(self) -> Mapping[str, TrickCard]:
        """Every trick card by id (all characters)."""
        out = {}
        for character in self.characters:
            for i, kind in enumerate(character.tricks, 1):
                card = TrickCard(f"{character.id}-trick-{i}", character.id, i, kind)
                out[card.id] = card
        return out

    @cached_property
    def token_ids(self) -> Mapping[str, tuple[str, ...]]:
        """Market item id → the ids of all its tokens in the box."""
        return {m.id: tuple(f"{m.id}-{k}" for k in range(1, m.token_count + 1)) for m in self.market}

    @cached_property
    def token_item(self) -> Mapping[str, str]:
        """Token id → its market item id."""
        return {token: item for item, tokens in self.token_ids.items() for token in tokens}

    def hunting_card(self, card_id: str) -> HuntingCard:
        return self.hunting_cards[card_id]

    def trick_card(self, card_id: str) -> TrickCard:
        return self.trick_cards[card_id]

    def tokens(self, item: str) -> tuple[str, ...]:
        return self.token_ids[item]
