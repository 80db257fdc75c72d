"""The data files: the shipped sample parses with the counts of the design, and each kind of mistake is one
error naming the file, the entry and the field."""

from __future__ import annotations

import copy
import tomllib

import pytest

from bridge.errors import DataError
from bridge.paths import assets_dir
from bridge.rules.kill_the_unicorns.data import parse_kill_the_unicorns


def documents():
    folder = assets_dir() / "kill_the_unicorns"
    return {name: tomllib.loads((folder / name).read_text(encoding="utf-8")) for name in ("game.toml", "cards.toml")}


def test_the_sample_data_is_complete(ku_data):
    assert ku_data.info.sample_data and ku_data.info.id == "kill-the-unicorns"
    assert [c.id for c in ku_data.characters] == ["princess", "knight", "wizard", "shaman", "huntress", "bard",
                                                  "black_mage"]
    assert [c.id for c in ku_data.characters if c.promo] == ["black_mage"]
    assert all(len(c.tricks) == 8 for c in ku_data.characters)
    assert any(t.common for t in ku_data.tricks) and any(not t.common for t in ku_data.tricks)
    assert any(t.pinned for t in ku_data.tricks)
    deck = ku_data.deck_unicorns
    assert [sum(1 for u in deck if u.colour == c) for c in ku_data.colour_ids] == [6, 6, 6, 6]
    assert sum(1 for u in deck if u.colour is None) == 4 and len(ku_data.start_unicorns) == 6
    assert any(u.stars < 0 for u in deck)
    assert [m.id for m in ku_data.market] == ["pate", "fake_horn", "cotton_candy", "fairy_dust"]
    assert ku_data.hunting_card("knight-hunt-8").value == 4
    assert ku_data.trick_card("wizard-trick-6").kind == "paint_spell"
    assert ku_data.tokens("cotton_candy") == tuple(f"cotton_candy-{k}" for k in range(1, 5))
    assert len(ku_data.tokens("pate")) == 7


def _error(change) -> str:
    docs = copy.deepcopy(documents())
    change(docs)
    with pytest.raises(DataError) as caught:
        parse_kill_the_unicorns(docs)
    return str(caught.value)


def test_an_unknown_effect_type_names_the_trick_and_field():
    def change(docs):
        docs["cards.toml"]["tricks"][2]["effect"]["type"] = "vanish"
    assert _error(change).startswith('cards.toml: trick "decoy": effect.type: "vanish" is not an effect type')


def test_a_scoring_effect_on_an_unpinned_trick_is_refused():
    def change(docs):
        docs["cards.toml"]["tricks"][5]["pinned"] = False
    message = _error(change)
    assert message.startswith('cards.toml: trick "golden_saddle": effect.type:') and "at_scoring" in message


def test_a_character_trick_of_unknown_kind():
    def change(docs):
        docs["cards.toml"]["characters"][1]["tricks"][3] = "banana"
    assert _error(change) == ('cards.toml: character "knight": tricks[3]: "banana" is not a trick of [[tricks]]')


def test_a_character_with_seven_tricks():
    def change(docs):
        docs["cards.toml"]["characters"][0]["tricks"].pop()
    assert _error(change).startswith('cards.toml: character "princess": tricks: 7 trick cards')


def test_unequal_colour_counts_in_the_deck():
    def change(docs):
        for u in docs["cards.toml"]["unicorns"]:
            if u["id"] == "blue-1":
                u["colour"] = "green"
    assert _error(change).startswith("cards.toml: unicorns: the deck must hold the same number of unicorns of each "
                                     "colour")


def test_a_missing_rule_flag_and_a_bad_choice():
    def missing(docs):
        del docs["game.toml"]["rules"]["tie_break"]
    assert _error(missing) == "game.toml: [rules]: tie_break: missing"

    def bad(docs):
        docs["game.toml"]["rules"]["price_rule"] = "barter"
    assert _error(bad).startswith('game.toml: [rules]: price_rule: "barter" is not a price_rule rule')


def test_a_colour_effect_naming_an_unknown_colour_and_a_bad_hex():
    def change(docs):
        docs["cards.toml"]["market"][2]["effect"]["colour"] = "purple"
    assert _error(change).startswith('cards.toml: market item "cotton_candy": effect.colour: "purple"')

    def hex_(docs):
        docs["game.toml"]["colours"]["pink"]["hex"] = "pink"
    assert _error(hex_) == 'game.toml: colour "pink": hex: "pink" is not a colour like #rrggbb'


def test_a_power_that_changes_the_winner_is_refused():
    def change(docs):
        docs["cards.toml"]["characters"][0]["power"]["effect"] = {"type": "change_winner", "rule": "self"}
    assert _error(change).startswith('cards.toml: character "princess": power.effect.type: a power acts before')


def test_a_market_token_that_turns_in_its_own_unicorn_must_stay_in_front_of_the_buyer():
    def change(docs):
        docs["cards.toml"]["market"][0]["target"] = "own_unicorn"
    assert _error(change).startswith('cards.toml: market item "pate": target:')
