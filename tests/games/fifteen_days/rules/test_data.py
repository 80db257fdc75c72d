"""The 15 Days sample data loads into the records the engine and the builder expect, and every broken file gives
one clear ``DataError`` naming the file, the entry and the field."""

from __future__ import annotations

import copy
import dataclasses
import re
import shutil
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from bridge.errors import DataError
from bridge.paths import assets_dir
from bridge.rules.fifteen_days.data import FIFTEEN_DAYS_FILES, parse_fifteen_days
from bridge.rules.fifteen_days.records import (
    BACK_SEASONS,
    POWERS,
    RULE_CHOICES,
    SEASONS,
    FifteenDaysData,
    Rules,
)

Docs = dict[str, dict[str, Any]]

FOLDER = assets_dir() / "fifteen_days"


def read_documents(folder: Path) -> Docs:
    return {name: tomllib.loads((folder / name).read_text(encoding="utf-8")) for name in FIFTEEN_DAYS_FILES}


@pytest.fixture(scope="module")
def pristine_docs() -> Docs:
    return read_documents(FOLDER)


@pytest.fixture(scope="module")
def shipped(pristine_docs: Docs) -> FifteenDaysData:
    return parse_fifteen_days(copy.deepcopy(pristine_docs))


@pytest.fixture
def docs(pristine_docs: Docs) -> Docs:
    return copy.deepcopy(pristine_docs)


# --------------------------------------------------------------------------------------------------------------
# The shipped sample data


def test_shipped_files_are_labelled_sample_data() -> None:
    for name in FIFTEEN_DAYS_FILES:
        head = (FOLDER / name).read_text(encoding="utf-8")[:600]
        assert "SAMPLE DATA" in head, name


def test_shipped_metadata(shipped: FifteenDaysData) -> None:
    info = shipped.info
    assert info.id == "fifteen-days"
    assert info.name.to_json() == {"en": "15 Days", "uk": "15 днів", "ru": "15 дней"}
    assert (info.min_players, info.max_players, info.modes) == (2, 4, ("standard",))
    assert info.data_files == FIFTEEN_DAYS_FILES
    assert (info.engine, info.builder, info.mod) == ("bridge.rules.fifteen_days", "tools.games.fifteen_days",
                                                     "fifteen_days")
    assert info.sample_data is True
    assert len(info.player_colours) == 4


def test_shipped_rules_are_the_proposed_defaults(shipped: FifteenDaysData) -> None:
    """game.toml sets every flag to the default of rules spec 3.4/3.5, which is also the records' default."""
    assert shipped.rules == Rules()
    assert shipped.rules.values == (1, 2, 3, 4, 5, 6)
    assert shipped.rules.steal_on_equal is True and shipped.rules.wilds_count_for_animals is False
    assert (shipped.rules.hand_limit, shipped.rules.otter_limit) == (5, 8)


def test_shipped_season_cards_follow_the_public_counts(shipped: FifteenDaysData) -> None:
    cards = shipped.cards
    assert len(cards) == 90
    assert len({card.id for card in cards}) == 90
    assert Counter(card.season for card in cards) == {"spring": 18, "summer": 24, "autumn": 24, "winter": 24}
    assert Counter(card.back for card in cards) == {"summer": 30, "autumn": 30, "winter": 30}


def test_shipped_values_follow_amb_fd_01(shipped: FifteenDaysData) -> None:
    """Each back = its own season's 24 cards (values 1-6, 4 copies) + one spring card of each value."""
    for back in BACK_SEASONS:
        under = shipped.cards_with_back(back)
        own = Counter(card.value for card in under if card.season == back)
        spring = Counter(card.value for card in under if card.season == "spring")
        assert own == {value: 4 for value in range(1, 7)}, back
        assert spring == {value: 1 for value in range(1, 7)}, back
        assert {card.season for card in under} == {back, "spring"}


def test_copies_share_the_solar_term_title_of_their_season_and_value(shipped: FifteenDaysData) -> None:
    titles = {}
    for card in shipped.cards:
        titles.setdefault((card.season, card.value), set()).add(card.title)
    assert all(len(found) == 1 for found in titles.values())
    # 24 solar terms, six per season, all distinct
    assert len({next(iter(found)).en for found in titles.values()}) == 24
    assert next(iter(titles[("winter", 4)])).en == "Winter Solstice"
    assert next(iter(titles[("spring", 1)])).uk == "Початок весни"


