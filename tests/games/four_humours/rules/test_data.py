"""The Four Humours game data loads into the records the engine expects, and every broken file gives one clear
``DataError`` naming the file, the entry and the field."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import random
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any, Callable

import pytest

from bridge.rules.four_humours import records
from bridge.rules.four_humours.records import GOAL_PREDICATE_KINDS, Count, Outcome, Rules, Step
from bridge.catalog import builtin_games, load_game
from bridge.errors import DataError
from bridge.paths import assets_dir
from bridge.rules.four_humours.data import FOUR_HUMOURS_FILES, RULE_CHOICES, parse_four_humours


Docs = dict[str, dict[str, Any]]

PRINCIPLES = (
    Step("choleric", Count("eq", 1), Outcome.WIN),
    Step("choleric", Count("gte", 2), Outcome.DISCARD),
    Step("sanguine", Count("gte", 2), Outcome.WIN),
    Step("sanguine", Count("eq", 1), Outcome.DISCARD),
    Step("melancholic", Count("eq", 2), Outcome.WIN),
    Step("melancholic", Count("gte", 3), Outcome.DISCARD),
    Step("melancholic", Count("eq", 1), Outcome.SNEAK),
    Step("phlegmatic", Count("gte", 1), Outcome.WIN),
)


@pytest.fixture(scope="module")
def builtin() -> records.FourHumoursData:
    return load_game("four-humours")


@pytest.fixture(scope="module")
def pristine_docs() -> Docs:
    folder = builtin_games()["four-humours"]
    return {name: tomllib.loads((folder / name).read_text(encoding="utf-8")) for name in FOUR_HUMOURS_FILES}


@pytest.fixture
def docs(pristine_docs: Docs) -> Docs:
    return copy.deepcopy(pristine_docs)


@pytest.fixture
def game_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "my-game"
    shutil.copytree(assets_dir() / "four_humours", folder)
    return folder


def item(docs: Docs, file: str, array: str, ident: str) -> dict[str, Any]:
    """The entry with id ``ident`` of the array ``array`` in ``file``."""
    return next(entry for entry in docs[file][array] if entry.get("id") == ident)


def raises(docs: Docs) -> DataError:
    with pytest.raises(DataError) as info:
        parse_four_humours(docs)
    return info.value


# --------------------------------------------------------------------------------------------------------------
# The built-in sample data


def test_builtin_data_has_the_published_component_counts(builtin: records.FourHumoursData) -> None:
    assert builtin.info.id == "four-humours"
    assert builtin.info.name.uk == "Чотири темпераменти"
    assert builtin.info.name.ru == "Четыре зелья"
    assert (builtin.info.min_players, builtin.info.max_players) == (2, 6)
    assert builtin.info.modes == ("kingdom", "fief")
    assert len(builtin.info.player_colours) == 6
    assert builtin.info.sample_data is True
    assert len(builtin.scenes) == 36
    assert sum(not s.is_animal for s in builtin.scenes) == 30
    assert sum(s.is_animal for s in builtin.scenes) == 6
    assert len(builtin.parties) == 6
    assert [p.order for p in builtin.parties] == [0, 1, 2, 3, 4, 5]
    assert len(builtin.goals) == 12
    assert len(builtin.goals_of_mode("kingdom")) == 6
    assert len(builtin.goals_of_mode("fief")) == 6
    assert [t.id for t in builtin.kingdom.tiles] == ["T1", "T2", "T3", "T4", "T5", "T6"]
    assert len(builtin.kingdom.cells) == 30
    assert all(len(cells) == 5 for cells in builtin.kingdom.cells_of_tile.values())
    assert [f.id for f in builtin.fiefs] == [f"fief-{n}" for n in range(1, 7)]


def test_citizens_accept_the_humour_pairs_of_the_rules_spec(builtin: records.FourHumoursData) -> None:
    pairs = {c.id: (set(c.humours) if c.humours else None) for c in builtin.citizens}
    assert pairs == {
        "noble": {"choleric", "sanguine"},
        "sorcerer": {"choleric", "melancholic"},
        "knight": {"choleric", "phlegmatic"},
        "minstrel": {"sanguine", "melancholic"},
        "peasant": {"sanguine", "phlegmatic"},
        "nun": {"melancholic", "phlegmatic"},
        "animal": None,
    }
    assert builtin.citizen_by_id["animal"].joker


def test_bridgeford_joins_mill_by_path_and_abbey_by_bridge(builtin: records.FourHumoursData) -> None:
    # Worked example FH-E20 relies on this part of the map.
    assert sorted(builtin.kingdom.neighbours["bridgeford"]) == ["abbey", "mill"]
    kinds = {frozenset((e.a, e.b)): e.kind for e in builtin.kingdom.edges if "bridgeford" in (e.a, e.b)}
    assert kinds == {frozenset(("bridgeford", "mill")): "path", frozenset(("bridgeford", "abbey")): "bridge"}


def test_default_resolution_is_the_principles_of_personality(builtin: records.FourHumoursData) -> None:
    assert builtin.rules.default_resolution == PRINCIPLES


def test_rules_hold_the_proposed_defaults(builtin: records.FourHumoursData) -> None:
    defaults = Rules()
    for spec in dataclasses.fields(Rules):
        if spec.name != "default_resolution":
            assert getattr(builtin.rules, spec.name) == getattr(defaults, spec.name), spec.name


def test_one_card_carries_the_s0_example_list(builtin: records.FourHumoursData) -> None:
    with_lists = [s for s in builtin.scenes if s.resolution is not None]
    assert len(with_lists) == 1
    card = with_lists[0]
    assert [str(step.count) + " " + step.humour + " " + step.outcome.value for step in card.resolution] == [
        "==1 choleric win", "==2 sanguine win", "==1 sanguine sneak", "==1 phlegmatic win",
    ]
    assert not any("melancholic" in slot.humours for slot in card.slots)
    assert builtin.resolution_for(card) == card.resolution
    assert builtin.resolution_for(builtin.scene_by_id["mill"]) == PRINCIPLES


def test_location_scenes_cover_every_cell_and_animal_scenes_every_tile(builtin: records.FourHumoursData) -> None:
    locations = [s for s in builtin.scenes if not s.is_animal]
    assert sorted(s.cell for s in locations) == sorted(builtin.kingdom.cell_ids)
    for scene in locations:
        cell = builtin.kingdom.cell_by_id[scene.cell]
        assert scene.id == cell.id and scene.title == cell.name and scene.zone == cell.tile
    animals = [s for s in builtin.scenes if s.is_animal]
    assert sorted(s.zone for s in animals) == ["T1", "T2", "T3", "T4", "T5", "T6"]
    assert all(s.cell is None for s in animals)
    for scene in builtin.scenes:
        assert 3 <= len(scene.slots) <= 4
        for slot in scene.slots:
            assert len(set(slot.humours)) == 2


def test_the_published_kingdom_goals_are_there(builtin: records.FourHumoursData) -> None:
    assert builtin.goal_by_id["six-tiles"].predicate.to_json() == {"zones_covered": {"min": 6}}
    bridge_goals = [g for g in builtin.goals_of_mode("kingdom") if g.predicate.to_json() == {"bridge_pairs": {"min": 2}}]
    assert len(bridge_goals) == 1


def test_every_fief_houses_every_human_citizen_in_a_three_by_three_grid(builtin: records.FourHumoursData) -> None:
    humans = {c.id for c in builtin.citizens if not c.joker}
    for fief in builtin.fiefs:
        assert len(fief.cells) == 9
        assert {c.citizen for c in fief.cells} == humans
        assert len({c.pos for c in fief.cells}) == 9
        assert len(fief.edges) == 12
        assert any(e.kind == "bridge" for e in fief.edges)


def test_every_text_has_real_ukrainian_and_russian(builtin: records.FourHumoursData) -> None:
    names = [builtin.info.name] + [h.name for h in builtin.humours] + [c.name for c in builtin.citizens]
    names += [s.title for s in builtin.scenes] + [p.title for p in builtin.parties]
    names += [g.title for g in builtin.goals] + [g.text for g in builtin.goals] + [c.name for c in builtin.kingdom.cells]
    for name in names:
        assert re.search("[А-Яа-яІіЇїЄєҐґ]", name.uk), name
        assert re.search("[А-Яа-яЁё]", name.ru), name
        assert re.search("[A-Za-z]", name.en), name


def test_every_file_says_it_is_sample_data() -> None:
    for name in FOUR_HUMOURS_FILES:
        assert "SAMPLE DATA" in (assets_dir() / "four_humours" / name).read_text(encoding="utf-8"), name


# --------------------------------------------------------------------------------------------------------------
# A copied folder with an error (finding folders and reading files: tests/bridge/test_catalog.py)


def test_the_documented_example_message(game_copy: Path) -> None:
    path = game_copy / "scenes.toml"
    text = path.read_text(encoding="utf-8")
    broken = text.replace('{ citizen = "noble", label', '{ citizen = "noble", humours = ["choleric", "bile"], label', 1)
    assert broken != text
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_game(game_copy)
    assert str(info.value) == 'scenes.toml: scene "mill": slots[2].humours: "bile" is not a humour'


# --------------------------------------------------------------------------------------------------------------
# One test per validation error: (mutation of the parsed files, file, entry, field, part of the message)

Mutation = Callable[[Docs], None]


def _set(file: str, array: str, ident: str, key: str, value: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        item(docs, file, array, ident)[key] = value
    return mutate


def _slot(ident: str, index: int, **changes: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        item(docs, "scenes.toml", "scenes", ident)["slots"][index].update(changes)
    return mutate


def _drop_slot_key(ident: str, index: int, key: str) -> Mutation:
    def mutate(docs: Docs) -> None:
        del item(docs, "scenes.toml", "scenes", ident)["slots"][index][key]
    return mutate


def _rule(key: str, value: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        docs["game.toml"]["rules"][key] = value
    return mutate


def _del_rule(key: str) -> Mutation:
    def mutate(docs: Docs) -> None:
        del docs["game.toml"]["rules"][key]
    return mutate


def _step_count(count: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        docs["game.toml"]["rules"]["default_resolution"][2]["count"] = count
    return mutate


def _predicate(ident: str, predicate: Any) -> Mutation:
    return _set("goals.toml", "goals", ident, "predicate", predicate)


def _rename(file: str, array: str, index: int, new_id: str) -> Mutation:
    def mutate(docs: Docs) -> None:
        docs[file][array][index]["id"] = new_id
    return mutate


def _map_edge(index: int, **changes: Any) -> Mutation:
    def mutate(docs: Docs) -> None:
        docs["map.toml"]["edges"][index].update(changes)
    return mutate


def _fief(index: int, change: Callable[[dict[str, Any]], None]) -> Mutation:
    def mutate(docs: Docs) -> None:
        change(docs["fiefs.toml"]["fiefs"][index])
    return mutate


def _drop_goals(mode: str, keep: int) -> Mutation:
    def mutate(docs: Docs) -> None:
        goals = docs["goals.toml"]["goals"]
        of_mode = [g for g in goals if g["mode"] == mode]
        docs["goals.toml"]["goals"] = [g for g in goals if g["mode"] != mode] + of_mode[:keep]
    return mutate


def _disconnect_bridgeford(docs: Docs) -> None:
    docs["map.toml"]["edges"] = [e for e in docs["map.toml"]["edges"] if "bridgeford" not in (e["a"], e["b"])]


def _del_language(file: str, array: str, ident: str, key: str, lang: str) -> Mutation:
    def mutate(docs: Docs) -> None:
        del item(docs, file, array, ident)[key][lang]
    return mutate


def _party_order(ident: str, order: Any) -> Mutation:
    return _set("parties.toml", "parties", ident, "order", order)


def _bag(change: dict[str, Any]) -> Mutation:
    def mutate(docs: Docs) -> None:
        docs["game.toml"]["rules"]["bag_composition"].update(change)
    return mutate


CASES: dict[str, tuple[Mutation, str, str | None, str | None, str]] = {
    # unknown humour
    "step humour": (
        lambda d: d["game.toml"]["rules"]["default_resolution"][0].update(humour="bile"),
        "game.toml", "[rules]", "default_resolution[0].humour", '"bile" is not a humour'),
    "animal slot humour": (_slot("runaway-goats", 0, humours=["bile", "sanguine"]),
                           "scenes.toml", 'scene "runaway-goats"', "slots[0].humours", '"bile" is not a humour'),
    "citizen pair humour": (lambda d: d["game.toml"]["citizens"]["nun"].update(humours=["melancholic", "bile"]),
                            "game.toml", 'citizen "nun"', "humours", '"bile" is not a humour'),
    "humours table": (lambda d: d["game.toml"]["humours"].update(bile=d["game.toml"]["humours"]["choleric"]),
                      "game.toml", "[humours]", None, '"bile" is not a humour'),
    "humour colour": (lambda d: d["game.toml"]["humours"]["sanguine"].update(colour="red"),
                      "game.toml", 'humour "sanguine"', "colour", '"red" is not a colour like #rrggbb'),
    # unknown citizen type
    "slot citizen": (_slot("mill", 1, citizen="wizard"),
                     "scenes.toml", 'scene "mill"', "slots[1].citizen", '"wizard" is not a citizen type'),
    "party estate": (_set("parties.toml", "parties", "royal-ball", "estate", "king"),
                     "parties.toml", 'party "royal-ball"', "estate", '"king" is not a citizen type'),
    "fief cell citizen": (_fief(1, lambda f: f["cells"][4].update(citizen="baker")),
                          "fiefs.toml", 'fief "fief-2"', "cells[4].citizen", '"baker" is not a citizen type'),
    "fief cell animal": (_fief(1, lambda f: f["cells"][4].update(citizen="animal")),
                         "fiefs.toml", 'fief "fief-2"', "cells[4].citizen", "is a joker"),
    # duplicate ids
    "duplicate scene": (_rename("scenes.toml", "scenes", 5, "mill"),
                        "scenes.toml", 'scene "mill"', "id", 'duplicate scene id "mill" (also scenes[0])'),
    "duplicate party": (_rename("parties.toml", "parties", 3, "royal-ball"),
                        "parties.toml", 'party "royal-ball"', "id", 'duplicate party id "royal-ball"'),
    "duplicate goal": (_rename("goals.toml", "goals", 7, "six-tiles"),
                       "goals.toml", 'goal "six-tiles"', "id", 'duplicate goal id "six-tiles"'),
    "duplicate tile": (lambda d: d["map.toml"]["tiles"][4].update(id="T1"),
                       "map.toml", 'tile "T1"', "id", 'duplicate tile id "T1"'),
    "duplicate cell": (lambda d: d["map.toml"]["cells"][7].update(id="mill"),
                       "map.toml", 'cell "mill"', "id", 'duplicate cell id "mill"'),
    "duplicate fief": (_rename("fiefs.toml", "fiefs", 4, "fief-1"),
                       "fiefs.toml", 'fief "fief-1"', "id", 'duplicate fief id "fief-1"'),
    "duplicate fief cell": (_fief(0, lambda f: f["cells"][8].update(id=f["cells"][0]["id"])),
                            "fiefs.toml", 'fief "fief-1"', "cells[8].id", 'duplicate cell id "keep" (also cells[0])'),
    # slot humours
    "slot same humours": (_slot("runaway-goats", 1, humours=["choleric", "choleric"]),
                          "scenes.toml", 'scene "runaway-goats"', "slots[1].humours", "the two humours must differ"),
    "slot three humours": (_slot("runaway-goats", 1, humours=["choleric", "sanguine", "phlegmatic"]),
                           "scenes.toml", 'scene "runaway-goats"', "slots[1].humours", "expected two humours, got 3"),
    "slot pair mismatch": (_slot("mill", 1, humours=["choleric", "sanguine"]),
                           "scenes.toml", 'scene "mill"', "slots[1].humours",
                           "a peasant accepts sanguine and phlegmatic, not choleric and sanguine"),
    "animal slot without humours": (_drop_slot_key("runaway-goats", 0, "humours"),
                                    "scenes.toml", 'scene "runaway-goats"', "slots[0].humours",
                                    'missing: a slot of joker citizen "animal" names its two humours'),
    "citizen same humours": (lambda d: d["game.toml"]["citizens"]["knight"].update(humours=["choleric", "choleric"]),
                             "game.toml", 'citizen "knight"', "humours", "the two humours must differ"),
    # edges
    "edge to missing cell": (_map_edge(3, b="nowhere"), "map.toml", "edges[3]", "b", '"nowhere" is not a cell'),
    "edge kind": (_map_edge(0, kind="tunnel"), "map.toml", "edges[0]", "kind",
                  '"tunnel" is not an edge kind (path, bridge)'),
    "edge loop": (_map_edge(0, b="mill"), "map.toml", "edges[0]", "b", "two different cells"),
    "duplicate edge": (lambda d: d["map.toml"]["edges"].append(dict(d["map.toml"]["edges"][0])),
                       "map.toml", "edges[40]", None, "duplicate edge"),
    "fief edge to missing cell": (_fief(2, lambda f: f["edges"][5].update(a="moat")),
                                  "fiefs.toml", 'fief "fief-3"', "edges[5].a", '"moat" is not a cell'),
    "fief edge kind": (_fief(2, lambda f: f["edges"][5].update(kind="road")),
                       "fiefs.toml", 'fief "fief-3"', "edges[5].kind", '"road" is not an edge kind'),
    "map not connected": (_disconnect_bridgeford, "map.toml", None, "edges",
                          'cell "bridgeford" cannot be reached from cell "mill"'),
    # goal predicates
    "predicate kind": (_predicate("six-tiles", {"tiles_covered": {"min": 6}}),
                       "goals.toml", 'goal "six-tiles"', "predicate", '"tiles_covered" is not a goal predicate'),
    "predicate two kinds": (_predicate("six-tiles", {"zones_covered": {"min": 6}, "stack_on_cell": {"min": 2}}),
                            "goals.toml", 'goal "six-tiles"', "predicate", "exactly one key"),
    "predicate min type": (_predicate("six-tiles", {"zones_covered": {"min": "six"}}),
                           "goals.toml", 'goal "six-tiles"', "predicate.zones_covered.min",
                           'expected an integer, got "six"'),
    "predicate min zero": (_predicate("stronghold", {"stack_on_cell": {"min": 0}}),
                           "goals.toml", 'goal "stronghold"', "predicate.stack_on_cell.min", "too small"),
    "predicate unreachable": (_predicate("six-tiles", {"zones_covered": {"min": 7}}),
                              "goals.toml", 'goal "six-tiles"', "predicate.zones_covered.min",
                              "7 can never be met: the map has 6 tiles"),
    "predicate unknown parameter": (_predicate("stronghold", {"stack_on_cell": {"min": 3, "max": 5}}),
                                    "goals.toml", 'goal "stronghold"', "predicate.stack_on_cell.max", "unknown field"),
    "predicate missing parameter": (_predicate("stronghold", {"stack_on_cell": {}}),
                                    "goals.toml", 'goal "stronghold"', "predicate.stack_on_cell.min", "missing"),
    "predicate via": (_predicate("road-network", {"connected_cells": {"min": 4, "via": ["path", "tunnel"]}}),
                      "goals.toml", 'goal "road-network"', "predicate.connected_cells.via", '"tunnel" is not an edge kind'),
    "predicate empty all": (_predicate("pilgrimage", {"all": []}),
                            "goals.toml", 'goal "pilgrimage"', "predicate.all", "must not be empty"),
    "predicate nested": (_predicate("crossing", {"any": [{"bridge_pairs": {"min": 1}}, {"connected_cells": {"min": -4}}]}),
                         "goals.toml", 'goal "crossing"', "predicate.any[1].connected_cells.min", "too small"),
    "predicate wrong mode": (_predicate("stronghold", {"fief_line": {"length": 3}}),
                             "goals.toml", 'goal "stronghold"', "predicate.fief_line", "only fief goals"),
    "predicate line length": (_predicate("three-in-a-chain", {"fief_line": {"length": 3, "same_type": "no"}}),
                              "goals.toml", 'goal "three-in-a-chain"', "predicate.fief_line.same_type",
                              'expected true or false, got "no"'),
    "goal mode": (_set("goals.toml", "goals", "stronghold", "mode", "solo"),
                  "goals.toml", 'goal "stronghold"', "mode", '"solo" is not a mode of this game (kingdom, fief)'),
    # win-condition steps
    "count op": (_step_count({"ne": 1}), "game.toml", "[rules]", "default_resolution[2].count",
                 '"ne" is not a count (eq, gte, lte, between)'),
    "count negative": (_step_count({"gte": -2}), "game.toml", "[rules]", "default_resolution[2].count.gte",
                       "-2 is not a positive count"),
    "count fraction": (_step_count({"eq": 1.5}), "game.toml", "[rules]", "default_resolution[2].count.eq",
                       "expected a whole number of potions, got 1.5"),
    "count string": (_step_count({"eq": "2"}), "game.toml", "[rules]", "default_resolution[2].count.eq",
                     'expected a whole number of potions, got "2"'),
    "count between reversed": (_step_count({"between": [3, 2]}), "game.toml", "[rules]",
                               "default_resolution[2].count.between", "low 3 is greater than high 2"),
    "count between shape": (_step_count({"between": [3]}), "game.toml", "[rules]",
                            "default_resolution[2].count.between", "expected [low, high]"),
    "step outcome": (lambda d: d["game.toml"]["rules"]["default_resolution"][1].update(outcome="explode"),
                     "game.toml", "[rules]", "default_resolution[1].outcome",
                     '"explode" is not an outcome (win, discard, sneak)'),
    "card step": (_set("scenes.toml", "scenes", "crossroads", "resolution",
                       [{"humour": "choleric", "count": {"between": [2, 1]}, "outcome": "win"}]),
                  "scenes.toml", 'scene "crossroads"', "resolution[0].count.between", "greater than high"),
    "list without win": (_set("scenes.toml", "scenes", "crossroads", "resolution",
                              [{"humour": "choleric", "count": {"eq": 1}, "outcome": "discard"}]),
                         "scenes.toml", 'scene "crossroads"', "resolution", "no win step"),
    # [rules]
    "unknown flag": (_rule("animals_roam", True), "game.toml", "[rules]", "animals_roam", "unknown rule flag"),
    "missing flag": (_del_rule("party_limit"), "game.toml", "[rules]", "party_limit", "missing"),
    "enum flag": (_rule("animal_scope", "kingdom"), "game.toml", "[rules]", "animal_scope",
                  '"kingdom" is not an allowed value (zone, any)'),
    "single-value flag": (_rule("map_layout", "random"), "game.toml", "[rules]", "map_layout",
                          '"random" is not an allowed value (fixed)'),
    "bool flag": (_rule("draw_after_place", "yes"), "game.toml", "[rules]", "draw_after_place",
                  'expected true or false, got "yes"'),
    "int flag as string": (_rule("hand_size", "4"), "game.toml", "[rules]", "hand_size",
                           'expected an integer, got "4"'),
    "int flag as bool": (_rule("goals_per_game", True), "game.toml", "[rules]", "goals_per_game",
                         "expected an integer, got true"),
    "int flag zero": (_rule("party_limit", 0), "game.toml", "[rules]", "party_limit", "0 is too small (at least 1)"),
    "bag key": (_bag({"bile": 3}), "game.toml", "[rules]", "bag_composition.bile", '"bile" is not a humour'),
    "bag negative": (_bag({"sanguine": -1}), "game.toml", "[rules]", "bag_composition.sanguine",
                     "expected a count of potions (0 or more), got -1"),
    "bag string": (_bag({"phlegmatic": "5"}), "game.toml", "[rules]", "bag_composition.phlegmatic",
                   'expected a count of potions (0 or more), got "5"'),
    "bag too small": (_bag({"choleric": 1, "sanguine": 0, "melancholic": 0, "phlegmatic": 0}),
                      "game.toml", "[rules]", "bag_composition", "a bag of 1 cannot fill a hand of 4"),
    # names
    "scene title language": (_del_language("scenes.toml", "scenes", "mill", "title", "uk"),
                             "scenes.toml", 'scene "mill"', "title", 'missing language "uk"'),
    "goal text language": (_del_language("goals.toml", "goals", "household", "text", "ru"),
                           "goals.toml", 'goal "household"', "text", 'missing language "ru"'),
    "extra language": (lambda d: item(d, "parties.toml", "parties", "royal-ball")["title"].update(de="Hofball"),
                       "parties.toml", 'party "royal-ball"', "title.de", "unknown language"),
    "empty text": (lambda d: item(d, "parties.toml", "parties", "royal-ball")["title"].update(en=" "),
                   "parties.toml", 'party "royal-ball"', "title.en", "must not be empty"),
    "game name language": (lambda d: d["game.toml"]["game"]["name"].pop("en"),
                           "game.toml", "[game]", "name", 'missing language "en"'),
    # scenes against the map
    "scene cell missing": (_set("scenes.toml", "scenes", "mill", "cell", "windmill"),
                           "scenes.toml", 'scene "mill"', "cell", '"windmill" is not a map cell'),
    "scene cell other zone": (_set("scenes.toml", "scenes", "mill", "zone", "T2"),
                              "scenes.toml", 'scene "mill"', "cell", '"mill" lies on tile "T1", not in zone "T2"'),
    "location without cell": (lambda d: item(d, "scenes.toml", "scenes", "mill").pop("cell"),
                              "scenes.toml", 'scene "mill"', "cell", "missing"),
    "animal with cell": (_set("scenes.toml", "scenes", "wild-boar", "cell", "clearing"),
                         "scenes.toml", 'scene "wild-boar"', "cell", "an animal scene has a zone but no cell"),
    "scene zone": (_set("scenes.toml", "scenes", "wild-boar", "zone", "T9"),
                   "scenes.toml", 'scene "wild-boar"', "zone", '"T9" is not a map tile'),
    "scene kind": (_set("scenes.toml", "scenes", "wild-boar", "kind", "monster"),
                   "scenes.toml", 'scene "wild-boar"', "kind", '"monster" is not a scene kind'),
    "scene unknown field": (_set("scenes.toml", "scenes", "mill", "zon", "T1"),
                            "scenes.toml", 'scene "mill"', "zon", "unknown field"),
    "scene slots type": (_set("scenes.toml", "scenes", "mill", "slots", "noble"),
                         "scenes.toml", 'scene "mill"', "slots", 'expected an array, got "noble"'),
    # parties
    "party order twice": (_party_order("royal-ball", 0), "parties.toml", 'party "royal-ball"', "order",
                          '0 is also the order of party "harvest-festival"'),
    "party order range": (_party_order("royal-ball", 6), "parties.toml", 'party "royal-ball"', "order",
                          "6 is out of range: the 6 tiles are ordered 0..5"),
    "party order type": (_party_order("royal-ball", "5"), "parties.toml", 'party "royal-ball"', "order",
                         'expected an integer, got "5"'),
    # counts against the rules and players
    "too few fief goals": (_drop_goals("fief", 3), "goals.toml", None, "goals",
                           "3 fief goals, but [rules] goals_per_game draws 4"),
    "goals per game": (_rule("goals_per_game", 7), "goals.toml", None, "goals",
                       "6 kingdom goals, but [rules] goals_per_game draws 7"),
    "too few fiefs": (lambda d: d["fiefs.toml"]["fiefs"].pop(), "fiefs.toml", None, "fiefs",
                      "5 fief boards, but game.toml allows 6 players"),
    "fief misses a citizen": (_fief(3, lambda f: f["cells"][3].update(citizen="peasant")),
                              "fiefs.toml", 'fief "fief-4"', "cells", 'no cell houses citizen type "nun"'),
    "scenes face up": (_rule("scenes_face_up", 40), "scenes.toml", None, "scenes",
                       "36 scene cards, but [rules] scenes_face_up shows 40"),
    # [game] and the map layout
    "players as string": (lambda d: d["game.toml"]["game"].update(min_players="2"),
                          "game.toml", "[game]", "min_players", 'expected an integer, got "2"'),
    "players reversed": (lambda d: d["game.toml"]["game"].update(min_players=5, max_players=3),
                         "game.toml", "[game]", "max_players", "3 is less than min_players (5)"),
    "seat colour": (lambda d: d["game.toml"]["game"]["player_colours"].__setitem__(2, "Gold"),
                    "game.toml", "[game]", "player_colours", '"Gold" is not a TTS seat colour'),
    "too few colours": (lambda d: d["game.toml"]["game"]["player_colours"].pop(),
                        "game.toml", "[game]", "player_colours", "5 colours for up to 6 players"),
    "tile clash": (lambda d: d["map.toml"]["tiles"][5].update(col=0, row=0),
                   "map.toml", 'tile "T6"', "col", 'col 0, row 0 is also taken by tile "T1"'),
    "tile rotation": (lambda d: d["map.toml"]["tiles"][2].update(rotation=45),
                      "map.toml", 'tile "T3"', "rotation", "45 is not one of 0, 90, 180, 270"),
    "cell outside its tile": (lambda d: d["map.toml"]["cells"][0].update(pos=[0.9, 0.9]),
                              "map.toml", 'cell "mill"', "pos", 'lies outside tile "T1"'),
    "cell outside the board": (lambda d: d["map.toml"]["cells"][0].update(pos=[0.2, 1.5]),
                               "map.toml", 'cell "mill"', "pos", "outside the board"),
    "cell pos type": (lambda d: d["map.toml"]["cells"][0].update(pos=["left", 0.1]),
                      "map.toml", 'cell "mill"', "pos[0]", 'expected a number, got "left"'),
    "cell tile": (lambda d: d["map.toml"]["cells"][0].update(tile="T7"),
                  "map.toml", 'cell "mill"', "tile", '"T7" is not a tile'),
    "bad id": (lambda d: d["map.toml"]["cells"][0].update(id="old mill"),
               "map.toml", 'cell "old mill"', "id", "is not a valid id"),
    "top-level key": (lambda d: d["goals.toml"].update(goal=[]), "goals.toml", None, None,
                      'unknown top-level key "goal"'),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_broken_data_names_file_entry_and_field(docs: Docs, case: str) -> None:
    mutate, file, entry, field, message = CASES[case]
    mutate(docs)
    error = raises(docs)
    assert (error.file, error.entry, error.field) == (file, entry, field), str(error)
    assert message in error.message, str(error)
    expected_prefix = ": ".join(part for part in (file, entry, field) if part)
    assert str(error) == f"{expected_prefix}: {error.message}"


ODD_VALUES = [5, True, 1.5, "", " ", "\t", "x" * 65, "x" * 1001, "bad id!", "-lead", [], {}, ["T1"], {"en": "a"},
              {"en": "a", "uk": "b", "ru": 3}, {"en": "a", "uk": "b", "xx": "c"}, {"en": " ", "uk": "b", "ru": "c"}]


@pytest.mark.parametrize("field", ["id", "kind", "zone", "cell", "title"])
def test_a_scene_field_read_at_once_when_good_is_refused_as_its_reader_refuses_it(docs: Docs, field: str) -> None:
    from bridge.rules import reader
    from bridge.rules.game import read_names

    readers = {"id": reader.ident, "zone": reader.string, "cell": reader.string, "title": read_names,
               "kind": lambda at, v: reader.choice(at, v, ("location", "animal"), "a scene kind")}
    index = next(i for i, entry in enumerate(docs["scenes.toml"]["scenes"]) if entry["id"] == "mill")
    for value in ODD_VALUES:
        case = copy.deepcopy(docs)
        scene = case["scenes.toml"]["scenes"][index]
        scene[field] = value
        at = reader.At.data("scenes.toml", reader.entry_name("scene", "scenes", scene, index))
        try:
            expected = readers[field](at.sub(field), value)
        except DataError as refused:
            error = raises(case)
            assert (error.entry, error.field, error.message) == (refused.entry, refused.field, refused.message), \
                (field, value)
            continue
        try:   # a value its reader takes, read as the reader reads it (the scene may still mean nothing)
            parsed = parse_four_humours(case).scenes[index]
        except DataError as error:
            assert (error.entry, error.field) == (at.entry, field), (value, str(error))
            continue
        assert getattr(parsed, field) == expected, (field, value)


def test_a_missing_document_is_named(docs: Docs) -> None:
    del docs["fiefs.toml"]
    assert str(raises(docs)) == "fiefs.toml: file is missing"


def test_every_predicate_kind_is_understood(docs: Docs) -> None:
    samples = {
        "zones_covered": ("kingdom", {"min": 2}),
        "bridge_pairs": ("kingdom", {"min": 1}),
        "connected_cells": ("kingdom", {"min": 3, "via": ["bridge"]}),
        "cells_in_one_zone": ("kingdom", {"min": 2}),
        "stack_on_cell": ("fief", {"min": 2}),
        "citizen_types_covered": ("fief", {"min": 5}),
        "fief_line": ("fief", {"length": 2, "same_type": True}),
        "all": ("kingdom", [{"zones_covered": {"min": 2}}, {"bridge_pairs": {"min": 1}}]),
        "any": ("fief", [{"stack_on_cell": {"min": 2}}, {"fief_line": {"length": 3, "same_type": False}}]),
    }
    assert set(samples) == set(GOAL_PREDICATE_KINDS)
    for kind, (mode, params) in samples.items():
        goal = next(g for g in docs["goals.toml"]["goals"] if g["mode"] == mode)
        goal["predicate"] = {kind: params}
        loaded = parse_four_humours(docs).goal_by_id[goal["id"]].predicate
        assert loaded.kind == kind
        assert loaded.to_json() == {kind: params}


def test_rule_choices_match_the_records_comments() -> None:
    source = inspect.getsource(Rules)
    documented = {}
    for name, comment in re.findall(r"^\s+(\w+): str = [^#\n]*#([^\n]*)$", source, flags=re.MULTILINE):
        documented[name] = tuple(re.findall(r'"([^"]+)"', comment))
    text_flags = {f.name for f in dataclasses.fields(Rules) if isinstance(f.default, str)}
    assert set(documented) == text_flags == set(RULE_CHOICES)
    for name, values in documented.items():
        assert set(values) == set(RULE_CHOICES[name]), name
        assert getattr(Rules(), name) in RULE_CHOICES[name]


def test_wrong_types_anywhere_give_a_data_error_never_a_traceback(pristine_docs: Docs) -> None:
    # Replace a sample of values throughout the six files with values of the wrong type: the loader either
    # accepts the result or raises DataError, and no other exception escapes.
    leaves: list[tuple[str, tuple[Any, ...]]] = []

    def walk(file: str, node: Any, path: tuple[Any, ...]) -> None:
        if path:
            leaves.append((file, path))
        if isinstance(node, dict):
            for key, value in node.items():
                walk(file, value, path + (key,))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(file, value, path + (index,))

    for file, document in pristine_docs.items():
        walk(file, document, ())
    rng = random.Random(20240601)
    wrong_values: list[Any] = ["x", -1, 2.5, True, [], {}, ["choleric"], {"eq": 1}]
    for file, path in rng.sample(leaves, 300):
        broken = copy.deepcopy(pristine_docs)
        parent = broken[file]
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = rng.choice(wrong_values)
        try:
            parse_four_humours(broken)
        except DataError as error:
            assert error.file == file or error.file in FOUR_HUMOURS_FILES
            assert "\n" not in str(error)


# --------------------------------------------------------------------------------------------------------------
# Art paths named in the data


def test_scenes_with_the_same_slot_list_get_equal_slots_and_a_bad_copy_fails_at_its_own_scene(docs: Docs) -> None:
    # The parse reads each distinct slot list once (a big game repeats a few dozen): what it gives and the place
    # of an error must be what reading every list gives.
    scenes = docs["scenes.toml"]["scenes"]
    first, second, third = scenes[0], scenes[1], scenes[2]
    second["slots"] = copy.deepcopy(first["slots"])
    data = parse_four_humours(docs)
    assert data.scene_by_id[second["id"]].slots == data.scene_by_id[first["id"]].slots
    # 1 and 1.0 and "1" read alike to no one: a list differing only in a value's type is read again
    third["slots"] = copy.deepcopy(first["slots"])
    third["slots"][0]["citizen"] = [third["slots"][0]["citizen"]]
    error = raises(docs)
    assert (error.file, error.entry, error.field) == ("scenes.toml", f'scene "{third["id"]}"', "slots[0].citizen")
    # the same bad list in two scenes: the first one is named
    second["slots"] = copy.deepcopy(third["slots"])
    error = raises(docs)
    assert (error.file, error.entry, error.field) == ("scenes.toml", f'scene "{second["id"]}"', "slots[0].citizen")
