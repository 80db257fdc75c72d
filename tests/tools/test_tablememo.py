"""The card values a table keeps from one build for the next (tools.tablememo.CardMemo with
tools.table.compose_objects): the objects are always those of a fresh evaluation, and a card is evaluated again
exactly when what its expressions read changed — its data's fingerprint, its place, the language, another name."""

from __future__ import annotations

import tomllib
from dataclasses import replace

import pytest

from bridge.rules.game import Names
from tools import table as table_module
from tools.save import DeckSheet, SnapPoint, Vector
from tools.table import ArtDeck, compose_objects, parse_table
from tools.tablememo import CardMemo

from tests.tools.tablescenes import SCENES


SCENES = list(SCENES)
SHEET = DeckSheet("file:///scenes.jpg", "file:///back.jpg", 3, 2)
SLOTS = (SnapPoint(Vector(0.5, 0.2, 0.0), ("slot", "slot:0")), SnapPoint(Vector(-0.5, 0.2, 0.25), ("slot",)))
TABLE = parse_table(tomllib.loads('''
    hands = false
    [[decks]]
    name = "scene-deck"
    cards = "scenes"
    sheet = "scenes"
    face = "scene:{card.id}"
    key = "scene-deck"
    [decks.card]
    when = "card.mode == mode"
    key = "scene-deck/{card.id}"
    nickname = "{card.title} {index + 1}"
    description = { en = "{card.title}", uk = "{card.title}!" }
    memo = { role = "scene", card = "{card.id}", at = ["{index}", 1.5] }
    snap_points = "{slots}"
'''))


@pytest.fixture
def evaluated(monkeypatch) -> list[str]:
    """The card fields evaluated (not taken from a memo), by field."""
    fields: list[str] = []
    evaluate = table_module._Composer._evaluate

    def counted(self, at_, field_, value, scope, expression=False):
        if at_.prefix == "card" or field_ in ("sheet", "face"):
            fields.append(field_)
        return evaluate(self, at_, field_, value, scope, expression)
    monkeypatch.setattr(table_module._Composer, "_evaluate", counted)
    return fields


def compose(scenes=SCENES, *, memo: CardMemo | None = None, fingerprints: dict | None = None, lang: str = "uk",
            mode: str = "a", slots=SLOTS):
    art = {"scenes": ArtDeck({f"scene:{s.id}": (4, i, SHEET) for i, s in enumerate(scenes)})}
    if fingerprints is None:
        fingerprints = {id(s): f"{s.id}|{s.title}|{s.mode}" for s in scenes}
    objects, _ = compose_objects(TABLE, {}, lambda name: f"file:///{name}.png", seat_colours=["White"], lang=lang,
                                 game_id="g", mode=mode, names={"scenes": scenes, "slots": slots}, art=art,
                                 fingerprints=fingerprints if memo is not None else None, memo=memo)
    return objects


def kept(memo: CardMemo) -> CardMemo:
    """The memo as the next build reads it back."""
    return CardMemo.from_bytes(memo.to_bytes())


def test_kept_values_give_the_same_objects_and_nothing_is_evaluated_again(evaluated):
    fresh = compose()
    memo = CardMemo()
    assert compose(memo=memo) == fresh
    evaluated.clear()
    again = kept(memo)
    assert compose(memo=again) == fresh and evaluated == []
    assert not again.changed                     # the same values used: the file need not be written again
    (deck,) = fresh
    assert [c.nickname for c in deck.contained] == ["Криниця 2", "Млин 1"]
    assert deck.contained[0].snap_points == SLOTS and deck.contained[0].description == "Криниця!"


def test_a_card_whose_data_changed_alone_is_evaluated_again(evaluated):
    memo = CardMemo()
    compose(memo=memo)
    scenes = [SCENES[0], SCENES[1], replace(SCENES[2], title=Names("Old well", "Стара криниця", "Старый колодец")),
              SCENES[3]]
    evaluated.clear()
    again = kept(memo)
    objects = compose(scenes, memo=again)
    # the edited scene's when/sheet/face, then its card fields; every other card's came from the memo
    assert evaluated[:3] == ["when", "sheet", "face"]
    assert sorted(evaluated[3:]) == ["description", "key", "memo", "nickname", "snap_points"]
    assert objects == compose(scenes) and again.changed


@pytest.mark.parametrize("change", ["language", "mode", "slots", "place"])
def test_what_else_the_expressions_read_is_part_of_the_key(evaluated, change: str):
    memo = CardMemo()
    compose(memo=memo)
    options: dict = {}
    scenes = SCENES
    if change == "language":
        options["lang"] = "en"
    elif change == "mode":
        options["mode"] = "b"
    elif change == "slots":
        options["slots"] = (SnapPoint(Vector(0.5, 0.2, 0.0), ("slot",)),)
    else:   # the same scenes in another order: each card's index differs
        scenes = list(reversed(SCENES))
    evaluated.clear()
    objects = compose(scenes, memo=kept(memo), **options)
    dealt = len(objects[0].contained)
    # every card's fields evaluated again; its face too, but after a change of slots, which no face reads
    assert evaluated.count("when") == (0 if change == "slots" else len(SCENES))
    assert evaluated.count("snap_points") == evaluated.count("nickname") == dealt
    assert objects == compose(scenes, **options)


@pytest.mark.parametrize("damage", [b"", b"not json", None])
def test_a_damaged_or_missing_memo_is_no_values(evaluated, damage):
    memo = CardMemo()
    compose(memo=memo)
    raw = memo.to_bytes()
    if damage is None:   # one value's bytes changed: the checksum refuses them
        damage = raw.replace(b"scene-deck/well", b"scene-deck/wall")
        assert damage != raw
    again = CardMemo.from_bytes(damage)
    evaluated.clear()
    assert compose(memo=again) == compose()
    assert evaluated.count("when") == 2 * len(SCENES)   # with the memo, then without


def test_values_come_back_with_their_types():
    memo = CardMemo()
    values = ["text", 3, 2.5, True, None, [1, "a"], {"a": [1.0, {"b": 2}]}, ("t", 1), SLOTS, (), -0.0]
    memo.put("deck", "k", values)
    back = CardMemo.from_bytes(memo.to_bytes()).get("deck", "k", len(values))
    assert back == values and [type(v) for v in back] == [type(v) for v in values]
    assert type(back[8][0].position) is Vector and str(back[10]) == "-0.0"


def test_a_few_changed_cards_leave_the_file_as_it_was_and_many_have_it_written_again():
    given = CardMemo()
    for n in range(1000):
        given.put("deck", f"card{n}", [f"value {n}"])
    assert given.worth_keeping                       # nothing was kept before: worth writing
    edited = CardMemo.from_bytes(given.to_bytes())
    for n in range(1000):
        if n == 7:
            edited.put("deck", "card7 edited", ["new value"])
        else:
            assert edited.get("deck", f"card{n}", 1) == [f"value {n}"]
    # one card's values new, one card's no longer used: changed, but worked out again next time, not written
    assert edited.changed and not edited.worth_keeping
    many = CardMemo.from_bytes(given.to_bytes())
    for n in range(1000):
        if n < 10:
            many.put("deck", f"card{n} edited", ["new value"])
        else:
            many.get("deck", f"card{n}", 1)
    assert many.worth_keeping                        # ten new and ten gone: more than 8 (or 0.5 %) differ
    same = CardMemo.from_bytes(given.to_bytes())
    for n in range(1000):
        same.get("deck", f"card{n}", 1)
    assert not same.changed and not same.worth_keeping