def test_shipped_components(shipped: FifteenDaysData) -> None:
    assert shipped.wild_total == 8 and shipped.feather_total == 5
    assert [wild.id for wild in shipped.wilds] == [f"wild-{n}" for n in range(1, 9)]
    assert {(a.id, a.season, a.power) for a in shipped.animals} == {
        ("otter", "spring", "hand_limit"), ("frog", "summer", "discount"),
        ("squirrel", "autumn", "draw_down"), ("rabbit", "winter", "take_up")}
    assert shipped.animal_of_season["autumn"].id == "squirrel"
    assert shipped.animal_with_power["take_up"].id == "rabbit"
    assert len(shipped.boards) == 4 and len(shipped.overviews) == 4
    for board in shipped.boards:
        assert board.corners == ("asc", "asc", "desc", "desc")
        assert board.ascending == (0, 1)
    assert [season.id for season in shipped.seasons] == list(SEASONS)
    assert sorted(animal.power for animal in shipped.animals) == sorted(POWERS)


def test_every_rule_flag_is_in_game_toml_and_documented(pristine_docs: Docs) -> None:
    flags = [field.name for field in dataclasses.fields(Rules)]
    assert sorted(pristine_docs["game.toml"]["rules"]) == sorted(flags)
    rules_doc = (assets_dir().parent / "docs" / "games" / "fifteen_days" / "rules.md").read_text(encoding="utf-8")
    for flag in flags:
        assert f"`{flag}`" in rules_doc, flag
    for number in range(1, 11):
        assert f"AMB-FD-{number:02d}" in rules_doc
    for flag, allowed in RULE_CHOICES.items():
        for value in allowed:
            assert f'"{value}"' in rules_doc, (flag, value)


def test_parsing_is_deterministic(pristine_docs: Docs) -> None:
    assert parse_fifteen_days(copy.deepcopy(pristine_docs)) == parse_fifteen_days(copy.deepcopy(pristine_docs))


# --------------------------------------------------------------------------------------------------------------
# One test per kind of error: (mutation of the parsed files, the exact one-line message)

Mutation = Callable[[Docs], None]


def card(docs: Docs, ident: str) -> dict[str, Any]:
    return next(entry for entry in docs["cards.toml"]["cards"] if entry["id"] == ident)


