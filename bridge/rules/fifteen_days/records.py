"""Typed, frozen records of the 15 Days game data.

``bridge.rules.fifteen_days.data`` builds these from ``assets/fifteen_days/*.toml`` (or a designer's copy of that
folder) after validating it; the engine, the renderer and the table builder read these records, never the files.
Nothing here knows about files: a record is only a value.

Vocabulary (rules spec §3, ``docs/games/fifteen_days/rules.md``): a *season card* shows a *season* and a *value*
on its face and one of three *back* seasons; a *player board* has four *corners*, each ``asc`` or ``desc``; a
*wild* stands for one missing value of a corner; *animals* go to the player with most cards of their season and
give a *power*; *feathers* lend a power for one action.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Mapping

from bridge.rules.game import GameMeta, Names

# ------------------------------------------------------------------------------------------------ vocabulary

SPRING, SUMMER, AUTUMN, WINTER = "spring", "summer", "autumn", "winter"
SEASONS: tuple[str, ...] = (SPRING, SUMMER, AUTUMN, WINTER)
"""The four seasons in their canonical order (the order of the data and of every per-season list)."""

BACK_SEASONS: tuple[str, ...] = (SUMMER, AUTUMN, WINTER)
"""The seasons a card back can show: there is no spring back (rules spec S2-3)."""

FACE_COUNTS: Mapping[str, int] = {SPRING: 18, SUMMER: 24, AUTUMN: 24, WINTER: 24}
"""How many season cards show each season on their face (public: rules spec §3.1)."""

BACK_COUNTS: Mapping[str, int] = {SUMMER: 30, AUTUMN: 30, WINTER: 30}
"""How many season cards carry each back (public: rules spec §3.1)."""

SEASON_CARD_COUNT = 90
"""Season cards in the box."""

ASC, DESC = "asc", "desc"
DIRECTIONS: tuple[str, ...] = (ASC, DESC)
"""How a corner keeps its cards: ascending (the highest value is cheap to add) or descending (the lowest)."""

CORNERS_PER_BOARD = 4

# Animal powers. The amounts (8 cards, 1 card off, 3 drawn, 2 taken) are rule flags of :class:`Rules`.
HAND_LIMIT, DISCOUNT, DRAW_DOWN, TAKE_UP = "hand_limit", "discount", "draw_down", "take_up"
POWERS: tuple[str, ...] = (HAND_LIMIT, DISCOUNT, DRAW_DOWN, TAKE_UP)
"""What an animal lets its owner do: ``hand_limit`` keep ``Rules.otter_limit`` cards at the end of the turn;
``discount`` pay ``Rules.frog_discount`` fewer cards per Play action; ``draw_down`` draw
``Rules.squirrel_draw_count`` face-down cards; ``take_up`` take ``Rules.rabbit_take_count`` face-up cards."""

MODES: tuple[str, ...] = ("standard",)

# Allowed values of the text flags of :class:`Rules`; ``data.py`` checks them, the docs list them.
# AMB-FD-03: only "printed" is implemented; the other reading (a corner's direction chosen with its first card,
# rules spec "chosen_by_first_card") would be added here when the engine learns it.
CORNER_DIRECTION_RULES: tuple[str, ...] = ("printed",)
TWO_PLAYER_REMOVAL_RULES: tuple[str, ...] = ("by_back", "by_face")              # AMB-FD-06
COMPLETE_SETS_END_RULES: tuple[str, ...] = ("immediately", "end_of_turn")       # AMB-FD-07
DISPLACED_WILD_RULES: tuple[str, ...] = ("any_corner", "other_corner")         # AMB-FD-11
STEAL_CHECK_RULES: tuple[str, ...] = ("changed_season", "every_season")         # AMB-FD-12
WILD_TIEBREAK_RULES: tuple[str, ...] = ("played", "on_board")                   # AMB-FD-13
FIRST_PLAYER_RULES: tuple[str, ...] = ("random", "host")                        # FD-1.8
RULE_CHOICES: Mapping[str, tuple[str, ...]] = {
    "corner_directions": CORNER_DIRECTION_RULES,
    "two_player_removal": TWO_PLAYER_REMOVAL_RULES,
    "end_on_complete_sets": COMPLETE_SETS_END_RULES,
    "displaced_wild_to": DISPLACED_WILD_RULES,
    "steal_check": STEAL_CHECK_RULES,
    "wild_tiebreak": WILD_TIEBREAK_RULES,
    "first_player": FIRST_PLAYER_RULES,
}


# ------------------------------------------------------------------------------------------------ components

@dataclass(frozen=True)
class SeasonInfo:
    """Display data of a season: its names and colour (``#rrggbb``) for faces, backs and the table."""

    id: str
    name: Names
    colour: str


@dataclass(frozen=True)
class SeasonCard:
    """One of the 90 season cards: ``season`` and ``value`` on its face, ``back`` (never spring) on its back.

    Copies of the same season and value are distinct cards with distinct ids and may share a ``title``.
    """

    id: str
    season: str
    value: int
    back: str
    title: Names


@dataclass(frozen=True)
class WildCard:
    """A wild card (joker): it has no season or value of its own until placed (FD-5)."""

    id: str
    title: Names
    text: Names


@dataclass(frozen=True)
class Feather:
    """A feather token: discarded to borrow one animal's power for the next action (FD-2.E)."""

    id: str
    title: Names
    text: Names


@dataclass(frozen=True)
class Animal:
    """A wooden animal: it belongs to one ``season`` (FD-6.1) and gives its owner ``power`` (one of
    :data:`POWERS`); ``colour`` is the wood's colour (``#rrggbb``)."""

    id: str
    season: str
    colour: str
    power: str
    name: Names
    power_text: Names


@dataclass(frozen=True)
class BoardSpec:
    """A player board (player card): ``corners`` are the printed directions of its four corners, corner 0 first.

    With ``Rules.corner_directions == "printed"`` (the only reading implemented) a seat's corners follow its board.
    """

    id: str
    name: Names
    corners: tuple[str, ...]

    @property
    def ascending(self) -> tuple[int, ...]:
        """Indexes of the ascending corners."""
        return tuple(index for index, direction in enumerate(self.corners) if direction == ASC)


@dataclass(frozen=True)
class OverviewCard:
    """A player aid; the animals start on the overview cards (rules spec §3.1)."""

    id: str
    title: Names
    text: Names


# ------------------------------------------------------------------------------------------------ rules

@dataclass(frozen=True)
class Rules:
    """Every rule flag of ``game.toml`` ``[rules]`` (all keys required there); each is documented, with its
    AMB-FD / FD id, in docs/games/fifteen_days/rules.md. The defaults here are the proposed defaults of
    rules spec §3.4/§3.5."""

    # AMB-FD-01: the values a season runs through; a set is complete when a corner holds all of them (FD-3.5).
    values: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    # AMB-FD-02: do wilds count towards an animal's threshold and majority?
    wilds_count_for_animals: bool = False
    # AMB-FD-03: "printed": each seat's corners follow its board in components.toml (by default 0-1 asc, 2-3 desc).
    corner_directions: str = "printed"
    # AMB-FD-04: one Play action may place any number of cards (false: exactly one); frog: this many cards off
    # the total of one Play action (never below 0).
    play_many_cards: bool = True
    frog_discount: int = 1
    # AMB-FD-05: a wild only goes into a corner that already holds a real card; false lets it start a corner.
    wild_needs_real_card: bool = True
    # AMB-FD-06: the 2-player game removes this many cards of each back ("by_back") or of each of summer,
    # autumn and winter faces ("by_face"), unseen.
    two_player_removal: str = "by_back"
    two_player_removed_each: int = 5
    # AMB-FD-07: completing every season set ends the game "immediately" (after that action) or "end_of_turn".
    end_on_complete_sets: str = "immediately"
    # AMB-FD-08: an equal count takes an animal from its owner (false: only a greater count does).
    steal_on_equal: bool = True
    # AMB-FD-09: a spent feather returns to the supply (false: out of the game); a feather spent on the otter
    # raises this turn's hand limit.
    feather_returns_to_supply: bool = True
    feather_otter_raises_limit: bool = True
    # AMB-FD-10: the top of the discard pile may be taken even when it was discarded this turn.
    take_own_discard: bool = True
    # AMB-FD-11: a wild displaced by its real card moves to any legal missing value, "any_corner" (the corner it
    # left included), or "other_corner" (a value of another corner only); with none it returns to the supply.
    displaced_wild_to: str = "any_corner"
    # AMB-FD-12: the animal check of FD-6.2 after a change of the active board: "changed_season" (only the
    # season whose count changed) or "every_season" (every season, so tied players swap an animal on any play).
    steal_check: str = "changed_season"
    # AMB-FD-13: the last tie-break of FD-9.4 counts the wilds "played" during the game (counted when placed,
    # kept when a displaced wild returns to the supply) or those "on_board" at the end.
    wild_tiebreak: str = "played"
    # FD-1 setup.
    starting_hand: int = 2
    feathers_per_player: int = 1
    market_columns: int = 3
    market_column_height: int = 3
    draw_piles: int = 2
    wild_supply_per_player: int = 2
    first_player: str = "random"
    # FD-2 turn.
    actions_per_turn: int = 2
    draw_count: int = 2
    take_count: int = 1
    wild_discard_count: int = 2
    squirrel_draw_count: int = 3
    rabbit_take_count: int = 2
    # FD-6 animals: real cards of a season needed to take its animal from the supply.
    animal_threshold: int = 3
    # FD-8 hand limit at the end of a turn, and with the otter.
    hand_limit: int = 5
    otter_limit: int = 8
    # FD-9 game end and scoring.
    bonus_wild_on_pile_end: bool = True
    animal_points: int = 2
    empty_corner_penalty: int = 2


# ------------------------------------------------------------------------------------------------ the data

@dataclass(frozen=True)
class FifteenDaysData:
    """Everything the engine and the builder need of one game folder, validated (see ``data.py``).

    ``cards`` are in data order (the order of ``cards.toml``); a new game shuffles them with its seed, so this
    order only fixes determinism. ``wilds`` and ``feathers`` are every physical piece in the box.
    """

    info: GameMeta
    rules: Rules
    seasons: tuple[SeasonInfo, ...]
    cards: tuple[SeasonCard, ...]
    wilds: tuple[WildCard, ...]
    feathers: tuple[Feather, ...]
    animals: tuple[Animal, ...]
    boards: tuple[BoardSpec, ...]
    overviews: tuple[OverviewCard, ...]

    @cached_property
    def card_by_id(self) -> Mapping[str, SeasonCard]:
        return {card.id: card for card in self.cards}

    @cached_property
    def season_by_id(self) -> Mapping[str, SeasonInfo]:
        return {season.id: season for season in self.seasons}

    @cached_property
    def animal_by_id(self) -> Mapping[str, Animal]:
        return {animal.id: animal for animal in self.animals}

    @cached_property
    def animal_of_season(self) -> Mapping[str, Animal]:
        """Season → the animal that season's cards win (FD-6.1)."""
        return {animal.season: animal for animal in self.animals}

    @cached_property
    def animal_with_power(self) -> Mapping[str, Animal]:
        """Power (one of :data:`POWERS`) → the animal that gives it."""
        return {animal.power: animal for animal in self.animals}

    @cached_property
    def board_by_id(self) -> Mapping[str, BoardSpec]:
        return {board.id: board for board in self.boards}

    def board_of_seat(self, seat: int) -> BoardSpec:
        """The player board of seat ``seat`` (0-based): boards are handed out in data order."""
        return self.boards[seat]

    def cards_with_back(self, back: str) -> tuple[SeasonCard, ...]:
        """The season cards with ``back`` on their back, in data order (the 2-player removal draws from these)."""
        return tuple(card for card in self.cards if card.back == back)

    def cards_with_face(self, season: str) -> tuple[SeasonCard, ...]:
        """The season cards showing ``season`` on their face, in data order."""
        return tuple(card for card in self.cards if card.season == season)

    @property
    def wild_total(self) -> int:
        """Wild cards in the box (the supply of a game is ``Rules.wild_supply_per_player`` × players)."""
        return len(self.wilds)

    @property
    def feather_total(self) -> int:
        """Feathers in the box: each player starts with ``Rules.feathers_per_player``, the rest is the supply."""
        return len(self.feathers)
