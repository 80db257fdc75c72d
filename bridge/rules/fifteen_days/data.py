"""15 Days game data: parsed TOML documents → validated, frozen records (:class:`FifteenDaysData`).

Pure: :func:`parse_fifteen_days` reads no files (:mod:`bridge.catalog` reads them). Every problem with the data
raises :class:`bridge.rules.errors.DataError` naming the file, the entry and the field, e.g.::

    cards.toml: card "summer-3-1": back: "spring" is not a back season (summer, autumn, winter)

Indexes in field paths count from 0. The files are documented in ``docs/games/fifteen_days/data-format.md``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from bridge.rules import reader as r
from bridge.rules.fifteen_days.records import (
    BACK_COUNTS,
    BACK_SEASONS,
    CORNERS_PER_BOARD,
    DIRECTIONS,
    FACE_COUNTS,
    MODES,
    POWERS,
    RULE_CHOICES,
    SEASON_CARD_COUNT,
    SEASONS,
    Animal,
    BoardSpec,
    Feather,
    FifteenDaysData,
    OverviewCard,
    Rules,
    SeasonCard,
    SeasonInfo,
    WildCard,
)
from bridge.rules.game import TOOL_TABLES, GameMeta, parse_game_meta, read_names

__all__ = ["FIFTEEN_DAYS_FILES", "parse_fifteen_days"]

FIFTEEN_DAYS_FILES: tuple[str, ...] = ("game.toml", "cards.toml", "components.toml")
"""The files of a 15 Days game folder, in the order they are validated."""

_COLOUR_RE = re.compile(r"#[0-9a-fA-F]{6}\Z")

# Smallest sensible value of every integer flag: a flag of 0 would make the game unplayable or meaningless,
# except those that may be switched off with 0 (a discount, a penalty, points, the 2-player removal).
_RULE_MINIMUMS: dict[str, int] = {
    "frog_discount": 0,
    "two_player_removed_each": 0,
    "starting_hand": 0,
    "feathers_per_player": 0,
    "market_columns": 1,
    "market_column_height": 1,
    "draw_piles": 1,
    "wild_supply_per_player": 0,
    "actions_per_turn": 1,
    "draw_count": 1,
    "take_count": 1,
    "wild_discard_count": 0,
    "squirrel_draw_count": 1,
    "rabbit_take_count": 1,
    "animal_threshold": 1,
    "hand_limit": 0,
    "otter_limit": 0,
    "animal_points": 0,
    "empty_corner_penalty": 0,
}


def _colour(at: r.At, value: Any) -> str:
    text = r.string(at, value)
    if not _COLOUR_RE.match(text):
        raise at.error(f"{r.show(text)} is not a colour like #rrggbb")
    return text


def _season(at: r.At, value: Any) -> str:
    return r.choice(at, value, SEASONS, "a season")


# --------------------------------------------------------------------------------------------------------------
# game.toml


def _parse_info(doc: dict[str, Any]) -> GameMeta:
    """The shared ``[game]`` table, plus what 15 Days asks of it: its one mode is "standard"."""
    meta = parse_game_meta(doc)
    modes_at = r.At.data("game.toml", "[game]").sub("modes")
    for index, mode in enumerate(meta.modes):
        r.choice(modes_at.sub(index), mode, MODES, "a mode")
    return meta


def _parse_seasons(value: Any) -> tuple[SeasonInfo, ...]:
    at = r.At.data("game.toml", "[seasons]")
    found = r.table(at, value)
    for key in found:
        if key not in SEASONS:
            raise at.error(f"{r.show(key)} is not a season ({', '.join(SEASONS)})")
    seasons = []
    for season in SEASONS:
        if season not in found:
            raise at.error(f'missing season "{season}"')
        entry = r.At.data("game.toml", f'season "{season}"')
        item = r.table(entry, found[season])
        r.keys(entry, item, ("name", "colour"))
        seasons.append(SeasonInfo(season, read_names(entry.sub("name"), item["name"]),
                                  _colour(entry.sub("colour"), item["colour"])))
    return tuple(seasons)


def _parse_values(at: r.At, value: Any) -> tuple[int, ...]:
    """AMB-FD-01: distinct positive integers, ascending and consecutive (runs and "missing value" need that)."""
    items = r.array(at, value, non_empty=True)
    values = tuple(r.integer(at.sub(index), item, 1) for index, item in enumerate(items))
    for index in range(1, len(values)):
        if values[index] != values[index - 1] + 1:
            raise at.error(f"must be consecutive ascending values like [1, 2, 3, 4, 5, 6], got "
                           f"{', '.join(map(str, values))}")
    return values


def _parse_rules(value: Any) -> Rules:
    at = r.At.data("game.toml", "[rules]")
    parsed = r.rule_flags(at, value, Rules(), _RULE_MINIMUMS, RULE_CHOICES, special={"values": _parse_values})
    rules = Rules(**parsed)
    if rules.otter_limit < rules.hand_limit:
        raise at.sub("otter_limit").error(f"{rules.otter_limit} is less than hand_limit ({rules.hand_limit}): "
                                          f"the otter raises the limit")
    if rules.squirrel_draw_count < rules.draw_count:
        raise at.sub("squirrel_draw_count").error(
            f"{rules.squirrel_draw_count} is less than draw_count ({rules.draw_count}): the squirrel draws more")
    if rules.rabbit_take_count < rules.take_count:
        raise at.sub("rabbit_take_count").error(
            f"{rules.rabbit_take_count} is less than take_count ({rules.take_count}): the rabbit takes more")
    return rules


# --------------------------------------------------------------------------------------------------------------
# cards.toml


def _parse_cards(doc: Any, rules: Rules) -> tuple[SeasonCard, ...]:
    found = r.top("cards.toml", doc, ("cards",))
    items = r.array(r.At.data("cards.toml", None, "cards"), found["cards"], non_empty=True)
    cards: list[SeasonCard] = []
    ats: list[r.At] = []
    for index, item in enumerate(items):
        at = r.At.data("cards.toml", r.entry_name("card", "cards", item, index))
        entry = r.table(at, item)
        r.keys(at, entry, ("id", "season", "value", "back", "title"))
        ident = r.ident(at.sub("id"), entry["id"])
        season = _season(at.sub("season"), entry["season"])
        card_value = r.integer(at.sub("value"), entry["value"])
        if card_value not in rules.values:
            raise at.sub("value").error(f"{card_value} is not one of the values of game.toml rules.values "
                                        f"({rules.values[0]}..{rules.values[-1]})")
        back = r.choice(at.sub("back"), entry["back"], BACK_SEASONS, "a back season")
        if season != back and season in BACK_SEASONS:
            # Only spring faces hide under another season's back (rules spec 3.1, S2-3).
            raise at.sub("back").error(f"{r.show(back)} under a {season} face: a {season} card has a {season} back "
                                       f"(only spring cards have another season's back)")
        cards.append(SeasonCard(ident, season, card_value, back, read_names(at.sub("title"), entry["title"])))
        ats.append(at)
    r.check_unique(ats, [card.id for card in cards], "card", "cards")
    _check_card_counts(cards, rules)
    return tuple(cards)


def _check_card_counts(cards: list[SeasonCard], rules: Rules) -> None:
    """The public counts (rules spec 3.1): 90 cards, faces 18/24/24/24, backs 30/30/30, and every season holding
    every value (a set that cannot be completed would make FD-9.1 unreachable)."""
    at = r.At.data("cards.toml", None, "cards")
    if len(cards) != SEASON_CARD_COUNT:
        raise at.error(f"{len(cards)} season cards, expected {SEASON_CARD_COUNT}")
    faces = Counter(card.season for card in cards)
    for season in SEASONS:
        if faces[season] != FACE_COUNTS[season]:
            raise at.error(f"{faces[season]} cards with a {season} face, expected {FACE_COUNTS[season]}")
    backs = Counter(card.back for card in cards)
    for back in BACK_SEASONS:
        if backs[back] != BACK_COUNTS[back]:
            raise at.error(f"{backs[back]} cards with a {back} back, expected {BACK_COUNTS[back]}")
    present = {(card.season, card.value) for card in cards}
    for season in SEASONS:
        for value in rules.values:
            if (season, value) not in present:
                raise at.error(f"no {season} card of value {value}: the {season} set could never be completed")


# --------------------------------------------------------------------------------------------------------------
# components.toml


def _parse_pieces(doc: dict[str, Any], key: str, kind: type) -> tuple[Any, ...]:
    """``[wild]`` / ``[feather]``: ``copies`` identical pieces, given ids ``<key>-1`` … ``<key>-<copies>``."""
    at = r.At.data("components.toml", f"[{key}]")
    entry = r.table(at, doc[key])
    r.keys(at, entry, ("copies", "title", "text"))
    copies = r.integer(at.sub("copies"), entry["copies"], 1)
    title = read_names(at.sub("title"), entry["title"])
    text = read_names(at.sub("text"), entry["text"])
    return tuple(kind(f"{key}-{number}", title, text) for number in range(1, copies + 1))


def _entries(doc: dict[str, Any], key: str, kind: str, count: int, *, at_least: bool = False,
             why: str = "") -> list[tuple[r.At, dict[str, Any]]]:
    """The ``[[key]]`` tables of components.toml, each with its error place: exactly ``count`` of them (at least
    ``count`` with ``at_least``)."""
    items = r.array(r.At.data("components.toml", None, key), doc[key])
    if len(items) < count or (len(items) > count and not at_least):
        expected = f"at least {count}" if at_least else f"{count}"
        raise r.At.data("components.toml", None, key).error(f"{len(items)} {key}, expected {expected}{why}")
    entries = []
    for index, item in enumerate(items):
        at = r.At.data("components.toml", r.entry_name(kind, key, item, index))
        entries.append((at, r.table(at, item)))
    return entries


def _parse_animals(doc: dict[str, Any]) -> tuple[Animal, ...]:
    animals: list[Animal] = []
    ats: list[r.At] = []
    for at, entry in _entries(doc, "animals", "animal", len(SEASONS)):
        r.keys(at, entry, ("id", "season", "colour", "power", "name", "power_text"))
        animal = Animal(r.ident(at.sub("id"), entry["id"]), _season(at.sub("season"), entry["season"]),
                        _colour(at.sub("colour"), entry["colour"]),
                        r.choice(at.sub("power"), entry["power"], POWERS, "an animal power"),
                        read_names(at.sub("name"), entry["name"]),
                        read_names(at.sub("power_text"), entry["power_text"]))
        for other, other_at in zip(animals, ats):
            if other.season == animal.season:
                raise at.sub("season").error(f'{r.show(animal.season)} already belongs to animal "{other.id}"')
            if other.power == animal.power:
                raise at.sub("power").error(f'{r.show(animal.power)} is already the power of animal "{other.id}"')
        animals.append(animal)
        ats.append(at)
    r.check_unique(ats, [animal.id for animal in animals], "animal", "animals")
    return tuple(animals)


def _parse_boards(doc: dict[str, Any], meta: GameMeta) -> tuple[BoardSpec, ...]:
    boards: list[BoardSpec] = []
    ats: list[r.At] = []
    for at, entry in _entries(doc, "boards", "board", meta.max_players, at_least=True,
                                 why=" (one per seat, game.toml max_players)"):
        r.keys(at, entry, ("id", "name", "corners"))
        corners_at = at.sub("corners")
        items = r.array(corners_at, entry["corners"])
        if len(items) != CORNERS_PER_BOARD:
            raise corners_at.error(f"{len(items)} corners, expected {CORNERS_PER_BOARD}")
        corners = tuple(r.choice(corners_at.sub(index), item, DIRECTIONS, "a corner direction")
                        for index, item in enumerate(items))
        if corners.count("asc") != CORNERS_PER_BOARD // 2:
            raise corners_at.error(f"{corners.count('asc')} ascending corners, expected two ascending and two "
                                   f"descending")
        boards.append(BoardSpec(r.ident(at.sub("id"), entry["id"]), read_names(at.sub("name"), entry["name"]),
                                corners))
        ats.append(at)
    r.check_unique(ats, [board.id for board in boards], "board", "boards")
    return tuple(boards)


def _parse_overviews(doc: dict[str, Any], meta: GameMeta) -> tuple[OverviewCard, ...]:
    overviews: list[OverviewCard] = []
    ats: list[r.At] = []
    for at, entry in _entries(doc, "overviews", "overview", meta.max_players, at_least=True,
                                 why=" (one per seat, game.toml max_players)"):
        r.keys(at, entry, ("id", "title", "text"))
        overviews.append(OverviewCard(r.ident(at.sub("id"), entry["id"]), read_names(at.sub("title"), entry["title"]),
                                      read_names(at.sub("text"), entry["text"])))
        ats.append(at)
    r.check_unique(ats, [overview.id for overview in overviews], "overview card", "overviews")
    return tuple(overviews)


# --------------------------------------------------------------------------------------------------------------


def _check_supplies(meta: GameMeta, rules: Rules, wilds: tuple[WildCard, ...], feathers: tuple[Feather, ...],
                    cards: tuple[SeasonCard, ...]) -> None:
    """The box must hold enough for every player count (FD-1.2, FD-1.3, FD-1.4, FD-1.6, FD-1.7)."""
    most = meta.max_players
    needed_wilds = rules.wild_supply_per_player * most
    if needed_wilds > len(wilds):
        raise r.At.data("components.toml", "[wild]", "copies").error(
            f"{len(wilds)} wild cards, but {most} players use {needed_wilds} "
            f"(game.toml rules.wild_supply_per_player = {rules.wild_supply_per_player})")
    needed_feathers = rules.feathers_per_player * most
    if needed_feathers > len(feathers):
        raise r.At.data("components.toml", "[feather]", "copies").error(
            f"{len(feathers)} feathers, but {most} players start with {needed_feathers} "
            f"(game.toml rules.feathers_per_player = {rules.feathers_per_player})")
    kinds = BACK_COUNTS if rules.two_player_removal == "by_back" else {s: FACE_COUNTS[s] for s in BACK_SEASONS}
    smallest_kind = min(kinds.values())
    if rules.two_player_removed_each > smallest_kind:
        raise r.At.data("game.toml", "[rules]", "two_player_removed_each").error(
            f"{rules.two_player_removed_each} is more than the {smallest_kind} cards of each kind there are")
    for players in range(meta.min_players, most + 1):
        left = len(cards) - (rules.two_player_removed_each * len(kinds) if players == 2 else 0)
        # hands, the market, the first discard and at least one card in every draw pile
        needed = rules.starting_hand * players + rules.market_columns * rules.market_column_height + 1 \
            + rules.draw_piles
        if needed > left:
            raise r.At.data("game.toml", "[rules]").error(
                f"setting up {players} players needs {needed} season cards (hands, market, first discard and one "
                f"card per draw pile), only {left} are in play")


def parse_fifteen_days(documents: Mapping[str, Any]) -> FifteenDaysData:
    """Validate the parsed TOML ``documents`` of a game folder (file name → table, every file of
    :data:`FIFTEEN_DAYS_FILES`) and return the records; the first problem raises ``DataError``."""
    for name in FIFTEEN_DAYS_FILES:
        if name not in documents:
            raise r.At.data(name).error("missing file")
    game = r.top("game.toml", documents["game.toml"], ("game", "seasons", "rules"), TOOL_TABLES)
    meta = _parse_info(game)
    listed = tuple(meta.data_files)
    if listed != FIFTEEN_DAYS_FILES:
        raise r.At.data("game.toml", "[game]", "data_files").error(
            f"must be {', '.join(FIFTEEN_DAYS_FILES)} (15 Days reads exactly these files), got {', '.join(listed)}")
    seasons = _parse_seasons(game["seasons"])
    rules = _parse_rules(game["rules"])
    cards = _parse_cards(documents["cards.toml"], rules)
    components = r.top("components.toml", documents["components.toml"],
                       ("wild", "feather", "animals", "boards", "overviews"))
    wilds = _parse_pieces(components, "wild", WildCard)
    feathers = _parse_pieces(components, "feather", Feather)
    animals = _parse_animals(components)
    boards = _parse_boards(components, meta)
    overviews = _parse_overviews(components, meta)
    _check_supplies(meta, rules, wilds, feathers, cards)
    return FifteenDaysData(meta, rules, seasons, cards, wilds, feathers, animals, boards, overviews)