def setter(file: str, *path: Any, value: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        target = docs[file]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def card_setter(ident: str, key: str, value: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        card(docs, ident)[key] = value
    return mutate


def drop(file: str, *path: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        target = docs[file]
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


def _duplicate_card_id(docs: Docs) -> None:
    card(docs, "summer-3-2")["id"] = "summer-3-1"


def _one_card_short(docs: Docs) -> None:
    docs["cards.toml"]["cards"].pop()


def _spring_face_turns_summer(docs: Docs) -> None:
    card(docs, "spring-2-1")["season"] = "summer"      # a summer back: still consistent, but the faces are off


def _spring_back_moves(docs: Docs) -> None:
    card(docs, "spring-2-1")["back"] = "autumn"


def _second_spring_animal(docs: Docs) -> None:
    docs["components.toml"]["animals"][1]["season"] = "spring"


def _second_discount_animal(docs: Docs) -> None:
    docs["components.toml"]["animals"][2]["power"] = "discount"


def _three_ascending_corners(docs: Docs) -> None:
    docs["components.toml"]["boards"][1]["corners"] = ["asc", "asc", "asc", "desc"]


def _three_boards(docs: Docs) -> None:
    docs["components.toml"]["boards"].pop()


def _duplicate_board_id(docs: Docs) -> None:
    docs["components.toml"]["boards"][3]["id"] = "board-1"


def _missing_language(docs: Docs) -> None:
    del card(docs, "autumn-5-3")["title"]["ru"]


ERRORS: list[tuple[str, Mutation, str]] = [
    ("missing file", drop("cards.toml", "cards"), 'cards.toml: missing "cards"'),
    ("mode", setter("game.toml", "game", "modes", value=["standard", "solo"]),
     'game.toml: [game]: modes[1]: "solo" is not a mode (standard)'),
    ("data files", setter("game.toml", "game", "data_files", value=["game.toml", "cards.toml"]),
     "game.toml: [game]: data_files: must be game.toml, cards.toml, components.toml (15 Days reads exactly these "
     "files), got game.toml, cards.toml"),
    ("season colour", setter("game.toml", "seasons", "winter", "colour", value="blue"),
     'game.toml: season "winter": colour: "blue" is not a colour like #rrggbb'),
    ("unknown season", setter("game.toml", "seasons", "monsoon", value={}),
     'game.toml: [seasons]: "monsoon" is not a season (spring, summer, autumn, winter)'),
    ("missing rule flag", drop("game.toml", "rules", "steal_on_equal"),
     "game.toml: [rules]: steal_on_equal: missing"),
    ("unknown rule flag", setter("game.toml", "rules", "steal_on_tie", value=True),
     "game.toml: [rules]: steal_on_tie: unknown field (expected " + ", ".join(
         field.name for field in dataclasses.fields(Rules)) + ")"),
    ("rule choice", setter("game.toml", "rules", "two_player_removal", value="by_colour"),
     'game.toml: [rules]: two_player_removal: "by_colour" is not a two_player_removal rule (by_back, by_face)'),
    ("unimplemented reading", setter("game.toml", "rules", "corner_directions", value="chosen_by_first_card"),
     'game.toml: [rules]: corner_directions: "chosen_by_first_card" is not a corner_directions rule (printed)'),
    ("rule flag type", setter("game.toml", "rules", "steal_on_equal", value="yes"),
     'game.toml: [rules]: steal_on_equal: expected true or false, got "yes"'),
    ("rule minimum", setter("game.toml", "rules", "actions_per_turn", value=0),
     "game.toml: [rules]: actions_per_turn: 0 is too small (at least 1)"),
    ("values not consecutive", setter("game.toml", "rules", "values", value=[1, 2, 3, 5, 6]),
     "game.toml: [rules]: values: must be consecutive ascending values like [1, 2, 3, 4, 5, 6], got 1, 2, 3, 5, 6"),
    ("otter below the hand limit", setter("game.toml", "rules", "otter_limit", value=4),
     "game.toml: [rules]: otter_limit: 4 is less than hand_limit (5): the otter raises the limit"),
    ("card value outside the values", card_setter("summer-3-1", "value", 7),
     'cards.toml: card "summer-3-1": value: 7 is not one of the values of game.toml rules.values (1..6)'),
    ("card season", card_setter("summer-3-1", "season", "monsoon"),
     'cards.toml: card "summer-3-1": season: "monsoon" is not a season (spring, summer, autumn, winter)'),
    ("spring back", card_setter("spring-4-2", "back", "spring"),
     'cards.toml: card "spring-4-2": back: "spring" is not a back season (summer, autumn, winter)'),
    ("back of another season", card_setter("summer-3-1", "back", "autumn"),
     'cards.toml: card "summer-3-1": back: "autumn" under a summer face: a summer card has a summer back '
     "(only spring cards have another season's back)"),
    ("card id", card_setter("summer-3-1", "id", "summer 3"),
     'cards.toml: card "summer 3": id: "summer 3" is not a valid id (letters, digits, - and _, not starting '
     "with - or _)"),
    ("duplicate card id", _duplicate_card_id,
     'cards.toml: card "summer-3-1": id: duplicate card id "summer-3-1" (also cards[26])'),
    ("card title language", _missing_language,
     'cards.toml: card "autumn-5-3": title: missing language "ru"'),
    ("unknown card field", card_setter("winter-1-1", "colour", "#ffffff"),
     'cards.toml: card "winter-1-1": colour: unknown field (expected id, season, value, back, title)'),
    ("card count", _one_card_short, "cards.toml: cards: 89 season cards, expected 90"),
    ("face count", _spring_face_turns_summer, "cards.toml: cards: 17 cards with a spring face, expected 18"),
    ("back count", _spring_back_moves, "cards.toml: cards: 29 cards with a summer back, expected 30"),
    ("values below 1", setter("game.toml", "rules", "values", value=[0, 1, 2, 3, 4, 5, 6]),
     "game.toml: [rules]: values[0]: 0 is too small (at least 1)"),
    ("wild copies", setter("components.toml", "wild", "copies", value=7),
     "components.toml: [wild]: copies: 7 wild cards, but 4 players use 8 (game.toml rules.wild_supply_per_player "
     "= 2)"),
    ("feather copies", setter("game.toml", "rules", "feathers_per_player", value=2),
     "components.toml: [feather]: copies: 5 feathers, but 4 players start with 8 (game.toml "
     "rules.feathers_per_player = 2)"),
    ("two animals of one season", _second_spring_animal,
     'components.toml: animal "frog": season: "spring" already belongs to animal "otter"'),
    ("two animals with one power", _second_discount_animal,
     'components.toml: animal "squirrel": power: "discount" is already the power of animal "frog"'),
    ("animal power", setter("components.toml", "animals", 0, "power", value="swim"),
     'components.toml: animal "otter": power: "swim" is not an animal power (hand_limit, discount, draw_down, '
     "take_up)"),
    ("animal colour", setter("components.toml", "animals", 3, "colour", value="#7b4fa"),
     'components.toml: animal "rabbit": colour: "#7b4fa" is not a colour like #rrggbb'),
    ("corner direction", setter("components.toml", "boards", 0, "corners", value=["asc", "up", "desc", "desc"]),
     'components.toml: board "board-1": corners[1]: "up" is not a corner direction (asc, desc)'),
    ("corner balance", _three_ascending_corners,
     'components.toml: board "board-2": corners: 3 ascending corners, expected two ascending and two descending'),
    ("too few boards", _three_boards,
     "components.toml: boards: 3 boards, expected at least 4 (one per seat, game.toml max_players)"),
    ("duplicate board id", _duplicate_board_id,
     'components.toml: board "board-1": id: duplicate board id "board-1" (also boards[0])'),
    ("removal larger than a kind", setter("game.toml", "rules", "two_player_removed_each", value=31),
     "game.toml: [rules]: two_player_removed_each: 31 is more than the 30 cards of each kind there are"),
    ("setup needs more cards", setter("game.toml", "rules", "starting_hand", value=20),
     "game.toml: [rules]: setting up 4 players needs 92 season cards (hands, market, first discard and one card "
     "per draw pile), only 90 are in play"),
]


@pytest.mark.parametrize("mutate, message", [(m, msg) for _, m, msg in ERRORS], ids=[name for name, _, _ in ERRORS])
def test_each_kind_of_error_is_one_exact_line(docs: Docs, mutate: Mutation, message: str) -> None:
    mutate(docs)
    with pytest.raises(DataError) as info:
        parse_fifteen_days(docs)
    assert str(info.value) == message
    assert "\n" not in str(info.value)


def test_a_missing_document_names_the_file(docs: Docs) -> None:
    del docs["components.toml"]
    with pytest.raises(DataError) as info:
        parse_fifteen_days(docs)
    assert str(info.value) == "components.toml: missing file"


def test_real_values_drop_in_without_code_changes(docs: Docs) -> None:
    """AMB-FD-01: if the real cards run 0-5, the same files with other numbers parse."""
    docs["game.toml"]["rules"]["values"] = [2, 3, 4, 5, 6, 7]
    for entry in docs["cards.toml"]["cards"]:
        entry["value"] += 1
    data = parse_fifteen_days(docs)
    assert data.rules.values == (2, 3, 4, 5, 6, 7)
    assert {card.value for card in data.cards} == set(range(2, 8))


def test_a_season_missing_a_value_is_refused(docs: Docs) -> None:
    """A set that can never be completed (FD-3.5) is a data error, not a game that cannot end by FD-9.1."""
    for entry in docs["cards.toml"]["cards"]:
        if entry["season"] == "winter" and entry["value"] == 6:
            entry["value"] = 5
    with pytest.raises(DataError) as info:
        parse_fifteen_days(docs)
    assert str(info.value) == "cards.toml: cards: no winter card of value 6: the winter set could never be completed"


def test_the_toml_examples_of_the_format_doc_parse_and_match_the_shipped_data(shipped: FifteenDaysData) -> None:
    text = (assets_dir().parent / "docs" / "games" / "fifteen_days" / "data-format.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    parsed = [tomllib.loads(block) for block in blocks]
    example_card = parsed[1]["cards"][0]
    shipped_card = shipped.card_by_id[example_card["id"]]
    assert (shipped_card.season, shipped_card.value, shipped_card.back) == (
        example_card["season"], example_card["value"], example_card["back"])
    assert shipped_card.title.to_json() == example_card["title"]
    assert parsed[2]["animals"][0]["colour"] == shipped.animal_by_id["otter"].colour
    assert parsed[2]["boards"][0]["corners"] == list(shipped.board_by_id["board-1"].corners)
    assert parsed[0]["seasons"]["spring"]["colour"] == shipped.season_by_id["spring"].colour
    assert parsed[0]["rules"]["values"] == list(shipped.rules.values)
    documented_error = re.search(r"```text\n(error: .*)\n```", text).group(1)
    assert documented_error == ('error: cards.toml: card "winter-2-3": value: 9 is not one of the values of '
                                "game.toml rules.values (1..6)")


# --------------------------------------------------------------------------------------------------------------
# A user's copied folder with an error, through the CLI


def test_a_broken_copy_exits_2_with_one_line(tmp_path: Path) -> None:
    from tools.cli import cli

    folder = tmp_path / "my-15-days"
    shutil.copytree(FOLDER, folder)
    path = folder / "cards.toml"
    text = path.read_text(encoding="utf-8")
    broken = text.replace('id = "winter-2-3"\nseason = "winter"\nvalue = 2', 'id = "winter-2-3"\nseason = "winter"\n'
                          'value = 9', 1)
    assert broken != text
    path.write_text(broken, encoding="utf-8")
    result = CliRunner().invoke(cli, ["simulate", str(folder), "--games", "1"])
    assert result.exit_code == 2, result.output
    assert result.output == ('error: cards.toml: card "winter-2-3": value: 9 is not one of the values of game.toml '
                             "rules.values (1..6)\n")
